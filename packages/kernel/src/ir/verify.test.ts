import { describe, expect, it } from 'vitest';
import type { Block, Instr, OriFunction } from './core.js';
import { computeRpo } from '../analysis/cfg.js';
import { parseOri } from './parse.js';
import { verifyFunction } from './verify.js';

/** Random CFG over `n` blocks with IADD3s on a pool of 70 registers (most read somewhere before any def). */
function randomProgram(seed: number, n: number): string {
  let x = seed >>> 0 || 1;
  const r = (m: number): number => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x % m;
  };
  let text = '.entry @k()\n{\nbb0:\n  %p0 = ISETP.EQ.AND RZ, RZ, PT\n';
  for (let b = 0; b < n; b++) {
    if (b) text += `bb${b}:\n`;
    for (let k = r(4); k > 0; k--) text += `  %r${r(70)} = IADD3 %r${r(70)}, %r${r(70)}, RZ\n`;
    if (b === n - 1) text += '  EXIT\n';
    else if (r(3) === 0) text += `  @%p0 BRA bb${r(n)}\n`;
    else if (r(4) === 0) text += `  BRA bb${r(n)}\n`;
  }
  return text + '}\n';
}

/**
 * The undefined-use report by definition: a use is reached when its register is defined earlier in the block or
 * at the end of a reachable block from which a path leads to the use's block (breadth-first per register).
 */
function undefinedUsesByReachability(f: OriFunction): string[] {
  const rpo = computeRpo(f);
  const reachedFromDefs = new Map<string, Set<Block>>();
  const reached = (name: string): Set<Block> => {
    let set = reachedFromDefs.get(name);
    if (set) return set;
    set = new Set();
    const work: Block[] = [];
    for (const b of rpo.order) if (b.instrs.some((i) => i.defRegs().some((d) => d.name === name))) work.push(...b.succs);
    while (work.length) {
      const b = work.pop()!;
      if (set.has(b)) continue;
      set.add(b);
      work.push(...b.succs);
    }
    reachedFromDefs.set(name, set);
    return set;
  };
  const out: string[] = [];
  for (const b of rpo.order) {
    const local = new Set<string>();
    for (const i of b.instrs) {
      for (const u of i.useRegs()) {
        if (local.has(u.name) || reached(u.name).has(b)) continue;
        out.push(`${b.label} ${u.name}`);
        local.add(u.name);
      }
      for (const d of i.defRegs()) local.add(d.name);
    }
  }
  return out;
}

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
  it('reports exactly the uses no definition reaches, on random control flow (against per-register reachability)', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const f = parseOri(randomProgram(seed, 4 + (seed % 17))).functions[0]!;
      const got = verifyFunction(f).filter((i) => i.code === 'ORI_VERIFY_UNDEF_USE').map((i) => `${i.block} ${i.message.split(' ')[0]}`);
      expect(got, `seed ${seed}`).toEqual(undefinedUsesByReachability(f));
    }
  });

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
