import { defineAnalysis, type Block, type Instr, type OriFunction, type Register } from '@ptxforge/kernel';
import { BitSet } from './bitset.js';

/**
 * Per-block register liveness over the function's register table (bit = Register.id).
 * Ori is not strict SSA: a guarded def keeps the old value when its guard is false, so it is NOT a kill;
 * only unguarded defs kill. Registers read are every operand, address base, c-bank index and the guard.
 */
export interface Liveness {
  readonly liveIn: ReadonlyMap<Block, BitSet>;
  readonly liveOut: ReadonlyMap<Block, BitSet>;
  /** Number of registers (bitset size) when computed. */
  readonly size: number;
  isLiveOut(b: Block, r: Register): boolean;
  isLiveIn(b: Block, r: Register): boolean;
}

/** Registers an instruction kills (unguarded register defs). */
export function killedRegs(i: Instr): Register[] {
  return i.guard ? [] : i.defRegs();
}

/** Backward iterative liveness (worklist in post order) with bitsets. */
export function computeLiveness(fn: OriFunction): Liveness {
  const size = fn.registers.length;
  const use = new Map<Block, BitSet>();
  const kill = new Map<Block, BitSet>();
  for (const b of fn.blocks) {
    const u = new BitSet(size);
    const k = new BitSet(size);
    for (const i of b.instrs) {
      for (const r of i.useRegs()) if (!k.has(r.id)) u.add(r.id);
      for (const r of killedRegs(i)) k.add(r.id);
    }
    use.set(b, u);
    kill.set(b, k);
  }
  const liveIn = new Map<Block, BitSet>();
  const liveOut = new Map<Block, BitSet>();
  for (const b of fn.blocks) {
    liveIn.set(b, new BitSet(size));
    liveOut.set(b, new BitSet(size));
  }
  // Iterate in reverse layout order until stable (layout is close to RPO for front-end output).
  let changed = true;
  while (changed) {
    changed = false;
    for (let k = fn.blocks.length - 1; k >= 0; k--) {
      const b = fn.blocks[k]!;
      const out = liveOut.get(b)!;
      for (const s of b.succs) out.unionWith(liveIn.get(s)!);
      if (liveIn.get(b)!.assignTransfer(use.get(b)!, out, kill.get(b)!)) changed = true;
    }
  }
  return {
    liveIn,
    liveOut,
    size,
    isLiveOut: (b, r) => r.id < size && liveOut.get(b)!.has(r.id),
    isLiveIn: (b, r) => r.id < size && liveIn.get(b)!.has(r.id),
  };
}

/** Liveness as a cached analysis (recomputed after any IR change). */
export const LivenessAnalysis = defineAnalysis({ name: 'liveness', dependsOn: 'ir', compute: (fn) => computeLiveness(fn) });

/**
 * Registers live just after each instruction of `b`, walking backwards from live-out.
 * Returns a function giving the live set after instruction index k (computed once, O(n) sets).
 */
export function liveAfterEach(b: Block, lv: Liveness): BitSet[] {
  const cur = lv.liveOut.get(b)!.clone();
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
 * Repeats with fresh liveness until a sweep removes nothing. Guarded defs do not kill (see killedRegs).
 * Shared by the liveness DCE (OriPerformLiveDead*) and the dead-move removal (OriRemoveRedundantMultiDefMov),
 * which differ only in `isDead`. Returns the number of instructions removed.
 */
export function sweepDeadBackward(fn: OriFunction, isDead: (i: Instr, liveAfter: BitSet) => boolean): number {
  let total = 0;
  for (;;) {
    const lv = computeLiveness(fn);
    let n = 0;
    for (const b of fn.blocks) {
      const cur = lv.liveOut.get(b)!.clone();
      for (let k = b.instrs.length - 1; k >= 0; k--) {
        const i = b.instrs[k]!;
        if (isDead(i, cur)) {
          b.remove(i);
          n++;
          continue;
        }
        for (const r of killedRegs(i)) cur.delete(r.id);
        for (const r of i.useRegs()) cur.add(r.id);
      }
    }
    total += n;
    if (!n) return total;
  }
}
