import { defineAnalysis, type Block, type Instr, type OriFunction, type Register } from '@ptxforge/kernel';
import { BitSet } from './bitset.js';

/**
 * A read-only set of register ids, sorted ascending (the live-in or live-out registers of one block).
 * Sparse: its size is the number of live registers, not the number of registers of the function.
 */
export class RegIdSet implements Iterable<number> {
  constructor(private readonly ids: readonly number[]) {}
  /** Number of registers in the set. */
  get count(): number {
    return this.ids.length;
  }
  has(id: number): boolean {
    const a = this.ids;
    let lo = 0;
    let hi = a.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = a[mid]!;
      if (v === id) return true;
      if (v < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }
  [Symbol.iterator](): Iterator<number> {
    return this.ids[Symbol.iterator]();
  }
  /** A dense copy (for callers that want to mutate it while walking a block). */
  toBitSet(size: number): BitSet {
    const b = new BitSet(size);
    for (const id of this.ids) if (id < size) b.add(id);
    return b;
  }
}

/**
 * Per-block register liveness over the function's register table (ids = Register.id).
 * Ori is not strict SSA: a guarded def keeps the old value when its guard is false, so it is NOT a kill;
 * only unguarded defs kill. Registers read are every operand, address base, c-bank index and the guard.
 */
export interface Liveness {
  readonly liveIn: ReadonlyMap<Block, RegIdSet>;
  readonly liveOut: ReadonlyMap<Block, RegIdSet>;
  /** Number of registers (the register table's size) when computed. */
  readonly size: number;
  isLiveOut(b: Block, r: Register): boolean;
  isLiveIn(b: Block, r: Register): boolean;
}

/** Registers an instruction kills (unguarded register defs). */
export function killedRegs(i: Instr): Register[] {
  return i.guard ? [] : i.defRegs();
}

/**
 * Sparse liveness, one register at a time (the path-exploration formulation of SSA-era liveness): the
 * blocks where a register is upward-exposed (read before any unguarded def in the block) are live-in; from
 * each, walk predecessors backwards, marking the register live-out of every predecessor and live-in of those
 * that do not kill it, stopping at blocks already marked. Each (register, block) pair of the result is
 * visited a constant number of times, so the cost is linear in the size of the answer plus the function
 * (dense per-block bitsets cost blocks x registers, which grew 3.65x per doubling on the kernel-scaling
 * bench). Registers are processed in id order, so every block's lists come out sorted; the per-register
 * marks are stamps in two arrays over blocks, allocated once.
 */
export function computeLiveness(fn: OriFunction, only?: Uint8Array): Liveness {
  const regs = fn.registers;
  const size = regs.length;
  const blocks = fn.blocks;
  const nb = blocks.length;
  const index = new Map<Block, number>();
  for (let k = 0; k < nb; k++) index.set(blocks[k]!, k);
  // `only` (by register id): the liveness of just those registers (each register's liveness is independent
  // of the others'); the sets then hold no other register.
  const own = only ? (r: Register): boolean => r.id < size && regs[r.id] === r && only[r.id] === 1 : (r: Register): boolean => r.id < size && regs[r.id] === r;

  // Upward-exposed uses: for each register, the blocks where it is read before an unguarded def.
  const upBlocks: Array<number[] | undefined> = new Array(size);
  const killStamp = new Int32Array(size).fill(-1); // block index that killed the register so far
  const upStamp = new Int32Array(size).fill(-1);
  for (let k = 0; k < nb; k++) {
    for (const i of blocks[k]!.instrs) {
      const uses = i.useRegs();
      for (let u = 0; u < uses.length; u++) {
        const r = uses[u]!;
        if (!own(r) || killStamp[r.id] === k || upStamp[r.id] === k) continue;
        upStamp[r.id] = k;
        (upBlocks[r.id] ??= []).push(k);
      }
      if (!i.guard) {
        const defs = i.defs;
        for (let d = 0; d < defs.length; d++) {
          const o = defs[d]!;
          if (o.kind === 'reg' && own(o.reg)) killStamp[o.reg.id] = k;
        }
      }
    }
  }

  const preds: number[][] = blocks.map((b) => b.preds.map((p) => index.get(p)).filter((x): x is number => x !== undefined));
  const inLists: number[][] = Array.from({ length: nb }, () => []);
  const outLists: number[][] = Array.from({ length: nb }, () => []);
  const kills = new Int32Array(nb).fill(-1);
  const inMark = new Int32Array(nb).fill(-1);
  const outMark = new Int32Array(nb).fill(-1);
  const work: number[] = [];
  for (let id = 0; id < size; id++) {
    const ups = upBlocks[id];
    if (!ups) continue;
    for (const d of regs[id]!.defs) {
      if (d.guard || !d.block) continue;
      const k = index.get(d.block);
      if (k !== undefined) kills[k] = id;
    }
    for (const k of ups) {
      inMark[k] = id;
      inLists[k]!.push(id);
      work.push(k);
    }
    while (work.length) {
      const b = work.pop()!;
      const ps = preds[b]!;
      for (let j = 0; j < ps.length; j++) {
        const p = ps[j]!;
        if (outMark[p] === id) continue;
        outMark[p] = id;
        outLists[p]!.push(id);
        if (kills[p] !== id && inMark[p] !== id) {
          inMark[p] = id;
          inLists[p]!.push(id);
          work.push(p);
        }
      }
    }
  }
  const liveIn = new Map<Block, RegIdSet>();
  const liveOut = new Map<Block, RegIdSet>();
  for (let k = 0; k < nb; k++) {
    liveIn.set(blocks[k]!, new RegIdSet(inLists[k]!));
    liveOut.set(blocks[k]!, new RegIdSet(outLists[k]!));
  }
  return {
    liveIn,
    liveOut,
    size,
    isLiveOut: (b, r) => r.id < size && !!liveOut.get(b)?.has(r.id),
    isLiveIn: (b, r) => r.id < size && !!liveIn.get(b)?.has(r.id),
  };
}

/** Liveness as a cached analysis (recomputed after any IR change). */
export const LivenessAnalysis = defineAnalysis({ name: 'liveness', dependsOn: 'ir', compute: (fn) => computeLiveness(fn) });

/**
 * Registers live just after each instruction of `b`, walking backwards from live-out.
 * Returns a function giving the live set after instruction index k (computed once, O(n) sets).
 */
export function liveAfterEach(b: Block, lv: Liveness): BitSet[] {
  const cur = lv.liveOut.get(b)!.toBitSet(lv.size);
  const out: BitSet[] = new Array(b.instrs.length);
  for (let k = b.instrs.length - 1; k >= 0; k--) {
    out[k] = cur.clone();
    const i = b.instrs[k]!;
    for (const r of killedRegs(i)) cur.delete(r.id);
    for (const r of i.useRegs()) if (r.id < cur.size) cur.add(r.id);
  }
  return out;
}

/**
 * Backward dead-code sweep driven by liveness: each block is walked from its live-out set to its start, and
 * an instruction for which `isDead(i, liveAfter)` holds is removed (its uses then do not become live).
 * Repeats with fresh liveness while a sweep removes something that can change the liveness (a read of a
 * register live into its block). Guarded defs do not kill (see killedRegs).
 * Shared by the liveness DCE (OriPerformLiveDead*) and the dead-move removal (OriRemoveRedundantMultiDefMov),
 * which differ only in `isDead`. Returns the number of instructions removed.
 */
export function sweepDeadBackward(
  fn: OriFunction,
  isDead: (i: Instr, liveAfter: BitSet) => boolean,
  deciding?: (i: Instr) => Register | undefined,
): number {
  let total = 0;
  for (;;) {
    // With `deciding` (the one register whose liveness after `i` decides whether `i` is dead, or undefined when
    // `i` cannot be dead), only those registers' liveness is computed and only blocks holding such an
    // instruction are walked: a sweep for a few candidates (dead moves) costs no longer the whole function's
    // liveness. isDead must then read nothing but that register in liveAfter.
    let only: Uint8Array | undefined;
    let walk: Set<Block> | undefined;
    if (deciding) {
      only = new Uint8Array(fn.registers.length);
      walk = new Set();
      for (const b of fn.blocks) {
        for (const i of b.instrs) {
          const r = deciding(i);
          if (!r) continue;
          if (r.id < only.length) only[r.id] = 1;
          walk.add(b);
        }
      }
      if (!walk.size) return total;
    }
    const lv = computeLiveness(fn, only);
    // One dense set for the whole sweep: filled from a block's (sparse) live-out, walked, then cleared by
    // the ids it was given, so the cost per block is its live-out plus its instructions, not the register count.
    const cur = new BitSet(lv.size);
    const touched: number[] = [];
    const add = (id: number): void => {
      if (id >= lv.size || cur.has(id)) return;
      cur.add(id);
      touched.push(id);
    };
    let n = 0;
    // Whether the removals can change the liveness this sweep used: only a removed read of a register live
    // into its block can (a read after a def in the block is not upward-exposed, and removing a dead def never
    // makes anything live). Otherwise every block's live-out stays the same, so does what the next sweep would
    // find dead -- nothing -- and that sweep (a liveness computation and a walk) is skipped.
    let changesLiveness = false;
    const dead = new Set<Instr>();
    for (const b of fn.blocks) {
      if (walk && !walk.has(b)) continue;
      for (const id of lv.liveOut.get(b)!) add(id);
      const liveIn = lv.liveIn.get(b)!;
      for (let k = b.instrs.length - 1; k >= 0; k--) {
        const i = b.instrs[k]!;
        if (isDead(i, cur)) {
          // Removed after the walk, all at once: one removal at a time costs the block's length each
          // (issue #16 row 4: 20k dead definitions in one block).
          dead.add(i);
          if (!changesLiveness) for (const r of i.useRegs()) if (liveIn.has(r.id)) changesLiveness = true;
          continue;
        }
        for (const r of killedRegs(i)) if (r.id < lv.size) cur.delete(r.id);
        for (const r of i.useRegs()) add(r.id);
      }
      if (dead.size) {
        n += b.removeWhere((i) => dead.has(i));
        dead.clear();
      }
      for (const id of touched) cur.delete(id);
      touched.length = 0;
    }
    total += n;
    if (!n || !changesLiveness) return total;
  }
}
