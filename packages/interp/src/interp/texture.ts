/**
 * Texture and surface objects (docs/ori-semantics.md, "Textures and surfaces"): the launch gives each object a
 * handle (a 64-bit value, below 2^32 as CUDA's are) and a descriptor over one of its buffers; TEX, TLD4, TXQ,
 * SULD, SUST and SUQ resolve their handle operand in the launch's table. Sampling follows the CUDA C++
 * Programming Guide, "Texture Fetching": nearest-point sampling T[floor(x)], linear filtering with the weight
 * in 9-bit fixed point (8 fractional bits), address modes on texel indices, normalized coordinates scaled by
 * the size, cube faces by the major axis. Arithmetic is in doubles with one rounding to f32 at the end, so the
 * result is a function of the inputs only (optimized code and lifted SASS read the same bits).
 */
import { Trap } from './errors.js';
import type { Region } from './memory.js';

export type TexelFormat = 'u8' | 's8' | 'u16' | 's16' | 'u32' | 's32' | 'f16' | 'f32';
export type AddressMode = 'clamp' | 'wrap' | 'mirror' | 'border';

/** A texture object of a launch (`textures` in the launch JSON). */
export interface TextureSpec {
  /** The launch buffer holding the texels (row-major: x fastest, then y, z, layer; cube faces as layers). */
  readonly buffer: string;
  readonly offset?: number;
  readonly format: TexelFormat;
  /** Channels per texel: 1, 2 or 4 (default 1). */
  readonly channels?: 1 | 2 | 4;
  readonly width: number;
  readonly height?: number;
  readonly depth?: number;
  /** Layers of a layered texture (a1d/a2d), or of cube-map arrays (each layer 6 faces). */
  readonly layers?: number;
  readonly cube?: boolean;
  /** Bytes per row (default width * texel size). */
  readonly pitch?: number;
  readonly normalizedCoords?: boolean;
  readonly filter?: 'point' | 'linear';
  /** One mode for every axis, or one per axis. */
  readonly address?: AddressMode | readonly AddressMode[];
  /** `normalizedFloat`: 8/16-bit integer texels read as floats in [0, 1] ([-1, 1] signed). */
  readonly readMode?: 'element' | 'normalizedFloat';
}

/** A surface object (`surfaces` in the launch JSON): unformatted bytes addressed by (x in bytes, y, z, layer). */
export interface SurfaceSpec {
  readonly buffer: string;
  readonly offset?: number;
  /** Width in elements of `elementBytes` (default 4). */
  readonly width: number;
  readonly height?: number;
  readonly depth?: number;
  readonly layers?: number;
  readonly elementBytes?: number;
  readonly pitch?: number;
}

export interface TextureObject {
  readonly kind: 'texture';
  readonly name: string;
  readonly spec: TextureSpec;
  readonly region: Region;
  readonly base: number;
  readonly texelBytes: number;
  readonly chanBytes: number;
  readonly channels: number;
  readonly pitch: number;
  readonly dims: readonly [number, number, number];
  readonly layers: number;
  readonly modes: readonly [AddressMode, AddressMode, AddressMode];
}

export interface SurfaceObject {
  readonly kind: 'surface';
  readonly name: string;
  readonly spec: SurfaceSpec;
  readonly region: Region;
  readonly base: number;
  readonly rowBytes: number;
  readonly pitch: number;
  readonly dims: readonly [number, number, number];
  readonly layers: number;
}

export type ResourceObject = TextureObject | SurfaceObject;

const FORMAT_BYTES: Record<TexelFormat, number> = { u8: 1, s8: 1, u16: 2, s16: 2, u32: 4, s32: 4, f16: 2, f32: 4 };

function positive(v: number | undefined, dflt: number, what: string): number {
  const x = v ?? dflt;
  if (!Number.isInteger(x) || x < 1 || x > 1 << 24) throw new Error(`${what} must be a positive integer, got ${String(v)}`);
  return x;
}

/** Check a texture descriptor against its buffer and give the resolved object (Error with the reason otherwise). */
export function makeTexture(name: string, spec: TextureSpec, region: Region): TextureObject {
  const chanBytes = FORMAT_BYTES[spec.format];
  if (chanBytes === undefined) throw new Error(`unknown texel format '${String(spec.format)}'`);
  const channels = spec.channels ?? 1;
  if (channels !== 1 && channels !== 2 && channels !== 4) throw new Error(`channels must be 1, 2 or 4`);
  const texelBytes = chanBytes * channels;
  const w = positive(spec.width, 1, 'width');
  const h = positive(spec.height, 1, 'height');
  const d = positive(spec.depth, 1, 'depth');
  const layers = positive(spec.layers, 1, 'layers') * (spec.cube ? 6 : 1);
  if (spec.cube && w !== h) throw new Error('a cube map has square faces (width = height)');
  const pitch = spec.pitch ?? w * texelBytes;
  if (pitch < w * texelBytes) throw new Error(`pitch ${pitch} is less than a row (${w * texelBytes} bytes)`);
  const base = spec.offset ?? 0;
  const need = base + pitch * h * d * layers;
  if (need > region.size) throw new Error(`needs ${need} bytes of buffer '${spec.buffer}', which has ${region.size}`);
  const a = spec.address ?? 'clamp';
  const list = typeof a === 'string' ? [a, a, a] : [a[0] ?? 'clamp', a[1] ?? a[0] ?? 'clamp', a[2] ?? a[0] ?? 'clamp'];
  for (const m of list) if (!['clamp', 'wrap', 'mirror', 'border'].includes(m)) throw new Error(`unknown address mode '${m}'`);
  return {
    kind: 'texture', name, spec, region, base, texelBytes, chanBytes, channels, pitch, dims: [w, h, d], layers,
    modes: list as unknown as [AddressMode, AddressMode, AddressMode],
  };
}

export function makeSurface(name: string, spec: SurfaceSpec, region: Region): SurfaceObject {
  const eb = spec.elementBytes ?? 4;
  if (![1, 2, 4, 8, 16].includes(eb)) throw new Error(`elementBytes must be 1, 2, 4, 8 or 16`);
  const w = positive(spec.width, 1, 'width');
  const h = positive(spec.height, 1, 'height');
  const d = positive(spec.depth, 1, 'depth');
  const layers = positive(spec.layers, 1, 'layers');
  const rowBytes = w * eb;
  const pitch = spec.pitch ?? rowBytes;
  if (pitch < rowBytes) throw new Error(`pitch ${pitch} is less than a row (${rowBytes} bytes)`);
  const base = spec.offset ?? 0;
  const need = base + pitch * h * d * layers;
  if (need > region.size) throw new Error(`needs ${need} bytes of buffer '${spec.buffer}', which has ${region.size}`);
  return { kind: 'surface', name, spec, region, base, rowBytes, pitch, dims: [w, h, d], layers };
}

/** The object a handle names, or a trap. */
export function resolveHandle(table: ReadonlyMap<bigint, ResourceObject> | undefined, handle: bigint, want: 'texture' | 'surface', lane: number): ResourceObject {
  const r = table?.get(handle);
  if (!r) throw new Trap('bad-launch', `0x${handle.toString(16)} is not a ${want} handle of this launch`, lane);
  if (r.kind !== want) throw new Trap('bad-launch', `handle 0x${handle.toString(16)} names ${r.kind} '${r.name}', used as a ${want}`, lane);
  return r;
}

// ---- texture sampling -----------------------------------------------------------------------------------

export type Geometry = '1D' | '2D' | '3D' | 'ARRAY_1D' | 'ARRAY_2D' | 'CUBE' | 'ARRAY_CUBE';

/** Spatial axes and whether a layer index comes first. */
export const GEOMETRY_SHAPE: Record<Geometry, { axes: number; layered: boolean; cube: boolean }> = {
  '1D': { axes: 1, layered: false, cube: false },
  '2D': { axes: 2, layered: false, cube: false },
  '3D': { axes: 3, layered: false, cube: false },
  ARRAY_1D: { axes: 1, layered: true, cube: false },
  ARRAY_2D: { axes: 2, layered: true, cube: false },
  CUBE: { axes: 3, layered: false, cube: true },
  ARRAY_CUBE: { axes: 3, layered: true, cube: true },
};

const f32buf = new DataView(new ArrayBuffer(8));
export function f32FromBits(b: number): number {
  f32buf.setUint32(0, b >>> 0);
  return f32buf.getFloat32(0);
}
export function f32Bits(x: number): number {
  f32buf.setFloat32(0, x);
  return f32buf.getUint32(0);
}
function f16ToNumber(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

/** Channel c of the texel at byte `at`: raw integer bits (u32 view) and its numeric value for float returns. */
function channel(t: TextureObject, at: number, c: number, asFloat: boolean): number {
  if (c >= t.channels) return asFloat ? (c === 3 ? 1 : 0) : c === 3 ? 1 : 0;
  const v = t.region.view;
  const o = at + c * t.chanBytes;
  const norm = t.spec.readMode === 'normalizedFloat';
  switch (t.spec.format) {
    case 'u8': { const x = v.getUint8(o); return asFloat && norm ? x / 255 : x; }
    case 's8': { const x = v.getInt8(o); return asFloat && norm ? Math.max(x / 127, -1) : x; }
    case 'u16': { const x = v.getUint16(o, true); return asFloat && norm ? x / 65535 : x; }
    case 's16': { const x = v.getInt16(o, true); return asFloat && norm ? Math.max(x / 32767, -1) : x; }
    case 'u32': return v.getUint32(o, true);
    case 's32': return v.getInt32(o, true);
    case 'f16': return asFloat ? f16ToNumber(v.getUint16(o, true)) : v.getUint16(o, true);
    case 'f32': return asFloat ? v.getFloat32(o, true) : v.getUint32(o, true);
  }
}

/** Texel index after the address mode, or -1 for "outside" (border). */
function address(i: number, n: number, mode: AddressMode): number {
  if (i >= 0 && i < n) return i;
  switch (mode) {
    case 'clamp': return i < 0 ? 0 : n - 1;
    case 'border': return -1;
    case 'wrap': return ((i % n) + n) % n;
    case 'mirror': {
      const p = ((i % (2 * n)) + 2 * n) % (2 * n);
      return p < n ? p : 2 * n - 1 - p;
    }
  }
}

/** Byte offset of texel (x, y, z) of layer, or -1 when an index is outside (border). */
function texelAt(t: TextureObject, x: number, y: number, z: number, layer: number): number {
  const xi = address(x, t.dims[0], t.modes[0]);
  const yi = address(y, t.dims[1], t.modes[1]);
  const zi = address(z, t.dims[2], t.modes[2]);
  if (xi < 0 || yi < 0 || zi < 0) return -1;
  return t.base + ((layer * t.dims[2] + zi) * t.dims[1] + yi) * t.pitch + xi * t.texelBytes;
}

/** A float coordinate made finite and bounded (NaN reads as 0) before floor. */
function finite(x: number): number {
  if (Number.isNaN(x)) return 0;
  return Math.max(-(2 ** 30), Math.min(2 ** 30, x));
}

/** Linear-filter weight in 9-bit fixed point with 8 fractional bits (CUDA Programming Guide). */
function weight(frac: number): number {
  return Math.round(frac * 256) / 256;
}

/** Cube-map face and its [0,1] face coordinates for direction (x, y, z): the major axis table of the guide. */
function cubeFace(x: number, y: number, z: number): { face: number; s: number; t: number } {
  const ax = Math.abs(x), ay = Math.abs(y), az = Math.abs(z);
  let face: number, sc: number, tc: number, ma: number;
  if (ax >= ay && ax >= az) {
    ma = ax;
    if (x >= 0) { face = 0; sc = -z; tc = -y; } else { face = 1; sc = z; tc = -y; }
  } else if (ay >= az) {
    ma = ay;
    if (y >= 0) { face = 2; sc = x; tc = z; } else { face = 3; sc = x; tc = -z; }
  } else {
    ma = az;
    if (z >= 0) { face = 4; sc = x; tc = -y; } else { face = 5; sc = -x; tc = -y; }
  }
  if (ma === 0) return { face, s: 0.5, t: 0.5 };
  return { face, s: (sc / ma + 1) / 2, t: (tc / ma + 1) / 2 };
}

/** Result words of one texture read: 4 components as 32-bit patterns. */
export type Texel4 = [number, number, number, number];

interface Lookup {
  /** Unnormalized texel-space coordinates per axis (x, y, z). */
  coord: [number, number, number];
  layer: number;
  axes: number;
  /** Coordinates are integers (texel fetch, no filtering). */
  integer: boolean;
}

function prepareLookup(t: TextureObject, geo: Geometry, coords: readonly bigint[], intCoords: boolean): Lookup {
  const shape = GEOMETRY_SHAPE[geo];
  let k = 0;
  let layer = 0;
  if (shape.layered) {
    const n = t.layers / (shape.cube ? 6 : 1);
    layer = Math.min(Number(BigInt.asUintN(32, coords[k++]!)), n - 1);
  }
  const c: [number, number, number] = [0, 0, 0];
  if (shape.cube) {
    const f = cubeFace(f32FromBits(Number(coords[k]! & 0xffffffffn)), f32FromBits(Number(coords[k + 1]! & 0xffffffffn)), f32FromBits(Number(coords[k + 2]! & 0xffffffffn)));
    layer = layer * 6 + f.face;
    return { coord: [finite(f.s * t.dims[0]), finite(f.t * t.dims[1]), 0], layer, axes: 2, integer: false };
  }
  // Axes beyond the texture's own extents are not read: a 2D lookup of a 1D texture (no height) samples x alone, as
  // the hardware does for ptxas's sm_90 spelling of tex.1d (`TEX.LL ... 2D` with y = 0, docs/codegen.md)
  const own = t.spec.depth !== undefined ? 3 : t.spec.height !== undefined ? 2 : 1;
  const axes = shape.layered ? shape.axes : Math.min(shape.axes, own);
  for (let a = 0; a < axes; a++) {
    const bits = coords[k + a]! & 0xffffffffn;
    if (intCoords) c[a] = Number(BigInt.asIntN(32, bits));
    else c[a] = finite(t.spec.normalizedCoords ? f32FromBits(Number(bits)) * t.dims[a]! : f32FromBits(Number(bits)));
  }
  return { coord: c, layer, axes, integer: intCoords };
}

/** Component values (numbers) of the texel at integer indices, with border zeros. */
function fetch(t: TextureObject, i: readonly number[], layer: number, comp: number, asFloat: boolean): number {
  const at = texelAt(t, i[0]!, i[1] ?? 0, i[2] ?? 0, layer);
  if (at < 0) return 0;
  return channel(t, at, comp, asFloat);
}

/** One component of a TEX lookup as a number (float return) or integer. */
function sampleComponent(t: TextureObject, lk: Lookup, comp: number, asFloat: boolean): number {
  if (lk.integer || t.spec.filter !== 'linear' || !asFloat) {
    const idx = lk.coord.slice(0, lk.axes).map((x) => (lk.integer ? x : Math.floor(x)));
    return fetch(t, idx, lk.layer, comp, asFloat);
  }
  // linear: weights per axis over the 2^axes neighbours
  const lo: number[] = [];
  const w: number[] = [];
  for (let a = 0; a < lk.axes; a++) {
    const xb = lk.coord[a]! - 0.5;
    const i = Math.floor(xb);
    lo.push(i);
    w.push(weight(xb - i));
  }
  let sum = 0;
  for (let corner = 0; corner < 1 << lk.axes; corner++) {
    let f = 1;
    const idx: number[] = [];
    for (let a = 0; a < lk.axes; a++) {
      const hi = (corner >> a) & 1;
      idx.push(lo[a]! + hi);
      f *= hi ? w[a]! : 1 - w[a]!;
    }
    if (f !== 0) sum += f * fetch(t, idx, lk.layer, comp, true);
  }
  return sum;
}

/** The texture returns floats (float texels, or integer texels read as normalized floats), else integers. */
export function returnsFloat(t: TextureObject): boolean {
  return t.spec.format === 'f32' || t.spec.format === 'f16' || t.spec.readMode === 'normalizedFloat';
}

function resultWord(v: number, asFloat: boolean): number {
  return asFloat ? f32Bits(Math.fround(v)) : v >>> 0;
}

/**
 * TEX: 4 result words. As on hardware the texture decides what comes back, not the instruction's declared
 * result type (a PTX program reading integer texels as .f32 gets their integer bits): floats for float texels
 * and normalizedFloat reads (filtered when linear), integers for integer texels (never filtered). Coordinates
 * are f32 bits, or s32 texel indices (`intCoords`).
 */
export function texLookup(t: TextureObject, geo: Geometry, coords: readonly bigint[], intCoords: boolean): Texel4 {
  const lk = prepareLookup(t, geo, coords, intCoords);
  const asFloat = returnsFloat(t);
  const out: Texel4 = [0, 0, 0, 0];
  for (let c = 0; c < 4; c++) out[c] = resultWord(sampleComponent(t, lk, c, asFloat), asFloat);
  return out;
}

/** TLD4: component `comp` of the four texels of the bilinear footprint, in (i0,j1), (i1,j1), (i1,j0), (i0,j0) order. */
export function tld4Lookup(t: TextureObject, geo: Geometry, comp: number, coords: readonly bigint[]): Texel4 {
  const lk = prepareLookup(t, geo, coords, false);
  const i0 = Math.floor(lk.coord[0] - 0.5);
  const j0 = Math.floor(lk.coord[1] - 0.5);
  const asFloat = returnsFloat(t);
  const at: Array<[number, number]> = [[i0, j0 + 1], [i0 + 1, j0 + 1], [i0 + 1, j0], [i0, j0]];
  return at.map(([x, y]) => resultWord(fetch(t, [x, y], lk.layer, comp, asFloat), asFloat)) as Texel4;
}

/** TXQ / SUQ results. */
export function queryResource(r: ResourceObject, q: string, lane: number): number {
  switch (q) {
    case 'WIDTH': return r.dims[0];
    case 'HEIGHT': return r.spec.height ?? 0;
    case 'DEPTH': return r.spec.depth ?? 0;
    case 'ARRAY_SIZE': return r.spec.layers ?? 0;
  }
  if (r.kind === 'texture') {
    switch (q) {
      case 'NUM_MIPMAP_LEVELS': return 1;
      case 'NUM_SAMPLES': return 1;
      case 'NORMALIZED_COORDS': return r.spec.normalizedCoords ? 1 : 0;
      case 'FILTER_MODE': return r.spec.filter === 'linear' ? 1 : 0;
    }
  }
  throw new Trap('unsupported', `${r.kind} query .${q.toLowerCase()} has no value in the interpreter's object model`, lane);
}

// ---- surfaces -------------------------------------------------------------------------------------------

/**
 * Byte offset in the surface's buffer of an unformatted access of `size` bytes, or -1 when `.ZERO` drops it.
 * coords: x in bytes, then y, z (by geometry), layer first for arrays. Misaligned x traps in every mode.
 */
export function surfaceOffset(s: SurfaceObject, geo: Geometry, coords: readonly number[], size: number, mode: string, lane: number): number {
  const shape = GEOMETRY_SHAPE[geo];
  let k = 0;
  let layer = 0;
  if (shape.layered) layer = coords[k++]! | 0;
  const xyz = [0, 0, 0];
  for (let a = 0; a < shape.axes; a++) xyz[a] = coords[k + a]! | 0;
  if (xyz[0]! % size !== 0) throw new Trap('misaligned', `surface access of ${size} bytes at byte x = ${xyz[0]} of '${s.name}'`, lane);
  const limits = [s.rowBytes - size, s.dims[1] - 1, s.dims[2] - 1];
  let outside = layer < 0 || layer >= s.layers;
  for (let a = 0; a < 3; a++) if (xyz[a]! < 0 || xyz[a]! > limits[a]!) outside = true;
  if (outside) {
    if (mode === 'ZERO') return -1;
    if (mode === 'TRAP') {
      throw new Trap('out-of-bounds', `surface '${s.name}' access at (${[...(shape.layered ? [`layer ${layer}`] : []), ...xyz.slice(0, shape.axes)].join(', ')}) is outside ${s.dims[0]}x${s.dims[1]}x${s.dims[2]} elements${s.layers > 1 ? ` x ${s.layers} layers` : ''}`, lane);
    }
    for (let a = 0; a < 3; a++) xyz[a] = Math.max(0, Math.min(limits[a]!, xyz[a]!));
    xyz[0] = xyz[0]! - (xyz[0]! % size);
    layer = Math.max(0, Math.min(s.layers - 1, layer));
  }
  return s.base + ((layer * s.dims[2] + xyz[2]!) * s.dims[1] + xyz[1]!) * s.pitch + xyz[0]!;
}
