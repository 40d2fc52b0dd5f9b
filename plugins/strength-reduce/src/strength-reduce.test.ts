import { describe, expect, it } from 'vitest';
import { normalizeOri, runPhaseOnText } from '@ptxforge/opt-utils';
import { StrengthReducePhase } from './index.js';

const wrap = (body: string): string => `.target sm_90
.entry @k(
  .param .u64 out c[0x0][0x210],
  .param .u32 n c[0x0][0x218]
)
{
${body}
}
`;

describe('OriStrengthReduce (21)', () => {
  it('turns i*12 + base into an additive induction variable and drops the dead counter', () => {
    const before = wrap(`bb0:
  %r0 = MOV 0
  %r5 = MOV 0
  %r9 = MOV c[0x0][0x218]
  %r8 = S2R SR_TID.X
  %r7 = IADD3 %r8, %r9, RZ
  BRA bb1
bb1:
  %r1 = IMAD %r0, 12, %r8
  %r5 = IADD3 %r5, %r1, RZ
  %r0 = IADD3 %r0, 1, RZ
  %p0 = ISETP.LT.AND %r5, %r7, PT
  @%p0 BRA bb1
bb2:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r5
  EXIT`);
    const after = wrap(`bb0:
  %r0 = MOV 0
  %r5 = MOV 0
  %r9 = MOV c[0x0][0x218]
  %r8 = S2R SR_TID.X
  %r7 = IADD3 %r8, %r9, RZ
  %r1 = IMAD %r0, 12, %r8
  BRA bb1
bb1:
  %r5 = IADD3 %r5, %r1, RZ
  %r1 = IADD3 %r1, 12, RZ
  %p0 = ISETP.LT.AND %r5, %r7, PT
  @%p0 BRA bb1
bb2:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r5
  EXIT`);
    expect(runPhaseOnText(before, new StrengthReducePhase())).toBe(normalizeOri(after));
  });

  it('leaves the loop alone when the counter is still needed (the exit test reads it)', () => {
    const before = wrap(`bb0:
  %r0 = MOV 0
  %r5 = MOV 0
  BRA bb1
bb1:
  %r1 = IMAD %r0, 12, RZ
  %r5 = IADD3 %r5, %r1, RZ
  %r0 = IADD3 %r0, 1, RZ
  %p0 = ISETP.LT.AND %r0, c[0x0][0x218], PT
  @%p0 BRA bb1
bb2:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r5
  EXIT`);
    expect(runPhaseOnText(before, new StrengthReducePhase())).toBe(normalizeOri(before));
  });
});
