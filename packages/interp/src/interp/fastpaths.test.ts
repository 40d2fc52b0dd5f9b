import { parseOri } from '@ptxforge/kernel';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toHex, runKernel } from '../launch.js';

/**
 * Every fast path must compute exactly what evaluatePure computes: run each form on random operands with
 * and without fast paths and compare the stored results bit for bit.
 */
const FORMS: string[] = [
  '%r9 = IADD3 %r1, %r2, %r3',
  '%r9 = IADD3 %r1, -%r2, %r3',
  '%r9 = IADD3 -%r1, 7, -%r3',
  '%rd9 = IADD3 %rd3, %rd4, %rd3',
  '%rd9 = IADD3 %rd3, -1, RZ',
  '%r9, %p2 = IADD3 %r1, %r2, %r3',
  '%r9, %p2, %p3 = IADD3 %r1, ~%r2, %r3, PT, PT',
  '%r9, PT, %p3 = IADD3 ~%r1, ~%r2, ~%r3, PT, %p1',
  '%r9 = IADD3.X %r1, %r2, RZ, %p1, !%p1',
  '%r9, %p2 = IADD3.X ~%r1, %r2, 7, %p1',
  '%r9 = IMAD %r1, %r2, %r3',
  '%r9 = IMAD %r1, -3, 5',
  '%rd9 = IMAD.WIDE.U32 %r1, %r2, %rd3',
  '%rd9 = IMAD.WIDE %r1, %r2, %rd3',
  '%rd9 = IMAD.WIDE %r1, -7, %rd4',
  '%p2 = ISETP.LT.AND %r1, %r2, %p1',
  '%p2 = ISETP.GE.U32.OR %r1, %r2, %p1',
  '%p2, %p3 = ISETP.NE.XOR %r1, %r3, !%p1',
  '%p2 = ISETP.LE.U32.AND %r1, 100, PT',
  '%r9 = LOP3.LUT %r1, %r2, %r3, 0xc0',
  '%r9 = LOP3.LUT %r1, %r2, %r3, 0x96',
  '%r9 = LOP3.LUT %r1, %r2, RZ, 0x3c',
  '%r9 = SHL %r1, %r5',
  '%r9 = SHR.U32 %r1, %r5',
  '%r9 = SHR.S32 %r1, %r5',
  '%r9 = LEA %r1, %r2, %r5',
  '%r9 = SEL %r1, %r2, %p1',
  '%r9 = SEL %r1, %r2, !%p1',
  '%r9 = FADD %r1, %r2',
  '%r9 = FMUL %r1, %r2',
  '%r9 = FFMA %r1, %r2, %r3',
  '%r9 = FFMA %r1, %r2, 0f3F800000',
  '%p2 = FSETP.LT.AND %r1, %r2, PT',
  '%p2, %p3 = FSETP.GEU.OR %r1, %r2, %p1',
  '%p2 = FSETP.NE.AND %r1, %r1, PT',
  '%r9 = MOV %r2',
  '%rd9 = MOV %rd4',
  '%p2 = COPY !%p1',
];

function kernelFor(form: string): string {
  return `.target sm_90
.entry @k(
  .param .u64 in c[0x0][0x210],
  .param .u64 out c[0x0][0x218]
)
{
bb0:
  %r0 = S2R SR_TID.X
  %rd0 = IMAD.WIDE.U32 %r0, 24, RZ
  %rd1 = MOV c[0x0][0x210]
  %rd2 = IADD3 %rd1, %rd0, RZ
  %r1 = LDG.E.32 [%rd2]
  %r2 = LDG.E.32 [%rd2+0x4]
  %r3 = LDG.E.32 [%rd2+0x8]
  %rd3 = LDG.E.64 [%rd2+0x8]
  %rd4 = LDG.E.64 [%rd2+0x10]
  %r5 = LOP3.LUT %r2, 63, RZ, 0xc0
  %p1 = ISETP.NE.U32.AND %r3, 0, PT
  %r9 = MOV 0x55555555
  %rd9 = MOV 0x1234567890
  %p2 = ISETP.EQ.U32.AND %r0, 3, PT
  %p3 = ISETP.EQ.U32.AND %r0, 5, PT
  ${form}
  %r10 = SEL 1, 0, %p2
  %r11 = SEL 2, 0, %p3
  %r10 = LOP3.LUT %r10, %r11, RZ, 0xfc
  %rd5 = IMAD.WIDE.U32 %r0, 16, RZ
  %rd6 = MOV c[0x0][0x218]
  %rd7 = IADD3 %rd6, %rd5, RZ
  STG.E.32 [%rd7], %r9
  STG.E.32 [%rd7+0x4], %r10
  STG.E.64 [%rd7+0x8], %rd9
  EXIT
}`;
}

const f32 = (x: number): number => new Uint32Array(new Float32Array([x]).buffer)[0]!;
const word = fc.oneof(
  fc.integer({ min: 0, max: 0xffffffff }),
  fc.constantFrom(0, 1, 2, 31, 32, 33, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffffe),
  fc.constantFrom(f32(1), f32(-0), f32(1.5), f32(-2.75), f32(1e-40), f32(3.4e38), 0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 1),
  fc.integer({ min: 0, max: 64 }),
);

describe('fast paths agree with evaluatePure', () => {
  for (const form of FORMS) {
    it(form, () => {
      const m = parseOri(kernelFor(form));
      fc.assert(
        fc.property(fc.array(word, { minLength: 32 * 6, maxLength: 32 * 6 }), (ws) => {
          const launch = {
            block: 32,
            buffers: { in: { type: 'u32' as const, values: ws }, out: { type: 'u32' as const, count: 32 * 4 } },
            params: [{ buffer: 'in' }, { buffer: 'out' }],
          };
          const fast = runKernel(m, launch, { fastPaths: true });
          const slow = runKernel(m, launch, { fastPaths: false });
          expect(fast.errors).toEqual([]);
          expect(slow.errors).toEqual([]);
          expect(toHex(fast.buffers.out!.bytes)).toBe(toHex(slow.buffers.out!.bytes));
        }),
        { numRuns: 15, seed: 42 },
      );
    });
  }
});
