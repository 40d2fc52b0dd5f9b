import { defineKnob, type KnobDef } from '@ptxforge/kernel';

/**
 * Knobs of the loop family (spec: ptxas-loop-passes.txt, the knob tables of phases 18, 22, 24 and 59), with
 * the spec's names and defaults. Where the spec says "unset" the knob is registered with 0 (int/double) or
 * false (bool) and that value means "no limit / not requested"; "enabled" is true and "disabled" false.
 */

// ---- phase 18 OriLoopSimplification -----------------------------------------------------------------
export const LOOP_SIMPLIFICATION_KNOBS: readonly KnobDef[] = [
  defineKnob({ name: 'LoopMakeSingleEntry', type: 'bool', default: true, description: 'OriLoopSimplification (OCG knob 487): master enable of single-entry/preheader insertion; also gates unrolling and fusion' }),
  defineKnob({ name: 'LoopInversion', type: 'bool', default: true, description: 'OriLoopSimplification: enable loop inversion (do-while to while conversion)' }),
  defineKnob({ name: 'LoopInversionBudget', type: 'int', default: 0, description: 'OriLoopSimplification: maximum instruction count for loop inversion (0 = unset)' }),
  defineKnob({ name: 'LoopPeelInversion', type: 'bool', default: false, description: 'OriLoopSimplification: enable loop peeling combined with inversion' }),
  defineKnob({ name: 'EnableSingleThreadPeelingLoops', type: 'bool', default: false, description: 'OriLoopSimplification: enable peeling for single-thread execution paths (unset)' }),
  defineKnob({ name: 'GenPeelingLoopsForSyncs', type: 'bool', default: false, description: 'OriLoopSimplification: generate peeling loops around sync instructions (unset)' }),
  defineKnob({ name: 'AssertIfPeelingLoopForTexSurf', type: 'bool', default: false, description: 'OriLoopSimplification: assert (debug) if peeling a loop for texture/surface ops (unset)' }),
];

// ---- phase 22 OriLoopUnrolling ----------------------------------------------------------------------
export const LOOP_UNROLL_KNOBS: readonly KnobDef[] = [
  defineKnob({ name: 'LoopUnroll', type: 'bool', default: true, description: 'OriLoopUnrolling (knob 437): master enable for loop unrolling' }),
  defineKnob({ name: 'LoopUnrollFactor', type: 'int', default: 0, description: 'OriLoopUnrolling (knob 896): override unroll factor (0 = heuristic)' }),
  defineKnob({ name: 'LoopUnrollBlockOverride', type: 'string', default: '', description: "OriLoopUnrolling (knob 427, unnamed in the spec): per-block override string: '-N-' skips block N, '+N+' force-unrolls it, '-' skips all, '+' forces all (N: block label or layout index)" }),
  defineKnob({ name: 'UnrollBudget', type: 'int', default: 140, description: 'OriLoopUnrolling: maximum total instruction count after unrolling' }),
  defineKnob({ name: 'UnrollInstLimit', type: 'float', default: 20.0, description: 'OriLoopUnrolling: maximum instructions in a single unrolled loop body' }),
  defineKnob({ name: 'UnrollFullInstLimit', type: 'int', default: 200, description: 'OriLoopUnrolling: budget for known-trip-count full unrolling (200/trip_count > body_cost gate)' }),
  defineKnob({ name: 'UnrollFlexableFullLimit', type: 'float', default: 0.25, description: 'OriLoopUnrolling: flexible full-unroll limit (adjusted by loop characteristics)' }),
  defineKnob({ name: 'UnrollSmallLoopLimit', type: 'int', default: 4, description: 'OriLoopUnrolling: body size threshold below which loops are always fully unrolled' }),
  defineKnob({ name: 'UnrollPregThreshold', type: 'int', default: 50, description: 'OriLoopUnrolling: maximum predicate register pressure for unrolling' }),
  defineKnob({ name: 'UnrollMultiBlockLoops', type: 'bool', default: true, description: 'OriLoopUnrolling (knob 897): allow unrolling of multi-basic-block loop bodies' }),
  defineKnob({ name: 'UnrollVariableBounds', type: 'bool', default: true, description: 'OriLoopUnrolling (knob 902): allow unrolling when the trip count is not a compile-time constant' }),
  defineKnob({ name: 'UnrollUnknownCount', type: 'int', default: 4, description: 'OriLoopUnrolling: unroll factor used when the trip count is unknown' }),
  defineKnob({ name: 'UnrollUnknownInstLimit', type: 'int', default: 0, description: 'OriLoopUnrolling: maximum body size for unrolling with unknown trip count (0 = unset)' }),
  defineKnob({ name: 'UnrollExtraInstPerPercentSaving', type: 'int', default: 2, description: 'OriLoopUnrolling: instructions allowed per percent of cycle saving' }),
  defineKnob({ name: 'UnrollTex3DPercentSavedThreshold', type: 'int', default: 0, description: 'OriLoopUnrolling: minimum savings percent for 3D texture loops' }),
  defineKnob({ name: 'UnrollProfiledColdInstsScale', type: 'int', default: 0, description: 'OriLoopUnrolling: scale factor for instruction count in profiled-cold blocks' }),
  defineKnob({ name: 'LoopUnrollExtraFoldableLdcWeight', type: 'int', default: 0, description: 'OriLoopUnrolling: extra weight for foldable constant loads in unroll benefit' }),
  defineKnob({ name: 'LoopUnrollFoldableAddrWeight', type: 'int', default: 0, description: 'OriLoopUnrolling: weight for foldable address computations' }),
  defineKnob({ name: 'LoopUnrollLargePartOfShaderPct', type: 'double', default: 0.4, description: 'OriLoopUnrolling: fraction of the function above which a loop is a "large part of shader"' }),
  defineKnob({ name: 'LoopUnrollNumExtraInstBase', type: 'int', default: 46, description: 'OriLoopUnrolling: base extra instruction allowance per unroll iteration' }),
  defineKnob({ name: 'LoopUnrollNumInstSmallLoop', type: 'int', default: 0, description: 'OriLoopUnrolling: instruction count defining "small loop" (0 = unset)' }),
  defineKnob({ name: 'LoopUnrollNumInstTex', type: 'int', default: 0, description: 'OriLoopUnrolling (knob 900): texture instruction budget for unknown-trip factor selection (0 = min(5*tex+22, 100))' }),
  defineKnob({ name: 'LoopUnrollSingleLoopSavedPctFactor', type: 'int', default: 0, description: 'OriLoopUnrolling: savings factor for single-loop shaders' }),
  defineKnob({ name: 'LoopUnrollNonInnermost', type: 'bool', default: true, description: 'OriLoopUnrolling (knob 894): allow unrolling of non-innermost loops' }),
  defineKnob({ name: 'LoopUnrollUnknownMultiBlock', type: 'bool', default: false, description: 'OriLoopUnrolling: allow multi-block unroll with unknown bounds' }),
  defineKnob({ name: 'EpilogueLoopUnrollCount', type: 'int', default: 0, description: 'OriLoopUnrolling (knob 895): unroll count for epilogue (remainder) loops (0 = remainder stays a loop)' }),
  defineKnob({ name: 'DisablePartialUnrollOverflowCheck', type: 'bool', default: false, description: 'OriLoopUnrolling (knob 903): skip the overflow check on the partial unroll count' }),
];

/**
 * Ours, not in the spec: ptxas's full-unroll rule measured beyond the spec's 200/trip gate (unroll.ts,
 * measuredFullUnroll; plugins/loop/scripts/ptxas-unroll-experiments.mjs). 0 turns each off.
 */
export const LOOP_UNROLL_MEASURED_KNOBS: readonly KnobDef[] = [
  defineKnob({ name: 'UnrollFullSizeTimesIterLimit', type: 'int', default: 24000, description: 'OriLoopUnrolling (ptxforge, measured on ptxas 13.0.88; not in the spec): full unroll of a constant-trip loop when (trip * body cost) * (body size of one innermost iteration) is at most this (0 = only the spec gate)' }),
  defineKnob({ name: 'UnrollFullMaxSize', type: 'int', default: 8192, description: 'OriLoopUnrolling (ptxforge, not in the spec): largest trip * body cost the measured full-unroll rule accepts (0 = no cap)' }),
];

// ---- phase 24 OriPipelining ---------------------------------------------------------------------------
export const PIPELINING_KNOBS: readonly KnobDef[] = [
  defineKnob({ name: 'OkToPipelineNoUnroll', type: 'int', default: 0, description: 'OriPipelining: allow pipelining even when unrolling was also suppressed (0 = disabled)' }),
  defineKnob({ name: 'PipelineHoistCondLimit', type: 'int', default: 0, description: 'OriPipelining: maximum condition complexity for hoisting in pipelined loops (0 = unset)' }),
  defineKnob({ name: 'PipelineHoistRRegPressureLimit', type: 'int', default: 0, description: 'OriPipelining: R-register pressure limit for hoisting inside a pipelined body (0 = unset)' }),
  defineKnob({ name: 'PipelineHoistPRegPressureLimit', type: 'int', default: 0, description: 'OriPipelining: P-register pressure limit for hoisting inside a pipelined body (0 = unset)' }),
  defineKnob({ name: 'PipelineMIOVQToInstRatio', type: 'double', default: 0, description: 'OriPipelining: MIOVQ-to-instruction ratio threshold for pipeline profitability (0 = unset)' }),
  defineKnob({ name: 'PipelineMultiOutputTex', type: 'int', default: 0, description: 'OriPipelining: enable pipelining of loops with multi-output texture instructions (0 = disabled)' }),
  defineKnob({ name: 'PipelineSpecUsesInHeadOnly', type: 'int', default: 0, description: 'OriPipelining: restrict speculative uses to the loop header only (0 = disabled)' }),
  // Ours, not in the spec (it names no register or size gate for phase 24; ptxas rarely pipelines ordinary
  // loops): the profitability gate of pipelining.ts findSchedule. 32 R registers keep full occupancy
  // (64K registers / 2048 threads per SM); 256 extra instructions bounds prologue + MVE kernel + drains.
  defineKnob({ name: 'PipelineRRegPressureLimit', type: 'int', default: 32, description: 'OriPipelining (ptxforge, not in the spec): pipelining may raise the estimated R-register pressure of a loop only up to max(this, the unpipelined estimate) (0 = no limit)' }),
  defineKnob({ name: 'PipelineExtraInstLimit', type: 'int', default: 256, description: 'OriPipelining (ptxforge, not in the spec): most instructions the pipelined form (prologue + kernel copies + drains) may add to the loop body (0 = no limit)' }),
  defineKnob({ name: 'GemmPipelinerEnabled', type: 'bool', default: false, description: 'OriPipelining: master enable for GEMM-specific pipelining' }),
  defineKnob({ name: 'GemmPipelinerPipelineDepthEnforceDeltaFull', type: 'int', default: 0, description: 'OriPipelining: pipeline depth adjustment for full enforcement' }),
  defineKnob({ name: 'GemmPipelinerPipelineDepthEnforceDeltaPartial', type: 'int', default: 0, description: 'OriPipelining: pipeline depth adjustment for partial enforcement' }),
  defineKnob({ name: 'GemmPipelinerDependenciesPopbl', type: 'bool', default: false, description: 'OriPipelining: dependency resolution policy between DMA and compute stages' }),
  defineKnob({ name: 'GemmPipelinerScoreboardHashPopbl', type: 'bool', default: false, description: 'OriPipelining: scoreboard hash policy for GEMM barrier tracking' }),
  defineKnob({ name: 'GemmPipelinerUseRegisterCalculation', type: 'int', default: 0, description: 'OriPipelining: use register-based calculation for pipeline depth vs. fixed' }),
];

// ---- phase 59 OriLoopFusion ---------------------------------------------------------------------------
export const LOOP_FUSION_KNOBS: readonly KnobDef[] = [
  defineKnob({ name: 'PerformLoopFusion', type: 'int', default: 0, description: 'OriLoopFusion (knob 519): master enable for loop fusion; must be set nonzero' }),
  defineKnob({ name: 'PerformLoopFusionBudget', type: 'float', default: 0, description: 'OriLoopFusion (knob 520): maximum instruction count in the fused body (0 = unset: no limit)' }),
];

export const LOOP_KNOBS: readonly KnobDef[] = [...LOOP_SIMPLIFICATION_KNOBS, ...LOOP_UNROLL_KNOBS, ...LOOP_UNROLL_MEASURED_KNOBS, ...PIPELINING_KNOBS, ...LOOP_FUSION_KNOBS];
