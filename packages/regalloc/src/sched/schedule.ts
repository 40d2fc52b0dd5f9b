import { computeBlockLiveness, restrictToDefined } from '../liveness.js';
import type { RaFunction, RaInstr, RaOutInstr, RaResult, RegClass, SchedOp } from '../types.js';
import type { SchedLatency } from './latency.js';
import { buildDag, criticalHeights, listSchedule, orderCycles, type Candidate, type SchedNode } from './list.js';

export interface ScheduleStats {
  readonly blocks: number;
  /** Blocks whose order changed. */
  readonly reordered: number;
  /** Blocks where the new order lost (pressure above the bound, or more cycles) and the original was kept. */
  readonly reverted: number;
  /** Estimated cycles (single-issue in-order model), summed over blocks, before and after. */
  readonly cyclesBefore: number;
  readonly cyclesAfter: number;
  /** Highest register pressure of the class `pressureClass` over all blocks, before and after. */
  readonly maxPressureBefore: number;
  readonly maxPressureAfter: number;
  readonly dagEdges: number;
}

export interface PreRaScheduleOptions {
  readonly latency: SchedLatency;
  /**
   * Register pressure bound per class (registers, widths counted): the scheduler prefers instructions that
   * free registers once the pressure of a class reaches its bound, and a block's new order never has a
   * higher peak than max(bound, the original order's peak). Default: R 64, others unbounded.
   */
  readonly pressureLimit?: Readonly<Partial<Record<RegClass, number>>>;
  /**
   * `pressure`: minimise pressure first, latency second (the forward, register-pressure-reducing pass ptxas
   * runs at -O2 and below, spec: pipeline, "Optimization Level Gating"); `latency`: critical path first with
   * pressure only at the bound (the latency-hiding pass of -O3). Default `latency`.
   */
  readonly mode?: 'pressure' | 'latency';
  /** Ready nodes the chooser looks at per pick (default 32). */
  readonly window?: number;
}

const CLASSES: readonly RegClass[] = ['R', 'P', 'UR', 'UP', 'B'];
const CLASS_INDEX: Readonly<Record<RegClass, number>> = { R: 0, P: 1, UR: 2, UP: 3, B: 4 };

function nodeOf(ins: RaInstr, reads: readonly number[], writes: readonly number[]): SchedNode {
  return { reads, writes, memory: ins.memory, memorySpace: ins.memorySpace, fence: ins.fence, op: ins.op };
}

/**
 * Per-vreg arrays of one function shared by the pressure trackers of its blocks (class, width; and the
 * counters a tracker sets and clears again for the vregs it touched), so a block costs its own size, not the
 * function's vreg count.
 */
class PressureScratch {
  readonly cls: Uint8Array;
  readonly width: Float64Array;
  readonly remaining: Int32Array;
  readonly live: Uint8Array;
  readonly liveOut: Uint8Array;
  constructor(fn: RaFunction) {
    const n = fn.vregs.length;
    this.cls = new Uint8Array(n);
    this.width = new Float64Array(n);
    for (let v = 0; v < n; v++) {
      this.cls[v] = CLASS_INDEX[fn.vregs[v]!.cls];
      this.width[v] = fn.vregs[v]!.width;
    }
    this.remaining = new Int32Array(n);
    this.live = new Uint8Array(n);
    this.liveOut = new Uint8Array(n);
  }
}

/** Per-class pressure simulation of one block order (see `blockPressure`); `release` clears its marks. */
class PressureTracker {
  readonly cur = new Float64Array(5);
  readonly peak = new Float64Array(5);
  private readonly touched: number[] = [];
  constructor(private readonly s: PressureScratch, private readonly instrs: readonly RaInstr[], liveIn: Int32Array, liveOut: Int32Array) {
    const touched = this.touched;
    for (const ins of instrs) {
      for (const u of ins.uses) {
        s.remaining[u]!++;
        touched.push(u);
      }
      if (ins.partialDefs) {
        for (const u of ins.partialDefs) {
          s.remaining[u]!++;
          touched.push(u);
        }
      }
      for (const d of ins.defs) touched.push(d);
    }
    for (const v of liveOut) {
      s.liveOut[v] = 1;
      touched.push(v);
    }
    for (const v of liveIn) {
      this.add(v);
      touched.push(v);
    }
    for (let c = 0; c < 5; c++) this.peak[c] = this.cur[c]!;
  }
  /** Clears the shared arrays for the next block. */
  release(): void {
    const s = this.s;
    for (const v of this.touched) {
      s.remaining[v] = 0;
      s.live[v] = 0;
      s.liveOut[v] = 0;
    }
    this.touched.length = 0;
  }
  private add(v: number): void {
    const s = this.s;
    if (s.live[v]) return;
    s.live[v] = 1;
    this.cur[s.cls[v]!] += s.width[v]!;
  }
  private kill(v: number): void {
    const s = this.s;
    if (!s.live[v]) return;
    s.live[v] = 0;
    this.cur[s.cls[v]!] -= s.width[v]!;
  }
  /** Pressure change per class if instruction `i` issued now (new defs minus dying uses). */
  delta(i: number, out: Float64Array): void {
    out.fill(0);
    const s = this.s;
    const ins = this.instrs[i]!;
    for (const d of ins.defs) if (!s.live[d]) out[s.cls[d]!] += s.width[d]!;
    const uses = ins.uses;
    for (let j = 0; j < uses.length; j++) {
      const u = uses[j]!;
      if (s.liveOut[u] || ins.defs.includes(u)) continue;
      // each distinct use once (an instruction's operand list is short)
      let dup = false;
      for (let k = 0; k < j && !dup; k++) dup = uses[k] === u;
      if (dup) continue;
      let n = 0;
      for (const x of uses) if (x === u) n++;
      if (s.remaining[u] === n) out[s.cls[u]!] -= s.width[u]!;
    }
  }
  issue(i: number): void {
    const s = this.s;
    const ins = this.instrs[i]!;
    for (const d of ins.defs) this.add(d);
    if (ins.partialDefs) for (const d of ins.partialDefs) this.add(d);
    for (let c = 0; c < 5; c++) this.peak[c] = Math.max(this.peak[c]!, this.cur[c]!);
    const dying = (u: number): void => {
      const r = --s.remaining[u]!;
      if (r === 0 && !s.liveOut[u]) this.kill(u);
    };
    for (const u of ins.uses) dying(u);
    if (ins.partialDefs) for (const u of ins.partialDefs) dying(u);
    // a definition nobody reads dies at once
    for (const d of ins.defs) if (!s.remaining[d] && !s.liveOut[d]) this.kill(d);
  }
}

/** Peak pressure per class of `instrs` issued in `order`. */
export function blockPressure(fn: RaFunction, instrs: readonly RaInstr[], order: readonly number[], liveIn: Int32Array, liveOut: Int32Array): Float64Array {
  return blockPressureWith(new PressureScratch(fn), instrs, order, liveIn, liveOut);
}

function blockPressureWith(s: PressureScratch, instrs: readonly RaInstr[], order: readonly number[], liveIn: Int32Array, liveOut: Int32Array): Float64Array {
  const t = new PressureTracker(s, instrs, liveIn, liveOut);
  for (const i of order) t.issue(i);
  t.release();
  return t.peak;
}

/**
 * AdvancedPhasePreSched (97): list-schedule every block of a function before register allocation, weighing
 * latency (critical path under the target's latencies) against register pressure (live registers per class,
 * widths counted). Returns the function with each block's instructions reordered (the same instruction
 * objects) and statistics. A block whose new order has a higher pressure peak than max(bound, original) or
 * takes more estimated cycles keeps its original order.
 */
export function schedulePreRA<Ref>(fn: RaFunction<Ref>, opts: PreRaScheduleOptions): { fn: RaFunction<Ref>; stats: ScheduleStats } {
  const limits = new Float64Array(5).fill(Infinity);
  limits[0] = 64;
  for (const c of CLASSES) {
    const l = opts.pressureLimit?.[c];
    if (l !== undefined) limits[CLASS_INDEX[c]] = l;
  }
  const mode = opts.mode ?? 'latency';
  const input = { numVregs: fn.vregs.length, blocks: fn.blocks };
  const lv = restrictToDefined(input, computeBlockLiveness(input), fn.entryDefs);
  let reordered = 0, reverted = 0, cyclesBefore = 0, cyclesAfter = 0, pBefore = 0, pAfter = 0, dagEdges = 0;
  const scratch = new PressureScratch(fn);
  const blocks = fn.blocks.map((blk, b) => {
    const instrs = blk.instrs;
    // partial defs are read and written (the untouched part lives on); without any, the lists are the node's own
    const nodes = instrs.map((ins) => ins.partialDefs?.length
      ? nodeOf(ins, [...ins.uses, ...ins.partialDefs], [...ins.defs, ...ins.partialDefs])
      : nodeOf(ins, ins.uses, ins.defs));
    const dag = buildDag(nodes, opts.latency);
    dagEdges += dag.edges;
    const identity = instrs.map((_, i) => i);
    const before = blockPressureWith(scratch, instrs, identity, lv.liveIn[b]!, lv.liveOut[b]!);
    const cb = orderCycles(dag, identity);
    const heights = criticalHeights(dag);
    const tracker = new PressureTracker(scratch, instrs, lv.liveIn[b]!, lv.liveOut[b]!);
    // A candidate's pressure change depends only on the tracker, which changes only when a node issues: its
    // excess over the bounds and its summed change are computed once per candidate and pick (the chooser
    // compares the best so far with every other candidate of the window).
    const d = new Float64Array(5);
    const excessOf = new Float64Array(instrs.length);
    const sumOf = new Float64Array(instrs.length);
    const stamp = new Int32Array(instrs.length).fill(-1);
    let version = 0;
    const measure = (i: number): void => {
      if (stamp[i] === version) return;
      stamp[i] = version;
      tracker.delta(i, d);
      // pressure excess the candidate causes, summed over classes at or above their bound
      let e = 0;
      for (let c = 0; c < 5; c++) if (tracker.cur[c]! + d[c]! > limits[c]!) e += tracker.cur[c]! + d[c]! - limits[c]!;
      excessOf[i] = e;
      sumOf[i] = d[0]! + d[1]! + d[2]! + d[3]! + d[4]!;
    };
    const better = (a: Candidate, bb: Candidate, cycle: number): boolean => {
      measure(a.node);
      measure(bb.node);
      const ea = excessOf[a.node]!, eb = excessOf[bb.node]!;
      if (ea !== eb) return ea < eb;
      if (mode === 'pressure') {
        const sa = sumOf[a.node]!, sb = sumOf[bb.node]!;
        if (sa !== sb) return sa < sb;
      }
      const ra = a.ready <= cycle, rb = bb.ready <= cycle;
      if (ra !== rb) return ra;
      if (!ra && a.ready !== bb.ready) return a.ready < bb.ready;
      if (a.height !== bb.height) return a.height > bb.height;
      const sa = sumOf[a.node]!, sb = sumOf[bb.node]!;
      if (sa !== sb) return sa < sb;
      return a.node < bb.node;
    };
    const onIssue = (i: number): void => {
      tracker.issue(i);
      version++;
    };
    let order = listSchedule(dag, heights, better, onIssue, opts.window);
    tracker.release();
    const after = tracker.peak;
    let ca = orderCycles(dag, order);
    let worse = false;
    for (let c = 0; c < 5; c++) {
      if (after[c]! > Math.max(limits[c]!, before[c]!)) worse = true;
      if (mode === 'pressure' && after[c]! > before[c]!) worse = true;
    }
    if (!worse && mode === 'latency' && ca > cb) worse = true;
    if (worse) {
      reverted++;
      order = identity;
      ca = cb;
    }
    const pa = worse ? before[0]! : after[0]!;
    cyclesBefore += cb;
    cyclesAfter += ca;
    pBefore = Math.max(pBefore, before[0]!);
    pAfter = Math.max(pAfter, pa);
    if (order.some((x, i) => x !== i)) reordered++;
    return { ...blk, instrs: order.map((i) => instrs[i]!) };
  });
  return {
    fn: { ...fn, blocks },
    stats: { blocks: fn.blocks.length, reordered, reverted, cyclesBefore, cyclesAfter, maxPressureBefore: pBefore, maxPressureAfter: pAfter, dagEdges },
  };
}

export interface PostRaScheduleOptions {
  readonly latency: SchedLatency;
  /** Opcode of a spill store / reload for latencies (default STL / LDL). */
  readonly spillStoreOp?: SchedOp;
  readonly reloadOp?: SchedOp;
  /** Opcodes of predicate saves / restores (default SEL / ISETP). */
  readonly saveOp?: SchedOp;
  readonly restoreOp?: SchedOp;
  readonly window?: number;
}

/**
 * PostSchedule (110): list-schedule an allocated function on its physical registers (true, anti and output
 * dependences between registers, each register of a pair or quad on its own), spill code included (spill
 * slots are one memory space of their own). Critical path first; a block whose new order is not faster keeps
 * its order. Returns the result with each block's items reordered.
 */
export function schedulePostRA<Ref>(res: RaResult<Ref>, opts: PostRaScheduleOptions): { result: RaResult<Ref>; stats: ScheduleStats } {
  const stl = opts.spillStoreOp ?? { opcode: 'STL' };
  const ldl = opts.reloadOp ?? { opcode: 'LDL' };
  const classOf = res.vregs.map((v) => CLASS_INDEX[v.cls] * 256);
  const put = (out: number[], vs: readonly number[]): void => {
    for (const v of vs) {
      const base = classOf[v]! + res.assignment[v]!;
      const w = res.vregs[v]!.width;
      for (let k = 0; k < w; k++) out.push(base + k);
    }
  };
  const keys = (vs: readonly number[], more?: readonly number[]): number[] => {
    const out: number[] = [];
    put(out, vs);
    if (more) put(out, more);
    return out;
  };
  const nodeFor = (ins: RaOutInstr<Ref>): SchedNode => {
    switch (ins.kind) {
      case 'instr': {
        const s = ins.source;
        const writes = keys(ins.defs, ins.partialDefs);
        if (s.clobbers) for (const p of s.clobbers) for (let k = 0; k < (p.width ?? 1); k++) writes.push(CLASS_INDEX[p.cls] * 256 + p.index + k);
        return nodeOf(s, keys(ins.uses, ins.partialDefs), writes);
      }
      case 'spill-store':
        return { reads: keys([ins.vreg]), writes: [], memory: 'store', memorySpace: 'spill', op: stl };
      case 'reload':
        return { reads: [], writes: keys([ins.vreg]), memory: 'load', memorySpace: 'spill', op: ldl };
      case 'remat':
        return nodeOf(ins.source, [], keys([ins.vreg]));
      case 'save':
        return { reads: keys([ins.vreg]), writes: keys([ins.home]), op: opts.saveOp ?? { opcode: 'SEL' } };
      case 'restore':
        return { reads: keys([ins.home]), writes: keys([ins.vreg]), op: opts.restoreOp ?? { opcode: 'ISETP' } };
    }
  };
  let reordered = 0, reverted = 0, cyclesBefore = 0, cyclesAfter = 0, dagEdges = 0;
  const blocks = res.blocks.map((instrs) => {
    const dag = buildDag(instrs.map(nodeFor), opts.latency);
    dagEdges += dag.edges;
    const identity = instrs.map((_, i) => i);
    const cb = orderCycles(dag, identity);
    const heights = criticalHeights(dag);
    const better = (a: Candidate, b: Candidate, cycle: number): boolean => {
      const ra = a.ready <= cycle, rb = b.ready <= cycle;
      if (ra !== rb) return ra;
      if (!ra && a.ready !== b.ready) return a.ready < b.ready;
      if (a.height !== b.height) return a.height > b.height;
      return a.node < b.node;
    };
    let order = listSchedule(dag, heights, better, () => {}, opts.window);
    let ca = orderCycles(dag, order);
    if (ca > cb) {
      reverted++;
      order = identity;
      ca = cb;
    }
    cyclesBefore += cb;
    cyclesAfter += ca;
    if (order.some((x, i) => x !== i)) reordered++;
    return order.map((i) => instrs[i]!);
  });
  return {
    result: { ...res, blocks },
    stats: { blocks: res.blocks.length, reordered, reverted, cyclesBefore, cyclesAfter, maxPressureBefore: 0, maxPressureAfter: 0, dagEdges },
  };
}
