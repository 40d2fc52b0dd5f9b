import type { PhaseContext, PhaseImpl } from '@ptxforge/kernel';
import { convertMovPhisToMovs, generateMovPhis } from './movphi.js';

const hasOpcode = (ctx: PhaseContext, op: string): boolean =>
  ctx.module.functions.some((f) => f.blocks.some((b) => b.instrs.some((i) => i.opcode === op)));

/** 23 GenerateMovPhi (no-op when no PHI exists). */
export class GenerateMovPhiPhase implements PhaseImpl {
  readonly preserves = 'none' as const;
  isNoOp(ctx: PhaseContext): boolean {
    return !hasOpcode(ctx, 'PHI');
  }
  execute(ctx: PhaseContext): void {
    for (const fn of ctx.module.functions) generateMovPhis(fn);
  }
}

/** 73 ConvertAllMovPhiToMov (no-op when neither PHI nor MOVPHI exists). */
export class ConvertAllMovPhiToMovPhase implements PhaseImpl {
  readonly preserves = 'none' as const;
  isNoOp(ctx: PhaseContext): boolean {
    return !hasOpcode(ctx, 'PHI') && !hasOpcode(ctx, 'MOVPHI');
  }
  execute(ctx: PhaseContext): void {
    for (const fn of ctx.module.functions) convertMovPhisToMovs(fn);
  }
}
