import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { assertValidModule, parseOri, printModule } from '@ptxforge/kernel';
import { runKernel, type Launch } from '@ptxforge/interp';
import { makeTestContext, normalizeOri, runPhaseOnText } from '@ptxforge/opt-utils';
import { StrengthReducePhase } from './index.js';

/** Run a kernel before and after phase 21 and compare every buffer; returns whether the pass changed it. */
function runBoth(text: string, launch: Launch): { changed: boolean; before: number; after: number } {
  const m0 = parseOri(text);
  assertValidModule(m0, 'input');
  const r0 = runKernel(m0, launch);
  const m1 = parseOri(text);
  new StrengthReducePhase().execute(makeTestContext(m1));
  assertValidModule(m1, 'after OriStrengthReduce');
  const r1 = runKernel(m1, launch);
  const changed = printModule(m1) !== printModule(parseOri(text));
  if (!r0.ok) {
    // Only programs the interpreter completes are compared (a step-limit run has no defined result).
    return { changed, before: 0, after: 0 };
  }
  expect(r1.errors.map((e) => e.message), printModule(m1)).toEqual([]);
  for (const [name, b] of Object.entries(r0.buffers)) expect(Buffer.from(r1.buffers[name]!.bytes).toString('hex'), `${name}\n${printModule(m1)}`).toBe(Buffer.from(b.bytes).toString('hex'));
  return { changed, before: r0.counts.threadInstructions, after: r1.counts.threadInstructions };
}

const HEAD = `.target sm_90
.entry @k(
  .param .u64 a c[0x0][0x210],
  .param .u64 out c[0x0][0x218],
  .param .u32 n c[0x0][0x220],
  .param .u32 x c[0x0][0x224]
)
{
`;

/** nvcc-style counted loop: out[i] = 2*a[i] for i in [0, n), rotated with the `n < 1` guard. */
const COUNTED_WIDE = `${HEAD}bb0:
  %p0 = ISETP.LT.S32.AND c[0x0][0x220], 1, PT
  @%p0 BRA bb3
bb1:
  %rd0 = MOV c[0x0][0x210]
  %rd1 = MOV c[0x0][0x218]
  %r0 = MOV 0
bb2:
  %rd2 = IMAD.WIDE %r0, 4, %rd0
  %r1 = LDG.E.32 [%rd2]
  %r2 = IADD3 %r1, %r1, RZ
  %rd3 = IMAD.WIDE %r0, 4, %rd1
  STG.E.32 [%rd3], %r2
  %r0 = IADD3 %r0, 1, RZ
  %p1 = ISETP.LT.S32.AND %r0, c[0x0][0x220], PT
  @%p1 BRA bb2
bb3:
  EXIT
}
`;

const launchN = (n: number, x = 0, size = 64): Launch => ({
  grid: 1, block: 4,
  buffers: { a: { type: 's32', values: Array.from({ length: size }, (_, i) => i * 7 - 100) }, out: { type: 's32', count: size } },
  params: [{ buffer: 'a' }, { buffer: 'out' }, { type: 's32', value: n }, { type: 's32', value: x }],
  outputs: ['out'],
});

describe('OriStrengthReduce on counted loops (IMAD.WIDE, linear-function test replacement)', () => {
  it('reduces both address computations and moves the exit test onto the first', () => {
    const after = `${HEAD}bb0:
  %p0 = ISETP.LT.S32.AND c[0x0][0x220], 1, PT
  @%p0 BRA bb3
bb1:
  %rd0 = MOV c[0x0][0x210]
  %rd1 = MOV c[0x0][0x218]
  %r0 = MOV 0
  %rd2 = IMAD.WIDE %r0, 4, %rd0
  %rd3 = IMAD.WIDE %r0, 4, %rd1
  %rd4 = IMAD.WIDE c[0x0][0x220], 4, %rd0
bb2:
  %r1 = LDG.E.32 [%rd2]
  %r2 = IADD3 %r1, %r1, RZ
  STG.E.32 [%rd3], %r2
  %rd2 = IADD3 %rd2, 4, RZ
  %rd3 = IADD3 %rd3, 4, RZ
  %p1 = ISETP.NE.U64.AND %rd2, %rd4, PT
  @%p1 BRA bb2
bb3:
  EXIT
}
`;
    expect(runPhaseOnText(COUNTED_WIDE, new StrengthReducePhase())).toBe(normalizeOri(after));
  });

  it('computes the same memory for trip counts -5, 0, 1, 2 and 64 and saves one instruction per iteration', () => {
    for (const n of [0, 1, 2, 64, -5]) {
      const r = runBoth(COUNTED_WIDE, launchN(n));
      expect(r.changed).toBe(true);
      // 4 threads; per entry: 3 preheader instructions; per iteration: one update fewer.
      if (n >= 1) expect(r.after).toBe(r.before + 4 * (3 - n));
      else expect(r.after).toBe(r.before);
    }
  });

  it('keeps the loop when nothing proves i < n on entry (IMAD.WIDE would see i wrap)', () => {
    const noGuard = COUNTED_WIDE.replace('@%p0 BRA bb3', '@%p0 BRA bb1');
    expect(runPhaseOnText(noGuard, new StrengthReducePhase())).toBe(normalizeOri(noGuard));
  });

  it('keeps a grid-stride loop with a register step (its 32-bit i may wrap before the 64-bit address does)', () => {
    const gs = `${HEAD}bb0:
  %r0 = S2R SR_TID.X
  %r3 = MOV c[0x0][0x224]
  %p0 = ISETP.GE.S32.AND %r0, c[0x0][0x220], PT
  @%p0 BRA bb3
bb1:
  %rd0 = MOV c[0x0][0x218]
bb2:
  %rd2 = IMAD.WIDE %r0, 4, %rd0
  STG.E.32 [%rd2], %r0
  %r0 = IADD3 %r0, %r3, RZ
  %p1 = ISETP.LT.S32.AND %r0, c[0x0][0x220], PT
  @%p1 BRA bb2
bb3:
  EXIT
}
`;
    expect(runPhaseOnText(gs, new StrengthReducePhase())).toBe(normalizeOri(gs));
  });
});

describe('OriStrengthReduce on 32-bit forms', () => {
  // i runs down by 3 from x to x - 3*n (wrapping), exit test i != bound; t = 5*i + 7 is summed.
  const down = (form: string): string => `${HEAD}bb0:
  %r9 = MOV c[0x0][0x224]
  %r8 = IMAD c[0x0][0x220], -3, %r9
  %r5 = MOV 0
  %p0 = ISETP.EQ.AND %r8, %r9, PT
  @%p0 BRA bb3
bb1:
  %r0 = MOV %r9
bb2:
  ${form}
  %r5 = IADD3 %r5, %r1, RZ
  %r0 = IADD3 %r0, -3, RZ
  %p1 = ISETP.NE.AND %r0, %r8, PT
  @%p1 BRA bb2
bb3:
  %rd0 = MOV c[0x0][0x218]
  STG.E.32 [%rd0], %r5
  EXIT
}
`;
  it('reduces an odd-scale IMAD with a negative step and rewrites the i != bound test', () => {
    const out = runPhaseOnText(down('%r1 = IMAD %r0, 5, 7'), new StrengthReducePhase());
    expect(out).toContain('%r1 = IADD3 %r1, -15, RZ');
    expect(out).toContain('ISETP.NE.U32.AND %r1, %r2, PT');
    expect(out).not.toContain('%r0 = IADD3');
  });
  it('matches the untransformed program across wrap-around, for each 32-bit form', () => {
    const forms = ['%r1 = IMAD %r0, 5, 7', '%r1 = IMUL %r0, -7', '%r1 = IADD3 %r0, %r9, 11', '%r1 = IMAD 0x7fffffff, %r0, %r9', '%r1 = LEA %r0, %r9, 0', '%r1 = SHL %r0, 4'];
    for (const f of forms)
      for (const [n, x] of [[1, 0], [2, 5], [17, -0x7ffffff0], [300, 0x7fffff00], [0, 3]] as const) {
        const r = runBoth(down(f), launchN(n, x));
        if (f !== '%r1 = SHL %r0, 4') expect(r.changed, f).toBe(true); // even scales have no injective exit test
        if (n >= 3 && r.changed) expect(r.after).toBeLessThan(r.before);
      }
  });
});

/** Generated loops: form, step, initial value, exit test and guard vary; results must match. */
describe('OriStrengthReduce property: generated loops compute the same memory', () => {
  const FORMS = ['IMAD %r0, C, %r9', 'IMUL %r0, C', 'IADD3 %r0, %r9, C', 'WIDE', 'WIDEU'] as const;
  it('holds for random loops', () => {
    let changed = 0;
    fc.assert(
      fc.property(
        fc.constantFrom(...FORMS),
        fc.integer({ min: -9, max: 9 }),
        fc.constantFrom(1, 3, -1, -4, 0x10001, 2),
        fc.integer({ min: -3, max: 40 }),
        fc.constantFrom(0, 5, -7, 0x7fffffe0, -0x80000000),
        fc.constantFrom('LT', 'NE', 'EQ'),
        fc.boolean(),
        fc.boolean(),
        (form, scale, step, trip, c0, test, guard, liveOut) => {
          const wide = form === 'WIDE' || form === 'WIDEU';
          const n = test === 'LT' ? Math.min(0x7fffffff, c0 + trip) : (c0 + step * trip) | 0;
          const def = wide
            ? `%rd1 = IMAD.${form === 'WIDEU' ? 'WIDE.U32' : 'WIDE'} %r0, ${scale}, %rd0`
            : `%r1 = ${form.replace('C', String(scale))}`;
          const acc = wide ? '%rd5 = IADD3 %rd5, %rd1, RZ' : '%r5 = IADD3 %r5, %r1, RZ';
          const guardCmp = test === 'LT' ? `ISETP.LT.S32.AND %r8, ${c0 + 1}, PT` : 'ISETP.EQ.AND %r8, %r7, PT';
          const exit = test === 'EQ' ? `%p1 = ISETP.EQ.AND %r0, %r8, PT\n  @!%p1 BRA bb2` : `%p1 = ISETP.${test}${test === 'LT' ? '.S32' : ''}.AND %r0, %r8, PT\n  @%p1 BRA bb2`;
          const text = `${HEAD}bb0:
  %r9 = MOV c[0x0][0x224]
  %r8 = MOV c[0x0][0x220]
  %r7 = MOV ${c0}
  %rd0 = MOV c[0x0][0x210]
  %rd5 = MOV 0
  %r5 = MOV 0
  %r1 = MOV 0
  %rd1 = MOV 0
  %p0 = ${guardCmp}
  @%p0 BRA ${guard || c0 === 0x7fffffff ? 'bb3' : 'bb1'}
bb1:
  %r0 = MOV ${c0}
bb2:
  ${def}
  ${acc}
  %r0 = IADD3 %r0, ${test === 'LT' ? 1 : step}, RZ
  ${exit}
bb3:
  %rd2 = MOV c[0x0][0x218]
  STG.E.64 [%rd2], %rd5
  STG.E.32 [%rd2+0x8], %r5
  STG.E.32 [%rd2+0xc], ${liveOut ? (wide ? '%r5' : '%r1') : '%r5'}
  STG.E.64 [%rd2+0x10], ${liveOut && wide ? '%rd1' : '%rd5'}
  EXIT
}
`;
          const l = { ...launchN(n, 3, 8), maxSteps: 20000 };
          const r = runBoth(text, l);
          if (r.changed) {
            changed++;
            expect(r.after).toBeLessThanOrEqual(r.before + 4 * 4);
          }
        },
      ),
      { numRuns: 400, seed: 21 },
    );
    expect(changed).toBeGreaterThan(50);
  }, 60_000); // a property over many generated loops: seconds on a loaded machine
});
