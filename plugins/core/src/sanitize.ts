import { RpoAnalysis, type Block, type PhaseContext, type PhaseImpl } from '@ptxforge/kernel';

/**
 * Phase 12 OriSanitize: remove blocks that cannot be reached from the entry, so that every later analysis
 * sees one connected CFG. A block still named by a BSSY (a reconvergence point) is kept. Knob
 * OriSanitizeRemoveUnreachable (default true) turns it off.
 */
export class OriSanitize implements PhaseImpl {
  readonly preserves = 'none' as const;
  isNoOp(ctx: PhaseContext): boolean {
    if (!ctx.knob<boolean>('OriSanitizeRemoveUnreachable')) return true;
    return !ctx.module.functions.some((fn) => ctx.analysis(fn, RpoAnalysis).unreachable.length > 0);
  }
  execute(ctx: PhaseContext): void {
    for (const fn of ctx.module.functions) {
      const { unreachable } = ctx.analysis(fn, RpoAnalysis);
      if (!unreachable.length) continue;
      const bssyTargets = new Set<Block>();
      for (const i of fn.instructions()) if (i.opcode === 'BSSY') for (const t of i.labelTargets()) bssyTargets.add(t);
      const doomed = unreachable.filter((b) => !bssyTargets.has(b));
      // Empty them first so edges among the dead blocks disappear, then remove them.
      for (const b of doomed) b.removeWhere(() => true, { unreachable: true });
      for (const b of doomed) {
        if (b.preds.length === 0) fn.removeBlock(b);
      }
      ctx.info(`OriSanitize: removed ${doomed.length} unreachable block(s) from ${fn.name}`);
    }
  }
}
