import { describe, expect, it } from 'vitest';
import { assertValidModule, parseOri, printModule, type OriFunction, type OriModule } from '@ptxforge/kernel';
import { makeTestContext } from '@ptxforge/opt-utils';
import { runKernel, type Launch } from '@ptxforge/interp';
import { chooseStrategy, DoSwitchOptSecond, expandJmx, knobs, optimizeSwitches, recogniseSwitch, layoutPositions, DEFAULT_SWITCH_OPT } from './index.js';

/**
 * A kernel that reads x = in[tid] and stores out[tid] = f(x) where f is the switch given as a list of
 * (value, result) cases plus a default, written as the compare cascade a front end emits:
 *   ISETP.EQ x, v0; @p BRA c0; ISETP.EQ x, v1; @p BRA c1; ...; BRA default
 */
function cascade(cases: ReadonlyArray<readonly [number, number]>, dflt: number, type = 'S32'): string {
  const lines: string[] = [];
  lines.push('bb0:', '  %r0 = S2R SR_TID.X', '  %rd0 = MOV c[0x0][0x218]', '  %rd1 = IMAD.WIDE.U32 %r0, 4, %rd0', '  %r1 = LDG.E.32 [%rd1]');
  cases.forEach(([v], k) => {
    if (k > 0) lines.push(`t${k}:`);
    lines.push(`  %p${k} = ISETP.EQ.${type}.AND %r1, ${v}, PT`, `  @%p${k} BRA c${k}`);
  });
  lines.push('  BRA cd');
  cases.forEach(([, r], k) => lines.push(`c${k}:`, `  %r2 = MOV ${r}`, '  BRA join'));
  lines.push('cd:', `  %r2 = MOV ${dflt}`, 'join:', '  %rd2 = MOV c[0x0][0x210]', '  %rd3 = IMAD.WIDE.U32 %r0, 4, %rd2', '  STG.E.32 [%rd3], %r2', '  EXIT');
  return `.target sm_90
.entry @k(
  .param .u64 out c[0x0][0x210],
  .param .u64 in c[0x0][0x218]
)
{
${lines.join('\n')}
}
`;
}

function launch(values: readonly number[]): Launch {
  return {
    grid: 1,
    block: values.length,
    buffers: { out: { type: 'u32', count: values.length }, in: { type: 'u32', values: values.map((v) => v >>> 0) } },
    params: [{ buffer: 'out' }, { buffer: 'in' }],
  };
}

function outputs(m: OriModule, values: readonly number[]): number[] {
  const r = runKernel(m, launch(values));
  expect(r.errors).toEqual([]);
  const b = r.buffers.out!.bytes;
  return Array.from({ length: values.length }, (_, k) => new DataView(b.buffer, b.byteOffset).getUint32(4 * k, true));
}

function count(fn: OriFunction, opcode: string): number {
  let n = 0;
  for (const b of fn.blocks) for (const i of b.instrs) if (i.opcode === opcode) n++;
  return n;
}

/** Run the phase on a module and check it against the interpreter on `probe` selector values. */
function lowerAndCheck(text: string, probe: readonly number[]) {
  const before = parseOri(text);
  const m = parseOri(text);
  const expected = outputs(before, probe);
  const ctx = makeTestContext(m, { knobs });
  new DoSwitchOptSecond().execute(ctx);
  assertValidModule(m, 'after DoSwitchOptSecond');
  expect(outputs(m, probe)).toEqual(expected);
  // Phase 80 keeps the results.
  const m80 = parseOri(printModule(m));
  expandJmx(m80.functions[0]!);
  assertValidModule(m80, 'after ExpandJmxComputation');
  expect(outputs(m80, probe)).toEqual(expected);
  return { m, fn: m.functions[0]!, remarks: ctx.remarks, m80 };
}

const probe = (lo: number, hi: number, extra: number[] = []): number[] => [...Array.from({ length: hi - lo + 1 }, (_, k) => lo + k), ...extra];

describe('DoSwitchOptSecond (30): strategies', () => {
  it('lowers a dense 10-case switch to one JMX with a normalised unsigned bounds check', () => {
    const cases = Array.from({ length: 10 }, (_, k) => [k + 3, 100 + k * 7] as const);
    const { m, fn, remarks, m80 } = lowerAndCheck(cascade(cases, 55), probe(-2, 15, [-2147483648, 2147483647, 1000]));
    expect(count(fn, 'JMX')).toBe(1);
    expect(count(fn, 'ISETP')).toBe(1);
    const text = printModule(m);
    expect(text).toMatch(/%r\d+ = IADD3 %r1, -3, RZ/);
    expect(text).toMatch(/ISETP\.GE\.U32\.AND %r\d+, 10, PT/);
    expect(remarks[0]).toMatchObject({ name: 'SwitchLowered', args: { cases: 10, strategy: 'jump-table', min: 3, max: 12, density: 1 } });
    // Phase 80: LEA + BRX.TABLE, the table keeps one entry per value of the range.
    const f80 = m80.functions[0]!;
    expect(count(f80, 'JMX')).toBe(0);
    expect(count(f80, 'BRX')).toBe(1);
    expect(printModule(m80)).toMatch(/%r\d+ = LEA %r\d+, RZ, 0x2\n\s+BRX\.TABLE %r\d+, \(c0, c1, c2, c3, c4, c5, c6, c7, c8, c9\)/);
  });

  it('fills gaps of a dense range with the default target', () => {
    const cases = [0, 1, 2, 4, 5, 7, 8].map((v) => [v, v * 11 + 1] as const);
    const { fn, m } = lowerAndCheck(cascade(cases, 9), probe(-3, 12));
    expect(count(fn, 'JMX')).toBe(1);
    expect(printModule(m)).toMatch(/JMX %r1, \(c0, c1, c2, cd, c3, c4, cd, c5, c6\)/);
  });

  it('lowers an 8-case sparse switch to a balanced search tree of depth <= 4', () => {
    const vals = [3, 17, 100, 250, 1000, 4096, 7777, 65536];
    const cases = vals.map((v, k) => [v, k + 1] as const);
    const { fn, remarks } = lowerAndCheck(cascade(cases, 0), [...vals, ...vals.map((v) => v + 1), ...vals.map((v) => v - 1), -5, 0, 2147483647]);
    expect(count(fn, 'JMX')).toBe(0);
    expect(remarks[0]).toMatchObject({ args: { strategy: 'bst', cases: 8 } });
    expect(remarks[0]!.args!.depth).toBeLessThanOrEqual(4);
    // Two splits over three leaf chains (3, 3, 2 tests): 8 equality tests + 2 less-than tests, 3 levels.
    expect(remarks[0]!.args!.depth).toBe(3);
    expect(count(fn, 'ISETP')).toBe(10);
  });

  it('puts table leaves under the search tree for dense clusters of a sparse switch', () => {
    // Clusters 0..7, 100..106 and 1000..1003 and two loners: three table leaves; the loners are tests.
    const vals = [0, 1, 2, 3, 4, 5, 6, 7, 100, 101, 102, 103, 104, 105, 106, 1000, 1001, 1002, 1003, 50000, -16];
    const cases = vals.map((v, k) => [v, k + 1] as const);
    for (const type of ['S32', 'U32']) {
      const { fn, remarks } = lowerAndCheck(cascade(cases, 0, type), [...probe(-20, 10), ...probe(95, 110), ...probe(995, 1008), 49999, 50000, 50001, -2147483648, 2147483647]);
      expect(remarks[0]).toMatchObject({ args: { strategy: 'bst', cases: 21 } });
      expect(count(fn, 'JMX')).toBe(3);
      // A table whose bounds the splits do not imply clamps its index with an unsigned min (no extra branch).
      expect(count(fn, 'IMNMX')).toBeGreaterThan(0);
      expect(count(fn, 'ISETP')).toBeLessThanOrEqual(6);
    }
  });

  it('keeps a 3-case switch as a cascade', () => {
    const text = cascade([[1, 10], [5, 20], [9, 30]], 0);
    const { m, remarks } = lowerAndCheck(text, probe(0, 10));
    expect(printModule(m)).toBe(printModule(parseOri(text)));
    expect(remarks[0]).toMatchObject({ kind: 'analysis', args: { strategy: 'cascade', cases: 3 } });
  });

  it('tests runs of consecutive values with one target as ranges in the search tree', () => {
    // 0..3 -> A, 100..103 -> B, and six scattered values: sparse, so a BST over 8 ranges.
    const cases: Array<readonly [number, number]> = [];
    for (const v of [0, 1, 2, 3]) cases.push([v, 1]);
    for (const v of [100, 101, 102, 103]) cases.push([v, 2]);
    for (const v of [500, 900, 1300, 1700, 2100, 2500]) cases.push([v, v]);
    // Cases with the same result share a body only if their target is the same block: make them so.
    const text = cascade(cases, 0).replace(/@%p([1-3]) BRA c\1/g, '@%p$1 BRA c0').replace(/@%p([5-7]) BRA c\1/g, '@%p$1 BRA c4');
    const { remarks } = lowerAndCheck(text, probe(-2, 110, [499, 500, 501, 2500, 2501, 1300]));
    expect(remarks[0]).toMatchObject({ args: { strategy: 'bst', cases: 14 } });
  });

  it('handles unsigned selectors and negative signed cases', () => {
    const cases = Array.from({ length: 6 }, (_, k) => [k - 3, k + 40] as const);
    lowerAndCheck(cascade(cases, 7), probe(-6, 6, [-2147483648, 2147483647]));
    const ucases = Array.from({ length: 6 }, (_, k) => [0xfffffff0 + k, k + 40] as const);
    lowerAndCheck(cascade(ucases, 7, 'U32'), [0xffffffef, 0xfffffff0, 0xfffffff5, 0xfffffff6, 0, 1, 0xffffffff]);
  });
});

describe('DoSwitchOptSecond (30): recognition', () => {
  const tree = `.target sm_90
.entry @k(
  .param .u64 out c[0x0][0x210],
  .param .u64 in c[0x0][0x218]
)
{
bb0:
  %r0 = S2R SR_TID.X
  %rd0 = MOV c[0x0][0x218]
  %rd1 = IMAD.WIDE.U32 %r0, 4, %rd0
  %r1 = LDG.E.32 [%rd1]
  %r2 = MOV 99
  %p0 = ISETP.GT.S32.AND %r1, 4, PT
  @%p0 BRA hi
lo0:
  %p1 = ISETP.GT.S32.AND %r1, 1, PT
  @%p1 BRA mid
lo1:
  %p2 = ISETP.EQ.S32.AND %r1, 0, PT
  @%p2 BRA c0
lo2:
  %p3 = ISETP.EQ.S32.AND %r1, 1, PT
  @%p3 BRA c1
  BRA cd
mid:
  %p4 = ISETP.EQ.S32.AND %r1, 2, PT
  @%p4 BRA c2
m1:
  %p5 = ISETP.EQ.S32.AND %r1, 3, PT
  @%p5 BRA c3
m2:
  %p6 = ISETP.EQ.S32.AND %r1, 4, PT
  @%p6 BRA join
  BRA cd
hi:
  %p7 = ISETP.GT.S32.AND %r1, 6, PT
  @%p7 BRA top
h1:
  %p8 = ISETP.EQ.S32.AND %r1, 5, PT
  @%p8 BRA c5
h2:
  %p9 = ISETP.EQ.S32.AND %r1, 6, PT
  @%p9 BRA c6
  BRA cd
top:
  %p10 = ISETP.EQ.S32.AND %r1, 7, PT
  @%p10 BRA c7
t1:
  %p11 = ISETP.EQ.S32.AND %r1, 8, PT
  @%p11 BRA c8
t2:
  %p12 = ISETP.NE.S32.AND %r1, 9, PT
  @%p12 BRA cd
c9:
  %r2 = MOV -9
  BRA join
c0:
  %r2 = MOV 1
  BRA join
c1:
  %r2 = MOV 84
  BRA join
c2:
  %r2 = LDG.E.32 [%rd1+0x4]
  BRA join
c3:
  %r2 = MOV 48
  BRA join
c5:
  %r2 = MOV 5
  BRA join
c6:
  %r2 = MOV 36
  BRA join
c7:
  %r2 = MOV 1234
  BRA join
c8:
  %r2 = MOV 4
  BRA join
cd:
  %r2 = MOV 0
join:
  %rd2 = MOV c[0x0][0x210]
  %rd3 = IMAD.WIDE.U32 %r0, 4, %rd2
  STG.E.32 [%rd3], %r2
  EXIT
}
`;

  it("recognises nvcc's binary tree of setp/bra (GT splits, EQ and NE tests) as one 10-case switch", () => {
    const m = parseOri(tree);
    const fn = m.functions[0]!;
    const sw = recogniseSwitch(fn, layoutPositions(fn), fn.entry, DEFAULT_SWITCH_OPT)!;
    expect(sw).toBeDefined();
    expect(sw.inner).toHaveLength(12);
    expect(sw.cases.map((c) => c.v)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(sw.defaultTarget.label).toBe('cd');
    expect(sw.cases.find((c) => c.v === 4)!.target.label).toBe('join');
    expect(sw.cases.find((c) => c.v === 9)!.target.label).toBe('c9');
    expect(chooseStrategy(sw, DEFAULT_SWITCH_OPT).strategy).toBe('jump-table');
  });

  it('lowers the nvcc tree to one JMX and keeps results', () => {
    const { fn } = lowerAndCheck(tree, probe(-3, 12, [2147483647, -2147483648]));
    expect(count(fn, 'JMX')).toBe(1);
    expect(fn.blocks.map((b) => b.label)).not.toContain('lo1');
  });

  it('without SwitchOptExtendedPatternMatch accepts only ISETP.EQ + BRA cascades', () => {
    const fn = parseOri(tree).functions[0]!;
    expect(recogniseSwitch(fn, layoutPositions(fn), fn.entry, { budget: 1024, extended: false })).toBeUndefined();
    const cfn = parseOri(cascade([[1, 1], [2, 2], [3, 3], [4, 4], [5, 5]], 0)).functions[0]!;
    expect(recogniseSwitch(cfn, layoutPositions(cfn), cfn.entry, { budget: 1024, extended: false })?.cases).toHaveLength(5);
  });

  it('respects SwitchOptBudget and leaves a lone compare alone', () => {
    const fn = parseOri(cascade([[1, 1], [2, 2], [3, 3], [4, 4], [5, 5]], 0)).functions[0]!;
    expect(recogniseSwitch(fn, layoutPositions(fn), fn.entry, { budget: 3, extended: true })?.cases.length ?? 0).toBeLessThan(5);
    const one = parseOri(cascade([[1, 1]], 0)).functions[0]!;
    expect(recogniseSwitch(one, layoutPositions(one), one.entry, DEFAULT_SWITCH_OPT)).toBeUndefined();
  });

  it('does not take a compare node whose predicate is read elsewhere, nor a different selector', () => {
    const text = cascade([[1, 1], [2, 2], [3, 3], [4, 4], [5, 5], [6, 6]], 0).replace('  %p3 = ISETP.EQ.S32.AND %r1, 4, PT', '  %p3 = ISETP.EQ.S32.AND %r0, 4, PT');
    const fn = parseOri(text).functions[0]!;
    const sw = recogniseSwitch(fn, layoutPositions(fn), fn.entry, DEFAULT_SWITCH_OPT)!;
    expect(sw.cases.map((c) => c.v)).toEqual([1, 2, 3]);
    const reports = optimizeSwitches(parseOri(text).functions[0]!);
    expect(reports.map((r) => r.strategy)).toEqual(['cascade', 'cascade']);
  });
});
