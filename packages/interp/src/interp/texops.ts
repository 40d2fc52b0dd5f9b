/**
 * TEX, TLD4, TXQ, SULD, SUST and SUQ as warp-wide closures over the launch's texture/surface objects
 * (texture.ts holds the object model; docs/ori-semantics.md "Textures and surfaces" the Ori forms).
 */
import type { Instr, OriFunction } from '@ptxforge/kernel';
import { Trap } from './errors.js';
import { markWritten, readSrc, writeLane, type Exec, type Program } from './program.js';
import {
  GEOMETRY_SHAPE, queryResource, resolveHandle, surfaceOffset, texLookup, tld4Lookup,
  type Geometry, type SurfaceObject, type TextureObject,
} from './texture.js';

const GEOMETRIES = new Set(Object.keys(GEOMETRY_SHAPE));
const SIZES: Record<string, number> = { B8: 1, B16: 2, B32: 4, B64: 8 };
const COMPONENTS: Record<string, number> = { R: 0, G: 1, B: 2, A: 3 };

function geometryOf(i: Instr): Geometry {
  const g = i.mods.find((m) => GEOMETRIES.has(m));
  if (!g) throw new Trap('unsupported', `${i.fullOpcode} names no geometry (1D 2D 3D ARRAY_1D ARRAY_2D CUBE ARRAY_CUBE)`, -1);
  return g as Geometry;
}

function coordCount(g: Geometry): number {
  const s = GEOMETRY_SHAPE[g];
  return s.axes + (s.layered ? 1 : 0);
}

export function buildTextureOp(prog: Program, fn: OriFunction, i: Instr): Exec | undefined {
  switch (i.opcode) {
    case 'TEX':
    case 'TLD4':
      return buildTex(prog, fn, i);
    case 'TXQ':
    case 'SUQ':
      return buildQuery(prog, fn, i);
    case 'SULD':
    case 'SUST':
      return buildSurface(prog, fn, i);
  }
  return undefined;
}

function bad(i: Instr, why: string): Exec {
  return () => {
    throw new Trap('unsupported', `${i.fullOpcode}: ${why}`, -1);
  };
}

function buildTex(prog: Program, fn: OriFunction, i: Instr): Exec {
  const g = geometryOf(i);
  const n = coordCount(g);
  const cube = GEOMETRY_SHAPE[g].cube;
  // the result type (first) is what the program declares; the texture decides what comes back (texture.ts)
  const types = i.mods.filter((m) => m === 'F32' || m === 'S32' || m === 'U32');
  if (types.length !== 2) return bad(i, 'expected a result and a coordinate type');
  const ct = types[1]!;
  const integer = ct === 'S32';
  if (cube && integer) return bad(i, 'cube maps take f32 coordinates');
  const comp = i.opcode === 'TLD4' ? COMPONENTS[i.mods.find((m) => m in COMPONENTS) ?? ''] : undefined;
  if (i.opcode === 'TLD4' && comp === undefined) return bad(i, 'expected a component R, G, B or A');
  if (i.uses.length < 1 + n) return bad(i, `expected a handle and ${n} coordinates`);
  const handle = prog.src(fn, i.uses[0]!);
  const coords = i.uses.slice(1, 1 + n).map((u) => prog.src(fn, u));
  // .LL level / .GRAD gradients are read (they must be defined) but every texture has one level (level 0).
  const extra = i.uses.slice(1 + n).map((u) => prog.src(fn, u));
  const dsts = i.defs.map((d) => prog.dst(d));
  if (dsts.length !== 4) return bad(i, 'expected 4 results');
  const vals: bigint[] = new Array(n);
  return (w, m) => {
    const table = w.prog.layout.resources;
    for (let l = 0; l < 32; l++) {
      if (!((m >>> l) & 1)) continue;
      const t = resolveHandle(table, readSrc(w, handle, l) as bigint, 'texture', l) as TextureObject;
      for (let k = 0; k < n; k++) vals[k] = readSrc(w, coords[k]!, l) as bigint;
      for (const e of extra) readSrc(w, e, l);
      const r = comp === undefined ? texLookup(t, g, vals, integer) : tld4Lookup(t, g, comp, vals);
      for (let k = 0; k < 4; k++) writeLane(w, dsts[k]!, l, BigInt(r[k]!));
    }
    for (const d of dsts) markWritten(w, d, m);
  };
}

function buildQuery(prog: Program, fn: OriFunction, i: Instr): Exec {
  const q = i.mods[0];
  if (!q || i.defs.length !== 1 || i.uses.length !== 1) return bad(i, 'expected d = <QUERY> handle');
  const want = i.opcode === 'TXQ' ? 'texture' : 'surface';
  const handle = prog.src(fn, i.uses[0]!);
  const d = prog.dst(i.defs[0]!);
  return (w, m) => {
    for (let l = 0; l < 32; l++) {
      if (!((m >>> l) & 1)) continue;
      const r = resolveHandle(w.prog.layout.resources, readSrc(w, handle, l) as bigint, want, l);
      writeLane(w, d, l, BigInt(queryResource(r, q, l)));
    }
    markWritten(w, d, m);
  };
}

function buildSurface(prog: Program, fn: OriFunction, i: Instr): Exec {
  const g = geometryOf(i);
  const n = coordCount(g);
  const size = SIZES[i.mods.find((m) => m in SIZES) ?? ''];
  if (!size) return bad(i, 'expected an element size B8, B16, B32 or B64');
  const mode = i.mods.includes('ZERO') ? 'ZERO' : i.mods.includes('CLAMP') ? 'CLAMP' : 'TRAP';
  const handle = prog.src(fn, i.uses[0]!);
  const coords = i.uses.slice(1, 1 + n).map((u) => prog.src(fn, u));
  if (coords.length !== n) return bad(i, `expected a handle and ${n} coordinates`);
  const cv: number[] = new Array(n);
  const mask = (1n << BigInt(size * 8)) - 1n;
  if (i.opcode === 'SULD') {
    const dsts = i.defs.map((d) => prog.dst(d));
    if (!dsts.length || dsts.length > 4) return bad(i, 'expected 1, 2 or 4 results');
    return (w, m) => {
      for (let l = 0; l < 32; l++) {
        if (!((m >>> l) & 1)) continue;
        const s = resolveHandle(w.prog.layout.resources, readSrc(w, handle, l) as bigint, 'surface', l) as SurfaceObject;
        for (let k = 0; k < n; k++) cv[k] = Number(BigInt.asIntN(32, readSrc(w, coords[k]!, l) as bigint));
        const at = surfaceOffset(s, g, cv, size * dsts.length, mode, l);
        for (let k = 0; k < dsts.length; k++) writeLane(w, dsts[k]!, l, at < 0 ? 0n : readBytes(s, at + k * size, size));
      }
      for (const d of dsts) markWritten(w, d, m);
    };
  }
  const values = i.uses.slice(1 + n).map((u) => prog.src(fn, u));
  if (!values.length || values.length > 4) return bad(i, 'expected 1, 2 or 4 values');
  return (w, m) => {
    for (let l = 0; l < 32; l++) {
      if (!((m >>> l) & 1)) continue;
      const s = resolveHandle(w.prog.layout.resources, readSrc(w, handle, l) as bigint, 'surface', l) as SurfaceObject;
      for (let k = 0; k < n; k++) cv[k] = Number(BigInt.asIntN(32, readSrc(w, coords[k]!, l) as bigint));
      const at = surfaceOffset(s, g, cv, size * values.length, mode, l);
      if (at < 0) continue;
      for (let k = 0; k < values.length; k++) {
        const v = readSrc(w, values[k]!, l);
        writeBytes(s, at + k * size, size, (typeof v === 'boolean' ? (v ? 1n : 0n) : v) & mask);
      }
    }
  };
}

function readBytes(s: SurfaceObject, at: number, size: number): bigint {
  const b = s.region.bytes;
  let v = 0n;
  for (let k = size - 1; k >= 0; k--) v = (v << 8n) | BigInt(b[at + k]!);
  return v;
}

function writeBytes(s: SurfaceObject, at: number, size: number, v: bigint): void {
  const b = s.region.bytes;
  for (let k = 0; k < size; k++) {
    b[at + k] = Number(v & 0xffn);
    v >>= 8n;
  }
}
