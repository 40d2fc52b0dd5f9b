import type { PhaseContext, PhaseImpl } from '@ptxforge/kernel';
import { removeDeadByLiveness, removeUnreachableBlocks, sweepDeadInstructions } from './dead-code.js';
import { runUnlessFixpoint } from './deps.js';

/** Knob: skip the liveness-driven part and keep only def-use marking (debugging aid). */
export const KNOB_LIVE_DEAD_USE_LIVENESS = 'OriLiveDeadUseLiveness';
/** Knob: remove blocks unreachable from the entry in the OriPerformLiveDead* phases. */
export const KNOB_LIVE_DEAD_REMOVE_UNREACHABLE = 'OriLiveDeadRemoveUnreachableBlocks';

/**
 * Phases 10 EarlyOriSimpleLiveDead ('simple': def-use marking only, cheap, before any CFG work) and
 * 16/33/61/84 OriPerformLiveDead* ('full': unreachable blocks, def-use marking, then bitset liveness), which
 * the spec runs repeatedly "to remove dead code exposed by intervening passes".
 */
export class LiveDeadPhase implements PhaseImpl {
  constructor(readonly mode: 'simple' | 'full') {}

  get preserves(): 'none' {
    return 'none';
  }

  execute(ctx: PhaseContext): void {
    const unreachable = this.mode === 'full' && ctx.knob<boolean>(KNOB_LIVE_DEAD_REMOVE_UNREACHABLE) && !ctx.isPassDisabled('RemoveUnreachableBlocks');
    const liveness = this.mode === 'full' && ctx.knob<boolean>(KNOB_LIVE_DEAD_USE_LIVENESS);
    // The five slots repeat the same pass: one that found nothing to remove finds nothing again until the
    // function changes (runUnlessFixpoint), which on a big clean function spares the later slots' walks.
    const key = `live-dead:${unreachable ? 'u' : ''}${liveness ? 'l' : ''}`;
    for (const fn of ctx.module.functions) {
      runUnlessFixpoint(fn, key, () => {
        if (unreachable) removeUnreachableBlocks(fn);
        sweepDeadInstructions(fn);
        if (liveness) removeDeadByLiveness(fn);
      });
    }
  }
}
