import { describe, expect, it } from 'vitest';
import { normalizeOri, runPhaseOnText } from '@ptxforge/opt-utils';
import { knobs, PredicationPhase } from './index.js';

const wrap = (body: string): string => `.target sm_90
.entry @k(
  .param .u64 out c[0x0][0x210]
)
{
${body}
}
`;
const run = (t: string, knobValues: Record<string, boolean | number | string> = {}): string =>
  runPhaseOnText(wrap(t), new PredicationPhase(), { knobs, knobValues });

describe('OriDoPredication (63)', () => {
  it('turns a diamond of moves into a SEL', () => {
    expect(
      run(`bb0:
  %r0 = S2R SR_TID.X
  %p0 = ISETP.LT.AND %r0, 16, PT
  @%p0 BRA bb2
bb1:
  %r1 = MOV 7
  BRA bb3
bb2:
  %r1 = MOV %r0
bb3:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r1
  EXIT`),
    ).toBe(
      normalizeOri(
        wrap(`bb0:
  %r0 = S2R SR_TID.X
  %p0 = ISETP.LT.AND %r0, 16, PT
  %r1 = SEL %r0, 7, %p0
bb3:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r1
  EXIT`),
      ),
    );
  });

  it('guards a one-instruction triangle (a guarded store is exact)', () => {
    expect(
      run(`bb0:
  %r0 = S2R SR_TID.X
  %rd0 = MOV c[0x0][0x210]
  %p0 = ISETP.NE.AND %r0, 0, PT
  @%p0 BRA bb2
bb1:
  STG.E.32 [%rd0], %r0
bb2:
  EXIT`),
    ).toBe(
      normalizeOri(
        wrap(`bb0:
  %r0 = S2R SR_TID.X
  %rd0 = MOV c[0x0][0x210]
  %p0 = ISETP.NE.AND %r0, 0, PT
  @!%p0 STG.E.32 [%rd0], %r0
bb2:
  EXIT`),
      ),
    );
  });

  it('refuses arms with barriers, arms redefining the condition, and paths it would lengthen', () => {
    const bar = `bb0:
  %r0 = S2R SR_TID.X
  %p0 = ISETP.NE.AND %r0, 0, PT
  @%p0 BRA bb2
bb1:
  BAR.SYNC 0
bb2:
  EXIT`;
    expect(run(bar)).toBe(normalizeOri(wrap(bar)));
    const redef = `bb0:
  %r0 = S2R SR_TID.X
  %p0 = ISETP.NE.AND %r0, 0, PT
  @%p0 BRA bb2
bb1:
  %p0 = ISETP.EQ.AND %r0, 5, PT
bb2:
  @%p0 EXIT
bb3:
  EXIT`;
    expect(run(redef)).toBe(normalizeOri(wrap(redef)));
    const long = `bb0:
  %r0 = S2R SR_TID.X
  %rd0 = MOV c[0x0][0x210]
  %p0 = ISETP.NE.AND %r0, 0, PT
  @%p0 BRA bb2
bb1:
  %r1 = IADD3 %r0, 3, RZ
  STG.E.32 [%rd0], %r1
bb2:
  EXIT`;
    // Counting issue slots, the threads that skip the arm would now issue two instructions instead of one.
    expect(run(long, { OriPredicationCostModel: 'issue' })).toBe(normalizeOri(wrap(long)));
    // Counting thread-instructions (guard-true lanes, the interpreter's measure) no thread does more work.
    expect(run(long)).toContain('@!%p0 STG.E.32 [%rd0], %r1');
    // Arms above the size threshold stay branches.
    expect(run(long, { OriPredicationMaxArmInstrs: 1 })).toBe(normalizeOri(wrap(long)));
  });
});
