import { parseOri } from '@ptxforge/kernel';
import { BF16, F16, F32, f2f, ffma } from '@ptxforge/semantics';
import { describe, expect, it } from 'vitest';
import { runKernel } from '../launch.js';

/**
 * HMMA.16816.F32 on values whose sums round: the interpreter's fast f32 path (doubles, one fround per step)
 * must give the bits of the exact fused multiply-add chain of @ptxforge/semantics, element by element in the
 * tensor-core fragment layout (g = lane >> 2, t = lane & 3).
 */
function lcg(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x;
  };
}

const asF32 = (bits: bigint): number => {
  const d = new DataView(new ArrayBuffer(4));
  d.setUint32(0, Number(bits));
  return d.getFloat32(0);
};

function hmma(bf16: boolean, seed: number): void {
  const rnd = lcg(seed);
  // random 16-bit values of moderate magnitude (exponent bits limited so sums stay finite), random signs
  const half = (): number => {
    const r = rnd();
    const sign = (r >>> 31) << 15;
    return bf16 ? sign | ((0x3c + ((r >>> 8) & 7)) << 7) | (r & 0x7f) : sign | ((12 + ((r >>> 8) & 7)) << 10) | (r & 0x3ff);
  };
  const words = new Uint32Array(32 * 10);
  for (let l = 0; l < 32; l++) {
    for (let j = 0; j < 6; j++) words[10 * l + j] = (half() | (half() << 16)) >>> 0;
    for (let j = 6; j < 10; j++) words[10 * l + j] = Number(f2f(BigInt(half()), F32, bf16 ? BF16 : F16, 'RN', false, false));
  }
  const loads = Array.from({ length: 10 }, (_, j) => `  %r${j + 1} = LDG.E.32 [%rd2+${4 * j}]`).join('\n');
  const stores = Array.from({ length: 4 }, (_, j) => `  STG.E.32 [%rd5+${4 * j}], %r${11 + j}`).join('\n');
  const m = parseOri(`.target sm_90
.entry @k(
  .param .u64 in c[0x0][0x210],
  .param .u64 out c[0x0][0x218]
)
{
bb0:
  %r0 = S2R SR_LANEID
  %rd0 = IMAD.WIDE.U32 %r0, 40, RZ
  %rd1 = MOV c[0x0][0x210]
  %rd2 = IADD3 %rd1, %rd0, RZ
${loads}
  %r11, %r12, %r13, %r14 = HMMA.16816.F32${bf16 ? '.BF16' : ''} %r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9, %r10
  %rd3 = IMAD.WIDE.U32 %r0, 16, RZ
  %rd4 = MOV c[0x0][0x218]
  %rd5 = IADD3 %rd4, %rd3, RZ
${stores}
  EXIT
}`);
  const r = runKernel(m, {
    kernel: 'k', block: [32],
    buffers: { in: { type: 'u32', values: [...words] }, out: { type: 'u32', count: 128 } },
    params: [{ buffer: 'in' }, { buffer: 'out' }],
  });
  expect(r.errors.map((e) => e.message)).toEqual([]);
  // the matrices from the fragments
  const A: bigint[][] = Array.from({ length: 16 }, () => new Array(16).fill(0n));
  const B: bigint[][] = Array.from({ length: 16 }, () => new Array(8).fill(0n));
  const C: bigint[][] = Array.from({ length: 16 }, () => new Array(8).fill(0n));
  const widen = (h: number): bigint => f2f(BigInt(h), F32, bf16 ? BF16 : F16, 'RN', false, false);
  for (let l = 0; l < 32; l++) {
    const g = l >> 2;
    const t = l & 3;
    for (let j = 0; j < 4; j++) for (let e = 0; e < 2; e++) A[g + 8 * (j & 1)]![2 * t + e + 8 * (j >> 1)] = widen((words[10 * l + j]! >>> (16 * e)) & 0xffff);
    for (let j = 0; j < 2; j++) for (let e = 0; e < 2; e++) B[2 * t + e + 8 * j]![g] = widen((words[10 * l + 4 + j]! >>> (16 * e)) & 0xffff);
    for (let i = 0; i < 4; i++) C[g + 8 * (i >> 1)]![2 * t + (i & 1)] = BigInt(words[10 * l + 6 + i]!);
  }
  const out = r.buffers.out!.bytes;
  const dv = new DataView(out.buffer, out.byteOffset);
  let rounded = 0;
  for (let l = 0; l < 32; l++) {
    for (let i = 0; i < 4; i++) {
      const row = (l >> 2) + 8 * (i >> 1);
      const col = 2 * (l & 3) + (i & 1);
      let acc = C[row]![col]!;
      for (let k = 0; k < 16; k++) {
        const next = ffma(A[row]![k]!, B[k]![col]!, acc, F32);
        if (asF32(next) !== asF32(acc) + asF32(A[row]![k]!) * asF32(B[k]![col]!)) rounded++;
        acc = next;
      }
      expect(dv.getUint32(16 * l + 4 * i, true), `lane ${l} d${i}`).toBe(Number(acc));
    }
  }
  expect(rounded).toBeGreaterThan(0);
}

describe('HMMA interpreter semantics (f32 accumulation)', () => {
  it('f16 inputs: bit-identical to the exact fma chain', () => hmma(false, 1));
  it('bf16 inputs: bit-identical to the exact fma chain', () => hmma(true, 7));
});
