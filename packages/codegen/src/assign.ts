import { accessOf, liveIn, machineSuccessors } from './liveness.js';
import { CodegenError, type MFunction, type VFile, type VReg } from './mir.js';

/**
 * Register assignment by linear scan over live intervals (TEMPORARY: replaced by @ptxforge/regalloc, the
 * graph-colouring allocator with spilling, through its adapter once that package is on main).
 *
 * Each virtual register gets one interval [first definition or live-in block start, last use or live-out block
 * end] over the instructions in layout order; pairs and quads get aligned register runs. A value defined and
 * last read by the same instruction may share a register with it (SASS reads sources before writing results).
 * No spilling: running out of registers is CODEGEN_REGISTERS.
 */
export interface Assignment {
  /** Physical register of each virtual register id (its first component). */
  reg: Int32Array;
  /** Registers used per file (highest index + 1). */
  used: Record<VFile, number>;
}

export interface AssignOptions {
  /** Allocatable registers per file (R excludes RZ; P excludes PT). */
  limits: Record<VFile, number>;
  /** Registers that are never handed out (R1 when it is the stack pointer). */
  reserved?: Partial<Record<VFile, number[]>>;
}

export function assignRegisters(fn: MFunction, opts: AssignOptions): Assignment {
  const succs = machineSuccessors(fn);
  const live = liveIn(fn, succs);
  const nv = fn.vregs.length;
  const start = new Int32Array(nv).fill(0x7fffffff);
  const end = new Int32Array(nv).fill(-1);
  const blockStart: number[] = [];
  const blockEnd: number[] = [];
  let pos = 0;
  for (const b of fn.blocks) {
    blockStart.push(pos);
    pos += Math.max(1, b.instrs.length);
    blockEnd.push(pos - 1);
  }
  const touch = (id: number, p: number): void => {
    if (p < start[id]!) start[id] = p;
    if (p > end[id]!) end[id] = p;
  };
  fn.blocks.forEach((b, i) => {
    for (const id of live[i]!) touch(id, blockStart[i]!);
    for (const s of succs[i]!) for (const id of live[s]!) touch(id, blockEnd[i]!);
    b.instrs.forEach((mi, j) => {
      const a = accessOf(mi);
      for (const u of a.uses) touch(u.id, blockStart[i]! + j);
      for (const d of a.defs) touch(d.v.id, blockStart[i]! + j);
    });
  });
  const order: number[] = [];
  for (let id = 0; id < nv; id++) if (end[id]! >= 0) order.push(id);
  order.sort((a, b) => start[a]! - start[b]! || a - b);

  const reg = new Int32Array(nv).fill(-1);
  const files: VFile[] = ['R', 'P', 'UR', 'UP', 'B'];
  const busy: Record<string, Uint8Array> = {};
  for (const f of files) {
    busy[f] = new Uint8Array(Math.max(1, opts.limits[f]));
    for (const r of opts.reserved?.[f] ?? []) if (r < busy[f]!.length) busy[f]![r] = 2;
  }
  const used: Record<VFile, number> = { R: 0, P: 0, UR: 0, UP: 0, B: 0 };
  // active intervals ordered by end (a small binary heap keeps the scan near-linear)
  const heap: number[] = [];
  const push = (id: number): void => {
    heap.push(id);
    let i = heap.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (end[heap[p]!]! <= end[heap[i]!]!) break;
      [heap[p], heap[i]] = [heap[i]!, heap[p]!];
      i = p;
    }
  };
  const pop = (): number => {
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && end[heap[l]!]! < end[heap[m]!]!) m = l;
        if (r < heap.length && end[heap[r]!]! < end[heap[m]!]!) m = r;
        if (m === i) break;
        [heap[m], heap[i]] = [heap[i]!, heap[m]!];
        i = m;
      }
    }
    return top;
  };
  for (const id of order) {
    const v = fn.vregs[id]!;
    while (heap.length && end[heap[0]!]! < start[id]!) release(fn.vregs[pop()]!);
    const file = v.file;
    const b = busy[file]!;
    const w = v.width;
    let found = -1;
    for (let r = 0; r + w <= b.length; r += w) {
      let ok = true;
      for (let k = 0; k < w; k++) if (b[r + k]) ok = false;
      if (ok) {
        found = r;
        break;
      }
    }
    if (found < 0) {
      throw new CodegenError('CODEGEN_REGISTERS', `${fn.name}: not implemented: spilling (more than ${opts.limits[file]} ${file} registers live at once)`);
    }
    for (let k = 0; k < w; k++) b[found + k] = 1;
    reg[id] = found;
    used[file] = Math.max(used[file], found + w);
    push(id);
  }
  function release(v: VReg): void {
    const b = busy[v.file]!;
    for (let k = 0; k < v.width; k++) b[reg[v.id]! + k] = 0;
  }
  return { reg, used };
}
