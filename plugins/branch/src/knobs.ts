import { defineKnob } from '@ptxforge/kernel';

/**
 * Knobs of the branch & switch family. The two switch knobs carry the spec's names (ctor_005); the spec
 * gives the others only as knob indices, so they are named after what they do, with the index in the
 * description. Defaults the spec does not state are our choice and say so.
 */
export const KNOB_SWITCH_BUDGET = 'SwitchOptBudget';
export const KNOB_SWITCH_EXTENDED = 'SwitchOptExtendedPatternMatch';
export const KNOB_BRANCH_OPT_DISABLE = 'OriBranchOptDisable';
export const KNOB_BRANCH_OPT_CONVERGENCE = 'OriBranchOptConvergence';
export const KNOB_BRANCH_OPT_THREAD_DEPTH = 'OriBranchOptMaxThreadDepth';
export const KNOB_GENERAL_OPTIMIZATION = 'OriGeneralOptimization';
export const KNOB_NESTED_COND_MAX_ROUNDS = 'OptimizeNestedCondBranchesMaxRounds';
export const KNOB_MERGE_EQUIVALENT_MAX_ROUNDS = 'MergeEquivalentConditionalFlowMaxRounds';

export const knobs = [
  defineKnob({
    name: KNOB_SWITCH_BUDGET,
    type: 'int',
    default: 1024,
    description:
      'DoSwitchOpt (14/30): effort budget: most compare nodes a recognised switch may have and most case values it may map; larger ones are left alone (default is ours: the spec does not show it)',
  }),
  defineKnob({
    name: KNOB_SWITCH_EXTENDED,
    type: 'bool',
    default: true,
    description:
      'DoSwitchOpt (14/30): accept switches beyond the simple ISETP.EQ+BRA cascade: range-splitting compare trees (as nvcc emits), NE tests, interleaved instructions in the head block (default is ours)',
  }),
  defineKnob({ name: KNOB_BRANCH_OPT_DISABLE, type: 'bool', default: false, description: 'OriBranchOpt (15): skip the pass (spec knob 214)' }),
  defineKnob({
    name: KNOB_BRANCH_OPT_CONVERGENCE,
    type: 'bool',
    default: true,
    description: 'OriBranchOpt (15): re-examine a block after each rewrite until nothing matches (spec knob 464, on by default)',
  }),
  defineKnob({
    name: KNOB_BRANCH_OPT_THREAD_DEPTH,
    type: 'int',
    default: 32,
    description: 'OriBranchOpt (15): longest chain of branch-only blocks followed when threading one branch (spec: "a depth limit"; value ours)',
  }),
  defineKnob({
    name: KNOB_GENERAL_OPTIMIZATION,
    type: 'bool',
    default: true,
    description: 'general optimization enablement checked by OriBranchOpt (15) before it runs (spec knob 487)',
  }),
  defineKnob({
    name: KNOB_NESTED_COND_MAX_ROUNDS,
    type: 'int',
    default: 64,
    description: 'OptimizeNestedCondBranches (38): most rounds of the fixed-point loop per function (each round collapses one nesting level; value ours)',
  }),
  defineKnob({
    name: KNOB_MERGE_EQUIVALENT_MAX_ROUNDS,
    type: 'int',
    default: 8,
    description: 'MergeEquivalentConditionalFlow (133/136): most merge rounds per function (merging can make predecessors equal in turn; value ours)',
  }),
];
