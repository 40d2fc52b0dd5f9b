import { RZ, reg, type Operand as OriOperand, type Register } from '@ptxforge/kernel';
import type { Operand } from '../ast.js';
import type { FnLowerer } from './context.js';
import { ptxType, type PtxType } from './types.js';

/**
 * Texture and surface instructions on texture/surface OBJECTS (bindless: the handle is a `.u64` register, what
 * CUDA 11+ emits for `cudaTextureObject_t` / `cudaSurfaceObject_t`), lowered to the Ori forms of
 * docs/ori-semantics.md "Textures and surfaces":
 *
 *   d0, d1, d2, d3 = TEX.<GEOM>.<DT>.<CT>[.LL|.GRAD] h, coords... [, lod | dPdx..., dPdy...]
 *   d0, d1, d2, d3 = TLD4.<R|G|B|A>.<GEOM>.<DT>.F32 h, coords...
 *   d = TXQ.<QUERY> h                 d = SUQ.<QUERY> h
 *   d0..dn = SULD.<GEOM>.<B8|B16|B32|B64>.<TRAP|CLAMP|ZERO> h, coords...
 *   SUST.<GEOM>.<B8|B16|B32|B64>.<TRAP|CLAMP|ZERO> h, coords..., v0..vn
 *
 * Coordinates are the meaningful ones in PTX order (array index first; the padding element of 3d/a2d/cube
 * vectors is dropped). `.texref`/`.surfref` module variables (the pre-CUDA-12 bound references) and the
 * independent sampler mode are refused with a located PTX_UNSUPPORTED naming the construct.
 */
type Handler = (c: FnLowerer) => void;

const U32 = ptxType('u32')!;
const S32 = ptxType('s32')!;
const F32 = ptxType('f32')!;
const B32 = ptxType('b32')!;
const U64 = ptxType('u64')!;

/** PTX geometry -> Ori geometry modifier, number of meaningful coordinates (array index included), vector size. */
const GEOMETRY: Record<string, { ori: string; coords: number; vec: number; layered: boolean }> = {
  '1d': { ori: '1D', coords: 1, vec: 1, layered: false },
  '2d': { ori: '2D', coords: 2, vec: 2, layered: false },
  '3d': { ori: '3D', coords: 3, vec: 4, layered: false },
  a1d: { ori: 'ARRAY_1D', coords: 2, vec: 2, layered: true },
  a2d: { ori: 'ARRAY_2D', coords: 3, vec: 4, layered: true },
  cube: { ori: 'CUBE', coords: 3, vec: 4, layered: false },
  acube: { ori: 'ARRAY_CUBE', coords: 4, vec: 4, layered: true },
};
/** Gradient vector sizes per geometry (`tex.grad`: dPdx and dPdy have one component per spatial axis). */
const GRAD_VEC: Record<string, number> = { '1d': 1, '2d': 2, '3d': 4, a1d: 1, a2d: 2, cube: 4, acube: 4 };
const SURFACE_GEOMETRIES = new Set(['1d', '2d', '3d', 'a1d', 'a2d']);
const CLAMP_MODES: Record<string, string> = { trap: 'TRAP', clamp: 'CLAMP', zero: 'ZERO' };
const TEX_QUERIES: Record<string, string> = {
  width: 'WIDTH', height: 'HEIGHT', depth: 'DEPTH', array_size: 'ARRAY_SIZE', num_mipmap_levels: 'NUM_MIPMAP_LEVELS',
  num_samples: 'NUM_SAMPLES', normalized_coords: 'NORMALIZED_COORDS', channel_order: 'CHANNEL_ORDER',
  channel_data_type: 'CHANNEL_DATA_TYPE', filter_mode: 'FILTER_MODE',
  addr_mode_0: 'ADDR_MODE_0', addr_mode_1: 'ADDR_MODE_1', addr_mode_2: 'ADDR_MODE_2',
};
const SURF_QUERIES: Record<string, string> = {
  width: 'WIDTH', height: 'HEIGHT', depth: 'DEPTH', array_size: 'ARRAY_SIZE', channel_order: 'CHANNEL_ORDER',
  channel_data_type: 'CHANNEL_DATA_TYPE', memory_layout: 'MEMORY_LAYOUT',
};
/** Cache operators of suld/sust: hints the interpreter ignores. */
const CACHE_OPS = new Set(['ca', 'cg', 'cs', 'cv', 'wb', 'wt', 'lu']);

function has(c: FnLowerer, m: string): boolean {
  return c.ins.mods.includes(m);
}

/** The one geometry modifier of the instruction. */
function geometry(c: FnLowerer, allowed: (g: string) => boolean): string {
  const gs = c.ins.mods.filter((m) => m in GEOMETRY || m === '2dms' || m === 'a2dms');
  if (gs.length !== 1) c.fail('PTX_SEMANTIC', `${c.opText}: expected one geometry (.1d, .2d, .3d, .a1d, .a2d, .cube, .acube)`);
  const g = gs[0]!;
  if (!allowed(g)) c.unsupported(`the .${g} geometry of ${c.ins.opcode}`);
  return g;
}

/** The handle operand `[h, ...]`: a .u64 register holding a texture or surface object. */
function handleOf(c: FnLowerer, name: string): OriOperand {
  const s = c.lookup(name);
  if (!s) c.fail('PTX_SEMANTIC', `${c.opText}: '${name}' is not declared`);
  if (s.kind !== 'reg') {
    // A .texref/.surfref/.global .texref variable: the bound-reference model CUDA 12 no longer emits.
    c.unsupported(`${c.opText} on '${name}' (a texture/surface reference variable; only texture and surface objects held in .u64 registers are supported)`);
  }
  return c.src({ kind: 'name', name }, U64);
}

/** The `[h, {coords}]` operand: handle and the vector operand (independent sampler mode `[t, s, c]` refused). */
function resource(c: FnLowerer, o: Operand, withCoords: boolean): { handle: OriOperand; coords?: Operand } {
  if (o.kind !== 'addr' || !o.base) c.fail('PTX_SEMANTIC', `${c.opText}: expected '[handle${withCoords ? ', {coordinates}' : ''}]', found '${c.describe(o)}'`);
  const list = o.list ?? [{ kind: 'name', name: o.base } as Operand];
  if (o.offset !== 0n) c.fail('PTX_SEMANTIC', `${c.opText}: a texture/surface operand takes no offset`);
  if (!withCoords) {
    if (list.length !== 1) c.fail('PTX_SEMANTIC', `${c.opText}: expected '[handle]'`);
    return { handle: handleOf(c, o.base) };
  }
  if (list.length === 3) c.unsupported(`${c.opText} with a separate sampler (independent texture mode)`);
  if (list.length !== 2) c.fail('PTX_SEMANTIC', `${c.opText}: expected '[handle, {coordinates}]'`);
  return { handle: handleOf(c, o.base), coords: list[1]! };
}

/** Elements of a vector operand of exactly n elements (a scalar is a vector of one). */
function vector(c: FnLowerer, o: Operand, n: number, what: string): Operand[] {
  if (o.kind === 'vec') {
    if (o.elems.length !== n) c.fail('PTX_SEMANTIC', `${c.opText}: expected ${what} of ${n} element${n > 1 ? 's' : ''}, found ${o.elems.length}`);
    return o.elems;
  }
  if (n === 1 && o.kind !== 'addr') return [o];
  if (o.kind === 'name') {
    const s = c.lookup(o.name);
    if (s?.kind === 'reg' && s.vec === n) return s.regs.map((_, k) => ({ kind: 'name', name: o.name, comp: 'xyzw'[k]! }) as Operand);
  }
  c.fail('PTX_SEMANTIC', `${c.opText}: expected ${what} of ${n} element${n > 1 ? 's' : ''}, found '${c.describe(o)}'`);
}

/** Coordinates in Ori order: the meaningful elements, array index as u32, the others of type ct. */
function coordinates(c: FnLowerer, o: Operand, g: string, ct: PtxType): OriOperand[] {
  const geo = GEOMETRY[g]!;
  const elems = vector(c, o, geo.vec, 'a coordinate vector');
  const out: OriOperand[] = [];
  for (let k = 0; k < geo.coords; k++) {
    const e = elems[k]!;
    if (e.kind === 'sink') c.fail('PTX_SEMANTIC', `${c.opText}: coordinate ${k} cannot be '_'`);
    out.push(c.src(e, geo.layered && k === 0 ? U32 : ct));
  }
  return out;
}

/** Destination registers of a 4-vector result (sinks become RZ). */
function results(c: FnLowerer, o: Operand, n: number): OriOperand[] {
  if (o.kind === 'pair') c.unsupported(`${c.opText} with a predicate destination (sparse texture residency)`);
  return vector(c, o, n, 'a destination vector').map((e) => (e.kind === 'sink' ? RZ : reg(checkDst(c, c.dst(e), 1))));
}

function checkDst(c: FnLowerer, r: Register, width: number): Register {
  if (r.cls !== 'R' || r.width !== width) c.fail('PTX_SEMANTIC', `${c.opText}: destination ${r.name} must be a ${width * 32}-bit register`);
  return r;
}

function refuseMods(c: FnLowerer, known: ReadonlySet<string>): void {
  for (const m of c.ins.mods) if (!known.has(m)) c.unsupported(`the .${m} modifier of ${c.ins.opcode}`);
}

const TEX_KNOWN = new Set(['v4', 'level', 'grad', 'f32', 's32', 'u32', ...Object.keys(GEOMETRY)]);
const tex: Handler = (c) => {
  refuseMods(c, TEX_KNOWN);
  const g = geometry(c, (x) => x in GEOMETRY);
  if (!has(c, 'v4')) c.unsupported(`${c.opText} (only .v4 results are supported)`);
  const [dt, ct] = typePair(c, ['f32', 's32', 'u32'], ['f32', 's32']);
  const level = has(c, 'level');
  const grad = has(c, 'grad');
  if (level && grad) c.fail('PTX_SEMANTIC', `${c.opText}: .level and .grad exclude each other`);
  const extra = level ? 1 : grad ? 2 : 0;
  if (c.ins.operands.length > 2 + extra) c.unsupported(`${c.opText} with a texel offset or depth-compare operand`);
  c.expectOperands(2 + extra);
  if (grad && ct.name !== 'f32') c.fail('PTX_SEMANTIC', `${c.opText}: .grad needs .f32 coordinates`);
  const defs = results(c, c.operand(0), 4);
  const { handle, coords } = resource(c, c.operand(1), true);
  const uses = [handle, ...coordinates(c, coords!, g, ct)];
  if (level) uses.push(c.src(c.operand(2), ct.name === 'f32' ? F32 : S32));
  if (grad) {
    const n = GRAD_VEC[g]!;
    const spatial = g === '3d' || g === 'cube' || g === 'acube' ? 3 : n;
    for (const k of [2, 3]) uses.push(...vector(c, c.operand(k), n, 'a gradient vector').slice(0, spatial).map((e) => c.src(e, F32)));
  }
  c.emit('TEX', [GEOMETRY[g]!.ori, dt.name.toUpperCase(), ct.name.toUpperCase(), ...(level ? ['LL'] : grad ? ['GRAD'] : [])], defs, uses);
};

/** The destination and coordinate types (`.v4.<dt>.<ct>`), from the allowed lists. */
function typePair(c: FnLowerer, dts: readonly string[], cts: readonly string[]): [PtxType, PtxType] {
  const ts = c.ins.mods.filter((m) => ptxType(m) !== undefined);
  if (ts.length !== 2) c.fail('PTX_SEMANTIC', `${c.opText}: expected a destination and a coordinate type (.v4.f32.f32)`);
  if (!dts.includes(ts[0]!)) c.unsupported(`${c.opText} (destination type .${ts[0]})`);
  if (!cts.includes(ts[1]!)) c.unsupported(`${c.opText} (coordinate type .${ts[1]})`);
  return [ptxType(ts[0]!)!, ptxType(ts[1]!)!];
}

const TLD4_COMPS: Record<string, string> = { r: 'R', g: 'G', b: 'B', a: 'A' };
const TLD4_KNOWN = new Set(['v4', 'f32', 's32', 'u32', '2d', ...Object.keys(TLD4_COMPS)]);
const tld4: Handler = (c) => {
  const comp = c.ins.mods.find((m) => m in TLD4_COMPS);
  if (!comp) c.fail('PTX_SEMANTIC', `${c.opText}: expected a component (.r, .g, .b, .a)`);
  const g = geometry(c, (x) => x === '2d');
  refuseMods(c, TLD4_KNOWN);
  if (!has(c, 'v4')) c.fail('PTX_SEMANTIC', `${c.opText}: tld4 returns a .v4 vector`);
  const [dt, ct] = typePair(c, ['f32', 's32', 'u32'], ['f32']);
  if (c.ins.operands.length > 2) c.unsupported(`${c.opText} with a texel offset or depth-compare operand`);
  c.expectOperands(2);
  const defs = results(c, c.operand(0), 4);
  const { handle, coords } = resource(c, c.operand(1), true);
  c.emit('TLD4', [TLD4_COMPS[comp!]!, GEOMETRY[g]!.ori, dt.name.toUpperCase(), ct.name.toUpperCase()], defs, [handle, ...coordinates(c, coords!, g, ct)]);
};

function query(op: 'TXQ' | 'SUQ', table: Record<string, string>): Handler {
  return (c) => {
    const q = c.ins.mods.find((m) => m in table);
    if (!q) c.fail('PTX_SEMANTIC', `${c.opText}: expected a query (${Object.keys(table).map((k) => `.${k}`).join(', ')})`);
    if (has(c, 'level')) c.unsupported(`${c.opText} (queries of a mipmap level)`);
    for (const m of c.ins.mods) if (m !== q && m !== 'b32') c.unsupported(`the .${m} modifier of ${c.ins.opcode}`);
    if (!has(c, 'b32')) c.fail('PTX_SEMANTIC', `${c.opText}: expected .b32`);
    c.expectOperands(2);
    const d = checkDst(c, c.dst(c.operand(0)), 1);
    const { handle } = resource(c, c.operand(1), false);
    c.emit(op, [table[q!]!], [reg(d)], [handle]);
  };
}

const SURF_TYPES: Record<string, number> = { b8: 1, b16: 2, b32: 4, b64: 8 };

/** suld.b / sust.b shared parts: geometry, element type, vector width, out-of-range mode. */
function surfaceForm(c: FnLowerer): { g: string; size: number; n: number; mode: string } {
  if (has(c, 'p')) c.unsupported(`${c.opText} (formatted surface access .p)`);
  if (!has(c, 'b')) c.fail('PTX_SEMANTIC', `${c.opText}: expected .b (unformatted) or .p (formatted)`);
  const g = geometry(c, (x) => SURFACE_GEOMETRIES.has(x));
  const ts = c.ins.mods.filter((m) => m in SURF_TYPES);
  if (ts.length !== 1) {
    if (c.ins.mods.includes('b128')) c.unsupported(`${c.opText} (.b128 surface elements)`);
    c.fail('PTX_SEMANTIC', `${c.opText}: expected one of .b8, .b16, .b32, .b64`);
  }
  const n = has(c, 'v4') ? 4 : has(c, 'v2') ? 2 : 1;
  const modes = c.ins.mods.filter((m) => m in CLAMP_MODES);
  if (modes.length > 1) c.fail('PTX_SEMANTIC', `${c.opText}: more than one of .trap, .clamp, .zero`);
  const mode: string = modes[0] ?? 'trap';
  const size = SURF_TYPES[ts[0]!]!;
  if (n * size > 16) c.fail('PTX_SEMANTIC', `${c.opText}: a vector of ${n} .${ts[0]} elements is wider than 128 bits`);
  const known = new Set(['b', g, ts[0]!, 'v2', 'v4', ...Object.keys(CLAMP_MODES), ...CACHE_OPS]);
  for (const m of c.ins.mods) if (!known.has(m)) c.unsupported(`the .${m} modifier of ${c.ins.opcode}`);
  return { g, size, n, mode };
}

/** Surface coordinates: all .b32 (x in bytes for .b accesses), array index first. */
function surfaceCoords(c: FnLowerer, o: Operand, g: string): OriOperand[] {
  const geo = GEOMETRY[g]!;
  const elems = vector(c, o, geo.vec, 'a coordinate vector');
  return elems.slice(0, geo.coords).map((e, k) => {
    if (e.kind === 'sink') c.fail('PTX_SEMANTIC', `${c.opText}: coordinate ${k} cannot be '_'`);
    return c.src(e, B32);
  });
}

const suld: Handler = (c) => {
  const { g, size, n, mode } = surfaceForm(c);
  c.expectOperands(2);
  const width = size === 8 ? 2 : 1;
  const defs = vector(c, c.operand(0), n, 'a destination vector').map((e) => {
    if (e.kind === 'sink') return RZ;
    const d = c.dst(e);
    if (d.cls !== 'R' || d.width !== width) {
      // sub-word elements may land in 16- or 32-bit registers; .b64 needs a 64-bit one
      if (!(size < 8 && d.cls === 'R' && d.width === 1)) c.fail('PTX_SEMANTIC', `${c.opText}: destination ${d.name} does not hold a .b${size * 8} element`);
    }
    return reg(d);
  });
  const { handle, coords } = resource(c, c.operand(1), true);
  c.emit('SULD', [GEOMETRY[g]!.ori, `B${size * 8}`, CLAMP_MODES[mode]!], defs, [handle, ...surfaceCoords(c, coords!, g)]);
};

const sust: Handler = (c) => {
  const { g, size, n, mode } = surfaceForm(c);
  c.expectOperands(2);
  const { handle, coords } = resource(c, c.operand(0), true);
  const t = ptxType(`b${size * 8}`)!;
  const values = vector(c, c.operand(1), n, 'a source vector').map((e, k) => {
    if (e.kind === 'sink') c.fail('PTX_SEMANTIC', `${c.opText}: source element ${k} cannot be '_'`);
    return c.src(e, t);
  });
  c.emit('SUST', [GEOMETRY[g]!.ori, `B${size * 8}`, CLAMP_MODES[mode]!], [], [handle, ...surfaceCoords(c, coords!, g), ...values]);
};

export const TEXTURE_HANDLERS: Readonly<Record<string, Handler>> = {
  tex, tld4, txq: query('TXQ', TEX_QUERIES), suq: query('SUQ', SURF_QUERIES), suld, sust,
};
