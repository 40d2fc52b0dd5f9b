import { describe, expect, it } from 'vitest';
import { parseOri } from '@ptxforge/kernel';
import { makeTestContext, normalizeOri, runPhaseOnText } from '@ptxforge/opt-utils';
import { GeneralOptimizePhase, knobs } from './index.js';

const run = (text: string, disablePasses?: string): string =>
  runPhaseOnText(text, new GeneralOptimizePhase('early'), { knobs, ...(disablePasses ? { disablePasses } : {}) });

const wrap = (body: string): string => `.target sm_90
.entry @k(
  .param .u64 out c[0x0][0x210],
  .param .u32 n c[0x0][0x218]
)
{
${body}
}
`;
const expectOpt = (before: string, after: string, disable?: string): void => {
  expect(run(wrap(before), disable)).toBe(normalizeOri(wrap(after)));
};

describe('copy propagation', () => {
  it('propagates a single-def copy into dominated readers and drops the copy', () => {
    expectOpt(
      `bb0:
  %r0 = S2R SR_TID.X
  %r1 = MOV %r0
  %p0 = ISETP.EQ.AND %r1, 0, PT
  @%p0 BRA bb2
bb1:
  %r2 = IADD3 %r1, 1, RZ
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r2
bb2:
  EXIT`,
      `bb0:
  %r0 = S2R SR_TID.X
  %p0 = ISETP.EQ.AND %r0, 0, PT
  @%p0 BRA bb2
bb1:
  %r2 = IADD3 %r0, 1, RZ
  STG.E.32 [c[0x0][0x210]], %r2
bb2:
  EXIT`.replace('STG.E.32 [c[0x0][0x210]], %r2', '%rd0 = MOV c[0x0][0x210]\n  STG.E.32 [%rd0], %r2'),
    );
  });

  it('does not propagate past a redefinition of the source (multi-def register)', () => {
    expectOpt(
      `bb0:
  %r0 = S2R SR_TID.X
  %r1 = MOV %r0
  %r0 = IADD3 %r0, 1, RZ
  %r2 = IADD3 %r1, %r0, RZ
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r2
  EXIT`,
      `bb0:
  %r0 = S2R SR_TID.X
  %r1 = MOV %r0
  %r0 = IADD3 %r0, 1, RZ
  %r2 = IADD3 %r1, %r0, RZ
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r2
  EXIT`,
    );
  });

  it('treats a guarded redefinition of the copy as a possible change', () => {
    expectOpt(
      `bb0:
  %r0 = S2R SR_TID.X
  %p0 = ISETP.EQ.AND %r0, 3, PT
  %r1 = MOV %r0
  @%p0 %r1 = IADD3 %r0, 5, RZ
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r1
  EXIT`,
      `bb0:
  %r0 = S2R SR_TID.X
  %p0 = ISETP.EQ.AND %r0, 3, PT
  %r1 = MOV %r0
  @%p0 %r1 = IADD3 %r0, 5, RZ
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r1
  EXIT`,
    );
  });

  it('does not move a value across a loop back edge where the source changes', () => {
    // %r1 = MOV %r0 at the bottom of the loop; the read at the top sees the previous iteration's %r0.
    const body = `bb0:
  %r0 = MOV 0
  %r1 = MOV 0
bb1:
  %r3 = IADD3 %r1, 7, RZ
  %r0 = IADD3 %r0, 1, RZ
  %r1 = MOV %r0
  %p0 = ISETP.LT.AND %r0, 10, PT
  @%p0 BRA bb1
bb2:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r3
  EXIT`;
    const out = run(wrap(body));
    expect(out).toContain('%r3 = IADD3 %r1, 7, RZ');
  });
});

describe('constant propagation and simplification', () => {
  it('puts immediates and c-bank words into readers of the same width only', () => {
    expectOpt(
      `bb0:
  %r0 = S2R SR_TID.X
  %r1 = MOV 4
  %r2 = MOV c[0x0][0x218]
  %p0 = ISETP.GE.U32.AND %r0, %r2, PT
  @%p0 EXIT
bb1:
  %rd0 = IMAD.WIDE.U32 %r0, %r1, RZ
  %rd1 = MOV c[0x0][0x210]
  %rd2 = IADD3 %rd1, %rd0, RZ
  STG.E.32 [%rd2], %r0
  EXIT`,
      `bb0:
  %r0 = S2R SR_TID.X
  %r1 = MOV 4
  %p0 = ISETP.GE.U32.AND %r0, c[0x0][0x218], PT
  @%p0 EXIT
bb1:
  %rd2 = IMAD.WIDE.U32 %r0, %r1, c[0x0][0x210]
  STG.E.32 [%rd2], %r0
  EXIT`,
    );
  });

  it('fuses a product into every add that reads it (IMAD.WIDE base + i*4)', () => {
    expectOpt(
      `bb0:
  %r0 = S2R SR_TID.X
  %rd0 = IMAD.WIDE.U32 %r0, 4, RZ
  %rd1 = IADD3 c[0x0][0x210], %rd0, RZ
  %r1 = LDG.E.32 [%rd1]
  %rd2 = MOV c[0x0][0x210]
  %rd3 = IADD3 %rd2, %rd0, RZ
  %rd4 = IADD3 %rd3, 0x400, RZ
  STG.E.32 [%rd4], %r1
  EXIT`,
      `bb0:
  %r0 = S2R SR_TID.X
  %rd1 = IMAD.WIDE.U32 %r0, 4, c[0x0][0x210]
  %r1 = LDG.E.32 [%rd1]
  %rd3 = IMAD.WIDE.U32 %r0, 4, c[0x0][0x210]
  %rd4 = IADD3 %rd3, 0x400, RZ
  STG.E.32 [%rd4], %r1
  EXIT`,
    );
  });

  it('does not fuse when an operand of the product changes before the add', () => {
    const body = `bb0:
  %r0 = S2R SR_TID.X
  %rd0 = IMAD.WIDE.U32 %r0, 4, RZ
  %r0 = IADD3 %r0, 1, RZ
  %rd1 = IADD3 c[0x0][0x210], %rd0, RZ
  STG.E.32 [%rd1], %r0
  EXIT`;
    expect(run(wrap(body))).toContain('%rd0 = IMAD.WIDE.U32 %r0, 4, RZ');
  });

  it('simplifies identities: x+0, x*1+c, x*0+c, shift by 0, SEL with equal inputs, LOP3 with zero inputs', () => {
    expectOpt(
      `bb0:
  %r0 = S2R SR_TID.X
  %r1 = IADD3 %r0, RZ, 0
  %r2 = IMAD %r1, 1, %r0
  %r3 = IMAD %r2, 0, %r0
  %r4 = SHL %r3, 0
  %p0 = ISETP.EQ.AND %r4, 1, PT
  %r5 = SEL %r4, %r4, %p0
  %r6 = LOP3.LUT %r5, RZ, RZ, 0xfc
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r6
  STG.E.32 [%rd0+0x4], %r2
  EXIT`,
      `bb0:
  %r0 = S2R SR_TID.X
  %r2 = IADD3 %r0, %r0, RZ
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r0
  STG.E.32 [%rd0+0x4], %r2
  EXIT`,
    );
  });

  it('turns ISETP.EQ R0, R0 into true and drops the guard it fed', () => {
    expectOpt(
      `bb0:
  %r0 = S2R SR_TID.X
  %p0 = ISETP.EQ.AND %r0, %r0, PT
  %p1 = ISETP.NE.AND %r0, %r0, PT
  @%p1 %r0 = MOV 5
  @!%p0 BRA bb2
bb1:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r0
bb2:
  EXIT`,
      `bb0:
  %r0 = S2R SR_TID.X
bb1:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r0
bb2:
  EXIT`,
    );
  });

  it('can be switched off per sub-pass (--disable-passes OriCopyProp)', () => {
    const body = `bb0:
  %r0 = S2R SR_TID.X
  %r1 = MOV %r0
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r1
  EXIT`;
    expect(run(wrap(body), 'OriCopyProp')).toContain('%r1 = MOV %r0');
    expect(run(wrap(body))).not.toContain('%r1 = MOV %r0');
  });
});

describe('constant folding (interpreter semantics)', () => {
  it('folds integer, float and compare chains after propagation', () => {
    expectOpt(
      `bb0:
  %r0 = MOV 6
  %r1 = IMAD %r0, 7, 0x10
  %r2 = MOV 0f3F800000
  %r3 = FADD %r2, 0f40000000
  %r4 = SHR.S32 -8, 1
  %p0 = ISETP.LT.U32.AND %r4, 5, PT
  @%p0 %r1 = MOV 0
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r1
  STG.E.32 [%rd0+0x4], %r3
  STG.E.32 [%rd0+0x8], %r4
  EXIT`,
      `bb0:
  %r1 = MOV 58
  %r3 = MOV 0f40400000
  %r4 = MOV -4
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r1
  STG.E.32 [%rd0+0x4], %r3
  STG.E.32 [%rd0+0x8], %r4
  EXIT`,
    );
  });

  it('keeps IEEE rules: a NaN compare is false for ordered EQ and 0*inf gives NaN', () => {
    const out = run(
      wrap(`bb0:
  %r0 = FMUL 0f00000000, 0f7F800000
  %p0 = FSETP.EQ.AND %r0, %r0, PT
  %r1 = SEL 1, 2, %p0
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r1
  STG.E.32 [%rd0+0x4], %r0
  EXIT`),
    );
    expect(out).toContain('%r1 = MOV 2');
    expect(out).toMatch(/%r0 = MOV 0f7FFFFFFF|%r0 = MOV 0fFFC00000|%r0 = MOV 0f7FC00000/);
  });
});

describe('fixed point between bundles', () => {
  it('issue #16 row 4 at full size (one register defined 20k times): a bundle on an unchanged fixed point is skipped', () => {
    const body = ['bb0:', '  %r2 = S2R SR_CTAID.X', '  %r3 = MOV 0', '  %r5 = MOV 3'];
    for (let i = 0; i < 20000; i++) {
      if (i % 2) body.push(`  %r3 = IMAD %r4, ${i}, %r3`, `  %r4 = IADD3 %r2, ${i}, RZ`);
      else body.push(`  %r4 = IMAD %r2, %r5, RZ`);
    }
    body.push('  %rd0 = MOV c[0x0][0x210]', '  STG.E.32 [%rd0], %r3', '  EXIT');
    const m = parseOri(wrap(body.join('\n')));
    const fn = m.functions[0]!;
    // Work done = reads of the function's block list (every sub-pass starts with one).
    const blocks = fn.blocks;
    let walks = 0;
    Object.defineProperty(fn, 'blocks', { get: () => (walks++, blocks) });
    const ctx = makeTestContext(m, { knobs });
    const early = new GeneralOptimizePhase('early');
    early.execute(ctx); // the constant 3 reaches every IMAD
    expect(fn.instructionCount).toBe(30005); // the MOV of the constant is gone
    expect([...fn.instructions()].some((i) => i.uses.some((u) => u.kind === 'reg' && u.reg.name === '%r5'))).toBe(false);
    const version = fn.irVersion;
    const w1 = walks;
    new GeneralOptimizePhase('late').execute(ctx);
    new GeneralOptimizePhase('late2').execute(ctx);
    expect(fn.irVersion).toBe(version);
    expect(walks).toBe(w1);
    // a change makes the next bundle look again
    fn.blocks[0]!.remove(fn.blocks[0]!.instrs[0]!);
    early.execute(ctx);
    expect(walks).toBeGreaterThan(w1);
    const w2 = walks;
    early.execute(ctx);
    expect(walks).toBe(w2);
    // another configuration (a sub-pass disabled) is another bundle, but each of its sub-passes is a fixed
    // point on its own here: nothing walks either
    early.execute(makeTestContext(m, { knobs, disablePasses: 'OriFuseMulAdd' }));
    expect(walks).toBe(w2);
  });
});

