import type { OriFunction } from '@ptxforge/kernel';
import { hoistCommonCode } from './hoist-common-code.js';
import type { BranchFoldingOptions } from './knobs.js';
import { newBranchOptStats, optimizeBranches, type BranchOptStats } from './optimize-branches.js';
import { newTailMergeStats, tailMergeBlocks, type TailMergeStats } from './tail-merge.js';

export interface BranchFolderResult {
  readonly changed: boolean;
  readonly rounds: number;
  readonly tailMerge: TailMergeStats;
  readonly branches: BranchOptStats;
  readonly hoisted: number;
  readonly instrsBefore: number;
  readonly instrsAfter: number;
}

/**
 * Every transformation shrinks the function or (tail-block relocation) moves an exit block to the end, so the
 * fixed point is reached in a few rounds (the spec: 2-3 in practice). The cap bounds the pathological case
 * the spec mentions (O(N^2) rounds) so that the pass stays near-linear on machine-generated code.
 */
export const MAX_ROUNDS = 32;

/**
 * OptimizeFunction (spec: "Algorithm"): TailMergeBlocks, OptimizeBranches and HoistCommonCode until nothing
 * changes. Requires phis to be gone (ptxforge runs it after ConvertAllMovPhiToMov, 73).
 */
export function optimizeFunction(fn: OriFunction, opts: BranchFoldingOptions): BranchFolderResult {
  const tailMerge = newTailMergeStats();
  const branches = newBranchOptStats();
  let hoisted = 0;
  const instrsBefore = fn.instructionCount;
  let changed = false;
  let rounds = 0;
  while (rounds < MAX_ROUNDS) {
    rounds++;
    let c = opts.tailMerge ? tailMergeBlocks(fn, opts, tailMerge) : false;
    if (optimizeBranches(fn, branches)) c = true;
    if (opts.hoistCommonCode) {
      const h = hoistCommonCode(fn);
      hoisted += h;
      if (h) c = true;
    }
    if (!c) break;
    changed = true;
  }
  return { changed, rounds, tailMerge, branches, hoisted, instrsBefore, instrsAfter: fn.instructionCount };
}
