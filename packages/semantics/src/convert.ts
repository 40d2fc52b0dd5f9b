/**
 * Conversions (docs/ori-semantics.md: F2F, F2I, I2F, I2I, F2FP) over bit patterns.
 */
import { BF16, F16, F32, F64, s, u, type FloatFormat } from './bits.js';
import { decode, flushBits, roundIntegral, type FrndMode } from './float.js';
import { exactOf, roundToFormat, type RoundMode } from './round.js';

export interface IntType {
  readonly signed: boolean;
  readonly width: 8 | 16 | 32 | 64;
}

const INT_TYPES: Record<string, IntType> = {
  U8: { signed: false, width: 8 }, S8: { signed: true, width: 8 },
  U16: { signed: false, width: 16 }, S16: { signed: true, width: 16 },
  U32: { signed: false, width: 32 }, S32: { signed: true, width: 32 },
  U64: { signed: false, width: 64 }, S64: { signed: true, width: 64 },
};
const FLOAT_TYPES: Record<string, FloatFormat> = { F16, BF16, F32, F64 };

export function intType(mod: string): IntType | undefined {
  return INT_TYPES[mod];
}
export function floatType(mod: string): FloatFormat | undefined {
  return FLOAT_TYPES[mod];
}
/** Width in bits of a type modifier (int or float), or undefined. */
export function typeWidth(mod: string): number | undefined {
  return INT_TYPES[mod]?.width ?? FLOAT_TYPES[mod]?.width;
}

function intRange(t: IntType): [bigint, bigint] {
  if (t.signed) return [-(1n << BigInt(t.width - 1)), (1n << BigInt(t.width - 1)) - 1n];
  return [0n, (1n << BigInt(t.width)) - 1n];
}

/** The value of an integer of type t held in the low bits of `bits`. */
export function intValue(bits: bigint, t: IntType): bigint {
  return t.signed ? s(bits, t.width) : u(bits, t.width);
}

/** An integer value written into a register of `regWidth` bits: sign- or zero-extended by the type. */
export function intToReg(v: bigint, t: IntType, regWidth: number): bigint {
  return u(t.signed ? s(v, t.width) : u(v, t.width), regWidth);
}

/**
 * F2F: float to float with rounding; f32 FTZ on input and output; NaN gives the canonical NaN, except bf16 -> f32
 * without .ftz/.sat: that widening is the bits shifted up by 16 on the GPU (ptxas compiles `cvt.f32.bf16` to
 * SHF.L.U32), so NaN payloads survive it.
 */
export function f2f(bits: bigint, dst: FloatFormat, src: FloatFormat, mode: RoundMode, ftz: boolean, sat: boolean): bigint {
  if (src === BF16 && dst === F32 && !ftz && !sat) return u(bits, 16) << 16n;
  const inBits = ftz && src === F32 ? flushBits(u(bits, 32), F32) : u(bits, src.width);
  const x = decode(inBits, src);
  let r: bigint;
  if (Number.isNaN(x)) r = dst.canonicalNaN;
  else if (!Number.isFinite(x)) {
    const inf = ((1n << BigInt(dst.ebits)) - 1n) << BigInt(dst.mbits);
    r = x < 0 ? inf | (1n << BigInt(dst.width - 1)) : inf;
  } else {
    r = roundToFormat(exactOf(x), dst, mode);
  }
  if (ftz && dst === F32) r = flushBits(r, F32);
  if (sat) {
    const y = decode(r, dst);
    if (Number.isNaN(y) || y <= 0) r = 0n;
    else if (y >= 1) r = roundToFormat({ neg: false, mant: 1n, exp: 0 }, dst, 'RN');
  }
  return r;
}

/** F2I: PTX cvt semantics: round by mode, saturate to the type's range, NaN gives 0. */
export function f2i(bits: bigint, dst: IntType, src: FloatFormat, mode: FrndMode, ftz: boolean): bigint {
  const inBits = ftz && src === F32 ? flushBits(u(bits, 32), F32) : u(bits, src.width);
  const x = decode(inBits, src);
  if (Number.isNaN(x)) return 0n;
  const [lo, hi] = intRange(dst);
  if (x === Infinity) return hi;
  if (x === -Infinity) return lo;
  const r = roundIntegral(x, mode);
  const v = BigInt(r);
  return v < lo ? lo : v > hi ? hi : v;
}

/** I2F: integer of type src (in the low bits) to a float format, rounded by mode. */
export function i2f(bits: bigint, dst: FloatFormat, src: IntType, mode: RoundMode): bigint {
  const v = intValue(bits, src);
  return roundToFormat({ neg: v < 0n, mant: v < 0n ? -v : v, exp: 0 }, dst, mode);
}

/** I2I: reinterpret by the source type, then truncate (or saturate with .SAT) to the destination type. */
export function i2i(bits: bigint, dst: IntType, src: IntType, sat: boolean): bigint {
  const v = intValue(bits, src);
  if (!sat) return intValue(v, dst);
  const [lo, hi] = intRange(dst);
  return v < lo ? lo : v > hi ? hi : v;
}

/** F2FP.PACK_AB: d = (cvt(a) << 16) | cvt(b), both rounded from f32 to f16 (or bf16). */
export function f2fpPack(a: bigint, b: bigint, dst: FloatFormat, mode: RoundMode): bigint {
  const ha = f2f(a, dst, F32, mode, false, false);
  const hb = f2f(b, dst, F32, mode, false, false);
  return (ha << 16n) | hb;
}

export { F16, BF16, F32, F64 };
