import { describe, expect, it } from 'vitest';
import { parseOri } from '@ptxforge/kernel';
import { BitSet } from './bitset.js';
import { computeLiveness } from './liveness.js';
import { hasObservableEffect, isSpeculatable } from './effects.js';
import { immOf, useKindAt } from './operands.js';

describe('BitSet', () => {
  it('adds, deletes, unions and iterates in order', () => {
    const a = new BitSet(70);
    a.add(3);
    a.add(64);
    a.add(31);
    const b = new BitSet(70);
    b.add(5);
    expect(a.unionWith(b)).toBe(true);
    expect(a.unionWith(b)).toBe(false);
    a.delete(31);
    expect([...a]).toEqual([3, 5, 64]);
    expect(a.has(64)).toBe(true);
    expect(a.has(63)).toBe(false);
  });
});

describe('computeLiveness', () => {
  const m = parseOri(`.target sm_90
.entry @k(
  .param .u64 out c[0x0][0x210]
)
{
bb0:
  %r0 = S2R SR_TID.X
  %r1 = MOV 1
  %p0 = ISETP.EQ.AND %r0, 0, PT
  @%p0 %r1 = MOV 2
  @%p0 BRA bb2
bb1:
  %r2 = IADD3 %r0, 1, RZ
  %r1 = MOV 3
bb2:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r1
  EXIT
}
`);
  const fn = m.functions[0]!;
  const lv = computeLiveness(fn);
  const r = (n: string) => fn.getReg(n)!;
  const [bb0, bb1, bb2] = fn.blocks as [never, never, never];
  it('propagates uses backwards and kills only at unguarded defs', () => {
    expect(lv.isLiveIn(bb2, r('%r1'))).toBe(true);
    expect(lv.isLiveIn(bb1, r('%r1'))).toBe(false); // redefined unguarded in bb1 before any read
    expect(lv.isLiveOut(bb0, r('%r1'))).toBe(true);
    expect(lv.isLiveIn(bb1, r('%r0'))).toBe(true);
    expect(lv.isLiveIn(bb2, r('%r0'))).toBe(false);
    expect(lv.isLiveIn(bb0, r('%r1'))).toBe(false);
  });
});

describe('effects and operand helpers', () => {
  const m = parseOri(`.target sm_90
.entry @k(
  .param .u64 out c[0x0][0x210]
)
{
bb0:
  %rd0 = MOV c[0x0][0x210]
  %r0 = LDG.E.32 [%rd0]
  %r1 = LDG.E.32.STRONG.GPU [%rd0]
  %r2 = S2R SR_CLOCKLO
  %r3 = IADD3 %r0, %r1, %r2
  %r4 = SHFL.IDX %r3, 0, 0x1f
  STG.E.32 [%rd0], %r4
  %p0, %p1 = ISETP.EQ.AND %r3, 0, PT
  EXIT
}
`);
  const ins = [...m.functions[0]!.instructions()];
  it('classifies observable effects and speculation safety', () => {
    expect(ins.map(hasObservableEffect)).toEqual([false, false, true, true, false, true, true, false, true]);
    expect(isSpeculatable(ins[1]!)).toBe(false); // a load may fault
    expect(isSpeculatable(ins[4]!)).toBe(true);
  });
  it('reads operand kinds from opcode signatures', () => {
    expect(useKindAt(ins[7]!, 0)).toBe('r');
    expect(useKindAt(ins[7]!, 2)).toBe('p');
  });
  it('writes immediates as in-range signed values', () => {
    expect(immOf(0xffffffffn, 32).value).toBe(-1n);
    expect(immOf(0x7fffffffn, 32).value).toBe(0x7fffffffn);
    expect(immOf(0xfffffffffn, 32).value).toBe(-1n);
  });
});
