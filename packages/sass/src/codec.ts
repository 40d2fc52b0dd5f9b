import { flatten } from './analyze.js';
import { getBits, setBits, wordFromHex, type Word } from './bits.js';
import type { ControlInfo } from './control.js';
import {
  applyOperandToken,
  loadAtom,
  readWideField,
  SassEncodeError,
  storeAtom,
  tokenAction,
  writeWideField,
  type AtomSpec,
  type CodecOptions,
  type FamilyLayout,
  type RowSpec,
  type TokenAction,
} from './engine.js';
import type { DecodedInstruction, Guard, MemOperand, RegFile, SassInstruction, SassOperand } from './model.js';

/**
 * The table codec, compiled for speed: every row's bit fields become limb-local shift/mask chunks, atoms
 * live in a scratch array indexed by position (no per-word maps), token presence is a generation stamp per
 * interned token (no per-word sets), and operands are built from per-row templates. Encoding reads the
 * structured instruction directly (no flattening into strings) and selects rows by mnemonic and shape codes.
 */

const POW2: number[] = Array.from({ length: 65 }, (_, i) => 2 ** i);

/** Bit runs compiled to chunks that never cross a 32-bit limb: [limb, shift, mask, dst] per chunk. */
interface Field {
  c: number[];
  width: number;
  parts: [number, number][];
}

function compileField(parts: [number, number][]): Field {
  const c: number[] = [];
  let dst = 0;
  for (const [p0, n0] of parts) {
    let p = p0;
    let n = n0;
    while (n > 0) {
      const off = p & 31;
      const m = Math.min(n, 32 - off);
      c.push(p >>> 5, off, m === 32 ? 0xffffffff : (1 << m) - 1, dst);
      dst += m;
      p += m;
      n -= m;
    }
  }
  return { c, width: dst, parts };
}

/** Unsigned value of a field of at most 52 bits. */
function readField(w: Word, f: Field): number {
  const c = f.c;
  if (c.length === 4) return ((w[c[0]!]! >>> c[1]!) & c[2]!) >>> 0;
  let v = 0;
  for (let k = 0; k < c.length; k += 4) v += (((w[c[k]!]! >>> c[k + 1]!) & c[k + 2]!) >>> 0) * POW2[c[k + 3]!]!;
  return v;
}

/** Writes a non-negative value below 2^width (width <= 52). */
function writeField(w: Word, f: Field, v: number): void {
  const c = f.c;
  if (c.length === 4 && f.width <= 32) {
    // one chunk (most fields): no loop
    const limb = c[0]!;
    const off = c[1]!;
    const mask = c[2]!;
    w[limb] = ((w[limb]! & ~(mask << off)) | ((v & mask) << off)) >>> 0;
    return;
  }
  const small = f.width <= 32;
  for (let k = 0; k < c.length; k += 4) {
    const limb = c[k]!;
    const off = c[k + 1]!;
    const mask = c[k + 2]!;
    const x = small ? (v >>> c[k + 3]!) & mask : Math.floor(v / POW2[c[k + 3]!]!) & mask;
    w[limb] = ((w[limb]! & ~(mask << off)) | (x << off)) >>> 0;
  }
}

interface CSlot {
  f: Field;
  /** value → token ids, as an array when the slot is at most 10 bits wide. */
  arr?: (number[] | undefined)[];
  map?: Map<number, number[]>;
  tokens: Set<number>;
  /** Sorted token ids (up to 3) as a number → slot value; longer sets by joined string. */
  encNum: Map<number, number>;
  encStr: Map<string, number>;
  /** The value for no token (most slots of most words), or -1: skips the map on the common path. */
  enc0: number;
  /** The field as one limb-local chunk (limb >= 0), else limb -1 (see CAtom). */
  limb: number;
  off: number;
  mask: number;
}

/** Limb, shift and mask of a field that is one chunk of at most 32 bits, else limb -1. */
function oneChunk(f: Field): { limb: number; off: number; mask: number } {
  return f.c.length === 4 && f.width <= 32 ? { limb: f.c[0]!, off: f.c[1]!, mask: f.c[2]! } : { limb: -1, off: 0, mask: 0 };
}

interface CAtom {
  spec: AtomSpec;
  f: Field;
  wide: boolean;
  signedWide: boolean;
  from: number;
  fromAdd: number;
  /** Token id whose presence adds fromIfAdd (-1: none). */
  fromIfTok: number;
  fromIfAdd: number;
  /** Unsigned, unscaled, at most 31 bits: values 0..max-1 store as themselves. */
  plainU: boolean;
  /** Signed, unscaled, at most 31 bits: two's complement of -max/2..max/2-1. */
  plainS: boolean;
  max: number;
  /** Operand index and part ('' n/v, b, o, u, d, r) the value comes from when encoding. */
  op: number;
  part: string;
  /** `part` as a number (PART_*), for the encoder's switch. */
  partCode: number;
  /** spec.from / spec.eq copied onto this (one shape for all atoms: the specs' shapes vary, so loads from them are slow). */
  isFrom: boolean;
  hasEq: boolean;
  eq: number;
  /** The field as one limb-local chunk (limb >= 0), copied here so the encoder touches only this object; else limb -1. */
  limb: number;
  off: number;
  mask: number;
}

const PART_CODES: Record<string, number> = { '': 0, b: 1, o: 2, u: 3, d: 4, r: 5 };

const enum Shape {
  R = 1,
  UR,
  P,
  UP,
  B,
  I,
  F,
  C,
  Cr,
  Cu,
  N,
  M,
  Md,
  Mu,
  Mdu,
  Mg,
  Mx,
}

const SHAPES: Record<string, Shape> = {
  R: Shape.R,
  UR: Shape.UR,
  P: Shape.P,
  UP: Shape.UP,
  B: Shape.B,
  I: Shape.I,
  F: Shape.F,
  C: Shape.C,
  Cr: Shape.Cr,
  Cu: Shape.Cu,
  N: Shape.N,
  M: Shape.M,
  Md: Shape.Md,
  Mu: Shape.Mu,
  Mdu: Shape.Mdu,
  Mg: Shape.Mg,
  Mx: Shape.Mx,
};
const SPACED = 64;
const REG_SHAPES: Partial<Record<RegFile, Shape>> = { R: Shape.R, UR: Shape.UR, P: Shape.P, UP: Shape.UP, B: Shape.B };

/** Operand template: which atoms fill it when decoding. */
interface OpTpl {
  shape: Shape;
  spaced: boolean;
  /** Atom indices (-1 = absent): main value / bank / offset / index register / UR term / desc. */
  a: number;
  b: number;
  o: number;
  r: number;
  u: number;
  d: number;
}

interface CRow {
  spec: RowSpec;
  mask: Uint32Array;
  check: Uint32Array;
  value: Uint32Array;
  specificity: number;
  slots: CSlot[];
  atoms: CAtom[];
  fromAtoms: number[];
  fixed: number[];
  derived: { token: number; atomConds: { idx: number; eq?: number; pow2?: boolean; gt?: number; lt?: number }[]; tokConds: { id: number; has: boolean }[] }[];
  derivedIds: Set<number>;
  /** Token id → the slot holding it (index), ROLE_FIXED or ROLE_DERIVED; absent = this row cannot print it. */
  tokRole: Map<number, number>;
  /** spec.guard (the guard's register file). */
  guard: 'P' | 'UP';
  /**
   * tokRole as a small open-addressing table for the encoder: per entry [id + 1 (0 = empty), role, the value
   * of its slot when it is that slot's only token (-1: none)]; roleMask + 1 entries, at least twice the
   * tokens. (A table over all token ids per row took ~18 KB a row and a cache miss per lookup.)
   */
  roleTab: Int32Array;
  roleMask: number;
  /** value + opcode with every slot's no-token value already written (when no two slots overlap), else undefined. */
  base: Uint32Array | undefined;
  hide: { idx: number; eq: number }[][] | undefined;
  tpl: OpTpl[];
  shapes: number[];
  acts: { id: number; act: TokenAction }[];
  reuse: [number, number][];
  hidden: [number, number, string][] | undefined;
  /** The atoms as one flat program for the form-cache encoder (AP numbers each), built on first use. */
  prog: Float64Array | undefined;
}

/**
 * Rows of a mnemonic by operand shape codes, one trie level per operand (array-indexed: no hashing per
 * encode). A node's rows are spec indices (`ks`, read from the signatures without compiling), compiled on
 * the first encoding that reaches the node.
 */
interface FormNode {
  next: (FormNode | undefined)[] | undefined;
  ks: number[] | undefined;
  rows: CRow[] | undefined;
  /** Row choices already made at this leaf (see FormCacheEntry), most recently used first. */
  cache: FormCacheEntry[] | undefined;
}

/**
 * What the encoder decided for one instruction form: everything but the operand values. A form is the trie
 * leaf (mnemonic + operand shapes) plus the form key: guard register file, the modifiers, and per operand its
 * flags (neg, abs, not, reuse, ...) and token strings (suffixes, special names, NaN spelling). The token and
 * slot phase of the row search depends on nothing else, so instructions of a known form skip it: they start
 * from the word with the row's slots written and store only their values (register numbers, immediates).
 * A value that does not fit the cached row sends the instruction down the full row search (a later row may
 * hold it), so the result is always the full search's.
 */
interface FormCacheEntry {
  /** The form: guard code (0 none or PT, 1 P, 2 UP), modifiers, operand flags, operand token strings. */
  gcode: number;
  mods: string[];
  flags: Int32Array;
  /** The operands' token strings in order (names, suffix lists with their lengths, NaN spellings); undefined: none. */
  strs: (string | number)[] | undefined;
  row: CRow;
  /** value + opcode + every slot's value: the word before atoms, guard and control. */
  word: Uint32Array;
  /** Reuse bits of the operands flagged reuse (control.reuse is ORed in per instruction). */
  reuseAdd: number;
  /** Per atom that must equal another atom: the constant added (its token-dependent part resolved). */
  fromAdd: Float64Array;
}

/**
 * Most forms one trie leaf caches: a leaf's forms are searched linearly (most recently used first), so this
 * bounds the search and the memory an adversarial stream of modifier combinations takes; further forms take
 * the full row search every time.
 */
const FORM_CACHE_MAX = 16;

/** Atom program (CRow.prog): per atom, these many numbers. */
const AP = 8;
/** Atom program kinds: stored by storeAtom, plain unsigned / signed (inline range check), equal-plus constraint. */
const AK_GENERIC = 0;
const AK_PLAIN_U = 1;
const AK_PLAIN_S = 2;
const AK_FROM = 3;

const HIDDEN = Symbol('hidden by a shorter row');
const OP_TOKEN_KIND = [':', '.', '='] as const;
const ROLE_FIXED = -2;
const ROLE_DERIVED = -1;
/** Operand flags read once per encode. */
const F_NEG = 1;
const F_ABS = 2;
const F_NOT = 4;
const F_REUSE = 8;
const F_SFXOUT = 16;
const F_SFX = 32;
const F_NAN = 64;

const TYPE_RE = /^(U|S|F|BF|TF)\d+$/;

function popcount32(x: number): number {
  let c = 0;
  for (let v = x >>> 0; v; v &= v - 1) c++;
  return c;
}

function ilog2exact(x: number): boolean {
  return x > 0 && Number.isInteger(Math.log2(x));
}

function partsWidth(parts: [number, number][]): number {
  let t = 0;
  for (const [, n] of parts) t += n;
  return t;
}

/** Encoder and decoder of one arch over a family table. */
export class TableCodec {
  private readonly byOp = new Map<number, CRow[]>();
  /** Mnemonic → trie over the operands' shape codes → rows, in lookup order. */
  private readonly byForm = new Map<string, FormNode | null>();
  private readonly tokIds = new Map<string, number>();
  private readonly tokNames: string[] = [];
  private stamp: Uint32Array = new Uint32Array(0);
  private gen = 0;
  private vals = new Float64Array(64);
  private stores = new Float64Array(64);
  private slotVals = new Float64Array(64);
  /** Per slot of the row being tried: its value when its one wanted token is the last one bucketed. */
  private slotOne = new Int32Array(64);
  private buckets: Int32Array[] = [];
  private bucketLen = new Int32Array(64);
  /** Wanted token ids of the instruction being encoded: the first nWanted entries (grown when full). */
  private wanted = new Int32Array(256);
  private nWanted = 0;
  /** The operand token strings of the instruction being encoded (FormCacheEntry.strs). */
  private strScratch: (string | number)[] = [];
  /** Detail of the last storeAtoms failure, for the error message. */
  private whyData: number | string = 0;
  /** The modifiers of the word being decoded (copied out at their count). */
  private readonly modScratch: string[] = [];
  /** Per operand of the instruction being encoded, read once: shape code, token flags, part values. */
  private opShape = new Int32Array(16);
  private opFlags = new Int32Array(16);
  private opVal = new Float64Array(16 * 6);
  /** opHas[j] === opGen: part j was read for the instruction being encoded (no clearing per operand). */
  private opHas = new Uint32Array(16 * 6);
  private opGen = 0;
  /** Encoding token caches: mnemonic modifier → ids (index 0 plain, 1 + rank for data types). */
  private readonly modIds = new Map<string, { isType: boolean; ids: number[] }>();
  private readonly opTok: Map<string, number>[][] = [];
  readonly layout: FamilyLayout;
  readonly archs: string[];
  private readonly formCache: boolean;
  private readonly guardFast: boolean;
  private readonly guardLimb: number;
  private readonly guardShift: number;
  private readonly guardNotShift: number;
  private readonly guardMask: number;
  private readonly guardValMask: number;

  /** Row specs of this codec's archs, by opcode field and by mnemonic; rows compile on first use. */
  private readonly specs: { spec: RowSpec; r: number; i: number; specificity: number }[] = [];
  private readonly specsByOp = new Map<number, number[]>();
  private readonly specsByName = new Map<string, number[]>();
  private readonly compiled: (CRow | undefined)[] = [];
  private allCompiled = false;

  constructor(opts: CodecOptions) {
    this.layout = opts.layout;
    this.archs = opts.archs;
    this.formCache = opts.formCache ?? true;
    // Guard predicate and its negation bit in one limb (Volta+ bits 12..15): one masked write per encode.
    const [gp, gw] = opts.layout.guardPred;
    const gnot = opts.layout.guardNot;
    this.guardLimb = gp >>> 5;
    this.guardShift = gp & 31;
    this.guardNotShift = gnot & 31;
    this.guardFast = gnot >>> 5 === this.guardLimb && (gp & 31) + gw <= 32 && gw < 31;
    this.guardValMask = (1 << gw) - 1;
    this.guardMask = this.guardFast ? ((((1 << gw) - 1) << this.guardShift) | (1 << this.guardNotShift)) >>> 0 : 0;
    const rank = new Map(opts.archs.map((a, i) => [a, i]));
    // Rows are compiled lazily, per opcode (decoding) or mnemonic (encoding): a process that encodes a
    // small kernel needs a few dozen of the table's thousands of rows, and compiling them all took tens
    // of ms at every start-up. Lookup order is the eager one's: preferred arch first; inside an arch, the
    // most specific row (most constant bits) first; then table order.
    opts.rows.forEach((spec, i) => {
      let r = Infinity;
      for (const a of spec.archs) r = Math.min(r, rank.get(a) ?? Infinity);
      if (r === Infinity) return;
      let specificity = 0;
      for (const x of wordFromHex(spec.mask, this.layout.wordBits)) specificity += popcount32(x);
      const k = this.specs.length;
      this.specs.push({ spec, r, i, specificity });
      const byOp = this.specsByOp.get(spec.op);
      if (byOp) byOp.push(k);
      else this.specsByOp.set(spec.op, [k]);
      const byName = this.specsByName.get(spec.name);
      if (byName) byName.push(k);
      else this.specsByName.set(spec.name, [k]);
    });
    const order = (a: number, b: number): number => {
      const x = this.specs[a]!;
      const y = this.specs[b]!;
      return x.r - y.r || y.specificity - x.specificity || x.i - y.i;
    };
    for (const l of this.specsByOp.values()) l.sort(order);
    for (const l of this.specsByName.values()) l.sort(order);
  }

  /** The compiled row of spec `k` (compiled once; the scratch buffers grow to fit it). */
  private row(k: number): CRow {
    let row = this.compiled[k];
    if (row) return row;
    row = this.compile(this.specs[k]!.spec);
    this.compiled[k] = row;
    let cap = 4;
    while (cap < row.tokRole.size * 2) cap *= 2;
    const tab = new Int32Array(cap * 3);
    for (const [id, r] of row.tokRole) {
      let h = id & (cap - 1);
      while (tab[h * 3] !== 0) h = (h + 1) & (cap - 1);
      tab[h * 3] = id + 1;
      tab[h * 3 + 1] = r;
      tab[h * 3 + 2] = r >= 0 ? (row.slots[r]!.encNum.get(idsKey([id], 1)) ?? -1) : -1;
    }
    row.roleTab = tab;
    row.roleMask = cap - 1;
    row.base = slotDefaultsBase(row);
    if (this.stamp.length < this.tokNames.length + 1) {
      const stamp = new Uint32Array(Math.max(this.tokNames.length + 1, this.stamp.length * 2));
      stamp.set(this.stamp);
      this.stamp = stamp;
    }
    const atoms = row.atoms.length;
    if (this.vals.length < atoms) {
      this.vals = new Float64Array(atoms);
      this.stores = new Float64Array(atoms);
    }
    const slots = row.slots.length;
    if (this.slotVals.length < slots) {
      this.slotVals = new Float64Array(slots);
      this.slotOne = new Int32Array(slots);
      this.bucketLen = new Int32Array(slots);
    }
    while (this.buckets.length < Math.max(64, slots)) this.buckets.push(new Int32Array(64));
    return row;
  }

  /** Rows whose opcode field is `op`, in lookup order (undefined when none). */
  private rowsOfOp(op: number): CRow[] | undefined {
    let rows = this.byOp.get(op);
    if (rows) return rows;
    const ks = this.specsByOp.get(op);
    if (!ks) return undefined;
    rows = ks.map((k) => this.row(k));
    this.byOp.set(op, rows);
    return rows;
  }

  /**
   * Trie root of mnemonic `name` over operand shape codes (read from each row's signature without compiling
   * it), leaves in lookup order (undefined when no row has that mnemonic).
   */
  private formsOf(name: string): FormNode | undefined {
    const got = this.byForm.get(name);
    if (got !== undefined) return got ?? undefined;
    const ks = this.specsByName.get(name);
    if (!ks) {
      this.byForm.set(name, null);
      return undefined;
    }
    const root: FormNode = { next: undefined, ks: undefined, rows: undefined, cache: undefined };
    for (const k of ks) {
      const sig = this.specs[k]!.spec.sig;
      let node = root;
      for (const sh of sig === '' ? [] : sig.split(',')) {
        const spaced = sh.startsWith('_');
        const shape = SHAPES[spaced ? sh.slice(1) : sh];
        if (shape === undefined) this.row(k); // throws the table error naming the row
        const c = spaced ? shape! | SPACED : shape!;
        node.next ??= [];
        node = node.next[c] ??= { next: undefined, ks: undefined, rows: undefined, cache: undefined };
      }
      (node.ks ??= []).push(k);
    }
    this.byForm.set(name, root);
    return root;
  }

  /** Compile every row (a token no compiled row knows yet may still belong to one not compiled). */
  private compileAll(): void {
    if (this.allCompiled) return;
    for (let k = 0; k < this.specs.length; k++) this.row(k);
    this.allCompiled = true;
  }

  private tokId(t: string): number {
    let i = this.tokIds.get(t);
    if (i === undefined) {
      i = this.tokNames.length;
      this.tokNames.push(t);
      this.tokIds.set(t, i);
    }
    return i;
  }

  private compile(spec: RowSpec): CRow {
    const wb = this.layout.wordBits;
    const mask = wordFromHex(spec.mask, wb);
    const value = wordFromHex(spec.value, wb);
    let specificity = 0;
    for (const x of mask) specificity += popcount32(x);
    setBits(value, this.layout.opcode[0], this.layout.opcode[1], spec.op); // encodings start from value + opcode
    const check = new Uint32Array(mask.length);
    for (let i = 0; i < mask.length; i++) check[i] = (mask[i]! & value[i]!) >>> 0;
    const slots = spec.slots.map((s): CSlot => {
      const f = compileField(s.bits);
      const tokens = new Set<number>();
      const encNum = new Map<number, number>();
      const encStr = new Map<string, number>();
      const map = new Map<number, number[]>();
      for (const [k, ts] of Object.entries(s.map)) {
        const ids = ts.map((t) => this.tokId(t)).sort((a, b) => a - b);
        for (const i of ids) tokens.add(i);
        map.set(Number(k), ids);
        if (ids.length <= 3) {
          const key = idsKey(ids, ids.length);
          if (!encNum.has(key)) encNum.set(key, Number(k));
        } else if (!encStr.has(ids.join(','))) encStr.set(ids.join(','), Number(k));
      }
      const one = oneChunk(f);
      const slot: CSlot = { enc0: encNum.get(0) ?? -1, limb: one.limb, off: one.off, mask: one.mask | 0, arr: undefined, map: undefined, f, tokens, encNum, encStr };
      if (f.width <= 10) {
        slot.arr = new Array<number[] | undefined>(1 << f.width).fill(undefined);
        for (const [k, ids] of map) slot.arr[k] = ids;
      } else slot.map = map;
      return slot;
    });
    const keyIdx = new Map(spec.atoms.map((a, i) => [a.key, i]));
    for (const a of spec.atoms)
      if (partsWidth(a.parts) > 64) throw new Error(`SASS_TABLE: ${spec.name} ${spec.sig}: atom ${a.key} is wider than 64 bits`);
    const atoms = spec.atoms.map((a): CAtom => {
      const f = compileField(a.parts);
      const dot = a.key.indexOf('.');
      const one = oneChunk(f);
      // Property order is memory layout: the fields the encoder and decoder read per word come first.
      return {
        op: Number(dot < 0 ? a.key : a.key.slice(0, dot)),
        partCode: PART_CODES[dot < 0 ? '' : a.key.slice(dot + 1)] ?? -1,
        isFrom: !!a.from,
        hasEq: a.eq !== undefined,
        eq: a.eq ?? 0,
        plainU: a.enc === 'u' && (a.scale ?? 1) === 1 && a.eq === undefined && !a.from && f.width > 0 && f.width <= 31,
        plainS: a.enc === 's' && (a.scale ?? 1) === 1 && a.eq === undefined && !a.from && f.width > 1 && f.width <= 31,
        max: 2 ** f.width,
        limb: f.width ? one.limb : -1,
        off: one.off,
        mask: one.mask | 0, // int32 (a 32-bit mask is -1): kept inline, not as a boxed number
        wide: f.width > 52,
        signedWide: a.enc === 's' || a.enc === 'rel',
        f,
        spec: a,
        from: a.from ? (keyIdx.get(a.from.key) ?? -1) : -1,
        fromAdd: a.from?.add ?? 0,
        fromIfTok: a.from?.ifToken !== undefined ? this.tokId(a.from.ifToken) : -1,
        fromIfAdd: a.from?.ifAdd ?? 0,
        part: dot < 0 ? '' : a.key.slice(dot + 1),
      };
    });
    const fromAtoms: number[] = [];
    atoms.forEach((a, i) => {
      if (a.spec.from) fromAtoms.push(i);
    });
    const derived = spec.derived.map((d) => ({
      token: this.tokId(d.token),
      atomConds: d.when.flatMap((c): { idx: number; eq?: number; pow2?: boolean; gt?: number; lt?: number }[] =>
        'eq' in c ? [{ idx: keyIdx.get(c.atom) ?? -1, eq: c.eq }] : 'pow2' in c ? [{ idx: keyIdx.get(c.atom) ?? -1, pow2: true, gt: c.gt ?? -Infinity, lt: c.lt ?? Infinity }] : [],
      ),
      tokConds: d.when.flatMap((c) => ('token' in c ? [{ id: this.tokId(c.token), has: c.has }] : [])),
    }));
    const shapesStr = spec.sig === '' ? [] : spec.sig.split(',');
    const tpl = shapesStr.map((sh, i): OpTpl => {
      const spaced = sh.startsWith('_');
      const shape = SHAPES[spaced ? sh.slice(1) : sh];
      if (shape === undefined) throw new Error(`SASS_TABLE: ${spec.name} ${spec.sig}: unknown operand shape '${sh}'`);
      const idx = (part: string): number => keyIdx.get(part === '' ? String(i) : `${i}.${part}`) ?? -1;
      return { shape, spaced, a: idx(''), b: idx('b'), o: idx('o'), r: idx('r'), u: idx('u'), d: idx('d') };
    });
    // Roles for encoding: fixed tokens first, then derived ones (ignored), then the first slot holding a token.
    const fixedIds = spec.fixed.map((t) => this.tokId(t));
    const tokRole = new Map<number, number>();
    for (const id of fixedIds) tokRole.set(id, ROLE_FIXED);
    for (const d of derived) if (!tokRole.has(d.token)) tokRole.set(d.token, ROLE_DERIVED);
    slots.forEach((sl, si) => {
      for (const id of sl.tokens) if (!tokRole.has(id)) tokRole.set(id, si);
    });
    const acts: { id: number; act: TokenAction }[] = [];
    for (const t of spec.order) {
      const act = tokenAction(t);
      if (act) acts.push({ id: this.tokId(t), act });
    }
    // Property order is memory layout: the fields read per word come first.
    return {
      guard: spec.guard,
      slots,
      atoms,
      fixed: fixedIds,
      roleTab: new Int32Array(12),
      roleMask: 3,
      base: undefined,
      value,
      mask,
      check,
      fromAtoms,
      derived,
      spec,
      specificity,
      tokRole,
      derivedIds: new Set(derived.map((d) => d.token)),
      hide: spec.hide?.map((h) => h.map((c) => ({ idx: keyIdx.get(c.key) ?? -1, eq: c.eq }))),
      tpl,
      shapes: tpl.map((t) => (t.spaced ? t.shape | SPACED : t.shape)),
      acts,
      reuse: Object.entries(spec.reuse ?? {}).map(([i, bit]) => [Number(i), bit]),
      hidden: spec.hidden?.map(([p, n]) => [p, n, `${p}:${n}`]),
      prog: undefined,
    };
  }

  /** Number of rows this codec can use. */
  get rowCount(): number {
    return this.specs.length;
  }

  decode(w: Word, addr = 0): DecodedInstruction {
    const L = this.layout;
    const op = getBits(w, L.opcode[0], L.opcode[1]);
    const rows = this.rowsOfOp(op);
    const control = L.readControl(w);
    if (!rows) return { unknown: true, opcodeField: op, reason: 'no table row for this opcode', control };
    // A row whose PT operands nvdisasm hides defers to the shorter row; if none takes the word (a negated
    // PT, a modifier the shorter row lacks), the longer row prints it after all.
    let fallback: CRow | undefined;
    for (let i = 0; i < rows.length; i++) {
      const r = this.tryRow(rows[i]!, w, addr, control, true);
      if (r === undefined) continue;
      if (r === HIDDEN) {
        fallback ??= rows[i];
        continue;
      }
      return r;
    }
    if (fallback) {
      const r = this.tryRow(fallback, w, addr, control, false);
      if (r !== undefined && r !== HIDDEN) return r;
    }
    return { unknown: true, opcodeField: op, reason: 'bits no table row claims', control };
  }

  private tryRow(row: CRow, w: Word, addr: number, control: ControlInfo, useHide: boolean): SassInstruction | typeof HIDDEN | undefined {
    const n = w.length;
    const mask = row.mask;
    const check = row.check;
    for (let i = 0; i < n; i++) if (((w[i]! & mask[i]!) >>> 0) !== check[i]) return undefined;
    const gen = ++this.gen;
    const stamp = this.stamp;
    const fixed = row.fixed;
    for (let i = 0; i < fixed.length; i++) stamp[fixed[i]!] = gen;
    const slots = row.slots;
    for (let s = 0; s < slots.length; s++) {
      const sl = slots[s]!;
      const v = readField(w, sl.f);
      const ids = sl.arr ? sl.arr[v] : sl.map!.get(v);
      if (!ids) return undefined;
      for (let i = 0; i < ids.length; i++) stamp[ids[i]!] = gen;
    }
    const vals = this.vals;
    const atoms = row.atoms;
    const base = this.layout.branchBase;
    for (let k = 0; k < atoms.length; k++) {
      const a = atoms[k]!;
      const spec = a.spec;
      if (a.isFrom) continue;
      if (a.hasEq) vals[k] = a.eq;
      else if (a.wide) {
        const stored = readWideField(w, a.f.parts, a.signedWide);
        if (Number.isNaN(stored)) return undefined;
        vals[k] = loadAtom(spec, stored, a.f.width, addr, base);
      } else vals[k] = loadAtom(spec, readField(w, a.f), a.f.width, addr, base);
    }
    for (const k of row.fromAtoms) {
      const a = atoms[k]!;
      vals[k] = (a.from >= 0 ? vals[a.from]! : 0) + a.fromAdd + (a.fromIfTok >= 0 && stamp[a.fromIfTok] === gen ? a.fromIfAdd : 0);
    }
    if (useHide && row.hide) {
      for (const h of row.hide) {
        let all = true;
        for (const c of h) if (c.idx < 0 || vals[c.idx] !== c.eq) all = false;
        if (all) return HIDDEN;
      }
    }
    for (const d of row.derived) {
      let ok = true;
      for (const c of d.atomConds) {
        const v = c.idx >= 0 ? vals[c.idx]! : undefined;
        if (c.pow2 ? !ilog2exact(v ?? -1) || v! <= c.gt! || v! >= c.lt! : v !== c.eq) {
          ok = false;
          break;
        }
      }
      if (ok) for (const c of d.tokConds) if ((stamp[c.id] === gen) !== c.has) ok = false;
      if (ok) stamp[d.token] = gen;
    }
    const L = this.layout;
    let hidden: Record<string, number> | undefined;
    if (row.hidden) {
      hidden = {};
      for (const [p, nb, key] of row.hidden) hidden[key] = getBits(w, p, nb);
    }
    const ins = this.build(row, vals, gen, getBits(w, L.guardPred[0], L.guardPred[1]), getBits(w, L.guardNot, 1) === 1, hidden, control);
    if (control.reuse && row.reuse.length) {
      for (const [i, bit] of row.reuse) {
        const o = ins.operands[i];
        if (o && control.reuse & (1 << bit) && (o.k === 'reg' || o.k === 'cbank')) (o as { reuse?: boolean }).reuse = true;
      }
    }
    return ins;
  }

  private build(row: CRow, vals: Float64Array, gen: number, gN: number, gNot: boolean, hidden: Record<string, number> | undefined, control: ControlInfo): SassInstruction {
    const tpl = row.tpl;
    const ops: SassOperand[] = new Array(tpl.length);
    for (let i = 0; i < tpl.length; i++) {
      const t = tpl[i]!;
      let o: SassOperand;
      switch (t.shape) {
        case Shape.R:
          o = { k: 'reg', file: 'R', n: intVal(t.a >= 0 ? vals[t.a]! : 0) };
          break;
        case Shape.UR:
          o = { k: 'reg', file: 'UR', n: intVal(t.a >= 0 ? vals[t.a]! : 0) };
          break;
        case Shape.P:
          o = { k: 'reg', file: 'P', n: intVal(t.a >= 0 ? vals[t.a]! : 0) };
          break;
        case Shape.UP:
          o = { k: 'reg', file: 'UP', n: intVal(t.a >= 0 ? vals[t.a]! : 0) };
          break;
        case Shape.B:
          o = { k: 'reg', file: 'B', n: intVal(t.a >= 0 ? vals[t.a]! : 0) };
          break;
        case Shape.I:
          o = { k: 'int', v: intVal(t.a >= 0 ? vals[t.a]! : 0) };
          break;
        case Shape.F: {
          const v = t.a >= 0 ? vals[t.a]! : 0; // kept as is: -0.0 is a float value
          o = Number.isNaN(v) ? { k: 'float', v, nan: '+QNAN' } : { k: 'float', v };
          break;
        }
        case Shape.C:
          o = { k: 'cbank', bank: intVal(t.b >= 0 ? vals[t.b]! : 0), off: intVal(t.o >= 0 ? vals[t.o]! : 0) };
          break;
        case Shape.Cr:
          o = { k: 'cbank', bank: intVal(t.b >= 0 ? vals[t.b]! : 0), off: intVal(t.o >= 0 ? vals[t.o]! : 0), reg: { file: 'R', n: intVal(t.r >= 0 ? vals[t.r]! : 0) } };
          break;
        case Shape.Cu:
          o = { k: 'cbank', bank: intVal(t.b >= 0 ? vals[t.b]! : 0), off: intVal(t.o >= 0 ? vals[t.o]! : 0), reg: { file: 'UR', n: intVal(t.r >= 0 ? vals[t.r]! : 0) } };
          break;
        case Shape.N:
          o = { k: 'name', name: '' };
          break;
        case Shape.Mg:
          o = { k: 'mem', base: 255, off: 0, gdesc: true, ur: intVal(t.u >= 0 ? vals[t.u]! : 63) };
          break;
        case Shape.Mx:
          o = { k: 'mem', base: 255, off: 0, descOnly: true, desc: intVal(t.d >= 0 ? vals[t.d]! : 63) };
          break;
        default: {
          const m: MemOperand = { k: 'mem', base: intVal(t.b >= 0 ? vals[t.b]! : 255), off: 0 };
          if (t.shape === Shape.Md || t.shape === Shape.Mdu) m.desc = intVal(t.d >= 0 ? vals[t.d]! : 63);
          if (t.shape === Shape.Mu || t.shape === Shape.Mdu) m.ur = intVal(t.u >= 0 ? vals[t.u]! : 63);
          m.off = intVal(t.o >= 0 ? vals[t.o]! : 0);
          o = m;
        }
      }
      if (t.spaced) o.sep = ' ';
      ops[i] = o;
    }
    const stamp = this.stamp;
    // Modifiers gathered in a scratch array and copied at their exact length (a pushed-to `[]` reserves 17
    // slots): decoded instructions are many and often kept, so their size is GC time.
    const modScratch = this.modScratch;
    let nMods = 0;
    const acts = row.acts;
    for (let k = 0; k < acts.length; k++) {
      const { id, act } = acts[k]!;
      if (stamp[id] !== gen) continue;
      if (act.mod !== undefined) modScratch[nMods++] = act.mod;
      else applyOperandToken(ops, act);
    }
    const opcode = row.spec.name;
    const mods = nMods === 0 ? [] : modScratch.slice(0, nMods);
    // One literal per set of fields, keys in the order they always had (opcode, mods, operands, guard, hidden,
    // control): each instruction is one allocation with its fields in the object (fields added afterwards
    // went to a separate property store, and decoded instructions are many).
    if (gN !== 7 || gNot) {
      const guard: Guard = { file: row.guard, n: gN, not: gNot };
      return hidden !== undefined ? { opcode, mods, operands: ops, guard, hidden, control } : { opcode, mods, operands: ops, guard, control };
    }
    return hidden !== undefined ? { opcode, mods, operands: ops, hidden, control } : { opcode, mods, operands: ops, control };
  }

  /**
   * Why a word is unknown, for table work: per candidate row of its opcode, the constant bits that differ
   * and the slot values the row does not list. Closest rows first.
   */
  explain(w: Word): { row: string; archs: string[]; badBits: number[]; badSlots: string[] }[] {
    const op = getBits(w, this.layout.opcode[0], this.layout.opcode[1]);
    const out: { row: string; archs: string[]; badBits: number[]; badSlots: string[] }[] = [];
    for (const row of this.rowsOfOp(op) ?? []) {
      const badBits: number[] = [];
      for (let b = 0; b < w.length * 32; b++) {
        const i = b >>> 5;
        const m = 1 << (b & 31);
        if (row.mask[i]! & m && (w[i]! & m) !== (row.value[i]! & m)) badBits.push(b);
      }
      const badSlots: string[] = [];
      for (const sl of row.slots) {
        const v = readField(w, sl.f);
        if (!(sl.arr ? sl.arr[v] : sl.map!.get(v))) badSlots.push(`${JSON.stringify(sl.f.parts)}=${v}`);
      }
      out.push({ row: `${row.spec.name} ${row.spec.sig}`, archs: row.spec.archs, badBits, badSlots });
    }
    return out.sort((a, b) => a.badBits.length + a.badSlots.length - b.badBits.length - b.badSlots.length);
  }

  // ---------------------------------------------------------------- encoding

  /** Token id of a string, or throws (a token no row of this arch knows cannot be encoded). */
  private knownTok(t: string, opcode: string): number {
    let id = this.tokIds.get(t);
    if (id === undefined && !this.allCompiled) {
      this.compileAll();
      id = this.tokIds.get(t);
    }
    if (id === undefined) throw new SassEncodeError('SASS_NO_FORM', `${this.archs[0]}: '${t}' is not known for ${opcode}`);
    return id;
  }

  /**
   * Marks token `id` wanted; a repeated token gets its `#k` count like `flatten` (spelled from `op` and
   * `rest`: operand index and suffix, or -1 and the modifier token).
   */
  private want(gen: number, id: number, op: number, kind: 0 | 1 | 2, rest: string, opcode: string): void {
    // this.stamp is read afresh after knownTok, which may compile rows and grow it.
    if (this.stamp[id] === gen) {
      const t = op < 0 ? rest : `${op}${OP_TOKEN_KIND[kind]}${rest}`;
      for (let k = 1; ; k++) {
        const j = this.knownTok(`${t}#${k}`, opcode);
        if (this.stamp[j] !== gen) {
          id = j;
          break;
        }
      }
    }
    this.stamp[id] = gen;
    this.pushWanted(id);
  }

  private pushWanted(id: number): void {
    if (this.nWanted === this.wanted.length) {
      const g = new Int32Array(this.wanted.length * 2);
      g.set(this.wanted);
      this.wanted = g;
    }
    this.wanted[this.nWanted++] = id;
  }

  /**
   * Reads operand i once into the scratch arrays: its shape code is returned, flags and part values stored.
   * Operand objects come in many shapes (optional flags are added only when set), so every named property
   * load here is a megamorphic lookup; one for-in pass over the object's own keys loads only the properties
   * it has (a plain `R4` is k, file, n: three keys instead of ten lookups; about 2.5x faster measured).
   */
  private readOperand(o: SassOperand, i: number): number {
    const vals = this.opVal;
    const has = this.opHas;
    const g = this.opGen;
    const b = i * 6;
    let kind: unknown;
    let file: unknown;
    let n: unknown;
    let v: unknown;
    let bank: unknown;
    let off: unknown;
    let reg: { file: string; n?: number } | undefined;
    let base: unknown;
    let ur: unknown;
    let desc: unknown;
    let gdesc = false;
    let descOnly = false;
    let bits = 0; // F_* flags as present on the object, filtered by kind below
    let baseSfx = false;
    let spaced = false;
    const rec = o as unknown as Record<string, unknown>;
    for (const key in rec) {
      const x = rec[key];
      switch (key) {
        case 'k':
          kind = x;
          break;
        case 'file':
          file = x;
          break;
        case 'n':
          n = x;
          break;
        case 'v':
          v = x;
          break;
        case 'off':
          off = x;
          break;
        case 'base':
          base = x;
          break;
        case 'bank':
          bank = x;
          break;
        case 'reg':
          reg = x as typeof reg;
          break;
        case 'ur':
          ur = x;
          break;
        case 'desc':
          desc = x;
          break;
        case 'gdesc':
          gdesc = !!x;
          break;
        case 'descOnly':
          descOnly = !!x;
          break;
        case 'neg':
          if (x) bits |= F_NEG;
          break;
        case 'abs':
          if (x) bits |= F_ABS;
          break;
        case 'not':
          if (x) bits |= F_NOT;
          break;
        case 'reuse':
          if (x) bits |= F_REUSE;
          break;
        case 'sfxOutsideAbs':
          if (x) bits |= F_SFXOUT;
          break;
        case 'sfx':
          if (x) bits |= F_SFX;
          break;
        case 'baseSfx':
          baseSfx = !!x;
          break;
        case 'sep':
          spaced = x === ' ';
          break;
        default:
          break;
      }
    }
    let flags = 0;
    let s: number;
    switch (kind) {
      case 'reg':
        switch (file) {
          case 'R':
            s = Shape.R;
            break;
          case 'UR':
            s = Shape.UR;
            break;
          case 'P':
            s = Shape.P;
            break;
          case 'UP':
            s = Shape.UP;
            break;
          default:
            s = REG_SHAPES[file as RegFile]!;
        }
        if (n !== undefined) (vals[b] = n as number), (has[b] = g);
        flags = bits;
        break;
      case 'int':
        s = Shape.I;
        if (v !== undefined) (vals[b] = v as number), (has[b] = g);
        break;
      case 'float':
        s = Shape.F;
        if (v !== undefined) (vals[b] = v as number), (has[b] = g);
        if (Number.isNaN(v)) flags |= F_NAN;
        break;
      case 'cbank':
        s = reg ? (reg.file === 'R' ? Shape.Cr : Shape.Cu) : Shape.C;
        if (bank !== undefined) (vals[b + 1] = bank as number), (has[b + 1] = g);
        if (off !== undefined) (vals[b + 2] = off as number), (has[b + 2] = g);
        if (reg?.n !== undefined) (vals[b + 5] = reg.n), (has[b + 5] = g);
        flags = bits & (F_NEG | F_ABS | F_NOT | F_SFX);
        break;
      case 'mem':
        s = gdesc ? Shape.Mg : descOnly ? Shape.Mx : desc !== undefined ? (ur !== undefined ? Shape.Mdu : Shape.Md) : ur !== undefined ? Shape.Mu : Shape.M;
        if (gdesc) (vals[b + 3] = (ur as number | undefined) ?? 63), (has[b + 3] = g);
        else if (descOnly) (vals[b + 4] = (desc as number | undefined) ?? 63), (has[b + 4] = g);
        else {
          if (base !== undefined) (vals[b + 1] = base as number), (has[b + 1] = g);
          if (off !== undefined) (vals[b + 2] = off as number), (has[b + 2] = g);
          if (ur !== undefined) (vals[b + 3] = ur as number), (has[b + 3] = g);
          if (desc !== undefined) (vals[b + 4] = desc as number), (has[b + 4] = g);
          if (baseSfx) flags |= F_SFX;
        }
        break;
      case 'name':
        s = Shape.N;
        break;
      default:
        s = 0; // no operand kind: no row has this shape
    }
    this.opFlags[i] = flags;
    return spaced ? s | SPACED : s;
  }

  /** Interned id of operand token `<i><kind><rest>` (`2:neg`, `1.H0_H0`, `0=SR_TID.X`), cached per operand. */
  private opTokId(i: number, kind: 0 | 1 | 2, rest: string, opcode: string): number {
    const maps = (this.opTok[i] ??= [new Map(), new Map(), new Map()]);
    const m = maps[kind]!;
    let id = m.get(rest);
    if (id === undefined) {
      id = this.knownTok(`${i}${OP_TOKEN_KIND[kind]}${rest}`, opcode);
      m.set(rest, id);
    }
    return id;
  }

  private wantOp(gen: number, i: number, kind: 0 | 1 | 2, rest: string, opcode: string): void {
    this.want(gen, this.opTokId(i, kind, rest, opcode), i, kind, rest, opcode);
  }

  /**
   * Gathers the operand token strings of the instruction being encoded (operands already read) into
   * strScratch, in the order the row search reads them; returns their count.
   */
  private gatherStrs(ops: SassOperand[], nOps: number): number {
    const out = this.strScratch;
    const opFlags = this.opFlags;
    let n = 0;
    for (let i = 0; i < nOps; i++) {
      const fl = opFlags[i]!;
      if (fl === 0) {
        if (this.opShape[i] === Shape.N) out[n++] = (ops[i] as { name: string }).name;
        continue;
      }
      if (fl & F_SFX) {
        const o = ops[i]!;
        const list = o.k === 'mem' ? o.baseSfx! : (o as { sfx: string[] }).sfx;
        out[n++] = list.length;
        for (let k = 0; k < list.length; k++) out[n++] = list[k]!;
      }
      if (fl & F_NAN) out[n++] = (ops[i] as { nan?: string }).nan ?? '+QNAN';
    }
    return n;
  }

  /** The cached form of the instruction being encoded at this leaf (moved to the front), else undefined. */
  private findForm(cache: FormCacheEntry[], gcode: number, mods: string[], ops: SassOperand[], nOps: number): FormCacheEntry | undefined {
    const opFlags = this.opFlags;
    const nMods = mods.length;
    entries: for (let ei = 0; ei < cache.length; ei++) {
      const e = cache[ei]!;
      if (e.gcode !== gcode) continue;
      const em = e.mods;
      if (em.length !== nMods) continue;
      for (let i = 0; i < nMods; i++) if (em[i] !== mods[i]) continue entries;
      const ef = e.flags;
      for (let i = 0; i < nOps; i++) if (ef[i] !== opFlags[i]) continue entries;
      const es = e.strs;
      if (es !== undefined) {
        // same leaf and flags: the instruction has strings at the same places
        const n = this.gatherStrs(ops, nOps);
        if (n !== es.length) continue;
        const got = this.strScratch;
        for (let i = 0; i < n; i++) if (got[i] !== es[i]) continue entries;
      }
      if (ei > 0) {
        cache[ei] = cache[0]!;
        cache[0] = e;
      }
      return e;
    }
    return undefined;
  }

  /** The atom program of a row (AP numbers per atom): operand index, value index, kind, limb, shift, mask, range, source atom. */
  private static atomProg(row: CRow): Float64Array {
    const atoms = row.atoms;
    const prog = new Float64Array(atoms.length * AP);
    for (let k = 0; k < atoms.length; k++) {
      const a = atoms[k]!;
      const p = k * AP;
      prog[p] = a.partCode >= 0 ? a.op : 1e9; // 1e9: never present
      prog[p + 1] = a.partCode >= 0 ? a.op * 6 + a.partCode : 0;
      prog[p + 2] = a.isFrom ? AK_FROM : a.limb >= 0 && a.plainU ? AK_PLAIN_U : a.limb >= 0 && a.plainS ? AK_PLAIN_S : AK_GENERIC;
      prog[p + 3] = a.limb;
      prog[p + 4] = a.off;
      prog[p + 5] = a.mask;
      prog[p + 6] = a.max;
      prog[p + 7] = a.from;
    }
    return prog;
  }

  /** Encoding of a cached form: its values stored into its word; undefined when a value does not fit its row. */
  private encodeCached(e: FormCacheEntry, nOps: number, addr: number, gN: number, gNot: boolean, control: ControlInfo | undefined, hidden: Record<string, number> | undefined): Word | undefined {
    const row = e.row;
    const prog = (row.prog ??= TableCodec.atomProg(row));
    const nA = row.atoms.length;
    const vals = this.vals;
    const opVal = this.opVal;
    const opHas = this.opHas;
    for (let k = 0, p = 0; k < nA; k++, p += AP) {
      const j = prog[p + 1]!;
      if (!(prog[p]! < nOps && opHas[j] === this.opGen)) return undefined;
      vals[k] = opVal[j]!;
    }
    const src = e.word;
    // a constant length lets the JIT allocate the 128-bit word inline
    const w = src.length === 4 ? new Uint32Array(4) : new Uint32Array(src.length);
    for (let i = 0; i < src.length; i++) w[i] = src[i]!;
    const fromAdd = e.fromAdd;
    for (let k = 0, p = 0; k < nA; k++, p += AP) {
      const v = vals[k]!;
      const kind = prog[p + 2]!;
      if (kind === AK_FROM) {
        const from = prog[p + 7]!;
        if (from < 0 || v !== vals[from]! + fromAdd[k]!) return undefined;
        continue;
      }
      const max = prog[p + 6]!;
      let st: number;
      if (kind === AK_PLAIN_U && v >= 0 && v < max && (v | 0) === v) st = v;
      else if (kind === AK_PLAIN_S && (v | 0) === v && v >= -max / 2 && v < max / 2) st = v < 0 ? v + max : v;
      else {
        if (!this.storeGeneric(row.atoms[k]!, v, w, addr)) return undefined;
        continue;
      }
      const limb = prog[p + 3]!;
      const mask = prog[p + 5]!;
      const off = prog[p + 4]!;
      w[limb] = ((w[limb]! & ~(mask << off)) | ((st & mask) << off)) >>> 0;
    }
    return this.finishWord(row, w, gN, gNot, control, (control?.reuse ?? 0) | e.reuseAdd, hidden);
  }

  /** One atom stored by storeAtom (floats, branch targets, scaled or wide fields, out-of-range plain values). */
  private storeGeneric(a: CAtom, v: number, w: Word, addr: number): boolean {
    const st = storeAtom(a.spec, v, addr, this.layout.branchBase, a.f.width);
    if (st === undefined) return false;
    const limb = a.limb;
    if (limb >= 0) w[limb] = ((w[limb]! & ~(a.mask << a.off)) | ((st & a.mask) << a.off)) >>> 0;
    else if (a.wide) writeWideField(w, a.f.parts, st);
    else if (a.f.width) writeField(w, a.f, st);
    return true;
  }

  /**
   * Stores the row's atom values (this.vals) into w. fromAdd: per atom the constant of an equal-plus
   * constraint, else (undefined) computed from the wanted tokens of generation gen. Returns 0, or why not: 5
   * (an equal-plus constraint fails) or 6 (a value does not fit; this.whyData says which).
   */
  private storeAtoms(row: CRow, w: Word, addr: number, fromAdd: Float64Array | undefined, gen: number): number {
    const atoms = row.atoms;
    const vals = this.vals;
    const stamp = this.stamp;
    const branchBase = this.layout.branchBase;
    for (let k = 0; k < atoms.length; k++) {
      const a = atoms[k]!;
      const v = vals[k]!;
      if (a.isFrom) {
        const add = fromAdd !== undefined ? fromAdd[k]! : a.fromAdd + (a.fromIfTok >= 0 && stamp[a.fromIfTok] === gen ? a.fromIfAdd : 0);
        if (a.from < 0 || v !== vals[a.from]! + add) {
          this.whyData = k;
          return 5;
        }
        continue;
      }
      let st: number | undefined;
      if (a.plainU) st = v >= 0 && v < a.max && (v | 0) === v ? v : storeAtom(a.spec, v, addr, branchBase, a.f.width);
      else if (a.plainS) st = (v | 0) === v && v >= -a.max / 2 && v < a.max / 2 ? (v < 0 ? v + a.max : v) : storeAtom(a.spec, v, addr, branchBase, a.f.width);
      else st = storeAtom(a.spec, v, addr, branchBase, a.f.width);
      if (st === undefined) {
        this.whyData = `value ${v} of operand ${a.spec.key} does not fit`;
        return 6;
      }
      const limb = a.limb;
      if (limb >= 0) w[limb] = ((w[limb]! & ~(a.mask << a.off)) | ((st & a.mask) << a.off)) >>> 0;
      else if (a.wide) writeWideField(w, a.f.parts, st);
      else if (a.f.width) writeField(w, a.f, st);
    }
    return 0;
  }

  /** Hidden fields, guard and control. */
  private finishWord(row: CRow, w: Word, gN: number, gNot: boolean, control: ControlInfo | undefined, reuse: number, hidden: Record<string, number> | undefined): Word {
    if (row.hidden && hidden) {
      for (const [p, nb, key] of row.hidden) {
        const v = hidden[key];
        if (v !== undefined) setBits(w, p, nb, v);
      }
    }
    const L = this.layout;
    if (this.guardFast) {
      const gl = this.guardLimb;
      w[gl] = ((w[gl]! & ~this.guardMask) | ((gN & this.guardValMask) << this.guardShift) | (gNot ? 1 << this.guardNotShift : 0)) >>> 0;
    } else {
      setBits(w, L.guardPred[0], L.guardPred[1], gN);
      setBits(w, L.guardNot, 1, gNot ? 1 : 0);
    }
    const c = control;
    L.writeControl(w, c && c.reuse === reuse ? c : { ...(c ?? NO_CONTROL_RW), reuse });
    return w;
  }

  /** Encodes a structured instruction; throws SassEncodeError when no row of this arch can hold it. */
  encode(ins: SassInstruction, addr = 0): Word {
    // Each field read once (instructions come in a few shapes: these loads stay polymorphic, cheaper than a
    // for-in pass here, measured).
    const ops = ins.operands;
    const opcode = ins.opcode;
    const mods = ins.mods;
    const guard = ins.guard;
    const control = ins.control;
    const hidden = ins.hidden;
    const nOps = ops.length;
    if (nOps > this.opShape.length) {
      this.opShape = new Int32Array(nOps);
      this.opFlags = new Int32Array(nOps);
      this.opVal = new Float64Array(nOps * 6);
      this.opHas = new Uint32Array(nOps * 6);
    }
    // a new generation of operand parts (wrapping: the old marks are cleared)
    if ((this.opGen = (this.opGen + 1) >>> 0) === 0) {
      this.opHas.fill(0);
      this.opGen = 1;
    }
    const opGen = this.opGen;
    // One read of every operand (the operand objects come in many shapes: each property load is slow).
    const opFlags = this.opFlags;
    let node = this.formsOf(opcode);
    for (let i = 0; i < nOps; i++) {
      const c = this.readOperand(ops[i]!, i);
      this.opShape[i] = c & (SPACED - 1);
      node = node?.next?.[c];
    }
    const rows = node?.ks ? (node.rows ??= node.ks.map((k) => this.row(k))) : undefined;
    if (!rows) throw new SassEncodeError('SASS_NO_ROW', `no ${this.archs[0]} table row for '${opcode}' with operands (${flatten(ins).sig})`);
    const gN = guard ? guard.n : 7;
    const gNot = guard ? guard.not : false;
    const gFile = guard ? guard.file : 'P';

    // A form seen before (see FormCacheEntry): its row and slot values are known, only the values are stored.
    const gcode = gN === 7 ? 0 : gFile === 'P' ? 1 : gFile === 'UP' ? 2 : 3;
    const cache = node!.cache;
    let cachedMiss = false;
    if (cache !== undefined) {
      const e = this.findForm(cache, gcode, mods, ops, nOps);
      if (e !== undefined) {
        const w = this.encodeCached(e, nOps, addr, gN, gNot, control, hidden);
        if (w !== undefined) return w;
        cachedMiss = true; // the form is cached; its values need a later row
      }
    }

    // Wanted tokens (the same set `flatten` gives, as interned ids).
    const gen = ++this.gen;
    this.nWanted = 0;
    let typeRank = 0;
    for (let mi = 0; mi < mods.length; mi++) {
      const m = mods[mi]!;
      let e = this.modIds.get(m);
      if (!e) {
        e = { isType: TYPE_RE.test(m), ids: [] };
        this.modIds.set(m, e);
      }
      const slot = e.isType ? 1 + typeRank++ : 0;
      let id = e.ids[slot];
      if (id === undefined) id = e.ids[slot] = this.knownTok(slot ? `m:${m}^${slot - 1}` : `m:${m}`, opcode);
      if (this.stamp[id] === gen) this.want(gen, id, -1, 0, slot ? `m:${m}^${slot - 1}` : `m:${m}`, opcode);
      else {
        this.stamp[id] = gen;
        this.pushWanted(id);
      }
    }
    // Operand tokens in flatten's order; operands with no flags (most) are not looked at again.
    let anyReuse = false;
    for (let i = 0; i < nOps; i++) {
      const fl = opFlags[i]!;
      if (fl === 0) {
        if (this.opShape[i] === Shape.N) this.wantOp(gen, i, 2, (ops[i] as { name: string }).name, opcode);
        continue;
      }
      const o = ops[i]!;
      switch (o.k) {
        case 'reg':
          if (fl & F_NEG) this.wantOp(gen, i, 0, 'neg', opcode);
          if (fl & F_ABS) this.wantOp(gen, i, 0, 'abs', opcode);
          if (fl & F_NOT) this.wantOp(gen, i, 0, 'not', opcode);
          if (fl & F_REUSE) anyReuse = true;
          if (fl & F_SFXOUT) this.wantOp(gen, i, 0, 'sfxout', opcode);
          if (fl & F_SFX) for (const x of o.sfx!) this.wantOp(gen, i, 1, x, opcode);
          break;
        case 'float':
          if (fl & F_NAN) this.wantOp(gen, i, 2, o.nan ?? '+QNAN', opcode);
          break;
        case 'cbank':
          if (fl & F_NEG) this.wantOp(gen, i, 0, 'neg', opcode);
          if (fl & F_ABS) this.wantOp(gen, i, 0, 'abs', opcode);
          if (fl & F_NOT) this.wantOp(gen, i, 0, 'not', opcode);
          if (fl & F_SFX) for (const x of o.sfx!) this.wantOp(gen, i, 1, x, opcode);
          break;
        case 'mem':
          if (fl & F_SFX) for (const x of o.baseSfx!) this.wantOp(gen, i, 1, x, opcode);
          break;
        default:
          break;
      }
    }
    const wanted = this.wanted;
    const nWanted = this.nWanted;

    const stamp = this.stamp;
    // Why the last candidate row failed, kept as data: the message is only built when nothing fits.
    let whyKind = 0;
    let whyData: number | string = 0;
    let whyRow: CRow | undefined;
    const slotVals = this.slotVals;
    const opVal = this.opVal;
    const opHas = this.opHas;
    rowLoop: for (let ri = 0; ri < rows.length; ri++) {
      const row = rows[ri]!;
      if (gFile !== row.guard && gN !== 7) continue;
      // Every wanted token must be fixed, derived (ignored) or held by a slot of this row.
      const slots = row.slots;
      const buckets = this.buckets;
      const blen = this.bucketLen;
      for (let si = 0; si < slots.length; si++) blen[si] = 0;
      let fixedSeen = 0;
      const tab = row.roleTab;
      const tmask = row.roleMask;
      const slotOne = this.slotOne;
      for (let wi = 0; wi < nWanted; wi++) {
        const id = wanted[wi]!;
        let h = id & tmask;
        let e = -1;
        for (;;) {
          const key = tab[h * 3]!;
          if (key === id + 1) {
            e = h * 3;
            break;
          }
          if (key === 0) break;
          h = (h + 1) & tmask;
        }
        if (e < 0) {
          whyKind = 4;
          whyRow = row; // the message names its unsupported tokens, built only if no row fits
          continue rowLoop;
        }
        const role = tab[e + 1]!;
        if (role >= 0) {
          buckets[role]![blen[role]!++] = id;
          slotOne[role] = tab[e + 2]!; // the slot's value if this stays its only token
        } else if (role === ROLE_FIXED) fixedSeen++;
      }
      if (fixedSeen !== row.fixed.length) {
        for (const f of row.fixed)
          if (stamp[f] !== gen) {
            whyKind = 1;
            whyData = f;
          }
        continue rowLoop;
      }
      let reuseAdd = 0;
      for (let i = 0; anyReuse && i < nOps; i++) {
        if (!(opFlags[i]! & F_REUSE)) continue;
        let bit = -1;
        for (const [j, b] of row.reuse) if (j === i) bit = b;
        if (bit < 0) {
          // a reuse flag held by an instruction field instead of the control bits (HMMA.SP's metadata
          // register, bit 50): the operand token `i:reuse` of one of the row's slots
          const rid = this.opTokId(i, 0, 'reuse', opcode);
          const role = row.tokRole.get(rid);
          if (role !== undefined && role >= 0) {
            buckets[role]![blen[role]!++] = rid;
            slotOne[role] = row.slots[role]!.encNum.get(idsKey([rid], 1)) ?? -1;
            continue;
          }
          whyKind = 2;
          whyData = i;
          continue rowLoop;
        }
        reuseAdd |= 1 << bit;
      }
      for (let si = 0; si < slots.length; si++) {
        const s = slots[si]!;
        const mine = buckets[si]!;
        const n = blen[si]!;
        let v: number | undefined;
        if (n === 0) v = s.enc0 >= 0 ? s.enc0 : undefined;
        else if (n === 1) {
          const x = slotOne[si]!;
          v = x >= 0 ? x : undefined;
        } else {
          sortSmall(mine, n);
          v = n <= 3 ? s.encNum.get(idsKey(mine, n)) : s.encStr.get(mine.slice(0, n).join(','));
        }
        if (v === undefined) {
          whyKind = 3;
          continue rowLoop;
        }
        // -1: the no-token value the row's base word already holds
        slotVals[si] = n === 0 && row.base ? -1 : v;
      }
      const atoms = row.atoms;
      const vals = this.vals;
      for (let k = 0; k < atoms.length; k++) {
        const a = atoms[k]!;
        const j = a.op * 6 + a.partCode;
        if (!(a.op < nOps && a.partCode >= 0 && opHas[j] === opGen)) continue rowLoop;
        vals[k] = opVal[j]!;
      }
      // The word: base (value + opcode + slot defaults), the slots, then each atom as soon as it is stored (a
      // row that fails on a later atom drops the word; rows tried per encode average ~1.1).
      const src = row.base ?? row.value;
      // a constant length lets the JIT allocate the 128-bit word inline (~15% cheaper than a variable one)
      const w = src.length === 4 ? new Uint32Array(4) : new Uint32Array(src.length);
      for (let i = 0; i < src.length; i++) w[i] = src[i]!;
      for (let si = 0; si < slots.length; si++) {
        const v = slotVals[si]!;
        if (v < 0) continue;
        const sl = slots[si]!;
        const limb = sl.limb;
        if (limb >= 0) w[limb] = ((w[limb]! & ~(sl.mask << sl.off)) | ((v & sl.mask) << sl.off)) >>> 0;
        else writeField(w, sl.f, v);
      }
      // the form's word before its values, kept for the form cache (first encode of a form only)
      const pre = this.formCache && !cachedMiss && (cache === undefined || cache.length < FORM_CACHE_MAX) ? w.slice() : undefined;
      const fail = this.storeAtoms(row, w, addr, undefined, gen);
      if (fail !== 0) {
        whyKind = fail;
        whyData = this.whyData;
        continue rowLoop;
      }
      if (pre !== undefined) {
        const fromAdd = new Float64Array(atoms.length);
        for (let k = 0; k < atoms.length; k++) {
          const a = atoms[k]!;
          fromAdd[k] = a.fromAdd + (a.fromIfTok >= 0 && stamp[a.fromIfTok] === gen ? a.fromIfAdd : 0);
        }
        const nStrs = this.gatherStrs(ops, nOps);
        (node!.cache ??= []).push({
          gcode,
          mods: mods.slice(),
          flags: opFlags.slice(0, nOps),
          strs: nStrs > 0 ? this.strScratch.slice(0, nStrs) : undefined,
          row,
          word: pre,
          reuseAdd,
          fromAdd,
        });
      }
      return this.finishWord(row, w, gN, gNot, control, (control?.reuse ?? 0) | reuseAdd, hidden);
    }
    const why =
      whyKind === 1
        ? `missing .${this.tokNames[whyData as number]}`
        : whyKind === 2
          ? `operand ${whyData} has no reuse flag in this form`
          : whyKind === 3
            ? 'modifier combination not in table'
            : whyKind === 4
              ? `unsupported ${Array.from(this.wanted.subarray(0, this.nWanted))
                  .filter((j) => whyRow!.tokRole.get(j) === undefined)
                  .map((j) => this.tokNames[j])
                  .join(' ')}`
              : whyKind === 5
                ? 'an operand must equal another plus a constant'
                : String(whyData || '');
    throw new SassEncodeError('SASS_NO_FORM', `${this.archs[0]}: no table row encodes '${opcode}${mods.map((m) => '.' + m).join('')}' (${flatten(ins).sig}): ${why}`);
  }
}

const NO_CONTROL_RW: ControlInfo = { stall: 0, yieldBit: 0, writeBarrier: 0, readBarrier: 0, waitMask: 0, reuse: 0 };

/**
 * The row's value + opcode word with every slot's no-token value written, so the encoder writes only the
 * slots an instruction sets; undefined when two slots share a bit (then write order matters: all are written).
 */
function slotDefaultsBase(row: CRow): Uint32Array | undefined {
  const seen = new Uint32Array(row.value.length);
  for (const s of row.slots) {
    const c = s.f.c;
    for (let k = 0; k < c.length; k += 4) {
      const m = (c[k + 2]! << c[k + 1]!) >>> 0;
      if (seen[c[k]!]! & m) return undefined;
      seen[c[k]!] = (seen[c[k]!]! | m) >>> 0;
    }
  }
  const w = row.value.slice();
  for (const s of row.slots) if (s.enc0 >= 0) writeField(w, s.f, s.enc0);
  return w;
}

/**
 * An integral operand value as an int32 where it is one: values come from a Float64Array, and stored as they
 * are they would be heap-allocated numbers (one more object per operand field and a boxed field for every
 * reader); as int32 they are small integers kept inline in the operand object.
 */
function intVal(x: number): number {
  return (x | 0) === x ? x | 0 : x;
}

/** Insertion sort of the first n entries (slot token sets are tiny). */
function sortSmall(a: Int32Array, n: number): void {
  for (let i = 1; i < n; i++) {
    const x = a[i]!;
    let j = i - 1;
    while (j >= 0 && a[j]! > x) {
      a[j + 1] = a[j]!;
      j--;
    }
    a[j + 1] = x;
  }
}

/** Sorted ids (at most 3, each below 65536) as one number. */
function idsKey(ids: ArrayLike<number>, n: number): number {
  let k = 0;
  for (let i = 0; i < n; i++) k = k * 65537 + ids[i]! + 1;
  return k;
}
