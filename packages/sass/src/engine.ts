import { flatten } from './analyze.js';
import { getBits, newWord, setBits, toSigned, toUnsigned, wordFromHex, type Word } from './bits.js';
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
  from?: { key: string; add: number };
}

export interface SlotSpec {
  bits: [number, number][];
  /** Slot value (decimal string) → tokens present. */
  map: Record<string, string[]>;
}

export type DerivedCondition = { atom: string; eq: number } | { token: string; has: boolean } | { atom: string; pow2: true };

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

interface CompiledSlot {
  bits: [number, number][];
  decode: Map<number, number[]>;
  /** Sorted token ids joined by ',' → slot value. */
  encode: Map<string, number>;
  tokens: Set<number>;
}

interface CompiledRow {
  spec: RowSpec;
  mask: Uint32Array;
  /** value & mask: what the constant bits must read. */
  check: Uint32Array;
  /** Starting bits of an encoding (constant bits and the defaults of hidden fields). */
  value: Uint32Array;
  atoms: AtomSpec[];
  /** Total width of each atom's bit runs. */
  widths: number[];
  slots: CompiledSlot[];
  fixed: number[];
  derived: { token: number; when: DerivedCondition[]; whenTok: { id: number; has: boolean }[] }[];
  derivedIds: Set<number>;
  order: number[];
  shapes: string[];
  /** Bits this row claims (atoms + slots + guard + opcode + control) — for the coverage check. */
  specificity: number;
}

function popcount32(x: number): number {
  let c = 0;
  for (let v = x >>> 0; v; v &= v - 1) c++;
  return c;
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

function writeParts(w: Word, parts: [number, number][], value: number, width: number): void {
  if (width > 52) {
    writeWideField(w, parts, value);
    return;
  }
  let v = value;
  for (const [p, n] of parts) {
    const m = 2 ** n;
    setBits(w, p, n, v % m);
    v = Math.floor(v / m);
  }
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
export function storeAtom(a: AtomSpec, value: number, addr: number, branchBase: number): number | undefined {
  if (a.eq !== undefined) return value === a.eq ? 0 : undefined;
  const width = partsWidth(a.parts);
  const scale = a.scale ?? 1;
  switch (a.enc) {
    case 'inv':
      return value >= 0 && value < 2 ** width ? 2 ** width - 1 - value : undefined;
    case 'u': {
      if (value % scale !== 0) return undefined;
      const s = value / scale;
      // printed signed, stored two's complement
      if (s < 0) return width <= 52 && s >= -(2 ** (width - 1)) ? toUnsigned(s, width) : undefined;
      return s < 2 ** width ? s : undefined;
    }
    case 's':
    case 'rel': {
      const raw = a.enc === 'rel' ? value - addr - branchBase : value;
      if (raw % scale !== 0) return undefined;
      const s = raw / scale;
      // wide fields hold the signed value itself (writeWideField stores two's complement over the field)
      if (width > 52) return Number.isSafeInteger(s) ? s : undefined;
      if (s < -(2 ** (width - 1)) || s >= 2 ** width) return undefined;
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
      return h % 2 ** drop === 0 ? h / 2 ** drop : undefined;
    }
  }
}

export function loadAtom(a: AtomSpec, stored: number, width: number, addr: number, branchBase: number): number {
  if (a.eq !== undefined) return a.eq;
  const scale = a.scale ?? 1;
  switch (a.enc) {
    case 'inv':
      return 2 ** width - 1 - stored;
    case 'u':
      return stored * scale;
    case 's':
      return (width > 52 ? stored : toSigned(stored, width)) * scale;
    case 'rel':
      return addr + branchBase + (width > 52 ? stored : toSigned(stored, width)) * scale;
    case 'f32':
      u32[0] = width >= 32 ? stored : stored * 2 ** (32 - width);
      return f32[0]!;
    case 'f64h':
      u32x2[0] = 0;
      u32x2[1] = width >= 32 ? stored : stored * 2 ** (32 - width);
      return f64[0]!;
    case 'f16':
      return halfToFloat(width >= 16 ? stored : stored * 2 ** (16 - width));
  }
}

/** Token strings are interned to small integers so decoding allocates little. */
class TokenTable {
  readonly ids = new Map<string, number>();
  readonly names: string[] = [];
  id(t: string): number {
    let i = this.ids.get(t);
    if (i === undefined) {
      i = this.names.length;
      this.names.push(t);
      this.ids.set(t, i);
    }
    return i;
  }
}

function ilog2exact(x: number): boolean {
  return x > 0 && Number.isInteger(Math.log2(x));
}

export interface CodecOptions {
  /** Archs in lookup order: rows of the first arch are tried first, then rows of the next (per-arch deltas). */
  archs: string[];
  layout: FamilyLayout;
  rows: RowSpec[];
}

/** Encoder and decoder of one arch over a family table. */
export class TableCodec {
  private readonly byOp = new Map<number, CompiledRow[]>();
  private readonly byKey = new Map<string, CompiledRow[]>();
  private readonly tok = new TokenTable();
  private readonly actions: (TokenAction | null | undefined)[] = [];
  readonly layout: FamilyLayout;
  readonly archs: string[];

  constructor(opts: CodecOptions) {
    this.layout = opts.layout;
    this.archs = opts.archs;
    const rank = new Map(opts.archs.map((a, i) => [a, i]));
    const ranked: { row: CompiledRow; r: number; i: number }[] = [];
    opts.rows.forEach((spec, i) => {
      let r = Infinity;
      for (const a of spec.archs) r = Math.min(r, rank.get(a) ?? Infinity);
      if (r === Infinity) return;
      ranked.push({ row: this.compile(spec), r, i });
    });
    // Preferred arch first; inside an arch, the most specific row (most constant bits) first.
    ranked.sort((a, b) => a.r - b.r || b.row.specificity - a.row.specificity || a.i - b.i);
    for (const { row } of ranked) {
      const l = this.byOp.get(row.spec.op) ?? [];
      l.push(row);
      this.byOp.set(row.spec.op, l);
      const key = row.spec.name + ' ' + row.spec.sig;
      const k = this.byKey.get(key) ?? [];
      k.push(row);
      this.byKey.set(key, k);
    }
  }

  private compile(spec: RowSpec): CompiledRow {
    for (const a of spec.atoms)
      if (partsWidth(a.parts) > 64) throw new Error(`SASS_TABLE: ${spec.name} ${spec.sig}: atom ${a.key} is wider than 64 bits`);
    const mask = wordFromHex(spec.mask, this.layout.wordBits);
    const value = wordFromHex(spec.value, this.layout.wordBits);
    let specificity = 0;
    for (const x of mask) specificity += popcount32(x);
    const slots = spec.slots.map((s): CompiledSlot => {
      const decode = new Map<number, number[]>();
      const encode = new Map<string, number>();
      const tokens = new Set<number>();
      for (const [k, ts] of Object.entries(s.map)) {
        const ids = ts.map((t) => this.tok.id(t)).sort((a, b) => a - b);
        for (const i of ids) tokens.add(i);
        decode.set(Number(k), ids);
        if (!encode.has(ids.join(','))) encode.set(ids.join(','), Number(k));
      }
      return { bits: s.bits, decode, encode, tokens };
    });
    const derived = spec.derived.map((d) => ({
      token: this.tok.id(d.token),
      when: d.when,
      whenTok: d.when.filter((c): c is { token: string; has: boolean } => 'token' in c).map((c) => ({ id: this.tok.id(c.token), has: c.has })),
    }));
    const check = new Uint32Array(mask.length);
    for (let i = 0; i < mask.length; i++) check[i] = (mask[i]! & value[i]!) >>> 0;
    return {
      spec,
      mask,
      check,
      value,
      atoms: spec.atoms,
      widths: spec.atoms.map((a) => partsWidth(a.parts)),
      slots,
      fixed: spec.fixed.map((t) => this.tok.id(t)),
      derived,
      derivedIds: new Set(derived.map((d) => d.token)),
      order: spec.order.map((t) => this.tok.id(t)),
      shapes: spec.sig === '' ? [] : spec.sig.split(','),
      specificity,
    };
  }

  /** Number of rows this codec can use. */
  get rowCount(): number {
    let n = 0;
    for (const l of this.byOp.values()) n += l.length;
    return n;
  }

  decode(w: Word, addr = 0): DecodedInstruction {
    const L = this.layout;
    const op = getBits(w, L.opcode[0], L.opcode[1]);
    const rows = this.byOp.get(op);
    const control = L.readControl(w);
    if (!rows) return { unknown: true, opcodeField: op, reason: 'no table row for this opcode', control };
    const n = w.length;
    outer: for (const row of rows) {
      for (let i = 0; i < n; i++) if (((w[i]! & row.mask[i]!) >>> 0) !== row.check[i]) continue outer;
      const present: number[] = row.fixed.slice();
      for (const s of row.slots) {
        const v = readRunsNum(w, s.bits);
        const ts = s.decode.get(v);
        if (!ts) continue outer;
        for (const t of ts) present.push(t);
      }
      const atoms = new Map<string, number>();
      const widths = row.widths;
      for (let k = 0; k < row.atoms.length; k++) {
        const a = row.atoms[k]!;
        if (a.from) continue;
        const width = widths[k]!;
        if (width > 52) {
          const stored = readWideField(w, a.parts, a.enc === 's' || a.enc === 'rel');
          if (Number.isNaN(stored)) continue outer;
          atoms.set(a.key, loadAtom(a, stored, width, addr, L.branchBase));
        } else atoms.set(a.key, loadAtom(a, readRunsNum(w, a.parts), width, addr, L.branchBase));
      }
      for (const a of row.atoms) if (a.from) atoms.set(a.key, (atoms.get(a.from.key) ?? 0) + a.from.add);
      if (row.spec.hide) {
        for (const h of row.spec.hide) {
          let all = true;
          for (const c of h) if (atoms.get(c.key) !== c.eq) all = false;
          if (all) continue outer;
        }
      }
      const presentSet = new Set(present);
      for (const d of row.derived) if (this.holds(d.when, d.whenTok, atoms, presentSet)) presentSet.add(d.token);
      const ins = this.build(row, atoms, presentSet, getBits(w, L.guardPred[0], L.guardPred[1]), getBits(w, L.guardNot, 1) === 1);
      if (row.spec.hidden) {
        ins.hidden = {};
        for (const [p, n] of row.spec.hidden) ins.hidden[`${p}:${n}`] = getBits(w, p, n);
      }
      if (row.spec.reuse && control.reuse) {
        for (const [i, bit] of Object.entries(row.spec.reuse)) {
          const o = ins.operands[Number(i)];
          if (o && control.reuse & (1 << bit) && (o.k === 'reg' || o.k === 'cbank')) (o as { reuse?: boolean }).reuse = true;
        }
      }
      ins.control = control;
      return ins;
    }
    return { unknown: true, opcodeField: op, reason: 'bits no table row claims', control };
  }

  /**
   * Why a word is unknown, for table work: per candidate row of its opcode, the constant bits that differ
   * and the slot values the row does not list. Closest rows first.
   */
  explain(w: Word): { row: string; archs: string[]; badBits: number[]; badSlots: string[] }[] {
    const op = getBits(w, this.layout.opcode[0], this.layout.opcode[1]);
    const out: { row: string; archs: string[]; badBits: number[]; badSlots: string[] }[] = [];
    for (const row of this.byOp.get(op) ?? []) {
      const badBits: number[] = [];
      for (let b = 0; b < w.length * 32; b++) {
        const i = b >>> 5;
        const m = 1 << (b & 31);
        if (row.mask[i]! & m && (w[i]! & m) !== (row.value[i]! & m)) badBits.push(b);
      }
      const badSlots: string[] = [];
      for (const sl of row.slots) {
        const v = readRunsNum(w, sl.bits);
        if (!sl.decode.has(v)) badSlots.push(`${JSON.stringify(sl.bits)}=${v}`);
      }
      out.push({ row: `${row.spec.name} ${row.spec.sig}`, archs: row.spec.archs, badBits, badSlots });
    }
    return out.sort((a, b) => a.badBits.length + a.badSlots.length - b.badBits.length - b.badSlots.length);
  }

  private holds(when: DerivedCondition[], whenTok: { id: number; has: boolean }[], atoms: Map<string, number>, present: Set<number>): boolean {
    for (const c of when) {
      if ('eq' in c) {
        if (atoms.get(c.atom) !== c.eq) return false;
      } else if ('pow2' in c) {
        if (!ilog2exact(atoms.get(c.atom) ?? -1)) return false;
      }
    }
    for (const c of whenTok) if (present.has(c.id) !== c.has) return false;
    return true;
  }

  private build(row: CompiledRow, atoms: Map<string, number>, present: Set<number>, gN: number, gNot: boolean): SassInstruction {
    const ins: SassInstruction = { opcode: row.spec.name, mods: [], operands: [] };
    if (gN !== 7 || gNot) ins.guard = { file: row.spec.guard, n: gN, not: gNot };
    const ops: SassOperand[] = row.shapes.map((sh, i) => {
      const spaced = sh.startsWith('_');
      const shape = spaced ? sh.slice(1) : sh;
      let o: SassOperand;
      switch (shape) {
        case 'R':
        case 'UR':
        case 'P':
        case 'UP':
        case 'B':
          o = { k: 'reg', file: shape as RegFile, n: atoms.get(String(i)) ?? 0 };
          break;
        case 'I':
          o = { k: 'int', v: atoms.get(String(i)) ?? 0 };
          break;
        case 'F': {
          const v = atoms.get(String(i)) ?? 0;
          o = Number.isNaN(v) ? { k: 'float', v, nan: '+QNAN' } : { k: 'float', v };
          break;
        }
        case 'C':
        case 'Cr':
        case 'Cu':
          o = { k: 'cbank', bank: atoms.get(`${i}.b`) ?? 0, off: atoms.get(`${i}.o`) ?? 0 };
          if (shape !== 'C') o.reg = { file: shape === 'Cr' ? 'R' : 'UR', n: atoms.get(`${i}.r`) ?? 0 };
          break;
        case 'N':
          o = { k: 'name', name: '' };
          break;
        default: {
          const m: MemOperand = { k: 'mem', base: 255, off: 0 };
          if (shape === 'Mg') {
            m.gdesc = true;
            m.ur = atoms.get(`${i}.u`) ?? 63;
          } else if (shape === 'Mx') {
            m.descOnly = true;
            m.desc = atoms.get(`${i}.d`) ?? 63;
          } else {
            if (shape.includes('d')) m.desc = atoms.get(`${i}.d`) ?? 63;
            m.base = atoms.get(`${i}.b`) ?? 255;
            if (shape.includes('u')) m.ur = atoms.get(`${i}.u`) ?? 63;
            m.off = atoms.get(`${i}.o`) ?? 0;
          }
          o = m;
        }
      }
      if (spaced) o.sep = ' ';
      return o;
    });
    const actions = this.actions;
    for (const id of row.order) {
      if (!present.has(id)) continue;
      let a = actions[id];
      if (a === undefined) a = actions[id] = tokenAction(this.tok.names[id]!) ?? null;
      if (!a) continue;
      if (a.mod !== undefined) ins.mods.push(a.mod);
      else applyOperandToken(ops, a);
    }
    ins.operands = ops;
    return ins;
  }

  /** Encodes a structured instruction; throws SassEncodeError when no row of this arch can hold it. */
  encode(ins: SassInstruction, addr = 0): Word {
    const flat = flatten(ins);
    const rows = this.byKey.get(flat.opcode + ' ' + flat.sig);
    if (!rows) throw new SassEncodeError('SASS_NO_ROW', `no ${this.archs[0]} table row for '${flat.opcode}' with operands (${flat.sig})`);
    const ids: number[] = [];
    const reuseOps: number[] = [];
    for (const t of flat.tokens) {
      if (t.endsWith(':reuse')) {
        reuseOps.push(Number(t.slice(0, t.indexOf(':'))));
        continue;
      }
      const id = this.tok.ids.get(t);
      if (id === undefined) throw new SassEncodeError('SASS_NO_FORM', `${this.archs[0]}: '${t}' is not known for ${flat.opcode}`);
      ids.push(id);
    }
    let why = '';
    rowLoop: for (const row of rows) {
      if (flat.guardFile !== row.spec.guard && flat.guardN !== 7) continue;
      const want = new Set(ids);
      for (const d of row.derivedIds) want.delete(d);
      for (const f of row.fixed) {
        if (!want.has(f)) {
          why = `missing .${this.tok.names[f]}`;
          continue rowLoop;
        }
        want.delete(f);
      }
      let reuse = ins.control?.reuse ?? 0;
      for (const i of reuseOps) {
        const bit = row.spec.reuse?.[String(i)];
        if (bit === undefined) {
          why = `operand ${i} has no reuse flag in this form`;
          continue rowLoop;
        }
        reuse |= 1 << bit;
      }
      const w = newWord(this.layout.wordBits);
      for (let i = 0; i < w.length; i++) w[i] = row.value[i]!;
      for (const s of row.slots) {
        const mine: number[] = [];
        for (const id of want) if (s.tokens.has(id)) mine.push(id);
        mine.sort((a, b) => a - b);
        const v = s.encode.get(mine.join(','));
        if (v === undefined) {
          why = `modifier combination not in table`;
          continue rowLoop;
        }
        for (const id of mine) want.delete(id);
        writeParts(w, s.bits, v, 0);
      }
      if (want.size) {
        why = `unsupported ${[...want].map((i) => this.tok.names[i]).join(' ')}`;
        continue;
      }
      for (const a of row.atoms) {
        const v = flat.atoms.get(a.key);
        if (v === undefined) continue rowLoop;
        if (a.from) {
          if (v !== (flat.atoms.get(a.from.key) ?? NaN) + a.from.add) {
            why = `operand ${a.key} must be ${a.from.key}+${a.from.add}`;
            continue rowLoop;
          }
          continue;
        }
        const st = storeAtom(a, v, addr, this.layout.branchBase);
        if (st === undefined) {
          why = `value ${v} of operand ${a.key} does not fit`;
          continue rowLoop;
        }
        writeParts(w, a.parts, st, partsWidth(a.parts));
      }
      if (row.spec.hidden && ins.hidden) {
        for (const [p, n] of row.spec.hidden) {
          const v = ins.hidden[`${p}:${n}`];
          if (v !== undefined) setBits(w, p, n, v);
        }
      }
      setBits(w, this.layout.opcode[0], this.layout.opcode[1], row.spec.op);
      setBits(w, this.layout.guardPred[0], this.layout.guardPred[1], flat.guardN);
      setBits(w, this.layout.guardNot, 1, flat.guardNot ? 1 : 0);
      this.layout.writeControl(w, { ...(ins.control ?? NO_CONTROL), reuse });
      return w;
    }
    throw new SassEncodeError('SASS_NO_FORM', `${this.archs[0]}: no table row encodes '${ins.opcode}${ins.mods.map((m) => '.' + m).join('')}' (${flat.sig}): ${why}`);
  }
}

interface TokenAction {
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

function applyOperandToken(ops: SassOperand[], a: TokenAction): void {
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
