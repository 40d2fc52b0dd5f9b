import { describe, expect, it } from 'vitest';
import { parseOri } from '../ir/parse.js';
import { Instr } from '../ir/core.js';
import { computeRpo } from './cfg.js';
import { computeDominators, computePostDominators, DominatorAnalysis } from './dominators.js';
import { computeLoops, LoopAnalysis } from './loops.js';
import { AnalysisManager } from './manager.js';

// Two nested loops: bb1 (outer header) -> bb2 (inner header, self loop via bb3) -> bb4 (outer latch) -> bb5 exit.
const src = `.entry @k()
{
bb0:
  %r0 = MOV 0
  %p0 = ISETP.EQ.AND %r0, RZ, PT
bb1:
  %r1 = MOV 0
bb2:
  %r1 = IADD3 %r1, 1, RZ
bb3:
  %p1 = ISETP.LT.AND %r1, 4, PT
  @%p1 BRA bb2
bb4:
  %r0 = IADD3 %r0, 1, RZ
  %p2 = ISETP.LT.AND %r0, 4, PT
  @%p2 BRA bb1
bb5:
  @%p0 BRA bb7
bb6:
  EXIT
bb7:
  EXIT
}
`;
const f = () => parseOri(src).functions[0]!;
const L = (bs: readonly { label: string }[]) => bs.map((b) => b.label);

describe('analyses', () => {
  it('RPO', () => {
    expect(L(computeRpo(f()).order)).toEqual(['bb0', 'bb1', 'bb2', 'bb3', 'bb4', 'bb5', 'bb6', 'bb7']);
  });

  it('dominators', () => {
    const fn = f();
    const d = computeDominators(fn);
    const b = (l: string) => fn.getBlock(l)!;
    expect(d.idom.get(b('bb2'))).toBe(b('bb1'));
    expect(d.idom.get(b('bb7'))).toBe(b('bb5'));
    expect(d.dominates(b('bb1'), b('bb4'))).toBe(true);
    expect(d.dominates(b('bb3'), b('bb2'))).toBe(false);
    expect(d.strictlyDominates(b('bb0'), b('bb0'))).toBe(false);
  });

  it('post-dominators with two exits hang under a virtual exit', () => {
    const fn = f();
    const pd = computePostDominators(fn);
    const b = (l: string) => fn.getBlock(l)!;
    expect(pd.idom.get(b('bb4'))).toBe(b('bb5'));
    expect(pd.idom.get(b('bb5'))).toBeUndefined();
    expect(pd.dominates(b('bb5'), b('bb0'))).toBe(true);
    expect(pd.dominates(b('bb6'), b('bb5'))).toBe(false);
  });

  it('a guarded EXIT is an exit: a loop whose only way out is `@p EXIT` keeps its ipdoms', () => {
    // bb1..bb3 loop; the diamond bb1 -> (bb2) -> bb3 must reconverge at bb3 although no block of the loop has an
    // edge out of it (OriBranchOpt turns `@p BRA exit-block` into `@p EXIT`)
    const fn = parseOri(`.entry @k()
{
bb0:
  %r0 = S2R SR_TID.X
bb1:
  %p0 = ISETP.EQ.AND %r0, RZ, PT
  @%p0 BRA bb3
bb2:
  %r0 = IADD3 %r0, 1, RZ
bb3:
  %p1 = ISETP.GT.AND %r0, 4, PT
  @%p1 EXIT
bb4:
  BRA bb1
}`).functions[0]!;
    const pd = computePostDominators(fn);
    const b = (l: string) => fn.getBlock(l)!;
    expect(pd.idom.get(b('bb1'))).toBe(b('bb3'));
    expect(pd.idom.get(b('bb2'))).toBe(b('bb3'));
    expect(pd.idom.get(b('bb3'))).toBeUndefined();
    expect(pd.idom.get(b('bb4'))).toBe(b('bb1'));
  });

  it('natural loops with depth, latches, exits and preheaders', () => {
    const fn = f();
    const li = computeLoops(fn);
    const b = (l: string) => fn.getBlock(l)!;
    expect(li.all.map((l) => [l.header.label, l.depth, L(l.blocks)])).toEqual([
      ['bb1', 1, ['bb1', 'bb2', 'bb3', 'bb4']],
      ['bb2', 2, ['bb2', 'bb3']],
    ]);
    expect(li.depth(b('bb3'))).toBe(2);
    expect(li.depth(b('bb4'))).toBe(1);
    expect(li.depth(b('bb5'))).toBe(0);
    const inner = li.loopOf(b('bb2'))!;
    expect(inner.parent?.header.label).toBe('bb1');
    expect(L(inner.latches)).toEqual(['bb3']);
    expect(inner.preheader?.label).toBe('bb1');
    expect(inner.exits.map((e) => `${e.from.label}->${e.to.label}`)).toEqual(['bb3->bb4']);
    // bb0 falls into the outer header but is it a dedicated preheader? bb0 has one successor: yes.
    expect(li.all[0]!.preheader?.label).toBe('bb0');
    expect(li.irreducibleEdges).toEqual([]);
  });

  it('detects irreducible edges', () => {
    const fn = parseOri(`.entry @k()
{
bb0:
  %p0 = ISETP.EQ.AND RZ, RZ, PT
  @%p0 BRA bb2
bb1:
  BRA bb2
bb2:
  @%p0 BRA bb1
bb3:
  EXIT
}
`).functions[0]!;
    const li = computeLoops(fn);
    expect(li.irreducibleEdges.map((e) => `${e.from.label}->${e.to.label}`)).toEqual(['bb1->bb2']); // DFS visits bb2 before bb1, so bb1 -> bb2 retreats
  });

  it('AnalysisManager caches, invalidates explicitly and recomputes after CFG changes', () => {
    const fn = f();
    const am = new AnalysisManager();
    const a = am.get(fn, LoopAnalysis);
    expect(am.get(fn, LoopAnalysis)).toBe(a);
    expect(am.computeCount(DominatorAnalysis)).toBe(1);
    // A non-CFG change keeps CFG analyses valid.
    fn.blocks[1]!.insertAt(0, new Instr('NOP'));
    expect(am.get(fn, LoopAnalysis)).toBe(a);
    am.invalidate(fn, 'cfg');
    expect(am.get(fn, LoopAnalysis)).toBe(a);
    am.invalidate(fn, [DominatorAnalysis]);
    expect(am.has(fn, DominatorAnalysis)).toBe(true);
    expect(am.has(fn, LoopAnalysis)).toBe(false);
    // A CFG change makes even an un-invalidated entry stale.
    const d = am.get(fn, DominatorAnalysis);
    fn.splitBlock(fn.blocks[1]!, fn.blocks[1]!.instrs[1]!);
    expect(am.get(fn, DominatorAnalysis)).not.toBe(d);
  });
});
