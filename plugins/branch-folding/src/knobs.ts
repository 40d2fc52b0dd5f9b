import { defineKnob, PtxforgeError, type KnobDef } from '@ptxforge/kernel';

/**
 * The BranchFolding knobs, spelled as cicc spells them (spec: cicc-branchfolding-tailmerge.txt, "Configuration").
 * `enable-tail-merge` is a tri-state: `unset` (the target default, which for ptxforge is "on": cicc removed the
 * structured-CFG gate that turns it off upstream), `true` or `false`.
 */
export const BRANCH_FOLDING_KNOBS: readonly KnobDef[] = [
  defineKnob({ name: 'disable-branch-fold', type: 'bool', default: false, description: 'skip the whole BranchFolding pass (tail merge, branch optimization, hoisting)' }),
  defineKnob({ name: 'enable-tail-merge', type: 'string', default: 'unset', description: 'tail merging: unset (target default: on), true or false' }),
  defineKnob({ name: 'tail-merge-threshold', type: 'int', default: 150, description: 'most merge candidates (predecessors or return blocks) considered per merge round' }),
  defineKnob({ name: 'tail-merge-size', type: 'int', default: 3, description: 'minimum common tail length, in instructions, that justifies a merge' }),
  defineKnob({ name: 'branch-fold-placement', type: 'bool', default: true, description: 'run the branch-optimization subset of BranchFolding again right before block placement (hook AdvancedPhasePostFixUp)' }),
  defineKnob({ name: 'ifcvt-branch-fold', type: 'bool', default: true, description: 'run the branch-optimization subset of BranchFolding after if-conversion (hook AdvancedPhaseLateConvUnSup)' }),
];

export interface BranchFoldingOptions {
  /** Whether TailMergeBlocks runs. */
  readonly tailMerge: boolean;
  /** Whether HoistCommonCode runs (always true in cicc; false for the branch-only invocations). */
  readonly hoistCommonCode: boolean;
  readonly tailMergeThreshold: number;
  readonly tailMergeSize: number;
}

export const DEFAULT_OPTIONS: BranchFoldingOptions = { tailMerge: true, hoistCommonCode: true, tailMergeThreshold: 150, tailMergeSize: 3 };

/** Read the tri-state `enable-tail-merge`; anything but unset/true/false is a coded error. */
export function parseTriState(v: string): boolean | undefined {
  const t = v.trim().toLowerCase();
  if (t === 'unset' || t === '') return undefined;
  if (t === 'true' || t === '1' || t === 'on') return true;
  if (t === 'false' || t === '0' || t === 'off') return false;
  throw new PtxforgeError('KNOB_BAD_VALUE', `knob enable-tail-merge expects unset, true or false, got '${v}'`);
}

/** Validate a count knob: a negative threshold or size makes no sense. */
export function nonNegative(name: string, v: number): number {
  if (!Number.isInteger(v) || v < 0) throw new PtxforgeError('KNOB_BAD_VALUE', `knob ${name} expects a non-negative int, got ${v}`);
  return v;
}
