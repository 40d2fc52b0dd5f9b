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

  it('predicates a small exit arm into its branch (`@g body; @g BRA join`), as ptxas does to case bodies', () => {
    const tree = `bb0:
  %r0 = S2R SR_TID.X
  %r1 = MOV 5
  %p0 = ISETP.EQ.AND %r0, 1, PT
  @%p0 BRA case1
bb1:
  %p1 = ISETP.EQ.AND %r0, 2, PT
  @%p1 BRA case2
bb2:
  %r1 = MOV 9
  %r1 = IADD3 %r1, %r0, RZ
  %r1 = IADD3 %r1, %r0, RZ
  %r1 = IADD3 %r1, %r0, RZ
  %r1 = IADD3 %r1, %r0, RZ
  %r1 = IADD3 %r1, %r0, RZ
  %r1 = IADD3 %r1, %r0, RZ
  %r1 = IADD3 %r1, %r0, RZ
  %r1 = IADD3 %r1, %r0, RZ
  BRA join
case1:
  %r1 = IADD3 %r0, 1, RZ
  BRA join
case2:
  %r1 = IADD3 %r0, 100, RZ
  BRA join
join:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r1
  EXIT`;
    const out = run(tree);
    expect(out).toContain('@%p0 %r1 = IADD3 %r0, 1, RZ\n  @%p0 BRA join');
    expect(out).toContain('@%p1 %r1 = IADD3 %r0, 100, RZ\n  @%p1 BRA join');
    expect(out).not.toContain('case1:');
    expect(out).not.toContain('case2:');
    // The knob turns it off; the 'issue' cost model refuses it (skipping threads would issue the body).
    expect(run(tree, { OriPredicationExitArms: false })).toContain('case1:');
    expect(run(tree, { OriPredicationCostModel: 'issue' })).toContain('case1:');
  });

  it('leaves an exit arm alone when another block reaches it or the join has PHIs', () => {
    const shared = `bb0:
  %r0 = S2R SR_TID.X
  %r1 = MOV 5
  %p0 = ISETP.EQ.AND %r0, 1, PT
  @%p0 BRA case1
bb1:
  %p1 = ISETP.EQ.AND %r0, 2, PT
  @%p1 BRA case1
bb2:
  %r1 = MOV 9
  %r1 = IADD3 %r1, %r0, RZ
  %r1 = IADD3 %r1, %r0, RZ
  %r1 = IADD3 %r1, %r0, RZ
  %r1 = IADD3 %r1, %r0, RZ
  %r1 = IADD3 %r1, %r0, RZ
  %r1 = IADD3 %r1, %r0, RZ
  %r1 = IADD3 %r1, %r0, RZ
  %r1 = IADD3 %r1, %r0, RZ
  BRA join
case1:
  %r1 = IADD3 %r0, 1, RZ
  BRA join
join:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r1
  EXIT`;
    expect(run(shared)).toBe(normalizeOri(wrap(shared)));
  });
});
