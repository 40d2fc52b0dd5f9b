import { describe, expect, it } from 'vitest';
import { Instr, imm, label, reg, RZ, PT } from './core.js';
import { parseOri } from './parse.js';
import { printFunction } from './print.js';
import { verifyFunction } from './verify.js';

const src = `.entry @k()
{
bb0:
  %r0 = S2R SR_TID.X
  %p0 = ISETP.EQ.AND %r0, RZ, PT
  @%p0 BRA bb2
bb1:
  %r1 = IADD3 %r0, 1, RZ
  BRA bb3
bb2:
  %r1 = IADD3 %r0, 2, RZ
bb3:
  %r2 = IADD3 %r1, %r1, RZ
  EXIT
}
`;

function fn() {
  return parseOri(src).functions[0]!;
}
const labels = (bs: readonly { label: string }[]): string[] => bs.map((b) => b.label);

describe('mutation API keeps CFG and register table consistent', () => {
  it('computes preds/succs with fall-through', () => {
    const f = fn();
    const [b0, b1, b2, b3] = f.blocks;
    expect(labels(b0!.succs)).toEqual(['bb2', 'bb1']);
    expect(labels(b2!.succs)).toEqual(['bb3']);
    expect(labels(b3!.preds)).toEqual(['bb1', 'bb2']);
    expect(labels(b1!.preds)).toEqual(['bb0']);
  });

  it('tracks defs and use counts', () => {
    const f = fn();
    const r1 = f.getReg('%r1')!;
    expect(r1.defs.size).toBe(2);
    expect(r1.def).toBeUndefined();
    expect(r1.useCount).toBe(2);
    const r0 = f.getReg('%r0')!;
    expect(r0.def?.opcode).toBe('S2R');
    expect(r0.defBlock?.label).toBe('bb0');
    expect(r0.useCount).toBe(3);
  });

  it('insert, remove and setUses update the table', () => {
    const f = fn();
    const b3 = f.getBlock('bb3')!;
    const r2 = f.getReg('%r2')!;
    const r9 = f.newReg('R');
    expect(r9.name).toBe('%r3');
    const i = b3.insertBefore(b3.instrs[1]!, new Instr('IADD3', { defs: [reg(r9)], uses: [reg(r2), imm(5), RZ] }));
    expect(r2.useCount).toBe(1);
    i.setUse(1, reg(r2));
    expect(r2.useCount).toBe(2);
    b3.remove(i);
    expect(r2.useCount).toBe(0);
    expect(r9.defs.size).toBe(0);
    expect(verifyFunction(f)).toEqual([]);
  });

  it('replaceAllUses rewrites operands and guards', () => {
    const f = fn();
    const p0 = f.getReg('%p0')!;
    const p9 = f.newReg('P');
    f.getBlock('bb0')!.insertAt(1, new Instr('ISETP', { mods: ['NE', 'AND'], defs: [reg(p9)], uses: [reg(f.getReg('%r0')!), RZ, PT] }));
    f.replaceAllUses(p0, p9);
    expect(p0.useCount).toBe(0);
    expect(p9.useCount).toBe(1);
    expect(f.getBlock('bb0')!.terminator!.guard!.reg).toBe(p9);
    expect(verifyFunction(f)).toEqual([]);
  });

  it('splitEdge puts a block on a fall-through edge without changing other edges', () => {
    const f = fn();
    const b2 = f.getBlock('bb2')!;
    const b3 = f.getBlock('bb3')!;
    const mid = f.splitEdge(b2, b3);
    expect(labels(b2.succs)).toEqual([mid.label]);
    expect(labels(mid.succs)).toEqual(['bb3']);
    expect(labels(b3.preds).sort()).toEqual(['bb1', mid.label].sort());
    expect(verifyFunction(f)).toEqual([]);
  });

  it('splitEdge on a conditional branch edge', () => {
    const f = fn();
    const b0 = f.getBlock('bb0')!;
    const mid = f.splitEdge(b0, f.getBlock('bb2')!);
    expect(labels(b0.succs)).toEqual([mid.label, 'bb1']);
    expect(labels(mid.succs)).toEqual(['bb2']);
    expect(verifyFunction(f)).toEqual([]);
  });

  it('splitBlock moves the tail to a fall-through block', () => {
    const f = fn();
    const b0 = f.getBlock('bb0')!;
    const nb = f.splitBlock(b0, b0.instrs[1]!);
    expect(b0.instrs).toHaveLength(1);
    expect(labels(b0.succs)).toEqual([nb.label]);
    expect(labels(nb.succs)).toEqual(['bb2', 'bb1']);
    expect(verifyFunction(f)).toEqual([]);
  });

  it('moveBlock makes fall-through explicit so edges are unchanged', () => {
    const f = fn();
    const before = f.blocks.map((b) => `${b.label}->${labels(b.succs).sort().join(',')}`).sort();
    f.moveBlock(f.getBlock('bb2')!, undefined);
    const after = f.blocks.map((b) => `${b.label}->${labels(b.succs).sort().join(',')}`).sort();
    expect(after).toEqual(before);
    expect(f.blocks[0]!.label).toBe('bb2');
    f.moveBlock(f.getBlock('bb2')!, f.getBlock('bb1')!);
    expect(verifyFunction(f).filter((i) => i.code !== 'ORI_VERIFY_CFG')).toEqual([]);
  });

  it('redirectEdge and removeBlock', () => {
    const f = fn();
    const b0 = f.getBlock('bb0')!;
    f.redirectEdge(b0, f.getBlock('bb2')!, f.getBlock('bb3')!);
    expect(labels(b0.succs)).toEqual(['bb3', 'bb1']);
    const b2 = f.getBlock('bb2')!;
    expect(b2.preds).toEqual([]);
    f.removeBlock(b2);
    expect(f.getBlock('bb2')).toBeUndefined();
    expect(f.getReg('%r1')!.defs.size).toBe(1);
    expect(printFunction(f)).toContain('@%p0 BRA bb3');
    expect(verifyFunction(f)).toEqual([]);
  });

  it('cfgVersion moves on CFG changes only', () => {
    const f = fn();
    void f.blocks[0]!.succs;
    const v = f.cfgVersion;
    const b1 = f.getBlock('bb1')!;
    b1.insertAt(0, new Instr('NOP'));
    expect(f.cfgVersion).toBe(v);
    b1.append(new Instr('BRA', { uses: [label(b1)] }));
    expect(f.cfgVersion).toBeGreaterThan(v);
  });
});
