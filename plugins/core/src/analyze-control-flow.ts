import { LoopAnalysis, RpoAnalysis, DominatorAnalysis, type PhaseContext, type PhaseImpl } from '@ptxforge/kernel';

/**
 * Phase 3 AnalyzeControlFlow: compute RPO, dominators and loops for every function so later phases find
 * them cached, and report what later passes must know: unreachable blocks and irreducible control flow
 * (the loop passes only handle natural loops).
 */
export class AnalyzeControlFlow implements PhaseImpl {
  readonly preserves = 'all' as const;
  execute(ctx: PhaseContext): void {
    for (const fn of ctx.module.functions) {
      const rpo = ctx.analysis(fn, RpoAnalysis);
      ctx.analysis(fn, DominatorAnalysis);
      const loops = ctx.analysis(fn, LoopAnalysis);
      if (rpo.unreachable.length) {
        ctx.diagnostics.report({
          severity: 'remark',
          code: 'CFG_UNREACHABLE',
          phase: ctx.phase.name,
          fn: fn.name,
          message: `unreachable blocks: ${rpo.unreachable.map((b) => b.label).join(', ')}`,
        });
      }
      for (const e of loops.irreducibleEdges) {
        ctx.diagnostics.report({
          severity: 'warning',
          code: 'CFG_IRREDUCIBLE',
          phase: ctx.phase.name,
          fn: fn.name,
          message: `irreducible control flow: edge ${e.from.label} -> ${e.to.label} enters a cycle that ${e.to.label} does not dominate`,
        });
      }
    }
  }
}
