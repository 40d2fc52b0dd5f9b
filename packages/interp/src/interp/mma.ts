/**
 * Warp matrix multiply-accumulate (HMMA, IMMA, DMMA) as a warp-wide closure: D = A * B + C over the fragments
 * that the 32 lanes hold, in the register layout the tensor cores use (the PTX ISA's fragment tables for
 * `mma.m16n8k16`, `mma.m16n8k4` (tf32), `mma.m16n8k16` (s8/u8) and `mma.m8n8k4` (f64), which are what ptxas's
 * HMMA/IMMA/DMMA read and write; checked against ptxas 13 output in packages/ptx wmma.test.ts). With
 * g = laneid >> 2 and t = laneid & 3:
 *
 *   HMMA.16816.F32[.BF16]  D0..3, A0..3, B0..1, C0..3   A reg j, half e: row g + 8(j&1), col 2t + e + 8(j>>1)
 *                                                      B reg j, half e: k 2t + e + 8j, col g
 *   HMMA.1684.F32.TF32     D0..3, A0..1, B0, C0..3      A reg j: row g + 8j, col t;  B: k t, col g
 *   IMMA.16816.{U8|S8}.{U8|S8}  D0..3, A0..1, B0, C0..3 A reg j, byte e: row g + 8j, col 4t + e;  B byte e: k 4t + e, col g
 *   C and D (16 x 8):      reg i: row g + 8(i>>1), col 2t + (i&1)
 *   DMMA.884               D0..1, A, B, C0..1 (f64 registers)  A: row g, col t;  B: k t, col g;  C/D reg i: row g, col 2t + i
 *
 * Accumulation: products of f16, bf16 and tf32 inputs are exact in f32, so each step is one f32 fused
 * multiply-add (round to nearest even), k in increasing order starting from C; tf32 inputs are f32 registers
 * whose low 13 mantissa bits the tensor cores ignore. The hardware's f32 accumulation order and its internal
 * rounding are not specified by the ISA; for the integer-valued data of the tests every order gives the same
 * sums. Integer products accumulate exactly modulo 2^32 (.SAT is not modelled: refused). DMMA is an f64 fused
 * multiply-add chain in k order (PTX `.rn`).
 *
 * The instructions are `.aligned` warp-collective: a partially active warp is undefined behaviour in PTX and
 * is reported as an `unsupported` trap instead of a guessed result.
 */
import type { Instr, OriFunction } from '@ptxforge/kernel';
import { BF16, F16, F32, F64, f2f, ffma, s as sx, u } from '@ptxforge/semantics';
import { Trap } from './errors.js';
import { markWritten, readSrc, writeLane, type Dst, type Exec, type Program, type Src } from './program.js';

interface Shape {
  readonly m: number;
  readonly n: number;
  readonly k: number;
  /** Registers of A, B, C (= D). */
  readonly na: number;
  readonly nb: number;
  readonly nc: number;
  /** Row and column of element e of A register j for lane (g, t). */
  readonly a: (g: number, t: number, j: number, e: number) => [number, number];
  /** k and column of element e of B register j. */
  readonly b: (g: number, t: number, j: number, e: number) => [number, number];
  readonly c: (g: number, t: number, i: number) => [number, number];
  /** Elements per A/B register. */
  readonly per: number;
}

const C16x8 = (g: number, t: number, i: number): [number, number] => [g + 8 * (i >> 1), 2 * t + (i & 1)];

const SHAPES: Record<string, Shape> = {
  HMMA16816: { m: 16, n: 8, k: 16, na: 4, nb: 2, nc: 4, per: 2, a: (g, t, j, e) => [g + 8 * (j & 1), 2 * t + e + 8 * (j >> 1)], b: (g, t, j, e) => [2 * t + e + 8 * j, g], c: C16x8 },
  HMMA1684: { m: 16, n: 8, k: 4, na: 2, nb: 1, nc: 4, per: 1, a: (g, t, j) => [g + 8 * j, t], b: (g, t) => [t, g], c: C16x8 },
  IMMA16816: { m: 16, n: 8, k: 16, na: 2, nb: 1, nc: 4, per: 4, a: (g, t, j, e) => [g + 8 * j, 4 * t + e], b: (g, t, _j, e) => [4 * t + e, g], c: C16x8 },
  DMMA884: { m: 8, n: 8, k: 4, na: 1, nb: 1, nc: 2, per: 1, a: (g, t) => [g, t], b: (g, t) => [t, g], c: (g, t, i) => [g, 2 * t + i] },
};

/** The shape key and the input element kind of an MMA instruction, or a reason it has no meaning here. */
export function mmaForm(opcode: string, mods: readonly string[]): { shape: Shape; input: 'f16' | 'bf16' | 'tf32' | 'u8' | 's8' | 'f64'; bSigned: boolean } | string {
  const has = (x: string): boolean => mods.includes(x);
  if (opcode === 'HMMA') {
    if (!has('F32')) return 'HMMA with f16 accumulators';
    if (has('16816')) return { shape: SHAPES.HMMA16816!, input: has('BF16') ? 'bf16' : 'f16', bSigned: false };
    if (has('1684') && has('TF32')) return { shape: SHAPES.HMMA1684!, input: 'tf32', bSigned: false };
    return `HMMA shape ${mods.join('.')}`;
  }
  if (opcode === 'IMMA') {
    if (has('SAT')) return 'IMMA.SAT';
    if (!has('16816')) return `IMMA shape ${mods.join('.')}`;
    const types = mods.filter((x) => x === 'U8' || x === 'S8');
    if (types.length !== 2) return `IMMA types ${mods.join('.')}`;
    return { shape: SHAPES.IMMA16816!, input: types[0] === 'S8' ? 's8' : 'u8', bSigned: types[1] === 'S8' };
  }
  if (opcode === 'DMMA') {
    if (!has('884') || mods.some((x) => x === 'RZ' || x === 'RM' || x === 'RP')) return `DMMA form ${mods.join('.')}`;
    return { shape: SHAPES.DMMA884!, input: 'f64', bSigned: false };
  }
  return `${opcode} is not a matrix instruction`;
}

const TF32_MASK = ~0x1fffn & 0xffffffffn;

export function buildMma(prog: Program, fn: OriFunction, i: Instr): Exec {
  const form = mmaForm(i.opcode, i.mods);
  const text = `${i.opcode}${i.mods.map((x) => `.${x}`).join('')}`;
  if (typeof form === 'string') {
    return () => {
      throw new Trap('unsupported', `${form} has no interpreter semantics (${text})`, 0);
    };
  }
  const { shape, input, bSigned } = form;
  const need = shape.na + shape.nb + shape.nc;
  if (i.uses.length !== need || i.defs.length !== shape.nc) {
    return () => {
      throw new Trap('unsupported', `${text}: expected ${shape.nc} destinations and ${need} sources, found ${i.defs.length} and ${i.uses.length}`, 0);
    };
  }
  const srcs: Src[] = i.uses.map((o) => prog.src(fn, o));
  const dsts: Dst[] = i.defs.map((o) => prog.dst(o));
  const isInt = input === 'u8' || input === 's8';
  const isF64 = input === 'f64';
  // Elements as doubles (f16, bf16, tf32 and 8-bit integers are exact there) and as bits (the slow exact path).
  const A = new Float64Array(shape.m * shape.k);
  const B = new Float64Array(shape.k * shape.n);
  const Abits: bigint[] = new Array(shape.m * shape.k).fill(0n);
  const Bbits: bigint[] = new Array(shape.k * shape.n).fill(0n);
  const C: bigint[] = new Array(shape.m * shape.n).fill(0n);
  const D: bigint[] = new Array(shape.m * shape.n).fill(0n);
  // element e of an input register: its bits as the multiplier sees them (f32 bits for the 16-bit float types)
  const elementBits = (v: bigint, e: number): bigint => {
    switch (input) {
      case 'f16':
        return f2f((v >> BigInt(16 * e)) & 0xffffn, F32, F16, 'RN', false, false);
      case 'bf16':
        return ((v >> BigInt(16 * e)) & 0xffffn) << 16n;
      case 'tf32':
        return v & TF32_MASK;
      default:
        return v;
    }
  };
  const elementInt = (v: bigint, e: number, signed: boolean): number => {
    const byte = Number((v >> BigInt(8 * e)) & 0xffn);
    return signed && byte >= 128 ? byte - 256 : byte;
  };
  const f32 = new DataView(new ArrayBuffer(4));
  const toF32 = (bits: bigint): number => {
    f32.setUint32(0, Number(bits));
    return f32.getFloat32(0);
  };
  const fromF32 = (x: number): bigint => {
    if (Number.isNaN(x)) return F32.canonicalNaN;
    f32.setFloat32(0, x);
    return BigInt(f32.getUint32(0));
  };
  /**
   * One f32 result: C + sum of the k products in increasing k, each step a fused multiply-add rounded to f32.
   * The products of f16/bf16/tf32 values are exact doubles and, inside f32's range, f32 values; the double sum
   * of two f32 values rounded to f32 is the correctly rounded f32 sum (53 >= 2 * 24 + 2 bits), so
   * fround(acc + a * b) is the f32 fma. Products outside f32's range (bf16 extremes) take the exact path.
   */
  const dotF32 = (r: number, c: number): bigint => {
    let acc = toF32(C[r * shape.n + c]!);
    for (let kk = 0; kk < shape.k; kk++) {
      const p = A[r * shape.k + kk]! * B[kk * shape.n + c]!;
      if (Math.fround(p) !== p && Number.isFinite(p)) {
        let bits = fromF32(acc);
        for (let k2 = kk; k2 < shape.k; k2++) bits = ffma(Abits[r * shape.k + k2]!, Bbits[k2 * shape.n + c]!, bits, F32);
        return bits;
      }
      acc = Math.fround(acc + p);
    }
    return fromF32(acc);
  };
  return (w, m) => {
    if (m !== -1 && m >>> 0 !== 0xffffffff) {
      throw new Trap('unsupported', `${text} executed by a partial warp (active mask 0x${(m >>> 0).toString(16)}): the .aligned matrix instructions need all 32 lanes`, 31 - Math.clz32(~m & -~m));
    }
    for (let l = 0; l < 32; l++) {
      const g = l >> 2;
      const t = l & 3;
      for (let j = 0; j < shape.na; j++) {
        const v = readSrc(w, srcs[j]!, l) as bigint;
        for (let e = 0; e < shape.per; e++) {
          const [r, c] = shape.a(g, t, j, e);
          const at = r * shape.k + c;
          if (isInt) A[at] = elementInt(v, e, input === 's8');
          else Abits[at] = elementBits(v, e);
        }
      }
      for (let j = 0; j < shape.nb; j++) {
        const v = readSrc(w, srcs[shape.na + j]!, l) as bigint;
        for (let e = 0; e < shape.per; e++) {
          const [kk, c] = shape.b(g, t, j, e);
          const at = kk * shape.n + c;
          if (isInt) B[at] = elementInt(v, e, bSigned);
          else Bbits[at] = elementBits(v, e);
        }
      }
      for (let x = 0; x < shape.nc; x++) {
        const [r, c] = shape.c(g, t, x);
        C[r * shape.n + c] = readSrc(w, srcs[shape.na + shape.nb + x]!, l) as bigint;
      }
    }
    if (!isInt && !isF64) {
      for (let i = 0; i < A.length; i++) A[i] = toF32(Abits[i]!);
      for (let i = 0; i < B.length; i++) B[i] = toF32(Bbits[i]!);
    }
    for (let r = 0; r < shape.m; r++) {
      for (let c = 0; c < shape.n; c++) {
        if (isInt) {
          // |sum| < 2^53: exact in doubles; the s32 accumulator wraps modulo 2^32
          let acc = Number(sx(C[r * shape.n + c]!, 32));
          for (let kk = 0; kk < shape.k; kk++) acc += A[r * shape.k + kk]! * B[kk * shape.n + c]!;
          D[r * shape.n + c] = u(BigInt(acc), 32);
        } else if (isF64) {
          let acc = C[r * shape.n + c]!;
          for (let kk = 0; kk < shape.k; kk++) acc = ffma(Abits[r * shape.k + kk]!, Bbits[kk * shape.n + c]!, acc, F64);
          D[r * shape.n + c] = acc;
        } else D[r * shape.n + c] = dotF32(r, c);
      }
    }
    for (let l = 0; l < 32; l++) {
      for (let x = 0; x < shape.nc; x++) {
        const [r, c] = shape.c(l >> 2, l & 3, x);
        writeLane(w, dsts[x]!, l, D[r * shape.n + c]!);
      }
    }
    for (const d of dsts) markWritten(w, d, m);
  };
}
