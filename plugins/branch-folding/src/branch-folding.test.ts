import { describe, expect, it } from 'vitest';
import { computeLoops, parseOri, printModule, type PhaseImpl } from '@ptxforge/kernel';
import { makeTestContext, normalizeOri, runPhaseOnText } from '@ptxforge/opt-utils';
import { generateProgram, runKernel } from '@ptxforge/interp';
import { BRANCH_FOLDING_KNOBS, DEFAULT_OPTIONS, optimizeFunction, runBranchFolding, type BranchFoldingInvocation } from './index.js';

const wrap = (body: string): string => `.target sm_90
.entry @k(
  .param .u64 out c[0x0][0x210],
  .param .u32 n c[0x0][0x218]
)
{
${body}
}
`;

const phase = (which: BranchFoldingInvocation = 'standalone'): PhaseImpl => ({ execute: (ctx) => runBranchFolding(ctx, which) });
type KnobValues = Record<string, boolean | number | string>;
function fold(text: string, knobValues: KnobValues = {}, which: BranchFoldingInvocation = 'standalone'): string {
  const out = runPhaseOnText(text, phase(which), { knobs: BRANCH_FOLDING_KNOBS, knobValues });
  expectSameBehaviour(text, out);
  return out;
}

/** The kernel computes the same memory before and after, for several values of the parameter n. */
function expectSameBehaviour(before: string, after: string): void {
  for (const n of [0, 3, 6, 9]) {
    const launch = { grid: 1, block: 32, buffers: { out: { type: 'u32' as const, count: 64 } }, params: [{ buffer: 'out' }, { type: 'u32' as const, value: n }] };
    const a = runKernel(parseOri(before), launch);
    const b = runKernel(parseOri(after), launch);
    expect(a.ok && b.ok, `n=${n}: ${JSON.stringify([a.errors, b.errors])}`).toBe(true);
    expect(JSON.stringify(b.buffers), `n=${n}`).toBe(JSON.stringify(a.buffers));
  }
}

/** Run the standalone pass and return its remarks too. */
function foldWithRemarks(text: string, knobValues: KnobValues = {}) {
  const m = parseOri(text);
  const ctx = makeTestContext(m, { knobs: BRANCH_FOLDING_KNOBS, knobValues });
  runBranchFolding(ctx, 'standalone');
  const out = printModule(m);
  expectSameBehaviour(text, out);
  return { text: out, remarks: ctx.remarks };
}

/** Seven instructions that both arms of the diamond end with. */
const TAIL7 = `  %r4 = LOP3.LUT %r3, c[0x0][0x218], RZ, 60
  %r5 = SHL %r4, 3
  %r6 = IADD3 %r5, %r2, RZ
  %r7 = IMAD %r6, %r6, RZ
  %r8 = LOP3.LUT %r7, 255, RZ, 60
  %r9 = IADD3 %r8, c[0x0][0x218], RZ
  STG.E.32 [%rd4], %r9`;

const diamond = (tail: string, tailElse = tail): string =>
  wrap(`bb0:
  %r2 = MOV c[0x0][0x218]
  %rd4 = MOV c[0x0][0x210]
  %p1 = ISETP.LT.U32.AND %r2, 5, PT
  @%p1 BRA bb2
bb1:
  %r3 = IMAD %r2, 7, RZ
${tail}
  BRA bb3
bb2:
  %r3 = IMAD %r2, 9, RZ
${tailElse}
bb3:
  EXIT`);

describe('TailMergeBlocks', () => {
  it('keeps one copy of a common tail: the leader is split, the other arm branches to CommonTail', () => {
    const { text, remarks } = foldWithRemarks(diamond(TAIL7));
    expect(text.match(/LOP3\.LUT %r7, 255/g)).toHaveLength(1);
    expect(text.match(/STG/g)).toHaveLength(1);
    expect(remarks.filter((r) => r.name === 'TailMerged')).toHaveLength(1);
    expect(remarks.find((r) => r.name === 'TailMerged')!.args).toMatchObject({ length: 7, blocks: 2, phase: 'B' });
  });

  it('rejects a common tail shorter than tail-merge-size (Gate 1), and merges it when the knob allows', () => {
    const short = `  %r4 = SHL %r3, 3
  STG.E.32 [%rd4], %r4`;
    const { text, remarks } = foldWithRemarks(diamond(short));
    expect(text.match(/STG/g)).toHaveLength(2);
    expect(remarks.find((r) => r.name === 'BranchFolding')!.args).toMatchObject({ rejectedShortTail: 1, merges: 0 });
    // With tail-merge-size 2 the two instructions still beat Gate 4's overhead of one branch into CommonTail.
    const merged = fold(diamond(short), { 'tail-merge-size': 2 });
    expect(merged.match(/STG/g)).toHaveLength(1);
  });

  it('never lets a reserved special register be live into CommonTail (Gate 3)', () => {
    const tail = `  %r10 = S2R SR_TID.X
${TAIL7}
  STG.E.32 [%rd4], %r10`;
    const { text, remarks } = foldWithRemarks(diamond(tail));
    // The common tail (nine instructions) reads SR_TID.X: the whole merge is rejected, there is no partial one.
    expect(text.match(/S2R SR_TID\.X/g)).toHaveLength(2);
    expect(remarks.find((r) => r.name === 'BranchFolding')!.args).toMatchObject({ rejectedReservedRegister: 1, merges: 0 });
  });

  it('stops a tail at a convergent instruction (SHFL), keeping both copies of what precedes it', () => {
    const tail = `  %r4 = SHL %r3, 3
  %r5 = SHFL.IDX %r4, 0, 31
${TAIL7}`;
    const out = fold(diamond(tail));
    // The seven instructions after the SHFL merge; the SHFL and the SHL stay in both arms.
    expect(out.match(/SHFL/g)).toHaveLength(2);
    expect(out.match(/STG/g)).toHaveLength(1);
  });

  it('merges the tails of exit blocks (phase A), EXIT included', () => {
    const text = wrap(`bb0:
  %r2 = MOV c[0x0][0x218]
  %rd4 = MOV c[0x0][0x210]
  %p1 = ISETP.LT.U32.AND %r2, 5, PT
  @%p1 BRA bb2
bb1:
  %r3 = IMAD %r2, 7, RZ
${TAIL7}
  EXIT
bb2:
  %r3 = IMAD %r2, 9, RZ
${TAIL7}
  EXIT`);
    const { text: out, remarks } = foldWithRemarks(text);
    expect(out.match(/EXIT/g)).toHaveLength(1);
    expect(out.match(/STG/g)).toHaveLength(1);
    expect(remarks.find((r) => r.name === 'TailMerged')!.args).toMatchObject({ phase: 'A', length: 8 });
  });

  it('orders candidates unconditional before fall-through before conditional', () => {
    // bb3 has three predecessors: bb1 (unconditional BRA), bb2 (falls through) and bb0b (conditional branch to
    // bb9 that otherwise falls into bb3). bb1 and bb2 share 5 instructions; bb0b shares only 4 with them. The
    // unconditional leader bb1 merges with bb2 at length 5 first; bb0b keeps its copy.
    const five = `  %r5 = SHL %r4, 3
  %r6 = IADD3 %r5, %r2, RZ
  %r7 = IMAD %r6, %r6, RZ
  %r8 = LOP3.LUT %r7, 255, RZ, 60
  STG.E.32 [%rd4], %r8`;
    const four = five.replace('  %r5 = SHL %r4, 3\n', '');
    const text = wrap(`bb0:
  %r2 = MOV c[0x0][0x218]
  %rd4 = MOV c[0x0][0x210]
  %r4 = MOV 1
  %r5 = MOV 2
  %p1 = ISETP.LT.U32.AND %r2, 5, PT
  %p2 = ISETP.LT.U32.AND %r2, 9, PT
  @%p2 BRA bb0b
  @%p1 BRA bb2
bb1:
  %r4 = IADD3 %r2, 1, RZ
${five}
  BRA bb3
bb2:
  %r4 = IADD3 %r2, 2, RZ
${five}
  BRA bb3
bb0b:
  %r5 = IADD3 %r2, 3, RZ
${four}
  @%p1 BRA bb9
bb3:
  %r10 = MOV 0
  EXIT
bb9:
  EXIT`);
    const { text: out, remarks } = foldWithRemarks(text, { 'enable-tail-merge': 'true' });
    const merges = remarks.filter((r) => r.name === 'TailMerged');
    expect(merges[0]!.args).toMatchObject({ length: 5, blocks: 2 });
    expect(merges[0]!.message).toContain('bb1, bb2');
    // bb0b's conditional tail is not folded into the others.
    expect(out.match(/STG/g)).toHaveLength(2);
  });

  it('honours enable-tail-merge=false and disable-branch-fold, and rejects a bad tri-state value', () => {
    expect(fold(diamond(TAIL7), { 'enable-tail-merge': 'false' }).match(/STG/g)).toHaveLength(2);
    expect(fold(diamond(TAIL7), { 'disable-branch-fold': true })).toBe(normalizeOri(diamond(TAIL7)));
    expect(() => fold(diamond(TAIL7), { 'enable-tail-merge': 'maybe' })).toThrow(/enable-tail-merge expects unset, true or false/);
    expect(() => fold(diamond(TAIL7), { 'tail-merge-size': -1 })).toThrow(/non-negative/);
  });

  it('tail-merge-threshold caps the candidates: with 1 nothing merges', () => {
    expect(fold(diamond(TAIL7), { 'tail-merge-threshold': 1 }).match(/STG/g)).toHaveLength(2);
  });

  it('does not run at -O0', () => {
    const out = runPhaseOnText(diamond(TAIL7), phase(), { knobs: BRANCH_FOLDING_KNOBS, optLevel: 0 });
    expect(out).toBe(normalizeOri(diamond(TAIL7)));
  });
});

describe('OptimizeBranches', () => {
  const branchOnly = (text: string): string => fold(text, {}, 'ifcvt');

  it('bypasses a block that holds only an unconditional branch and drops the dead block', () => {
    const out = branchOnly(wrap(`bb0:
  %r1 = MOV c[0x0][0x218]
  %p1 = ISETP.EQ.AND %r1, 0, PT
  @%p1 BRA bb2
  BRA bb3
bb2:
  BRA bb4
bb3:
  %r2 = IADD3 %r1, 1, RZ
  BRA bb4
bb4:
  EXIT`));
    expect(out).not.toContain('bb2:');
    expect(out).toContain('@%p1 BRA bb4');
  });

  it('folds a conditional and an unconditional branch to the same block', () => {
    const out = branchOnly(wrap(`bb0:
  %r1 = MOV c[0x0][0x218]
  %p1 = ISETP.EQ.AND %r1, 0, PT
  @%p1 BRA bb2
  BRA bb2
bb1:
  EXIT
bb2:
  %r2 = MOV 1
  EXIT`));
    expect(out).not.toContain('@%p1 BRA');
  });

  it('reverses a condition whose target is the layout successor', () => {
    const out = branchOnly(wrap(`bb0:
  %r1 = MOV c[0x0][0x218]
  %p1 = ISETP.EQ.AND %r1, 0, PT
  @%p1 BRA bb1
  BRA bb2
bb1:
  %r2 = MOV 1
  EXIT
bb2:
  %r3 = MOV 2
  EXIT`));
    expect(out).toContain('@!%p1 BRA bb2');
    expect(out).not.toMatch(/^\s*BRA bb2/m);
  });

  it('splices a block into its only predecessor and removes the redundant branch', () => {
    const out = branchOnly(wrap(`bb0:
  %r1 = MOV c[0x0][0x218]
  BRA bb1
bb1:
  %r2 = IADD3 %r1, 1, RZ
  EXIT`));
    expect(out).toBe(normalizeOri(wrap(`bb0:
  %r1 = MOV c[0x0][0x218]
  %r2 = IADD3 %r1, 1, RZ
  EXIT`)));
  });

  it('moves an exit block to the end so that the conditional branch falls through (tail-block relocation)', () => {
    const out = branchOnly(wrap(`bb0:
  %r1 = MOV c[0x0][0x218]
  %p1 = ISETP.EQ.AND %r1, 0, PT
  @%p1 BRA bb2
bb1:
  %r9 = MOV 9
  EXIT
bb2:
  %r2 = IADD3 %r1, 1, RZ
  %p2 = ISETP.EQ.AND %r2, 3, PT
  @%p2 BRA bb2
bb3:
  EXIT`));
    // bb1 moved after bb3; bb0 now branches to it on the reversed condition and falls into bb2.
    expect(out.indexOf('bb1:')).toBeGreaterThan(out.indexOf('bb3:'));
    expect(out).toContain('@!%p1 BRA bb1');
  });

  it('leaves BSSY reconvergence blocks alone', () => {
    const text = wrap(`bb0:
  %b0 = BSSY bb2
  %r1 = MOV c[0x0][0x218]
  BRA bb2
bb2:
  BSYNC %b0
  EXIT`);
    expect(branchOnly(text)).toContain('bb2:');
  });
});

describe('HoistCommonCode', () => {
  it('hoists identical leading instructions of both successors into the branch block', () => {
    const out = fold(wrap(`bb0:
  %r1 = MOV c[0x0][0x218]
  %rd4 = MOV c[0x0][0x210]
  %p1 = ISETP.EQ.AND %r1, 0, PT
  @%p1 BRA bb2
bb1:
  %r2 = IADD3 %r1, 5, RZ
  %r3 = IADD3 %r2, 1, RZ
  STG.E.32 [%rd4], %r3
  EXIT
bb2:
  %r2 = IADD3 %r1, 5, RZ
  %r3 = IADD3 %r2, 2, RZ
  STG.E.32 [%rd4+4], %r3
  EXIT`), { 'enable-tail-merge': 'false' });
    expect(out.match(/IADD3 %r1, 5/g)).toHaveLength(1);
    expect(out.indexOf('IADD3 %r1, 5')).toBeLessThan(out.indexOf('BRA'));
  });

  it('does not hoist a write to the branch predicate or a convergent instruction', () => {
    const text = wrap(`bb0:
  %r1 = MOV c[0x0][0x218]
  %p1 = ISETP.EQ.AND %r1, 0, PT
  @%p1 BRA bb2
bb1:
  %p1 = ISETP.EQ.AND %r1, 7, PT
  %r5 = SHFL.IDX %r1, 0, 31
  EXIT
bb2:
  %p1 = ISETP.EQ.AND %r1, 7, PT
  %r5 = SHFL.IDX %r1, 0, 31
  EXIT`);
    const out = fold(text, { 'enable-tail-merge': 'false' });
    expect(out.match(/ISETP.EQ.AND %r1, 7/g)).toHaveLength(2);
  });
});

describe('BranchFolding on generated programs', () => {
  it('keeps results and reducibility on 60 fuzzer programs', () => {
    let changed = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const gen = generateProgram(seed);
      const m = parseOri(gen.text);
      const before = runKernel(m, gen.launch);
      expect(before.ok).toBe(true);
      const irrBefore = m.functions.map((f) => computeLoops(f).irreducibleEdges.length);
      for (const fn of m.functions) if (optimizeFunction(fn, DEFAULT_OPTIONS).changed) changed++;
      const after = runKernel(parseOri(printModule(m)), gen.launch);
      expect(after.ok, `seed ${seed}`).toBe(true);
      expect(JSON.stringify(after.buffers), `seed ${seed}`).toBe(JSON.stringify(before.buffers));
      expect(m.functions.map((f) => computeLoops(f).irreducibleEdges.length), `seed ${seed}`).toEqual(irrBefore);
    }
    expect(changed).toBeGreaterThan(0);
  }, 60_000); // 60 programs run twice in the interpreter: seconds on a loaded machine
});
