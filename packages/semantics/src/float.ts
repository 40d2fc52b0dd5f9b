/**
 * Floating-point semantics of Ori (docs/ori-semantics.md, "Float") over bit patterns. Results are
 * IEEE-754 correctly rounded in the requested mode; a NaN result is the format's canonical NaN (what NVIDIA
 * hardware writes: 0x7fffffff for f32, 0x7fffffffffffffff for f64, 0x7fff for f16/bf16).
 */
import { F16, F32, F64, f32FromBits, f32ToBits, f64FromBits, f64ToBits, floatFromBits, u, type FloatFormat } from './bits.js';
import { exactAdd, exactDiv, exactMul, exactOf, exactSqrt, roundToFormat, type RoundMode } from './round.js';

export type FloatCmp =
  | 'EQ' | 'NE' | 'LT' | 'LE' | 'GT' | 'GE'
  | 'EQU' | 'NEU' | 'LTU' | 'LEU' | 'GTU' | 'GEU'
  | 'NUM' | 'NAN';

export interface FloatOpts {
  readonly mode?: RoundMode;
  /** f32 and f16 (PTX `.ftz` on f16 arithmetic): denormal inputs and results become sign-preserving zeros. */
  readonly ftz?: boolean;
  /** Clamp the result to [0, 1]; NaN gives +0. */
  readonly sat?: boolean;
}

const signMask = (fmt: FloatFormat): bigint => 1n << BigInt(fmt.width - 1);

export function isDenormalBits(bits: bigint, fmt: FloatFormat): boolean {
  const e = (bits >> BigInt(fmt.mbits)) & ((1n << BigInt(fmt.ebits)) - 1n);
  return e === 0n && (bits & ((1n << BigInt(fmt.mbits)) - 1n)) !== 0n;
}
/** Flush a denormal to a zero of the same sign. */
export function flushBits(bits: bigint, fmt: FloatFormat): bigint {
  return isDenormalBits(bits, fmt) ? bits & signMask(fmt) : bits;
}

export function decode(bits: bigint, fmt: FloatFormat): number {
  return floatFromBits(u(bits, fmt.width), fmt);
}

/** Encode a double that is already a value of `fmt` (or NaN / infinity) as bits of `fmt`. */
export function encodeExact(x: number, fmt: FloatFormat): bigint {
  if (Number.isNaN(x)) return fmt.canonicalNaN;
  if (fmt === F64) return f64ToBits(x);
  if (fmt === F32) return BigInt(f32ToBits(x));
  return roundDouble(x, fmt, 'RN');
}

/** Round a double (any value) to `fmt`. */
export function roundDouble(x: number, fmt: FloatFormat, mode: RoundMode): bigint {
  if (Number.isNaN(x)) return fmt.canonicalNaN;
  if (!Number.isFinite(x)) {
    const inf = ((1n << BigInt(fmt.ebits)) - 1n) << BigInt(fmt.mbits);
    return x < 0 ? inf | signMask(fmt) : inf;
  }
  if (fmt === F64) return f64ToBits(x);
  if (fmt === F32 && mode === 'RN') return BigInt(f32ToBits(Math.fround(x)));
  return roundToFormat(exactOf(x), fmt, mode);
}

/** Formats `.FTZ` applies to: f32, and the f16 lanes of HADD2/HMUL2/HFMA2 (PTX add/mul/fma.ftz.f16). */
function ftzApplies(fmt: FloatFormat): boolean {
  return fmt === F32 || fmt === F16;
}

function prepIn(bits: bigint, fmt: FloatFormat, o: FloatOpts): number {
  const b = o.ftz && ftzApplies(fmt) ? flushBits(u(bits, fmt.width), fmt) : u(bits, fmt.width);
  return decode(b, fmt);
}
function finish(bits: bigint, fmt: FloatFormat, o: FloatOpts): bigint {
  let r = bits;
  if (o.ftz && ftzApplies(fmt)) r = flushBits(r, fmt);
  if (o.sat) {
    const x = decode(r, fmt);
    if (Number.isNaN(x) || x <= 0) return 0n;
    if (x >= 1) return encodeExact(1, fmt);
  }
  return r;
}

/** Correct rounding of an operation whose operands are finite, through the exact path. */
function exactResult(kind: 'add' | 'mul' | 'div' | 'sqrt', a: number, b: number, fmt: FloatFormat, mode: RoundMode): bigint {
  const ea = exactOf(a);
  const eb = exactOf(b);
  switch (kind) {
    case 'add':
      return roundToFormat(exactAdd(ea, eb, mode), fmt, mode);
    case 'mul':
      return roundToFormat(exactMul(ea, eb), fmt, mode);
    case 'div':
      return roundToFormat(exactDiv(ea, eb), fmt, mode);
    case 'sqrt':
      return roundToFormat(exactSqrt(ea), fmt, mode);
  }
}

function binop(kind: 'add' | 'mul' | 'div', abits: bigint, bbits: bigint, fmt: FloatFormat, o: FloatOpts): bigint {
  const a = prepIn(abits, fmt, o);
  const b = prepIn(bbits, fmt, o);
  const mode = o.mode ?? 'RN';
  const r = kind === 'add' ? a + b : kind === 'mul' ? a * b : a / b;
  let bits: bigint;
  if (Number.isNaN(r)) bits = fmt.canonicalNaN;
  else if (!Number.isFinite(a) || !Number.isFinite(b) || (kind === 'div' && b === 0)) bits = roundDouble(r, fmt, mode);
  else if (mode === 'RN' && fmt !== F16 && fmt.name !== 'bf16') bits = roundDouble(r, fmt, 'RN');
  else bits = exactResult(kind, a, b, fmt, mode);
  return finish(bits, fmt, o);
}

export function fadd(a: bigint, b: bigint, fmt: FloatFormat, o: FloatOpts = {}): bigint {
  return binop('add', a, b, fmt, o);
}
export function fmul(a: bigint, b: bigint, fmt: FloatFormat, o: FloatOpts = {}): bigint {
  return binop('mul', a, b, fmt, o);
}
export function fdiv(a: bigint, b: bigint, fmt: FloatFormat, o: FloatOpts = {}): bigint {
  return binop('div', a, b, fmt, o);
}

/** Fused a*b + c with a single rounding. */
export function ffma(abits: bigint, bbits: bigint, cbits: bigint, fmt: FloatFormat, o: FloatOpts = {}): bigint {
  const a = prepIn(abits, fmt, o);
  const b = prepIn(bbits, fmt, o);
  const c = prepIn(cbits, fmt, o);
  const mode = o.mode ?? 'RN';
  let bits: bigint;
  if (!Number.isFinite(a) || !Number.isFinite(b) || !Number.isFinite(c)) {
    const r = a * b + c;
    bits = Number.isNaN(r) ? fmt.canonicalNaN : roundDouble(r, fmt, mode);
  } else {
    const p = exactMul(exactOf(a), exactOf(b));
    bits = roundToFormat(exactAdd(p, exactOf(c), mode), fmt, mode);
  }
  return finish(bits, fmt, o);
}

export function fsqrt(abits: bigint, fmt: FloatFormat, o: FloatOpts = {}): bigint {
  const a = prepIn(abits, fmt, o);
  const mode = o.mode ?? 'RN';
  let bits: bigint;
  if (Number.isNaN(a) || a < 0) bits = fmt.canonicalNaN;
  else if (!Number.isFinite(a) || a === 0) bits = encodeExact(a, fmt);
  else if (mode === 'RN' && (fmt === F32 || fmt === F64)) bits = roundDouble(Math.sqrt(a), fmt, 'RN');
  else bits = exactResult('sqrt', a, 0, fmt, mode);
  return finish(bits, fmt, o);
}

/** FMNMX / DMNMX: one NaN input gives the other input; two give the canonical NaN; -0 < +0. */
export function fminmax(abits: bigint, bbits: bigint, takeMin: boolean, fmt: FloatFormat, ftz = false): bigint {
  const ab = ftz && fmt === F32 ? flushBits(u(abits, 32), fmt) : u(abits, fmt.width);
  const bb = ftz && fmt === F32 ? flushBits(u(bbits, 32), fmt) : u(bbits, fmt.width);
  const a = decode(ab, fmt);
  const b = decode(bb, fmt);
  if (Number.isNaN(a) && Number.isNaN(b)) return fmt.canonicalNaN;
  if (Number.isNaN(a)) return bb;
  if (Number.isNaN(b)) return ab;
  if (a === b) {
    // Equal values differ only in the sign of zero: min prefers -0, max +0.
    const aNeg = (ab & signMask(fmt)) !== 0n;
    return takeMin ? (aNeg ? ab : bb) : aNeg ? bb : ab;
  }
  return takeMin ? (a < b ? ab : bb) : a > b ? ab : bb;
}

export function fcmp(cmp: FloatCmp, a: number, b: number): boolean {
  const unordered = Number.isNaN(a) || Number.isNaN(b);
  switch (cmp) {
    case 'EQ':
      return !unordered && a === b;
    case 'NE':
      return !unordered && a !== b;
    case 'LT':
      return !unordered && a < b;
    case 'LE':
      return !unordered && a <= b;
    case 'GT':
      return !unordered && a > b;
    case 'GE':
      return !unordered && a >= b;
    case 'EQU':
      return unordered || a === b;
    case 'NEU':
      return unordered || a !== b;
    case 'LTU':
      return unordered || a < b;
    case 'LEU':
      return unordered || a <= b;
    case 'GTU':
      return unordered || a > b;
    case 'GEU':
      return unordered || a >= b;
    case 'NUM':
      return !unordered;
    case 'NAN':
      return unordered;
  }
}

/** Compare two bit patterns of a format (FSETP/DSETP), with optional f32 FTZ. */
export function fcmpBits(cmp: FloatCmp, abits: bigint, bbits: bigint, fmt: FloatFormat, ftz = false): boolean {
  return fcmp(cmp, prepIn(abits, fmt, { ftz }), prepIn(bbits, fmt, { ftz }));
}

export type MufuFn = 'RCP' | 'RSQ' | 'SQRT' | 'SIN' | 'COS' | 'EX2' | 'LG2' | 'TANH';

/**
 * MUFU on f32. Hardware computes approximations; the interpreter computes the JS double result and rounds it
 * to f32. Documented as approximate: never compare MUFU results bit-exactly against real hardware.
 * `.FTZ` (from PTX `.approx.ftz`) flushes a denormal input and a denormal result to zero of the same sign.
 */
export function mufu(fn: MufuFn, abits: bigint, ftz = false): bigint {
  const inBits = ftz ? flushBits(u(abits, 32), F32) : u(abits, 32);
  const a = f32FromBits(Number(inBits));
  let r: number;
  switch (fn) {
    case 'RCP':
      r = 1 / a;
      break;
    case 'RSQ':
      r = 1 / Math.sqrt(a);
      break;
    case 'SQRT':
      r = Math.sqrt(a);
      break;
    case 'SIN':
      r = Math.sin(a);
      break;
    case 'COS':
      r = Math.cos(a);
      break;
    case 'EX2':
      r = 2 ** a;
      break;
    case 'LG2':
      r = Math.log2(a);
      break;
    case 'TANH':
      r = Math.tanh(a);
      break;
  }
  const out = roundDouble(r, F32, 'RN');
  return ftz ? flushBits(out, F32) : out;
}

export type FrndMode = 'TRUNC' | 'FLOOR' | 'CEIL' | 'RN';

/** Round half to even. */
export function roundHalfEven(x: number): number {
  if (!Number.isFinite(x)) return x;
  const f = Math.floor(x);
  const d = x - f;
  let r: number;
  if (d < 0.5) r = f;
  else if (d > 0.5) r = f + 1;
  else r = f % 2 === 0 ? f : f + 1;
  // Keep the sign of zero (-0.3 rounds to -0).
  return r === 0 ? (x < 0 || Object.is(x, -0) ? -0 : 0) : r;
}

export function roundIntegral(x: number, m: FrndMode): number {
  switch (m) {
    case 'TRUNC':
      return Math.trunc(x);
    case 'FLOOR':
      return Math.floor(x);
    case 'CEIL':
      return Math.ceil(x);
    case 'RN':
      return roundHalfEven(x);
  }
}

/** FRND: round to an integral value in the same format. */
export function frnd(abits: bigint, m: FrndMode, fmt: FloatFormat, ftz = false): bigint {
  const a = prepIn(abits, fmt, { ftz });
  return encodeExact(roundIntegral(a, m), fmt);
}

/** f32 fast-path helpers on numbers (bit patterns as uint32); same results as the bigint forms in RN. */
export function fadd32(a: number, b: number): number {
  const r = f32FromBits(a) + f32FromBits(b);
  return r !== r ? 0x7fffffff : f32ToBits(r);
}
export function fmul32(a: number, b: number): number {
  const r = f32FromBits(a) * f32FromBits(b);
  return r !== r ? 0x7fffffff : f32ToBits(r);
}
export { f64FromBits };
