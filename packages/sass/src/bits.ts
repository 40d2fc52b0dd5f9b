/**
 * Instruction words as little-endian arrays of 32-bit limbs (limb 0 holds bits 0..31). Volta+ words have
 * four limbs (128 bits), Maxwell/Kepler words two. Fields are read and written through plain number
 * arithmetic so the codec stays fast (no BigInt on the hot path); a field is at most 53 bits wide.
 */
export type Word = Uint32Array;

const POW2_32 = 4294967296;

export function newWord(bits = 128): Word {
  return new Uint32Array(bits >>> 5);
}

/** Unsigned value of bits [pos, pos+width) (width <= 53). */
export function getBits(w: Word, pos: number, width: number): number {
  const limb = pos >>> 5;
  const off = pos & 31;
  if (width <= 32) {
    const mask = width === 32 ? 0xffffffff : (1 << width) - 1;
    if (off + width <= 32) return ((w[limb]! >>> off) & mask) >>> 0;
    const lo = w[limb]! >>> off;
    const hi = w[limb + 1]! << (32 - off);
    return ((lo | hi) & mask) >>> 0;
  }
  // wide fields: low 32 bits, then the rest
  return getBits(w, pos, 32) + getBits(w, pos + 32, width - 32) * POW2_32;
}

/** Writes the low `width` bits of the non-negative integer `value` into [pos, pos+width). */
export function setBits(w: Word, pos: number, width: number, value: number): void {
  if (width > 32) {
    setBits(w, pos, 32, value % POW2_32);
    setBits(w, pos + 32, width - 32, Math.floor(value / POW2_32));
    return;
  }
  const limb = pos >>> 5;
  const off = pos & 31;
  const v = width === 32 ? value >>> 0 : (value & ((1 << width) - 1)) >>> 0;
  if (off + width <= 32) {
    const mask = (width === 32 ? 0xffffffff : ((1 << width) - 1) << off) >>> 0;
    w[limb] = ((w[limb]! & ~mask) | ((v << off) & mask)) >>> 0;
    return;
  }
  const loW = 32 - off;
  const loMask = (((1 << loW) - 1) << off) >>> 0;
  w[limb] = ((w[limb]! & ~loMask) | ((v << off) & loMask)) >>> 0;
  const hiW = width - loW;
  const hiMask = (1 << hiW) - 1;
  w[limb + 1] = ((w[limb + 1]! & ~hiMask) | ((v >>> loW) & hiMask)) >>> 0;
}

/** Two's-complement reinterpretation of an unsigned `width`-bit field value. */
/** 2 ** n for n in 0..64 (a table: `2 ** n` with a variable n is a Math.pow call on the codec's hot paths). */
export const POW2_TABLE: readonly number[] = Array.from({ length: 65 }, (_, i) => 2 ** i);

/** 2 ** n, exact; by table for 0..64. */
export function pow2(n: number): number {
  return n >= 0 && n <= 64 ? POW2_TABLE[n]! : 2 ** n;
}

export function toSigned(v: number, width: number): number {
  const half = pow2(width - 1);
  return v >= half ? v - 2 * half : v;
}

/** Low `width` bits of a (possibly negative) integer, as an unsigned number. */
export function toUnsigned(v: number, width: number): number {
  const m = pow2(width);
  return ((v % m) + m) % m;
}

function hex32(x: number): string {
  return (x >>> 0).toString(16).padStart(8, '0');
}

/** `0x` + 32 hex digits (most significant first) → word. Accepts shorter strings (zero-extended). */
export function wordFromHex(hex: string, bits = 128): Word {
  const h = hex.replace(/^0x/i, '').padStart(bits / 4, '0');
  const w = newWord(bits);
  const n = w.length;
  for (let i = 0; i < n; i++) w[i] = parseInt(h.slice(h.length - 8 * (i + 1), h.length - 8 * i), 16) >>> 0;
  return w;
}

/** Low and high 64-bit halves (as `0x...` strings) → 128-bit word. */
export function wordFromHalves(lo64: string, hi64: string): Word {
  const lo = lo64.replace(/^0x/i, '').padStart(16, '0');
  const hi = hi64.replace(/^0x/i, '').padStart(16, '0');
  return wordFromHex(hi + lo, 128);
}

export function wordToHex(w: Word): string {
  let s = '';
  for (let i = w.length - 1; i >= 0; i--) s += hex32(w[i]!);
  return '0x' + s;
}

export function wordsEqual(a: Word, b: Word): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Reads a little-endian word of `bits` bits from a byte buffer at `offset`. */
export function wordFromBytes(buf: Uint8Array, offset: number, bits = 128): Word {
  const w = newWord(bits);
  for (let i = 0; i < w.length; i++) {
    const o = offset + 4 * i;
    w[i] = (buf[o]! | (buf[o + 1]! << 8) | (buf[o + 2]! << 16) | (buf[o + 3]! << 24)) >>> 0;
  }
  return w;
}

export function wordToBytes(w: Word, out: Uint8Array, offset: number): void {
  for (let i = 0; i < w.length; i++) {
    const x = w[i]!;
    const o = offset + 4 * i;
    out[o] = x & 0xff;
    out[o + 1] = (x >>> 8) & 0xff;
    out[o + 2] = (x >>> 16) & 0xff;
    out[o + 3] = (x >>> 24) & 0xff;
  }
}
