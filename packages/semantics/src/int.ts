/**
 * Integer semantics of Ori (docs/ori-semantics.md, "Integer") as pure functions over unsigned bit patterns
 * (bigint) of a given width (32 or 64). All results are returned as unsigned patterns of that width.
 */
import { s, u } from './bits.js';

export type IntCmp = 'EQ' | 'NE' | 'LT' | 'LE' | 'GT' | 'GE';
export type BoolComb = 'AND' | 'OR' | 'XOR';

/** d = a + b + c + carry-ins; carry[0] is bit `w` of the full sum, carry[1] bit `w+1`. */
export function iadd3(a: bigint, b: bigint, c: bigint, carryIns: readonly boolean[], w: number): { d: bigint; carry: [boolean, boolean] } {
  let sum = u(a, w) + u(b, w) + u(c, w);
  for (const ci of carryIns) if (ci) sum += 1n;
  return { d: u(sum, w), carry: [((sum >> BigInt(w)) & 1n) === 1n, ((sum >> BigInt(w + 1)) & 1n) === 1n] };
}

/** Low `w` bits of a*b + c (+ carry-in), and the carry out of that final addition. */
export function imad(a: bigint, b: bigint, c: bigint, carryIn: boolean, w: number): { d: bigint; carry: boolean } {
  const full = u(u(a, w) * u(b, w), w) + u(c, w) + (carryIn ? 1n : 0n);
  return { d: u(full, w), carry: full >> BigInt(w) !== 0n };
}

/** High half of the 2w-bit product a*b (signed or unsigned), plus c (wrapping). */
export function imulHi(a: bigint, b: bigint, c: bigint, signed: boolean, w: number): bigint {
  const p = signed ? s(a, w) * s(b, w) : u(a, w) * u(b, w);
  return u((p >> BigInt(w)) + u(c, w), w);
}

/** IMAD.WIDE: 32x32 -> 64-bit product plus a 64-bit addend. */
export function imadWide(a: bigint, b: bigint, c: bigint, signed: boolean, carryIn = false): { d: bigint; carry: boolean } {
  const p = signed ? s(a, 32) * s(b, 32) : u(a, 32) * u(b, 32);
  const full = u(p, 64) + u(c, 64) + (carryIn ? 1n : 0n);
  return { d: u(full, 64), carry: full >> 64n !== 0n };
}

export function imnmx(a: bigint, b: bigint, takeMin: boolean, signed: boolean, w: number): bigint {
  const x = signed ? s(a, w) : u(a, w);
  const y = signed ? s(b, w) : u(b, w);
  const r = takeMin ? (x < y ? x : y) : x > y ? x : y;
  return u(r, w);
}

/** Two's-complement absolute value: the most negative value stays itself. */
export function iabs(a: bigint, w: number): bigint {
  const x = s(a, w);
  return u(x < 0n ? -x : x, w);
}

export function icmp(cmp: IntCmp, a: bigint, b: bigint, signed: boolean, w: number): boolean {
  const x = signed ? s(a, w) : u(a, w);
  const y = signed ? s(b, w) : u(b, w);
  switch (cmp) {
    case 'EQ':
      return x === y;
    case 'NE':
      return x !== y;
    case 'LT':
      return x < y;
    case 'LE':
      return x <= y;
    case 'GT':
      return x > y;
    case 'GE':
      return x >= y;
  }
}

export function combine(comb: BoolComb, t: boolean, c: boolean): boolean {
  return comb === 'AND' ? t && c : comb === 'OR' ? t || c : t !== c;
}

/** PTX shl: the amount is an unsigned 32-bit value; amounts >= width give 0. */
export function shl(a: bigint, amount: bigint, w: number): bigint {
  const n = u(amount, 32);
  return n >= BigInt(w) ? 0n : u(u(a, w) << n, w);
}

/** PTX shr: amounts >= width give 0 (unsigned) or all sign bits (signed). */
export function shr(a: bigint, amount: bigint, signed: boolean, w: number): bigint {
  let n = u(amount, 32);
  if (n >= BigInt(w)) n = BigInt(w);
  if (signed) return u(s(a, w) >> (n === BigInt(w) ? BigInt(w - 1) : n), w);
  return n === BigInt(w) ? 0n : u(a, w) >> n;
}

/**
 * SASS funnel shift on the 64-bit value hi:lo. `.L` shifts left, `.R` right (arithmetic for signed types).
 * The result is the low word, or the high word with `.HI`. The amount wraps modulo the type width with
 * `.W`, otherwise clamps at the type width (32 for U32/S32, 64 for U64/S64).
 */
export function shf(lo: bigint, amount: bigint, hi: bigint, opts: { left: boolean; signed: boolean; typeWidth: 32 | 64; wrap: boolean; high: boolean }): bigint {
  let n = u(amount, 32);
  const tw = BigInt(opts.typeWidth);
  n = opts.wrap ? n % tw : n > tw ? tw : n;
  const v = (u(hi, 32) << 32n) | u(lo, 32);
  let r: bigint;
  if (opts.left) r = u(v << n, 64);
  else r = opts.signed ? u(s(v, 64) >> n, 64) : v >> n;
  return opts.high ? r >> 32n : u(r, 32);
}

/** LEA: (a << sh) + b; LEA.HI: (((hi:a) << sh) >> 32) + b, with hi the sign of a for .SX32. */
export function lea(a: bigint, b: bigint, sh: bigint, w: number, carryIn: boolean): { d: bigint; carry: boolean } {
  const n = Number(u(sh, 32) & 0x3fn);
  const full = u(u(a, w) << BigInt(n), w) + u(b, w) + (carryIn ? 1n : 0n);
  return { d: u(full, w), carry: full >> BigInt(w) !== 0n };
}
export function leaHi(a: bigint, b: bigint, hi: bigint, sh: bigint, carryIn: boolean): bigint {
  const n = BigInt(Number(u(sh, 32) & 0x3fn));
  const v = (u(hi, 32) << 32n) | u(a, 32);
  return u(u((v << n) >> 32n, 32) + u(b, 32) + (carryIn ? 1n : 0n), 32);
}

/**
 * Truncating division. Division by zero (PTX leaves it undefined) is defined here as what the GPU gives with
 * ptxas 13's sequences on sm_90: quotient and remainder all ones, signed and unsigned, 32 and 64 bits (the
 * 32-bit sequence ends in `@!P LOP3.LUT Rd, RZ, Rb, RZ, 0x33` = ~b, the 64-bit subroutines in
 * `SEL Rd, Rq, 0xffffffff, P`). MIN / -1 gives MIN with remainder 0.
 */
export function idiv(a: bigint, b: bigint, signed: boolean, w: number): bigint {
  const y = signed ? s(b, w) : u(b, w);
  if (y === 0n) return u(-1n, w);
  const x = signed ? s(a, w) : u(a, w);
  return u(x / y, w);
}
export function irem(a: bigint, b: bigint, signed: boolean, w: number): bigint {
  const y = signed ? s(b, w) : u(b, w);
  if (y === 0n) return u(-1n, w);
  const x = signed ? s(a, w) : u(a, w);
  return u(x % y, w);
}

export function popc(a: bigint, w: number): bigint {
  let x = u(a, w);
  let n = 0n;
  while (x) {
    x &= x - 1n;
    n++;
  }
  return n;
}

export function brev(a: bigint, w: number): bigint {
  let x = u(a, w);
  let r = 0n;
  for (let i = 0; i < w; i++) {
    r = (r << 1n) | (x & 1n);
    x >>= 1n;
  }
  return r;
}

/**
 * FLO: index of the highest one bit (signed: highest bit differing from the sign bit), 0xffffffff when none;
 * with `shiftAmount` (.SH) the result is (w-1) - index (0xffffffff still when none).
 */
export function flo(a: bigint, signed: boolean, shiftAmount: boolean, w: number): bigint {
  let x = u(a, w);
  if (signed && s(a, w) < 0n) x = u(~x, w);
  if (x === 0n) return 0xffffffffn;
  const idx = BigInt(x.toString(2).length - 1);
  return shiftAmount ? BigInt(w - 1) - idx : idx;
}

/** PTX bfe: pos and len taken mod 256; bits past the msb are the fill (sign for signed, 0 otherwise). */
export function bfe(a: bigint, pos: bigint, len: bigint, signed: boolean, w: number): bigint {
  const p = Number(u(pos, 32) & 0xffn);
  const l = Number(u(len, 32) & 0xffn);
  const msb = w - 1;
  const x = u(a, w);
  const sbit = signed && l !== 0 ? (x >> BigInt(Math.min(p + l - 1, msb))) & 1n : 0n;
  let d = 0n;
  for (let i = 0; i <= msb; i++) {
    const bit = i < l && p + i <= msb ? (x >> BigInt(p + i)) & 1n : sbit;
    d |= bit << BigInt(i);
  }
  return d;
}

/** PTX bfi: insert the low `len` bits of a into b at `pos` (pos, len mod 256). */
export function bfi(a: bigint, b: bigint, pos: bigint, len: bigint, w: number): bigint {
  const p = Number(u(pos, 32) & 0xffn);
  const l = Number(u(len, 32) & 0xffn);
  let d = u(b, w);
  const x = u(a, w);
  for (let i = 0; i < l && p + i <= w - 1; i++) {
    const bit = 1n << BigInt(p + i);
    d = ((x >> BigInt(i)) & 1n) === 1n ? d | bit : d & ~bit;
  }
  return u(d, w);
}

/** PTX prmt on {b, a} (a = bytes 0..3, b = bytes 4..7). `mode` is undefined for the generic selector form. */
export function prmt(a: bigint, sel: bigint, b: bigint, mode?: string): bigint {
  const bytes: number[] = [];
  const av = Number(u(a, 32));
  const bv = Number(u(b, 32));
  for (let i = 0; i < 4; i++) bytes.push((av >>> (8 * i)) & 0xff);
  for (let i = 0; i < 4; i++) bytes.push((bv >>> (8 * i)) & 0xff);
  const c = Number(u(sel, 32));
  const out = [0, 0, 0, 0];
  if (!mode) {
    for (let i = 0; i < 4; i++) {
      const nib = (c >>> (4 * i)) & 0xf;
      const byte = bytes[nib & 7]!;
      out[i] = nib & 8 ? (byte & 0x80 ? 0xff : 0) : byte;
    }
  } else {
    const k = c & 3;
    const pick = (idx: readonly number[]): void => {
      for (let i = 0; i < 4; i++) out[i] = bytes[idx[i]!]!;
    };
    switch (mode) {
      case 'F4E':
        pick([k, k + 1, k + 2, k + 3].map((x) => x & 7));
        break;
      case 'B4E':
        // PTX b4e: d.b0 = src[c], d.b1 = src[c-1], ... (indices mod 8).
        pick([k & 7, (k + 7) & 7, (k + 6) & 7, (k + 5) & 7]);
        break;
      case 'RC8':
        pick([k, k, k, k]);
        break;
      case 'ECL':
        // PTX ecl: {0,1,2,3},{1,1,2,3},{2,2,2,3},{3,3,3,3} (byte 0 first).
        pick([Math.max(0, k), Math.max(1, k), Math.max(2, k), 3]);
        break;
      case 'ECR':
        // {0,0,0,0},{0,1,1,1},{0,1,2,2},{0,1,2,3}
        pick([0, Math.min(1, k), Math.min(2, k), Math.min(3, k)]);
        break;
      case 'RC16':
        // {0,1,0,1},{2,3,2,3},{0,1,0,1},{2,3,2,3}
        pick(k & 1 ? [2, 3, 2, 3] : [0, 1, 0, 1]);
        break;
      default:
        return prmt(a, sel, b);
    }
  }
  return BigInt((out[0]! | (out[1]! << 8) | (out[2]! << 16) | (out[3]! << 24)) >>> 0);
}

/** LOP3: bit = (lut >> ((a<<2)|(b<<1)|c)) & 1 for every bit position. */
export function lop3(a: bigint, b: bigint, c: bigint, lut: number, w: number): bigint {
  const ua = u(a, w);
  const ub = u(b, w);
  const uc = u(c, w);
  const m = u(-1n, w);
  let r = 0n;
  if (lut & 0x01) r |= ~ua & ~ub & ~uc;
  if (lut & 0x02) r |= ~ua & ~ub & uc;
  if (lut & 0x04) r |= ~ua & ub & ~uc;
  if (lut & 0x08) r |= ~ua & ub & uc;
  if (lut & 0x10) r |= ua & ~ub & ~uc;
  if (lut & 0x20) r |= ua & ~ub & uc;
  if (lut & 0x40) r |= ua & ub & ~uc;
  if (lut & 0x80) r |= ua & ub & uc;
  return r & m;
}

/** 32-bit LOP3 on numbers (the interpreter's fast path); same truth table as lop3. */
export function lop3n(a: number, b: number, c: number, lut: number): number {
  let r = 0;
  if (lut & 0x01) r |= ~a & ~b & ~c;
  if (lut & 0x02) r |= ~a & ~b & c;
  if (lut & 0x04) r |= ~a & b & ~c;
  if (lut & 0x08) r |= ~a & b & c;
  if (lut & 0x10) r |= a & ~b & ~c;
  if (lut & 0x20) r |= a & ~b & c;
  if (lut & 0x40) r |= a & b & ~c;
  if (lut & 0x80) r |= a & b & c;
  return r >>> 0;
}

export function plop3(a: boolean, b: boolean, c: boolean, lut: number): boolean {
  return ((lut >> (((a ? 1 : 0) << 2) | ((b ? 1 : 0) << 1) | (c ? 1 : 0))) & 1) === 1;
}
