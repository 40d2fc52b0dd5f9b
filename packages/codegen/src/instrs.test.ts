// The PTX real programs use (issue #16, CUDA samples): f64 atomics, warp reductions and matches, grid dependency
// control, barrier reductions, traps. Each case compiles PTX → our sm_90 cubin, checks the words with the hazard
// checker, lifts the cubin and runs it in the interpreter beside the PTX path: the outputs must be the same bytes.
import { describe, expect, it } from 'vitest';
import { createToolchain } from '@ptxforge/kernel';
import corePlugin from '@ptxforge/plugin-core';
import { ptxFrontendPlugin } from '@ptxforge/ptx';
import targetSm90Plugin from '@ptxforge/target-sm90';
import type { Launch } from '@ptxforge/interp';
import { launchOf, PTX_HEAD_SM90, sameAsPtxPath as sameAsPtxPathIn } from './decoded-cubin.test-util.js';

const tc = createToolchain({ plugins: [corePlugin, ptxFrontendPlugin, targetSm90Plugin] });
const sameAsPtxPath = (ptx: string, launch: Launch, arch = 'sm_90') => sameAsPtxPathIn(tc, ptx, launch, arch);
const HEAD = PTX_HEAD_SM90;

describe('PTX → sm_90 cubin → lifted run: instructions of the CUDA samples', () => {
  it('f64 atomic add: global (ATOMG.E.ADD.F64.RN), unused result (RED.E.ADD.F64.RN), shared (ATOMS.CAST.SPIN.64 loop)', () => {
    const ptx = `${HEAD}.visible .entry k(.param .u64 input, .param .u64 output) {
  .reg .u64 %rd<12>;
  .reg .f64 %fd<8>;
  .reg .b32 %r<4>;
  .reg .pred %p<2>;
  .shared .align 8 .f64 acc[2];
  ld.param.u64 %rd1, [output];
  ld.param.u64 %rd3, [input];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd3, %rd3;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 8;
  add.u64 %rd4, %rd3, %rd2;
  ld.global.f64 %fd1, [%rd4];
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra.uni SKIP;
  mov.f64 %fd7, 0d3FF0000000000000;
  st.shared.f64 [acc], %fd7;
  st.shared.f64 [acc+8], %fd7;
SKIP:
  bar.sync 0;
  atom.global.add.f64 %fd2, [%rd1], %fd1;
  red.global.sys.add.f64 [%rd1+8], %fd1;
  atom.global.cta.add.f64 %fd6, [%rd1+16], %fd1;
  mov.u64 %rd5, acc;
  atom.shared.add.f64 %fd3, [%rd5], %fd1;
  red.shared.add.f64 [%rd5+8], %fd1;
  bar.sync 0;
  ld.shared.f64 %fd4, [acc];
  ld.shared.f64 %fd5, [acc+8];
  st.global.f64 [%rd1+24], %fd4;
  st.global.f64 [%rd1+32], %fd5;
  add.u64 %rd6, %rd1, 40;
  add.u64 %rd6, %rd6, %rd2;
  add.f64 %fd2, %fd2, %fd3;
  add.f64 %fd2, %fd2, %fd6;
  st.global.f64 [%rd6], %fd2;
  ret;
}`;
    // exact sums in any order: 1.5 + 2.25 - 0.5 + 2^-1074 (a subnormal: f64 atomics keep it) + 8
    const vals = [1.5, 2.25, -0.5, 5e-324, 8];
    const input = Buffer.alloc(8 * vals.length);
    vals.forEach((v, i) => input.writeDoubleLE(v, 8 * i));
    const { out, texts } = sameAsPtxPath(ptx, launchOf(vals.length, input, 40 + 8 * vals.length));
    const o = Buffer.from(out, 'hex');
    const sum = vals.reduce((a, b) => a + b, 0);
    expect(o.readDoubleLE(0)).toBe(sum);
    expect(o.readDoubleLE(8)).toBe(sum);
    expect(o.readDoubleLE(16)).toBe(sum);
    expect(o.readDoubleLE(24)).toBe(1 + sum);
    expect(o.readDoubleLE(32)).toBe(1 + sum);
    for (const t of ['ATOMG.E.ADD.F64.RN.STRONG.GPU PT, R', 'ATOMG.E.ADD.F64.RN.STRONG.SM PT, R', 'RED.E.ADD.F64.RN.STRONG.SYS desc']) {
      expect(texts.some((x) => x.includes(t)), `${t} in\n${texts.join('\n')}`).toBe(true);
    }
    expect(texts.filter((t) => t.includes('ATOMS.CAST.SPIN.64 '))).toHaveLength(2);
  });

  it('brev.b64: two BREVs with the halves swapped, also in place (the result register is the source)', () => {
    const ptx = `${HEAD}.visible .entry k(.param .u64 input, .param .u64 output) {
  .reg .u64 %rd<10>;
  .reg .b32 %r<2>;
  ld.param.u64 %rd1, [input];
  ld.param.u64 %rd2, [output];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 8;
  add.u64 %rd4, %rd1, %rd3;
  ld.global.u64 %rd5, [%rd4];
  brev.b64 %rd6, %rd5;
  add.u64 %rd7, %rd2, %rd3;
  st.global.u64 [%rd7], %rd6;
  brev.b64 %rd5, %rd5;
  xor.b64 %rd5, %rd5, %rd6;
  st.global.u64 [%rd7+256], %rd5;
  brev.b64 %rd5, %rd6;
  st.global.u64 [%rd7+512], %rd5;
  ret;
}`;
    const vals = [0n, 1n, 0x8000000000000000n, 0x0123456789abcdefn, 0xffffffff00000000n, 0xdeadbeefcafef00dn, 2n ** 64n - 1n, 0x00000001_80000000n];
    const input = Buffer.alloc(8 * 32);
    for (let i = 0; i < 32; i++) input.writeBigUInt64LE(vals[i % vals.length]! ^ BigInt(i * 0x1010101), 8 * i);
    const rev = (x: bigint): bigint => BigInt(`0b${x.toString(2).padStart(64, '0').split('').reverse().join('')}`);
    const { out, texts } = sameAsPtxPath(ptx, launchOf(32, input, 768));
    const o = Buffer.from(out, 'hex');
    for (let i = 0; i < 32; i++) {
      const x = input.readBigUInt64LE(8 * i);
      expect(o.readBigUInt64LE(8 * i)).toBe(rev(x));
      expect(o.readBigUInt64LE(256 + 8 * i)).toBe(0n); // brev in place equals brev into another register
      expect(o.readBigUInt64LE(512 + 8 * i)).toBe(x);
    }
    expect(texts.filter((t) => /\bBREV R\d+, R\d+/.test(t)).length).toBeGreaterThanOrEqual(4);
  });

  it('min/max on f16x2, bf16x2, f16 and bf16, with .NaN, .ftz and .xorsign.abs: every lane as the PTX ISA says', () => {
    const forms = ['max.f16x2', 'min.f16x2', 'min.NaN.f16x2', 'max.NaN.bf16x2', 'min.bf16x2', 'max.ftz.f16x2', 'min.ftz.NaN.f16x2', 'min.xorsign.abs.f16x2', 'max.NaN.xorsign.abs.bf16x2'];
    const scalar = ['min.f16', 'max.NaN.bf16', 'max.ftz.f16', 'max.xorsign.abs.f16'];
    const body = [
      ...forms.map((f, k) => `  ${f} %r${10 + k}, %r1, %r2;\n  st.global.b32 [%rd5+${k * 128}], %r${10 + k};`),
      ...scalar.map((f, k) => `  ${f} %rs${3 + k}, %rs1, %rs2;\n  st.global.b16 [%rd6+${k * 64}], %rs${3 + k};`),
    ].join('\n');
    const ptx = `${HEAD}.visible .entry k(.param .u64 input, .param .u64 output) {
  .reg .u64 %rd<8>;
  .reg .b32 %r<24>;
  .reg .b16 %rs<8>;
  ld.param.u64 %rd1, [input];
  ld.param.u64 %rd2, [output];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r3, %tid.x;
  mul.wide.u32 %rd3, %r3, 8;
  add.u64 %rd4, %rd1, %rd3;
  ld.global.b32 %r1, [%rd4];
  ld.global.b32 %r2, [%rd4+4];
  mov.b32 {%rs1, %rs7}, %r1;
  mov.b32 {%rs2, %rs7}, %r2;
  mul.wide.u32 %rd3, %r3, 4;
  add.u64 %rd5, %rd2, %rd3;
  mul.wide.u32 %rd3, %r3, 2;
  add.u64 %rd6, %rd2, %rd3;
  add.u64 %rd6, %rd6, ${forms.length * 128};
${body}
  ret;
}`;
    // f16 / bf16 specials: ±0, ±1, subnormals, max finite, ±inf, NaNs with payloads
    const f16 = [0x0000, 0x8000, 0x3c00, 0xbc00, 0x0001, 0x8001, 0x03ff, 0x7bff, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xfe12, 0x4200, 0xc500, 0x3555];
    const bf = [0x0000, 0x8000, 0x3f80, 0xbf80, 0x0001, 0x8001, 0x007f, 0x7f7f, 0x7f80, 0xff80, 0x7fc0, 0x7f81, 0xffc5, 0x4040, 0xc0a0, 0x3eab];
    const input = Buffer.alloc(8 * 32);
    for (let i = 0; i < 32; i++) {
      const j = (i * 7 + 3) % 16;
      input.writeUInt16LE(f16[i % 16]!, 8 * i);
      input.writeUInt16LE(bf[i % 16]!, 8 * i + 2);
      input.writeUInt16LE(f16[j]!, 8 * i + 4);
      input.writeUInt16LE(bf[j]!, 8 * i + 6);
    }
    const outBytes = forms.length * 128 + scalar.length * 64;
    const { out } = sameAsPtxPath(ptx, launchOf(32, input, outBytes));
    const o = Buffer.from(out, 'hex');
    const f16Value = (h: number): number => {
      const e = (h >> 10) & 31;
      const m = h & 1023;
      const v = e === 31 ? (m ? NaN : Infinity) : e === 0 ? m * 2 ** -24 : (1 + m / 1024) * 2 ** (e - 15);
      return h & 0x8000 ? -v : v;
    };
    const bfValue = (h: number): number => new Float32Array(new Uint32Array([h << 16]).buffer)[0]!;
    const model = (form: string, x: number, y: number): number => {
      const isBf = form.includes('bf16');
      const val = isBf ? bfValue : f16Value;
      const ftz = (h: number): number => (form.includes('ftz') && (h & 0x7c00) === 0 ? h & 0x8000 : h);
      const xs = form.includes('xorsign');
      const [a, b] = [ftz(x), ftz(y)].map((h) => (xs ? h & 0x7fff : h)) as [number, number];
      const sign = xs ? (x ^ y) & 0x8000 : 0;
      const [va, vb] = [val(a), val(b)];
      if (Number.isNaN(va) || Number.isNaN(vb)) {
        if (form.includes('NaN') || (Number.isNaN(va) && Number.isNaN(vb))) return 0x7fff;
        return (Number.isNaN(va) ? b : a) | sign;
      }
      const min = form.startsWith('min');
      if (va === vb) return (min === !!(a & 0x8000) ? a : b) | sign;
      return (min === va < vb ? a : b) | sign;
    };
    for (let i = 0; i < 32; i++) {
      const w = [0, 1, 2, 3].map((k) => input.readUInt16LE(8 * i + 2 * k)); // a.lo, a.hi, b.lo, b.hi
      forms.forEach((f, k) => {
        const got = o.readUInt32LE(k * 128 + 4 * i);
        const want = model(f, w[0]!, w[2]!) | (model(f, w[1]!, w[3]!) << 16);
        expect(got >>> 0, `${f} lane ${i}: ${w.map((x) => x.toString(16))}`).toBe(want >>> 0);
      });
      scalar.forEach((f, k) => {
        const got = o.readUInt16LE(forms.length * 128 + k * 64 + 2 * i);
        expect(got, `${f} thread ${i}`).toBe(model(f, w[0]!, w[2]!));
      });
    }
  });

  it('sqrt.rz/rm/rp.f32 (and .ftz): the correctly rounded root stepped by the exact residual, against an f64 model', () => {
    const forms = ['sqrt.rz.f32', 'sqrt.rm.f32', 'sqrt.rp.f32', 'sqrt.rz.ftz.f32', 'sqrt.rp.ftz.f32', 'sqrt.rn.f32'];
    const ptx = `${HEAD}.visible .entry k(.param .u64 input, .param .u64 output) {
  .reg .u64 %rd<8>;
  .reg .b32 %r<4>;
  .reg .f32 %f<12>;
  ld.param.u64 %rd1, [input];
  ld.param.u64 %rd2, [output];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.u64 %rd4, %rd1, %rd3;
  ld.global.f32 %f1, [%rd4];
  add.u64 %rd5, %rd2, %rd3;
${forms.map((f, k) => `  ${f} %f${2 + k}, %f1;\n  st.global.f32 [%rd5+${k * 256}], %f${2 + k};`).join('\n')}
  ret;
}`;
    const bits = [0x00000000, 0x80000000, 0x40800000, 0x3e800000, 0x00000001, 0x007fffff, 0x00800000, 0x7f7fffff, 0x7f800000, 0xff800000, 0x7fc00000, 0xbf800000, 0x80000001, 0x40000000, 0x3f800001, 0x3f7fffff];
    let seed = 12345;
    while (bits.length < 64) {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      bits.push(seed & 0x7fffffff);
    }
    const input = Buffer.alloc(4 * 64);
    bits.forEach((b, i) => input.writeUInt32LE(b >>> 0, 4 * i));
    const f32 = (b: number): number => new Float32Array(new Uint32Array([b]).buffer)[0]!;
    const bitsOf = (x: number): number => new Uint32Array(new Float32Array([x]).buffer)[0]!;
    const model = (form: string, b: number): number => {
      let x = f32(b);
      if (form.includes('ftz') && (b & 0x7f800000) === 0) x = b & 0x80000000 ? -0 : 0;
      if (Number.isNaN(x) || x < 0) return 0x7fffffff;
      if (x === 0 || x === Infinity) return bitsOf(x);
      const q = Math.fround(Math.sqrt(x)); // q*q is exact in f64 (24-bit q), x is an f32
      const mode = form.split('.')[1];
      if ((mode === 'rz' || mode === 'rm') && q * q > x) return bitsOf(q) - 1;
      if (mode === 'rp' && q * q < x) return bitsOf(q) + 1;
      return bitsOf(q);
    };
    const { out } = sameAsPtxPath(ptx, { ...launchOf(64, input, forms.length * 256), block: [64, 1, 1] });
    const o = Buffer.from(out, 'hex');
    bits.forEach((b, i) => forms.forEach((f, k) => expect(o.readUInt32LE(k * 256 + 4 * i), `${f} of ${b.toString(16)}`).toBe(model(f, b) >>> 0)));
  });

  it('cvt.f32.bf16 and cvt.f64.bf16: exact widening (SHF.L.U32 by 16), NaN payloads and subnormals kept', () => {
    const ptx = `${HEAD}.visible .entry k(.param .u64 input, .param .u64 output) {
  .reg .u64 %rd<8>;
  .reg .b32 %r<4>;
  .reg .b16 %rs<2>;
  .reg .f32 %f<2>;
  .reg .f64 %fd<2>;
  ld.param.u64 %rd1, [input];
  ld.param.u64 %rd2, [output];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 2;
  add.u64 %rd4, %rd1, %rd3;
  ld.global.b16 %rs1, [%rd4];
  cvt.f32.bf16 %f1, %rs1;
  cvt.f64.bf16 %fd1, %rs1;
  mul.wide.u32 %rd3, %r1, 4;
  add.u64 %rd5, %rd2, %rd3;
  st.global.f32 [%rd5], %f1;
  mul.wide.u32 %rd3, %r1, 8;
  add.u64 %rd5, %rd2, %rd3;
  st.global.f64 [%rd5+128], %fd1;
  ret;
}`;
    const bf = [0x0000, 0x8000, 0x3f80, 0xbf80, 0x0001, 0x8001, 0x007f, 0x7f7f, 0x7f80, 0xff80, 0x7fc0, 0x4049, 0xc2f7, 0x3c23, 0x0080, 0x1234];
    const input = Buffer.alloc(64);
    for (let i = 0; i < 32; i++) input.writeUInt16LE(bf[i % 16]! ^ (i >= 16 ? 0x0100 : 0), 2 * i);
    const { out, texts } = sameAsPtxPath(ptx, launchOf(32, input, 128 + 256));
    const o = Buffer.from(out, 'hex');
    for (let i = 0; i < 32; i++) {
      const h = input.readUInt16LE(2 * i);
      expect(o.readUInt32LE(4 * i)).toBe((h << 16) >>> 0);
      const f = new Float32Array(new Uint32Array([(h << 16) >>> 0]).buffer)[0]!;
      if (!Number.isNaN(f)) expect(o.readDoubleLE(128 + 8 * i)).toBe(f);
    }
    expect(texts.some((t) => t.includes('SHF.L.U32') && t.includes('0x10, RZ'))).toBe(true);
  });

  it('64-bit compare-and-swap: global at GPU/SYS/CTA scope, generic and shared (register quads), 32-bit at CTA scope', () => {
    const ptx = `${HEAD}.visible .entry k(.param .u64 input, .param .u64 output) {
  .reg .u64 %rd<20>;
  .reg .b32 %r<6>;
  .reg .pred %p<2>;
  .shared .align 8 .b64 sh[2];
  ld.param.u64 %rd1, [input];
  ld.param.u64 %rd2, [output];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  cvt.u64.u32 %rd3, %r1;
  mul.lo.u64 %rd4, %rd3, 0x100000001;
  add.u64 %rd4, %rd4, 0x123456789;
  ld.global.u64 %rd5, [%rd1];
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra.uni SKIP;
  st.shared.u64 [sh], %rd5;
SKIP:
  bar.sync 0;
  atom.global.cas.b64 %rd6, [%rd2], %rd5, %rd4;
  atom.global.sys.cas.b64 %rd7, [%rd2+8], %rd5, %rd4;
  atom.global.cta.cas.b64 %rd8, [%rd2+16], %rd5, %rd4;
  add.u64 %rd9, %rd2, 24;
  cvta.global.u64 %rd9, %rd9;
  atom.cas.b64 %rd10, [%rd9], %rd5, %rd4;
  atom.shared.cas.b64 %rd11, [sh], %rd5, %rd4;
  atom.global.cas.b64 %rd12, [%rd2+32], 0x1111222233334444, %rd4;
  cvt.u32.u64 %r2, %rd5;
  cvt.u32.u64 %r3, %rd4;
  atom.global.cta.cas.b32 %r4, [%rd2+40], %r2, %r3;
  bar.sync 0;
  ld.shared.u64 %rd13, [sh];
  mul.wide.u32 %rd14, %r1, 8;
  add.u64 %rd15, %rd2, %rd14;
  st.global.u64 [%rd15+64], %rd6;
  st.global.u64 [%rd15+320], %rd7;
  st.global.u64 [%rd15+576], %rd8;
  st.global.u64 [%rd15+832], %rd10;
  st.global.u64 [%rd15+1088], %rd11;
  st.global.u64 [%rd15+1344], %rd12;
  st.global.u64 [%rd2+48], %rd13;
  ret;
}`;
    const input = Buffer.alloc(8);
    input.writeBigUInt64LE(0xfedcba9876543210n, 0);
    const init = Buffer.alloc(64 + 6 * 256);
    for (const off of [0, 8, 16, 24]) init.writeBigUInt64LE(0xfedcba9876543210n, off);
    init.writeBigUInt64LE(0x1111222233334444n, 32);
    init.writeUInt32LE(0x76543210, 40);
    const launch: Launch = { ...launchOf(32, input, 0), buffers: { input: { hex: input.toString('hex') }, output: { hex: init.toString('hex') } } };
    const { out, texts } = sameAsPtxPath(ptx, launch);
    const o = Buffer.from(out, 'hex');
    // exactly one thread wins each CAS (the others see its value); every word ends as some thread's new value
    const newOf = (t: number): bigint => BigInt(t) * 0x100000001n + 0x123456789n;
    for (const [k, off] of [0, 8, 16, 24, 48].entries()) {
      const v = o.readBigUInt64LE(off);
      const winners = [...Array(32).keys()].filter((t) => newOf(t) === v);
      expect(winners, `word ${k}`).toHaveLength(1);
    }
    expect(o.readBigUInt64LE(32)).not.toBe(0x1111222233334444n);
    expect(texts.some((t) => t.includes('ATOMG.E.CAS.64.STRONG.GPU PT, R'))).toBe(true);
    expect(texts.some((t) => t.includes('ATOMG.E.CAS.64.STRONG.SYS PT, R'))).toBe(true);
    expect(texts.some((t) => /ATOMS\.(64\.CAS|CAS\.64) R/.test(t))).toBe(true);
  });

  it('bitwise and exchange atomics at every scope, 32- and 64-bit, generic and global (ATOM/ATOMG .AND/.OR/.XOR/.EXCH .SM/.GPU/.SYS)', () => {
    // reduction.cu's `red.and.release.cta.b32` on a generic address had no encodable form (ATOM.E.AND.STRONG.SM)
    const ptx = `${HEAD}.visible .entry k(.param .u64 input, .param .u64 output) {
  .reg .u64 %rd<20>;
  .reg .b32 %r<12>;
  ld.param.u64 %rd1, [output];
  ld.param.u64 %rd3, [input];
  cvta.to.global.u64 %rd9, %rd1;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd4, %rd3, %rd2;
  ld.u32 %r2, [%rd4];
  not.b32 %r9, %r2;
  red.and.release.cta.b32 [%rd1], %r9;
  atom.or.cta.b32 %r3, [%rd1+4], %r2;
  atom.xor.sys.b32 %r4, [%rd1+8], %r2;
  atom.global.and.cta.b32 %r5, [%rd9+12], %r9;
  atom.global.or.sys.b32 %r6, [%rd9+16], %r2;
  cvt.u64.u32 %rd5, %r2;
  shl.b64 %rd6, %rd5, 29;
  or.b64 %rd6, %rd6, %rd5;
  atom.or.cta.b64 %rd7, [%rd1+24], %rd6;
  atom.xor.gpu.b64 %rd8, [%rd1+32], %rd6;
  atom.global.and.sys.b64 %rd10, [%rd9+40], %rd6;
  atom.global.xor.cta.b64 %rd11, [%rd9+48], %rd6;
  atom.exch.cta.b32 %r7, [%rd1+56], %r2;
  add.u32 %r8, %r3, %r4;
  add.u32 %r8, %r8, %r5;
  add.u32 %r8, %r8, %r6;
  add.u32 %r8, %r8, %r7;
  add.u64 %rd12, %rd7, %rd8;
  add.u64 %rd12, %rd12, %rd10;
  add.u64 %rd12, %rd12, %rd11;
  mov.u64 %rd13, 30786325577728;
  sub.s64 %rd14, %rd13, %rd12;
  mul.wide.u32 %rd15, %r1, 16;
  add.u64 %rd15, %rd9, %rd15;
  st.global.u32 [%rd15+64], %r8;
  st.global.u64 [%rd15+72], %rd14;
  ret;
}`;
    const n = 8;
    const vals = [0x13, 0x2460, 0x81, 0x7ff0, 0x5, 0xa0a0, 0x3c, 0x900];
    const input = Buffer.alloc(4 * n);
    vals.forEach((v, i) => input.writeUInt32LE(v, 4 * i));
    const base = launchOf(n, input, 64 + 16 * n);
    // memory starts at 0xff.. so that AND has bits to clear
    const launch: Launch = { ...base, buffers: { ...base.buffers, output: { hex: 'ff'.repeat(64) + '00'.repeat(16 * n) } } };
    const { out, texts } = sameAsPtxPath(ptx, launch);
    const o = Buffer.from(out, 'hex');
    const andAll = vals.reduce((m, v) => (m & ~v) >>> 0, 0xffffffff);
    const orAll = vals.reduce((m, v) => (m | v) >>> 0, 0xffffffff);
    expect(o.readUInt32LE(0)).toBe(andAll);
    expect(o.readUInt32LE(4)).toBe(orAll);
    const xorAll = vals.reduce((m, v) => (m ^ v) >>> 0, 0xffffffff);
    expect(o.readUInt32LE(8)).toBe(xorAll);
    const wide = vals.map((v) => (BigInt(v) << 29n) | BigInt(v));
    expect(o.readBigUInt64LE(32)).toBe(wide.reduce((m, v) => m ^ v, (1n << 64n) - 1n));
    for (const t of ['ATOM.E.AND.STRONG.SM PT, RZ', 'ATOM.E.OR.STRONG.SM PT, R', 'ATOM.E.XOR.STRONG.SYS PT, R', 'ATOMG.E.AND.STRONG.SM PT, R', 'ATOM.E.OR.64.STRONG.SM PT, R', 'ATOMG.E.AND.64.STRONG.SYS PT, R', 'ATOM.E.EXCH.STRONG.SM PT, R']) {
      expect(texts.some((x) => x.includes(t)), `${t} in\n${texts.join('\n')}`).toBe(true);
    }
  });

  it('warp reductions and matches (REDUX to a uniform register, MATCH.ANY[.U64]), barrier reductions (BAR.RED + B2R.RESULT), griddepcontrol, trap', () => {
    const ptx = `${HEAD}.visible .entry k(.param .u64 input, .param .u64 output) {
  .reg .u64 %rd<8>;
  .reg .b32 %r<20>;
  .reg .pred %p<6>;
  ld.param.u64 %rd1, [output];
  ld.param.u64 %rd3, [input];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd3, %rd3;
  griddepcontrol.wait;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd4, %rd3, %rd2;
  ld.global.u32 %r2, [%rd4];
  setp.eq.s32 %p4, %r2, 100000;
  @%p4 trap;
  redux.sync.add.s32 %r3, %r2, -1;
  redux.sync.max.s32 %r4, %r2, -1;
  redux.sync.min.u32 %r5, %r2, -1;
  redux.sync.xor.b32 %r6, %r2, -1;
  and.b32 %r7, %r2, 3;
  match.any.sync.b32 %r8, %r7, -1;
  cvt.u64.u32 %rd5, %r7;
  shl.b64 %rd5, %rd5, 32;
  or.b64 %rd5, %rd5, 1;
  match.any.sync.b64 %r9, %rd5, -1;
  setp.eq.s32 %p1, %r2, 7;
  bar.red.or.pred %p2, 0, %p1;
  selp.u32 %r10, 1, 0, %p2;
  setp.gt.s32 %p3, %r2, -12;
  bar.red.and.pred %p5, 0, %p3;
  selp.u32 %r11, 1, 0, %p5;
  bar.red.popc.u32 %r12, 0, %p1;
  mul.wide.u32 %rd6, %r1, 32;
  add.u64 %rd6, %rd1, %rd6;
  st.global.v4.u32 [%rd6], {%r3, %r4, %r5, %r6};
  st.global.v4.u32 [%rd6+16], {%r8, %r9, %r10, %r11};
  st.global.u32 [%rd6+12], %r12;
  griddepcontrol.launch_dependents;
  ret;
}`;
    // two warps (the barrier reductions span both); lane values -11..11, 7 once per warp
    const n = 64;
    const vals = Array.from({ length: n }, (_, i) => ((i * 7 + 3) % 23) - 11);
    const input = Buffer.alloc(4 * n);
    vals.forEach((v, i) => input.writeInt32LE(v, 4 * i));
    const { out, texts } = sameAsPtxPath(ptx, launchOf(n, input, 32 * n));
    const o = Buffer.from(out, 'hex');
    const warp0 = vals.slice(0, 32);
    expect(o.readInt32LE(0)).toBe(warp0.reduce((a, b) => a + b, 0));
    expect(o.readInt32LE(4)).toBe(Math.max(...warp0));
    // bar.red.or: some thread holds 7; .and: all are above -12; the popc of the 7s over the CTA
    expect(o.readUInt32LE(24)).toBe(1);
    expect(o.readUInt32LE(28)).toBe(1);
    expect(o.readUInt32LE(12)).toBe(vals.filter((v) => v === 7).length);
    // lane 0's match masks: the lanes with the same value mod 4 (b32 and b64 agree)
    const same = warp0.reduce((m, v, l) => (((v & 3) === (warp0[0]! & 3)) ? m | (1 << l) : m), 0) >>> 0;
    expect(o.readUInt32LE(16)).toBe(same);
    expect(o.readUInt32LE(20)).toBe(same);
    for (const t of ['REDUX.SUM.S32 UR', 'REDUX.MAX.S32 UR', 'MATCH.ANY R', 'MATCH.ANY.U64 R', 'BAR.RED.DEFER_BLOCKING.OR 0x0', 'B2R.RESULT RZ', 'ACQBULK', 'PREEXIT', 'BPT.TRAP']) {
      expect(texts.some((x) => x.includes(t)), `${t} in\n${texts.join('\n')}`).toBe(true);
    }
  });

  it('div.rz/rm/rp.f64: bit-exact beside the interpreter over exact, tie-free, subnormal, overflowing and special quotients', () => {
    const ptx = `${HEAD}.visible .entry k(.param .u64 input, .param .u64 output) {
  .reg .u64 %rd<10>;
  .reg .f64 %fd<8>;
  .reg .b32 %r<4>;
  ld.param.u64 %rd1, [output];
  ld.param.u64 %rd3, [input];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd3, %rd3;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 16;
  add.u64 %rd4, %rd3, %rd2;
  ld.global.f64 %fd1, [%rd4];
  ld.global.f64 %fd2, [%rd4+8];
  div.rz.f64 %fd3, %fd1, %fd2;
  div.rm.f64 %fd4, %fd1, %fd2;
  div.rp.f64 %fd5, %fd1, %fd2;
  mul.wide.u32 %rd5, %r1, 24;
  add.u64 %rd6, %rd1, %rd5;
  st.global.f64 [%rd6], %fd3;
  st.global.f64 [%rd6+8], %fd4;
  st.global.f64 [%rd6+16], %fd5;
  ret;
}`;
    const pairs: Array<[number, number]> = [
      [1, 3], [-1, 3], [2, 1], [7, 7], [1, 10], [-1, 10], [1e-300, 1e10], [-1e-300, 1e10], [5e-324, 2], [-5e-324, 2], [1.5e-323, 2],
      [1e308, 1e-10], [-1e308, 1e-10], [Number.MAX_VALUE, 0.5], [3, -0], [0, 5], [-0, 5], [NaN, 1], [Infinity, Infinity], [Infinity, -2],
      [1e-310, 3e-310], [2.2250738585072014e-308, 3], [4.9e-322, 7], [1, Number.MAX_VALUE], [-1, Number.MAX_VALUE * 0.75],
    ];
    // and quotients of a linear congruential sequence of mantissas and exponents (deterministic)
    let x = 12345;
    const next = (): number => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
    while (pairs.length < 64) pairs.push([(next() + 1) * 2 ** Math.floor(next() * 200 - 100) * (next() < 0.3 ? -1 : 1), (next() + 1) * 2 ** Math.floor(next() * 200 - 100)]);
    const input = Buffer.alloc(16 * pairs.length);
    pairs.forEach(([a, b], i) => {
      input.writeDoubleLE(a, 16 * i);
      input.writeDoubleLE(b, 16 * i + 8);
    });
    const { out } = sameAsPtxPath(ptx, launchOf(pairs.length, input, 24 * pairs.length));
    const o = Buffer.from(out, 'hex');
    // spot checks against JavaScript's round-to-nearest quotient: rz <= |q| <= rp and rm <= rp, one ulp apart at most
    const q13 = 1 / 3;
    expect(o.readDoubleLE(0)).toBe(q13);
    expect(o.readDoubleLE(8)).toBe(q13);
    expect(o.readDoubleLE(16)).toBeGreaterThan(q13);
    expect(o.readDoubleLE(24 * 8 + 8)).toBe(0);
    expect(o.readDoubleLE(24 * 8 + 16)).toBe(5e-324);
    expect(o.readDoubleLE(24 * 11 + 16)).toBe(Infinity);
    expect(o.readDoubleLE(24 * 11 + 8)).toBe(Number.MAX_VALUE);
  });
});
