import { assertValidModule, verifyModule, PtxforgeError, type PhaseContext, type PhaseImpl } from '@ptxforge/kernel';

/**
 * Phase 0 OriCheckInitialProgram: validate the initial Ori IR for structural correctness (spec, Group 1).
 * A control-flow instruction in the middle of a block is tolerated here because phase 6
 * SetControlFlowOpLastInBB exists to fix exactly that; everything else the verifier checks is an error.
 */
export class OriCheckInitialProgram implements PhaseImpl {
  readonly preserves = 'all' as const;
  execute(ctx: PhaseContext): void {
    const issues = verifyModule(ctx.module).filter((i) => i.code !== 'ORI_VERIFY_TERMINATOR');
    if (issues.length) {
      const lines = issues.map((x) => `  [${x.code}] @${x.fn}${x.block ? ` ${x.block}` : ''}: ${x.message}${x.instr ? `\n      at: ${x.instr}` : ''}`);
      throw new PtxforgeError('ORI_VERIFY', `the initial program is not well formed:\n${lines.join('\n')}`);
    }
  }
}

/** Phase 94 FinalInspectionPass: the validation gate before scheduling and register allocation. */
export class FinalInspectionPass implements PhaseImpl {
  readonly preserves = 'all' as const;
  execute(ctx: PhaseContext): void {
    assertValidModule(ctx.module, 'FinalInspectionPass');
  }
}
