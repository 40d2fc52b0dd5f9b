import { generateLaunch, runKernel, type Launch } from '@ptxforge/interp';
import { PtxforgeError, printModule, verifyModule } from '@ptxforge/kernel';
import { describe, expect, it } from 'vitest';
import { parsePtx } from '../parser.js';
import { lowerPtx } from './module.js';

const HEAD = '.version 8.0\n.target sm_90\n.address_size 64\n';
const lower = (src: string) => {
  const m = lowerPtx(parsePtx(HEAD + src, 'k.ptx'), { target: { arch: 'sm_90', capabilities: { paramBase: 0x210 } } });
  expect(verifyModule(m)).toEqual([]);
  return m;
};
const error = (src: string): PtxforgeError => {
  try {
    lower(src);
  } catch (e) {
    return e as PtxforgeError;
  }
  throw new Error('expected an error');
};
const f32 = (x: number) => new Uint32Array(new Float32Array([x]).buffer)[0]!;
const floats = (b: Uint8Array) => Array.from(new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)));
const words = (b: Uint8Array) => Array.from(new Uint32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)));

/** A kernel: thread i reads the texture at (x[i], y[i]) and writes the 4 components to out[4i..4i+3]. */
const TEX2D = (op: string, dt = 'f32') => `
.visible .entry k(.param .u64 t, .param .u64 xy, .param .u64 out) {
  .reg .b32 %r<8>; .reg .f32 %f<12>; .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [t];
  ld.param.u64 %rd2, [xy];
  ld.param.u64 %rd3, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 8;
  add.s64 %rd5, %rd2, %rd4;
  ld.global.f32 %f1, [%rd5];
  ld.global.f32 %f2, [%rd5+4];
  ${op} {%${dt === 'f32' ? 'f' : 'r'}4, %${dt === 'f32' ? 'f' : 'r'}5, %${dt === 'f32' ? 'f' : 'r'}6, %${dt === 'f32' ? 'f' : 'r'}7}, [%rd1, {%f1, %f2}];
  mul.wide.u32 %rd6, %r1, 16;
  add.s64 %rd7, %rd3, %rd6;
  st.global.v4.${dt === 'f32' ? 'f32' : 'u32'} [%rd7], {%${dt === 'f32' ? 'f' : 'r'}4, %${dt === 'f32' ? 'f' : 'r'}5, %${dt === 'f32' ? 'f' : 'r'}6, %${dt === 'f32' ? 'f' : 'r'}7};
  ret;
}`;

/** 4x2 single-channel f32 texture with texel (x, y) = 10 * y + x. */
const image = { type: 'f32' as const, values: [0, 1, 2, 3, 10, 11, 12, 13] };
function run2d(op: string, coords: number[], tex: Partial<NonNullable<Launch['textures']>[string]>, dt = 'f32') {
  const m = lower(TEX2D(op, dt));
  const n = coords.length / 2;
  const r = runKernel(m, {
    kernel: 'k', grid: [1], block: [n],
    buffers: { img: image, xy: { type: 'f32', values: coords }, out: { type: 'u32', count: 4 * n } },
    textures: { img: { buffer: 'img', format: 'f32', width: 4, height: 2, ...tex } },
    params: [{ texture: 'img' }, { buffer: 'xy' }, { buffer: 'out' }],
  });
  expect(r.errors.map((e) => e.message)).toEqual([]);
  return r.buffers.out!.bytes;
}

describe('texture and surface instructions (PTX -> Ori -> interpreter)', () => {
  it('lowers tex/tld4/suld/sust/txq/suq on object handles to the documented Ori forms', () => {
    const m = lower(`
.visible .entry k(.param .u64 t, .param .u64 s) {
  .reg .b32 %r<20>; .reg .f32 %f<20>; .reg .b64 %rd<4>; .reg .b16 %rs<8>;
  ld.param.u64 %rd1, [t];
  ld.param.u64 %rd2, [s];
  mov.f32 %f1, 0f3F000000;
  mov.u32 %r1, 1;
  tex.3d.v4.f32.f32 {%f2, %f3, %f4, %f5}, [%rd1, {%f1, %f1, %f1, %f1}];
  tex.a2d.v4.s32.f32 {%r2, %r3, %r4, %r5}, [%rd1, {%r1, %f1, %f1, %f1}];
  tex.level.2d.v4.f32.f32 {%f6, %f7, %f8, %f9}, [%rd1, {%f1, %f1}], %f1;
  tex.1d.v4.u32.s32 {%r6, %r7, %r8, %r9}, [%rd1, {%r1}];
  tld4.b.2d.v4.f32.f32 {%f10, %f11, %f12, %f13}, [%rd1, {%f1, %f1}];
  txq.width.b32 %r10, [%rd1];
  suq.height.b32 %r11, [%rd2];
  suld.b.2d.v4.b8.zero {%rs1, %rs2, %rs3, %rs4}, [%rd2, {%r1, %r1}];
  sust.b.a1d.v2.b32.clamp [%rd2, {%r1, %r1}], {%r10, %r11};
  ret;
}`);
    const text = printModule(m);
    expect(text).toMatch(/= TEX\.3D\.F32\.F32 %rd\d+, %r\d+, %r\d+, %r\d+ \{/);
    expect(text).toMatch(/= TEX\.ARRAY_2D\.S32\.F32 %rd\d+, %r\d+, %r\d+, %r\d+ \{/);
    expect(text).toMatch(/= TEX\.2D\.F32\.F32\.LL %rd\d+, %r\d+, %r\d+, %r\d+ \{/);
    expect(text).toMatch(/= TEX\.1D\.U32\.S32 %rd\d+, %r\d+ \{/);
    expect(text).toMatch(/= TLD4\.B\.2D\.F32\.F32 %rd\d+, %r\d+, %r\d+ \{/);
    expect(text).toMatch(/%r\d+ = TXQ\.WIDTH %rd\d+ \{/);
    expect(text).toMatch(/%r\d+ = SUQ\.HEIGHT %rd\d+ \{/);
    expect(text).toMatch(/%r\d+, %r\d+, %r\d+, %r\d+ = SULD\.2D\.B8\.ZERO %rd\d+, %r\d+, %r\d+ \{/);
    expect(text).toMatch(/SUST\.ARRAY_1D\.B32\.CLAMP %rd\d+, %r\d+, %r\d+, %r\d+, %r\d+ \{/);
  });

  it('refuses what it does not model with a located PTX_UNSUPPORTED naming the construct', () => {
    const body = (ins: string, decl = '') => `${decl}
.visible .entry k(.param .u64 t) {
  .reg .b32 %r<8>; .reg .f32 %f<8>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [t];
  ${ins}
  ret;
}`;
    const e1 = error(body('tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tr, {%f1, %f1}];', '.global .texref tr;'));
    expect(e1.code).toBe('PTX_UNSUPPORTED');
    expect(e1.format()).toMatch(/^k\.ptx:8:3: .*texture\/surface reference variable/);
    const e2 = error(body('sust.p.2d.b32.trap [%rd1, {%r1, %r1}], {%r1};'));
    expect(e2.code).toBe('PTX_UNSUPPORTED');
    expect(e2.message).toMatch(/formatted surface access/);
    const e3 = error(body('tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, %rd1, {%f1, %f1}];'));
    expect(e3.message).toMatch(/separate sampler/);
    const e4 = error(body('tex.2d.v4.f32.f32 {%f1, %f2, %f3}, [%rd1, {%f1, %f1}];'));
    expect(e4.code).toBe('PTX_SEMANTIC');
    expect(e4.message).toMatch(/destination vector of 4 elements/);
  });

  it('point sampling reads T[floor(x), floor(y)] with clamp addressing', () => {
    const out = floats(run2d('tex.2d.v4.f32.f32', [0.5, 0.5, 2.9, 1.2, -3, 7, 3.99, 0], {}));
    // single-channel texture: y, z components read 0, alpha 1
    expect(out).toEqual([0, 0, 0, 1, 12, 0, 0, 1, 10, 0, 0, 1, 3, 0, 0, 1]);
  });

  it('linear filtering weighs the 4 neighbours with 8-bit fractional weights', () => {
    const out = floats(run2d('tex.2d.v4.f32.f32', [1.0, 0.5, 1.5, 1.5, 1.2, 1.0], { filter: 'linear' }));
    expect(out[0]).toBe(0.5); // halfway between texels 0 and 1 of row 0
    expect(out[4]).toBe(11); // the centre of texel (1, 1)
    // x: 0.7 -> weight round(0.7 * 256) / 256 = 179/256; y: 0.5 between rows 0 and 1
    expect(out[8]).toBe(Math.fround(0.5 * (0 + (179 / 256) * 1) + 0.5 * (10 + (179 / 256) * 1)));
  });

  it('normalized coordinates, border and wrap addressing', () => {
    expect(floats(run2d('tex.2d.v4.f32.f32', [0.6, 0.75], { normalizedCoords: true }))[0]).toBe(12);
    expect(floats(run2d('tex.2d.v4.f32.f32', [-0.5, 0.5, 4.5, 0.5], { address: 'border' })).filter((_, k) => k % 4 === 0)).toEqual([0, 0]);
    expect(floats(run2d('tex.2d.v4.f32.f32', [1.25, 0.25], { normalizedCoords: true, address: 'wrap' }))[0]).toBe(1);
  });

  it('tld4 gathers one component of the bilinear footprint; integer results read raw texels', () => {
    const g = floats(run2d('tld4.r.2d.v4.f32.f32', [1.0, 1.0], {}));
    expect(g).toEqual([10, 11, 1, 0]);
    const m = lower(TEX2D('tex.2d.v4.u32.f32', 'u32'));
    const r = runKernel(m, {
      kernel: 'k', grid: [1], block: [1],
      buffers: { img: { type: 'u8', values: [1, 2, 3, 4, 5, 6, 7, 8] }, xy: { type: 'f32', values: [1.5, 0] }, out: { type: 'u32', count: 4 } },
      textures: { img: { buffer: 'img', format: 'u8', channels: 4, width: 2, height: 1 } },
      params: [{ texture: 'img' }, { buffer: 'xy' }, { buffer: 'out' }],
    });
    expect(r.errors).toEqual([]);
    expect(words(r.buffers.out!.bytes)).toEqual([5, 6, 7, 8]);
  });

  it('surfaces: byte x coordinate, .trap/.clamp/.zero outside the surface', () => {
    const src = (mode: string) => `
.visible .entry k(.param .u64 s, .param .u64 out) {
  .reg .b32 %r<8>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [s];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  suld.b.2d.b32.${mode} {%r3}, [%rd1, {%r2, %r1}];
  add.u32 %r4, %r3, 100;
  mov.u32 %r5, 1;
  sust.b.2d.b32.${mode} [%rd1, {%r2, %r5}], {%r4};
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r3;
  ret;
}`;
    const go = (mode: string) =>
      runKernel(lower(src(mode)), {
        kernel: 'k', grid: [1], block: [3],
        buffers: { img: { type: 'u32', values: [1, 2, 3, 4, 5, 6] }, out: { type: 'u32', count: 3 } },
        surfaces: { img: { buffer: 'img', width: 3, height: 2 } },
        params: [{ surface: 'img' }, { buffer: 'out' }],
      });
    const zero = go('zero');
    expect(zero.errors).toEqual([]);
    expect(words(zero.buffers.out!.bytes)).toEqual([1, 5, 0]); // (2, 2) is outside: reads 0
    expect(words(zero.buffers.img!.bytes)).toEqual([1, 2, 3, 101, 105, 100]);
    const clamp = go('clamp');
    expect(words(clamp.buffers.out!.bytes)).toEqual([1, 5, 6]); // clamped to (2, 1)
    const trap = go('trap');
    expect(trap.errors[0]?.code).toBe('INTERP_OUT_OF_BOUNDS');
  });

  it('generated launches (verify-each) give handle parameters objects that resolve', () => {
    const m = lower(TEX2D('tex.2d.v4.f32.f32'));
    const launch = generateLaunch(m, m.functions[0]!, 3);
    expect(Object.keys(launch.textures ?? {})).toEqual(['param0_t']);
    expect((launch.params as unknown[])[0]).toEqual({ texture: 'param0_t' });
    const r = runKernel(m, launch);
    expect(r.errors).toEqual([]);
  });
});
