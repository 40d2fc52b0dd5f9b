import { describe, expect, it } from 'vitest';
import { PtxforgeError } from '../errors.js';
import { Instr, imm, label, reg } from './core.js';
import { parseOri } from './parse.js';
import { restoreReachingDefs } from './reaching-defs.js';
import { assertValidModule, verifyFunction } from './verify.js';

// The shape of fuzz-ptx crash 2 (issue #16): a constant branch skips the only definition of %r2 on its path;
// folding the branch makes bb1 unreachable and deleting it leaves the read in bb2 without a reaching def.
const SKIPPED_DEF = `.entry @k()
{
bb0:
  %r1 = MOV 3
  %p0 = ISETP.EQ.AND RZ, RZ, PT
  @%p0 BRA bb2
bb1:
  %r2 = MOV 1 {line=16 col=2}
  %r5 = MOV 9
bb2:
  %r3 = IADD3 %r2, %r1, RZ {line=18 col=2}
  %r4 = IADD3 %r5, 1, RZ
  %r5 = MOV 2
  %r6 = IADD3 %r5, 1, RZ
  EXIT
}
`;

/** Fold `@%p0 BRA bb2` into an unconditional branch (the constant-branch folding of GeneralOptimize). */
function foldBranch(src: string) {
  const m = parseOri(src, { file: 'k.ori' });
  const fn = m.functions[0]!;
  const entry = fn.entry;
  const bra = entry.instrs[entry.instrs.length - 1]!;
  entry.remove(bra);
  entry.append(new Instr('BRA', { uses: [label(fn.getBlock('bb2')!)] }));
  return { m, fn };
}

describe('restoreReachingDefs', () => {
  it('gives a register whose only definition on a path went with a removed block an UNDEF at the entry', () => {
    const { m, fn } = foldBranch(SKIPPED_DEF);
    fn.removeBlock(fn.getBlock('bb1')!);
    expect(verifyFunction(fn).map((i) => `${i.code} ${i.message}`)).toEqual([
      'ORI_VERIFY_UNDEF_USE %r2 is used but no definition reaches it',
      'ORI_VERIFY_UNDEF_USE %r5 is used but no definition reaches it',
    ]);
    // %r5 keeps a definition (after its first read in bb2): the dataflow, not the empty def set, finds it
    expect(restoreReachingDefs(fn).map((r) => r.name)).toEqual(['%r2', '%r5']);
    expect(fn.entry.instrs.slice(0, 2).map((i) => `${i.opcode} ${i.defRegs()[0]!.name}`)).toEqual(['UNDEF %r2', 'UNDEF %r5']);
    expect(verifyFunction(fn)).toEqual([]);
    assertValidModule(m);
    // nothing left to do: a second call inserts nothing
    expect(restoreReachingDefs(fn)).toEqual([]);
  });

  it('also covers a block left unreachable (not yet removed)', () => {
    const { fn } = foldBranch(SKIPPED_DEF);
    expect(restoreReachingDefs(fn).map((r) => r.name)).toEqual(['%r2', '%r5']);
    expect(verifyFunction(fn)).toEqual([]);
  });

  it('leaves registers alone that another definition still reaches (a loop back edge)', () => {
    const { fn } = foldBranch(`.entry @k()
{
bb0:
  %p0 = ISETP.EQ.AND RZ, RZ, PT
  %r7 = MOV 0
  @%p0 BRA bb2
bb1:
  %r2 = MOV 1
bb2:
  %r3 = IADD3 %r2, 1, RZ
  %r2 = MOV 5
  %r7 = IADD3 %r7, 1, RZ
  %p1 = ISETP.LT.AND %r7, 4, PT
  @%p1 BRA bb2
bb3:
  EXIT
}
`);
    fn.removeBlock(fn.getBlock('bb1')!);
    expect(verifyFunction(fn)).toEqual([]);
    expect(restoreReachingDefs(fn)).toEqual([]);
  });

  it('covers definitions deleted as unreachable inside a block (removeWhere with unreachable)', () => {
    const { fn } = foldBranch(SKIPPED_DEF);
    fn.removeBlock(fn.getBlock('bb1')!);
    expect(restoreReachingDefs(fn).map((r) => r.name)).toEqual(['%r2', '%r5']);
    // a definition of %r1 after the unconditional branch, deleted as unreachable: %r1 has one left before it
    const entry = fn.entry;
    const r1 = fn.getReg('%r1')!;
    const r8 = fn.newReg('R', 1);
    entry.append(new Instr('MOV', { defs: [reg(r1)], uses: [imm(4)] }));
    entry.append(new Instr('MOV', { defs: [reg(r8)], uses: [imm(5)] }));
    fn.getBlock('bb2')!.insertAt(0, new Instr('IADD3', { defs: [reg(fn.newReg('R', 1))], uses: [reg(r8), imm(1), reg(fn.getReg('%r1')!)] }));
    let after = false;
    // removing reachable code records nothing
    entry.removeWhere((i) => i.opcode === 'NOP');
    expect(fn.hasUnreachableDefs).toBe(false);
    entry.removeWhere(
      (i) => {
        if (after) return true;
        after = i.opcode === 'BRA';
        return false;
      },
      { unreachable: true },
    );
    expect(fn.hasUnreachableDefs).toBe(true);
    expect(restoreReachingDefs(fn).map((r) => r.name)).toEqual([r8.name]);
    expect(fn.hasUnreachableDefs).toBe(false);
    expect(verifyFunction(fn)).toEqual([]);
  });
});

describe('assertValidModule', () => {
  it('locates its error at the source position of the first instruction with one', () => {
    const { m, fn } = foldBranch(SKIPPED_DEF);
    m.sourceFile = 'k.ptx';
    fn.removeBlock(fn.getBlock('bb1')!);
    let err: unknown;
    try {
      assertValidModule(m, 'test');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PtxforgeError);
    const e = err as PtxforgeError;
    expect(e.code).toBe('ORI_VERIFY');
    expect(e.pos).toEqual({ file: 'k.ptx', line: 18, col: 2 });
    expect(e.format()).toMatch(/^k\.ptx:18:2: error ORI_VERIFY: IR is not well formed \(test\)/);
  });
});
