import { describe, expect, it } from 'vitest';
import { normalizeOri, runPhaseOnText } from '@ptxforge/opt-utils';
import { BackCopyPropagatePhase, RemoveRedundantMultiDefMovPhase, ReplaceEquivMultiDefMovPhase } from './index.js';

const wrap = (body: string): string => `.target sm_90
.entry @k(
  .param .u64 out c[0x0][0x210]
)
{
${body}
}
`;

describe('OriReplaceEquivMultiDefMov (52)', () => {
  it('removes a move whose destination already holds the value on every path', () => {
    const before = wrap(`bb0:
  %r0 = S2R SR_TID.X
  %r1 = MOV %r0
  %p0 = ISETP.EQ.AND %r0, 0, PT
  @%p0 BRA bb2
bb1:
  %r2 = IADD3 %r0, 1, RZ
bb2:
  %r1 = MOV %r0
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r1
  EXIT`);
    const after = wrap(`bb0:
  %r0 = S2R SR_TID.X
  %r1 = MOV %r0
  %p0 = ISETP.EQ.AND %r0, 0, PT
  @%p0 BRA bb2
bb1:
  %r2 = IADD3 %r0, 1, RZ
bb2:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r1
  EXIT`);
    expect(runPhaseOnText(before, new ReplaceEquivMultiDefMovPhase())).toBe(normalizeOri(after));
  });

  it('keeps the move when one path changed the destination (guarded def included)', () => {
    const before = wrap(`bb0:
  %r0 = S2R SR_TID.X
  %r1 = MOV 7
  %p0 = ISETP.EQ.AND %r0, 0, PT
  @%p0 %r1 = MOV 3
  %r1 = MOV 7
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r1
  EXIT`);
    expect(runPhaseOnText(before, new ReplaceEquivMultiDefMovPhase())).toBe(normalizeOri(before));
  });
});

describe('OriRemoveRedundantMultiDefMov (62)', () => {
  it('removes moves into a register overwritten before any read', () => {
    const before = wrap(`bb0:
  %r0 = S2R SR_TID.X
  %r1 = MOV %r0
  %r1 = IADD3 %r0, 2, RZ
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r1
  EXIT`);
    const after = wrap(`bb0:
  %r0 = S2R SR_TID.X
  %r1 = IADD3 %r0, 2, RZ
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r1
  EXIT`);
    expect(runPhaseOnText(before, new RemoveRedundantMultiDefMovPhase())).toBe(normalizeOri(after));
  });
});

describe('OriBackCopyPropagate (83)', () => {
  it('writes the result straight into the copy destination', () => {
    const before = wrap(`bb0:
  %r0 = MOV 0
bb1:
  %r1 = IADD3 %r0, 1, RZ
  %r0 = MOV %r1
  %p0 = ISETP.LT.AND %r0, 10, PT
  @%p0 BRA bb1
bb2:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r0
  EXIT`);
    const after = wrap(`bb0:
  %r0 = MOV 0
bb1:
  %r0 = IADD3 %r0, 1, RZ
  %p0 = ISETP.LT.AND %r0, 10, PT
  @%p0 BRA bb1
bb2:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r0
  EXIT`);
    expect(runPhaseOnText(before, new BackCopyPropagatePhase())).toBe(normalizeOri(after));
  });

  it('does not rename when the destination is read in between', () => {
    const before = wrap(`bb0:
  %r0 = S2R SR_TID.X
  %r1 = IADD3 %r0, 1, RZ
  %r2 = IADD3 %r0, 5, RZ
  %r0 = MOV %r1
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r0
  STG.E.32 [%rd0+0x4], %r2
  EXIT`);
    expect(runPhaseOnText(before, new BackCopyPropagatePhase())).toBe(normalizeOri(before));
  });
});
