import { describe, expect, it } from 'vitest';
import { createToolchain, Encoder } from '@ptxforge/kernel';
import corePlugin from '@ptxforge/plugin-core';
import { ptxFrontendPlugin } from '@ptxforge/ptx';
import targetSm90Plugin from '@ptxforge/target-sm90';
import { readCubin } from '@ptxforge/cubin';
import { runKernel, type Launch } from '@ptxforge/interp';
import { runCubin } from '@ptxforge/sass-lift';
import { formatInstruction, parseInstruction, type SassInstruction } from '@ptxforge/sass';
import { compileToCubin } from './index.js';

const tc = createToolchain({ plugins: [corePlugin, ptxFrontendPlugin, targetSm90Plugin] });
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/** PTX → Ori → interpreter against PTX → our cubin → lifted → interpreter: the same bytes in every buffer. */
function samePaths(ptx: string, launch: Launch): string[] {
  const r = compileToCubin(tc, ptx, { arch: 'sm_90', file: 'k.ptx', optLevel: 3 });
  expect(r.kernels.every((k) => k.hazards === 0)).toBe(true);
  const ref = runKernel(tc.compile({ text: ptx, file: 'k.ptx' }, { arch: 'sm_90', optLevel: 3 }).module, launch);
  expect(ref.errors).toEqual([]);
  const got = runCubin(r.cubin, launch);
  expect(got.result.errors).toEqual([]);
  for (const name of Object.keys(launch.buffers ?? {})) expect(hex(got.result.buffers[name]!.bytes), name).toBe(hex(ref.buffers[name]!.bytes));
  // the lifted code of our cubin samples and accesses surfaces (what the callers look for)
  expect(readCubin(r.cubin).functions.length).toBe(1);
  return got.lifted.oriText.split('\n').filter((l) => /TEX|SULD|SUST/.test(l));
}

const HEAD = '.version 8.0\n.target sm_90\n.address_size 64\n';
const f32 = (x: number): number => new Uint32Array(new Float32Array([x]).buffer)[0]!;

/** Thread i samples `op` at coordinates from xy[4i..] and writes the 4 results to out[4i..]. */
function texKernel(op: string, coords: string, rtype = 'f32', extra = ''): string {
  const r = rtype === 'f32' ? 'f' : 'r';
  return `${HEAD}
.visible .entry k(.param .u64 t, .param .u64 xy, .param .u64 out) {
  .reg .b32 %r<16>; .reg .f32 %f<16>; .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [t];
  ld.param.u64 %rd2, [xy];
  ld.param.u64 %rd3, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 16;
  add.s64 %rd5, %rd2, %rd4;
  ld.global.f32 %f1, [%rd5];
  ld.global.f32 %f2, [%rd5+4];
  ld.global.f32 %f3, [%rd5+8];
  ld.global.u32 %r2, [%rd5+12];
  cvt.rzi.s32.f32 %r3, %f1;
  ${op} {%${r}4, %${r}5, %${r}6, %${r}7}, [%rd1, ${coords}]${extra};
  add.s64 %rd7, %rd3, %rd4;
  st.global.v4.${rtype === 'f32' ? 'f32' : 'u32'} [%rd7], {%${r}4, %${r}5, %${r}6, %${r}7};
  ret;
}`;
}

function texLaunch(tex: NonNullable<Launch['textures']>[string] extends infer T ? Omit<T & object, 'buffer'> : never, texels: number[], coords: number[][]): Launch {
  const xy: number[] = [];
  for (const c of coords) xy.push(f32(c[0] ?? 0), f32(c[1] ?? 0), f32(c[2] ?? 0), c[3] ?? 0);
  return {
    kernel: 'k', grid: [1], block: [coords.length],
    buffers: { img: { type: 'u32', values: texels }, xy: { type: 'u32', values: xy }, out: { type: 'u32', count: 4 * coords.length } },
    textures: { img: { buffer: 'img', ...tex } as NonNullable<Launch['textures']>[string] },
    params: [{ texture: 'img' }, { buffer: 'xy' }, { buffer: 'out' }],
  };
}

const ramp = (n: number): number[] => Array.from({ length: n }, (_, i) => f32(i * 1.5 - 7));
const COORDS = [[0.25, 0.5, 0.75, 0], [1.7, 2.2, 1.1, 1], [-3, 9, 0.5, 2], [3.5, 1.25, 2.9, 3], [0.5, -0.5, -0.9, 1]];

describe('texture and surface objects: PTX → sm_90 cubin → lifted run', () => {
  it('tex.2d f32 (point and linear), u8x4 texels read as normalized floats', () => {
    const ptx = texKernel('tex.2d.v4.f32.f32', '{%f1, %f2}');
    const lines = samePaths(ptx, texLaunch({ format: 'f32', channels: 1, width: 4, height: 3, filter: 'linear' }, ramp(12), COORDS));
    expect(lines.some((l) => /TEX\.2D\.F32\.F32\.LL/.test(l))).toBe(true);
    samePaths(ptx, texLaunch({ format: 'f32', channels: 2, width: 3, height: 2 }, ramp(12), COORDS));
    samePaths(ptx, texLaunch({ format: 'u8', channels: 4, width: 2, height: 2, readMode: 'normalizedFloat', filter: 'linear', normalizedCoords: true, address: 'wrap' }, [0x01020304, 0xff00ff00, 0x80808080, 0x7f7f7f7f], COORDS));
  });

  it('tex.2d with integer results, tex.level, tex.3d, tex.a2d, tex.cube', () => {
    samePaths(texKernel('tex.2d.v4.u32.f32', '{%f1, %f2}', 'u32'), texLaunch({ format: 'u32', channels: 4, width: 2, height: 2 }, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16], COORDS));
    samePaths(texKernel('tex.level.2d.v4.f32.f32', '{%f1, %f2}', 'f32', ', %f3'), texLaunch({ format: 'f32', width: 4, height: 3, filter: 'linear' }, ramp(12), COORDS));
    samePaths(texKernel('tex.3d.v4.f32.f32', '{%f1, %f2, %f3, %f3}'), texLaunch({ format: 'f32', width: 2, height: 3, depth: 2, filter: 'linear', address: 'border' }, ramp(12), COORDS));
    samePaths(texKernel('tex.a2d.v4.f32.f32', '{%r2, %f1, %f2, %f2}'), texLaunch({ format: 'f32', width: 2, height: 2, layers: 3 }, ramp(12), COORDS));
    samePaths(texKernel('tex.cube.v4.f32.f32', '{%f1, %f2, %f3, %f3}'), texLaunch({ format: 'f32', width: 2, height: 2, cube: true, filter: 'linear' }, ramp(24), COORDS));
  });

  it('a predicated lookup (the handle setup stays unguarded, the results keep their values where the guard is false)', () => {
    const ptx = texKernel('@%p1 tex.2d.v4.f32.f32', '{%f1, %f2}').replace(
      '  cvt.rzi.s32.f32 %r3, %f1;',
      '  cvt.rzi.s32.f32 %r3, %f1;\n  .reg .pred %p<2>;\n  setp.lt.u32 %p1, %r1, 3;\n  mov.f32 %f4, 0f3F800000;\n  mov.f32 %f5, 0f40000000;\n  mov.f32 %f6, 0f40400000;\n  mov.f32 %f7, 0f40800000;',
    );
    samePaths(ptx, texLaunch({ format: 'f32', channels: 4, width: 3, height: 2, filter: 'linear' }, ramp(24), COORDS));
  });

  it('tld4 gathers (TLD4.R/G/B/A)', () => {
    for (const c of ['r', 'g', 'b', 'a']) {
      samePaths(texKernel(`tld4.${c}.2d.v4.f32.f32`, '{%f1, %f2}'), texLaunch({ format: 'f32', channels: 4, width: 3, height: 2, address: 'border' }, ramp(24), COORDS));
    }
  });

  it('tex.1d with s32 coordinates (texel fetch: TLD.LZ)', () => {
    const lines = samePaths(texKernel('tex.1d.v4.f32.s32', '{%r3}'), texLaunch({ format: 'f32', width: 4, filter: 'linear' }, ramp(4), COORDS));
    expect(lines.some((l) => /TEX\.1D\.F32\.S32/.test(l))).toBe(true);
  });

  it('tex.1d with f32 coordinates: a 2D lookup at y = 0 as ptxas writes it (1D textures read x alone, point and linear, every address mode)', () => {
    for (const address of ['clamp', 'border', 'wrap'] as const) {
      const lines = samePaths(texKernel('tex.1d.v4.f32.f32', '{%f1}'), texLaunch({ format: 'f32', width: 5, filter: 'linear', address }, ramp(5), COORDS));
      expect(lines.some((l) => /TEX\.2D\.F32\.F32\.LL/.test(l))).toBe(true);
      samePaths(texKernel('tex.1d.v4.f32.f32', '{%f1}'), texLaunch({ format: 'f32', channels: 2, width: 3, normalizedCoords: true, address }, ramp(6), COORDS));
    }
  });

  it('a per-thread texture handle (bindlessTexture): a loop over the distinct handles of the warp, R2UR of each', () => {
    const ptx = `${HEAD}
.visible .entry k(.param .u64 t0, .param .u64 t1, .param .u64 xy, .param .u64 out) {
  .reg .b32 %r<16>; .reg .f32 %f<16>; .reg .b64 %rd<12>; .reg .pred %p<3>;
  ld.param.u64 %rd1, [t0];
  ld.param.u64 %rd8, [t1];
  ld.param.u64 %rd2, [xy];
  ld.param.u64 %rd3, [out];
  mov.u32 %r1, %tid.x;
  and.b32 %r9, %r1, 1;
  setp.eq.u32 %p1, %r9, 0;
  selp.b64 %rd9, %rd1, %rd8, %p1;
  mul.wide.u32 %rd4, %r1, 16;
  add.s64 %rd5, %rd2, %rd4;
  ld.global.f32 %f1, [%rd5];
  ld.global.f32 %f2, [%rd5+4];
  setp.ne.u32 %p2, %r1, 3;
  mov.f32 %f4, 0f3F800000;
  mov.f32 %f5, 0f3F800000;
  mov.f32 %f6, 0f3F800000;
  mov.f32 %f7, 0f3F800000;
  @%p2 tex.2d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd9, {%f1, %f2}];
  tld4.r.2d.v4.f32.f32 {%f8, %f9, %f10, %f11}, [%rd9, {%f1, %f2}];
  add.f32 %f4, %f4, %f8;
  add.f32 %f5, %f5, %f11;
  add.s64 %rd7, %rd3, %rd4;
  st.global.v4.f32 [%rd7], {%f4, %f5, %f6, %f7};
  ret;
}`;
    const base = texLaunch({ format: 'f32', channels: 1, width: 4, height: 3, filter: 'linear' }, ramp(12), COORDS);
    const launch: Launch = {
      ...base,
      buffers: { ...base.buffers, img2: { type: 'u32', values: ramp(6).map((x) => x ^ 0x80000000) } },
      textures: { ...base.textures, img2: { buffer: 'img2', format: 'f32', width: 3, height: 2, address: 'border' } },
      params: [{ texture: 'img' }, { texture: 'img2' }, { buffer: 'xy' }, { buffer: 'out' }],
    };
    samePaths(ptx, launch);
  });

  it('suld/sust .b: b8 vectors packed in words, b16, b32 vectors, 3d and layered, .trap/.clamp/.zero', () => {
    const ptx = `${HEAD}
.visible .entry k(.param .u64 s, .param .u64 out) {
  .reg .b32 %r<24>; .reg .b64 %rd<8>; .reg .b16 %rs<12>;
  ld.param.u64 %rd1, [s];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, 1;
  suld.b.2d.v4.b8.zero {%rs1, %rs2, %rs3, %rs4}, [%rd1, {%r2, %r1}];
  sust.b.2d.v4.b8.clamp [%rd1, {%r2, %r3}], {%rs4, %rs3, %rs2, %rs1};
  suld.b.2d.b32.clamp {%r4}, [%rd1, {%r2, %r1}];
  shl.b32 %r5, %r1, 3;
  suld.b.a1d.v2.b32.trap {%r6, %r7}, [%rd1, {%r3, %r5}];
  suld.b.3d.v2.b16.zero {%rs5, %rs6}, [%rd1, {%r2, %r3, %r1, %r1}];
  cvt.u32.u16 %r8, %rs5;
  cvt.u32.u16 %r9, %rs6;
  add.u32 %r10, %r4, %r6;
  add.u32 %r10, %r10, %r7;
  add.u32 %r10, %r10, %r8;
  add.u32 %r10, %r10, %r9;
  sust.b.1d.b32.trap [%rd1, {%r2}], {%r10};
  shl.b32 %r11, %r1, 4;
  suld.b.1d.v4.b32.trap {%r12, %r13, %r14, %r15}, [%rd1, {%r11}];
  mul.wide.u32 %rd3, %r1, 16;
  add.s64 %rd4, %rd2, %rd3;
  st.global.v4.u32 [%rd4], {%r12, %r13, %r14, %r15};
  ret;
}`;
    const words = Array.from({ length: 256 }, (_, i) => (i * 0x01010101 + 0x00102030) >>> 0);
    const lines = samePaths(ptx, {
      kernel: 'k', grid: [1], block: [4],
      buffers: { surf: { type: 'u32', values: words }, out: { type: 'u32', count: 24 } },
      surfaces: { surf: { buffer: 'surf', width: 16, height: 4, depth: 2, layers: 2 } },
      params: [{ surface: 'surf' }, { buffer: 'out' }],
    });
    expect(lines.some((l) => /SULD\.3D\.B32\.ZERO/.test(l))).toBe(true);
  });

  it('encodes the forms as ptxas 13 does (words from ptxas -arch=sm_90)', () => {
    const enc = tc.services('sm_90').service(Encoder);
    const cases: Array<[string, string]> = [
      ['TEX.LL R6, R4, R4, R6, UR4, 0x0, 2D ;', '099e0f06_20000406_04047f60'],
      ['TEX.LL RZ, R5, R4, R9, UR4, 0x0, ARRAY_2D, 0x1 ;', '099e01ff_a0000409_04057f60'],
      ['TLD.LZ RZ, R5, R7, UR4, 0x0, 1D, 0x1 ;', '089e01ff_000004ff_07057f66'],
      ['TLD4.G R6, R4, R4, RZ, UR4, 0x0, 2D ;', '089e0f06_200004ff_04047f63'],
      ['SULD.D.BA.2D.STRONG.SM.TRAP R3, [R2], UR4, 0x0 ;', '081ea900_70000400_02037f99'],
      ['SULD.D.BA.1D.U16.STRONG.SM.IGN R11, [R16], UR4, 0x0 ;', '081ea500_00000400_100b7f99'],
      ['SULD.D.BA.64.2D_ARRAY.STRONG.SM R6, [R4], UR4, 0x0 ;', '081eab00_88000400_04067f99'],
      ['SUST.D.BA.128.1D.STRONG.SM.TRAP [R2], R4, UR4, 0x0 ;', '0810ad00_10000404_02007f9d'],
      ['SUST.D.BA.2D.STRONG.SM [R8], R4, UR4, 0x0 ;', '0810a900_68000404_08007f9d'],
    ];
    for (const [text, word] of cases) {
      const ins: SassInstruction = parseInstruction(text);
      const b = enc.encode(ins, 0);
      const w = new DataView(b.buffer, b.byteOffset, b.byteLength);
      const got = [8, 4, 0].map((o) => w.getUint32(o, true).toString(16).padStart(8, '0')).join('_');
      expect(got, formatInstruction(ins)).toBe(word);
    }
  });
});
