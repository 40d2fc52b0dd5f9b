import type { PhaseContext, PhaseImpl } from '@ptxforge/kernel';

/**
 * Phase 14 DoSwitchOptFirst (spec: branch/switch, "Phase 14 -- sub_C5F720"): after the opt-level gate
 * (the pipeline table gates it to -O2 and above), dispatch through the target's vtable slot 17. SM30 and
 * SM50 provide a genuine no-op; the other handlers are placeholders until the branch/switch issue lands,
 * so the phase is a no-op unless the selected target's handler is implemented.
 */
export class DoSwitchOptFirst implements PhaseImpl {
  readonly preserves = 'none' as const;
  isNoOp(ctx: PhaseContext): boolean {
    return ctx.target.slot17.status !== 'implemented' || !ctx.target.slot17.run;
  }
  execute(ctx: PhaseContext): void {
    ctx.target.slot17.run!(ctx);
  }
}
