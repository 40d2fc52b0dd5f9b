import { describe, expect, it } from 'vitest';
import type { Instr } from './core.js';
import { parseOri } from './parse.js';
import { verifyFunction } from './verify.js';

/** A loop whose body defines %r0..%r39 (more than one 32-bit bitset word, bit 31 included) and a use of %r40, never defined. */
function loopWithManyRegs(): string {
  const defs = Array.from({ length: 40 }, (_, k) => `  %r${k} = IADD3 ${k ? `%r${k - 1}` : 'RZ'}, 1, RZ`).join('\n');
  return `.entry @k()
{
bb0:
  %p0 = ISETP.EQ.AND RZ, RZ, PT
bb1:
  %r41 = IADD3 %r39, %r31, RZ
${defs}
  @%p0 BRA bb1
bb2:
  %r42 = IADD3 %r31, %r40, RZ
  EXIT
}
`;
}

describe('verifyFunction', () => {
  it('finds the undefined use across bitset words and converges on a loop', () => {
    const f = parseOri(loopWithManyRegs()).functions[0]!;
    // %r39 and %r31 are read at the top of the loop before their defs: the back edge brings them (maybe defined).
    expect(verifyFunction(f).map((i) => `${i.code} ${i.block} ${i.message}`)).toEqual([
      'ORI_VERIFY_UNDEF_USE bb2 %r40 is used but no definition reaches it',
    ]);
  });

  it('reports a register table entry that lost a def or miscounts a use', () => {
    const f = parseOri(loopWithManyRegs()).functions[0]!;
    const r31 = f.getReg('%r31')!;
    const r5 = f.getReg('%r5')!;
    r31.defs.clear();
    const user = [...r5.uses.keys()][0]!;
    r5.uses.set(user, 2);
    expect(verifyFunction(f).filter((i) => i.code === 'ORI_VERIFY_TABLE').map((i) => i.message)).toEqual([
      'register table entry of %r31 does not match the instructions', // fn.registers order: %r31 is named first
      'register table entry of %r5 does not match the instructions',
    ]);
  });

  it('reports a table mismatch when an instruction is listed twice in its block', () => {
    const f = parseOri(loopWithManyRegs()).functions[0]!;
    const b = f.getBlock('bb2')!;
    (b.instrs as Instr[]).unshift(b.instrs[0]!); // %r42 = IADD3 %r31, %r40: its uses now count twice in the instructions
    expect(verifyFunction(f).filter((i) => i.code === 'ORI_VERIFY_TABLE').map((i) => i.message)).toEqual([
      'register table entry of %r31 does not match the instructions',
      'register table entry of %r40 does not match the instructions',
    ]);
  });
});
