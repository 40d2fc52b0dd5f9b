import { definePlugin, DominatorAnalysis, type PhaseContext, type PhaseImpl } from '@ptxforge/kernel';
import { gvnCse } from './gvn-cse.js';
import { PACKAGE } from './package-meta.js';

export * from './gvn-cse.js';

/** 49 GvnCse. */
export class GvnCsePhase implements PhaseImpl {
  readonly preserves = 'cfg' as const;
  execute(ctx: PhaseContext): void {
    for (const fn of ctx.module.functions) gvnCse(fn, ctx.analysis(fn, DominatorAnalysis));
  }
}

export const gvnCsePlugin = definePlugin(
  { ...PACKAGE, api: '^1.0.0', description: 'global value numbering and common subexpression elimination' },
  { phases: { GvnCse: () => new GvnCsePhase() } },
);
export default gvnCsePlugin;
