/**
 * Memory spaces of a launch, all byte-addressed little-endian (docs/ori-semantics.md, "Memory").
 *
 * Global addresses are 64-bit and handled as JS numbers (exact below 2^53; anything higher is out of bounds).
 * Allocations are placed from GLOBAL_BASE upward, 256-byte aligned, with an unmapped gap between them so that
 * running off the end of a buffer is an out-of-bounds error rather than a silent access to the next one.
 * Generic addresses in [SWINBASE, SWINBASE + 2^32) are shared-window offsets, those in
 * [LWINBASE, LWINBASE + 2^32) local-window offsets, anything else is global.
 */
import { Trap } from './errors.js';

export const GLOBAL_BASE = 0x5_0000_0000;
/** SR_SWINBASE: generic address of shared-window offset 0. */
export const SWINBASE = 0x7f00_0000_0000;
/** SR_LWINBASE: generic address of local-window offset 0. */
export const LWINBASE = 0x7e00_0000_0000;
export const WINDOW_SIZE = 0x1_0000_0000;
const GAP = 256;
/** The device heap for device-side malloc (8 MiB, CUDA's default heap limit). */
export const DEVICE_HEAP_BYTES = 8 << 20;

export interface Region {
  readonly name: string;
  readonly base: number;
  readonly size: number;
  readonly bytes: Uint8Array;
  readonly view: DataView;
}

export class GlobalMemory {
  readonly regions: Region[] = [];
  /** What the launch's threads printed (device printf, in execution order: warps as run, lanes ascending). */
  readonly printed: string[] = [];
  private next = GLOBAL_BASE;
  private last: Region | undefined;

  allocate(name: string, size: number, init?: Uint8Array, align = 256): Region {
    const a = Math.max(256, align);
    const base = Math.ceil(this.next / a) * a;
    const bytes = new Uint8Array(Math.max(size, 0));
    if (init) bytes.set(init.subarray(0, size));
    const r: Region = { name, base, size, bytes, view: new DataView(bytes.buffer) };
    this.regions.push(r);
    this.next = base + Math.max(size, 1) + GAP;
    return r;
  }

  private heap: Region | undefined;
  private heapNext = 0;

  /**
   * Device-side malloc: `size` bytes, 16-byte aligned, from a heap of DEVICE_HEAP_BYTES made on the first call
   * (CUDA's default cudaLimitMallocHeapSize); 0 (NULL) when it is exhausted or for size 0. A bump allocator:
   * free gives nothing back, so a run's addresses depend only on the order of the calls.
   */
  heapAlloc(size: number): number {
    if (!(size > 0)) return 0;
    this.heap ??= this.allocate('(device heap)', DEVICE_HEAP_BYTES);
    const at = Math.ceil(this.heapNext / 16) * 16;
    if (at + size > this.heap.size) return 0;
    this.heapNext = at + size;
    return this.heap.base + at;
  }

  /** The region holding [addr, addr + size), or a trap. */
  find(addr: number, size: number, lane: number): Region {
    const l = this.last;
    if (l && addr >= l.base && addr + size <= l.base + l.size) return l;
    for (const r of this.regions) {
      if (addr >= r.base && addr + size <= r.base + r.size) {
        this.last = r;
        return r;
      }
    }
    throw new Trap('out-of-bounds', `global access of ${size} bytes at 0x${addr.toString(16)} is outside every allocation`, lane);
  }
}

export function checkAlign(addr: number, size: number, lane: number, space: string): void {
  const a = size > 8 ? 16 : size;
  if (addr % a !== 0) throw new Trap('misaligned', `${space} access of ${size} bytes at misaligned address 0x${addr.toString(16)}`, lane);
}

/** Read `size` bytes (1, 2, 4, 8 or 16) at `off` into out[0..] as 32-bit words (zero-filled above size). */
export function readWords(view: DataView, off: number, size: number, out: Uint32Array): void {
  switch (size) {
    case 1:
      out[0] = view.getUint8(off);
      return;
    case 2:
      out[0] = view.getUint16(off, true);
      return;
    case 4:
      out[0] = view.getUint32(off, true);
      return;
    default:
      for (let k = 0; k < size / 4; k++) out[k] = view.getUint32(off + 4 * k, true);
  }
}

export function writeWords(view: DataView, off: number, size: number, words: Uint32Array): void {
  switch (size) {
    case 1:
      view.setUint8(off, words[0]! & 0xff);
      return;
    case 2:
      view.setUint16(off, words[0]! & 0xffff, true);
      return;
    case 4:
      view.setUint32(off, words[0]!, true);
      return;
    default:
      for (let k = 0; k < size / 4; k++) view.setUint32(off + 4 * k, words[k]!, true);
  }
}
