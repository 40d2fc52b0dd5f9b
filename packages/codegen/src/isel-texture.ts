import type { Instr, Operand, OriFunction, Register } from '@ptxforge/kernel';
import type { SassOperand } from '@ptxforge/sass';
import type { MGuard, MOperand, VFile, VReg, VRegOperand } from './mir.js';

/**
 * Selection of the texture and surface Ori forms (docs/ori-semantics.md "Textures and surfaces") to the SASS
 * ptxas 13 writes for bindless objects (checked word for word against `ptxas -arch=sm_90` on small kernels,
 * see isel-texture.test.ts):
 *
 *   ULDC UR6, c[0x0][handle]            the object's handle: the low word of its kernel parameter
 *   UMOV UR7, URZ                       (texture instructions read the pair)
 *   TEX.LL Rd2, Rd, Ra, Rb, UR6, 0x0, GEOM      Ra = coordinates (array index first), Rb = level; a lookup
 *                                               without .level is TEX.LL at level -32.0 (ptxas's spelling of
 *                                               "the base level": the level clamps to the texture's range)
 *   TLD.LZ Rd2, Rd, Ra, UR6, 0x0, 1D            integer coordinates (texel fetch), 1D
 *   TLD4.<R|G|B|A> Rd2, Rd, Ra, RZ, UR6, 0x0, 2D    2D gathers
 *   SULD.D.BA.<GEOM>.STRONG.SM[.TRAP|.IGN] Rd, [Ra], UR6, 0x0    size by the total bytes (U8 U16 - 64 128);
 *   SUST.D.BA.<GEOM>.STRONG.SM[.TRAP] [Ra], Rv, UR6, 0x0         Ra = x (bytes), y, z, then the array index
 *
 * Texture results: Rd (components 0, 1) and Rd2 (components 2, 3) pairs, all four written (mask 0xf); vectors
 * of sub-word surface elements travel packed in 32-bit words (PRMT), as ptxas packs them.
 *
 * The handle must come from a kernel parameter (a constant-bank word): a per-thread handle would need a loop
 * over its distinct values (ptxas's waterfall) and is a CODEGEN_NOT_IMPLEMENTED error naming that, as are
 * TXQ, SUQ, `.GRAD` lookups and integer coordinates beyond 1D.
 */
export interface TextureSelector {
  fail(why: string): never;
  newV(file: VFile, width: 1 | 2 | 4, name?: string): VReg;
  vOf(r: Register): VReg;
  emit(opcode: string, mods: string[], ops: MOperand[], ndefs: number, guard?: MGuard | null): void;
  inReg(o: MOperand): MOperand;
  /** A loop each lane leaves once `done` holds for it (the instruction's guard branches around it). */
  openCasLoop(): { loop: number; cont: number };
  closeCasLoop(loop: number, done: VReg, cont: number): void;
  r(v: VReg, part?: number, span?: number, mods?: Partial<VRegOperand>): VRegOperand;
  part(o: Operand, part: number, opts?: { float?: boolean }): MOperand;
  def(o: Operand | undefined, part?: number): MOperand;
}

/** Uniform registers holding an object handle (UR4:UR5 holds the global memory descriptor). */
const HANDLE_UR = 6;
const RZ: SassOperand = { k: 'reg', file: 'R', n: 255 };
const PT: SassOperand = { k: 'reg', file: 'P', n: 7 };
const URZ: SassOperand = { k: 'reg', file: 'UR', n: 63 };
/** ptxas's level operand of a lookup without an explicit level (f32 -32.0). */
const BASE_LEVEL = 0xc2000000;

const TEX_GEOMETRY: Record<string, { coords: number; layered: boolean }> = {
  '1D': { coords: 1, layered: false }, '2D': { coords: 2, layered: false }, '3D': { coords: 3, layered: false },
  ARRAY_1D: { coords: 2, layered: true }, ARRAY_2D: { coords: 3, layered: true }, CUBE: { coords: 3, layered: false },
  ARRAY_CUBE: { coords: 4, layered: true },
};
/** Surface geometry tokens of SULD/SUST. */
const SURFACE_GEOMETRY: Record<string, string> = { '1D': '1D', '2D': '2D', '3D': '3D', ARRAY_1D: '1D_ARRAY', ARRAY_2D: '2D_ARRAY' };
const SURFACE_SIZE: Record<number, string | undefined> = { 1: 'U8', 2: 'U16', 4: undefined, 8: '64', 16: '128' };
const ELEMENT_BYTES: Record<string, number> = { B8: 1, B16: 2, B32: 4, B64: 8 };
const MOV_LIKE = new Set(['MOV', 'COPY', 'MOVPHI', 'LDC', 'ULDC']);
/** How many copies a handle may go through on its way from the parameter. */
const MAX_CHAIN = 8;

/** Unique defining instruction of each register of a function (null: several), cached per IR version. */
const defCache = new WeakMap<OriFunction, { version: number; defs: Map<Register, Instr | null> }>();
function defsOf(fn: OriFunction): Map<Register, Instr | null> {
  const hit = defCache.get(fn);
  if (hit && hit.version === fn.irVersion) return hit.defs;
  const defs = new Map<Register, Instr | null>();
  for (const b of fn.blocks) for (const i of b.instrs) for (const d of i.defs) if (d.kind === 'reg') defs.set(d.reg, defs.has(d.reg) ? null : i);
  defCache.set(fn, { version: fn.irVersion, defs });
  return defs;
}

/** The constant-bank-0 offset the handle operand was loaded from, or undefined. */
function handleOffset(ins: Instr, o: Operand): number | undefined {
  const fn = ins.block?.fn;
  let cur: Operand = o;
  for (let step = 0; step < MAX_CHAIN; step++) {
    if (cur.kind === 'cbank') return cur.bank === 0 && !cur.index ? cur.offset : undefined;
    if (cur.kind !== 'reg' || !fn) return undefined;
    const d = defsOf(fn).get(cur.reg);
    if (!d || d.guard || !MOV_LIKE.has(d.opcode) || d.uses.length !== 1) return undefined;
    cur = d.uses[0]!;
  }
  return undefined;
}

/**
 * The texture instruction `op(ur, guard)` on the handle operand: a kernel parameter's handle straight from the
 * constant bank; a handle in a register (per thread: bindlessTexture reads its handles from another texture) in a
 * loop over its distinct values, as ptxas does (it elects a value, moves it to the uniform datapath with R2UR and
 * runs the instruction for the lanes holding it): each turn broadcasts the value of the lowest lane still in the loop
 * (`VOTE.ANY` ballot, `FLO`, `SHFL.IDX`), `R2UR`s it, runs the instruction under `handle == value`, and those lanes
 * leave. (ptxas's election uses an R2UR form with a predicate result the codec lacks; the broadcast gives the same.)
 */
function withHandle(sel: TextureSelector, ins: Instr, pair: boolean, op: (ur: SassOperand, guard?: MGuard) => void): void {
  const off = handleOffset(ins, ins.uses[0]!);
  if (off !== undefined) return op(loadHandle(sel, off, pair));
  const h = ins.uses[0]!;
  if (h.kind !== 'reg') sel.fail('a texture/surface handle that is neither a kernel parameter nor a register');
  const lo = sel.inReg(sel.part(h, 0));
  const { loop, cont } = sel.openCasLoop();
  const ballot = sel.newV('R', 1);
  sel.emit('VOTE', ['ANY'], [sel.r(ballot), PT, PT], 2, undefined);
  const leader = sel.newV('R', 1);
  sel.emit('FLO', ['U32'], [sel.r(leader), sel.r(ballot)], 1, undefined);
  const v = sel.newV('R', 1);
  sel.emit('SHFL', ['IDX'], [PT, sel.r(v), lo, sel.r(leader), { k: 'int', v: 0x1f }], 2, undefined);
  const ur: SassOperand = { k: 'reg', file: 'UR', n: HANDLE_UR };
  sel.emit('R2UR', [], [ur, sel.r(v)], 1, undefined);
  if (pair) sel.emit('UMOV', [], [{ k: 'reg', file: 'UR', n: HANDLE_UR + 1 }, URZ], 1, null);
  const mine = sel.newV('P', 1);
  sel.emit('ISETP', ['EQ', 'U32', 'AND'], [sel.r(mine), PT, sel.r(v), lo, PT], 2, undefined);
  op(ur, { v: mine, not: false });
  sel.closeCasLoop(loop, mine, cont);
}

/** The parameter offset of a surface handle (per-thread surface handles are not selected yet). */
function paramHandle(sel: TextureSelector, ins: Instr): number {
  const off = handleOffset(ins, ins.uses[0]!);
  if (off === undefined) sel.fail('a surface handle that is not a kernel parameter (per-thread surface handles)');
  return off;
}

function loadHandle(sel: TextureSelector, off: number, pair: boolean): SassOperand {
  const ur: SassOperand = { k: 'reg', file: 'UR', n: HANDLE_UR };
  // unguarded: uniform instructions take UP guards only, and loading the handle is harmless for every lane
  sel.emit('ULDC', [], [ur, { k: 'cbank', bank: 0, off }], 1, null);
  if (pair) sel.emit('UMOV', [], [{ k: 'reg', file: 'UR', n: HANDLE_UR + 1 }, URZ], 1, null);
  return ur;
}

/** A register tuple holding `vals` in order (1, 2 or 4 registers; a 3-tuple uses the first 3 of a quad). */
function tuple(sel: TextureSelector, vals: MOperand[]): VRegOperand {
  const n = vals.length;
  const v = sel.newV('R', n === 1 ? 1 : n === 2 ? 2 : 4);
  vals.forEach((x, k) => sel.emit('MOV', [], [sel.r(v, k), x], 1));
  return sel.r(v, 0, n);
}

export function selectTexture(sel: TextureSelector, ins: Instr): void {
  switch (ins.opcode) {
    case 'TEX':
      return tex(sel, ins);
    case 'TLD4':
      return tld4(sel, ins);
    case 'SULD':
      return suld(sel, ins);
    case 'SUST':
      return sust(sel, ins);
    default:
      return sel.fail(`${ins.opcode} has no selection to SASS yet`);
  }
}

function tex(sel: TextureSelector, ins: Instr): void {
  const geo = ins.mods.find((m) => m in TEX_GEOMETRY);
  if (!geo) sel.fail('texture geometry');
  if (ins.mods.includes('GRAD')) sel.fail('texture lookups with explicit gradients (TXD)');
  const types = ins.mods.filter((m) => m === 'F32' || m === 'S32' || m === 'U32');
  const intCoords = types[1] === 'S32';
  const level = ins.mods.includes('LL');
  const n = TEX_GEOMETRY[geo]!.coords;
  if (intCoords && (geo !== '1D' || level)) sel.fail(`integer-coordinate lookups of ${geo}${level ? ' with a level' : ''}`);
  if (ins.defs.length !== 4) sel.fail('texture lookup without 4 results');
  const coords = ins.uses.slice(1, 1 + n).map((u) => sel.part(u, 0, { float: !intCoords }));
  // float 1D lookups: ptxas 13 on sm_90 writes them as 2D ones at y = 0 (`TEX.LL Rd2, Rd, Ra, Rb, UR4, 0x0, 2D` with
  // Ra = x, RZ); there is no 1D TEX form
  const geometry = !intCoords && geo === '1D' ? '2D' : geo;
  if (geometry !== geo) coords.push(RZ);
  const ra = tuple(sel, coords);
  const rb = intCoords ? undefined : tuple(sel, [level ? sel.part(ins.uses[1 + n]!, 0, { float: true }) : { k: 'int', v: BASE_LEVEL }]);
  const d = sel.newV('R', 2);
  const d2 = sel.newV('R', 2);
  withHandle(sel, ins, true, (ur, guard) => {
    if (intCoords) sel.emit('TLD', ['LZ'], [sel.r(d2, 0, 2), sel.r(d, 0, 2), ra, ur, { k: 'int', v: 0 }, { k: 'name', name: geo }], 2, guard);
    else sel.emit('TEX', ['LL'], [sel.r(d2, 0, 2), sel.r(d, 0, 2), ra, rb!, ur, { k: 'int', v: 0 }, { k: 'name', name: geometry }], 2, guard);
  });
  ins.defs.forEach((o, k) => {
    if (o.kind !== 'reg') return;
    sel.emit('MOV', [], [sel.def(o), sel.r(k < 2 ? d : d2, k & 1)], 1);
  });
}

/** `TLD4.<C> Rd2, Rd, Ra, RZ, URh, 0x0, 2D` (2D gathers: Ra = x, y; no level operand). */
function tld4(sel: TextureSelector, ins: Instr): void {
  const comp = ins.mods.find((m) => m === 'R' || m === 'G' || m === 'B' || m === 'A');
  if (!comp || !ins.mods.includes('2D')) sel.fail('gathers other than 2D');
  if (ins.defs.length !== 4) sel.fail('gather without 4 results');
  const ra = tuple(sel, ins.uses.slice(1, 3).map((u) => sel.part(u, 0, { float: true })));
  const d = sel.newV('R', 2);
  const d2 = sel.newV('R', 2);
  withHandle(sel, ins, true, (ur, guard) => {
    sel.emit('TLD4', [comp!], [sel.r(d2, 0, 2), sel.r(d, 0, 2), ra, RZ, ur, { k: 'int', v: 0 }, { k: 'name', name: '2D' }], 2, guard);
  });
  ins.defs.forEach((o, k) => {
    if (o.kind === 'reg') sel.emit('MOV', [], [sel.def(o), sel.r(k < 2 ? d : d2, k & 1)], 1);
  });
}

/** Surface coordinates in SASS order: x (bytes), y, z, then the array index (Ori puts it first). */
function surfaceCoords(sel: TextureSelector, ins: Instr, geo: string): { ra: VRegOperand; n: number } {
  const layered = geo.startsWith('ARRAY');
  const n = layered ? (geo === 'ARRAY_1D' ? 2 : 3) : geo === '1D' ? 1 : geo === '2D' ? 2 : 3;
  const vals = ins.uses.slice(1, 1 + n).map((u) => sel.part(u, 0));
  if (vals.length !== n) sel.fail('surface coordinates');
  if (layered) vals.push(vals.shift()!);
  return { ra: tuple(sel, vals), n };
}

function surfaceMods(sel: TextureSelector, ins: Instr, total: number, store: boolean): { mods: string[]; geo: string } {
  const geo = ins.mods.find((m) => m in SURFACE_GEOMETRY);
  if (!geo) sel.fail('surface geometry');
  if (!(total in SURFACE_SIZE)) sel.fail(`a surface access of ${total} bytes`);
  const size = SURFACE_SIZE[total];
  const g = SURFACE_GEOMETRY[geo]!;
  // nvdisasm's order: .64/.128 before the geometry, .U8/.U16 after it; out-of-range mode last
  const mode = ins.mods.includes('ZERO') ? (store ? 'ZERO' : 'IGN') : ins.mods.includes('CLAMP') ? undefined : 'TRAP';
  if (mode === 'ZERO') sel.fail('surface stores with .zero');
  const mods = ['D', 'BA', ...(size === '64' || size === '128' ? [size] : []), g, ...(size === 'U8' || size === 'U16' ? [size] : []), 'STRONG', 'SM', ...(mode ? [mode] : [])];
  return { mods, geo };
}

function elementBytes(sel: TextureSelector, ins: Instr): number {
  const b = ELEMENT_BYTES[ins.mods.find((m) => m in ELEMENT_BYTES) ?? ''];
  if (!b) sel.fail('surface element size');
  return b;
}

/** PRMT selector taking element k of `size` bytes (1 or 2) to the low bytes, zeros above (b = RZ). */
function extractSelector(size: number, k: number): number {
  return size === 1 ? 0x4440 | k : 0x4400 | ((2 * k + 1) << 4) | (2 * k);
}

function suld(sel: TextureSelector, ins: Instr): void {
  const size = elementBytes(sel, ins);
  const n = ins.defs.length;
  const total = size * n;
  const { mods, geo } = surfaceMods(sel, ins, total, false);
  const { ra } = surfaceCoords(sel, ins, geo);
  const ur = loadHandle(sel, paramHandle(sel, ins), false);
  const words = Math.max(1, total / 4);
  const d = sel.newV('R', words === 1 ? 1 : words === 2 ? 2 : 4);
  sel.emit('SULD', mods, [sel.r(d, 0, words), { k: 'vmem', base: ra.v, wide: false, off: 0 }, ur, { k: 'int', v: 0 }], 1);
  ins.defs.forEach((o, k) => {
    if (o.kind !== 'reg') return;
    if (size >= 4) {
      const w = size / 4;
      for (let p = 0; p < w; p++) sel.emit('MOV', [], [sel.def(o, p), sel.r(d, k * w + p)], 1);
    } else if (n === 1) {
      sel.emit('MOV', [], [sel.def(o), sel.r(d, 0)], 1);
    } else {
      // element k of a packed word: its bytes to the bottom, zero-extended
      const word = Math.floor((k * size) / 4);
      const kk = k - (word * 4) / size;
      sel.emit('PRMT', [], [sel.def(o), sel.r(d, word), { k: 'int', v: extractSelector(size, kk) }, RZ], 1);
    }
  });
}

function sust(sel: TextureSelector, ins: Instr): void {
  const size = elementBytes(sel, ins);
  const geo = ins.mods.find((m) => m in SURFACE_GEOMETRY);
  if (!geo) sel.fail('surface geometry');
  const nc = geo === '1D' ? 1 : geo === '2D' || geo === 'ARRAY_1D' ? 2 : 3;
  const values = ins.uses.slice(1 + nc);
  const total = size * values.length;
  const { mods } = surfaceMods(sel, ins, total, true);
  const { ra } = surfaceCoords(sel, ins, geo);
  let data: VRegOperand;
  if (size >= 4) {
    const parts: MOperand[] = [];
    for (const v of values) for (let p = 0; p < size / 4; p++) parts.push(sel.part(v, p));
    data = tuple(sel, parts);
  } else {
    data = tuple(sel, packSubWords(sel, values.map((v) => sel.part(v, 0)), size));
  }
  const ur = loadHandle(sel, paramHandle(sel, ins), false);
  sel.emit('SUST', mods, [{ k: 'vmem', base: ra.v, wide: false, off: 0 }, data, ur, { k: 'int', v: 0 }], 0);
}

/** 8/16-bit elements packed into 32-bit words, first element in the low bytes (PRMT, as ptxas). */
function packSubWords(sel: TextureSelector, vals: MOperand[], size: number): MOperand[] {
  const reg = (x: MOperand): MOperand => {
    if ((x as VRegOperand).k === 'vreg' || (x as SassOperand).k === 'reg') return x;
    const t = sel.newV('R', 1);
    sel.emit('MOV', [], [sel.r(t), x], 1);
    return sel.r(t);
  };
  const prmt = (a: MOperand, s: number, b: MOperand): MOperand => {
    const t = sel.newV('R', 1);
    sel.emit('PRMT', [], [sel.r(t), reg(a), { k: 'int', v: s }, reg(b)], 1);
    return sel.r(t);
  };
  if (vals.length === 1) return [reg(vals[0]!)];
  if (size === 2) {
    const out: MOperand[] = [];
    for (let k = 0; k < vals.length; k += 2) out.push(prmt(vals[k]!, 0x5410, vals[k + 1]!));
    return out;
  }
  // bytes: pairs first (byte 0 of a, byte 0 of b), then two pairs into one word
  const lo = prmt(vals[0]!, 0x0040, vals[1]!);
  if (vals.length === 2) return [lo];
  const hi = prmt(vals[2]!, 0x0040, vals[3]!);
  return [prmt(lo, 0x5410, hi)];
}
