import { definePlugin, type PhaseContext } from '@ptxforge/kernel';
import { optimizeFunction, type BranchFolderResult } from './branch-folder.js';
import { BRANCH_FOLDING_KNOBS, nonNegative, parseTriState, type BranchFoldingOptions } from './knobs.js';
import { PACKAGE } from './package-meta.js';

export * from './analyze-branch.js';
export * from './branch-folder.js';
export * from './hash.js';
export * from './hoist-common-code.js';
export * from './knobs.js';
export * from './optimize-branches.js';
export * from './tail-merge.js';

/** Which invocation of BranchFolding a hook runs (cicc runs the same engine from three places). */
export type BranchFoldingInvocation = 'standalone' | 'placement' | 'ifcvt';

/** The options an invocation runs with, from the knobs (spec: "Configuration"); undefined when it is off. */
export function branchFoldingOptions(ctx: PhaseContext, which: BranchFoldingInvocation): BranchFoldingOptions | undefined {
  if (ctx.optLevel < 1 || ctx.knob<boolean>('disable-branch-fold')) return undefined;
  // cicc removed upstream's structured-CFG gate, so the target default for tail merging is on.
  const tailMergeOn = parseTriState(ctx.knob<string>('enable-tail-merge')) ?? true;
  const base = {
    tailMergeThreshold: nonNegative('tail-merge-threshold', ctx.knob<number>('tail-merge-threshold')),
    tailMergeSize: nonNegative('tail-merge-size', ctx.knob<number>('tail-merge-size')),
  };
  switch (which) {
    case 'standalone':
      return { ...base, tailMerge: tailMergeOn, hoistCommonCode: true };
    case 'placement':
      // MachineBlockPlacement's embedded invocation: tail merging as configured, no hoisting.
      return ctx.knob<boolean>('branch-fold-placement') ? { ...base, tailMerge: tailMergeOn, hoistCommonCode: false } : undefined;
    case 'ifcvt':
      // The if-converter's invocation: branch optimization only.
      return ctx.knob<boolean>('ifcvt-branch-fold') ? { ...base, tailMerge: false, hoistCommonCode: false } : undefined;
  }
}

function report(ctx: PhaseContext, fnName: string, r: BranchFolderResult, which: BranchFoldingInvocation): void {
  for (const e of r.tailMerge.events) {
    ctx.remark({
      kind: 'passed',
      name: 'TailMerged',
      fn: fnName,
      block: e.commonTail,
      ...(e.line !== undefined ? { line: e.line } : {}),
      message: `merged a common tail of ${e.length} instructions of ${e.blocks.join(', ')} into ${e.commonTail}`,
      args: { length: e.length, blocks: e.blocks.length, phase: e.phase, liveIns: e.liveIns.join(' ') },
    });
  }
  const rej = r.tailMerge.rejected;
  const b = r.branches;
  if (!r.changed && !rej['short-tail'] && !rej['reserved-register'] && !rej.unprofitable) return;
  ctx.remark({
    kind: 'analysis',
    name: 'BranchFolding',
    fn: fnName,
    message:
      `${which}: ${r.instrsBefore} -> ${r.instrsAfter} instructions in ${r.rounds} rounds; ${r.tailMerge.merges} tail merges, ` +
      `${b.emptyBlocksRemoved + b.blocksMerged + b.deadBlocksRemoved} blocks removed, ${r.hoisted} instructions hoisted`,
    args: {
      invocation: which, merges: r.tailMerge.merges, instrsSaved: r.tailMerge.instrsSaved,
      rejectedShortTail: rej['short-tail'], rejectedReservedRegister: rej['reserved-register'], rejectedUnprofitable: rej.unprofitable,
      emptyBlocksRemoved: b.emptyBlocksRemoved, sameTargetFolded: b.sameTargetFolded, blocksMerged: b.blocksMerged,
      redundantBranchesRemoved: b.redundantBranchesRemoved, conditionsReversed: b.conditionsReversed,
      tailBlocksMoved: b.tailBlocksMoved, deadBlocksRemoved: b.deadBlocksRemoved, hoisted: r.hoisted,
    },
  });
}

/** Run one invocation over every function of the unit. */
export function runBranchFolding(ctx: PhaseContext, which: BranchFoldingInvocation): void {
  const opts = branchFoldingOptions(ctx, which);
  if (!opts) return;
  for (const fn of ctx.module.functions) {
    if (fn.blocks.length === 0) continue;
    const r = optimizeFunction(fn, opts);
    if (r.changed) ctx.invalidate(fn, 'none');
    report(ctx, fn.name, r, which);
  }
}

/**
 * cicc's BranchFolding as a ptxforge plugin. The standalone pass runs in AdvancedPhasePostExpansion (104), the
 * first hook after register allocation (101) — the spec places it after allocation and block placement; in
 * ptxforge's pipeline block placement (112) comes later, so the placement-time invocation runs just before it,
 * in AdvancedPhasePostFixUp (111). Until an allocator is installed the IR at 104 still has virtual registers but
 * no phis (ConvertAllMovPhiToMov, 73, destroyed them), which is what tail merging needs: the copies that replaced
 * the phis make the two paths' tails identical. The if-converter's invocation runs in the first hook after
 * OriDoPredication (63): AdvancedPhaseLateConvUnSup (77).
 */
export const branchFoldingPlugin = definePlugin(
  {
    ...PACKAGE,
    api: '^1.0.0',
    description: 'cicc BranchFolding: tail merging, branch optimization, common-code hoisting',
  },
  {
    knobs: BRANCH_FOLDING_KNOBS,
    hooks: {
      AdvancedPhaseLateConvUnSup: (ctx) => runBranchFolding(ctx, 'ifcvt'),
      AdvancedPhasePostExpansion: (ctx) => runBranchFolding(ctx, 'standalone'),
      AdvancedPhasePostFixUp: (ctx) => runBranchFolding(ctx, 'placement'),
    },
  },
);
export default branchFoldingPlugin;
