import { DominatorAnalysis, type OriFunction, type PhaseContext, type PhaseImpl } from '@ptxforge/kernel';
import { isKnownFixpoint, isRemovableWhenDead, noteFixpoint } from '@ptxforge/opt-utils';
import { foldConstants } from './fold.js';
import { fuseMultiplyAdd } from './fuse-mul-add.js';
import { propagateConstants, propagateCopies, propagatePredicateConstants } from './propagate.js';
import { simplifyAlgebraic } from './simplify.js';

export type GeneralOptimizeVariant = 'early' | 'mid-loop' | 'mid' | 'mid2' | 'late' | 'late2';

/** Knob: the fixed-point budget of one GeneralOptimize bundle (rounds of all sub-passes per function). */
export const KNOB_GO_MAX_ROUNDS = 'GeneralOptimizeMaxRounds';

/** Sub-pass names checked with ctx.isPassDisabled (--disable-passes); OriCopyProp is the spec's name. */
export const GO_SUBPASSES = ['OriCopyProp', 'OriConstProp', 'OriConstFold', 'OriAlgebraicSimplify', 'OriPredicateSimplify', 'OriFuseMulAdd', 'OriDeadMovCleanup'] as const;

/**
 * A GeneralOptimize bundle (spec: phases 13, 29, 37, 46, 58, 65 are "compound passes that bundle multiple
 * small optimizations (copy propagation, constant folding, algebraic simplification) into a single
 * fixed-point iteration"). Each round runs every sub-pass over the function; rounds repeat until a round
 * changes nothing or the budget is spent. The six slots share the implementation; the variant is reported.
 */
export class GeneralOptimizePhase implements PhaseImpl {
  readonly preserves = 'none' as const;
  constructor(readonly variant: GeneralOptimizeVariant) {}

  execute(ctx: PhaseContext): void {
    const budget = Math.max(1, ctx.knob<number>(KNOB_GO_MAX_ROUNDS));
    for (const fn of ctx.module.functions) runBundle(fn, ctx, budget);
  }
}

/** One bundle over a function; returns the number of rewrites. */
export function runBundle(fn: OriFunction, ctx: PhaseContext, budget: number): number {
  const dom = () => ctx.analysis(fn, DominatorAnalysis);
  const on = (name: (typeof GO_SUBPASSES)[number]): boolean => !ctx.isPassDisabled(name);
  // A round that left the IR version unchanged is a fixed point of the bundle (the sub-passes read nothing but
  // the function and the enabled set): a later bundle on the same version would change nothing and is skipped
  // (the six slots share this implementation; on a big function the late ones mostly meet a fixed point).
  const key = `general-optimize:${GO_SUBPASSES.map((p) => (on(p) ? '1' : '0')).join('')}`;
  if (isKnownFixpoint(fn, key)) return 0;
  let total = 0;
  // The same holds for each sub-pass on its own: one that changed nothing at this IR version is skipped until
  // the function changes (the last round of a bundle, which only confirms the fixed point, then runs just the
  // sub-passes that came before the last change).
  const step = (name: (typeof GO_SUBPASSES)[number], pass: () => number): number => {
    if (!on(name)) return 0;
    const k = `general-optimize/${name}`;
    if (isKnownFixpoint(fn, k)) return 0;
    const v = fn.irVersion;
    const rewrites = pass();
    if (fn.irVersion === v) noteFixpoint(fn, k);
    return rewrites;
  };
  for (let round = 0; round < budget; round++) {
    const version = fn.irVersion;
    let n = 0;
    n += step('OriCopyProp', () => propagateCopies(fn, dom));
    n += step('OriConstProp', () => propagateConstants(fn, dom));
    n += step('OriConstFold', () => foldConstants(fn));
    n += step('OriAlgebraicSimplify', () => simplifyAlgebraic(fn));
    n += step('OriPredicateSimplify', () => propagatePredicateConstants(fn, dom));
    n += step('OriFuseMulAdd', () => fuseMultiplyAdd(fn, dom));
    n += step('OriDeadMovCleanup', () => removeUnusedDefs(fn));
    total += n;
    if (fn.irVersion === version) noteFixpoint(fn, key);
    if (!n) break;
  }
  return total;
}

/**
 * Drop effect-free instructions none of whose defs is read anywhere (the copies and constants the other
 * sub-passes made redundant), so that the next round sees single-def registers again.
 */
export function removeUnusedDefs(fn: OriFunction): number {
  let n = 0;
  let again = true;
  while (again) {
    again = false;
    for (const b of fn.blocks) {
      for (const i of [...b.instrs]) {
        if (!isRemovableWhenDead(i)) continue;
        if (i.defRegs().every((r) => r.uses.size === 0 || (r.uses.size === 1 && r.uses.has(i)))) {
          b.remove(i);
          n++;
          again = true;
        }
      }
    }
  }
  return n;
}
