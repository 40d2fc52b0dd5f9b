import { describe, expect, it } from 'vitest';
import { parseOri } from '@ptxforge/kernel';
import { makeTestContext, normalizeOri, runPhaseOnText } from '@ptxforge/opt-utils';
import { knobs, LiveDeadPhase } from './index.js';

const run = (text: string, mode: 'simple' | 'full' = 'full'): string => runPhaseOnText(text, new LiveDeadPhase(mode), { knobs });

const wrap = (body: string): string => `.target sm_90
.entry @k(
  .param .u64 out c[0x0][0x210]
)
{
${body}
}
`;

describe('LiveDeadPhase', () => {
  it('removes an unused computation and keeps stores', () => {
    const before = wrap(`bb0:
  %r0 = S2R SR_TID.X
  %r1 = IADD3 %r0, 1, RZ
  %r2 = IMAD %r0, %r0, RZ
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r1
  EXIT`);
    expect(run(before)).toBe(
      normalizeOri(
        wrap(`bb0:
  %r0 = S2R SR_TID.X
  %r1 = IADD3 %r0, 1, RZ
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r1
  EXIT`),
      ),
    );
  });

  it('removes an instruction whose only effect is an unused predicate', () => {
    const before = wrap(`bb0:
  %r0 = S2R SR_TID.X
  %p0 = ISETP.EQ.AND %r0, %r0, PT
  EXIT`);
    expect(run(before, 'simple')).toBe(normalizeOri(wrap(`bb0:
  EXIT`)));
  });

  it('removes a dead induction cycle (def-use marking)', () => {
    const before = wrap(`bb0:
  %r0 = MOV 0
  %r1 = MOV 0
bb1:
  %r0 = IADD3 %r0, 1, RZ
  %r1 = IADD3 %r1, 2, RZ
  %p0 = ISETP.LT.AND %r0, 10, PT
  @%p0 BRA bb1
bb2:
  EXIT`);
    expect(run(before)).toBe(
      normalizeOri(
        wrap(`bb0:
  %r0 = MOV 0
bb1:
  %r0 = IADD3 %r0, 1, RZ
  %p0 = ISETP.LT.AND %r0, 10, PT
  @%p0 BRA bb1
bb2:
  EXIT`),
      ),
    );
  });

  it('removes a def overwritten before any read, but not one a guarded def lets through', () => {
    const before = wrap(`bb0:
  %r0 = S2R SR_TID.X
  %r1 = MOV 1
  %r1 = MOV 2
  %r2 = MOV 3
  %p0 = ISETP.EQ.AND %r0, 0, PT
  @%p0 %r2 = MOV 4
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r1
  STG.E.32 [%rd0+0x4], %r2
  EXIT`);
    expect(run(before)).toBe(
      normalizeOri(
        wrap(`bb0:
  %r0 = S2R SR_TID.X
  %r1 = MOV 2
  %r2 = MOV 3
  %p0 = ISETP.EQ.AND %r0, 0, PT
  @%p0 %r2 = MOV 4
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r1
  STG.E.32 [%rd0+0x4], %r2
  EXIT`),
      ),
    );
    // The simple (early) form only marks def-use chains, so it keeps the overwritten def.
    expect(run(before, 'simple')).toContain('%r1 = MOV 1');
  });

  it('keeps barriers, atomics, clock reads and volatile loads', () => {
    const before = wrap(`bb0:
  %rd0 = MOV c[0x0][0x210]
  %r0 = ATOMG.ADD.U32 [%rd0], 1
  %r1 = S2R SR_CLOCKLO
  %r2 = LDG.E.32.STRONG.GPU [%rd0]
  %r3 = LDG.E.32 [%rd0]
  BAR.SYNC 0
  EXIT`);
    expect(run(before)).toBe(
      normalizeOri(
        wrap(`bb0:
  %rd0 = MOV c[0x0][0x210]
  %r0 = ATOMG.ADD.U32 [%rd0], 1
  %r1 = S2R SR_CLOCKLO
  %r2 = LDG.E.32.STRONG.GPU [%rd0]
  BAR.SYNC 0
  EXIT`),
      ),
    );
  });

  it('deletes unreachable blocks', () => {
    const before = wrap(`bb0:
  BRA bb2
bb1:
  %r0 = MOV 1
  BRA bb2
bb2:
  EXIT`);
    expect(run(before)).toBe(normalizeOri(wrap(`bb0:
  BRA bb2
bb2:
  EXIT`)));
  });

  it('issue #16 row 4 at full size (one register defined 20k times): a repeat on the unchanged function is skipped', () => {
    const body = ['bb0:', '  %r2 = S2R SR_CTAID.X', '  %r3 = MOV 0'];
    for (let i = 0; i < 20000; i++) {
      if (i % 2) body.push(`  %r3 = IMAD %r4, ${i}, %r3`, `  %r4 = IADD3 %r2, ${i}, RZ`);
      else body.push(`  %r4 = IMAD %r2, ${i}, RZ`);
    }
    body.push('  %rd0 = MOV c[0x0][0x210]', '  STG.E.32 [%rd0], %r3', '  EXIT');
    const m = parseOri(wrap(body.join('\n')));
    const fn = m.functions[0]!;
    // Work done = walks over the function's instructions (sweepDeadInstructions starts with one).
    let walks = 0;
    const all = fn.instructions.bind(fn);
    fn.instructions = () => (walks++, all());
    const ctx = makeTestContext(m, { knobs });
    const phase = new LiveDeadPhase('full');
    const before = fn.instructionCount;
    phase.execute(ctx); // every IADD3 is overwritten before it is read
    expect(before - fn.instructionCount).toBe(10000);
    expect(walks).toBeGreaterThan(0);
    const version = fn.irVersion;
    const w1 = walks;
    phase.execute(ctx); // finds nothing (and remembers that)
    expect(fn.irVersion).toBe(version);
    expect(walks).toBeGreaterThan(w1);
    const w2 = walks;
    phase.execute(ctx);
    phase.execute(ctx);
    expect(walks).toBe(w2);
    new LiveDeadPhase('full').execute(ctx); // another slot with the same configuration
    expect(walks).toBe(w2);
    // a change anywhere makes it look again
    fn.blocks[0]!.remove(fn.blocks[0]!.instrs[1]!);
    phase.execute(ctx);
    expect(walks).toBeGreaterThan(w2);
  });
});
