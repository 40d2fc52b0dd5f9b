import { definePlugin, DominatorAnalysis, LoopAnalysis, type PhaseContext, type PhaseImpl } from '@ptxforge/kernel';
import { strengthReduce } from './strength-reduce.js';
import { PACKAGE } from './package-meta.js';

export * from './strength-reduce.js';

/** 21 OriStrengthReduce. */
export class StrengthReducePhase implements PhaseImpl {
  readonly preserves = 'cfg' as const;
  execute(ctx: PhaseContext): void {
    for (const fn of ctx.module.functions) {
      if (!fn.blocks.length) continue;
      strengthReduce(fn, ctx.analysis(fn, LoopAnalysis), ctx.analysis(fn, DominatorAnalysis));
    }
  }
}

export const strengthReducePlugin = definePlugin(
  { ...PACKAGE, api: '^1.0.0', description: 'induction-variable strength reduction' },
  { phases: { OriStrengthReduce: () => new StrengthReducePhase() } },
);
export default strengthReducePlugin;
