import { Instr, type Block, type OriFunction, type Register } from '@ptxforge/kernel';
import { computeRpo, isRemovableWhenDead, sweepDeadBackward } from './deps.js';

/**
 * Remove blocks not reachable from the entry (after branch folding). Blocks named by a label operand of a
 * reachable instruction (a BSSY reconvergence point) are kept. Returns the number of blocks removed.
 */
export function removeUnreachableBlocks(fn: OriFunction): number {
  const { unreachable } = computeRpo(fn);
  if (!unreachable.length) return 0;
  const dead = new Set(unreachable);
  const named = new Set<Block>();
  for (const b of fn.blocks) {
    if (dead.has(b)) continue;
    for (const i of b.instrs) for (const t of i.labelTargets()) named.add(t);
  }
  const doomed = fn.blocks.filter((b) => dead.has(b) && !named.has(b));
  // One batch per block: removing one instruction at a time costs the block's length each.
  for (const b of doomed) b.removeWhere(() => true, { unreachable: true });
  // Forward layout order: an emptied block only falls through into the next one, removed after it.
  let n = 0;
  for (const b of doomed) {
    if (b.preds.length) {
      // Still entered from an unreachable block that must stay (a BSSY target): keep it well formed.
      b.append(new Instr('EXIT'));
      continue;
    }
    fn.removeBlock(b);
    n++;
  }
  return n;
}

/**
 * Mark-and-sweep dead code elimination over def-use chains: instructions with an observable effect are roots;
 * every def of a register read by a live instruction is live. Removes dead cycles (an induction variable
 * feeding only itself) that plain liveness keeps. Returns the number of instructions removed.
 */
export function sweepDeadInstructions(fn: OriFunction): number {
  const live = new Set<Instr>();
  const work: Instr[] = [];
  for (const i of fn.instructions()) {
    if (!isRemovableWhenDead(i)) {
      live.add(i);
      work.push(i);
    }
  }
  // A register read by a live instruction makes all its defs live at once: marking registers (not
  // instruction-register pairs) keeps this linear when one register has thousands of defs and readers.
  const liveRegs = new Set<Register>();
  // Results of a `.func` are read by its RETs (they are RET operands), so nothing extra is needed here.
  while (work.length) {
    const i = work.pop()!;
    for (const r of i.useRegs()) {
      if (liveRegs.has(r)) continue;
      liveRegs.add(r);
      for (const d of r.defs) {
        if (!live.has(d)) {
          live.add(d);
          work.push(d);
        }
      }
    }
  }
  // One batch per block: removing one instruction at a time costs the block's length each (quadratic on one
  // big block of dead code).
  let n = 0;
  for (const b of fn.blocks) n += b.removeWhere((i) => !live.has(i));
  return n;
}

/**
 * Liveness-driven elimination: walking each block backwards from its live-out set, an instruction none of
 * whose register defs is live afterwards (and that has no other effect) is removed. This catches defs that
 * are overwritten before any read, which def-use marking keeps. Guarded defs do not kill (Ori keeps the old
 * value when the guard is false). Iterates until nothing changes. Returns the number removed.
 */
export function removeDeadByLiveness(fn: OriFunction): number {
  return sweepDeadBackward(fn, (i, liveAfter) => isRemovableWhenDead(i) && i.defRegs().every((r) => !liveAfter.has(r.id)));
}
