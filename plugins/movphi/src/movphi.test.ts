import { describe, expect, it } from 'vitest';
import { normalizeOri, runPhaseOnText } from '@ptxforge/opt-utils';
import { ConvertAllMovPhiToMovPhase, GenerateMovPhiPhase } from './index.js';

const wrap = (body: string): string => `.target sm_90
.entry @k(
  .param .u64 out c[0x0][0x210]
)
{
${body}
}
`;
const loop = wrap(`bb0:
  %r0 = MOV 0
  BRA bb1
bb1:
  %r1 = PHI %r0, bb0, %r2, bb1
  %r2 = IADD3 %r1, 1, RZ
  %p0 = ISETP.LT.AND %r2, 10, PT
  @%p0 BRA bb1
bb2:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r2
  EXIT`);

describe('GenerateMovPhi (23)', () => {
  it('puts MOVPHI copies on the incoming edges, splitting the critical back edge', () => {
    const out = runPhaseOnText(loop, new GenerateMovPhiPhase());
    expect(out).toBe(
      normalizeOri(
        wrap(`bb0:
  %r0 = MOV 0
  %r1 = MOVPHI %r0
  BRA bb1
bb1:
  %r2 = IADD3 %r1, 1, RZ
  %p0 = ISETP.LT.AND %r2, 10, PT
  @%p0 BRA bb3
  BRA bb2
bb3:
  %r1 = MOVPHI %r2
  BRA bb1
bb2:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r2
  EXIT`),
      ),
    );
  });

  it('uses a temporary when a PHI reads another PHI register of its block (swap)', () => {
    const swap = wrap(`bb0:
  %r0 = MOV 1
  %r1 = MOV 2
  %p0 = PLOP3.LUT PT, PT, PT, 0xff, 0x0
  BRA bb1
bb1:
  %r2 = PHI %r0, bb0, %r3, bb1
  %r3 = PHI %r1, bb0, %r2, bb1
  %p1 = ISETP.LT.AND %r2, 10, PT
  @%p1 BRA bb1
bb2:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r3
  EXIT`);
    const out = runPhaseOnText(swap, new ConvertAllMovPhiToMovPhase());
    expect(out).not.toContain('PHI');
    // Each PHI reads through its own temporary, copied at the top of the loop header.
    expect(out).toMatch(/bb1:\n\s+%r2 = MOV %r\d+\n\s+%r3 = MOV %r\d+/);
  });
});

describe('ConvertAllMovPhiToMov (73)', () => {
  it('turns MOVPHI into MOV and predicate MOVPHI into COPY', () => {
    const before = wrap(`bb0:
  %r0 = MOVPHI 3
  %p0 = MOVPHI PT
  @%p0 BRA bb1
bb1:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r0
  EXIT`);
    expect(runPhaseOnText(before, new ConvertAllMovPhiToMovPhase())).toBe(
      normalizeOri(
        wrap(`bb0:
  %r0 = MOV 3
  %p0 = COPY PT
  @%p0 BRA bb1
bb1:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r0
  EXIT`),
      ),
    );
  });
});
