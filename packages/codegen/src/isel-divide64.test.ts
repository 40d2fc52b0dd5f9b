// 64-bit integer division and remainder (div/rem.u64/.s64, issue #16: SineWaveSimulation, radixSortThrust,
// segmentationTreeThrust): PTX → our sm_90 cubin (isel-divide64.ts, ptxas's reciprocal + Newton sequence) →
// lifted run, bit-identical to the interpreter's PTX path and to BigInt arithmetic, 0 hazards.
import { describe, expect, it } from 'vitest';
import { createToolchain } from '@ptxforge/kernel';
import corePlugin from '@ptxforge/plugin-core';
import { ptxFrontendPlugin } from '@ptxforge/ptx';
import targetSm90Plugin from '@ptxforge/target-sm90';
import { runKernel, type Launch } from '@ptxforge/interp';
import { runCubin } from '@ptxforge/sass-lift';
import { decodeCubin } from './decoded-cubin.test-util.js';
import { compileToCubin } from './index.js';

const tc = createToolchain({ plugins: [corePlugin, ptxFrontendPlugin, targetSm90Plugin] });
const M64 = (1n << 64n) - 1n;
const MIN = 1n << 63n;


const ptxOf = (body: string): string => `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 input, .param .u64 output) {
  .reg .u64 %rd<16>;
  .reg .b32 %r<2>;
  ld.param.u64 %rd1, [input];
  ld.param.u64 %rd2, [output];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 16;
  add.u64 %rd4, %rd1, %rd3;
  ld.global.u64 %rd5, [%rd4];
  ld.global.u64 %rd6, [%rd4+8];
  mul.wide.u32 %rd3, %r1, 32;
  add.u64 %rd7, %rd2, %rd3;
${body}
  ret;
}`;

const ALL_FOUR = `  div.u64 %rd8, %rd5, %rd6;
  rem.u64 %rd9, %rd5, %rd6;
  div.s64 %rd10, %rd5, %rd6;
  rem.s64 %rd11, %rd5, %rd6;
  st.global.u64 [%rd7], %rd8;
  st.global.u64 [%rd7+8], %rd9;
  st.global.u64 [%rd7+16], %rd10;
  st.global.u64 [%rd7+24], %rd11;`;

const s64 = (x: bigint): bigint => BigInt.asIntN(64, x);
const u64 = (x: bigint): bigint => BigInt.asUintN(64, x);
/** What the GPU gives (ptxas 13, sm_90): truncating; by zero all ones; MIN / -1 = MIN, MIN % -1 = 0. */
function expected(a: bigint, b: bigint): bigint[] {
  if (b === 0n) return [M64, M64, M64, M64];
  return [a / b, a % b, u64(s64(a) / s64(b)), u64(s64(a) % s64(b))];
}

/** Deterministic pseudo-random 64-bit values of every bit length (xorshift). */
function* randoms(n: number, seed: bigint): Generator<bigint> {
  let x = seed;
  for (let i = 0; i < n; i++) {
    x ^= (x << 13n) & M64;
    x ^= x >> 7n;
    x ^= (x << 17n) & M64;
    yield x >> BigInt(i % 64);
  }
}

function pairsBuffer(pairs: Array<[bigint, bigint]>): Buffer {
  const b = Buffer.alloc(16 * pairs.length);
  pairs.forEach(([x, y], i) => {
    b.writeBigUInt64LE(u64(x), 16 * i);
    b.writeBigUInt64LE(u64(y), 16 * i + 8);
  });
  return b;
}

function run(pairs: Array<[bigint, bigint]>, body = ALL_FOUR): { out: Buffer; texts: string[] } {
  const ptx = ptxOf(body);
  const launch: Launch = {
    kernel: 'k', grid: [1, 1, 1], block: [pairs.length, 1, 1],
    buffers: { input: { hex: pairsBuffer(pairs).toString('hex') }, output: { hex: '00'.repeat(32 * pairs.length) } },
    params: [{ buffer: 'input' }, { buffer: 'output' }], outputs: ['output'],
  };
  const r = compileToCubin(tc, ptx, { arch: 'sm_90', file: 'k.ptx', optLevel: 3 });
  expect(r.kernels.every((k) => k.hazards === 0)).toBe(true);
  const { texts, hazards } = decodeCubin(tc, r.cubin);
  expect(hazards).toBe(0);
  const ref = runKernel(tc.compile({ text: ptx, file: 'k.ptx' }, { arch: 'sm_90', optLevel: 3 }).module, launch);
  expect(ref.errors ?? []).toEqual([]);
  const got = runCubin(r.cubin, launch);
  expect(got.result.errors).toEqual([]);
  const out = Buffer.from(got.result.buffers.output!.bytes);
  expect(out.toString('hex')).toBe(Buffer.from(ref.buffers.output!.bytes).toString('hex'));
  return { out, texts };
}

describe('64-bit integer division and remainder: PTX → sm_90 cubin → lifted run', () => {
  it('edge cases: 0, 1, 2^64-1, INT64_MIN / -1, division by zero, signs, powers of two, 32-bit boundaries', () => {
    const vals = [0n, 1n, 2n, 3n, 7n, 0xffffffffn, 0x100000000n, 0x100000001n, MIN - 1n, MIN, MIN + 1n, M64 - 1n, M64, u64(-7n)];
    const pairs: Array<[bigint, bigint]> = [];
    for (const a of vals) for (const b of vals) pairs.push([a, b]);
    for (let i = 0; i < pairs.length; i += 128) {
      const chunk = pairs.slice(i, i + 128);
      const { out, texts } = run(chunk);
      chunk.forEach(([a, b], t) => {
        const want = expected(a, b);
        for (let k = 0; k < 4; k++) expect(out.readBigUInt64LE(32 * t + 8 * k), `${a} ${['/', '%', '/s', '%s'][k]} ${b}`).toBe(want[k]);
      });
      // ptxas's reciprocal seed: I2F.U64.RP, MUFU.RCP, F2I.U64.TRUNC
      expect(texts.some((t) => t.startsWith('I2F.U64.RP'))).toBe(true);
      expect(texts.some((t) => t.startsWith('F2I.U64.TRUNC'))).toBe(true);
    }
  });

  it('pseudo-random operands of every bit length (quotients needing both corrections)', () => {
    const as = [...randoms(96, 0x9e3779b97f4a7c15n)];
    const bs = [...randoms(96, 0x2545f4914f6cdd1dn)].map((b, i) => (i % 3 === 0 ? b >> 32n : b));
    const pairs = as.map((a, i): [bigint, bigint] => [a, bs[i]!]);
    // dividends just below a multiple of the divisor (the estimate's worst case)
    for (const b of bs.slice(0, 32)) if (b) pairs.push([u64((M64 / b) * b - 1n), b]);
    const { out } = run(pairs);
    pairs.forEach(([a, b], t) => {
      const want = expected(a, b);
      for (let k = 0; k < 4; k++) expect(out.readBigUInt64LE(32 * t + 8 * k)).toBe(want[k]);
    });
  });

  it('a constant divisor and a guarded division select too', () => {
    const body = `  .reg .pred %p<2>;
  div.u64 %rd8, %rd5, 1000000007;
  rem.s64 %rd9, %rd5, -3;
  setp.ne.u64 %p1, %rd6, 5;
  mov.u64 %rd10, 77;
@%p1 div.s64 %rd10, %rd5, %rd6;
  st.global.u64 [%rd7], %rd8;
  st.global.u64 [%rd7+8], %rd9;
  st.global.u64 [%rd7+16], %rd10;`;
    const pairs: Array<[bigint, bigint]> = [[123456789012345n, 5n], [M64, 3n], [MIN, 0n], [u64(-1000n), 7n]];
    const { out } = run(pairs, body);
    pairs.forEach(([a, b], t) => {
      expect(out.readBigUInt64LE(32 * t)).toBe(a / 1000000007n);
      expect(out.readBigUInt64LE(32 * t + 8)).toBe(u64(s64(a) % -3n));
      expect(out.readBigUInt64LE(32 * t + 16)).toBe(b === 5n ? 77n : expected(a, b)[2]);
    });
  });
});
