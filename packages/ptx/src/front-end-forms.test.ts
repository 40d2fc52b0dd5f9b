import { runKernel } from '@ptxforge/interp';
import { verifyModule } from '@ptxforge/kernel';
import { describe, expect, it } from 'vitest';
import { lowerPtx } from './lower/module.js';
import { parsePtx } from './parser.js';

// Exact results of the forms docs/ori-semantics.md lists under "Added by the PTX front end", end to end:
// PTX -> Ori -> interpreter. Each kernel reads u32 words from `in` and writes u32 words to `out`.
const f32 = (x: number): number => new Uint32Array(new Float32Array([x]).buffer)[0]!;

function run(body: string, input: number[], outWords: number, extra = ''): number[] {
  const text = `.version 8.0
.target sm_90
.address_size 64
${extra}
.visible .entry k(.param .u64 pin, .param .u64 pout)
{
  .reg .u64 %in, %out;
  .reg .b32 %a<8>, %r<16>;
  .reg .b64 %x<8>, %y<8>;
  .reg .pred %p<4>;
  .reg .b16 %h<4>;
  .reg .f32 %f<8>;
  ld.param.u64 %in, [pin];
  ld.param.u64 %out, [pout];
  ld.global.u32 %a0, [%in];
  ld.global.u32 %a1, [%in+4];
  ld.global.u32 %a2, [%in+8];
  ld.global.u32 %a3, [%in+12];
  ld.global.u64 %x0, [%in];
  ld.global.u64 %x1, [%in+8];
${body}
  ret;
}`;
  const m = lowerPtx(parsePtx(text, 'k.ptx'), { target: { arch: 'sm_90', capabilities: { paramBase: 0x210 } } });
  expect(verifyModule(m)).toEqual([]);
  const words = [...input];
  while (words.length < 4) words.push(0);
  const r = runKernel(m, {
    kernel: 'k', grid: [1], block: [1],
    buffers: { in: { type: 'u32', values: words }, out: { type: 'u32', count: outWords } },
    params: [{ buffer: 'in' }, { buffer: 'out' }],
  });
  expect(r.errors.map((e) => e.message)).toEqual([]);
  const b = r.buffers.out!.bytes;
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  return Array.from({ length: outWords }, (_, i) => dv.getUint32(4 * i, true));
}
const lo = (v: bigint): number => Number(v & 0xffffffffn);
const hi = (v: bigint): number => Number((v >> 32n) & 0xffffffffn);
const words64 = (...v: bigint[]): number[] => v.flatMap((x) => [lo(x), hi(x)]);

describe('64-bit high products (IMAD.HI.U64 / .S64)', () => {
  const cases: Array<[bigint, bigint]> = [
    [-1n, -1n], [-1n, 2n], [-(1n << 63n), -(1n << 63n)], [-(1n << 63n), 1n], [0x123456789abcdefn, -0x7edcba987654321n], [(1n << 64n) - 1n, (1n << 64n) - 1n],
  ];
  for (const [a, b] of cases) {
    it(`mul.hi of ${a} and ${b}`, () => {
      const ua = BigInt.asUintN(64, a);
      const ub = BigInt.asUintN(64, b);
      const out = run(`
  mul.hi.u64 %y0, %x0, %x1;
  mul.hi.s64 %y1, %x0, %x1;
  mad.hi.s64 %y2, %x0, %x1, %x0;
  st.global.u64 [%out], %y0;
  st.global.u64 [%out+8], %y1;
  st.global.u64 [%out+16], %y2;`, words64(ua, ub), 6);
      const sa = BigInt.asIntN(64, a);
      const sb = BigInt.asIntN(64, b);
      expect(out).toEqual(words64(
        BigInt.asUintN(64, (ua * ub) >> 64n),
        BigInt.asUintN(64, (sa * sb) >> 64n),
        BigInt.asUintN(64, ((sa * sb) >> 64n) + ua),
      ));
    });
  }
});

describe('carry chains (IADD3 carry out, ~b, IADD3.X)', () => {
  const M128 = (1n << 128n) - 1n;
  const cases: Array<[bigint, bigint]> = [
    [M128, 1n], [0n, 1n], [1n << 64n, 1n], [0xffffffff_ffffffff_00000000_ffffffffn, 0x1_00000001n], [5n, 5n], [0x8000000000000000n, 0x8000000000000001n],
  ];
  for (const [a, b] of cases) {
    it(`128-bit add and subtract of ${a.toString(16)} and ${b.toString(16)} as u64 and u32 chains`, () => {
      const input = words64(a & 0xffffffffffffffffn, a >> 64n);
      // b lives in registers built from immediates so the chains see register and immediate operands.
      const out = run(`
  mov.b64 %x2, ${b & 0xffffffffffffffffn};
  mov.b64 %x3, ${b >> 64n};
  add.cc.u64 %y0, %x0, %x2;
  addc.cc.u64 %y1, %x1, %x3;
  addc.u32 %r0, 0, 0;
  sub.cc.u64 %y2, %x0, %x2;
  subc.cc.u64 %y3, %x1, %x3;
  subc.u32 %r1, 0, 0;
  st.global.u64 [%out], %y0;
  st.global.u64 [%out+8], %y1;
  st.global.u64 [%out+16], %y2;
  st.global.u64 [%out+24], %y3;
  st.global.u32 [%out+32], %r0;
  st.global.u32 [%out+36], %r1;
  mov.b32 %r2, ${lo(b)};
  sub.cc.u32 %r3, %a0, %r2;
  subc.cc.u32 %r4, %a1, ${hi(b)};
  subc.cc.u32 %r5, %a2, 0;
  subc.cc.u32 %r6, %a3, 0;
  subc.u32 %r7, 0, 0;
  st.global.v4.u32 [%out+48], {%r3, %r4, %r5, %r6};
  st.global.u32 [%out+64], %r7;`, input, 17);
      const sum = a + b;
      const diff = BigInt.asUintN(128, a - b);
      const lowDiff = BigInt.asUintN(128, a - (b & 0xffffffffffffffffn));
      expect(out.slice(0, 8)).toEqual(words64(sum & 0xffffffffffffffffn, (sum >> 64n) & 0xffffffffffffffffn, diff & 0xffffffffffffffffn, diff >> 64n));
      // addc of the final carry; subc of 0 - 0 - borrow is -borrow (PTX: the carry is "no borrow").
      expect(out[8]).toBe(sum > M128 ? 1 : 0);
      expect(out[9]).toBe(a < b ? 0xffffffff : 0);
      expect(out.slice(12, 16)).toEqual(words64(lowDiff & 0xffffffffffffffffn, lowDiff >> 64n));
      expect(out[16]).toBe(a < (b & 0xffffffffffffffffn) ? 0xffffffff : 0);
    });
  }
});

describe('.ftz forms flush f32 denormal inputs and results (sign kept)', () => {
  const DEN = 0x00000001;
  const NDEN = 0x80000003;
  it('MUFU, FMNMX, FDIV, FSQRT, F2I, F2F, FRND with .FTZ', () => {
    const out = run(`
  mov.b32 %f0, %a0;
  mov.b32 %f1, %a1;
  ex2.approx.ftz.f32 %f2, %f1;
  st.global.f32 [%out], %f2;
  rcp.approx.ftz.f32 %f2, %f1;
  st.global.f32 [%out+4], %f2;
  min.ftz.f32 %f2, %f0, %f1;
  st.global.f32 [%out+8], %f2;
  max.ftz.f32 %f2, %f1, %f0;
  st.global.f32 [%out+12], %f2;
  div.rn.ftz.f32 %f2, %f0, 0f7F000000;
  st.global.f32 [%out+16], %f2;
  sqrt.rn.ftz.f32 %f2, %f1;
  st.global.f32 [%out+20], %f2;
  cvt.rpi.ftz.s32.f32 %r0, %f0;
  st.global.u32 [%out+24], %r0;
  cvt.rpi.s32.f32 %r0, %f0;
  st.global.u32 [%out+28], %r0;
  cvt.rni.ftz.f32.f32 %f2, %f1;
  st.global.f32 [%out+32], %f2;
  cvt.ftz.f32.f32 %f2, %f1;
  st.global.f32 [%out+36], %f2;
  mul.ftz.f32 %f2, %f0, 0f3F000000;
  st.global.f32 [%out+40], %f2;
  mul.f32 %f2, %f0, 0f3F000000;
  st.global.f32 [%out+44], %f2;
  div.rn.f32 %f2, %f1, 0f40000000;
  st.global.f32 [%out+48], %f2;`, [DEN, NDEN], 13);
    expect(out).toEqual([
      f32(1), // ex2(-0) = 1
      0xff800000, // rcp(-0) = -inf
      0x80000000, // min(+0, -0) = -0 after flushing
      0x00000000, // max(-0, +0) = +0
      0x00000000, // 2^-149 / 2^127: denormal input flushed first
      0x80000000, // sqrt(-0) = -0
      0, // ceil(+0) = 0 with FTZ
      1, // ceil(2^-149) = 1 without
      0x80000000,
      0x80000000,
      0, // the tiny product flushes
      0x00000000, // 2^-150 rounds to even: 0
      0x80000002, // -3 * 2^-149 / 2 = -1.5 ulp: ties to even 2 ulp
    ]);
  });
  it('f16 arithmetic with .ftz flushes f16 subnormals (HADD2/HMUL2/HFMA2)', () => {
    const out = run(`
  mov.b32 {%h0, %h1}, %a0;
  add.ftz.f16 %h2, %h0, %h0;
  add.f16 %h3, %h0, %h0;
  mov.b32 %r0, {%h2, %h3};
  st.global.u32 [%out], %r0;
  mul.ftz.f16 %h2, %h1, %h1;
  fma.rn.ftz.f16 %h3, %h0, %h1, %h0;
  mov.b32 %r0, {%h2, %h3};
  st.global.u32 [%out+4], %r0;`, [0x3c000001], 2);
    // h0 = 2^-24 (subnormal), h1 = 1.0
    expect(out).toEqual([0x0002_0000, 0x0000_3c00]);
  });
});

describe('fp8 conversions (F2F with .E4M3 / .E5M2)', () => {
  it('f32 pairs to e4m3x2 / e5m2x2 with satfinite and relu, and back to f16x2', () => {
    const out = run(`
  mov.b32 %f0, %a0;
  mov.b32 %f1, %a1;
  cvt.rn.satfinite.e4m3x2.f32 %h0, %f0, %f1;
  cvt.rn.satfinite.e5m2x2.f32 %h1, %f0, %f1;
  mov.b32 %r0, {%h0, %h1};
  st.global.u32 [%out], %r0;
  cvt.rn.satfinite.relu.e4m3x2.f32 %h0, %f0, %f1;
  cvt.rn.f16x2.e4m3x2 %r1, %h0;
  st.global.u32 [%out+4], %r1;
  cvt.rn.satfinite.e4m3x2.f16x2 %h2, %a2;
  cvt.rn.f16x2.e5m2x2 %r2, %h1;
  cvt.rn.relu.f16x2.e5m2x2 %r3, %h1;
  mov.b32 %r4, {%h0, %h2};
  st.global.v4.u32 [%out+8], {%r2, %r3, %r4, %r1};`, [f32(-1000), f32(0.40625), 0xfc00_3c00], 6);
    // e4m3: -1000 -> -448 (0xfe), 0.40625 -> 0x2d; e5m2: -1000 -> -1024 (0xe4), 0.40625 -> 0.375 (0x36)
    expect(out[0]).toBe(0xe436_fe2d);
    expect(out[1]).toBe(0x00003680); // relu: {+0, 0.40625} as f16
    expect(out[2]).toBe(0xe4003600); // {-1024, 0.375}
    expect(out[3]).toBe(0x00003600); // relu
    expect(out[4]).toBe(0xfe38_002d); // {relu byte pair, e4m3x2 of {-inf, 1}}
  });
});

describe('other front-end forms', () => {
  it('.pred parameters and results across CALL/RET, kernel parameter addresses, fences, hints', () => {
    const out = run(`
  setp.gt.u32 %p0, %a0, 5;
  call (%p1), inv, (%p0);
  selp.u32 %r0, 7, 9, %p1;
  st.global.u32 [%out], %r0;
  mov.b64 %x4, pout;
  ld.param.u64 %x5, [%x4];
  setp.eq.u64 %p2, %x5, %out;
  selp.u32 %r1, 1, 0, %p2;
  st.global.u32 [%out+4], %r1;
  membar.gl;
  fence.sc.cta;
  fence.proxy.async;
  prefetch.global.L2 [%in];
  nanosleep.u32 10;`, [9], 2, `.func (.reg .pred r) inv(.reg .pred q)
{
  not.pred r, q;
  ret;
}`);
    expect(out).toEqual([9, 1]);
  });
});

describe('f16 compares with .ftz', () => {
  it('setp.ftz.f16 and set.ftz.f16x2 flush f16 subnormals before comparing', () => {
    const out = run(`
  mov.b32 {%h0, %h1}, %a0;
  setp.eq.ftz.f16 %p0, %h0, %h1;
  setp.eq.f16 %p1, %h0, %h1;
  selp.u32 %r0, 1, 0, %p0;
  selp.u32 %r1, 1, 0, %p1;
  set.eq.ftz.u32.f16x2 %r2, %a0, %a1;
  set.eq.u32.f16x2 %r3, %a0, %a1;
  st.global.v4.u32 [%out], {%r0, %r1, %r2, %r3};`, [0x80000001, 0x00008000], 4);
    // h0 = 2^-24, h1 = -0: equal only when flushed; lanes of a1 = {-0, +0}
    expect(out).toEqual([1, 0, 0xffffffff, 0xffff0000]);
  });
});
