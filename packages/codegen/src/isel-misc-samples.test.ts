// Constructs of the CUDA samples (issue #16, helper misc): 64-bit integer to f32 conversions (SineWaveSimulation),
// MUFU with .FTZ (lineOfSight, texture_2d), SIMD video `vabsdiff4 ... .add` (stereoDisparity). Each compiles PTX →
// our sm_90 cubin (0 hazards), lifts it and runs it beside the PTX path: the outputs must be the same bytes.
import { describe, expect, it } from 'vitest';
import { createToolchain, Encoder } from '@ptxforge/kernel';
import corePlugin from '@ptxforge/plugin-core';
import { ptxFrontendPlugin } from '@ptxforge/ptx';
import targetSm90Plugin from '@ptxforge/target-sm90';
import { runKernel, type Launch } from '@ptxforge/interp';
import { runCubin } from '@ptxforge/sass-lift';
import { decodeCubin } from './decoded-cubin.test-util.js';
import { compileToCubin, legalize, type MFunction, type MInstr, type MOperand, type VReg } from './index.js';

const tc = createToolchain({ plugins: [corePlugin, ptxFrontendPlugin, targetSm90Plugin] });

function texts(bytes: Uint8Array): string[] {
  const { texts: out, hazards } = decodeCubin(tc, bytes);
  expect(hazards).toBe(0);
  return out;
}

/** Thread t reads 16 bytes at input + 16t and writes 16 bytes at output + 16t (the body's %rd5 / %rd7). */
function run(body: string, input: Buffer, regs = ''): { out: Buffer; sass: string[] } {
  const ptx = `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 input, .param .u64 output) {
  .reg .u64 %rd<16>;
  .reg .b32 %r<32>;
  .reg .f32 %f<16>;
${regs}
  ld.param.u64 %rd1, [input];
  ld.param.u64 %rd2, [output];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 16;
  add.u64 %rd5, %rd1, %rd3;
  add.u64 %rd7, %rd2, %rd3;
${body}
  ret;
}`;
  const threads = input.length / 16;
  const launch: Launch = {
    kernel: 'k', grid: [1, 1, 1], block: [threads, 1, 1],
    buffers: { input: { hex: input.toString('hex') }, output: { hex: '00'.repeat(input.length) } },
    params: [{ buffer: 'input' }, { buffer: 'output' }], outputs: ['output'],
  };
  const r = compileToCubin(tc, ptx, { arch: 'sm_90', file: 'k.ptx', optLevel: 3 });
  const sass = texts(r.cubin);
  const ref = runKernel(tc.compile({ text: ptx, file: 'k.ptx' }, { arch: 'sm_90', optLevel: 3 }).module, launch);
  expect(ref.errors ?? []).toEqual([]);
  const got = runCubin(r.cubin, launch);
  expect(got.result.errors).toEqual([]);
  const out = Buffer.from(got.result.buffers.output!.bytes);
  expect(out.toString('hex')).toBe(Buffer.from(ref.buffers.output!.bytes).toString('hex'));
  return { out, sass };
}

describe('PTX → sm_90 cubin → lifted run: constructs of the CUDA samples (misc group)', () => {
  it('cvt.rn/rz/rp.f32.u64 and cvt.rn.f32.s64 (I2F from a register pair)', () => {
    const vals = [0n, 1n, 0xffffffffn, 0x100000001n, (1n << 53n) + 1n, (1n << 63n) - 1n, 1n << 63n, (1n << 64n) - 1n, 0xfedcba9876543210n, 0x8000008000000001n];
    const input = Buffer.alloc(16 * vals.length);
    vals.forEach((v, i) => input.writeBigUInt64LE(v, 16 * i));
    const { out, sass } = run(`  ld.global.u64 %rd6, [%rd5];
  cvt.rn.f32.u64 %f1, %rd6;
  cvt.rn.f32.s64 %f2, %rd6;
  cvt.rz.f32.u64 %f3, %rd6;
  cvt.rp.f32.u64 %f4, %rd6;
  st.global.v4.f32 [%rd7], {%f1, %f2, %f3, %f4};`, input);
    for (const t of ['I2F.U64 ', 'I2F.S64 ', 'I2F.U64.RZ ', 'I2F.U64.RP ']) expect(sass.some((x) => x.startsWith(t)), t).toBe(true);
    // spot values: 2^64-1 rounds to 2^64 (RN, RP) and to 2^64 - 2^40 (RZ); as s64 it is -1
    const last = 16 * 7;
    expect(out.readFloatLE(last)).toBe(2 ** 64);
    expect(out.readFloatLE(last + 4)).toBe(-1);
    expect(out.readFloatLE(last + 8)).toBe(2 ** 64 - 2 ** 40);
    expect(out.readFloatLE(last + 12)).toBe(2 ** 64);
  });

  it('rcp/sqrt/rsqrt/ex2/lg2 .approx.ftz.f32 (MUFU with the subnormal flushes spelled out)', () => {
    const vals = [1, -3, 0.1, 1e-40, -1e-40, 0, -0, 3e38, -3e38, Infinity, -Infinity, NaN, 2 ** -126, 100, -130, 2 ** 127];
    const input = Buffer.alloc(16 * vals.length);
    vals.forEach((v, i) => input.writeFloatLE(v, 16 * i));
    const { out, sass } = run(`  ld.global.f32 %f1, [%rd5];
  rcp.approx.ftz.f32 %f2, %f1;
  sqrt.approx.ftz.f32 %f3, %f1;
  ex2.approx.ftz.f32 %f4, %f1;
  lg2.approx.ftz.f32 %f5, %f1;
  add.ftz.f32 %f4, %f4, %f5;
  st.global.v4.f32 [%rd7], {%f2, %f3, %f4, %f1};`, input);
    expect(sass.some((x) => x.startsWith('MUFU.RCP '))).toBe(true);
    // a subnormal input is flushed: 1/±0 = ±inf; rcp(3e38) is subnormal and flushed to 0
    expect(out.readFloatLE(16 * 3)).toBe(Infinity);
    expect(out.readFloatLE(16 * 4)).toBe(-Infinity);
    expect(out.readFloatLE(16 * 7)).toBe(0);
  });

  it('generic-address atomics in the CTA and system scopes (ATOM.E.<op>.STRONG.SM/.SYS: red.and.release.cta in reduction)', () => {
    const input = Buffer.alloc(16 * 8);
    for (let t = 0; t < 8; t++) input.writeUInt32LE((0xffffffff ^ (1 << t)) >>> 0, 16 * t);
    const { out, sass } = run(`  .reg .pred %p<2>;
  ld.global.u32 %r2, [%rd5];
  mov.u64 %rd8, %rd2;
  mov.u32 %r3, -1;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 st.global.u32 [%rd2], %r3;
  bar.sync 0;
  red.and.release.cta.b32 [%rd8], %r2;
  bar.sync 0;
  atom.or.acquire.cta.b32 %r4, [%rd8+4], %r1;
  atom.sys.xor.b32 %r5, [%rd8+8], %r2;
  atom.cta.add.u32 %r6, [%rd8+12], 1;
  @!%p1 bra DONE;
  ld.global.u32 %r7, [%rd8];
  st.global.u32 [%rd8+16], %r7;
DONE:`, input);
    expect(sass.some((x) => x.includes('ATOM.E.AND.STRONG.SM'))).toBe(true);
    expect(sass.some((x) => x.includes('ATOM.E.XOR.STRONG.SYS'))).toBe(true);
    // every thread cleared its own bit of the word thread 0 set to all ones
    expect(out.readUInt32LE(16)).toBe(0xffffff00);
    expect(out.readUInt32LE(4)).toBe(7);
    expect(out.readUInt32LE(12)).toBe(8);
  });

  it('legalize: IADD3 with two immediates, one of them zero (a 64-bit constant\'s zero word: segmentationTreeThrust)', () => {
    // `%rd493 = IADD3 0x1c0000000000, ~%rd69, 1` gives the low words `IADD3 R, P, PT, 0, ~R, 1`
    const x: VReg = { id: 0, file: 'R', width: 1, name: 'x' };
    const d: VReg = { id: 1, file: 'R', width: 1, name: 'd' };
    const c: VReg = { id: 2, file: 'P', width: 1, name: 'c' };
    const vr = (v: VReg, extra: Record<string, unknown> = {}): MOperand => ({ k: 'vreg', v, part: 0, span: 1, ...extra }) as MOperand;
    const mi: MInstr = { opcode: 'IADD3', mods: [], ndefs: 3, ops: [vr(d), vr(c), { k: 'reg', file: 'P', n: 7 }, { k: 'int', v: 0 }, vr(x, { neg: true }), { k: 'int', v: 1 }] };
    const mf = { name: 'k', blocks: [{ label: 'b0', instrs: [mi] }], vregs: [x, d, c] } as unknown as MFunction;
    legalize(mf, tc.services('sm_90').service(Encoder), () => {
      throw new Error('no temporary needed');
    });
    const out = mf.blocks[0]!.instrs;
    expect(out.length).toBe(1);
    expect(out[0]!.ops.slice(3).some((o) => (o as { k: string; n?: number }).k === 'reg' && (o as { n?: number }).n === 255)).toBe(true);
  });

  it('64-bit add/sub of a constant whose low word is zero', () => {
    const vals = [0n, 1n, 0x1c0000000000n, 0xffffffffffffffffn, 0x123456789abcdefn];
    const input = Buffer.alloc(16 * vals.length);
    vals.forEach((v, i) => input.writeBigUInt64LE(v, 16 * i));
    const { out } = run(`  ld.global.u64 %rd6, [%rd5];
  mov.u64 %rd9, 30786325577728;
  not.b64 %rd13, %rd6;
  add.s64 %rd14, %rd13, 1;
  add.s64 %rd10, %rd9, %rd14;
  shr.s64 %rd12, %rd10, 32;
  sub.s64 %rd10, %rd6, %rd12;
  add.s64 %rd11, %rd6, -4294967296;
  st.global.v2.u64 [%rd7], {%rd10, %rd11};`, input);
    vals.forEach((v, t) => {
      expect(out.readBigUInt64LE(16 * t)).toBe(BigInt.asUintN(64, v - (BigInt.asIntN(64, 0x1c0000000000n - v) >> 32n)));
      expect(out.readBigUInt64LE(16 * t + 8)).toBe(BigInt.asUintN(64, v - (1n << 32n)));
    });
  });

  it('SIMD video with .add: vabsdiff4/vadd4/vsub4/vavrg4/vmin4/vmax4 and the 2-lane forms, unsigned and signed', () => {
    const words = [0x00000000, 0xffffffff, 0x80007f01, 0x01020304, 0xfe7f8081, 0x12345678, 0x9abcdef0, 0x7fff8000];
    const input = Buffer.alloc(16 * 16);
    for (let t = 0; t < 16; t++) {
      input.writeUInt32LE(words[t % 8]!, 16 * t);
      input.writeUInt32LE(words[(3 * t + 1) % 8]!, 16 * t + 4);
      input.writeUInt32LE(t * 0x01010101 + 5, 16 * t + 8);
    }
    const ops = ['vabsdiff4.u32.u32.u32.add', 'vabsdiff4.s32.s32.s32.add', 'vadd4.u32.u32.u32.add', 'vsub4.s32.s32.u32.add',
      'vavrg4.u32.u32.u32.add', 'vmin4.s32.s32.s32.add', 'vmax4.u32.u32.u32.add', 'vabsdiff2.u32.s32.s32.add', 'vavrg2.s32.s32.s32.add',
      'vmin2.u32.u32.u32.add', 'vsub2.u32.u32.u32.add', 'vadd2.s32.s32.s32.add'];
    const body = [
      '  ld.global.u32 %r2, [%rd5];', '  ld.global.u32 %r3, [%rd5+4];', '  ld.global.u32 %r4, [%rd5+8];', '  mov.u32 %r10, 0;',
      ...ops.map((op, i) => `  ${op} %r${11 + i}, %r2, %r3, %r4;\n  xor.b32 %r10, %r10, %r${11 + i};\n  shf.l.wrap.b32 %r10, %r10, %r10, 7;`),
      '  st.global.v4.u32 [%rd7], {%r10, %r11, %r12, %r13};',
    ].join('\n');
    const { out } = run(body, input);
    // thread 3: a = words[3] = 0x01020304, b = words[(3 * 3 + 1) % 8] = 0x80007f01, c = 3 * 0x01010101 + 5
    const a = [0x04, 0x03, 0x02, 0x01];
    const b = [0x01, 0x7f, 0x00, 0x80];
    const c = 3 * 0x01010101 + 5;
    const sad = a.reduce((s, x, i) => s + Math.abs(x - b[i]!), 0);
    expect(out.readUInt32LE(16 * 3 + 4)).toBe((c + sad) >>> 0);
    const sb = b.map((x) => (x >= 128 ? x - 256 : x));
    expect(out.readUInt32LE(16 * 3 + 8)).toBe((c + a.reduce((s, x, i) => s + Math.abs(x - sb[i]!), 0)) >>> 0);
  });
});
