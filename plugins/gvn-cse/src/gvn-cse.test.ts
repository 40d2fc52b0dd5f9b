import { describe, expect, it } from 'vitest';
import { normalizeOri, runPhaseOnText } from '@ptxforge/opt-utils';
import { GvnCsePhase } from './index.js';

const wrap = (body: string): string => `.target sm_90
.entry @k(
  .param .u64 out c[0x0][0x210]
)
{
${body}
}
`;

describe('GvnCse (49)', () => {
  it('reuses a dominating computation (commuted operands too) and keeps loads', () => {
    const before = wrap(`bb0:
  %r0 = S2R SR_TID.X
  %r1 = S2R SR_TID.X
  %r2 = IMAD %r0, 4, RZ
  %rd0 = MOV c[0x0][0x210]
  %r3 = LDG.E.32 [%rd0]
  %p0 = ISETP.EQ.AND %r0, 0, PT
  @%p0 BRA bb2
bb1:
  %r4 = IMAD 4, %r0, RZ
  %r5 = LDG.E.32 [%rd0]
  STG.E.32 [%rd0], %r4
  STG.E.32 [%rd0+0x4], %r5
bb2:
  STG.E.32 [%rd0+0x8], %r2
  STG.E.32 [%rd0+0xc], %r1
  STG.E.32 [%rd0+0x10], %r3
  EXIT`);
    const after = wrap(`bb0:
  %r0 = S2R SR_TID.X
  %r2 = IMAD %r0, 4, RZ
  %rd0 = MOV c[0x0][0x210]
  %r3 = LDG.E.32 [%rd0]
  %p0 = ISETP.EQ.AND %r0, 0, PT
  @%p0 BRA bb2
bb1:
  %r5 = LDG.E.32 [%rd0]
  STG.E.32 [%rd0], %r2
  STG.E.32 [%rd0+0x4], %r5
bb2:
  STG.E.32 [%rd0+0x8], %r2
  STG.E.32 [%rd0+0xc], %r0
  STG.E.32 [%rd0+0x10], %r3
  EXIT`);
    expect(runPhaseOnText(before, new GvnCsePhase())).toBe(normalizeOri(after));
  });

  it('does not merge computations in sibling branches or over multi-def operands', () => {
    const before = wrap(`bb0:
  %r0 = S2R SR_TID.X
  %r9 = MOV 1
  %p0 = ISETP.EQ.AND %r0, 0, PT
  @%p0 BRA bb2
bb1:
  %r1 = IADD3 %r0, 1, RZ
  %r9 = IADD3 %r0, 7, RZ
  BRA bb3
bb2:
  %r2 = IADD3 %r0, 1, RZ
bb3:
  %r3 = IADD3 %r9, 5, RZ
  %r4 = IADD3 %r9, 5, RZ
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r3
  STG.E.32 [%rd0+0x4], %r4
  EXIT`);
    expect(runPhaseOnText(before, new GvnCsePhase())).toBe(normalizeOri(before));
  });
});
