/**
 * OCP 8-bit floats (PTX `.e4m3` / `.e5m2`, docs/ori-semantics.md "F2F with fp8 types") as single bytes.
 *
 * - E4M3: 1 sign, 4 exponent (bias 7), 3 mantissa bits; no infinities; S.1111.111 (0x7f / 0xff) is NaN, so
 *   the largest finite value is S.1111.110 = 448. Subnormals down to 2^-9.
 * - E5M2: 1 sign, 5 exponent (bias 15), 2 mantissa bits; IEEE-like: exponent 31 is infinity (mantissa 0) or
 *   NaN; the largest finite value is 57344. Subnormals down to 2^-16.
 *
 * Conversions to fp8 round the exact input once (round to nearest even by default). A result that does not
 * fit saturates to +-max with `satfinite` (infinite inputs too); without it E5M2 overflows to infinity by the
 * IEEE rules of the rounding mode and E4M3, which has no infinity, gives NaN where IEEE would give infinity.
 * A NaN result is always 0x7f (canonical, like the other formats). Conversions from fp8 to f16/f32/f64 are
 * exact (NaN gives the destination's canonical NaN).
 */
import { F32, u, type FloatFormat } from './bits.js';
import { decode, flushBits } from './float.js';
import { exactOf, roundToFormat, type Exact, type RoundMode } from './round.js';

export interface Fp8Format {
  readonly name: 'e4m3' | 'e5m2';
  readonly ebits: number;
  readonly mbits: number;
  readonly bias: number;
  /** Largest finite magnitude as a bit pattern without sign. */
  readonly maxFinite: number;
  /** Whether the format has infinities (E5M2) or not (E4M3). */
  readonly hasInf: boolean;
}

export const E4M3: Fp8Format = { name: 'e4m3', ebits: 4, mbits: 3, bias: 7, maxFinite: 0x7e, hasInf: false };
export const E5M2: Fp8Format = { name: 'e5m2', ebits: 5, mbits: 2, bias: 15, maxFinite: 0x7b, hasInf: true };

/** The canonical NaN every conversion to fp8 writes. */
export const FP8_NAN = 0x7fn;

const FP8_TYPES: Record<string, Fp8Format> = { E4M3, E5M2 };
export function fp8Type(mod: string): Fp8Format | undefined {
  return FP8_TYPES[mod];
}

/** The value of an fp8 byte (the low 8 bits of `bits`) as a double (exact). */
export function fp8Decode(bits: bigint, f: Fp8Format): number {
  const b = Number(u(bits, 8));
  const sign = b & 0x80 ? -1 : 1;
  const mag = b & 0x7f;
  const e = mag >> f.mbits;
  const m = mag & ((1 << f.mbits) - 1);
  if (f.hasInf) {
    if (e === (1 << f.ebits) - 1) return m ? NaN : sign * Infinity;
  } else if (mag === 0x7f) return NaN;
  if (e === 0) return sign * m * 2 ** (1 - f.bias - f.mbits);
  return sign * (m + (1 << f.mbits)) * 2 ** (e - f.bias - f.mbits);
}

/** Round an exact finite value to fp8 (magnitude bits plus sign), or `overflow` when it exceeds the format. */
function roundExact(x: Exact, f: Fp8Format, mode: RoundMode): bigint | 'overflow' {
  const sign = x.neg ? 0x80n : 0n;
  if (x.mant === 0n && !x.sticky) return sign;
  const emin = 1 - f.bias;
  const n = x.mant.toString(2).length;
  const e = x.exp + n - 1;
  let q = Math.max(e - f.mbits, emin - f.mbits);
  const shift = q - x.exp;
  let kept: bigint;
  let rem = 0n;
  let half = 0n;
  if (shift > 0) {
    const sh = BigInt(shift);
    kept = x.mant >> sh;
    rem = x.mant & ((1n << sh) - 1n);
    half = 1n << (sh - 1n);
  } else kept = x.mant << BigInt(-shift);
  const inexact = rem !== 0n || !!x.sticky;
  let up = false;
  if (inexact) {
    if (mode === 'RN') up = rem > half || (rem === half && (!!x.sticky || (kept & 1n) === 1n));
    else if (mode === 'RP') up = !x.neg;
    else if (mode === 'RM') up = x.neg;
  }
  if (up) kept += 1n;
  const implicit = 1n << BigInt(f.mbits);
  if (kept === implicit << 1n) {
    kept >>= 1n;
    q += 1;
  }
  let mag: bigint;
  if (kept < implicit) mag = kept; // subnormal (or zero after rounding down)
  else {
    const biased = q + f.mbits + f.bias;
    if (biased >= 1 << f.ebits) return 'overflow';
    mag = (BigInt(biased) << BigInt(f.mbits)) | (kept - implicit);
  }
  if (mag > BigInt(f.maxFinite)) return 'overflow';
  return sign | mag;
}

/** What an overflowing result becomes without satfinite: infinity where IEEE rounding gives it, else max. */
function overflowResult(neg: boolean, f: Fp8Format, mode: RoundMode): bigint {
  const sign = neg ? 0x80n : 0n;
  const toInf = mode === 'RN' || (mode === 'RP' && !neg) || (mode === 'RM' && neg);
  if (!toInf) return sign | BigInt(f.maxFinite);
  return f.hasInf ? sign | 0x7cn : FP8_NAN;
}

/**
 * F2F to fp8: `bits` is a value of `src` (f16, bf16, f32 or f64); `ftz` flushes an f32 denormal input first.
 * Returns the fp8 byte (0..255).
 */
export function toFp8(bits: bigint, src: FloatFormat, f: Fp8Format, mode: RoundMode, satfinite: boolean, ftz = false): bigint {
  const inBits = ftz && src === F32 ? flushBits(u(bits, 32), F32) : u(bits, src.width);
  const x = decode(inBits, src);
  if (Number.isNaN(x)) return FP8_NAN;
  const neg = x < 0 || Object.is(x, -0);
  if (!Number.isFinite(x)) return satfinite ? (neg ? 0x80n : 0n) | BigInt(f.maxFinite) : overflowResult(neg, f, mode);
  const r = roundExact(exactOf(x), f, mode);
  if (r !== 'overflow') return r;
  return satfinite ? (neg ? 0x80n : 0n) | BigInt(f.maxFinite) : overflowResult(neg, f, mode);
}

/** F2F from fp8 (the low byte of `bits`) to a wider float format: exact; NaN gives the canonical NaN. */
export function fromFp8(bits: bigint, f: Fp8Format, dst: FloatFormat): bigint {
  const x = fp8Decode(bits, f);
  if (Number.isNaN(x)) return dst.canonicalNaN;
  if (!Number.isFinite(x)) {
    const inf = ((1n << BigInt(dst.ebits)) - 1n) << BigInt(dst.mbits);
    return x < 0 ? inf | (1n << BigInt(dst.width - 1)) : inf;
  }
  return roundToFormat(exactOf(x), dst, 'RN');
}
