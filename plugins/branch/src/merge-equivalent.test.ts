import { describe, expect, it } from 'vitest';
import { parseOri, printModule } from '@ptxforge/kernel';
import { makeTestContext, normalizeOri, runPhaseOnText } from '@ptxforge/opt-utils';
import { runKernel } from '@ptxforge/interp';
import { knobs, MergeEquivalentConditionalFlow } from './index.js';

const wrap = (body: string): string => `.target sm_90
.entry @k(
  .param .u64 out c[0x0][0x210]
)
{
${body}
}
`;

describe('MergeEquivalentConditionalFlow (133) / Late… (136)', () => {
  const diamond = `bb0:
  %r0 = S2R SR_TID.X
  %p0 = ISETP.LT.AND %r0, 5, PT
  @%p0 BRA bb2
bb1:
  %r1 = IADD3 %r0, 3, RZ
  BRA bb3
bb2:
  %r1 = IADD3 %r0, 3, RZ
  BRA bb3
bb3:
  %rd0 = MOV c[0x0][0x210]
  %rd1 = IMAD.WIDE.U32 %r0, 4, %rd0
  STG.E.32 [%rd1], %r1
  EXIT`;

  it('merges identical blocks with identical targets; the branch between them goes away', () => {
    const out = runPhaseOnText(wrap(diamond), new MergeEquivalentConditionalFlow(), { knobs });
    expect(out).toBe(
      normalizeOri(
        wrap(`bb0:
  %r0 = S2R SR_TID.X
  %p0 = ISETP.LT.AND %r0, 5, PT
bb1:
  %r1 = IADD3 %r0, 3, RZ
bb3:
  %rd0 = MOV c[0x0][0x210]
  %rd1 = IMAD.WIDE.U32 %r0, 4, %rd0
  STG.E.32 [%rd1], %r1
  EXIT`),
      ),
    );
    const m = parseOri(wrap(diamond));
    const before = runKernel(parseOri(wrap(diamond)), { grid: 1, block: 32, buffers: { out: { type: 'u32', count: 32 } }, params: [{ buffer: 'out' }] });
    const ctx = makeTestContext(m, { knobs });
    new MergeEquivalentConditionalFlow(true).execute(ctx);
    const after = runKernel(m, { grid: 1, block: 32, buffers: { out: { type: 'u32', count: 32 } }, params: [{ buffer: 'out' }] });
    expect(Array.from(after.buffers.out!.bytes)).toEqual(Array.from(before.buffers.out!.bytes));
    expect(ctx.remarks[0]).toMatchObject({ name: 'EquivalentBlocksMerged', args: { merged: 1, equalTargets: 1 } });
  });

  it('does not merge blocks that differ in a register, or that fall into different blocks', () => {
    const differ = diamond.replace('bb2:\n  %r1 = IADD3 %r0, 3, RZ', 'bb2:\n  %r1 = IADD3 %r0, 4, RZ');
    expect(runPhaseOnText(wrap(differ), new MergeEquivalentConditionalFlow(), { knobs })).toBe(normalizeOri(wrap(differ)));
    const m = parseOri(
      wrap(`bb0:
  %r0 = S2R SR_TID.X
  %p0 = ISETP.LT.AND %r0, 5, PT
  @%p0 BRA bb2
bb1:
  %r1 = MOV 1
bb4:
  %r1 = IADD3 %r1, 1, RZ
  BRA bb3
bb2:
  %r1 = MOV 1
bb3:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r1
  EXIT`),
    );
    const before = printModule(m);
    new MergeEquivalentConditionalFlow().execute(makeTestContext(m, { knobs }));
    expect(printModule(m)).toBe(before);
  });
});
