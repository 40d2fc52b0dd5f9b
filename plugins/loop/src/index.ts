import { definePlugin, type PhaseContext, type PhaseImpl } from '@ptxforge/kernel';
import { LOOP_KNOBS } from './knobs.js';
import { simplifyLoops } from './simplify.js';
import { readUnrollKnobs, unrollFunction } from './unroll.js';
import { PACKAGE } from './package-meta.js';
import { pipelineFunction } from './pipelining.js';
import { fuseLoops } from './fusion.js';

export * from './knobs.js';
export * from './iv.js';
export * from './region.js';
export * from './simplify.js';
export * from './unroll.js';
export * from './pipelining.js';
export * from './modulo.js';
export * from './fusion.js';

/** 18 OriLoopSimplification. */
export class LoopSimplificationPhase implements PhaseImpl {
  execute(ctx: PhaseContext): void {
    for (const fn of ctx.module.functions) if (fn.blocks.length) simplifyLoops(ctx, fn);
  }
}

/** 22 OriLoopUnrolling (spec entry guard sub_1392E30: more than two blocks, LoopMakeSingleEntry on). */
export class LoopUnrollingPhase implements PhaseImpl {
  execute(ctx: PhaseContext): void {
    const k = readUnrollKnobs(ctx);
    if (!k.makeSingleEntry) return;
    for (const fn of ctx.module.functions) {
      if (fn.blocks.length < 1) continue;
      const s = unrollFunction(ctx, fn, k);
      if (s.full + s.partial + s.rejected > 0) ctx.info(`# [partially unrolled loops=${s.partial}] [non-unrolled loops=${s.rejected}]`);
    }
  }
}

/** 24 OriPipelining: modulo scheduling of single-block loops (prologue, kernel with MVE, drains), with remarks. */
export class PipeliningPhase implements PhaseImpl {
  execute(ctx: PhaseContext): void {
    for (const fn of ctx.module.functions) if (fn.blocks.length) pipelineFunction(ctx, fn);
  }
}

/** 59 OriLoopFusion (spec entry gate sub_1397CB0: PerformLoopFusion nonzero, then knob 487 LoopMakeSingleEntry). */
export class LoopFusionPhase implements PhaseImpl {
  execute(ctx: PhaseContext): void {
    if (ctx.knob<number>('PerformLoopFusion') === 0 || !ctx.knob<boolean>('LoopMakeSingleEntry')) return;
    for (const fn of ctx.module.functions) {
      if (!fn.blocks.length) continue;
      const s = fuseLoops(ctx, fn);
      if (s.fused + s.rejected > 0) ctx.info(`# [fused loops=${s.fused}] [non-fused adjacent loops=${s.rejected}]`);
    }
  }
}

export const loopPlugin = definePlugin(
  { ...PACKAGE, api: '^1.0.0', description: 'loop simplification, unrolling, pipelining and fusion' },
  {
    knobs: LOOP_KNOBS,
    phases: {
      OriLoopSimplification: () => new LoopSimplificationPhase(),
      OriLoopUnrolling: () => new LoopUnrollingPhase(),
      OriPipelining: () => new PipeliningPhase(),
      OriLoopFusion: () => new LoopFusionPhase(),
    },
  },
);
export default loopPlugin;
