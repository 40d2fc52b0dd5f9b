import { describe, expect, it } from 'vitest';
import { normalizeOri, runPhaseOnText, makeTestContext } from '@ptxforge/opt-utils';
import { parseOri } from '@ptxforge/kernel';
import { knobs, OriBranchOpt, optimizeBranches } from './index.js';

const wrap = (body: string): string => `.target sm_90
.entry @k(
  .param .u64 out c[0x0][0x210]
)
{
${body}
}
`;
const run = (t: string, knobValues: Record<string, boolean | number | string> = {}): string =>
  runPhaseOnText(wrap(t), new OriBranchOpt(), { knobs, knobValues });
const same = (t: string): string => normalizeOri(wrap(t));

describe('OriBranchOpt (15)', () => {
  it('folds an unconditional branch to the next block (transformation 1)', () => {
    expect(
      run(`bb0:
  %r0 = S2R SR_TID.X
  BRA bb1
bb1:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r0
  EXIT`),
    ).toBe(
      same(`bb0:
  %r0 = S2R SR_TID.X
bb1:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r0
  EXIT`),
    );
  });

  it("inverts `@p BRA next; BRA else` into `@!p BRA else` (nvcc's if/else shape, transformation 1)", () => {
    expect(
      run(`bb0:
  %r0 = S2R SR_TID.X
  %p0 = ISETP.GT.S32.AND %r0, 7, PT
  @%p0 BRA then
  BRA.U else
then:
  %r1 = MOV 1
  BRA.U join
else:
  %r1 = MOV 2
join:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r1
  EXIT`),
    ).toBe(
      same(`bb0:
  %r0 = S2R SR_TID.X
  %p0 = ISETP.GT.S32.AND %r0, 7, PT
  @!%p0 BRA else
then:
  %r1 = MOV 1
  BRA.U join
else:
  %r1 = MOV 2
join:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r1
  EXIT`),
    );
  });

  it('deletes unreachable blocks with the cascade through single-predecessor successors (transformation 2)', () => {
    const m = parseOri(
      wrap(`bb0:
  %r0 = S2R SR_TID.X
  BRA bb3
bb1:
  %r1 = MOV 1
  BRA bb2
bb2:
  %r0 = MOV %r1
bb3:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r0
  EXIT`),
    );
    const s = optimizeBranches(m.functions[0]!);
    expect(s.unreachable).toBe(2);
    expect(m.functions[0]!.blocks.map((b) => b.label)).toEqual(['bb0', 'bb3']);
    expect(s.folded).toBe(1); // bb0's BRA bb3 falls through once bb1/bb2 are gone
  });

  it('makes an always-true condition unconditional and deletes the tautology (transformation 3)', () => {
    expect(
      run(`bb0:
  %r0 = S2R SR_TID.X
  %p0 = ISETP.EQ.AND %r0, %r0, PT
  @%p0 BRA bb2
  BRA bb1
bb1:
  %r0 = MOV 5
bb2:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r0
  EXIT`),
    ).toBe(
      same(`bb0:
  %r0 = S2R SR_TID.X
bb2:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r0
  EXIT`),
    );
  });

  it('deletes an always-false conditional branch (constant operands)', () => {
    expect(
      run(`bb0:
  %r0 = S2R SR_TID.X
  %p0 = ISETP.GT.U32.AND 3, 7, PT
  @%p0 BRA bb2
bb1:
  %r0 = MOV 5
bb2:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r0
  EXIT`),
    ).toBe(
      same(`bb0:
  %r0 = S2R SR_TID.X
bb1:
  %r0 = MOV 5
bb2:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r0
  EXIT`),
    );
  });

  it('drops the condition when both targets are the same block (transformation 3)', () => {
    expect(
      run(`bb0:
  %r0 = S2R SR_TID.X
  %p0 = ISETP.LT.AND %r0, 4, PT
  @%p0 BRA bb2
  BRA bb2
bb1:
  %r0 = MOV 5
bb2:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r0
  EXIT`),
    ).toBe(
      same(`bb0:
  %r0 = S2R SR_TID.X
  %p0 = ISETP.LT.AND %r0, 4, PT
bb2:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r0
  EXIT`),
    );
  });

  it('threads a branch through a chain of branch-only blocks (transformation 4)', () => {
    const out = run(`bb0:
  %r0 = S2R SR_TID.X
  %p0 = ISETP.LT.AND %r0, 4, PT
  @%p0 BRA bb3
bb1:
  %r0 = MOV 5
  BRA bb5
bb3:
  BRA bb4
bb4:
  BRA bb5
bb5:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r0
  EXIT`);
    expect(out).toBe(
      same(`bb0:
  %r0 = S2R SR_TID.X
  %p0 = ISETP.LT.AND %r0, 4, PT
  @%p0 BRA bb5
bb1:
  %r0 = MOV 5
bb5:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r0
  EXIT`),
    );
  });

  it('stops threading at the depth limit on a cycle of empty blocks', () => {
    const m = parseOri(
      wrap(`bb0:
  %r0 = S2R SR_TID.X
  %p0 = ISETP.LT.AND %r0, 4, PT
  @%p0 BRA bb1
  EXIT
bb1:
  BRA bb2
bb2:
  BRA bb1`),
    );
    const s = optimizeBranches(m.functions[0]!, { convergence: true, maxThreadDepth: 4 });
    // The branch ends up at some block of the cycle; the program still loops forever for those threads.
    const fn = m.functions[0]!;
    const target = fn.blocks[0]!.instrs.find((i) => i.opcode === 'BRA')!.labelTargets()[0]!;
    expect(['bb1', 'bb2']).toContain(target.label);
    expect(s.threaded).toBeLessThanOrEqual(8);
  });

  it('examines each block once when the convergence knob is off', () => {
    const text = `bb0:
  %r0 = S2R SR_TID.X
  %p0 = ISETP.LT.AND %r0, 4, PT
  @%p0 BRA bb3
  BRA bb3
bb3:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r0
  EXIT`;
    const on = parseOri(wrap(text));
    const off = parseOri(wrap(text));
    const sOn = optimizeBranches(on.functions[0]!, { convergence: true, maxThreadDepth: 8 });
    const sOff = optimizeBranches(off.functions[0]!, { convergence: false, maxThreadDepth: 8 });
    expect(sOn.equalTargets + sOn.folded).toBe(2);
    expect(sOff.equalTargets).toBe(1); // one rewrite on bb0, then on to the next block
  });

  it('turns a branch to a block that only exits into a guarded EXIT', () => {
    expect(
      run(`bb0:
  %r0 = S2R SR_TID.X
  %p0 = ISETP.GE.AND %r0, c[0x0][0x0], PT
  @%p0 BRA bb2
bb1:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r0
bb2:
  EXIT`),
    ).toBe(
      same(`bb0:
  %r0 = S2R SR_TID.X
  %p0 = ISETP.GE.AND %r0, c[0x0][0x0], PT
  @%p0 EXIT
bb1:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r0
bb2:
  EXIT`),
    );
  });

  it('threads every entry of a BRX label table', () => {
    const out = run(`bb0:
  %r0 = S2R SR_TID.X
  %r1 = LOP3.LUT %r0, 1, RZ, 0xc0
  BRX %r1, (bb1, bb2)
bb1:
  BRA bb3
bb2:
  %r0 = MOV 9
bb3:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r0
  EXIT`);
    expect(out).toContain('BRX %r1, (bb3, bb2)');
    expect(out).not.toContain('bb1:');
  });

  it('is skipped by the disable knob and reports what it did as a remark', () => {
    const text = wrap(`bb0:
  %r0 = S2R SR_TID.X
  BRA bb1
bb1:
  EXIT`);
    expect(run(text.slice(0, 0) + `bb0:
  BRA bb1
bb1:
  EXIT`, { OriBranchOptDisable: true })).toContain('BRA bb1');
    const m = parseOri(text);
    const ctx = makeTestContext(m, { knobs });
    new OriBranchOpt().execute(ctx);
    expect(ctx.remarks).toHaveLength(1);
    expect(ctx.remarks[0]!.args).toMatchObject({ threaded: 1, unreachable: 1 }); // BRA bb1 → EXIT, bb1 deleted
  });
});
