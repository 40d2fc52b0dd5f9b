// wmma (issue #16, the tensor-core CUDA samples): PTX → our sm_90 cubin (HMMA/IMMA/DMMA) → lifted run beside the
// PTX path, bit for bit; and, where ptxas is installed, ptxas's own cubin for the same PTX lifted and run: its
// words give the same bytes, so the fragment layouts of our loads and of the interpreter's matrix instructions
// are the ones ptxas and the tensor cores use.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const ptxasOk = spawnSync('ptxas', ['--version'], { encoding: 'utf8' }).status === 0;


interface Form {
  name: string;
  shape: string;
  m: number; n: number; k: number;
  a: string; b: string; acc: string;
  na: number; nb: number; nc: number;
  mma: string;
  sass: string;
  /** Element writer into the input buffer. */
  put: (buf: Buffer, off: number, v: number, which: 'a' | 'b' | 'c') => void;
  size: { a: number; c: number };
  read: (buf: Buffer, off: number) => number;
}

const putF16 = (buf: Buffer, off: number, v: number): void => {
  // small integers: exact in f16
  if (v === 0) return void buf.writeUInt16LE(0, off);
  const e = Math.floor(Math.log2(Math.abs(v)));
  buf.writeUInt16LE((v < 0 ? 0x8000 : 0) | ((e + 15) << 10) | Math.round((Math.abs(v) / 2 ** e - 1) * 1024), off);
};
const putBf16 = (buf: Buffer, off: number, v: number): void => {
  const t = Buffer.alloc(4);
  t.writeFloatLE(v);
  buf.writeUInt16LE(t.readUInt16LE(2), off);
};

const FORMS: Form[] = [
  { name: 'f16', shape: 'm16n16k16', m: 16, n: 16, k: 16, a: 'f16', b: 'f16', acc: 'f32', na: 8, nb: 8, nc: 8, mma: 'f32.f32', sass: 'HMMA.16816.F32 ',
    put: (b, o, v, w) => (w === 'c' ? b.writeFloatLE(v, o) : putF16(b, o, v)), size: { a: 2, c: 4 }, read: (b, o) => b.readFloatLE(o) },
  { name: 'bf16', shape: 'm16n16k16', m: 16, n: 16, k: 16, a: 'bf16', b: 'bf16', acc: 'f32', na: 4, nb: 4, nc: 8, mma: 'f32.bf16.bf16.f32', sass: 'HMMA.16816.F32.BF16 ',
    put: (b, o, v, w) => (w === 'c' ? b.writeFloatLE(v, o) : putBf16(b, o, v)), size: { a: 2, c: 4 }, read: (b, o) => b.readFloatLE(o) },
  { name: 'tf32', shape: 'm16n16k8', m: 16, n: 16, k: 8, a: 'tf32', b: 'tf32', acc: 'f32', na: 4, nb: 4, nc: 8, mma: 'f32.tf32.tf32.f32', sass: 'HMMA.1684.F32.TF32 ',
    put: (b, o, v) => b.writeFloatLE(v, o), size: { a: 4, c: 4 }, read: (b, o) => b.readFloatLE(o) },
  { name: 'u8', shape: 'm16n16k16', m: 16, n: 16, k: 16, a: 'u8', b: 'u8', acc: 's32', na: 2, nb: 2, nc: 8, mma: 's32.u8.u8.s32', sass: 'IMMA.16816.U8.U8 ',
    put: (b, o, v, w) => (w === 'c' ? b.writeInt32LE(v, o) : b.writeUInt8(v & 0xff, o)), size: { a: 1, c: 4 }, read: (b, o) => b.readInt32LE(o) },
  { name: 's8', shape: 'm16n16k16', m: 16, n: 16, k: 16, a: 's8', b: 's8', acc: 's32', na: 2, nb: 2, nc: 8, mma: 's32.s8.s8.s32', sass: 'IMMA.16816.S8.S8 ',
    put: (b, o, v, w) => (w === 'c' ? b.writeInt32LE(v, o) : b.writeUInt8(v & 0xff, o)), size: { a: 1, c: 4 }, read: (b, o) => b.readInt32LE(o) },
  { name: 'f64', shape: 'm8n8k4', m: 8, n: 8, k: 4, a: 'f64', b: 'f64', acc: 'f64', na: 1, nb: 1, nc: 2, mma: 'f64.f64.f64.f64.rn', sass: 'DMMA.884 ',
    put: (b, o, v) => b.writeDoubleLE(v, o), size: { a: 8, c: 8 }, read: (b, o) => b.readDoubleLE(o) },
];

const regs = (p: string, n: number): string => `{${Array.from({ length: n }, (_, i) => `${p}${i}`).join(', ')}}`;

/** A kernel computing D = A * B + C (A .row, B .col, C/D .row) from `input` into `output`, twice in a loop. */
function kernel(f: Form): { ptx: string; input: Buffer; outBytes: number; want: (i: number, j: number) => number } {
  const signed = f.a !== 'u8';
  const A = (r: number, c: number): number => (signed ? ((r * 3 + c * 5) % 7) - 3 : (r * 3 + c * 5) % 13);
  const B = (r: number, c: number): number => (signed ? ((r * 2 + c) % 5) - 2 : (r * 2 + c * 7) % 11);
  const C = (r: number, c: number): number => r * 3 - c;
  const offB = f.m * f.k * f.size.a;
  const offC = offB + f.k * f.n * f.size.a;
  const input = Buffer.alloc(offC + f.m * f.n * f.size.c);
  for (let r = 0; r < f.m; r++) for (let c = 0; c < f.k; c++) f.put(input, (r * f.k + c) * f.size.a, A(r, c), 'a');
  for (let r = 0; r < f.k; r++) for (let c = 0; c < f.n; c++) f.put(input, offB + (c * f.k + r) * f.size.a, B(r, c), 'b');
  for (let r = 0; r < f.m; r++) for (let c = 0; c < f.n; c++) f.put(input, offC + (r * f.n + c) * f.size.c, C(r, c), 'c');
  const isF64 = f.a === 'f64';
  const inT = isF64 ? '.f64' : '.b32';
  const accT = f.acc === 'f64' ? '.f64' : f.acc === 'f32' ? '.f32' : '.s32';
  // the product is accumulated twice (a loop around wmma.mma, C feeding back): D = 2AB + C
  const ptx = `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 input, .param .u64 output) {
  .reg .u64 %rd<8>;
  .reg .b32 %q<3>;
  .reg .pred %p<2>;
  .reg ${inT} %ra<${f.na}>;
  .reg ${inT} %rb<${f.nb}>;
  .reg ${accT} %c<${f.nc}>;
  ld.param.u64 %rd1, [input];
  ld.param.u64 %rd2, [output];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  add.u64 %rd3, %rd1, ${offB};
  add.u64 %rd4, %rd1, ${offC};
  wmma.load.a.sync.aligned.row.${f.shape}.global.${f.a} ${regs('%ra', f.na)}, [%rd1], ${f.k};
  wmma.load.b.sync.aligned.col.${f.shape}.global.${f.b} ${regs('%rb', f.nb)}, [%rd3], ${f.k};
  wmma.load.c.sync.aligned.row.${f.shape}.global.${f.acc} ${regs('%c', f.nc)}, [%rd4], ${f.n};
  mov.u32 %q1, 0;
LOOP:
  wmma.mma.sync.aligned.row.col.${f.shape}.${f.mma} ${regs('%c', f.nc)}, ${regs('%ra', f.na)}, ${regs('%rb', f.nb)}, ${regs('%c', f.nc)};
  add.u32 %q1, %q1, 1;
  setp.lt.u32 %p1, %q1, 2;
  @%p1 bra LOOP;
  wmma.store.d.sync.aligned.row.${f.shape}.global.${f.acc} [%rd2], ${regs('%c', f.nc)}, ${f.n};
  ret;
}
`;
  const want = (i: number, j: number): number => {
    let s = 0;
    for (let x = 0; x < f.k; x++) s += A(i, x) * B(x, j);
    return C(i, j) + 2 * s;
  };
  return { ptx, input, outBytes: f.m * f.n * f.size.c, want };
}

function ptxasCubin(ptx: string): Uint8Array | undefined {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wmma-'));
  try {
    writeFileSync(path.join(dir, 'k.ptx'), ptx);
    const r = spawnSync('ptxas', ['-arch=sm_90', '-O3', path.join(dir, 'k.ptx'), '-o', path.join(dir, 'k.cubin')], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    return readFileSync(path.join(dir, 'k.cubin'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('wmma → HMMA / IMMA / DMMA on sm_90, lifted and run beside the PTX path', () => {
  for (const f of FORMS) {
    it(`${f.shape} ${f.mma}: ${f.sass.trim()}, same bytes as the PTX path and as the product${ptxasOk ? ' and as ptxas\'s cubin' : ''}`, () => {
      const { ptx, input, outBytes, want } = kernel(f);
      const launch: Launch = {
        kernel: 'k', grid: [1, 1, 1], block: [32, 1, 1],
        buffers: { input: { hex: input.toString('hex') }, output: { hex: '00'.repeat(outBytes) } },
        params: [{ buffer: 'input' }, { buffer: 'output' }], outputs: ['output'],
      };
      const r = compileToCubin(tc, ptx, { arch: 'sm_90', file: 'k.ptx', optLevel: 3 });
      expect(r.kernels.every((k) => k.hazards === 0)).toBe(true);
      const { texts, hazards } = decodeCubin(tc, r.cubin);
      expect(hazards).toBe(0);
      expect(texts.filter((t) => t.includes(f.sass)).length, texts.join('\n')).toBeGreaterThan(0);
      const ref = runKernel(tc.compile({ text: ptx, file: 'k.ptx' }, { arch: 'sm_90', optLevel: 3 }).module, launch);
      expect(ref.errors ?? []).toEqual([]);
      const got = runCubin(r.cubin, launch);
      expect(got.result.errors).toEqual([]);
      expect(hex(got.result.buffers.output!.bytes)).toBe(hex(ref.buffers.output!.bytes));
      const out = Buffer.from(got.result.buffers.output!.bytes);
      for (let i = 0; i < f.m; i++) for (let j = 0; j < f.n; j++) expect(f.read(out, (i * f.n + j) * f.size.c), `D[${i}][${j}]`).toBe(want(i, j));
      if (!ptxasOk) return;
      const theirs = ptxasCubin(ptx)!;
      expect(decodeCubin(tc, theirs).texts.some((t) => t.includes(f.sass))).toBe(true);
      const lifted = runCubin(theirs, launch);
      expect(lifted.result.errors).toEqual([]);
      expect(hex(lifted.result.buffers.output!.bytes)).toBe(hex(ref.buffers.output!.bytes));
    });
  }
});

describe('cvt.rna.tf32.f32 (the tf32 wmma operands)', () => {
  it('rounds halves away from zero in 10 mantissa bits, keeps infinities and NaNs: our cubin, the PTX path and ptxas agree', () => {
    const ptx = `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 input, .param .u64 output) {
  .reg .u64 %rd<6>;
  .reg .b32 %r<4>;
  .reg .f32 %f<2>;
  ld.param.u64 %rd1, [input];
  ld.param.u64 %rd2, [output];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.u64 %rd4, %rd1, %rd3;
  add.u64 %rd5, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  cvt.rna.tf32.f32 %r2, %f1;
  st.global.b32 [%rd5], %r2;
  ret;
}
`;
    const bits = [0x3f800000, 0x3f801000, 0x3f800fff, 0x3f802000, 0xbf801000, 0x7f7fffff, 0x7f800000, 0xff800000, 0x7fc00001, 0x7f801234, 0x00001000, 0x00000fff, 0x80001000, 0x3fffffff, 0, 0x80000000];
    const input = Buffer.alloc(4 * bits.length);
    bits.forEach((b, i) => input.writeUInt32LE(b >>> 0, 4 * i));
    const launch: Launch = {
      kernel: 'k', grid: [1, 1, 1], block: [bits.length, 1, 1],
      buffers: { input: { hex: input.toString('hex') }, output: { hex: '00'.repeat(input.length) } },
      params: [{ buffer: 'input' }, { buffer: 'output' }], outputs: ['output'],
    };
    const ref = runKernel(tc.compile({ text: ptx, file: 'k.ptx' }, { arch: 'sm_90', optLevel: 3 }).module, launch);
    expect(ref.errors ?? []).toEqual([]);
    const out = Buffer.from(ref.buffers.output!.bytes);
    const want = bits.map((b) => ((((b & 0x7f800000) >>> 0) !== 0x7f800000 ? b + 0x1000 : b) & 0xffffe000) >>> 0);
    expect(bits.map((_, i) => out.readUInt32LE(4 * i))).toEqual(want);
    const r = compileToCubin(tc, ptx, { arch: 'sm_90', file: 'k.ptx', optLevel: 3 });
    expect(decodeCubin(tc, r.cubin).hazards).toBe(0);
    expect(hex(runCubin(r.cubin, launch).result.buffers.output!.bytes)).toBe(hex(ref.buffers.output!.bytes));
    if (ptxasOk) expect(hex(runCubin(ptxasCubin(ptx)!, launch).result.buffers.output!.bytes)).toBe(hex(ref.buffers.output!.bytes));
  });
});

describe('mma.sync.m16n8k16 (f16, bf16) → one HMMA.16816', () => {
  for (const t of ['f16', 'bf16']) {
    it(`${t}: our cubin, the PTX path${ptxasOk ? ' and ptxas\'s cubin' : ''} give the same bytes`, () => {
      // each lane loads its own fragment words (10 per lane, 48 bytes apart), so the layout is the tensor cores' by construction
      const ptx = `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 input, .param .u64 output) {
  .reg .u64 %rd<6>;
  .reg .b32 %r<12>;
  .reg .f32 %f<9>;
  ld.param.u64 %rd1, [input];
  ld.param.u64 %rd2, [output];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r11, %tid.x;
  mul.wide.u32 %rd3, %r11, 48;
  add.u64 %rd4, %rd1, %rd3;
  ld.global.v4.b32 {%r1, %r2, %r3, %r4}, [%rd4];
  ld.global.v2.b32 {%r5, %r6}, [%rd4+16];
  ld.global.f32 %f1, [%rd4+24];
  ld.global.f32 %f2, [%rd4+28];
  ld.global.f32 %f3, [%rd4+32];
  ld.global.f32 %f4, [%rd4+36];
  mma.sync.aligned.m16n8k16.row.col.f32.${t}.${t}.f32 {%f5, %f6, %f7, %f8}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f1, %f2, %f3, %f4};
  mul.wide.u32 %rd3, %r11, 16;
  add.u64 %rd5, %rd2, %rd3;
  st.global.v4.f32 [%rd5], {%f5, %f6, %f7, %f8};
  ret;
}
`;
      const input = Buffer.alloc(32 * 48);
      let x = 12345;
      const next = (): number => (x = (Math.imul(x, 1103515245) + 12345) >>> 0);
      // 16-bit values with exponents near 1 (f16: 0x3800..0x3fff, bf16: 0x3f00..0x3fff), random signs; C small f32s
      const half = (): number => (next() & 0x8000) | (t === 'f16' ? 0x3800 | (next() & 0x7ff) : 0x3f00 | (next() & 0xff));
      for (let l = 0; l < 32; l++) {
        for (let j = 0; j < 6; j++) input.writeUInt32LE((half() | (half() << 16)) >>> 0, 48 * l + 4 * j);
        for (let j = 0; j < 4; j++) input.writeFloatLE(((next() % 2001) - 1000) / 64, 48 * l + 24 + 4 * j);
      }
      const launch: Launch = {
        kernel: 'k', grid: [1, 1, 1], block: [32, 1, 1],
        buffers: { input: { hex: input.toString('hex') }, output: { hex: '00'.repeat(512) } },
        params: [{ buffer: 'input' }, { buffer: 'output' }], outputs: ['output'],
      };
      const r = compileToCubin(tc, ptx, { arch: 'sm_90', file: 'k.ptx', optLevel: 3 });
      const { texts, hazards } = decodeCubin(tc, r.cubin);
      expect(hazards).toBe(0);
      expect(texts.filter((s) => s.includes('HMMA.16816.F32')), texts.join('\n')).toHaveLength(1);
      const ref = runKernel(tc.compile({ text: ptx, file: 'k.ptx' }, { arch: 'sm_90', optLevel: 3 }).module, launch);
      expect(ref.errors ?? []).toEqual([]);
      const ours = runCubin(r.cubin, launch);
      expect(ours.result.errors).toEqual([]);
      expect(hex(ours.result.buffers.output!.bytes)).toBe(hex(ref.buffers.output!.bytes));
      if (!ptxasOk) return;
      const theirs = runCubin(ptxasCubin(ptx)!, launch);
      expect(theirs.result.errors).toEqual([]);
      expect(hex(theirs.result.buffers.output!.bytes)).toBe(hex(ref.buffers.output!.bytes));
    });
  }
});
