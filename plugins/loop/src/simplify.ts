import { DominatorAnalysis, LoopAnalysis, type OriFunction, type PhaseContext } from '@ptxforge/kernel';
import { ensurePreheader } from './region.js';

/**
 * Phase 18 OriLoopSimplification on one function (spec: LoopMakeSingleEntry core sub_78B430): every natural
 * loop gets a dedicated preheader, the single block through which control enters it. Natural loops are
 * single-entry by construction (the header dominates the body); irreducible regions (retreating edges whose
 * target does not dominate the source) are left alone. Peeling (sub_7753F0) is an -O4/-O5 step; loop inversion
 * (LoopInversion) is what nvcc's rotated loops already are. In a convergent context (a loop whose header is a
 * BSSY reconvergence target) the edge split is suppressed, as the spec says, to keep convergence intact.
 */
export function simplifyLoops(ctx: PhaseContext, fn: OriFunction): number {
  if (!ctx.knob<boolean>('LoopMakeSingleEntry')) return 0;
  let inserted = 0;
  const loops = ctx.analysis(fn, LoopAnalysis);
  ctx.analysis(fn, DominatorAnalysis);
  const reconvergence = new Set<unknown>();
  for (const b of fn.blocks) for (const i of b.instrs) if (i.opcode === 'BSSY') for (const t of i.labelTargets()) reconvergence.add(t);
  // Headers and their loop block sets are taken before any change (adding a preheader does not change loops).
  const work = loops.all.map((l) => ({ header: l.header, set: l.blockSet, pre: l.preheader }));
  for (const w of work) {
    if (w.pre && w.pre.layoutNext === w.header) continue;
    if (reconvergence.has(w.header)) {
      ctx.remark({ kind: 'analysis', name: 'LoopPreheaderSuppressed', fn: fn.name, block: w.header.label, message: 'preheader insertion suppressed: the loop header is a convergence point (BSSY target)' });
      continue;
    }
    const before = fn.blocks.length;
    ensurePreheader(fn, w.header, w.set);
    if (fn.blocks.length !== before) inserted++;
  }
  if (inserted) ctx.invalidate(fn, 'none');
  return inserted;
}
