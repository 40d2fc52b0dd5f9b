import { definePlugin, type PhaseContext, type PhaseImpl } from '@ptxforge/kernel';
import { LICM_KNOBS } from './knobs.js';
import { hoistInvariants, LICM_PASS_ID, readLicmKnobs } from './licm.js';
import { PACKAGE } from './package-meta.js';

export * from './knobs.js';
export * from './licm.js';

/**
 * One of the four OriHoistInvariants instances (35 Early, 66 Late, 79 Late2, 88 Late3), pass_id 0..3. The guard
 * (spec: sub_7DDB50) checks the master switch and the per-compilation rate limiter.
 */
export class HoistInvariantsPhase implements PhaseImpl {
  private static runs = new WeakMap<object, number>();
  constructor(readonly passId: 0 | 1 | 2 | 3) {}
  isNoOp(ctx: PhaseContext): boolean {
    return !ctx.knob<boolean>('HoistInvariants');
  }
  execute(ctx: PhaseContext): void {
    const max = ctx.knob<number>('HoistInvariantsMaxInvocations');
    const n = HoistInvariantsPhase.runs.get(ctx.module) ?? 0;
    if (max > 0 && n >= max) return;
    HoistInvariantsPhase.runs.set(ctx.module, n + 1);
    const k = readLicmKnobs(ctx);
    for (const fn of ctx.module.functions) if (fn.blocks.length > 2) hoistInvariants(ctx, fn, this.passId, k);
  }
}

export const licmPlugin = definePlugin(
  { ...PACKAGE, api: '^1.0.0', description: 'loop-invariant code motion (four instances)' },
  {
    knobs: LICM_KNOBS,
    phases: Object.fromEntries(Object.entries(LICM_PASS_ID).map(([name, id]) => [name, () => new HoistInvariantsPhase(id)])),
  },
);
export default licmPlugin;
