import { flatten } from './analyze.js';
import { getBits, newWord, pow2, setBits, toSigned, toUnsigned, wordFromHex, type Word } from './bits.js';
import { NO_CONTROL, type ControlInfo } from './control.js';
import type { DecodedInstruction, MemOperand, RegFile, SassInstruction, SassOperand, UnknownInstruction } from './model.js';

/**
 * Generic table-driven codec. A family supplies its word layout (opcode field, guard, control) and a list
 * of rows; each row describes one printed form of one opcode:
 * - `op`: the opcode field value that selects the row, `name`/`sig`: mnemonic and operand shapes;
 * - `atoms`: where each number of the structured form lives (bit runs, low run first) and how it is stored;
 * - `slots`: groups of bits whose value selects a set of tokens (modifiers, operand flags, special names);
 * - `fixed`: tokens always printed by this row; `derived`: tokens nvdisasm prints as a function of other
 *   fields (IMAD.MOV when both factors are RZ), recomputed on decode and ignored on encode;
 * - `mask`/`value`: every bit no atom, slot, guard, opcode or control field claims must equal `value`.
 * A word that no row claims completely decodes as `unknown`.
 */
export type AtomEncoding = 'u' | 's' | 'f32' | 'f64h' | 'f16' | 'rel' | 'inv';

export interface AtomSpec {
  key: string;
  /** Bit runs [pos, width], least significant run first. */
  parts: [number, number][];
  enc: AtomEncoding;
  /** Stored value × scale = value (default 1). */
  scale?: number;
  /** Not stored: the form only exists with this value (a memory form without offset has `eq: 0`). */
  eq?: number;
  /** Not stored: always another atom's value plus `add` (LDGSTS prints desc[UR5] next to UR4). */
  from?: {
    key: string;
    add: number;
    /** With this token printed, add `ifAdd` more (ATOMS.CAS R10, R11 but ATOMS.CAS.64 R4, R6). */
    ifToken?: string;
    ifAdd?: number;
  };
}

export interface SlotSpec {
  bits: [number, number][];
  /** Slot value (decimal string) → tokens present. */
  map: Record<string, string[]>;
}

/**
 * `pow2`: the atom is a power of two, strictly between `gt` and `lt` when given (nvdisasm's IMAD.SHL.U32 alias:
 * 0x2 up to 0x8000; 0x1 is IMAD.MOV, 0x10000 prints as IMAD.U32).
 */
export type DerivedCondition = { atom: string; eq: number } | { token: string; has: boolean } | { atom: string; pow2: true; gt?: number; lt?: number };

export interface DerivedSpec {
  token: string;
  when: DerivedCondition[];
}

export interface RowSpec {
  archs: string[];
  op: number;
  name: string;
  sig: string;
  guard: 'P' | 'UP';
  atoms: AtomSpec[];
  slots: SlotSpec[];
  fixed: string[];
  derived: DerivedSpec[];
  /** Printing order of all tokens the row knows. */
  order: string[];
  /** Operand index → reuse flag bit (0..3) it prints as `.reuse`. */
  reuse?: Record<string, number>;
  /** nvdisasm hides these operand values (PT carry-outs): when every atom of one list has its value, a row
   * without those operands prints the word, not this one. */
  hide?: { key: string; eq: number }[][];
  /** Bit runs nvdisasm does not print; decoded into `SassInstruction.hidden`, default in `value`. */
  hidden?: [number, number][];
  mask: string;
  value: string;
}

export interface FamilyLayout {
  wordBits: number;
  opcode: [number, number];
  guardPred: [number, number];
  guardNot: number;
  /** Bytes between an instruction and the base of its relative branch offsets (the next instruction). */
  branchBase: number;
  readControl(w: Word): ControlInfo;
  writeControl(w: Word, c: ControlInfo): void;
}

export class SassEncodeError extends Error {
  constructor(
    readonly code: 'SASS_NO_ROW' | 'SASS_NO_FORM' | 'SASS_RANGE',
    message: string,
  ) {
    super(`${code}: ${message}`);
  }
}

/**
 * Fields wider than 52 bits (the Volta+ branch offsets: 50 bits at 32..81, or the sm_90 split word offset
 * D[7:0] in 16..23 and D>>8 in 34..81, 56 bits) are read as two 32-bit halves, so neither precision nor a
 * BigInt is needed; the value (sign-extended for signed encodings) must be a safe integer, else the field
 * does not decode (`NaN`). Fields up to 64 bits wide.
 */
export function readWideField(w: Word, parts: [number, number][], signed: boolean): number {
  let lo = 0;
  let hi = 0;
  let sh = 0;
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    let pos = p[0];
    let left = p[1];
    while (left > 0) {
      const m = left > 32 ? 32 : left;
      const x = getBits(w, pos, m);
      if (sh >= 32) hi = (hi | (x << (sh - 32))) >>> 0;
      else {
        lo = (lo | (x << sh)) >>> 0;
        if (sh + m > 32) hi = (hi | (x >>> (32 - sh))) >>> 0;
      }
      sh += m;
      pos += m;
      left -= m;
    }
  }
  const hiWidth = sh - 32;
  let h: number;
  if (signed) h = hiWidth >= 32 ? hi | 0 : (hi << (32 - hiWidth)) >> (32 - hiWidth);
  else h = hi;
  // |value| < 2^53: the high half must fit in 21 bits (signed: -2^21 <= h < 2^21)
  if (h >= 2097152 || h < -2097152) return NaN;
  return h * 4294967296 + lo;
}

/** Writes the integer `value` (negative: two's complement over the whole field) into bit runs of > 32 bits. */
export function writeWideField(w: Word, parts: [number, number][], value: number): void {
  const lo = ((value % 4294967296) + 4294967296) % 4294967296;
  const hi = Math.floor(value / 4294967296) >>> 0;
  let sh = 0;
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    let pos = p[0];
    let left = p[1];
    while (left > 0) {
      const m = left > 32 ? 32 : left;
      let x: number;
      if (sh >= 32) x = hi >>> (sh - 32);
      else {
        x = lo >>> sh;
        if (sh + m > 32) x = (x | (hi << (32 - sh))) >>> 0;
      }
      setBits(w, pos, m, m === 32 ? x >>> 0 : (x & ((1 << m) - 1)) >>> 0);
      sh += m;
      pos += m;
      left -= m;
    }
  }
}

/** Value of narrow bit runs (total <= 52 bits) without allocating. */
function readRunsNum(w: Word, parts: [number, number][]): number {
  if (parts.length === 1) return getBits(w, parts[0]![0], parts[0]![1]);
  let v = 0;
  let scale = 1;
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    v += getBits(w, p[0], p[1]) * scale;
    scale *= 2 ** p[1];
  }
  return v;
}

/**
 * Stored value of an atom's bit runs as `storeAtom` returns it: unsigned for fields up to 52 bits, signed
 * (two's complement over the field) for wider signed/relative fields (NaN when not a safe integer).
 */
export function readAtomField(w: Word, a: AtomSpec): number {
  const width = partsWidth(a.parts);
  if (width > 52) return readWideField(w, a.parts, a.enc === 's' || a.enc === 'rel');
  return readRunsNum(w, a.parts);
}

function partsWidth(parts: [number, number][]): number {
  let t = 0;
  for (const [, n] of parts) t += n;
  return t;
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
const f64 = new Float64Array(1);
const u32x2 = new Uint32Array(f64.buffer);

function halfToFloat(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const f = h & 0x3ff;
  if (e === 0) return s * f * 2 ** -24;
  if (e === 31) return f ? NaN : s * Infinity;
  return s * (1 + f / 1024) * 2 ** (e - 15);
}

function floatToHalf(v: number): number | undefined {
  if (Number.isNaN(v)) return 0x7fff;
  const sgn = v < 0 || Object.is(v, -0) ? 0x8000 : 0;
  const a = Math.abs(v);
  if (a === Infinity) return sgn | 0x7c00;
  if (a === 0) return sgn;
  // exact values only: find exponent/mantissa, then check the round trip
  let e = Math.floor(Math.log2(a));
  let h: number;
  if (e < -14) h = Math.round(a / 2 ** -24);
  else {
    if (e > 15) return undefined;
    const m = Math.round((a / 2 ** e - 1) * 1024);
    if (m === 1024) e++;
    h = ((e + 15) << 10) | (m === 1024 ? 0 : m);
  }
  return halfToFloat(h) === a ? sgn | h : undefined;
}

/** Stored field value of an atom, or undefined when it does not fit. */
export function storeAtom(a: AtomSpec, value: number, addr: number, branchBase: number, fieldWidth?: number): number | undefined {
  if (a.eq !== undefined) return value === a.eq ? 0 : undefined;
  // the field width, when the caller has it precomputed (the codec's compiled atoms), else summed here
  const width = fieldWidth ?? partsWidth(a.parts);
  const scale = a.scale ?? 1;
  switch (a.enc) {
    case 'inv':
      return value >= 0 && value < pow2(width) ? pow2(width) - 1 - value : undefined;
    case 'u': {
      if (value % scale !== 0) return undefined;
      const s = value / scale;
      // printed signed, stored two's complement
      if (s < 0) return width <= 52 && s >= -(pow2(width - 1)) ? toUnsigned(s, width) : undefined;
      return s < pow2(width) ? s : undefined;
    }
    case 's':
    case 'rel': {
      const raw = a.enc === 'rel' ? value - addr - branchBase : value;
      if (raw % scale !== 0) return undefined;
      const s = raw / scale;
      // wide fields hold the signed value itself (writeWideField stores two's complement over the field)
      if (width > 52) return Number.isSafeInteger(s) ? s : undefined;
      if (s < -(pow2(width - 1)) || s >= pow2(width)) return undefined;
      return toUnsigned(s, width);
    }
    case 'f32': {
      if (Number.isNaN(value)) return undefined;
      f32[0] = value;
      if (f32[0] !== value) return undefined;
      return u32[0]! >>> (32 - width);
    }
    case 'f64h': {
      if (Number.isNaN(value)) return undefined;
      f64[0] = value;
      if (u32x2[0] !== 0 && width >= 32) return undefined;
      return u32x2[1]! >>> (32 - width);
    }
    case 'f16': {
      // A field narrower than 16 bits keeps the top `width` bits of the half (Maxwell HADD2 immediates: 10).
      const h = floatToHalf(value);
      if (h === undefined || width >= 16) return h;
      const drop = 16 - width;
      return h % pow2(drop) === 0 ? h / pow2(drop) : undefined;
    }
  }
}

export function loadAtom(a: AtomSpec, stored: number, width: number, addr: number, branchBase: number): number {
  if (a.eq !== undefined) return a.eq;
  const scale = a.scale ?? 1;
  switch (a.enc) {
    case 'inv':
      return pow2(width) - 1 - stored;
    case 'u':
      return stored * scale;
    case 's':
      return (width > 52 ? stored : toSigned(stored, width)) * scale;
    case 'rel':
      return addr + branchBase + (width > 52 ? stored : toSigned(stored, width)) * scale;
    case 'f32':
      u32[0] = width >= 32 ? stored : stored * pow2(32 - width);
      return f32[0]!;
    case 'f64h':
      u32x2[0] = 0;
      u32x2[1] = width >= 32 ? stored : stored * pow2(32 - width);
      return f64[0]!;
    case 'f16':
      return halfToFloat(width >= 16 ? stored : stored * pow2(16 - width));
  }
}

export interface CodecOptions {
  /** Archs in lookup order: rows of the first arch are tried first, then rows of the next (per-arch deltas). */
  archs: string[];
  layout: FamilyLayout;
  rows: RowSpec[];
  /**
   * Remember each instruction form's row choice (default true). Off, every encode searches the rows in full:
   * for tests that the cache changes no result.
   */
  formCache?: boolean;
}

export interface TokenAction {
  /** Mnemonic modifier text, or undefined for an operand token. */
  mod?: string;
  op: number;
  kind: string;
  rest: string;
}

/** Parses a token name once (`m:X`, `2:neg`, `1.H0_H0`, `0=SR_TID.X`). */
export function tokenAction(t: string): TokenAction | undefined {
  if (t.startsWith('m:')) return { mod: t.slice(2).replace(/[#^].*$/, ''), op: -1, kind: 'm', rest: '' };
  const m = /^(\d+)([:.=])(.*)$/.exec(t);
  if (!m) return undefined;
  let rest = m[3]!;
  const h = rest.indexOf('#');
  if (h >= 0 && m[2] !== '=') rest = rest.slice(0, h);
  return { op: Number(m[1]), kind: m[2]!, rest };
}

export function applyOperandToken(ops: SassOperand[], a: TokenAction): void {
  const o = ops[a.op];
  if (!o) return;
  const kind = a.kind;
  const rest = a.rest;
  if (kind === '=') {
    if (o.k === 'name') o.name = rest;
    else if (o.k === 'float') o.nan = rest;
    return;
  }
  if (kind === ':') {
    const fl = o as { neg?: boolean; abs?: boolean; not?: boolean; reuse?: boolean; sfxOutsideAbs?: boolean };
    if (rest === 'neg') fl.neg = true;
    else if (rest === 'abs') fl.abs = true;
    else if (rest === 'not') fl.not = true;
    else if (rest === 'reuse') fl.reuse = true;
    else if (rest === 'sfxout') fl.sfxOutsideAbs = true;
    return;
  }
  if (o.k === 'mem') (o.baseSfx ??= []).push(rest);
  else if (o.k === 'reg' || o.k === 'cbank') (o.sfx ??= []).push(rest);
}

/** Count of known / unknown words and bit-identical re-encodings. */
export interface RoundTripStats {
  words: number;
  known: number;
  identical: number;
}

export function isKnown(d: DecodedInstruction): d is SassInstruction {
  return !(d as UnknownInstruction).unknown;
}
