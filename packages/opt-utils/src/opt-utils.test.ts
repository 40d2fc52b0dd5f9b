import { describe, expect, it } from 'vitest';
import { parseOri, type Block, type OriFunction } from '@ptxforge/kernel';
import { BitSet } from './bitset.js';
import { computeLiveness, sweepDeadBackward } from './liveness.js';
import { hasObservableEffect, isRemovableWhenDead, isSpeculatable } from './effects.js';
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

describe('computeLiveness agrees with dense iterative liveness on random CFGs', () => {
  /** The textbook dataflow (what opt-utils computed before it went sparse), as the reference. */
  function denseLiveness(fn: OriFunction): { liveIn: Map<Block, Set<number>>; liveOut: Map<Block, Set<number>> } {
    const use = new Map<Block, Set<number>>();
    const kill = new Map<Block, Set<number>>();
    for (const b of fn.blocks) {
      const u = new Set<number>();
      const k = new Set<number>();
      for (const i of b.instrs) {
        for (const r of i.useRegs()) if (!k.has(r.id)) u.add(r.id);
        if (!i.guard) for (const r of i.defRegs()) k.add(r.id);
      }
      use.set(b, u);
      kill.set(b, k);
    }
    const liveIn = new Map(fn.blocks.map((b) => [b, new Set<number>()] as const));
    const liveOut = new Map(fn.blocks.map((b) => [b, new Set<number>()] as const));
    for (let changed = true; changed; ) {
      changed = false;
      for (const b of [...fn.blocks].reverse()) {
        const out = liveOut.get(b)!;
        for (const s of b.succs) for (const x of liveIn.get(s)!) out.add(x);
        const inn = new Set(use.get(b));
        for (const x of out) if (!kill.get(b)!.has(x)) inn.add(x);
        if (inn.size !== liveIn.get(b)!.size) changed = true;
        liveIn.set(b, inn);
      }
    }
    return { liveIn, liveOut };
  }
  /** A random function: blocks with random reads/writes of a small register pool, guarded defs, branches back and forth. */
  function randomFunction(seed: number): string {
    let x = seed >>> 0 || 1;
    const rnd = (n: number): number => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return (x >>> 0) % n;
    };
    const nb = 2 + rnd(12);
    const lines = ['.entry @k()', '{'];
    for (let b = 0; b < nb; b++) {
      lines.push(`bb${b}:`);
      for (let k = rnd(4); k > 0; k--) {
        const g = rnd(4) === 0 ? `@%p${rnd(2)} ` : '';
        lines.push(`  ${g}%r${rnd(6)} = IADD3 %r${rnd(6)}, %r${rnd(6)}, RZ`);
        if (rnd(5) === 0) lines.push(`  %p${rnd(2)} = ISETP.LT.AND %r${rnd(6)}, 0x4, PT`);
      }
      if (b === nb - 1) lines.push('  EXIT');
      else if (rnd(3) === 0) lines.push(`  @%p${rnd(2)} BRA bb${rnd(nb)}`);
      else if (rnd(6) === 0) lines.push(`  BRA bb${rnd(nb)}`);
    }
    lines.push('}', '');
    return lines.join('\n');
  }
  it('on 300 random functions, every block, every register', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const fn = parseOri(randomFunction(seed)).functions[0]!;
      const lv = computeLiveness(fn);
      const ref = denseLiveness(fn);
      for (const b of fn.blocks) {
        expect([...lv.liveIn.get(b)!], `seed ${seed} ${b.label} in`).toEqual([...ref.liveIn.get(b)!].sort((p, q) => p - q));
        expect([...lv.liveOut.get(b)!], `seed ${seed} ${b.label} out`).toEqual([...ref.liveOut.get(b)!].sort((p, q) => p - q));
        for (const r of fn.registers) expect(lv.isLiveIn(b, r)).toBe(ref.liveIn.get(b)!.has(r.id));
      }
    }
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

describe('sweepDeadBackward', () => {
  const liveDce = (fn: OriFunction): number =>
    sweepDeadBackward(fn, (i, after) => isRemovableWhenDead(i) && i.defRegs().every((r) => !after.has(r.id)));
  it('sweeps again when a removal makes a value dead in an earlier block, and stops after one sweep when none can', () => {
    // bb1's dead %r3 reads %r2, which is live into bb1: only a second sweep (fresh liveness) finds bb0's %r2 dead.
    // bb1's dead %r5 reads %r4, defined in bb1 before it: the same sweep removes both.
    const m = parseOri(`.target sm_90
.entry @k(
  .param .u64 out c[0x0][0x210]
)
{
bb0:
  %r0 = S2R SR_TID.X
  %r2 = IADD3 %r0, 7, RZ
  %p0 = ISETP.EQ.AND %r0, 0, PT
  @%p0 BRA bb2
bb1:
  %r3 = IADD3 %r2, 1, RZ
  %r4 = IADD3 %r0, 2, RZ
  %r5 = IADD3 %r4, 3, RZ
bb2:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r0
  EXIT
}
`);
    const fn = m.functions[0]!;
    const before = fn.blocks.reduce((s, b) => s + b.instrs.length, 0);
    expect(liveDce(fn)).toBe(4);
    expect(fn.blocks.reduce((s, b) => s + b.instrs.length, 0)).toBe(before - 4);
    expect(fn.blocks[0]!.instrs.map((i) => i.opcode)).toEqual(['S2R', 'ISETP', 'BRA']);
    expect(fn.blocks[1]!.instrs).toEqual([]);
    // nothing left to find
    expect(liveDce(fn)).toBe(0);
  });
});
