import { describe, expect, it } from 'vitest';
import { imm, Instr, parseOri, reg } from '@ptxforge/kernel';
import { isKnownFixpoint, noteFixpoint, runUnlessFixpoint } from './index.js';

const text = `.target sm_90
.entry @k(
  .param .u64 out c[0x0][0x210]
)
{
bb0:
  %r0 = S2R SR_TID.X
  %r1 = IADD3 %r0, 1, RZ
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r1
  EXIT
}
`;

describe('fixpoint memo (runUnlessFixpoint)', () => {
  it('skips a pass that changed nothing until the function changes', () => {
    const fn = parseOri(text).functions[0]!;
    let runs = 0;
    const nothing = (): void => void runs++;
    expect(runUnlessFixpoint(fn, 'p', nothing)).toBe(true);
    expect(runUnlessFixpoint(fn, 'p', nothing)).toBe(false);
    expect(runs).toBe(1);
    // another configuration of the pass is not covered
    expect(runUnlessFixpoint(fn, 'q', nothing)).toBe(true);
    expect(runs).toBe(2);
    // any IR change makes it run again
    const b = fn.blocks[0]!;
    b.insertAt(0, new Instr('MOV', { defs: [reg(fn.newReg('R'))], uses: [imm(7)] }));
    expect(isKnownFixpoint(fn, 'p')).toBe(false);
    expect(runUnlessFixpoint(fn, 'p', nothing)).toBe(true);
    expect(runs).toBe(3);
  });

  it('does not record a run that changed the IR (it may find more the next time)', () => {
    const fn = parseOri(text).functions[0]!;
    const b = fn.blocks[0]!;
    let runs = 0;
    const removeFirst = (): void => {
      runs++;
      if (runs === 1) b.remove(b.instrs[1]!);
    };
    expect(runUnlessFixpoint(fn, 'p', removeFirst)).toBe(true);
    expect(runUnlessFixpoint(fn, 'p', removeFirst)).toBe(true);
    expect(runUnlessFixpoint(fn, 'p', removeFirst)).toBe(false);
    expect(runs).toBe(2);
    noteFixpoint(fn, 'r');
    expect(isKnownFixpoint(fn, 'r')).toBe(true);
  });
});
