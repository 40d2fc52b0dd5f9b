import { RegallocError } from '../errors.js';
import type { SchedOp } from '../types.js';
import type { SchedLatency } from './latency.js';

/**
 * One instruction of a scheduling region (a block) as the DAG builder sees it: the resources it reads and
 * writes (vreg ids before allocation, physical register keys after), its memory effect, whether it is a
 * fence, and its opcode for latencies.
 */
export interface SchedNode {
  readonly reads: readonly number[];
  readonly writes: readonly number[];
  readonly memory?: 'load' | 'store' | 'atomic' | undefined;
  readonly memorySpace?: string | undefined;
  readonly fence?: boolean | undefined;
  readonly op?: SchedOp | undefined;
}

/** Dependence DAG of a region: edges only go forward in the original order (that order is a topological one). */
export interface SchedDag {
  readonly preds: readonly (readonly number[])[];
  readonly predLat: readonly (readonly number[])[];
  readonly succs: readonly (readonly number[])[];
  readonly succLat: readonly (readonly number[])[];
  readonly edges: number;
}

const GENERIC = '\u0000generic';

function conflicts(a: string, b: string): boolean {
  return a === GENERIC || b === GENERIC || a === b;
}

/**
 * Dependences: RAW (latency of the writer for the reader), WAR (0: in-order issue reads before a later
 * write), WAW (1), memory order (loads after the last conflicting store, stores/atomics after every
 * conflicting access; spaces that differ and are both known do not conflict), fences (everything before a
 * fence precedes it, everything after follows it). Linear in the instructions plus the edges.
 */
export function buildDag(nodes: readonly SchedNode[], lat: SchedLatency): SchedDag {
  const n = nodes.length;
  const preds: number[][] = new Array(n);
  const predLat: number[][] = new Array(n);
  // per register key: the last writer and the readers since it, valid while their stamp is `gen` (a fence
  // forgets everything older by moving to a new stamp; no per-block clearing of the key-indexed arrays)
  const rt = regTable;
  rt.next();
  const lastStore = new Map<string, number>();
  const accessesSince = new Map<string, number[]>(); // loads since the last store of the space
  let lastFence = -1;
  let sinceFence: number[] = [];
  const seen = new Int32Array(n).fill(-1);
  const slotOf = new Int32Array(n);
  let edges = 0;
  let i = 0;
  let ps: number[] = [];
  let pl: number[] = [];
  const edge = (p: number, l: number): void => {
    if (p < 0 || p === i) return;
    if (seen[p] === i) {
      const k = slotOf[p]!;
      if (l > pl[k]!) pl[k] = l;
      return;
    }
    seen[p] = i;
    slotOf[p] = ps.length;
    ps.push(p);
    pl.push(l);
  };
  for (; i < n; i++) {
    const node = nodes[i]!;
    ps = preds[i] = [];
    pl = predLat[i] = [];
    if (node.fence) {
      for (const p of sinceFence) edge(p, 0);
      edge(lastFence, 1);
    } else {
      edge(lastFence, 1);
    }
    for (const k of node.reads) {
      rt.reserve(k);
      const w = rt.writer(k);
      if (w >= 0) edge(w, lat.latency(nodes[w]!.op, node.op));
      rt.readers(k).push(i);
    }
    for (const k of node.writes) {
      rt.reserve(k);
      const rs = rt.readersIfAny(k);
      if (rs) for (const r of rs) edge(r, 0);
      const w = rt.writer(k);
      if (w >= 0) edge(w, 1);
    }
    for (const k of node.writes) {
      rt.setWriter(k, i);
      rt.readers(k).length = 0;
    }
    if (node.memory) {
      const space = node.memorySpace && node.memorySpace !== 'generic' ? node.memorySpace : GENERIC;
      for (const [s, st] of lastStore) if (conflicts(s, space)) edge(st, 1);
      if (node.memory !== 'load') {
        for (const [s, loads] of accessesSince) if (conflicts(s, space)) for (const l of loads) edge(l, 0);
        if (space === GENERIC) {
          lastStore.clear();
          accessesSince.clear();
        } else {
          accessesSince.set(space, []);
        }
        lastStore.set(space, i);
      } else {
        let a = accessesSince.get(space);
        if (!a) accessesSince.set(space, (a = []));
        a.push(i);
      }
    }
    if (node.fence) {
      lastFence = i;
      sinceFence = [];
      // everything before the fence is ordered through it: forget older state
      rt.next();
      lastStore.clear();
      accessesSince.clear();
      for (const k of node.reads) {
        const rs = rt.readers(k);
        rs.length = 0;
        rs.push(i);
      }
      for (const k of node.writes) rt.setWriter(k, i);
    } else {
      sinceFence.push(i);
    }
    edges += ps.length;
  }
  const succs: number[][] = new Array(n);
  const succLat: number[][] = new Array(n);
  for (let j = 0; j < n; j++) {
    succs[j] = [];
    succLat[j] = [];
  }
  for (let j = 0; j < n; j++) {
    const ps = preds[j]!;
    for (let k = 0; k < ps.length; k++) {
      succs[ps[k]!]!.push(j);
      succLat[ps[k]!]!.push(predLat[j]![k]!);
    }
  }
  return { preds, predLat, succs, succLat, edges };
}

/**
 * The DAG builder's per-register state, indexed by register key (vreg id, or physical key) and shared by
 * every call: an entry counts only while its stamp equals `gen`, so starting a block or passing a fence is one
 * increment instead of clearing tables sized by the function's registers. (Single-threaded: no call nests.)
 */
class RegTable {
  private gen = 0;
  private stamp = new Int32Array(256);
  private lastWriter = new Int32Array(256);
  private readersSince: number[][] = [];
  /** Forget every entry. */
  next(): void {
    if (++this.gen === 0x7fffffff) {
      this.stamp.fill(0);
      this.gen = 1;
    }
  }
  reserve(k: number): void {
    if (k < this.stamp.length) return;
    let size = this.stamp.length;
    while (size <= k) size *= 2;
    const stamp = new Int32Array(size);
    stamp.set(this.stamp);
    const lw = new Int32Array(size);
    lw.set(this.lastWriter);
    this.stamp = stamp;
    this.lastWriter = lw;
  }
  private fresh(k: number): void {
    if (this.stamp[k] === this.gen) return;
    this.stamp[k] = this.gen;
    this.lastWriter[k] = -1;
    const rs = this.readersSince[k];
    if (rs) rs.length = 0;
    else this.readersSince[k] = [];
  }
  writer(k: number): number {
    return this.stamp[k] === this.gen ? this.lastWriter[k]! : -1;
  }
  setWriter(k: number, i: number): void {
    this.fresh(k);
    this.lastWriter[k] = i;
  }
  readers(k: number): number[] {
    this.fresh(k);
    return this.readersSince[k]!;
  }
  readersIfAny(k: number): number[] | undefined {
    return this.stamp[k] === this.gen ? this.readersSince[k] : undefined;
  }
}
const regTable = new RegTable();

/** Longest latency path from each node to the end of the region (critical-path priority). */
export function criticalHeights(dag: SchedDag): Int32Array {
  const n = dag.succs.length;
  const h = new Int32Array(n);
  for (let i = n - 1; i >= 0; i--) {
    let best = 0;
    const ss = dag.succs[i]!, sl = dag.succLat[i]!;
    for (let k = 0; k < ss.length; k++) best = Math.max(best, sl[k]! + h[ss[k]!]!);
    h[i] = best;
  }
  return h;
}

/** Issue cycles of an order under a single-issue in-order model (for statistics and comparisons). */
export function orderCycles(dag: SchedDag, order: readonly number[]): number {
  const issue = new Float64Array(dag.preds.length);
  let cycle = 0;
  for (const i of order) {
    let t = cycle;
    const ps = dag.preds[i]!, pl = dag.predLat[i]!;
    for (let k = 0; k < ps.length; k++) t = Math.max(t, issue[ps[k]!]! + pl[k]!);
    issue[i] = t;
    cycle = t + 1;
  }
  // the region ends when its last result is ready
  let end = cycle;
  for (const i of order) {
    const ss = dag.succs[i]!;
    if (!ss.length) end = Math.max(end, issue[i]! + 1);
  }
  return end;
}

/** A chooser's view of a candidate. */
export interface Candidate {
  readonly node: number;
  /** cycle at which its operands are ready */
  readonly ready: number;
  readonly height: number;
}

/**
 * Cycle-driven top-down list scheduling: repeatedly issue the best candidate among the ready nodes (all
 * predecessors issued). `better(a, b, cycle)` orders candidates; the scan looks at the `window` ready nodes
 * earliest in the original order (bounded work per pick: near-linear on huge blocks). `onIssue` lets the
 * caller update its state (register pressure).
 */
export function listSchedule(
  dag: SchedDag, heights: Int32Array, better: (a: Candidate, b: Candidate, cycle: number) => boolean,
  onIssue: (node: number) => void, window = 32,
): number[] {
  const n = dag.preds.length;
  const remaining = new Int32Array(n);
  const readyAt = new Float64Array(n);
  for (let i = 0; i < n; i++) remaining[i] = dag.preds[i]!.length;
  // The ready nodes: the `window` earliest in `win` (ascending), the rest in a min-heap whose every element is
  // above every element of `win`. A pick scans `win` in order; no heap traffic for candidates not picked.
  const heap = new IndexHeap();
  const win: number[] = [];
  const ready = (x: number): void => {
    if (win.length < window) {
      insertSorted(win, x);
      return;
    }
    if (x < win[win.length - 1]!) {
      insertSorted(win, x);
      heap.push(win.pop()!);
    } else heap.push(x);
  };
  for (let i = 0; i < n; i++) if (!remaining[i]) ready(i);
  const order: number[] = [];
  let cycle = 0;
  while (win.length) {
    let bestAt = -1;
    let bestC: Candidate | undefined;
    for (let w = 0; w < win.length; w++) {
      const c = win[w]!;
      const cand: Candidate = { node: c, ready: readyAt[c]!, height: heights[c]! };
      if (!bestC || better(cand, bestC, cycle)) {
        bestAt = w;
        bestC = cand;
      }
    }
    const best = win[bestAt]!;
    win.splice(bestAt, 1);
    if (heap.size) win.push(heap.pop());
    order.push(best);
    onIssue(best);
    const t = Math.max(cycle, readyAt[best]!);
    cycle = t + 1;
    const ss = dag.succs[best]!, sl = dag.succLat[best]!;
    for (let k = 0; k < ss.length; k++) {
      const s = ss[k]!;
      readyAt[s] = Math.max(readyAt[s]!, t + sl[k]!);
      if (--remaining[s]! === 0) ready(s);
    }
  }
  if (order.length !== n) throw new RegallocError('SCHED_BAD_INPUT', `dependence cycle: scheduled ${order.length} of ${n} instructions`);
  return order;
}

/** Inserts `x` into the ascending array `a` (short: at most the chooser's window). */
function insertSorted(a: number[], x: number): void {
  let i = a.length;
  a.push(x);
  while (i > 0 && a[i - 1]! > x) {
    a[i] = a[i - 1]!;
    i--;
  }
  a[i] = x;
}

/** Min-heap of node indices (original order). */
class IndexHeap {
  private a: number[] = [];
  get size(): number {
    return this.a.length;
  }
  push(x: number): void {
    const a = this.a;
    let i = a.length;
    a.push(x);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (a[p]! <= x) break;
      a[i] = a[p]!;
      i = p;
    }
    a[i] = x;
  }
  pop(): number {
    const a = this.a;
    const top = a[0]!;
    const last = a.pop()!;
    if (a.length) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1, r = l + 1;
        let m = l;
        if (l >= a.length) break;
        if (r < a.length && a[r]! < a[l]!) m = r;
        if (a[m]! >= last) break;
        a[i] = a[m]!;
        i = m;
      }
      a[i] = last;
    }
    return top;
  }
}
