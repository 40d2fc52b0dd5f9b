/**
 * Per-CTA and per-warp state: the register file of a warp (32 lanes per slot), predicate lane masks,
 * written-lane masks for undefined-read detection, thread coordinates and the memory windows.
 */
import { Trap } from './errors.js';
import { LWINBASE, SWINBASE, type GlobalMemory } from './memory.js';
import type { Program } from './program.js';

/** A set of lanes of one warp at the same pc with the same reconvergence stack. */
export interface Group {
  pc: number;
  mask: number;
  frames: Frame[];
  calls: CallFrame[];
}

/** A reconvergence frame: the lanes `expect` (still alive) meet at pc `rpc`. */
export interface Frame {
  readonly rpc: number;
  expect: number;
  arrived: number;
  readonly parked: Group[];
  broken: boolean;
}

export interface CallFrame {
  /** Pc after the CALL. */
  readonly cont: number;
  /** Index of the CALL op (results are copied into its defs). */
  readonly callPc: number;
}

export class Cta {
  readonly shared: Uint8Array;
  readonly sharedView: DataView;
  readonly local: Uint8Array;
  readonly localView: DataView;
  readonly warps: Warp[] = [];
  readonly nthreads: number;
  /** Counts changes of mbarrier objects (arrivals, tx updates): a waiting warp resumes when it moved. */
  mbarrierEpoch = 0;
  /** Groups that yielded after a failed mbarrier wait, with the epoch they saw (machine.ts resumes them). */
  readonly yielded: Array<{ w: Warp; g: Group; epoch: number; pc: number }> = [];
  /** Consecutive rounds in which only waiting warps were resumed and no mbarrier changed. */
  fruitlessWaits = 0;

  constructor(
    readonly prog: Program,
    readonly global: GlobalMemory,
    readonly ctaid: readonly [number, number, number],
    readonly clock: { steps: number },
  ) {
    const [bx, by, bz] = prog.layout.block;
    this.nthreads = bx * by * bz;
    this.shared = new Uint8Array(prog.layout.sharedSize);
    this.sharedView = new DataView(this.shared.buffer);
    this.local = new Uint8Array(prog.layout.localSize * this.nthreads);
    this.localView = new DataView(this.local.buffer);
    const nwarps = Math.ceil(this.nthreads / 32);
    for (let k = 0; k < nwarps; k++) this.warps.push(new Warp(prog, this, k, nwarps));
  }
}

const regTemplates = new WeakMap<Program, { R: Uint32Array; W: Int32Array }>();

function template(prog: Program): { R: Uint32Array; W: Int32Array } {
  let t = regTemplates.get(prog);
  if (!t) {
    const R = new Uint32Array(prog.nslots * 32);
    const W = new Int32Array(prog.nslots);
    for (const [slot, v] of prog.constInit) {
      R.fill(v >>> 0, slot * 32, slot * 32 + 32);
      W[slot] = -1;
    }
    t = { R, W };
    regTemplates.set(prog, t);
  }
  return t;
}

/** How far the interpreter's clock advances between two reads by one thread. */
export const CLOCK_TICKS_PER_READ = 64;

export class Warp {
  readonly R: Uint32Array;
  /** The same register file read as f32 (fast float paths). */
  readonly F: Float32Array;
  readonly W: Int32Array;
  readonly P: Int32Array;
  readonly PW: Int32Array;
  /** Global id of the block each lane came from (PHI selection). */
  readonly prev = new Int32Array(32).fill(-1);
  /** Lanes whose thread exists and has not exited. */
  live: number;
  /** Lanes that exist in this warp (partial last warp). */
  readonly exists: number;
  readonly tid = new Int32Array(96);
  readonly linear = new Int32Array(32);
  readonly runnable: Group[] = [];
  /** Set by a failed mbarrier wait (SYNCS.PHASECHK): the group stops after the instruction and lets others run. */
  yieldNow = false;
  /** Groups parked at a reconvergence point (held by their frame). */
  readonly parked = new Set<Group>();
  /** Groups waiting at BSYNC, by pc. */
  readonly bsync = new Map<string, { pc: number; expect: number; arrived: number; groups: Group[] }>();

  constructor(
    readonly prog: Program,
    readonly cta: Cta,
    readonly index: number,
    readonly nwarps: number,
  ) {
    const t = template(prog);
    this.R = t.R.slice();
    this.F = new Float32Array(this.R.buffer);
    this.W = t.W.slice();
    this.P = new Int32Array(prog.npslots);
    this.PW = new Int32Array(prog.npslots);
    this.P[0] = -1;
    this.PW[0] = -1;
    const [bx, by] = prog.layout.block;
    let exists = 0;
    for (let l = 0; l < 32; l++) {
      const lin = index * 32 + l;
      this.linear[l] = lin;
      if (lin < cta.nthreads) exists |= 1 << l;
      this.tid[3 * l] = lin % bx;
      this.tid[3 * l + 1] = Math.floor(lin / bx) % by;
      this.tid[3 * l + 2] = Math.floor(lin / (bx * by));
    }
    this.exists = exists;
    this.live = exists;
  }

  tidOf(l: number): [number, number, number] {
    return [this.tid[3 * l]!, this.tid[3 * l + 1]!, this.tid[3 * l + 2]!];
  }

  /** Reads of the clock registers per lane (see special). */
  private readonly clockReads = new Float64Array(32);

  private clockRead(l: number): number {
    return ++this.clockReads[l]! * CLOCK_TICKS_PER_READ;
  }

  /** Value of a special register for a lane (docs/ori-semantics.md, S2R). */
  special(name: string, l: number): bigint {
    const { grid, block } = this.prog.layout;
    const ctaid = this.cta.ctaid;
    switch (name) {
      case 'SR_TID.X': return BigInt(this.tid[3 * l]!);
      case 'SR_TID.Y': return BigInt(this.tid[3 * l + 1]!);
      case 'SR_TID.Z': return BigInt(this.tid[3 * l + 2]!);
      case 'SR_NTID.X': return BigInt(block[0]);
      case 'SR_NTID.Y': return BigInt(block[1]);
      case 'SR_NTID.Z': return BigInt(block[2]);
      case 'SR_CTAID.X': return BigInt(ctaid[0]);
      case 'SR_CTAID.Y': return BigInt(ctaid[1]);
      case 'SR_CTAID.Z': return BigInt(ctaid[2]);
      case 'SR_NCTAID.X': return BigInt(grid[0]);
      case 'SR_NCTAID.Y': return BigInt(grid[1]);
      case 'SR_NCTAID.Z': return BigInt(grid[2]);
      case 'SR_LANEID': return BigInt(l);
      case 'SR_WARPID': return BigInt(this.index);
      case 'SR_NWARPID': return BigInt(this.nwarps);
      case 'SR_LANEMASK_EQ': return BigInt((1 << l) >>> 0);
      case 'SR_LANEMASK_LT': return BigInt(((1 << l) - 1) >>> 0);
      case 'SR_LANEMASK_LE': return BigInt((l === 31 ? -1 : (1 << (l + 1)) - 1) >>> 0);
      case 'SR_LANEMASK_GT': return BigInt((l === 31 ? 0 : ~((1 << (l + 1)) - 1)) >>> 0);
      case 'SR_LANEMASK_GE': return BigInt(~((1 << l) - 1) >>> 0);
      // Clocks and the global timer count this thread's reads of them (CLOCK_TICKS_PER_READ each): monotonic per
      // thread and independent of how many instructions ran, so --verify-each and the SASS path see the same
      // values when an optimization removes instructions between two reads.
      case 'SR_CLOCKLO': return BigInt(this.clockRead(l) >>> 0);
      case 'SR_CLOCKHI': return BigInt(Math.floor(this.clockRead(l) / 2 ** 32));
      case 'SR_CLOCK64':
      case 'SR_GLOBALTIMER':
      case 'SR_CLOCK': return BigInt(this.clockRead(l));
      case 'SR_SWINBASE': return BigInt(SWINBASE);
      case 'SR_LWINBASE': return BigInt(LWINBASE);
    }
    throw new Trap('unsupported', `unknown special register ${name}`, l);
  }
}
