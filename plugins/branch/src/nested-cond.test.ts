import { describe, expect, it } from 'vitest';
import { assertValidModule, parseOri, printModule, type OriModule } from '@ptxforge/kernel';
import { makeTestContext } from '@ptxforge/opt-utils';
import { runKernel } from '@ptxforge/interp';
import { knobs, OptimizeNestedCondBranches, optimizeNestedConds } from './index.js';

const wrap = (body: string): string => `.target sm_90
.entry @k(
  .param .u64 out c[0x0][0x210],
  .param .u64 in c[0x0][0x218]
)
{
bb0:
  %r0 = S2R SR_TID.X
  %rd0 = MOV c[0x0][0x218]
  %rd1 = IMAD.WIDE.U32 %r0, 8, %rd0
  %r1 = LDG.E.32 [%rd1]
  %r2 = LDG.E.32 [%rd1+0x4]
  %r9 = MOV 0
${body}
join:
  %rd2 = MOV c[0x0][0x210]
  %rd3 = IMAD.WIDE.U32 %r0, 4, %rd2
  STG.E.32 [%rd3], %r9
  EXIT
}
`;

function outputs(m: OriModule): number[] {
  const n = 64;
  const values: number[] = [];
  for (let k = 0; k < n; k++) values.push(k % 9, (k * 7) % 13);
  const r = runKernel(m, { grid: 1, block: n, buffers: { out: { type: 'u32', count: n }, in: { type: 'u32', values } }, params: [{ buffer: 'out' }, { buffer: 'in' }] });
  expect(r.errors).toEqual([]);
  const b = r.buffers.out!.bytes;
  return Array.from({ length: n }, (_, k) => new DataView(b.buffer, b.byteOffset).getUint32(4 * k, true));
}

function check(body: string) {
  const text = wrap(body);
  const m = parseOri(text);
  const ctx = makeTestContext(m, { knobs });
  new OptimizeNestedCondBranches().execute(ctx);
  assertValidModule(m, 'after OptimizeNestedCondBranches');
  expect(outputs(m)).toEqual(outputs(parseOri(text)));
  return { m, text: printModule(m), remarks: ctx.remarks };
}

const braCount = (t: string): number => t.split('\n').filter((l) => /\bBRA\b/.test(l)).length;

describe('OptimizeNestedCondBranches (38)', () => {
  it('if (a && b) written as two skips: one branch on PLOP3 0x3F (NAND of the conditions)', () => {
    const { text, remarks } = check(`  %p0 = ISETP.GT.S32.AND %r1, 3, PT
  @!%p0 BRA join
bb1:
  %p1 = ISETP.LT.S32.AND %r2, 10, PT
  @!%p1 BRA join
bb2:
  %r9 = IMAD %r1, %r2, 1`);
    expect(text).toMatch(/%p\d+ = PLOP3\.LUT %p0, %p1, PT, 0x3f, 0x0/);
    expect(braCount(text)).toBe(1);
    expect(remarks).toHaveLength(1);
    expect(remarks[0]).toMatchObject({ name: 'NestedConditionCombined', args: { lut: '0x3F', form: 'or' } });
  });

  it('if (a || b): same taken target, PLOP3 0xFC (OR)', () => {
    const { text } = check(`  %p0 = ISETP.EQ.S32.AND %r1, 7, PT
  @%p0 BRA then
bb1:
  %p1 = ISETP.GT.S32.AND %r2, 5, PT
  @%p1 BRA then
  BRA join
then:
  %r9 = IADD3 %r1, %r2, RZ`);
    expect(text).toMatch(/PLOP3\.LUT %p0, %p1, PT, 0xfc, 0x0/);
    expect(braCount(text)).toBe(2);
  });

  it('an inner branch that skips back to the outer target: PLOP3 of !a & b (0x0C)', () => {
    const { text } = check(`  %p0 = ISETP.EQ.S32.AND %r1, 7, PT
  @%p0 BRA then
bb1:
  %p1 = ISETP.GT.S32.AND %r2, 5, PT
  @%p1 BRA other
  BRA then
other:
  %r9 = MOV 99
  BRA join
then:
  %r9 = IADD3 %r1, %r2, RZ`);
    expect(text).toMatch(/PLOP3\.LUT %p0, %p1, PT, 0xc, 0x0/);
  });

  it('collapses a three-level chain (a && b && c) in rounds, never a 4-input LUT', () => {
    const { text, remarks } = check(`  %p0 = ISETP.GT.S32.AND %r1, 1, PT
  @!%p0 BRA join
bb1:
  %p1 = ISETP.LT.S32.AND %r2, 10, PT
  @!%p1 BRA join
bb2:
  %p2 = ISETP.NE.S32.AND %r1, 5, PT
  @!%p2 BRA join
bb3:
  %r9 = IMAD %r1, %r2, 3`);
    expect(remarks).toHaveLength(2);
    expect(braCount(text)).toBe(1);
    for (const l of text.split('\n').filter((x) => x.includes('PLOP3'))) expect(l).toMatch(/PLOP3\.LUT %p\d+, %p\d+, PT, /);
  });

  it('refuses when the inner block writes a value live elsewhere, or defines what the outer target reads', () => {
    const store = check(`  %p0 = ISETP.GT.S32.AND %r1, 3, PT
  @!%p0 BRA join
bb1:
  %r9 = MOV 1
  %p1 = ISETP.LT.S32.AND %r2, 10, PT
  @!%p1 BRA join
bb2:
  %r9 = IMAD %r1, %r2, 1`);
    expect(store.remarks).toHaveLength(0);
    const live = check(`  %p1 = ISETP.LT.S32.AND %r2, 100, PT
  %p0 = ISETP.GT.S32.AND %r1, 3, PT
  @!%p0 BRA other
bb1:
  %p1 = ISETP.LT.S32.AND %r2, 10, PT
  @!%p1 BRA other
bb2:
  %r9 = IMAD %r1, %r2, 1
  BRA join
other:
  %r9 = SEL 5, 6, %p1`);
    expect(live.remarks).toHaveLength(0);
  });

  it('hoists side-effect-free ALU instructions whose results die in B (a bit test: ptxas combines range && bit)', () => {
    const { text, remarks } = check(`  %r3 = IADD3 %r1, -2, RZ
  %p0 = ISETP.GT.U32.AND %r3, 20, PT
  @%p0 BRA join
bb1:
  %r4 = MOV 1
  %r5 = SHL %r4, %r3
  %r6 = LOP3.LUT %r5, 0x104111, RZ, 0xc0
  %p1 = ISETP.EQ.U32.AND %r6, 0, PT
  @%p1 BRA join
bb2:
  %r9 = IMAD %r1, %r2, 1`);
    expect(remarks).toHaveLength(1);
    expect(braCount(text)).toBe(1);
    expect(text).toMatch(/PLOP3\.LUT %p0, %p1, PT, 0xfc, 0x0/);
  });

  it('never hoists a load, a store or a barrier out of the inner block', () => {
    for (const op of ['%r4 = LDG.E.32 [%rd1+0x8]', 'STG.E.32 [%rd1], %r1', 'BAR.SYNC 0']) {
      const { remarks } = check(`  %p0 = ISETP.GT.S32.AND %r1, 3, PT
  @!%p0 BRA join
bb1:
  ${op}
  %p1 = ISETP.LT.S32.AND %r2, 10, PT
  @!%p1 BRA join
bb2:
  %r9 = IMAD %r1, %r2, 1`);
      expect(remarks, op).toHaveLength(0);
    }
  });

  it('collapses a long && chain in one pass (the worklist re-examines the block that absorbed a level)', () => {
    const levels = 40;
    let body = '';
    for (let k = 0; k < levels; k++) body += `${k ? `bb${k}:\n` : ''}  %p${k} = ISETP.NE.S32.AND %r1, ${k + 100}, PT\n  @!%p${k} BRA join\n`;
    body += `bb${levels}:\n  %r9 = IMAD %r1, %r2, 3`;
    const { text, remarks } = check(body);
    expect(remarks).toHaveLength(levels - 1);
    expect(braCount(text)).toBe(1);
  });

  it('stops at once on a single-block function', () => {
    const m = parseOri(`.entry @k()
{
bb0:
  EXIT
}
`);
    expect(optimizeNestedConds(m.functions[0]!)).toEqual([]);
  });
});
