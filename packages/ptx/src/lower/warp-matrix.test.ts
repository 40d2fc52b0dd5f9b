import { runKernel } from '@ptxforge/interp';
import { verifyModule } from '@ptxforge/kernel';
import { describe, expect, it } from 'vitest';
import { parsePtx } from '../parser.js';
import { lowerPtx } from './module.js';

/**
 * mma / ldmatrix lowered to SHFL + scalar code, run in the interpreter on one warp and checked against a
 * reference product computed here from the PTX ISA fragment tables (element -> (row, col) per lane).
 */
const SM90 = { target: { arch: 'sm_90', capabilities: { paramBase: 0x210 } } };
const HEAD = '.version 8.0\n.target sm_90\n.address_size 64\n';
const run = (text: string, bytes: number): DataView => {
  const m = lowerPtx(parsePtx(text, 'w.ptx'), SM90);
  expect(verifyModule(m)).toEqual([]);
  const r = runKernel(m, { kernel: 'k', block: [32], buffers: { out: { type: 'u8', count: bytes } }, params: [{ buffer: 'out' }] });
  expect(r.errors.map((e) => e.message)).toEqual([]);
  return new DataView(r.buffers.out!.bytes.buffer, r.buffers.out!.bytes.byteOffset);
};

// Fragment tables of the PTX ISA (g = lane >> 2, t = lane & 3).
const aF16 = (lane: number, i: number): [number, number] => [(lane >> 2) + ((i >> 1) & 1) * 8, (lane & 3) * 2 + (i & 1) + (i >> 2) * 8];
const bF16 = (lane: number, i: number): [number, number] => [(lane & 3) * 2 + (i & 1) + (i >> 1) * 8, lane >> 2];
const aS8 = (lane: number, i: number): [number, number] => [(lane >> 2) + ((i >> 2) & 1) * 8, (lane & 3) * 4 + (i & 3) + (i >> 3) * 16];
const bS8 = (lane: number, i: number): [number, number] => [(lane & 3) * 4 + (i & 3) + (i >> 2) * 16, lane >> 2];
const cD = (lane: number, i: number): [number, number] => [(lane >> 2) + (i >> 1) * 8, (lane & 3) * 2 + (i & 1)];

function reference(k: number, aOf: (r: number, c: number) => number, bOf: (r: number, c: number) => number, cOf: (r: number, c: number) => number): (r: number, c: number) => number {
  return (r, c) => {
    let s = cOf(r, c);
    for (let x = 0; x < k; x++) s += aOf(r, x) * bOf(x, c);
    return s;
  };
}

describe('mma and ldmatrix (issue 16: warp-level matrix instructions)', () => {
  it('mma.m16n8k16.row.col.f32.f16.f16.f32 matches the matrix product', () => {
    const A = (r: number, c: number): number => ((r * 3 + c * 5) % 7) - 3;
    const B = (r: number, c: number): number => ((r * 2 + c) % 5) - 2;
    const C = (r: number, c: number): number => r * 8 + c;
    // Each lane builds its fragments from the tables: element values as f32 immediates, packed to f16x2.
    const lines: string[] = [];
    const f32 = (v: number): string => `0f${new Uint32Array(new Float32Array([v]).buffer)[0]!.toString(16).padStart(8, '0').toUpperCase()}`;
    // Lane-dependent values: select by lane with a chain of setp/selp on %laneid for each element.
    const perLane = (dst: string, f: (lane: number) => number): void => {
      lines.push(`mov.f32 ${dst}, ${f32(f(0))};`);
      for (let l = 1; l < 32; l++) lines.push(`setp.eq.u32 %p1, %r0, ${l};`, `selp.f32 ${dst}, ${f32(f(l))}, ${dst}, %p1;`);
    };
    lines.push('mov.u32 %r0, %laneid;');
    for (let i = 0; i < 8; i++) perLane(`%fa${i}`, (l) => A(...aF16(l, i)));
    for (let i = 0; i < 4; i++) perLane(`%fb${i}`, (l) => B(...bF16(l, i)));
    for (let i = 0; i < 4; i++) perLane(`%fc${i}`, (l) => C(...cD(l, i)));
    for (let i = 0; i < 4; i++) lines.push(`cvt.rn.f16x2.f32 %a${i}, %fa${2 * i + 1}, %fa${2 * i};`);
    for (let i = 0; i < 2; i++) lines.push(`cvt.rn.f16x2.f32 %b${i}, %fb${2 * i + 1}, %fb${2 * i};`);
    lines.push('mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%d0, %d1, %d2, %d3}, {%a0, %a1, %a2, %a3}, {%b0, %b1}, {%fc0, %fc1, %fc2, %fc3};');
    lines.push('mul.wide.u32 %rd2, %r0, 16;', 'add.u64 %rd1, %rd1, %rd2;');
    for (let i = 0; i < 4; i++) lines.push(`st.global.f32 [%rd1+${4 * i}], %d${i};`);
    const text = `${HEAD}.visible .entry k(.param .u64 out)\n{\n.reg .pred %p<2>; .reg .b32 %r<2>; .reg .b64 %rd<3>; .reg .f32 %fa<8>; .reg .f32 %fb<4>; .reg .f32 %fc<4>; .reg .f32 %d<4>; .reg .b32 %a<4>; .reg .b32 %b<2>;\nld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd1, %rd1;\n${lines.join('\n')}\nret;\n}\n`;
    const dv = run(text, 32 * 16);
    const D = reference(16, A, B, C);
    for (let l = 0; l < 32; l++) for (let i = 0; i < 4; i++) expect(dv.getFloat32(16 * l + 4 * i, true), `lane ${l} d${i}`).toBe(D(...cD(l, i)));
  });

  it('mma.m16n8k32.row.col.s32.s8.s8.s32 matches the matrix product', () => {
    const A = (r: number, c: number): number => ((r * 7 + c * 3) % 11) - 5;
    const B = (r: number, c: number): number => ((r + c * 5) % 9) - 4;
    const C = (r: number, c: number): number => r - c;
    const lines = ['mov.u32 %r0, %laneid;'];
    const perLane = (dst: string, f: (lane: number) => number): void => {
      lines.push(`mov.b32 ${dst}, ${f(0) >>> 0};`);
      for (let l = 1; l < 32; l++) lines.push(`setp.eq.u32 %p1, %r0, ${l};`, `selp.b32 ${dst}, ${f(l) >>> 0}, ${dst}, %p1;`);
    };
    const pack = (f: (l: number, i: number) => [number, number], M: (r: number, c: number) => number, reg: number) => (l: number): number =>
      [0, 1, 2, 3].reduce((acc, e) => acc | ((M(...f(l, 4 * reg + e)) & 0xff) << (8 * e)), 0);
    for (let r = 0; r < 4; r++) perLane(`%a${r}`, pack(aS8, A, r));
    for (let r = 0; r < 2; r++) perLane(`%b${r}`, pack(bS8, B, r));
    for (let i = 0; i < 4; i++) perLane(`%c${i}`, (l) => C(...cD(l, i)));
    lines.push('mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%d0, %d1, %d2, %d3}, {%a0, %a1, %a2, %a3}, {%b0, %b1}, {%c0, %c1, %c2, %c3};');
    lines.push('mul.wide.u32 %rd2, %r0, 16;', 'add.u64 %rd1, %rd1, %rd2;');
    for (let i = 0; i < 4; i++) lines.push(`st.global.s32 [%rd1+${4 * i}], %d${i};`);
    const text = `${HEAD}.visible .entry k(.param .u64 out)\n{\n.reg .pred %p<2>; .reg .b32 %r<2>; .reg .b64 %rd<3>; .reg .b32 %a<4>; .reg .b32 %b<2>; .reg .b32 %c<4>; .reg .s32 %d<4>;\nld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd1, %rd1;\n${lines.join('\n')}\nret;\n}\n`;
    const dv = run(text, 32 * 16);
    const D = reference(32, A, B, C);
    for (let l = 0; l < 32; l++) for (let i = 0; i < 4; i++) expect(dv.getInt32(16 * l + 4 * i, true), `lane ${l} d${i}`).toBe(D(...cD(l, i)));
  });

  it('ldmatrix.x2 and .x2.trans give each lane its rows / columns of the 8x8 b16 matrices', () => {
    // Shared memory holds two 8x8 matrices of u16 (value = 1000 * m + 10 * row + col), rows 16 bytes apart;
    // threads 0..15 give the row addresses.
    const text = `${HEAD}.visible .entry k(.param .u64 out)\n{\n.reg .pred %p<2>; .reg .b32 %r<12>; .reg .b64 %rd<4>;\n.shared .align 16 .b16 sm[128];\nld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd1, %rd1;\nmov.u32 %r0, %laneid;\n` +
      // fill: lane l writes 4 values: index 4l..4l+3 (m = idx / 64, row = (idx % 64) / 8, col = idx % 8)
      [0, 1, 2, 3].map((e) => `mad.lo.u32 %r1, %r0, 4, ${e};\nshr.u32 %r2, %r1, 6;\nand.b32 %r3, %r1, 63;\nshr.u32 %r4, %r3, 3;\nand.b32 %r5, %r3, 7;\nmul.lo.u32 %r6, %r2, 1000;\nmad.lo.u32 %r6, %r4, 10, %r6;\nadd.u32 %r6, %r6, %r5;\nmov.u32 %r7, sm;\nmad.lo.u32 %r7, %r1, 2, %r7;\nst.shared.u16 [%r7], %r6;`).join('\n') +
      `\nbar.sync 0;\nand.b32 %r8, %r0, 15;\nmov.u32 %r9, sm;\nmad.lo.u32 %r9, %r8, 16, %r9;\nldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r10, %r11}, [%r9];\nmul.wide.u32 %rd2, %r0, 16;\nadd.u64 %rd3, %rd1, %rd2;\nst.global.v2.u32 [%rd3], {%r10, %r11};\nldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r10, %r11}, [%r9];\nst.global.v2.u32 [%rd3+8], {%r10, %r11};\nret;\n}\n`;
    const dv = run(text, 32 * 16);
    const val = (m: number, row: number, col: number): number => 1000 * m + 10 * row + col;
    for (let l = 0; l < 32; l++) {
      for (let m = 0; m < 2; m++) {
        const plain = dv.getUint32(16 * l + 4 * m, true);
        expect([plain & 0xffff, plain >>> 16], `lane ${l} x${m}`).toEqual([val(m, l >> 2, 2 * (l & 3)), val(m, l >> 2, 2 * (l & 3) + 1)]);
        const t = dv.getUint32(16 * l + 8 + 4 * m, true);
        expect([t & 0xffff, t >>> 16], `lane ${l} x${m}.trans`).toEqual([val(m, 2 * (l & 3), l >> 2), val(m, 2 * (l & 3) + 1, l >> 2)]);
      }
    }
  });
});
