import { describe, expect, it } from 'vitest';
import { createToolchain, Decoder } from '@ptxforge/kernel';
import corePlugin from '@ptxforge/plugin-core';
import { ptxFrontendPlugin } from '@ptxforge/ptx';
import targetSm90Plugin from '@ptxforge/target-sm90';
import { decodeAttribute, readCubin, verboseStatsOfCubin } from '@ptxforge/cubin';
import { runKernel, type Launch } from '@ptxforge/interp';
import { runCubin } from '@ptxforge/sass-lift';
import { checkHazards, hazardInstrFromSass } from '@ptxforge/sass-hazards';
import { formatInstruction, wordFromBytes, type SassInstruction } from '@ptxforge/sass';
import { compileToCubin } from './index.js';

const tc = createToolchain({ plugins: [corePlugin, ptxFrontendPlugin, targetSm90Plugin] });

function hex(b: Uint8Array): string {
  return Buffer.from(b).toString('hex');
}

/** Hazards the checker finds in the cubin's code, decoded from the bytes (not from what codegen believes). */
function hazardsInCubin(bytes: Uint8Array, arch: string): number {
  const cubin = readCubin(bytes);
  const dec = tc.services(arch).service(Decoder);
  let n = 0;
  for (const f of cubin.functions) {
    const instrs = [];
    for (let a = 0; a + 16 <= f.code.length; a += 16) {
      const d = dec.decode(f.code, a) as SassInstruction;
      const w = wordFromBytes(f.code, a);
      const hi = (BigInt(w[3]!) << 32n) | BigInt(w[2]!);
      instrs.push(hazardInstrFromSass(a, d, hi));
    }
    const indirectTargets: number[] = [];
    for (const r of f.attributes) {
      const v = decodeAttribute(r);
      if (v.kind === 'branchTargets') for (const b of v.branches) indirectTargets.push(...b.targets);
    }
    n += checkHazards({ name: f.name, instrs, indirectTargets }, { arch }).hazards.length;
  }
  return n;
}

/** PTX → optimized Ori → interpreter, and PTX → our cubin → lifted → interpreter: the same output bytes. */
function sameAsPtxPath(ptx: string, launch: Launch, arch = 'sm_90', opts: { optLevel?: number; file?: string } = {}): { out: string; registers: number } {
  const file = opts.file ?? 'k.ptx';
  const optLevel = opts.optLevel ?? 3;
  const r = compileToCubin(tc, ptx, { arch, file, optLevel });
  expect(r.kernels.every((k) => k.hazards === 0)).toBe(true);
  expect(hazardsInCubin(r.cubin, arch)).toBe(0);
  const ref = runKernel(tc.compile({ text: ptx, file }, { arch, optLevel }).module, launch);
  expect(ref.ok).toBe(true);
  const got = runCubin(r.cubin, launch);
  expect(got.result.errors).toEqual([]);
  for (const name of launch.outputs ?? []) expect(hex(got.result.buffers[name]!.bytes)).toBe(hex(ref.buffers[name]!.bytes));
  return { out: hex(got.result.buffers[launch.outputs![0]!]!.bytes), registers: r.kernels[0]!.registers };
}

const io = (kernel: string, input: string, outBytes: number): Launch => ({
  kernel, grid: [1, 1, 1], block: [1, 1, 1],
  buffers: { input: { hex: input }, output: { hex: '00'.repeat(outBytes) } },
  params: [{ buffer: 'input' }, { buffer: 'output' }], outputs: ['output'],
});

describe('PTX → sm_90 cubin → lifted run', () => {
  it('module .global and .const variables: bank 3, bank 4 addresses, address-taken constants, pointers in data', () => {
    const ptx = `.version 7.8
.target sm_90
.address_size 64
.global .align 4 .b32 g_init[4] = {7, 8, 9, 10};
.global .align 4 .b32 g_zero[4];
.const .align 4 .b32 c_tab[4] = {100, 200, 300, 400};
.const .align 4 .b32 c_idx[4] = {1, 2, 3, 4};
.const .align 8 .u64 c_ptr = g_init;
.visible .entry k(.param .u64 input, .param .u64 output) {
  .reg .u64 %rd<12>;
  .reg .b32 %r<12>;
  ld.param.u64 %rd1, [output];
  ld.param.u64 %rd9, [input];
  ld.global.u32 %r1, [%rd9];
  and.b32 %r1, %r1, 3;
  ld.global.u32 %r2, [g_init+8];
  ld.const.u32 %r3, [c_tab+4];
  mov.u64 %rd2, c_idx;
  mul.wide.u32 %rd3, %r1, 4;
  add.u64 %rd4, %rd2, %rd3;
  ld.const.u32 %r4, [%rd4];
  ld.const.u64 %rd5, [c_ptr];
  ld.global.u32 %r5, [%rd5+12];
  mov.u64 %rd6, g_zero;
  add.u64 %rd7, %rd6, %rd3;
  st.global.u32 [%rd7], %r3;
  ld.global.u32 %r6, [g_zero+4];
  st.global.u32 [%rd1], %r2;
  st.global.u32 [%rd1+4], %r3;
  st.global.u32 [%rd1+8], %r4;
  st.global.u32 [%rd1+12], %r5;
  st.global.u32 [%rd1+16], %r6;
  ret;
}`;
    const { out } = sameAsPtxPath(ptx, io('k', '01000000', 20));
    expect(out).toBe(hex(Uint8Array.from([9, 0, 0, 0, 200, 0, 0, 0, 2, 0, 0, 0, 10, 0, 0, 0, 200, 0, 0, 0])));
    const c = readCubin(compileToCubin(tc, ptx, { arch: 'sm_90', file: 'k.ptx' }).cubin);
    const names = c.sections.map((s) => s.name);
    // c_tab stays in bank 3 (direct loads only); c_idx (address taken) and the globals live in device memory
    expect(names).toEqual(expect.arrayContaining(['.nv.constant3', '.nv.constant4', '.nv.global.init', '.nv.global', '.rela.nv.constant4']));
    const sym = (n: string) => names[c.symbols.find((x) => x.name === n)!.shndx];
    expect([sym('c_tab'), sym('c_ptr'), sym('c_idx'), sym('g_zero')]).toEqual(['.nv.constant3', '.nv.constant3', '.nv.global.init', '.nv.global']);
  });

  it('64-bit load, add with carry, store', () => {
    const ptx = `.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b) {
  .reg .u64 %rd<6>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.global.u64 %rd3, [%rd1];
  ld.global.u64 %rd4, [%rd1+8];
  add.u64 %rd5, %rd3, %rd4;
  st.global.u64 [%rd2], %rd5;
  sub.u64 %rd5, %rd3, %rd4;
  st.global.u64 [%rd2+8], %rd5;
  ret;
}`;
    const { out } = sameAsPtxPath(ptx, io('k', 'ffffffff0000000001000000000000000000000000000000', 16));
    expect(out).toBe('0000000001000000feffffff00000000');
  });

  it('a loop with a compare, a branch and 32-bit arithmetic', () => {
    const ptx = `.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b) {
  .reg .u32 %r<8>;
  .reg .u64 %rd<4>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.global.u32 %r1, [%rd1];
  mov.u32 %r2, 0;
  mov.u32 %r3, 0;
L1:
  mad.lo.u32 %r3, %r2, %r2, %r3;
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, %r1;
  @%p1 bra L1;
  shl.b32 %r4, %r3, 3;
  shr.u32 %r5, %r3, 1;
  xor.b32 %r6, %r4, %r5;
  st.global.u32 [%rd2], %r6;
  ret;
}`;
    sameAsPtxPath(ptx, io('k', '0a000000', 4));
  });

  it('thread ids, shared memory and a barrier over a block of 64 threads', () => {
    const ptx = `.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b) {
  .shared .align 4 .b32 tile[64];
  .reg .u32 %r<8>;
  .reg .u64 %rd<6>;
  ld.param.u64 %rd2, [b];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, tile;
  add.u32 %r4, %r3, %r2;
  mul.lo.u32 %r5, %r1, 3;
  st.shared.u32 [%r4], %r5;
  bar.sync 0;
  xor.b32 %r6, %r1, 1;
  shl.b32 %r6, %r6, 2;
  add.u32 %r6, %r3, %r6;
  ld.shared.u32 %r7, [%r6];
  mul.wide.u32 %rd3, %r1, 4;
  add.u64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r7;
  ret;
}`;
    const launch: Launch = {
      kernel: 'k', grid: [1, 1, 1], block: [64, 1, 1], sharedBytes: 256,
      buffers: { input: { hex: '00' }, output: { hex: '00'.repeat(256) } }, params: [{ buffer: 'input' }, { buffer: 'output' }], outputs: ['output'],
    };
    sameAsPtxPath(ptx, launch);
  });

  it('f32 atomic add on shared memory (CAS loop) from 64 threads, generic address of a .local array', () => {
    const ptx = `.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 input, .param .u64 output) {
  .shared .align 4 .f32 acc;
  .local .align 8 .b32 loc[4];
  .reg .u64 %rd<8>;
  .reg .b32 %r<8>;
  .reg .f32 %f<4>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [output];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @!%p1 st.shared.f32 [acc], 0f00000000;
  bar.sync 0;
  add.u32 %r2, %r1, 1;
  cvt.rn.f32.u32 %f1, %r2;
  mul.f32 %f1, %f1, 0f3F000000;
  atom.shared.add.f32 %f2, [acc], %f1;
  bar.sync 0;
  st.local.u32 [loc+4], %r2;
  mov.u64 %rd2, loc;
  cvta.local.u64 %rd3, %rd2;
  ld.u32 %r3, [%rd3+4];
  mul.wide.u32 %rd4, %r1, 4;
  add.u64 %rd5, %rd1, %rd4;
  st.global.u32 [%rd5+4], %r3;
  @%p1 bra done;
  ld.shared.f32 %f3, [acc];
  st.global.f32 [%rd1], %f3;
done:
  ret;
}`;
    const launch: Launch = {
      kernel: 'k', grid: [1, 1, 1], block: [64, 1, 1],
      buffers: { input: { hex: '00' }, output: { hex: '00'.repeat(260) } }, params: [{ buffer: 'input' }, { buffer: 'output' }], outputs: ['output'],
    };
    const { out } = sameAsPtxPath(ptx, launch);
    // sum of (i+1)/2 for i < 64 = 1040 = 0x44820000; every thread read back its own tid+1 through the generic address
    expect(out.slice(0, 8)).toBe('00008244');
    expect(out.slice(8 + 63 * 8, 8 + 64 * 8)).toBe('40000000');
    // .nv.info as ptxas writes it: one barrier (bar.sync 0), the cumulative stack = the frame of the .local array
    const v = verboseStatsOfCubin(readCubin(compileToCubin(tc, ptx, { arch: 'sm_90', file: 'k.ptx' }).cubin)).functions[0]!;
    expect(v.barriers).toBe(1);
    expect(v.stackFrame).toBeGreaterThanOrEqual(16);
    expect(v.cumulativeStack).toBe(v.stackFrame);
  });

  it('rcp.rz/rm/rp.f64: normal, subnormal, overflowing and underflowing results, zeros, infinities, NaN', () => {
    const ptx = `.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 input, .param .u64 output) {
  .reg .u64 %rd<8>;
  .reg .b32 %r<4>;
  .reg .f64 %fd<6>;
  ld.param.u64 %rd1, [input];
  ld.param.u64 %rd2, [output];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 8;
  add.u64 %rd4, %rd1, %rd3;
  ld.global.f64 %fd1, [%rd4];
  rcp.rz.f64 %fd2, %fd1;
  rcp.rm.f64 %fd3, %fd1;
  rcp.rp.f64 %fd4, %fd1;
  mul.wide.u32 %rd3, %r1, 24;
  add.u64 %rd5, %rd2, %rd3;
  st.global.f64 [%rd5], %fd2;
  st.global.f64 [%rd5+8], %fd3;
  st.global.f64 [%rd5+16], %fd4;
  ret;
}`;
    const vals = [3, -3, 0.1, 7e-310, -4.9e-324, 2.5e-308, 1.7e308, -9e307, 0, -0, Infinity, -Infinity, NaN, 1, 2 ** 1023, 2 ** -1022,
      2.2250738585072014e-308 / 3, 1 / 3, 123456789.123, -1e-300, 4e307, 1.0000000000000002, 0.9999999999999999, 5e-324, 2 ** -1074 * 3, 1e300, 6.1e-309, -2.8e-309, 3e306, 8.98846567431158e307, 1.5, 42];
    const buf = Buffer.alloc(8 * vals.length);
    vals.forEach((v, i) => buf.writeDoubleLE(v, 8 * i));
    const launch: Launch = {
      kernel: 'k', grid: [1, 1, 1], block: [vals.length, 1, 1],
      buffers: { input: { hex: buf.toString('hex') }, output: { hex: '00'.repeat(24 * vals.length) } }, params: [{ buffer: 'input' }, { buffer: 'output' }], outputs: ['output'],
    };
    const { out } = sameAsPtxPath(ptx, launch);
    const o = Buffer.from(out, 'hex');
    expect(o.readDoubleLE(0)).toBe(0.3333333333333333); // 1/3 rounded toward zero
    expect(o.readDoubleLE(16)).toBe(0.33333333333333337); // toward +inf
  });

  it('fp8 conversions (e4m3x2/e5m2x2 from f32 with satfinite, to f16x2) over every byte and rounding edge', () => {
    const ptx = `.version 8.6
.target sm_90
.address_size 64
.visible .entry k(.param .u64 input, .param .u64 output) {
  .reg .u64 %rd<8>;
  .reg .b32 %r<8>;
  .reg .b16 %h<4>;
  .reg .f32 %f<4>;
  ld.param.u64 %rd1, [input];
  ld.param.u64 %rd2, [output];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 8;
  add.u64 %rd4, %rd1, %rd3;
  ld.global.f32 %f1, [%rd4];
  ld.global.f32 %f2, [%rd4+4];
  cvt.rn.satfinite.e4m3x2.f32 %h1, %f1, %f2;
  cvt.rn.satfinite.e5m2x2.f32 %h2, %f1, %f2;
  mul.wide.u32 %rd3, %r1, 12;
  add.u64 %rd5, %rd2, %rd3;
  st.global.u16 [%rd5], %h1;
  st.global.u16 [%rd5+2], %h2;
  ld.global.u16 %h3, [%rd4];
  cvt.rn.f16x2.e4m3x2 %r2, %h3;
  cvt.rn.f16x2.e5m2x2 %r3, %h3;
  st.global.u32 [%rd5+4], %r2;
  st.global.u32 [%rd5+8], %r3;
  ret;
}`;
    // f32 pairs: rounding ties and edges of both formats, subnormals, saturation, specials; the low 16 bits of
    // each first value also run every fp8 byte pair through the decoders
    const vals: number[] = [];
    const f = [0, -0, 1, -1, 448, 449, 464, 480, -500, 57344, 61440, 1e9, Infinity, -Infinity, NaN, 2 ** -6, 2 ** -7, 2 ** -9, 2 ** -10, 3 * 2 ** -10,
      2 ** -14, 2 ** -16, 2 ** -17, 3 * 2 ** -17, 1.0625, 1.1875, 1.125, 1.375, 0.3, -0.7, 17.5, 18.5, 1e-30, -1e-45, 240, 248, 232, 3.5e-3, 2.9e-2, 65504];
    for (let i = 0; i < f.length; i++) vals.push(f[i]!, f[(i * 7 + 3) % f.length]!);
    const buf = Buffer.alloc(4 * (vals.length + 2 * 256));
    vals.forEach((v, i) => buf.writeFloatLE(v, 4 * i));
    for (let b = 0; b < 256; b++) buf.writeUInt32LE(b | ((255 - b) << 8) | 0x3f000000, 4 * vals.length + 8 * b);
    const n = vals.length / 2 + 256;
    const launch: Launch = {
      kernel: 'k', grid: [1, 1, 1], block: [n, 1, 1],
      buffers: { input: { hex: buf.toString('hex') }, output: { hex: '00'.repeat(12 * n) } }, params: [{ buffer: 'input' }, { buffer: 'output' }], outputs: ['output'],
    };
    const { out } = sameAsPtxPath(ptx, launch);
    const o = Buffer.from(out, 'hex');
    // pair 2 is (1.0, 2^-9): e4m3x2 packs the first operand high: 0x38 (1.0), 0x01 (the smallest subnormal)
    expect(o.readUInt16LE(24)).toBe(0x3801);
  });

  it('generic addresses of .shared variables (cvta.shared: SR_SWINHI and the cluster rank, as ptxas on sm_90)', () => {
    const ptx = `.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 input, .param .u64 output) {
  .shared .align 4 .b32 buf[32];
  .reg .u64 %rd<10>;
  .reg .b32 %r<8>;
  ld.param.u64 %rd1, [output];
  mov.u32 %r1, %tid.x;
  mov.u64 %rd2, buf;
  cvta.shared.u64 %rd3, %rd2;
  mul.wide.u32 %rd4, %r1, 4;
  add.u64 %rd5, %rd3, %rd4;
  mul.lo.u32 %r2, %r1, 3;
  add.u32 %r2, %r2, 7;
  st.u32 [%rd5], %r2;
  bar.sync 0;
  xor.b32 %r3, %r1, 1;
  mul.wide.u32 %rd6, %r3, 4;
  add.u64 %rd7, %rd2, %rd6;
  cvt.u32.u64 %r4, %rd7;
  ld.shared.u32 %r5, [%r4];
  cvta.to.shared.u64 %rd8, %rd5;
  sub.u64 %rd9, %rd8, %rd2;
  cvt.u32.u64 %r6, %rd9;
  add.u32 %r5, %r5, %r6;
  add.u64 %rd9, %rd1, %rd4;
  st.global.u32 [%rd9], %r5;
  ret;
}`;
    const launch: Launch = {
      kernel: 'k', grid: [1, 1, 1], block: [32, 1, 1],
      buffers: { input: { hex: '00' }, output: { hex: '00'.repeat(128) } }, params: [{ buffer: 'input' }, { buffer: 'output' }], outputs: ['output'],
    };
    const { out } = sameAsPtxPath(ptx, launch);
    // thread 0 reads thread 1's 3 + 7 = 10, plus its own offset 0; thread 1 reads 7, plus 4
    expect(out.slice(0, 16)).toBe('0a0000000b000000');
  });

  it('%clock64 reads the cycle counter into a register pair with one CS2R SR_CLOCKLO, as ptxas', () => {
    const ptx = `.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 input, .param .u64 output) {
  .reg .u64 %rd<8>;
  .reg .b32 %r<4>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [output];
  mov.u64 %rd2, %clock64;
  ld.param.u64 %rd5, [input];
  ld.global.u32 %r1, [%rd5];
  mul.lo.u32 %r1, %r1, 3;
  mov.u64 %rd3, %clock64;
  setp.ge.u64 %p1, %rd3, %rd2;
  selp.u32 %r2, 1, 0, %p1;
  add.u32 %r2, %r2, %r1;
  st.global.u32 [%rd1], %r2;
  ret;
}`;
    const launch = io('k', '05000000', 4);
    const { out } = sameAsPtxPath(ptx, launch);
    // the counter never runs backwards: 1 + 5 * 3
    expect(out).toBe('10000000');
    const cubin = readCubin(compileToCubin(tc, ptx, { arch: 'sm_90', file: 'k.ptx', optLevel: 3 }).cubin);
    const dec = tc.services('sm_90').service(Decoder);
    const code = cubin.functions[0]!.code;
    const texts: string[] = [];
    for (let a = 0; a + 16 <= code.length; a += 16) texts.push(formatInstruction(dec.decode(code, a) as SassInstruction));
    expect(texts.filter((t) => /CS2R R\d+, SR_CLOCKLO/.test(t))).toHaveLength(2);
  });

  it('signed min/max and CTA/system-scope global atomics (ATOMG .S32, STRONG.SM / STRONG.SYS), as ptxas', () => {
    const ptx = `.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 input, .param .u64 output) {
  .reg .u64 %rd<8>;
  .reg .b32 %r<12>;
  ld.param.u64 %rd1, [output];
  ld.param.u64 %rd3, [input];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd4, %rd3, %rd2;
  ld.global.u32 %r6, [%rd4];
  atom.global.max.s32 %r2, [%rd1], %r6;
  atom.global.min.s32 %r3, [%rd1+4], %r6;
  atom.global.cta.max.s32 %r4, [%rd1+8], %r6;
  atom.global.sys.min.s32 %r5, [%rd1+12], %r6;
  atom.global.cta.add.u32 %r7, [%rd1+16], %r6;
  add.u32 %r8, %r2, %r3;
  add.u32 %r8, %r8, %r4;
  add.u32 %r8, %r8, %r5;
  add.u32 %r8, %r8, %r7;
  st.global.u32 [%rd1+20], %r8;
  ret;
}`;
    // one thread: the old values are the initial ones (0, 0, 0, 0, 0); the memory takes max(0, -3) etc.
    const { out } = sameAsPtxPath(ptx, io('k', 'fdffffff', 24));
    expect(out).toBe('00000000' + 'fdffffff' + '00000000' + 'fdffffff' + 'fdffffff' + '00000000');
  });

  it('64-bit global atomics: add/exch/min.u64 (ATOMG .64) and max.s64 (ATOMG .S64) on register pairs, as ptxas', () => {
    const ptx = `.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 input, .param .u64 output) {
  .reg .u64 %rd<16>;
  .reg .b32 %r<4>;
  ld.param.u64 %rd1, [output];
  ld.param.u64 %rd10, [input];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 8;
  add.u64 %rd11, %rd10, %rd2;
  ld.global.u64 %rd6, [%rd11];
  atom.global.add.u64 %rd3, [%rd1], %rd6;
  atom.global.max.s64 %rd4, [%rd1+8], %rd6;
  atom.global.exch.b64 %rd5, [%rd1+16], %rd6;
  atom.global.min.u64 %rd7, [%rd1+24], %rd6;
  add.u64 %rd8, %rd3, %rd4;
  add.u64 %rd8, %rd8, %rd5;
  add.u64 %rd8, %rd8, %rd7;
  add.u64 %rd9, %rd1, 32;
  add.u64 %rd9, %rd9, %rd2;
  st.global.u64 [%rd9], %rd8;
  ret;
}`;
    // four threads: 3, -5, 2^40, 7 (the order of the atomics between threads is the interpreter's, on both paths)
    const vals = [3n, -5n, 1n << 40n, 7n];
    const input = Buffer.alloc(32);
    vals.forEach((v, i) => input.writeBigInt64LE(v, 8 * i));
    const launch: Launch = {
      kernel: 'k', grid: [1, 1, 1], block: [4, 1, 1],
      buffers: { input: { hex: input.toString('hex') }, output: { hex: '00'.repeat(64) } }, params: [{ buffer: 'input' }, { buffer: 'output' }], outputs: ['output'],
    };
    const o = Buffer.from(sameAsPtxPath(ptx, launch).out, 'hex');
    expect(o.readBigInt64LE(0)).toBe(3n - 5n + (1n << 40n) + 7n);
    expect(o.readBigInt64LE(8)).toBe(1n << 40n);
    // min.u64 over the initial 0 stays 0
    expect(o.readBigUInt64LE(24)).toBe(0n);
  });

  it('bar.warp.sync and shfl.sync with a register or partial member mask: WARPSYNC Rmask first, as ptxas', () => {
    const ptx = `.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 input, .param .u64 output) {
  .reg .u64 %rd<8>;
  .reg .b32 %r<12>;
  .reg .pred %p<4>;
  ld.param.u64 %rd1, [output];
  ld.param.u64 %rd3, [input];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd4, %rd3, %rd2;
  ld.global.u32 %r2, [%rd4];
  ld.global.u32 %r3, [%rd3+128];
  bar.warp.sync %r3;
  shfl.sync.up.b32 %r4|%p1, %r2, 1, 0, %r3;
  selp.u32 %r7, 100, 0, %p1;
  shfl.sync.idx.b32 %r5, %r4, 3, 31, 65535;
  bar.warp.sync -1;
  add.u32 %r6, %r4, %r5;
  add.u32 %r6, %r6, %r7;
  add.u64 %rd5, %rd1, %rd2;
  st.global.u32 [%rd5], %r6;
  ret;
}`;
    const input = Buffer.alloc(132);
    for (let i = 0; i < 32; i++) input.writeUInt32LE(i * 10 + 1, 4 * i);
    input.writeUInt32LE(0xffffffff, 128);
    const launch: Launch = {
      kernel: 'k', grid: [1, 1, 1], block: [32, 1, 1],
      buffers: { input: { hex: input.toString('hex') }, output: { hex: '00'.repeat(128) } }, params: [{ buffer: 'input' }, { buffer: 'output' }], outputs: ['output'],
    };
    const o = Buffer.from(sameAsPtxPath(ptx, launch).out, 'hex');
    // lane 5: up-shuffle gives lane 4's 41 (in range: +100), the idx shuffle lane 3's shifted value 21
    expect(o.readUInt32LE(20)).toBe(41 + 21 + 100);
    const cubin = readCubin(compileToCubin(tc, ptx, { arch: 'sm_90', file: 'k.ptx', optLevel: 3 }).cubin);
    const dec = tc.services('sm_90').service(Decoder);
    const code = cubin.functions[0]!.code;
    const texts: string[] = [];
    for (let a = 0; a + 16 <= code.length; a += 16) texts.push(formatInstruction(dec.decode(code, a) as SassInstruction));
    expect(texts.filter((t) => /^WARPSYNC R\d+ ;/.test(t)).length).toBeGreaterThanOrEqual(2);
  });

  it('%envregN, %reserved_smem_offset_* and %globaltimer: constant-bank words and CS2R SR_GLOBALTIMERLO, as ptxas', () => {
    const ptx = `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 input, .param .u64 output) {
  .reg .u64 %rd<8>;
  .reg .b32 %r<12>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [output];
  mov.u64 %rd2, %globaltimer;
  mov.u32 %r1, %envreg2;
  mov.u32 %r2, %envreg31;
  mov.u32 %r3, %reserved_smem_offset_cap;
  mov.u32 %r4, %reserved_smem_offset_1;
  mov.u32 %r5, %reserved_smem_offset_begin;
  mov.u64 %rd3, %globaltimer;
  setp.ge.u64 %p1, %rd3, %rd2;
  selp.u32 %r6, 7, 9, %p1;
  st.global.u32 [%rd1], %r1;
  st.global.u32 [%rd1+4], %r2;
  st.global.u32 [%rd1+8], %r3;
  st.global.u32 [%rd1+12], %r4;
  st.global.u32 [%rd1+16], %r5;
  st.global.u32 [%rd1+20], %r6;
  ret;
}`;
    const { out } = sameAsPtxPath(ptx, io('k', '00', 24));
    // the launch leaves the driver's words of bank 0 at zero; _cap is ptxas's constant 0x400
    expect(out).toBe('00000000' + '00000000' + '00040000' + '00000000' + '00000000' + '07000000');
  });

  it('bfi.b64 at word-aligned constant positions (nvcc packs words with bfi.b64 d, a, b, 32, 32)', () => {
    const ptx = `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 input, .param .u64 output) {
  .reg .u64 %rd<16>;
  ld.param.u64 %rd1, [output];
  ld.param.u64 %rd2, [input];
  ld.global.u64 %rd3, [%rd2];
  ld.global.u64 %rd4, [%rd2+8];
  bfi.b64 %rd5, %rd3, %rd4, 32, 32;
  bfi.b64 %rd6, %rd3, %rd4, 0, 16;
  bfi.b64 %rd7, %rd3, %rd4, 32, 40;
  bfi.b64 %rd8, %rd3, %rd4, 0, 0;
  bfi.b64 %rd9, %rd3, %rd4, 0, 48;
  st.global.u64 [%rd1], %rd5;
  st.global.u64 [%rd1+8], %rd6;
  st.global.u64 [%rd1+16], %rd7;
  st.global.u64 [%rd1+24], %rd8;
  st.global.u64 [%rd1+32], %rd9;
  ret;
}`;
    const { out } = sameAsPtxPath(ptx, io('k', '8877665544332211' + 'ffeeddccbbaa9900', 40));
    // a = 0x1122334455667788, b = 0x0099aabbccddeeff
    const o = Buffer.from(out, 'hex');
    expect(o.readBigUInt64LE(0)).toBe(0x55667788ccddeeffn);
    expect(o.readBigUInt64LE(8)).toBe(0x0099aabbccdd7788n);
    // len 40 at 32 stops at bit 63; len 0 inserts nothing
    expect(o.readBigUInt64LE(16)).toBe(0x55667788ccddeeffn);
    expect(o.readBigUInt64LE(24)).toBe(0x0099aabbccddeeffn);
    expect(o.readBigUInt64LE(32)).toBe(0x0099334455667788n);
  });

  it('cvt.sat.f32.f32 as FADD.SAT RZ, a and volatile shared accesses as plain LDS/STS, as ptxas', () => {
    const ptx = `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 input, .param .u64 output) {
  .reg .u64 %rd<8>;
  .reg .f32 %f<4>;
  .reg .b32 %r<6>;
  .shared .align 4 .b32 sh[64];
  ld.param.u64 %rd1, [output];
  ld.param.u64 %rd2, [input];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.u64 %rd4, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  cvt.sat.f32.f32 %f2, %f1;
  shl.b32 %r2, %r1, 2;
  st.volatile.shared.f32 [%r2], %f2;
  bar.sync 0;
  xor.b32 %r3, %r2, 4;
  ld.volatile.shared.f32 %f3, [%r3];
  add.u64 %rd5, %rd1, %rd3;
  st.global.f32 [%rd5], %f3;
  ret;
}`;
    const vals = [0.5, -0.25, 1.5, Number.NaN, -0, 1, Infinity, -Infinity];
    const input = Buffer.alloc(4 * vals.length);
    vals.forEach((v, i) => input.writeFloatLE(v, 4 * i));
    const launch: Launch = {
      kernel: 'k', grid: [1, 1, 1], block: [vals.length, 1, 1],
      buffers: { input: { hex: input.toString('hex') }, output: { hex: '00'.repeat(4 * vals.length) } }, params: [{ buffer: 'input' }, { buffer: 'output' }], outputs: ['output'],
    };
    const o = Buffer.from(sameAsPtxPath(ptx, launch).out, 'hex');
    // neighbours exchanged: lane 0 reads lane 1's sat(-0.25) = 0, lane 1 lane 0's 0.5, lane 2 lane 3's sat(NaN) = 0
    expect([0, 1, 2, 3, 6, 7].map((i) => o.readFloatLE(4 * i))).toEqual([0, 0.5, 0, 1, 0, 1]);
  });

  it('f64 div.rn and sqrt.rn: IEEE-exact over specials, subnormal operands and quotients half-way between subnormals', () => {
    const ptx = `.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 input, .param .u64 output) {
  .reg .f64 %f<6>;
  .reg .u64 %rd<8>;
  .reg .b32 %r<2>;
  ld.param.u64 %rd1, [input];
  ld.param.u64 %rd2, [output];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 16;
  add.u64 %rd4, %rd1, %rd3;
  ld.global.f64 %f1, [%rd4];
  ld.global.f64 %f2, [%rd4+8];
  div.rn.f64 %f3, %f1, %f2;
  sqrt.rn.f64 %f4, %f1;
  rsqrt.approx.f64 %f5, %f2;
  add.u64 %rd5, %rd2, %rd3;
  st.global.f64 [%rd5], %f3;
  st.global.f64 [%rd5+8], %f4;
  mul.wide.u32 %rd6, %r1, 8;
  add.u64 %rd7, %rd2, %rd6;
  st.global.f64 [%rd7+4096], %f5;
  ret;
}`;
    const n = 256;
    const dv = new DataView(new ArrayBuffer(16 * n));
    let seed = 0x9e3779b97f4a7c15n;
    const next = (): bigint => {
      seed = (seed * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn;
      return seed;
    };
    const fromBits = (b: bigint): number => {
      const t = new DataView(new ArrayBuffer(8));
      t.setBigUint64(0, b);
      return t.getFloat64(0);
    };
    const specials = [0, -0, Infinity, -Infinity, NaN, 1, -1, 0.25, 3, 5e-324, -5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 1e-300];
    for (let i = 0; i < n; i++) {
      let a: number, b: number;
      if (i < specials.length * specials.length && i < 120) {
        a = specials[i % specials.length]!;
        b = specials[Math.floor(i / specials.length)]!;
      } else if (i % 3 === 0) {
        a = fromBits(next());
        b = fromBits(next() & 0x800fffffffffffffn); // subnormal divisor
      } else if (i % 3 === 1) {
        a = fromBits(next() & 0x800fffffffffffffn); // subnormal dividend (and root)
        b = fromBits(next());
      } else {
        // quotients at or near (k + 1/2)·2^-1074: the subnormal rounding ties
        const m = 1 + Number(next() % 1000000n) / 1000000;
        a = (Number(next() % 4096n) + 0.5) * m * 2 ** -1014;
        b = m * 2 ** 60;
      }
      dv.setFloat64(16 * i, a, true);
      dv.setFloat64(16 * i + 8, b, true);
    }
    const launch: Launch = {
      kernel: 'k', grid: [1, 1, 1], block: [n, 1, 1],
      buffers: { input: { hex: Buffer.from(dv.buffer).toString('hex') }, output: { hex: '00'.repeat(16 * n + 8 * n) } },
      params: [{ buffer: 'input' }, { buffer: 'output' }], outputs: ['output'],
    };
    const { out } = sameAsPtxPath(ptx, launch);
    // thread t: a = specials[t % 14], b = specials[t / 14]; results: div at word 2t, sqrt at 2t + 1, rsqrt(b) at 2n + t
    const word = (i: number): string => out.slice(16 * i, 16 * i + 16);
    expect(word(2 * 77)).toBe('000000000000d03f'); // 0.25 / 1
    expect(word(2 * 7 + 1)).toBe('000000000000e03f'); // sqrt(0.25)
    expect(word(2 * n + 14 * 7)).toBe('0000000000000040'); // rsqrt(0.25), thread 98 (b = 0.25)
  });

  it('f64 min/max (NaN, signed zeros), u32 -> f64 and f64 -> s64 conversions', () => {
    const ptx = `.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 input, .param .u64 output) {
  .reg .u64 %rd<8>;
  .reg .b32 %r<4>;
  .reg .s64 %s<2>;
  .reg .f64 %fd<6>;
  ld.param.u64 %rd1, [input];
  ld.param.u64 %rd2, [output];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 16;
  add.u64 %rd4, %rd1, %rd3;
  ld.global.f64 %fd1, [%rd4];
  ld.global.f64 %fd2, [%rd4+8];
  min.f64 %fd3, %fd1, %fd2;
  max.f64 %fd4, %fd1, %fd2;
  ld.global.u32 %r2, [%rd4];
  cvt.rn.f64.u32 %fd5, %r2;
  cvt.rzi.s64.f64 %s1, %fd1;
  mul.wide.u32 %rd3, %r1, 32;
  add.u64 %rd5, %rd2, %rd3;
  st.global.f64 [%rd5], %fd3;
  st.global.f64 [%rd5+8], %fd4;
  st.global.f64 [%rd5+16], %fd5;
  st.global.s64 [%rd5+24], %s1;
  ret;
}`;
    const pairs = [[1, 2], [2, 1], [-0, 0], [0, -0], [NaN, 3], [3, NaN], [NaN, NaN], [-Infinity, 5], [1e300, -1e300], [-7.5, -7.5], [4e9, 1], [-3.9e18, 0]];
    const buf = Buffer.alloc(16 * pairs.length);
    pairs.forEach(([x, y], i) => {
      buf.writeDoubleLE(x!, 16 * i);
      buf.writeDoubleLE(y!, 16 * i + 8);
    });
    const launch: Launch = {
      kernel: 'k', grid: [1, 1, 1], block: [pairs.length, 1, 1],
      buffers: { input: { hex: buf.toString('hex') }, output: { hex: '00'.repeat(32 * pairs.length) } }, params: [{ buffer: 'input' }, { buffer: 'output' }], outputs: ['output'],
    };
    const o = Buffer.from(sameAsPtxPath(ptx, launch).out, 'hex');
    expect(Object.is(o.readDoubleLE(64), -0)).toBe(true); // min(-0, +0)
    expect(Object.is(o.readDoubleLE(96 + 8), 0)).toBe(true); // max(+0, -0)
    expect(o.readDoubleLE(128)).toBe(3); // min(NaN, 3)
  });

  it('shared memory starts after the sm_90 system reserve (0x400, as ptxas); extern-only shared keeps the reserve section', () => {
    const ptx = `.version 7.8
.target sm_90
.address_size 64
.extern .shared .align 4 .b8 dyn[];
.visible .entry k(.param .u64 input, .param .u64 output) {
  .reg .u64 %rd<6>;
  .reg .b32 %r<6>;
  ld.param.u64 %rd1, [output];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, dyn;
  add.u32 %r4, %r3, %r2;
  st.shared.u32 [%r4], %r1;
  bar.sync 0;
  xor.b32 %r2, %r2, 4;
  add.u32 %r4, %r3, %r2;
  ld.shared.u32 %r5, [%r4];
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r5;
  st.global.u32 [%rd3+256], %r3;
  ret;
}`;
    const launch: Launch = {
      kernel: 'k', grid: [1, 1, 1], block: [64, 1, 1], sharedBytes: 256,
      buffers: { input: { hex: '00' }, output: { hex: '00'.repeat(512) } }, params: [{ buffer: 'input' }, { buffer: 'output' }], outputs: ['output'],
    };
    const r = compileToCubin(tc, ptx, { arch: 'sm_90', file: 'k.ptx' });
    const sec = readCubin(r.cubin).sections.find((x) => x.name === '.nv.shared.k');
    expect(sec?.size).toBe(0x400);
    const got = runCubin(r.cubin, launch);
    expect(got.result.errors).toEqual([]);
    const o = Buffer.from(got.result.buffers.output!.bytes);
    expect(o.readUInt32LE(0)).toBe(1); // thread 0 read thread 1's value
    expect(o.readUInt32LE(256)).toBe(0x400); // the address of dyn
  });

  it('f32 arithmetic with immediates and a select', () => {
    const ptx = `.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b) {
  .reg .f32 %f<6>;
  .reg .u64 %rd<3>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.global.f32 %f1, [%rd1];
  ld.global.f32 %f2, [%rd1+4];
  fma.rn.f32 %f3, %f1, %f2, 0f3F800000;
  mul.f32 %f4, %f3, 0f40000000;
  setp.gt.f32 %p1, %f4, %f1;
  selp.f32 %f5, %f4, %f1, %p1;
  st.global.f32 [%rd2], %f5;
  ret;
}`;
    sameAsPtxPath(ptx, io('k', '0000c03f00002040', 4));
  });

  it('--maxrregcount spills to local memory (STL/LDL on the R1 frame) and still computes the same', () => {
    // 24 values loaded, then combined in reverse: more live values than 16 - 2 registers hold
    const n = 24;
    const lines: string[] = [];
    for (let i = 0; i < n; i++) lines.push(`  ld.global.u32 %r${i}, [%rd1+${4 * i}];`);
    lines.push('  mov.u32 %r100, 0;');
    for (let i = n - 1; i >= 0; i--) lines.push(`  mad.lo.u32 %r100, %r100, 3, %r${i};`);
    const ptx = `.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b) {
  .reg .u32 %r<101>;
  .reg .u64 %rd<3>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
${lines.join('\n')}
  st.global.u32 [%rd2], %r100;
  ret;
}`;
    const input = Array.from({ length: n }, (_, i) => (i * 7 + 1).toString(16).padStart(2, '0') + '000000').join('');
    const r = compileToCubin(tc, ptx, { arch: 'sm_90', maxrregcount: 16 });
    expect(r.kernels[0]!.registers).toBeLessThanOrEqual(16);
    expect(r.kernels[0]!.spillStores).toBeGreaterThan(0);
    const launch = io('k', input, 4);
    const ref = runKernel(tc.compile({ text: ptx, file: 'k.ptx' }, { arch: 'sm_90', optLevel: 3 }).module, launch);
    const got = runCubin(r.cubin, launch);
    expect(got.result.errors).toEqual([]);
    expect(hex(got.result.buffers.output!.bytes)).toBe(hex(ref.buffers.output!.bytes));
    expect(hazardsInCubin(r.cubin, 'sm_90')).toBe(0);
  });

  it('bit fields: bfe/bfi with register and immediate positions (SHF + SGXT, shifted masks + LOP3)', () => {
    const ptx = `.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b) {
  .reg .u32 %r<16>;
  .reg .u64 %rd<3>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.global.u32 %r1, [%rd1];
  ld.global.u32 %r2, [%rd1+4];
  ld.global.u32 %r3, [%rd1+8];
  bfe.u32 %r4, %r1, %r2, %r3;
  bfe.s32 %r5, %r1, %r2, %r3;
  bfe.s32 %r6, %r1, 4, 12;
  bfe.u32 %r7, %r1, 40, 3;
  bfi.b32 %r8, %r2, %r1, %r3, %r2;
  bfi.b32 %r9, %r3, %r1, 30, 8;
  st.global.u32 [%rd2], %r4;
  st.global.u32 [%rd2+4], %r5;
  st.global.u32 [%rd2+8], %r6;
  st.global.u32 [%rd2+12], %r7;
  st.global.u32 [%rd2+16], %r8;
  st.global.u32 [%rd2+20], %r9;
  ret;
}`;
    // a = 0x8badf00d, pos = 0x105 (mod 256: 5), len = 0x0b
    sameAsPtxPath(ptx, io('k', '0df0ad8b050100000b000000', 24));
  });

  it('carry chains (add.cc/addc.cc), saturating conversions and signed wide products', () => {
    const ptx = `.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b) {
  .reg .u32 %r<16>;
  .reg .s64 %rd<8>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.global.u32 %r1, [%rd1];
  ld.global.u32 %r2, [%rd1+4];
  add.cc.u32 %r3, %r1, %r2;
  addc.cc.u32 %r4, %r1, %r2;
  addc.u32 %r5, %r1, 0;
  cvt.sat.u8.s32 %r6, %r1;
  cvt.sat.s32.u32 %r7, %r1;
  cvt.sat.u32.s32 %r8, %r2;
  mul.wide.s32 %rd3, %r1, %r2;
  cvt.s64.s32 %rd4, %r1;
  mul.lo.s64 %rd4, %rd4, 3;
  cvt.sat.s32.s64 %r9, %rd4;
  st.global.u32 [%rd2], %r3;
  st.global.u32 [%rd2+4], %r4;
  st.global.u32 [%rd2+8], %r5;
  st.global.u32 [%rd2+12], %r6;
  st.global.u32 [%rd2+16], %r7;
  st.global.u32 [%rd2+20], %r8;
  st.global.u64 [%rd2+24], %rd3;
  st.global.u32 [%rd2+32], %r9;
  ret;
}`;
    sameAsPtxPath(ptx, io('k', '00000090feffff7f', 36));
    sameAsPtxPath(ptx, io('k', 'ffffff7f05000000', 36));
  });

  it('atomics (global add/inc/cas, shared add), ballot, FTZ compares and conversions', () => {
    const ptx = `.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b) {
  .shared .align 4 .b32 s[1];
  .reg .u32 %r<16>;
  .reg .f32 %f<4>;
  .reg .f64 %fd<2>;
  .reg .u16 %h<2>;
  .reg .u64 %rd<3>;
  .reg .pred %p<3>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.global.u32 %r1, [%rd1];
  atom.global.add.u32 %r2, [%rd1+4], %r1;
  atom.global.inc.u32 %r3, [%rd1+4], 100;
  atom.global.cas.b32 %r4, [%rd1+4], %r3, 7;
  st.shared.u32 [s], %r1;
  atom.shared.add.u32 %r5, [s], 3;
  ld.shared.u32 %r6, [s];
  ld.global.u32 %r7, [%rd1+4];
  setp.ne.u32 %p1, %r1, 0;
  vote.sync.ballot.b32 %r8, %p1, -1;
  ld.global.f32 %f1, [%rd1+8];
  ld.global.f32 %f2, [%rd1+12];
  setp.gt.ftz.f32 %p2, %f1, %f2;
  selp.u32 %r9, 1, 2, %p2;
  cvt.ftz.f64.f32 %fd1, %f1;
  cvt.rni.u16.f32 %h1, %f2;
  cvt.u32.u16 %r10, %h1;
  st.global.u32 [%rd2], %r2;
  st.global.u32 [%rd2+4], %r3;
  st.global.u32 [%rd2+8], %r4;
  st.global.u32 [%rd2+12], %r5;
  st.global.u32 [%rd2+16], %r6;
  st.global.u32 [%rd2+20], %r7;
  st.global.u32 [%rd2+24], %r8;
  st.global.u32 [%rd2+28], %r9;
  st.global.f64 [%rd2+32], %fd1;
  st.global.u32 [%rd2+40], %r10;
  ret;
}`;
    // f1 = a subnormal (0x00000010), f2 = -0.0 ... then 70000.5 for the u16 saturation
    sameAsPtxPath(ptx, { ...io('k', '0500000009000000100000000000008000000000', 44), sharedBytes: 4 });
    sameAsPtxPath(ptx, { ...io('k', '050000000900000000000040803e8847', 44), sharedBytes: 4 });
  });

  it('device calls are inlined (two call sites, two results, a guarded call), .local variables live in the frame', () => {
    const ptx = `.version 7.8
.target sm_90
.address_size 64
.func (.reg .u32 r, .reg .u32 q) twice(.reg .u32 x, .reg .u32 y)
{
  .reg .pred %p;
  setp.gt.u32 %p, x, y;
  @%p bra BIG;
  add.u32 r, x, x;
  mov.u32 q, 1;
  ret;
BIG:
  sub.u32 r, x, y;
  mov.u32 q, 2;
  ret;
}
.visible .entry k(.param .u64 a, .param .u64 b) {
  .local .align 4 .b8 buf[16];
  .reg .u32 %r<12>;
  .reg .u64 %rd<3>;
  .reg .pred %p1;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.global.u32 %r1, [%rd1];
  ld.global.u32 %r2, [%rd1+4];
  call (%r3, %r4), twice, (%r1, %r2);
  call (%r5, %r6), twice, (%r2, %r1);
  st.local.u32 [buf], %r3;
  st.local.u32 [buf+4], %r5;
  setp.eq.u32 %p1, %r4, 2;
  mov.u32 %r7, 0;
  mov.u32 %r8, 0;
  @%p1 call (%r7, %r8), twice, (%r3, %r3);
  ld.local.u32 %r9, [buf];
  ld.local.u32 %r10, [buf+4];
  st.global.u32 [%rd2], %r9;
  st.global.u32 [%rd2+4], %r10;
  st.global.u32 [%rd2+8], %r4;
  st.global.u32 [%rd2+12], %r6;
  st.global.u32 [%rd2+16], %r7;
  st.global.u32 [%rd2+20], %r8;
  ret;
}`;
    sameAsPtxPath(ptx, io('k', '0900000004000000', 24));
    sameAsPtxPath(ptx, io('k', '0300000004000000', 24));
  });

  it('integer division and remainder (signed, unsigned, by zero), f32 rounding to integers, NUM compares, indexed constants', () => {
    const ptx = `.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b) {
  .reg .u32 %r<16>;
  .reg .f32 %f<8>;
  .reg .u64 %rd<4>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.global.u32 %r1, [%rd1];
  ld.global.u32 %r2, [%rd1+4];
  div.s32 %r3, %r1, %r2;
  rem.s32 %r4, %r1, %r2;
  div.u32 %r5, %r1, %r2;
  rem.u32 %r6, %r1, %r2;
  div.u32 %r7, %r1, 0;
  ld.global.f32 %f1, [%rd1+8];
  cvt.rni.f32.f32 %f2, %f1;
  cvt.rzi.f32.f32 %f3, %f1;
  cvt.rmi.f32.f32 %f4, %f1;
  cvt.rpi.f32.f32 %f5, %f1;
  setp.num.f32 %p1, %f1, %f2;
  selp.u32 %r8, 1, 0, %p1;
  st.global.u32 [%rd2], %r3;
  st.global.u32 [%rd2+4], %r4;
  st.global.u32 [%rd2+8], %r5;
  st.global.u32 [%rd2+12], %r6;
  st.global.u32 [%rd2+16], %r7;
  st.global.f32 [%rd2+20], %f2;
  st.global.f32 [%rd2+24], %f3;
  st.global.f32 [%rd2+28], %f4;
  st.global.f32 [%rd2+32], %f5;
  st.global.u32 [%rd2+36], %r8;
  ret;
}`;
    sameAsPtxPath(ptx, io('k', '85ffffff070000000000b0c0', 40)); // -123 / 7, -5.5
    sameAsPtxPath(ptx, io('k', 'ffffff7ffdffffff00001841', 40)); // big / -3, 9.5
    sameAsPtxPath(ptx, io('k', '2a00000000000000ffffffff', 40)); // by zero, NaN
  });

  it('64-bit high products, f32 square roots (all ranges and specials), bf16 conversion', () => {
    const ptx = `.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b) {
  .reg .u32 %r<4>;
  .reg .b16 %h<2>;
  .reg .f32 %f<8>;
  .reg .u64 %rd<8>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.global.u64 %rd3, [%rd1];
  ld.global.u64 %rd4, [%rd1+8];
  mul.hi.u64 %rd5, %rd3, %rd4;
  mul.hi.s64 %rd6, %rd3, %rd4;
  ld.global.f32 %f1, [%rd1+16];
  sqrt.rn.f32 %f2, %f1;
  sqrt.rn.ftz.f32 %f3, %f1;
  cvt.rn.bf16.f32 %h1, %f1;
  cvt.u32.u16 %r1, %h1;
  st.global.u64 [%rd2], %rd5;
  st.global.u64 [%rd2+8], %rd6;
  st.global.f32 [%rd2+16], %f2;
  st.global.f32 [%rd2+20], %f3;
  st.global.u32 [%rd2+24], %r1;
  ret;
}`;
    const inputs = ['0000c040', '00000000', '00000080', '0000c0bf', '0000807f', '0000c07f', '01000000', 'ffff7f7f', '6f12833a'];
    const words = ['f1debc9a78563412fffffffffffffff7', '0100000000000080ffffffffffffffff', '00000000010000000000000001000000'];
    inputs.forEach((f, i) => sameAsPtxPath(ptx, io('k', words[i % words.length]! + f, 28)));
  });

  it('f32 division (RN, FTZ and not) over normal, subnormal and special operands', () => {
    const ptx = `.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b) {
  .reg .f32 %f<6>;
  .reg .u64 %rd<3>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.global.f32 %f1, [%rd1];
  ld.global.f32 %f2, [%rd1+4];
  div.rn.f32 %f3, %f1, %f2;
  div.rn.ftz.f32 %f4, %f1, %f2;
  st.global.f32 [%rd2], %f3;
  st.global.f32 [%rd2+4], %f4;
  ret;
}`;
    const f = (x: number): string => Buffer.from(new Float32Array([x]).buffer).toString('hex');
    const bits = (u: number): string => Buffer.from(new Uint32Array([u]).buffer).toString('hex');
    const pairs: Array<[string, string]> = [
      [f(1), f(3)], [f(-7.25), f(0.1)], [f(3e38), f(1e-38)], [f(1e-38), f(3e38)], [bits(1), f(3)], [f(2), bits(3)],
      [bits(0x007fffff), bits(0x00000007)], [f(0), f(0)], [f(0), f(-5)], [f(5), f(0)], [f(Infinity), f(2)], [f(2), f(-Infinity)],
      [f(Infinity), f(Infinity)], [bits(0x7fc00001), f(1)], [f(1), bits(0xffc00000)], [f(16777215), f(16777216)],
    ];
    // and pseudo-random bit patterns (a fixed LCG: deterministic), the exponents kept finite
    let seed = 12345;
    const next = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    for (let i = 0; i < 16; i++) pairs.push([bits(next() & 0xbfffffff), bits(next() & 0xbfffffff)]);
    for (const [a, b] of pairs) sameAsPtxPath(ptx, io('k', a + b, 8));
  });

  it('64-bit addends from the parameter bank stay 64-bit (IMAD.WIDE.U32 with a constant pair); static shared memory comes from the cubin', () => {
    const ptx = `.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b) {
  .shared .align 4 .b8 t[128];
  .reg .u32 %r<6>;
  .reg .f32 %f<3>;
  .reg .u64 %rd<8>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  cvta.to.global.u64 %rd3, %rd1;
  cvta.to.global.u64 %rd4, %rd2;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd5, %r1, 4;
  add.u64 %rd6, %rd3, %rd5;
  ld.global.f32 %f1, [%rd6];
  mov.u32 %r2, t;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
  st.shared.f32 [%r4], %f1;
  bar.sync 0;
  xor.b32 %r5, %r3, 4;
  add.u32 %r5, %r2, %r5;
  ld.shared.f32 %f2, [%r5];
  add.u64 %rd7, %rd4, %rd5;
  st.global.f32 [%rd7], %f2;
  ret;
}`;
    const launch: Launch = {
      kernel: 'k', grid: [1, 1, 1], block: [32, 1, 1],
      buffers: { input: { hex: Array.from({ length: 32 }, (_, i) => (i + 1).toString(16).padStart(2, '0') + '000000').join('') }, output: { hex: '00'.repeat(128) } },
      params: [{ buffer: 'input' }, { buffer: 'output' }], outputs: ['output'],
    };
    sameAsPtxPath(ptx, launch);
  });

  it('sin/cos.approx scale the angle to turns before MUFU.SIN/COS, as ptxas', () => {
    const ptx = `.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b) {
  .reg .f32 %f<4>;
  .reg .u64 %rd<3>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.global.f32 %f1, [%rd1];
  sin.approx.f32 %f2, %f1;
  cos.approx.f32 %f3, %f1;
  st.global.f32 [%rd2], %f2;
  st.global.f32 [%rd2+4], %f3;
  ret;
}`;
    // angles whose turns round trip (x * 1/2pi rounded toward zero, lifted back with * 2pi) is exact
    sameAsPtxPath(ptx, io('k', '00000000', 8));
    sameAsPtxPath(ptx, io('k', '00000080', 8));
  });

  it('a block ending in `@p BRA a; BRA b` keeps both edges: a value live only on the guarded edge keeps its register (fuzz seeds 26/70/100)', () => {
    // Ori at -O0 keeps the two-branch block; %r2 is read on the taken edge bb1 -> bb3 only, so a missed edge
    // let %r4 (or %r3) share %r2's register
    const ori = `.target sm_90
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
  %r2 = IMAD %r1, 3, 1
  %p0 = ISETP.GT.U32.AND %r1, 10, PT
  %r3 = IADD3 %r1, 5, RZ
bb1:
  %r4 = LOP3.LUT %r3, %r1, RZ, 0x3c
  @%p0 BRA bb3
  BRA bb2
bb2:
  %r2 = IADD3 %r4, %r3, RZ
bb3:
  %rd2 = MOV c[0x0][0x210]
  %rd3 = IMAD.WIDE.U32 %r0, 4, %rd2
  STG.E.32 [%rd3], %r2
  EXIT
}
`;
    const launch: Launch = {
      kernel: 'k', grid: [1, 1, 1], block: [4, 1, 1],
      buffers: { out: { type: 'u32', count: 4 }, in: { type: 'u32', values: [3, 11, 200, 10] } },
      params: [{ buffer: 'out' }, { buffer: 'in' }], outputs: ['out'],
    };
    const { out } = sameAsPtxPath(ori, launch, 'sm_90', { optLevel: 0, file: 'k.ori' });
    // 3 -> (8 ^ 3) + 8 = 19; 11 -> 3 * 11 + 1 = 34 (taken edge); 200 -> 601; 10 -> (15 ^ 10) + 15 = 20
    expect(out).toBe('13000000220000005902000014000000');
  });

  it('every f32 compare condition, register and immediate operands, ordered and unordered inputs (mirrored/complemented forms where the encoder lacks one)', () => {
    const conds = ['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'equ', 'neu', 'ltu', 'leu', 'gtu', 'geu', 'num', 'nan'];
    const body: string[] = [];
    conds.forEach((c, k) => {
      const forms = ['%f1, %f2', '%f1, 0f3F800000', '0f3F800000, %f2'];
      forms.forEach((f, j) => {
        body.push(`  setp.${c}.f32 %p1, ${f};`, '  selp.u32 %r2, 1, 0, %p1;', `  st.global.u32 [%rd6+${4 * (3 * k + j)}], %r2;`);
      });
    });
    const words = 3 * conds.length;
    const ptx = `.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b) {
  .reg .u32 %r<4>;
  .reg .u64 %rd<8>;
  .reg .f32 %f<3>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 8;
  add.u64 %rd4, %rd1, %rd3;
  ld.global.f32 %f1, [%rd4];
  ld.global.f32 %f2, [%rd4+4];
  mul.wide.u32 %rd5, %r1, ${4 * words};
  add.u64 %rd6, %rd2, %rd5;
${body.join('\n')}
  ret;
}`;
    // pairs: (1, 2), (2, 1), (1, 1), (NaN, 1), (1, NaN), (-0, 0)
    const f = (x: number): string => { const b = Buffer.alloc(4); b.writeFloatLE(x); return b.toString('hex'); };
    const input = [f(1), f(2), f(2), f(1), f(1), f(1), '0000c07f', f(1), f(1), '0000c07f', '00000080', f(0)].join('');
    const launch: Launch = {
      kernel: 'k', grid: [1, 1, 1], block: [6, 1, 1],
      buffers: { input: { hex: input }, output: { hex: '00'.repeat(6 * 4 * words) } },
      params: [{ buffer: 'input' }, { buffer: 'output' }], outputs: ['output'],
    };
    const { out } = sameAsPtxPath(ptx, launch);
    // thread 3 (NaN, 1), the two forms reading the NaN: every ordered compare false, every unordered one true
    const t3 = out.slice(3 * 8 * words, 4 * 8 * words).match(/.{8}/g)!.map((w) => Number.parseInt(w.slice(0, 2), 16));
    const withNaN = conds.map((_, k) => [t3[3 * k], t3[3 * k + 1]]);
    expect(withNaN).toEqual(conds.map((c) => (c === 'nan' || (c.endsWith('u') && c !== 'nu') ? [1, 1] : [0, 0])));
  });

  it('PLOP3 with complemented sources, LEA of an immediate, more live predicates than P registers (homes in R)', () => {
    const preds = Array.from({ length: 10 }, (_, i) => i);
    const ori = `.target sm_90
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
${preds.map((i) => `  %p${i} = ISETP.GT.U32.AND %r1, ${3 * i}, PT`).join('\n')}
  %p20 = PLOP3.LUT %p1, !PT, PT, 0x3, 0x0
  %p21 = PLOP3.LUT !%p2, %p3, !%p4, 0x96, 0x0
  %r2 = LEA 5, %r1, 2
  %r3 = MOV 0
${preds.map((i) => `  %r${10 + i} = SEL ${1 << i}, RZ, %p${i}\n  %r3 = IADD3 %r3, %r${10 + i}, RZ`).join('\n')}
  %r4 = SEL 1, RZ, %p20
  %r5 = SEL 1, RZ, %p21
  %rd2 = MOV c[0x0][0x210]
  %rd3 = IMAD.WIDE.U32 %r0, 16, %rd2
  STG.E.32 [%rd3], %r3
  STG.E.32 [%rd3+0x4], %r2
  STG.E.32 [%rd3+0x8], %r4
  STG.E.32 [%rd3+0xc], %r5
  EXIT
}
`;
    const values = [0, 4, 7, 13, 28, 100];
    const launch: Launch = {
      kernel: 'k', grid: [1, 1, 1], block: [values.length, 1, 1],
      buffers: { out: { type: 'u32', count: 4 * values.length }, in: { type: 'u32', values } },
      params: [{ buffer: 'out' }, { buffer: 'in' }], outputs: ['out'],
    };
    const r = compileToCubin(tc, ori, { arch: 'sm_90', optLevel: 0, file: 'k.ori' });
    sameAsPtxPath(ori, launch, 'sm_90', { optLevel: 0, file: 'k.ori' });
    // thread 4 (28): p0..p9 = 28 > 0, 3, ..., 27 -> all ten set
    const got = runCubin(r.cubin, launch).result.buffers.out!.bytes;
    const w = (i: number): number => Buffer.from(got).readUInt32LE(4 * i);
    expect(w(4 * 4)).toBe(0x3ff);
    expect(w(4 * 4 + 1)).toBe((5 << 2) + 28);
  });

  it('brx.idx through a jump table in .nv.constant2 (LDC c[0x2][Ri], BRX Rpair -(pc)), as ptxas', () => {
    const ptx = `.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b) {
  .reg .u32 %r<8>;
  .reg .u64 %rd<6>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.u64 %rd4, %rd1, %rd3;
  ld.global.u32 %r2, [%rd4];
  and.b32 %r3, %r2, 3;
  ts: .branchtargets L0, L1, L2, L3;
  brx.idx %r3, ts;
L0:
  add.u32 %r4, %r2, 7;
  bra.uni END;
L1:
  mul.lo.u32 %r4, %r2, 5;
  bra.uni END;
L2:
  xor.b32 %r4, %r2, 99;
  bra.uni END;
L3:
  shl.b32 %r4, %r2, 3;
END:
  add.u64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r4;
  ret;
}`;
    const launch: Launch = {
      kernel: 'k', grid: [1, 1, 1], block: [8, 1, 1],
      buffers: { input: { type: 'u32', values: [0, 1, 2, 3, 4, 9, 14, 1003] }, output: { type: 'u32', count: 8 } },
      params: [{ buffer: 'input' }, { buffer: 'output' }], outputs: ['output'],
    };
    const { out } = sameAsPtxPath(ptx, launch);
    const words = out.match(/.{8}/g)!.map((w) => Buffer.from(w, 'hex').readUInt32LE(0));
    expect(words).toEqual([7, 5, 2 ^ 99, 24, 11, 45, 14 ^ 99, 8024]);
    const cubin = readCubin(compileToCubin(tc, ptx, { arch: 'sm_90' }).cubin);
    const table = cubin.sections.find((sec) => sec.name === '.nv.constant2.k')!;
    expect(table.size).toBe(16);
    const f = cubin.functions[0]!;
    const branches = f.attributes.map((r) => decodeAttribute(r)).find((v) => v.kind === 'branchTargets');
    const targets = (branches as { branches: Array<{ targets: number[] }> }).branches[0]!.targets;
    // the table's entries are the targets' function-relative addresses
    const entries = Array.from({ length: 4 }, (_, i) => Buffer.from(table.data).readUInt32LE(4 * i));
    expect([...new Set(entries)].sort((x, y) => x - y)).toEqual([...targets].sort((x, y) => x - y));
  });

  it('BRX.TABLE (byte offsets into the table), a constant index, two tables in one function', () => {
    const ori = `.target sm_90
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
  %r2 = LOP3.LUT %r1, 0xc, RZ, 0xc0
  %r5 = MOV 0
  BRX.TABLE %r2, (bb1, bb2, bb3, bb1)
bb1:
  %r3 = IADD3 %r1, 100, RZ
  BRA bb4
bb2:
  %r3 = IADD3 %r1, 200, RZ
  BRA bb4
bb3:
  %r3 = IADD3 %r1, 300, RZ
bb4:
  %r4 = LOP3.LUT %r1, 1, RZ, 0xc0
  BRX %r4, (bb5, bb6)
bb5:
  %r5 = IADD3 %r5, 1, RZ
bb6:
  BRX 1, (bb7, bb8)
bb7:
  %r5 = IADD3 %r5, 1000, RZ
bb8:
  %r3 = IADD3 %r3, %r5, RZ
  %rd2 = MOV c[0x0][0x210]
  %rd3 = IMAD.WIDE.U32 %r0, 4, %rd2
  STG.E.32 [%rd3], %r3
  EXIT
}
`;
    const values = [0, 4, 8, 12, 1, 5, 9, 13];
    const launch: Launch = {
      kernel: 'k', grid: [1, 1, 1], block: [values.length, 1, 1],
      buffers: { out: { type: 'u32', count: values.length }, in: { type: 'u32', values } },
      params: [{ buffer: 'out' }, { buffer: 'in' }], outputs: ['out'],
    };
    const { out } = sameAsPtxPath(ori, launch, 'sm_90', { optLevel: 0, file: 'k.ori' });
    const words = out.match(/.{8}/g)!.map((w) => Buffer.from(w, 'hex').readUInt32LE(0));
    expect(words).toEqual([101, 205, 309, 113, 101, 205, 309, 113]);
  });

  it('f32 atomic add on shared memory as a compare-and-store loop (ATOMS.CAST.SPIN), threads contending, guarded', () => {
    const ptx = `.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b) {
  .shared .align 4 .b8 s[16];
  .reg .u32 %r<4>;
  .reg .u64 %rd<8>;
  .reg .f32 %f<6>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.u64 %rd4, %rd1, %rd3;
  ld.global.f32 %f1, [%rd4];
  setp.eq.u32 %p1, %r1, 0;
  @%p1 st.shared.f32 [s], 0f3F800000;
  @%p1 st.shared.f32 [s+4], 0f00000000;
  bar.sync 0;
  atom.shared.add.f32 %f2, [s], %f1;
  setp.lt.u32 %p1, %r1, 2;
  mov.f32 %f3, 0f00000000;
  @%p1 atom.shared.add.f32 %f3, [s+4], %f1;
  bar.sync 0;
  ld.shared.f32 %f4, [s];
  ld.shared.f32 %f5, [s+4];
  mul.wide.u32 %rd5, %r1, 16;
  add.u64 %rd6, %rd2, %rd5;
  st.global.f32 [%rd6], %f2;
  st.global.f32 [%rd6+4], %f3;
  st.global.f32 [%rd6+8], %f4;
  st.global.f32 [%rd6+12], %f5;
  ret;
}`;
    const f = (x: number): string => { const b = Buffer.alloc(4); b.writeFloatLE(x); return b.toString('hex'); };
    const launch: Launch = {
      kernel: 'k', grid: [1, 1, 1], block: [4, 1, 1],
      buffers: { input: { hex: [1.5, 2.25, 3, 0.125].map(f).join('') }, output: { hex: '00'.repeat(64) } },
      params: [{ buffer: 'input' }, { buffer: 'output' }], outputs: ['output'], sharedBytes: 16,
    };
    const { out } = sameAsPtxPath(ptx, launch);
    const words = out.match(/.{8}/g)!.map((w) => Buffer.from(w, 'hex').readFloatLE(0));
    // every thread sees the final sums; the old values are distinct partial sums of 1 + 1.5 + 2.25 + 3 + 0.125
    expect([words[2], words[3]]).toEqual([7.875, 3.75]);
    expect(new Set([words[0], words[4], words[8], words[12]]).size).toBe(4);
    expect([words[9], words[13]]).toEqual([0, 0]);
  });

  it('is deterministic: the same input gives the same bytes', () => {
    const ptx = `.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b) {
  .reg .u64 %rd<4>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.global.u64 %rd3, [%rd1];
  st.global.u64 [%rd2], %rd3;
  ret;
}`;
    expect(hex(compileToCubin(tc, ptx, { arch: 'sm_90' }).cubin)).toBe(hex(compileToCubin(tc, ptx, { arch: 'sm_90' }).cubin));
  });

  it('64-bit integer min/max (signed and unsigned): ISETP.LT.U32 + ISETP.LT.EX chained, one SEL per word, as ptxas', () => {
    const ptx = `.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 input, .param .u64 output) {
  .reg .u64 %rd<12>;
  .reg .b32 %r<2>;
  ld.param.u64 %rd1, [input];
  ld.param.u64 %rd2, [output];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 16;
  add.u64 %rd4, %rd1, %rd3;
  ld.global.u64 %rd5, [%rd4];
  ld.global.u64 %rd6, [%rd4+8];
  min.s64 %rd7, %rd5, %rd6;
  max.s64 %rd8, %rd5, %rd6;
  min.u64 %rd9, %rd5, %rd6;
  max.u64 %rd10, %rd5, %rd6;
  min.s64 %rd11, %rd5, -5;
  mul.wide.u32 %rd3, %r1, 40;
  add.u64 %rd4, %rd2, %rd3;
  st.global.u64 [%rd4], %rd7;
  st.global.u64 [%rd4+8], %rd8;
  st.global.u64 [%rd4+16], %rd9;
  st.global.u64 [%rd4+24], %rd10;
  st.global.u64 [%rd4+32], %rd11;
  ret;
}`;
    const M = 0xffffffffffffffffn;
    const pairs: Array<[bigint, bigint]> = [[1n, 2n], [2n, 1n], [M, 1n], [1n << 63n, (1n << 63n) - 1n], [0x100000000n, 0xffffffffn], [0x1ffffffffn, 0x1fffffffen], [5n, 5n], [M - 3n, M - 2n]];
    const buf = Buffer.alloc(16 * pairs.length);
    pairs.forEach(([x, y], i) => {
      buf.writeBigUInt64LE(x, 16 * i);
      buf.writeBigUInt64LE(y, 16 * i + 8);
    });
    const launch: Launch = {
      kernel: 'k', grid: [1, 1, 1], block: [pairs.length, 1, 1],
      buffers: { input: { hex: buf.toString('hex') }, output: { hex: '00'.repeat(40 * pairs.length) } }, params: [{ buffer: 'input' }, { buffer: 'output' }], outputs: ['output'],
    };
    const o = Buffer.from(sameAsPtxPath(ptx, launch).out, 'hex');
    // pair 2: (-1, 1): signed min -1, unsigned min 1
    expect(o.readBigUInt64LE(80)).toBe(M);
    expect(o.readBigUInt64LE(80 + 16)).toBe(1n);
  });

  it('f16x2 add and multiply (HADD2/HMUL2, FTZ and not, immediate operands) over normal, subnormal and special halves', () => {
    const ptx = `.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 input, .param .u64 output) {
  .reg .u64 %rd<6>;
  .reg .b32 %r<3>;
  .reg .f16x2 %h<10>;
  ld.param.u64 %rd1, [input];
  ld.param.u64 %rd2, [output];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 8;
  add.u64 %rd4, %rd1, %rd3;
  ld.global.b32 %h1, [%rd4];
  ld.global.b32 %h2, [%rd4+4];
  add.rn.f16x2 %h3, %h1, %h2;
  add.ftz.f16x2 %h4, %h1, %h2;
  mul.rn.f16x2 %h5, %h1, %h2;
  mul.ftz.f16x2 %h6, %h1, %h2;
  sub.f16x2 %h7, %h1, %h2;
  mov.b32 %h8, 0x3c00bc00;
  mul.f16x2 %h9, %h1, %h8;
  mul.wide.u32 %rd3, %r1, 24;
  add.u64 %rd5, %rd2, %rd3;
  st.global.b32 [%rd5], %h3;
  st.global.b32 [%rd5+4], %h4;
  st.global.b32 [%rd5+8], %h5;
  st.global.b32 [%rd5+12], %h6;
  st.global.b32 [%rd5+16], %h7;
  st.global.b32 [%rd5+20], %h9;
  ret;
}`;
    // halves: 1, -2, 0.5, 65504 (max), a subnormal, -0, inf, NaN, 3.14, -1.5
    const words = [[0x3c00c000, 0x38003c00], [0x7bff7bff, 0x3c003c00], [0x00018001, 0x3c000001], [0x80007c00, 0x3c00fc00], [0x7e004248, 0x3c00be00], [0x03ff0200, 0x38003800]];
    const buf = Buffer.alloc(8 * words.length);
    words.forEach(([x, y], i) => {
      buf.writeUInt32LE(x!, 8 * i);
      buf.writeUInt32LE(y!, 8 * i + 4);
    });
    const launch: Launch = {
      kernel: 'k', grid: [1, 1, 1], block: [words.length, 1, 1],
      buffers: { input: { hex: buf.toString('hex') }, output: { hex: '00'.repeat(24 * words.length) } }, params: [{ buffer: 'input' }, { buffer: 'output' }], outputs: ['output'],
    };
    const o = Buffer.from(sameAsPtxPath(ptx, launch).out, 'hex');
    expect(o.readUInt32LE(0)).toBe(0x3e00bc00); // lanes: lo -2 + 1 = -1 (0xbc00), hi 1 + 0.5 = 1.5 (0x3e00)
  });

  it('warp shuffles (idx/up/down/bfly, register and immediate lane and clamp, the in-range predicate) over a full warp', () => {
    const ptx = `.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 input, .param .u64 output) {
  .reg .u64 %rd<6>;
  .reg .b32 %r<16>;
  .reg .pred %p<3>;
  ld.param.u64 %rd1, [input];
  ld.param.u64 %rd2, [output];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.u64 %rd4, %rd1, %rd3;
  ld.global.u32 %r2, [%rd4];
  and.b32 %r3, %r2, 63;
  shfl.sync.idx.b32 %r4|%p1, %r2, %r3, 31, -1;
  selp.u32 %r5, 1, 0, %p1;
  shfl.sync.up.b32 %r6|%p2, %r2, 3, 0, -1;
  selp.u32 %r7, 1, 0, %p2;
  shfl.sync.down.b32 %r8, %r2, 5, 0x1f, -1;
  shfl.sync.bfly.b32 %r9, %r2, 6, 0x1f, -1;
  shfl.sync.idx.b32 %r10, %r1, %r3, 0x0c1f, -1;
  shfl.sync.down.b32 %r11|%p1, %r2, %r3, %r1, 0xffffffff;
  selp.u32 %r12, 1, 0, %p1;
  mul.wide.u32 %rd3, %r1, 32;
  add.u64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r4;
  st.global.u32 [%rd5+4], %r5;
  st.global.u32 [%rd5+8], %r6;
  st.global.u32 [%rd5+12], %r7;
  st.global.u32 [%rd5+16], %r8;
  st.global.u32 [%rd5+20], %r9;
  st.global.u32 [%rd5+24], %r10;
  st.global.u32 [%rd5+28], %r12;
  ret;
}`;
    const buf = Buffer.alloc(4 * 32);
    for (let i = 0; i < 32; i++) buf.writeUInt32LE((i * 2654435761) >>> 0, 4 * i);
    const launch: Launch = {
      kernel: 'k', grid: [1, 1, 1], block: [32, 1, 1],
      buffers: { input: { hex: buf.toString('hex') }, output: { hex: '00'.repeat(32 * 32) } }, params: [{ buffer: 'input' }, { buffer: 'output' }], outputs: ['output'],
    };
    const o = Buffer.from(sameAsPtxPath(ptx, launch).out, 'hex');
    expect(o.readUInt32LE(32 * 1 + 20)).toBe(buf.readUInt32LE(4 * (1 ^ 6))); // bfly 6 from lane 1 reads lane 7
    expect(o.readUInt32LE(32 * 1 + 12)).toBe(0); // up 3 from lane 1: out of range
  });

  it('names the opcode it cannot select yet (coded error, not a crash)', () => {
    const ptx = `.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b) {
  .reg .f32 %f<4>;
  .reg .u64 %rd<3>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.global.f32 %f1, [%rd1];
  div.rz.f32 %f2, %f1, %f1;
  st.global.f32 [%rd2], %f2;
  ret;
}`;
    expect(() => compileToCubin(tc, ptx, { arch: 'sm_90' })).toThrow(/not implemented: FDIV.RZ \(directed-rounding or approximate division\)/);
  });
});
