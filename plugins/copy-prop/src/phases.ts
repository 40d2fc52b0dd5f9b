import type { PhaseContext, PhaseImpl } from '@ptxforge/kernel';
import { backPropagateCopies, removeDeadMoves, removeEquivalentMoves } from './copies.js';

/** 52 OriReplaceEquivMultiDefMov. */
export class ReplaceEquivMultiDefMovPhase implements PhaseImpl {
  readonly preserves = 'cfg' as const;
  execute(ctx: PhaseContext): void {
    for (const fn of ctx.module.functions) removeEquivalentMoves(fn);
  }
}
/** 62 OriRemoveRedundantMultiDefMov. */
export class RemoveRedundantMultiDefMovPhase implements PhaseImpl {
  readonly preserves = 'cfg' as const;
  execute(ctx: PhaseContext): void {
    for (const fn of ctx.module.functions) {
      removeEquivalentMoves(fn);
      removeDeadMoves(fn);
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
