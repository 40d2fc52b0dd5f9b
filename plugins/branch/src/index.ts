import { definePlugin } from '@ptxforge/kernel';
import { OriBranchOpt } from './branch-opt.js';
import { ExpandJmxComputation } from './expand-jmx.js';
import { knobs } from './knobs.js';
import { MergeEquivalentConditionalFlow } from './merge-equivalent.js';
import { OptimizeNestedCondBranches } from './nested-cond.js';
import { DoSwitchOptSecond } from './switch-opt.js';
import { PACKAGE } from './package-meta.js';

export * from './branch-opt.js';
export * from './cfg-util.js';
export * from './compare.js';
export * from './expand-jmx.js';
export * from './knobs.js';
export * from './merge-equivalent.js';
export * from './nested-cond.js';
export * from './switch-opt.js';

/**
 * The branch & switch family (spec: ptxas-branch-switch-optimization.txt). Phase 14's per-SM work is the
 * target's slot-17 handler (phase 14 itself is plugin-core's dispatch); the generic switch lowering is here.
 */
export const branchPlugin = definePlugin(
  {
    ...PACKAGE,
    api: '^1.0.0',
    description: 'branch & switch optimization: 15 OriBranchOpt, 30 DoSwitchOptSecond, 38 OptimizeNestedCondBranches, 80 ExpandJmxComputation, 133/136 MergeEquivalentConditionalFlow',
  },
  {
    phases: {
      OriBranchOpt: () => new OriBranchOpt(),
      DoSwitchOptSecond: () => new DoSwitchOptSecond(),
      OptimizeNestedCondBranches: () => new OptimizeNestedCondBranches(),
      ExpandJmxComputation: () => new ExpandJmxComputation(),
      MergeEquivalentConditionalFlow: () => new MergeEquivalentConditionalFlow(false),
      LateMergeEquivalentConditionalFlow: () => new MergeEquivalentConditionalFlow(true),
    },
    knobs,
  },
);
export default branchPlugin;
