import { runKernel } from '@ptxforge/interp';
import { verifyModule } from '@ptxforge/kernel';
import { describe, expect, it } from 'vitest';
import { parsePtx } from '../parser.js';
import { lowerPtx } from './module.js';

/**
 * wmma.load / wmma.mma / wmma.store through the front end and the interpreter (HMMA/IMMA/DMMA warp semantics):
 * matrices in global or shared memory in .row/.col layouts with strides wider than the matrix, D checked against
 * a product computed here; and the per-lane fragment contents after wmma.load against what ptxas 13 loads for
 * the same PTX on sm_90 (read off its cubins: the address each LDG of a fragment register reads).
 */
const SM90 = { target: { arch: 'sm_90', capabilities: { paramBase: 0x210 } } };
const HEAD = '.version 8.0\n.target sm_90\n.address_size 64\n';

type Kind = 'f16' | 'bf16' | 'tf32' | 'u8' | 's8' | 'f64' | 'f32' | 's32';
const SIZE: Record<Kind, number> = { f16: 2, bf16: 2, tf32: 4, u8: 1, s8: 1, f64: 8, f32: 4, s32: 4 };

function f16Bits(v: number): number {
  // small integers only: exact in f16
  if (v === 0) return 0;
  const sign = v < 0 ? 0x8000 : 0;
  const a = Math.abs(v);
  const e = Math.floor(Math.log2(a));
  const mant = Math.round((a / 2 ** e - 1) * 1024);
  return sign | ((e + 15) << 10) | mant;
}

function put(dv: DataView, off: number, kind: Kind, v: number): void {
  switch (kind) {
    case 'f16': dv.setUint16(off, f16Bits(v), true); break;
    case 'bf16': dv.setUint16(off, new Uint32Array(new Float32Array([v]).buffer)[0]! >>> 16, true); break;
    case 'tf32': case 'f32': dv.setFloat32(off, v, true); break;
    case 'u8': case 's8': dv.setUint8(off, v & 0xff); break;
    case 'f64': dv.setFloat64(off, v, true); break;
    case 's32': dv.setInt32(off, v, true); break;
  }
}

/** A rows x cols matrix in memory, .row or .col, with leading dimension ld, as hex. */
function matrix(rows: number, cols: number, row: boolean, ld: number, kind: Kind, f: (r: number, c: number) => number): string {
  const n = (row ? rows : cols) * ld;
  const dv = new DataView(new ArrayBuffer(n * SIZE[kind]));
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) put(dv, (row ? r * ld + c : c * ld + r) * SIZE[kind], kind, f(r, c));
  return Buffer.from(dv.buffer).toString('hex');
}

interface Form {
  shape: string;
  m: number; n: number; k: number;
  a: Kind; b: Kind; acc: Kind;
  na: number; nb: number; nc: number;
  mma: string;
}
const FORMS: Form[] = [
  { shape: 'm16n16k16', m: 16, n: 16, k: 16, a: 'f16', b: 'f16', acc: 'f32', na: 8, nb: 8, nc: 8, mma: 'f32.f32' },
  { shape: 'm16n16k16', m: 16, n: 16, k: 16, a: 'bf16', b: 'bf16', acc: 'f32', na: 4, nb: 4, nc: 8, mma: 'f32.bf16.bf16.f32' },
  { shape: 'm16n16k8', m: 16, n: 16, k: 8, a: 'tf32', b: 'tf32', acc: 'f32', na: 4, nb: 4, nc: 8, mma: 'f32.tf32.tf32.f32' },
  { shape: 'm16n16k16', m: 16, n: 16, k: 16, a: 'u8', b: 'u8', acc: 's32', na: 2, nb: 2, nc: 8, mma: 's32.u8.u8.s32' },
  { shape: 'm16n16k16', m: 16, n: 16, k: 16, a: 's8', b: 'u8', acc: 's32', na: 2, nb: 2, nc: 8, mma: 's32.s8.u8.s32' },
  { shape: 'm8n8k4', m: 8, n: 8, k: 4, a: 'f64', b: 'f64', acc: 'f64', na: 1, nb: 1, nc: 2, mma: 'f64.f64.f64.f64.rn' },
];

const regs = (p: string, n: number): string => `{${Array.from({ length: n }, (_, i) => `${p}${i}`).join(', ')}}`;

function gemm(f: Form, aRow: boolean, bRow: boolean, cRow: boolean, space: 'global' | 'shared' | ''): void {
  const A = (r: number, c: number): number => (f.a === 'u8' ? (r * 3 + c * 5) % 13 : ((r * 3 + c * 5) % 7) - 3);
  const B = (r: number, c: number): number => (f.b === 'u8' ? (r * 2 + c * 7) % 11 : ((r * 2 + c) % 5) - 2);
  const C = (r: number, c: number): number => r * 3 - c;
  const [lda, ldb, ldc] = [(aRow ? f.k : f.m) + 8, (bRow ? f.n : f.k) + 4, (cRow ? f.n : f.m) + 2];
  const acc = f.acc === 'f64' ? '%dc' : f.acc === 'f32' ? '%fc' : '%sc';
  const out = f.acc === 'f64' ? '%do' : f.acc === 'f32' ? '%fo' : '%so';
  const [ra, rb] = f.a === 'f64' ? ['%xa', '%xb'] : ['%ra', '%rb'];
  const lay = (r: boolean): string => (r ? 'row' : 'col');
  const sp = space ? `.${space}` : '';
  const bytes = { a: (aRow ? f.m : f.k) * lda * SIZE[f.a], b: (bRow ? f.k : f.n) * ldb * SIZE[f.b], c: (cRow ? f.m : f.n) * ldc * SIZE[f.acc] };
  const body: string[] = [];
  const addr: Record<string, string> = { a: '%rd1', b: '%rd2', c: '%rd3', d: '%rd4' };
  if (space === 'shared') {
    // copy A, B, C into shared memory (lane l copies bytes l, l + 32, ...), D goes through shared too
    for (const [x, src] of [['a', '%rd1'], ['b', '%rd2'], ['c', '%rd3']] as const) {
      const n = bytes[x];
      body.push(`mov.u32 %q1, sm_${x};`);
      for (let o = 0; o < n; o += 32) {
        body.push(`add.u32 %q2, %q0, ${o};`, `setp.lt.u32 %p1, %q2, ${n};`, `@%p1 cvt.u64.u32 %rd9, %q2;`, `@%p1 add.u64 %rd10, ${src}, %rd9;`, `@%p1 ld.global.u8 %q3, [%rd10];`, `@%p1 add.u32 %q4, %q1, %q2;`, `@%p1 st.shared.u8 [%q4], %q3;`);
      }
      addr[x] = `sm_${x}`;
    }
    addr.d = 'sm_d';
    body.push('bar.sync 0;');
  }
  body.push(
    `wmma.load.a.sync.aligned.${lay(aRow)}.${f.shape}${sp}.${f.a} ${regs(ra, f.na)}, [${addr.a}], ${lda};`,
    `wmma.load.b.sync.aligned.${lay(bRow)}.${f.shape}${sp}.${f.b} ${regs(rb, f.nb)}, [${addr.b}], ${ldb};`,
    `wmma.load.c.sync.aligned.${lay(cRow)}.${f.shape}${sp}.${f.acc} ${regs(acc, f.nc)}, [${addr.c}], ${ldc};`,
    `wmma.mma.sync.aligned.row.col.${f.shape}.${f.mma} ${regs(out, f.nc)}, ${regs(ra, f.na)}, ${regs(rb, f.nb)}, ${regs(acc, f.nc)};`,
    `wmma.store.d.sync.aligned.${lay(cRow)}.${f.shape}${sp}.${f.acc} [${addr.d}], ${regs(out, f.nc)}, ${ldc};`,
  );
  if (space === 'shared') {
    body.push('bar.sync 0;', 'mov.u32 %q1, sm_d;');
    for (let o = 0; o < bytes.c; o += 32) {
      body.push(`add.u32 %q2, %q0, ${o};`, `setp.lt.u32 %p1, %q2, ${bytes.c};`, `@%p1 add.u32 %q4, %q1, %q2;`, `@%p1 ld.shared.u8 %q3, [%q4];`, `@%p1 cvt.u64.u32 %rd9, %q2;`, `@%p1 add.u64 %rd10, %rd4, %rd9;`, `@%p1 st.global.u8 [%rd10], %q3;`);
    }
  }
  const inT = f.a === 'f64' ? '.f64' : '.b32';
  const accT = f.acc === 'f64' ? '.f64' : f.acc === 'f32' ? '.f32' : '.s32';
  const decl = [
    '.reg .pred %p<2>; .reg .b32 %q<5>; .reg .b64 %rd<11>;',
    `.reg ${inT} ${ra}<${f.na}>; .reg ${inT} ${rb}<${f.nb}>; .reg ${accT} ${acc}<${f.nc}>; .reg ${accT} ${out}<${f.nc}>;`,
    space === 'shared' ? `.shared .align 16 .b8 sm_a[${bytes.a}]; .shared .align 16 .b8 sm_b[${bytes.b}]; .shared .align 16 .b8 sm_c[${bytes.c}]; .shared .align 16 .b8 sm_d[${bytes.c}];` : '',
  ];
  const params = ['pa', 'pb', 'pc', 'pd'].map((p) => `.param .u64 ${p}`).join(', ');
  const text = `${HEAD}.visible .entry k(${params})\n{\n${decl.join('\n')}\nmov.u32 %q0, %laneid;\n` +
    ['pa', 'pb', 'pc', 'pd'].map((p, i) => `ld.param.u64 %rd${i + 1}, [${p}];\ncvta.to.global.u64 %rd${i + 1}, %rd${i + 1};`).join('\n') +
    `\n${body.join('\n')}\nret;\n}\n`;
  const m = lowerPtx(parsePtx(text, 'w.ptx'), SM90);
  expect(verifyModule(m)).toEqual([]);
  const r = runKernel(m, {
    kernel: 'k',
    block: [32],
    buffers: {
      a: { type: 'u8', hex: matrix(f.m, f.k, aRow, lda, f.a, A) },
      b: { type: 'u8', hex: matrix(f.k, f.n, bRow, ldb, f.b, B) },
      c: { type: 'u8', hex: matrix(f.m, f.n, cRow, ldc, f.acc, C) },
      d: { type: 'u8', count: bytes.c },
    },
    params: [{ buffer: 'a' }, { buffer: 'b' }, { buffer: 'c' }, { buffer: 'd' }],
  });
  expect(r.errors.map((e) => e.message)).toEqual([]);
  const dv = new DataView(r.buffers.d!.bytes.buffer, r.buffers.d!.bytes.byteOffset);
  for (let i = 0; i < f.m; i++) {
    for (let j = 0; j < f.n; j++) {
      let want = C(i, j);
      for (let x = 0; x < f.k; x++) want += A(i, x) * B(x, j);
      const off = (cRow ? i * ldc + j : j * ldc + i) * SIZE[f.acc];
      const got = f.acc === 'f64' ? dv.getFloat64(off, true) : f.acc === 'f32' ? dv.getFloat32(off, true) : dv.getInt32(off, true);
      expect(got, `D[${i}][${j}]`).toBe(want);
    }
  }
}

describe('wmma (issue 16: warp matrix load / multiply-accumulate / store)', () => {
  for (const f of FORMS) {
    it(`${f.shape} ${f.mma}: row A, col B, row C/D in global memory, strides wider than the matrix`, () => gemm(f, true, false, true, 'global'));
    it(`${f.shape} ${f.mma}: col A, row B, col C/D in shared memory`, () => gemm(f, false, true, false, 'shared'));
  }
  it('generic addresses (no state space)', () => gemm(FORMS[0]!, true, false, true, ''));

  it('fragment registers after wmma.load are what ptxas 13 loads into them on sm_90', () => {
    // ptxas -arch=sm_90 on `wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {r1..r8}, [p], 16` followed by
    // stores of r1..r8: LDG words at byte offsets 4(8g + t) + {0, 0x100, 0x10, 0x110}, r5..r8 copies of r1..r4;
    // B (.col): + {0, 0x10, 0x100, 0x110}; C (.f32 .row): 8-byte words at 8(8g + t) + {0, 0x200, 0x20, 0x220}.
    // Here each element is its own index, so the word a register holds names the elements it holds.
    const text = `${HEAD}.visible .entry k(.param .u64 pa, .param .u64 pc, .param .u64 out)\n{\n.reg .b32 %r<9>; .reg .f32 %f<8>; .reg .b64 %rd<6>; .reg .b32 %l;\n` +
      'ld.param.u64 %rd1, [pa];\nld.param.u64 %rd2, [pc];\nld.param.u64 %rd3, [out];\nmov.u32 %l, %laneid;\nmul.wide.u32 %rd4, %l, 96;\nadd.u64 %rd3, %rd3, %rd4;\n' +
      `wmma.load.a.sync.aligned.row.m16n16k16.global.f16 ${regs('%r', 8).replace('%r0', '%r8')}, [%rd1], 16;\n` +
      [8, 1, 2, 3, 4, 5, 6, 7].map((r, i) => `st.global.b32 [%rd3+${4 * i}], %r${r};`).join('\n') +
      `\nwmma.load.b.sync.aligned.col.m16n16k16.global.f16 ${regs('%r', 8).replace('%r0', '%r8')}, [%rd1], 16;\n` +
      [8, 1, 2, 3, 4, 5, 6, 7].map((r, i) => `st.global.b32 [%rd3+${32 + 4 * i}], %r${r};`).join('\n') +
      `\nwmma.load.c.sync.aligned.row.m16n16k16.global.f32 ${regs('%f', 8)}, [%rd2], 16;\n` +
      [0, 1, 2, 3, 4, 5, 6, 7].map((r, i) => `st.global.f32 [%rd3+${64 + 4 * i}], %f${r};`).join('\n') + '\nret;\n}\n';
    const m = lowerPtx(parsePtx(text, 'frag.ptx'), SM90);
    const idx16 = Buffer.alloc(512);
    for (let i = 0; i < 256; i++) idx16.writeUInt16LE(i, 2 * i);
    const idx32 = Buffer.alloc(1024);
    for (let i = 0; i < 256; i++) idx32.writeFloatLE(i, 4 * i);
    const r = runKernel(m, { kernel: 'k', block: [32], buffers: { a: { type: 'u8', hex: idx16.toString('hex') }, c: { type: 'u8', hex: idx32.toString('hex') }, out: { type: 'u8', count: 32 * 96 } }, params: [{ buffer: 'a' }, { buffer: 'c' }, { buffer: 'out' }] });
    expect(r.errors.map((e) => e.message)).toEqual([]);
    const dv = new DataView(r.buffers.out!.bytes.buffer, r.buffers.out!.bytes.byteOffset);
    for (let l = 0; l < 32; l++) {
      const word = (g: number, t: number, byteOff: number): number => (8 * g + t) * 4 + byteOff;
      const g = l >> 2;
      const t = l & 3;
      const aOff = [0, 0x100, 0x10, 0x110];
      const bOff = [0, 0x10, 0x100, 0x110];
      for (let i = 0; i < 8; i++) {
        const a = dv.getUint32(96 * l + 4 * i, true);
        expect([a & 0xffff, a >>> 16], `lane ${l} a${i}`).toEqual([word(g, t, aOff[i % 4]!) / 2, word(g, t, aOff[i % 4]!) / 2 + 1]);
        const b = dv.getUint32(96 * l + 32 + 4 * i, true);
        expect([b & 0xffff, b >>> 16], `lane ${l} b${i}`).toEqual([word(g, t, bOff[i % 4]!) / 2, word(g, t, bOff[i % 4]!) / 2 + 1]);
      }
      const cOff = [0, 0x200, 0x20, 0x220];
      for (let i = 0; i < 8; i++) expect(dv.getFloat32(96 * l + 64 + 4 * i, true), `lane ${l} c${i}`).toBe(((8 * g + t) * 8 + cOff[i >> 1]!) / 4 + (i & 1));
    }
  });

  it('rejects what ptxas 13 rejects, with located errors', () => {
    const wrap = (body: string, target = 'sm_90'): string =>
      `.version 8.0\n.target ${target}\n.address_size 64\n.visible .entry k(.param .u64 pa)\n{\n.reg .b32 %r<9>; .reg .f32 %f<9>; .reg .f64 %fd<3>; .reg .b64 %rd<3>;\nld.param.u64 %rd1, [pa];\n${body}\nret;\n}\n`;
    const A8 = '{%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}';
    const F8 = '{%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}';
    const cases: Array<[string, RegExp, string?]> = [
      [`wmma.load.a.sync.row.m16n16k16.global.f16 ${A8}, [%rd1], 16;`, /\.aligned modifier required for instruction 'wmma\.load\.a'/],
      [`wmma.load.a.sync.aligned.m16n16k16.global.f16 ${A8}, [%rd1], 16;`, /layout modifier required/],
      [`wmma.load.a.sync.aligned.row.m16n16k16.local.f16 ${A8}, [%rd1], 16;`, /State space incorrect/],
      [`wmma.load.a.sync.aligned.row.m16n16k16.global.f16 ${F8}, [%rd1], 16;`, /Arguments mismatch/],
      [`wmma.load.a.sync.aligned.row.m16n16k16.global.f16 ${A8}, [%rd1], %fd1;`, /Arguments mismatch/],
      [`wmma.mma.sync.aligned.row.m16n16k16.f32.f32 ${F8}, ${A8}, ${A8}, ${F8};`, /'\.blayout' modifier required/],
      [`wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 ${F8}, ${F8}, ${A8}, ${F8};`, /Arguments mismatch for instruction 'wmma\.mma'/],
      [`wmma.load.a.sync.aligned.row.m16n16k16.global.bf16 {%r1, %r2, %r3, %r4}, [%rd1], 16;`, /Feature '\.bf16' requires \.target sm_80/, 'sm_75'],
      [`wmma.load.a.sync.aligned.row.m16n16k8.global.tf32 {%r1, %r2, %r3, %r4}, [%rd1], 16;`, /requires \.target sm_80/, 'sm_75'],
      [`wmma.load.a.sync.aligned.row.m8n8k4.global.f64 {%fd1}, [%rd1], 4;`, /WMMA with fp64 types' requires \.target sm_80/, 'sm_75'],
    ];
    for (const [body, re, target] of cases) {
      let err: unknown;
      try {
        lowerPtx(parsePtx(wrap(body, target), 'bad.ptx'), SM90);
      } catch (e) {
        err = e;
      }
      expect(String((err as Error | undefined)?.message), body).toMatch(re);
      expect((err as { format?: () => string }).format?.(), body).toMatch(/^bad\.ptx:8:\d+: /);
    }
  });

  it('forms without a lowering are unsupported errors naming them', () => {
    const text = `${HEAD}.visible .entry k(.param .u64 pa)\n{\n.reg .b32 %r<8>; .reg .b64 %rd1;\nld.param.u64 %rd1, [pa];\n` +
      'wmma.mma.sync.aligned.row.col.m16n16k16.f16.f16 {%r0, %r1, %r2, %r3}, {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, {%r0, %r1, %r2, %r3};\nret;\n}\n';
    expect(() => lowerPtx(parsePtx(text, 'u.ptx'), SM90)).toThrow(/PTX_UNSUPPORTED|f16 accumulators/);
  });
});
