import type { PhaseContext, PhaseImpl } from '@ptxforge/kernel';
import { runUnlessFixpoint } from '@ptxforge/opt-utils';
import { backPropagateCopies, removeDeadMoves, removeEquivalentMoves } from './copies.js';

// Phase 62 repeats phase 52's pass: on a function that has not changed since 52 found nothing, it is skipped
// (runUnlessFixpoint); so is either pass on a function it already left unchanged.
const EQUIVALENT_MOVES = 'copy-prop/equivalent-moves';
const DEAD_MOVES = 'copy-prop/dead-moves';

/** 52 OriReplaceEquivMultiDefMov. */
export class ReplaceEquivMultiDefMovPhase implements PhaseImpl {
  readonly preserves = 'cfg' as const;
  execute(ctx: PhaseContext): void {
    for (const fn of ctx.module.functions) runUnlessFixpoint(fn, EQUIVALENT_MOVES, () => removeEquivalentMoves(fn));
  }
}
/** 62 OriRemoveRedundantMultiDefMov. */
export class RemoveRedundantMultiDefMovPhase implements PhaseImpl {
  readonly preserves = 'cfg' as const;
  execute(ctx: PhaseContext): void {
    for (const fn of ctx.module.functions) {
      runUnlessFixpoint(fn, EQUIVALENT_MOVES, () => removeEquivalentMoves(fn));
      runUnlessFixpoint(fn, DEAD_MOVES, () => removeDeadMoves(fn));
    }
  }
}
/** 83 OriBackCopyPropagate. */
export class BackCopyPropagatePhase implements PhaseImpl {
  readonly preserves = 'cfg' as const;
  execute(ctx: PhaseContext): void {
    for (const fn of ctx.module.functions) backPropagateCopies(fn);
  }
}
