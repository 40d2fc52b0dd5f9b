import { defineKnob, type KnobDef } from '@ptxforge/kernel';

/**
 * Knobs of OriHoistInvariants (spec: ptxas-loop-passes.txt, "Hoisting Knobs"), with the spec's names and
 * defaults. Where the spec gives "unset" the knob is registered with 0 meaning "not requested"; where it gives
 * two pass-dependent defaults (22 early / 100 late) 0 means "the pass-dependent default".
 */
export const LICM_KNOBS: readonly KnobDef[] = [
  defineKnob({ name: 'HoistInvariants', type: 'bool', default: true, description: 'OriHoistInvariants (OCG knob 499, unnamed in the spec): master LICM switch of phases 35, 66, 79, 88' }),
  defineKnob({ name: 'HoistInvariantsMaxInvocations', type: 'int', default: 0, description: 'OriHoistInvariants rate limiter (spec: allocator[9]+35936, unnamed): most LICM runs per compilation (0 = unlimited)' }),
  defineKnob({ name: 'HoistBudget', type: 'float', default: 10, description: 'OriHoistInvariants (knob 483): maximum number of instructions to hoist per loop (0 = unlimited)' }),
  defineKnob({ name: 'HoistLoopInvBudget', type: 'float', default: 0, description: 'OriHoistInvariants (knob 482): loop-invariant hoisting budget for simple loops (0 = default: 22 for pass_id 0, 100 later)' }),
  defineKnob({ name: 'HoistConservativeScale', type: 'int', default: 10, description: 'OriHoistInvariants (knob 380): inner-loop budget divisor' }),
  defineKnob({ name: 'HoistLate', type: 'int', default: 0, description: 'OriHoistInvariants (knob 381): hoisting policy: 0 always, 1 inner loops only, 3 never' }),
  defineKnob({ name: 'HoistCBOMode', type: 'int', default: 0, description: 'OriHoistInvariants: constant-buffer-object hoisting mode' }),
  defineKnob({ name: 'HoistCBOLoad', type: 'int', default: 0, description: 'OriHoistInvariants: enable hoisting of CBO load instructions (0 = unset)' }),
  defineKnob({ name: 'HoistCBOFromLoopWithColdNest', type: 'int', default: 1, description: 'OriHoistInvariants: hoist CBO loads even from loops with cold nesting' }),
  defineKnob({ name: 'HoistCBOHighCostSBInstRatioThreshold', type: 'int', default: 0, description: 'OriHoistInvariants: scoreboard cost threshold for CBO hoisting (0 = unset)' }),
  defineKnob({ name: 'HoistCBOLoadIDOMTravseLimit', type: 'int', default: 4, description: 'OriHoistInvariants: IDOM traversal limit for CBO load hoisting' }),
  defineKnob({ name: 'HoistCBORRegPressureLimitApplyRate', type: 'int', default: 80, description: 'OriHoistInvariants: R-register pressure limit application rate (percentage)' }),
  defineKnob({ name: 'HoistTexToInstRatioHigh', type: 'double', default: 0.045, description: 'OriHoistInvariants: high texture-to-instruction ratio threshold for aggressive hoisting' }),
  defineKnob({ name: 'HoistTexToInstRatioLow', type: 'double', default: 0.03, description: 'OriHoistInvariants: low texture-to-instruction ratio threshold for conservative hoisting' }),
  defineKnob({ name: 'DisableNestedHoist', type: 'bool', default: false, description: 'OriHoistInvariants: disable hoisting out of a loop nest past the innermost loop' }),
  defineKnob({ name: 'NestedHoistInnerThreshold', type: 'int', default: 0, description: 'OriHoistInvariants: inner loop instruction threshold for nested hoisting (0 = default: 22 / 100, as HoistLoopInvBudget)' }),
  defineKnob({ name: 'NestedHoistOuterThreshold', type: 'int', default: 10, description: 'OriHoistInvariants: outer loop instruction threshold for nested hoisting' }),
  defineKnob({ name: 'UseNewLoopInvariantRoutineForHoisting', type: 'bool', default: false, description: 'OriHoistInvariants (knob 934): set-based fixpoint invariance routine instead of the single-pass scan' }),
  defineKnob({ name: 'MaxMidHeaderSizeRateForAggressiveHoist', type: 'int', default: 2, description: 'OriHoistInvariants: maximum LICM iteration count (limits repeated hoisting passes)' }),
  defineKnob({ name: 'EnableHoistLowLatencyInstMidBlock', type: 'bool', default: false, description: 'OriHoistInvariants: hoist low-latency instructions from mid-block positions' }),
  defineKnob({ name: 'MovWeightForSinkingHoisting', type: 'double', default: 0.25, description: 'OriHoistInvariants: weight for MOV instructions in sink/hoist decisions' }),
];
