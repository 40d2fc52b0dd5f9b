import { describe, expect, it } from 'vitest';
import { computeDominators, computeLoops, parseOri, type Instr, type Loop, type Register } from '@ptxforge/kernel';
import { LoopSimplificationPhase, LoopUnrollingPhase } from './index.js';
import { analyzeCountedLoop, LoopDefs } from './iv.js';
import { fixtureLaunches, runChecked } from './testing/harness.js';

/**
 * `count` sibling loops that all reuse one counter %r1 and one predicate %p0 (as PTX from a generator or an
 * unrolled nest has it): %r1 ends up with far more definitions than LoopDefs filters directly, so its in-loop
 * definitions come from the loop's own index.
 */
function siblingLoops(count: number): string {
  let body = '';
  for (let k = 1; k <= count; k++) {
    body += `  %r1 = MOV 0
bb${k}:
  %r9 = IADD3 %r9, %r1, RZ
  %r9 = LOP3.LUT %r9, ${k}, RZ, 0x96, !PT
  %r1 = IADD3 %r1, 1, RZ
  %p0 = ISETP.LT.U32.AND %r1, c[0x0][0x220], PT
  @%p0 BRA bb${k}
bb${k}x:
`;
  }
  return `.target sm_90
.entry @k(
  .param .u64 out c[0x0][0x210],
  .param .u64 in c[0x0][0x218],
  .param .u32 n c[0x0][0x220],
  .param .u32 m c[0x0][0x224]
)
{
bb0:
  %r0 = S2R SR_TID.X
  %r9 = MOV 7
${body}  %rd0 = IMAD.WIDE.U32 %r0, 4, c[0x0][0x210]
  STG.E.32 [%rd0], %r9
  EXIT
}
`;
}

/** The in-loop definitions by the plain filter over every definition of the register. */
function filtered(r: Register, loop: Loop): Instr[] {
  return [...r.defs].filter((d) => d.block && loop.blockSet.has(d.block));
}

describe('LoopDefs (in-loop definitions without scanning every def of a reused register)', () => {
  it('agrees with filtering the register table, for registers with few and with many defs', () => {
    const m = parseOri(siblingLoops(40));
    const fn = m.functions[0]!;
    const dom = computeDominators(fn);
    const loops = computeLoops(fn, dom);
    expect(loops.all).toHaveLength(40);
    const r1 = fn.getReg('%r1')!;
    expect(r1.defs.size).toBe(80);
    for (const loop of loops.all) {
      const defs = new LoopDefs(loop);
      for (const name of ['%r0', '%r1', '%r9', '%p0', '%rd0']) {
        const r = fn.getReg(name)!;
        expect(new Set(defs.of(r)), `${name} in ${loop.header.label}`).toEqual(new Set(filtered(r, loop)));
        expect(defs.has(r)).toBe(filtered(r, loop).length > 0);
      }
      // 39 MOVs and 39 increments of the other loops, plus this loop's MOV: not one outside definition.
      expect(defs.singleOutside(r1)).toBeUndefined();
      const cl = analyzeCountedLoop(loop, dom);
      expect('code' in cl ? cl : undefined).toBeUndefined();
      if (!('code' in cl)) {
        expect(cl.iv).toBe(r1);
        expect(cl.step).toBe(1);
        expect(cl.tripCount).toBeUndefined();
      }
    }
  });

  it('finds the single outside definition of a register once the loop index is in use', () => {
    const m = parseOri(siblingLoops(20));
    const fn = m.functions[0]!;
    const loops = computeLoops(fn);
    const loop = loops.all.find((l) => l.header.label === 'bb1')!;
    const defs = new LoopDefs(loop);
    const r9 = fn.getReg('%r9')!;
    // %r9: MOV 7 outside, and 2 defs in each of the 20 loops.
    expect(r9.defs.size).toBe(41);
    expect(defs.of(r9)).toHaveLength(2);
    expect(defs.singleOutside(r9)).toBeUndefined();
    const r0 = fn.getReg('%r0')!;
    expect(defs.singleOutside(r0)?.opcode).toBe('S2R');
  });

  it('phase 22 unrolls each of many loops sharing a counter, results unchanged', () => {
    const r = runChecked(siblingLoops(24), [new LoopSimplificationPhase(), new LoopUnrollingPhase()], fixtureLaunches([0, 1, 5, 13]));
    const unrolled = r.remarks.filter((x) => x.name === 'LoopUnrolled');
    const missed = r.remarks.filter((x) => x.name === 'LoopNotUnrolled');
    expect(unrolled, JSON.stringify(missed)).toHaveLength(24);
    for (const u of unrolled) expect(u.args?.partial).toBe(true);
  });
});
