/**
 * Sparse liveness over an abstract function: per-variable backward propagation from the blocks where a vreg
 * is upward-exposed to its defining blocks (the "path exploration" formulation). Work is proportional to the
 * sum of the live-in/live-out set sizes, never vregs × blocks, so huge functions with mostly short live
 * ranges stay cheap. Sets come out sorted by vreg id (deterministic).
 */

export interface LivenessInput {
  readonly numVregs: number;
  readonly blocks: readonly {
    readonly succs: readonly number[];
    readonly instrs: readonly { readonly defs: readonly number[]; readonly uses: readonly number[]; readonly partialDefs?: readonly number[] }[];
  }[];
}

export interface BlockLiveness {
  readonly liveIn: readonly Int32Array[];
  readonly liveOut: readonly Int32Array[];
  readonly preds: readonly (readonly number[])[];
}

export function predecessors(blocks: LivenessInput['blocks']): number[][] {
  const preds: number[][] = blocks.map(() => []);
  for (let b = 0; b < blocks.length; b++) for (const s of blocks[b]!.succs) preds[s]!.push(b);
  return preds;
}

export function computeBlockLiveness(fn: LivenessInput): BlockLiveness {
  const nB = fn.blocks.length;
  const nV = fn.numVregs;
  const preds = predecessors(fn.blocks);
  // Upward-exposed uses (gen) and defining blocks (kill), bucketed by vreg.
  const genBlocks: number[][] = [];
  const killBlocks: number[][] = [];
  const defStamp = new Int32Array(nV).fill(-1);
  const genStamp = new Int32Array(nV).fill(-1);
  const killStamp = new Int32Array(nV).fill(-1);
  const push = (lists: number[][], v: number, b: number): void => {
    let l = lists[v];
    if (!l) lists[v] = l = [];
    l.push(b);
  };
  for (let b = 0; b < nB; b++) {
    for (const ins of fn.blocks[b]!.instrs) {
      const use = (v: number): void => {
        if (defStamp[v] !== b && genStamp[v] !== b) {
          genStamp[v] = b;
          push(genBlocks, v, b);
        }
      };
      for (const v of ins.uses) use(v);
      if (ins.partialDefs) for (const v of ins.partialDefs) use(v);
      const def = (v: number): void => {
        defStamp[v] = b;
        if (killStamp[v] !== b) {
          killStamp[v] = b;
          push(killBlocks, v, b);
        }
      };
      for (const v of ins.defs) def(v);
      if (ins.partialDefs) for (const v of ins.partialDefs) def(v);
    }
  }
  const liveIn: number[][] = Array.from({ length: nB }, () => []);
  const liveOut: number[][] = Array.from({ length: nB }, () => []);
  const inMark = new Int32Array(nB).fill(-1);
  const outMark = new Int32Array(nB).fill(-1);
  const killMark = new Int32Array(nB).fill(-1);
  const stack: number[] = [];
  for (let v = 0; v < nV; v++) {
    const gens = genBlocks[v];
    if (!gens) continue;
    const kills = killBlocks[v];
    if (kills) for (const b of kills) killMark[b] = v;
    for (const b of gens) {
      inMark[b] = v;
      liveIn[b]!.push(v);
      stack.push(b);
    }
    while (stack.length) {
      const b = stack.pop()!;
      for (const p of preds[b]!) {
        if (outMark[p] === v) continue;
        outMark[p] = v;
        liveOut[p]!.push(v);
        if (killMark[p] !== v && inMark[p] !== v) {
          inMark[p] = v;
          liveIn[p]!.push(v);
          stack.push(p);
        }
      }
    }
  }
  return { liveIn: liveIn.map((l) => Int32Array.from(l)), liveOut: liveOut.map((l) => Int32Array.from(l)), preds };
}

/** A set of small integers with O(1) add/delete/has and iteration over members (Briggs & Torczon). */
export class SparseSet {
  readonly dense: Int32Array;
  private readonly sparse: Int32Array;
  size = 0;
  constructor(capacity: number) {
    this.dense = new Int32Array(capacity);
    this.sparse = new Int32Array(capacity);
  }
  has(v: number): boolean {
    const i = this.sparse[v]!;
    return i < this.size && this.dense[i] === v;
  }
  add(v: number): void {
    if (this.has(v)) return;
    this.sparse[v] = this.size;
    this.dense[this.size++] = v;
  }
  delete(v: number): void {
    if (!this.has(v)) return;
    const i = this.sparse[v]!;
    const last = this.dense[--this.size]!;
    this.dense[i] = last;
    this.sparse[last] = i;
  }
  clear(): void {
    this.size = 0;
  }
}

/**
 * Strict liveness: drop a vreg from the live sets of the blocks no definition of it reaches (values read on
 * some path before any write, e.g. defined in a loop that may be skipped and read only when it ran). Such a
 * value holds nothing meaningful there, so it needs no register there; without this, one such read makes the
 * value live from the function entry on and inflates the pressure of the whole function. `entryDefs` are
 * defined on entry (function parameters). Work ∝ the live sets' sizes.
 */
export function restrictToDefined(fn: LivenessInput, lv: BlockLiveness, entryDefs: readonly number[] = []): BlockLiveness {
  const nB = fn.blocks.length;
  const nV = fn.numVregs;
  const inBlocks: number[][] = [];
  for (let b = 0; b < nB; b++) for (const v of lv.liveIn[b]!) (inBlocks[v] ??= []).push(b);
  const defBlocks: number[][] = [];
  const defStamp = new Int32Array(nV).fill(-1);
  for (let b = 0; b < nB; b++) {
    for (const ins of fn.blocks[b]!.instrs) {
      for (const v of ins.defs) if (defStamp[v] !== b) { defStamp[v] = b; (defBlocks[v] ??= []).push(b); }
      for (const v of ins.partialDefs ?? []) if (defStamp[v] !== b) { defStamp[v] = b; (defBlocks[v] ??= []).push(b); }
    }
  }
  const isEntryDef = new Uint8Array(nV);
  for (const v of entryDefs) isEntryDef[v] = 1;
  const inMark = new Int32Array(nB).fill(-1);
  const definedIn = new Int32Array(nB).fill(-1);
  const defMark = new Int32Array(nB).fill(-1);
  const liveIn: number[][] = Array.from({ length: nB }, () => []);
  const liveOut: number[][] = Array.from({ length: nB }, () => []);
  const outMark = new Int32Array(nB).fill(-1);
  const stack: number[] = [];
  for (let v = 0; v < nV; v++) {
    const ins = inBlocks[v];
    if (!ins) continue;
    for (const b of ins) inMark[b] = v;
    for (const b of defBlocks[v] ?? []) { defMark[b] = v; stack.push(b); }
    if (isEntryDef[v] && nB > 0 && inMark[0] === v) { definedIn[0] = v; stack.push(0); }
    while (stack.length) {
      const x = stack.pop()!;
      for (const s of fn.blocks[x]!.succs) {
        if (inMark[s] !== v || definedIn[s] === v) continue;
        definedIn[s] = v;
        if (defMark[s] !== v) stack.push(s);
      }
    }
    for (const b of ins) {
      if (definedIn[b] !== v) continue;
      liveIn[b]!.push(v);
      // live out of the predecessors at whose end it is defined
      for (const p of lv.preds[b]!) {
        if (outMark[p] === v || (definedIn[p] !== v && defMark[p] !== v)) continue;
        outMark[p] = v;
        liveOut[p]!.push(v);
      }
    }
  }
  return { liveIn: liveIn.map((l) => Int32Array.from(l)), liveOut: liveOut.map((l) => Int32Array.from(l)), preds: lv.preds };
}
