import { describe, expect, it } from 'vitest';
import { parseOri, printModule } from '@ptxforge/kernel';
import { makeTestContext, normalizeOri, runPhaseOnText } from '@ptxforge/opt-utils';
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

describe('issue #16 row 2 at full size (5000 if/else diamonds, ~15k blocks)', () => {
  // A few moves among 15k blocks: one dead (%r5, overwritten in the last block before any read), one live.
  const diamonds = (n: number): string => {
    const b = ['bb0:', '  %r1 = S2R SR_TID.X', '  %r2 = S2R SR_CTAID.X', '  %r3 = MOV 0', '  %r5 = MOV %r2'];
    for (let i = 0; i < n; i++) {
      b.push(`  %p1 = ISETP.LT.U32.AND %r3, %r1, PT`, `  @%p1 BRA E${i}`, `T${i}:`, `  %r3 = IADD3 %r3, ${i + 1}, RZ`, `  BRA J${i}`);
      b.push(`E${i}:`, '  %r3 = LOP3.LUT %r3, %r2, RZ, 60', `J${i}:`);
    }
    b.push('  %r5 = IADD3 %r3, 1, RZ', '  %rd0 = MOV c[0x0][0x210]', '  STG.E.32 [%rd0], %r5', '  EXIT');
    return wrap(b.join('\n'));
  };

  it('removes the dead move, keeps the rest; a repeat on the unchanged function skips the walk', () => {
    const m = parseOri(diamonds(5000));
    const fn = m.functions[0]!;
    const blocks = fn.blocks;
    let walks = 0;
    Object.defineProperty(fn, 'blocks', { get: () => (walks++, blocks) });
    const ctx = makeTestContext(m);
    new ReplaceEquivMultiDefMovPhase().execute(ctx); // nothing equivalent
    const version = fn.irVersion;
    const w52 = walks;
    expect(w52).toBeGreaterThan(0);
    new RemoveRedundantMultiDefMovPhase().execute(ctx); // its first pass repeats 52's (skipped); the dead move goes
    expect(fn.irVersion).not.toBe(version);
    const out = printModule(m);
    expect(out).not.toContain('%r5 = MOV %r2');
    expect(out).toContain('%r3 = MOV 0');
    expect(out).toContain('%rd0 = MOV c[0x0][0x210]');
    expect(fn.instructionCount).toBe(4 + 5000 * 5 + 4 - 1);
    new RemoveRedundantMultiDefMovPhase().execute(ctx); // finds nothing now (and remembers it)
    const w = walks;
    new RemoveRedundantMultiDefMovPhase().execute(ctx);
    new ReplaceEquivMultiDefMovPhase().execute(ctx);
    expect(walks).toBe(w);
  });
});

