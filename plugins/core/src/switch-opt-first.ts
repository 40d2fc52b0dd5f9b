import { Slot17Handler, type PhaseContext, type PhaseImpl, type ServiceEnv } from '@ptxforge/kernel';

/**
 * Phase 14 DoSwitchOptFirst (spec: branch/switch, "Phase 14 -- sub_C5F720"): after the opt-level gate
 * (the pipeline table gates it to -O2 and above), dispatch through the target's vtable slot 17, the
 * `Slot17Handler` service the target package provides for the selected arch, once per function. SM30 and
 * SM50 provide a genuine no-op; the other handlers are placeholders until the branch/switch issue lands,
 * so the phase is a no-op unless the arch's handler is implemented.
 */
export class DoSwitchOptFirst implements PhaseImpl {
  readonly preserves = 'none' as const;
  isNoOp(ctx: PhaseContext): boolean {
    return ctx.tryService(Slot17Handler)?.status !== 'implemented';
  }
  execute(ctx: PhaseContext): void {
    const handler = ctx.service(Slot17Handler);
    for (const fn of ctx.module.functions) handler.run(fn, ctx);
  }
}

/** The --list-phases note for phase 14: which slot-17 handler the selected arch has. */
export function describeSlot17(env: ServiceEnv): string {
  const h = env.tryService(Slot17Handler);
  return h ? `slot 17 of ${env.target.id}: ${h.name} (${h.status})` : `slot 17 of ${env.target.id}: no Slot17Handler installed`;
}
