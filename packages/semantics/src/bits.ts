/**
 * Bit-pattern helpers shared by the pure semantics and the interpreter. Values of data registers are
 * unsigned bit patterns (bigint in the pure API, number for 32-bit fast paths).
 */

export const MASK32 = 0xffffffffn;
export const MASK64 = 0xffffffffffffffffn;

/** The low `width` bits of v as an unsigned value (negative inputs wrap, as immediates do). */
export function u(v: bigint, width: number): bigint {
  return BigInt.asUintN(width, v);
}
/** The low `width` bits of v read as a signed value. */
export function s(v: bigint, width: number): bigint {
  return BigInt.asIntN(width, v);
}

const dv = new DataView(new ArrayBuffer(8));

export function f32FromBits(b: number): number {
  dv.setUint32(0, b >>> 0, true);
  return dv.getFloat32(0, true);
}
export function f32ToBits(x: number): number {
  dv.setFloat32(0, x, true);
  return dv.getUint32(0, true);
}
export function f64FromBits(b: bigint): number {
  dv.setBigUint64(0, BigInt.asUintN(64, b), true);
  return dv.getFloat64(0, true);
}
export function f64ToBits(x: number): bigint {
  dv.setFloat64(0, x, true);
  return dv.getBigUint64(0, true);
}
/** f64 from its two 32-bit halves (fast path, no BigInt). */
export function f64FromHalves(lo: number, hi: number): number {
  dv.setUint32(0, lo >>> 0, true);
  dv.setUint32(4, hi >>> 0, true);
  return dv.getFloat64(0, true);
}
/** Writes the two halves of an f64 into out[0] (lo) and out[1] (hi). */
export function f64ToHalves(x: number, out: Uint32Array | number[], at = 0): void {
  dv.setFloat64(0, x, true);
  out[at] = dv.getUint32(0, true);
  out[at + 1] = dv.getUint32(4, true);
}

/** IEEE binary formats the interpreter knows. */
export interface FloatFormat {
  readonly name: 'f16' | 'bf16' | 'f32' | 'f64';
  readonly ebits: number;
  readonly mbits: number;
  readonly width: number;
  /** The NaN the hardware writes for a NaN result (sign 0, all payload bits set). */
  readonly canonicalNaN: bigint;
}
export const F16: FloatFormat = { name: 'f16', ebits: 5, mbits: 10, width: 16, canonicalNaN: 0x7fffn };
export const BF16: FloatFormat = { name: 'bf16', ebits: 8, mbits: 7, width: 16, canonicalNaN: 0x7fffn };
export const F32: FloatFormat = { name: 'f32', ebits: 8, mbits: 23, width: 32, canonicalNaN: 0x7fffffffn };
export const F64: FloatFormat = { name: 'f64', ebits: 11, mbits: 52, width: 64, canonicalNaN: 0x7fffffffffffffffn };

export const CANONICAL_NAN_F32 = 0x7fffffff;

/** Decode bits of a format to a JS double (exact for all four formats). */
export function floatFromBits(bits: bigint, fmt: FloatFormat): number {
  if (fmt === F64) return f64FromBits(bits);
  if (fmt === F32) return f32FromBits(Number(bits & MASK32));
  const b = Number(u(bits, 16));
  const sign = b >> 15 ? -1 : 1;
  const e = (b >> fmt.mbits) & ((1 << fmt.ebits) - 1);
  const m = b & ((1 << fmt.mbits) - 1);
  const bias = (1 << (fmt.ebits - 1)) - 1;
  if (e === (1 << fmt.ebits) - 1) return m ? NaN : sign * Infinity;
  if (e === 0) return sign * m * 2 ** (1 - bias - fmt.mbits);
  return sign * (m + 2 ** fmt.mbits) * 2 ** (e - bias - fmt.mbits);
}

export function popc32(x: number): number {
  x = x - ((x >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}
