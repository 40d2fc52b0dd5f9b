import { readFileSync } from 'node:fs';
import path from 'node:path';
import { findKernel, generateLaunch, runKernel } from '@ptxforge/interp';
import { verifyModule } from '@ptxforge/kernel';
import { describe, expect, it } from 'vitest';
import { lowerPtx } from './lower/module.js';
import { parsePtx } from './parser.js';

// The nvcc-generated fixtures run through the interpreter against results computed here from the CUDA source
// (test/fixtures/kernels/*.cu), so the front end's semantics are checked without ../shared.
const dir = path.join(import.meta.dirname, '../test/fixtures/kernels');
const lower = (f: string) => {
  const m = lowerPtx(parsePtx(readFileSync(path.join(dir, f), 'utf8'), f), { target: { arch: 'sm_90', capabilities: { paramBase: 0x210 } } });
  expect(verifyModule(m)).toEqual([]);
  return m;
};
const s64 = (v: bigint): bigint => BigInt.asIntN(64, v);
const u64 = (v: bigint): bigint => BigInt.asUintN(64, v);
const i32 = (v: bigint | number): number => Number(BigInt.asIntN(32, BigInt(v)));

describe('executing lowered PTX', () => {
  it('generated launches (verify-each) give dynamic shared memory to kernels with .extern .shared arrays', () => {
    const src = `.version 8.0
.target sm_90
.address_size 64
.extern .shared .align 16 .b8 smem[];
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<6>;
  .reg .u64 %rd<4>;
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, smem;
  add.u32 %r4, %r3, %r2;
  st.shared.u32 [%r4], %r1;
  bar.sync 0;
  xor.b32 %r5, %r2, 4;
  add.u32 %r5, %r3, %r5;
  ld.shared.u32 %r5, [%r5];
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r5;
  ret;
}`;
    const m = lowerPtx(parsePtx(src, 'dyn.ptx'), { target: { arch: 'sm_90', capabilities: { paramBase: 0x210 } } });
    const launch = generateLaunch(m, findKernel(m, undefined), 1);
    expect(launch.sharedBytes).toBeGreaterThan(0);
    const r = runKernel(m, launch);
    expect(r.errors.map((e) => e.message)).toEqual([]);
  });

  it('int64.cu: 64-bit multiply, divide, remainder, shifts, popc/clz and a switch', () => {
    const n = 100;
    const a = Array.from({ length: n }, (_, i) => s64(BigInt(i) * 0x123456789abn - 0x7fffffffn * BigInt(i % 3)));
    const b = Array.from({ length: n }, (_, i) => u64(BigInt(i) * 0xfedcba9876543n + 0x8000000000000000n * BigInt(i & 1)));
    const r = runKernel(lower('int64.ptx'), {
      kernel: '_Z3mixPxPyPij', grid: [2], block: [64],
      buffers: { a: { type: 's64', values: a.map(String) }, b: { type: 'u64', values: b.map(String) }, c: { type: 's32', count: n } },
      params: [{ buffer: 'a' }, { buffer: 'b' }, { buffer: 'c' }, { type: 'u32', value: n }],
    });
    expect(r.errors.map((e) => e.message)).toEqual([]);
    const dv = (name: string) => new DataView(r.buffers[name]!.bytes.buffer, r.buffers[name]!.bytes.byteOffset);
    for (let i = 0; i < n; i++) {
      let x = a[i]!;
      let y = b[i]!;
      x = s64(x * 3n - s64(y >> 7n) + x / 5n);
      y = u64((y << 3n) ^ u64(x));
      const lo = i32(x);
      const clz = lo === 0 ? 32 : Math.clz32(lo);
      let c = i32(BigInt(y.toString(2).split('1').length - 1) + BigInt(clz) + BigInt.asIntN(32, x % 7n));
      switch (c & 3) {
        case 0: c += 10; break;
        case 1: c -= 3; break;
        case 2: c = i32(c * 2); break;
        default: c = 0;
      }
      expect(dv('a').getBigInt64(8 * i, true), `a[${i}]`).toBe(x);
      expect(dv('b').getBigUint64(8 * i, true), `b[${i}]`).toBe(y);
      expect(dv('c').getInt32(4 * i, true), `c[${i}]`).toBe(c);
    }
  });

  it('reduce.cu: device call, warp shuffles, shared memory, barrier, nounroll loop and atomicAdd', () => {
    const n = 300;
    const input = Array.from({ length: n }, (_, i) => i % 7);
    const r = runKernel(lower('reduce.ptx'), {
      kernel: '_Z6reducePKfPfif', grid: [2], block: [256],
      buffers: { in: { type: 'f32', values: input }, out: { type: 'f32', count: 1 } },
      params: [{ buffer: 'in' }, { buffer: 'out' }, { type: 's32', value: n }, { type: 'f32', value: 2 }],
    });
    expect(r.errors.map((e) => e.message)).toEqual([]);
    const got = new DataView(r.buffers.out!.bytes.buffer, r.buffers.out!.bytes.byteOffset).getFloat32(0, true);
    expect(got).toBe(2 * input.reduce((s, v) => s + v, 0));
  });

  it('hand_calls.ptx: .reg and .param calls, a predicate result, nested scopes and an unwritten register', () => {
    const r = runKernel(lower('hand_calls.ptx'), { kernel: 'calls', buffers: { out: { type: 'u32', count: 4 } }, params: [{ buffer: 'out' }] });
    expect(r.errors.map((e) => e.message)).toEqual([]);
    const dv = new DataView(r.buffers.out!.bytes.buffer, r.buffers.out!.bytes.byteOffset);
    expect([dv.getUint32(0, true), dv.getUint32(4, true), Number(dv.getBigUint64(8, true))]).toEqual([110, 1, 220]);
  });
});

describe('min/max .NaN and .relu (issue 16)', () => {
  const text = `.version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n.reg .f32 %f<8>; .reg .b32 %r<8>; .reg .b64 %rd<2>;\nld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd1, %rd1;\nld.global.f32 %f1, [%rd1];\nld.global.f32 %f2, [%rd1+4];\nmin.NaN.f32 %f3, %f1, %f2;\nmax.NaN.f32 %f4, %f1, %f1;\nmin.f32 %f5, %f1, %f2;\nld.global.u32 %r1, [%rd1+8];\nld.global.u32 %r2, [%rd1+12];\nmax.relu.s32 %r3, %r1, %r2;\nmin.relu.s32 %r4, %r1, %r2;\nst.global.f32 [%rd1+16], %f3;\nst.global.f32 [%rd1+20], %f4;\nst.global.f32 [%rd1+24], %f5;\nst.global.u32 [%rd1+28], %r3;\nst.global.u32 [%rd1+32], %r4;\nret;\n}\n`;
  it('a NaN input gives the canonical NaN; negative results clamp to 0', () => {
    const m = lowerPtx(parsePtx(text, 'f.ptx'), { target: { arch: 'sm_90', capabilities: { paramBase: 0x210 } } });
    expect(verifyModule(m)).toEqual([]);
    const bytes = new Uint8Array(36);
    const dv0 = new DataView(bytes.buffer);
    dv0.setFloat32(0, 2.5, true);
    dv0.setUint32(4, 0x7fc00001, true);
    dv0.setInt32(8, -7, true);
    dv0.setInt32(12, -3, true);
    const r = runKernel(m, { kernel: 'k', buffers: { b: { type: 'u8', values: [...bytes] } }, params: [{ buffer: 'b' }] });
    expect(r.errors.map((e) => e.message)).toEqual([]);
    const dv = new DataView(r.buffers.b!.bytes.buffer, r.buffers.b!.bytes.byteOffset);
    expect(dv.getUint32(16, true)).toBe(0x7fffffff);
    expect(dv.getFloat32(20, true)).toBe(2.5);
    expect(dv.getFloat32(24, true)).toBe(2.5);
    expect(dv.getInt32(28, true)).toBe(0);
    expect(dv.getInt32(32, true)).toBe(0);
  });
});
