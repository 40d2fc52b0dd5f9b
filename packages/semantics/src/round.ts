/**
 * Exact IEEE-754 arithmetic on bigints: a finite value is sign * mant * 2^exp, and `roundToFormat` rounds
 * it to f16/bf16/f32/f64 in one of the four PTX rounding modes. This is the slow, obviously-correct path
 * used for fused multiply-add, directed rounding and narrowing conversions; the fast paths (JS double
 * arithmetic rounded with Math.fround) are only used where they are provably the same (RN add, sub, mul,
 * div and sqrt of f32 through f64: 53 >= 2*24 + 2, Figueroa 1995).
 */
import { F64, f64FromBits, f64ToBits, type FloatFormat } from './bits.js';

export type RoundMode = 'RN' | 'RZ' | 'RM' | 'RP';

/** A finite nonzero-or-zero exact value. `sticky`: there are nonzero bits below mant's last bit. */
export interface Exact {
  neg: boolean;
  mant: bigint;
  exp: number;
  sticky?: boolean;
}

function bitLength(x: bigint): number {
  return x === 0n ? 0 : x.toString(2).length;
}

/**
 * Round an exact value to a format. With `sticky`, mant must carry at least two bits more than the format's
 * precision (callers give 64+ bits) so that the sticky part is always below the rounding position.
 * An exact zero gets the sign in `x.neg` (callers decide it by IEEE rules).
 */
export function roundToFormat(x: Exact, fmt: FloatFormat, mode: RoundMode): bigint {
  const signBit = x.neg ? 1n << BigInt(fmt.ebits + fmt.mbits) : 0n;
  if (x.mant === 0n && !x.sticky) return signBit;
  const bias = (1 << (fmt.ebits - 1)) - 1;
  const emin = 1 - bias;
  const n = bitLength(x.mant);
  const e = x.exp + n - 1;
  let q = Math.max(e - fmt.mbits, emin - fmt.mbits);
  const shift = q - x.exp;
  let kept: bigint;
  let rem = 0n;
  let half = 0n;
  if (shift > 0) {
    const sh = BigInt(shift);
    kept = x.mant >> sh;
    rem = x.mant & ((1n << sh) - 1n);
    half = 1n << (sh - 1n);
  } else {
    kept = x.mant << BigInt(-shift);
  }
  const inexact = rem !== 0n || !!x.sticky;
  let up = false;
  if (inexact) {
    switch (mode) {
      case 'RN':
        up = rem > half || (rem === half && half !== 0n && (!!x.sticky || (kept & 1n) === 1n));
        break;
      case 'RZ':
        break;
      case 'RP':
        up = !x.neg;
        break;
      case 'RM':
        up = x.neg;
        break;
    }
  }
  if (up) kept += 1n;
  const implicit = 1n << BigInt(fmt.mbits);
  if (kept === implicit << 1n) {
    kept >>= 1n;
    q += 1;
  }
  const emax = (1 << fmt.ebits) - 1;
  let biased: number;
  let frac: bigint;
  if (kept < implicit) {
    biased = 0;
    frac = kept;
  } else {
    biased = q + fmt.mbits + bias;
    frac = kept - implicit;
  }
  if (biased >= emax) {
    const inf = signBit | (BigInt(emax) << BigInt(fmt.mbits));
    const maxFinite = signBit | ((BigInt(emax - 1) << BigInt(fmt.mbits)) | (implicit - 1n));
    if (mode === 'RN') return inf;
    if (mode === 'RZ') return maxFinite;
    if (mode === 'RP') return x.neg ? maxFinite : inf;
    return x.neg ? inf : maxFinite;
  }
  return signBit | (BigInt(biased) << BigInt(fmt.mbits)) | frac;
}

/** A finite double as an exact value. */
export function exactOf(x: number): Exact {
  const bits = f64ToBits(x);
  const neg = bits >> 63n === 1n;
  const e = Number((bits >> 52n) & 0x7ffn);
  const f = bits & ((1n << 52n) - 1n);
  if (e === 0) return { neg, mant: f, exp: -1074 };
  return { neg, mant: f | (1n << 52n), exp: e - 1075 };
}

/** Exact value back to a double (exact when it fits; used only for values that do). */
export function doubleOfExact(x: Exact): number {
  return f64FromBits(roundToFormat(x, F64, 'RN'));
}

function signedMant(x: Exact): bigint {
  return x.neg ? -x.mant : x.mant;
}

/** Exact a + b (finite operands). The sign of an exact zero follows IEEE for the rounding mode. */
export function exactAdd(a: Exact, b: Exact, mode: RoundMode): Exact {
  const exp = Math.min(a.exp, b.exp);
  const sa = signedMant(a) << BigInt(a.exp - exp);
  const sb = signedMant(b) << BigInt(b.exp - exp);
  const sum = sa + sb;
  if (sum === 0n) {
    const aZero = a.mant === 0n;
    const bZero = b.mant === 0n;
    const neg = aZero && bZero && a.neg === b.neg ? a.neg : mode === 'RM';
    return { neg, mant: 0n, exp: 0 };
  }
  return { neg: sum < 0n, mant: sum < 0n ? -sum : sum, exp };
}

export function exactMul(a: Exact, b: Exact): Exact {
  return { neg: a.neg !== b.neg, mant: a.mant * b.mant, exp: a.exp + b.exp };
}

/** a / b with 70 quotient bits plus sticky (b nonzero). */
export function exactDiv(a: Exact, b: Exact): Exact {
  const neg = a.neg !== b.neg;
  if (a.mant === 0n) return { neg, mant: 0n, exp: 0 };
  const want = 70;
  const shift = Math.max(0, want + bitLength(b.mant) - bitLength(a.mant));
  const num = a.mant << BigInt(shift);
  const q = num / b.mant;
  const r = num % b.mant;
  return { neg, mant: q, exp: a.exp - b.exp - shift, sticky: r !== 0n };
}

function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = BigInt(Math.floor(Math.sqrt(Number(n))));
  // Newton steps from the double estimate, then fix up to the exact floor.
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) break;
    x = y;
  }
  while (x * x > n) x -= 1n;
  while ((x + 1n) * (x + 1n) <= n) x += 1n;
  return x;
}

/** sqrt(a) for a >= 0 with 70 bits plus sticky. */
export function exactSqrt(a: Exact): Exact {
  if (a.mant === 0n) return { neg: a.neg, mant: 0n, exp: 0 };
  let mant = a.mant;
  let exp = a.exp;
  const want = 140;
  let sh = Math.max(0, want - bitLength(mant));
  if ((exp - sh) % 2 !== 0) sh += 1;
  mant <<= BigInt(sh);
  exp -= sh;
  const r = isqrt(mant);
  return { neg: false, mant: r, exp: exp / 2, sticky: r * r !== mant };
}
