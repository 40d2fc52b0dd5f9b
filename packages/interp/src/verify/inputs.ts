/**
 * Inputs generated from a seed for a kernel that has no launch description: pointer-sized parameters get
 * their own generously sized buffer, 32-bit and smaller parameters small values, so typical kernels
 * (index by thread id, loop to n) stay in bounds and terminate quickly.
 */
import { mulberry32, type OriFunction, type OriModule } from '@ptxforge/kernel';
import type { BufferSpec, Launch, ParamSpec, ScalarType } from '../launch.js';
import type { SurfaceSpec, TextureSpec } from '../interp/texture.js';
import { paramUse } from './param-use.js';
import { resourceParams, type ResourceUse } from './resources.js';

/** The project's seeded PRNG (mulberry32, from the kernel), re-exported for the generator. */
export const rng: (seed: number) => () => number = mulberry32;

/** Bytes per generated buffer (64 KiB: 16K 32-bit elements). */
export const GENERATED_BUFFER_BYTES = 65536;

/** Dynamic shared memory given to a kernel that declares `.extern .shared` arrays (16 KiB). */
export const GENERATED_DYNAMIC_SHARED_BYTES = 16384;

/**
 * How a generated launch is sized. The default suits kernels indexed by thread id with loops bounded by a small
 * scalar; `compact` is the fallback verify-each tries when the default launch cannot run (a kernel indexing past
 * 64 KiB with its scalars, reading more shared memory than 16 KiB, or looping past the step budget): one block of
 * at most 32 threads, scalars 1..4, 1 MiB per pointer and 48 KiB of dynamic shared memory (the most a block gets
 * without opting in).
 */
export interface LaunchProfile {
  readonly bufferBytes: number;
  readonly scalarMax: number;
  readonly gridX: number;
  readonly blockCap: number;
  readonly dynamicSharedBytes: number;
  /** Buffer elements: undefined = mostly small integers below 256 and some floats; N = integers 0..N-1 (indices stay small). */
  readonly elementMax?: number;
  /** Shape the block by the thread ids the kernel reads (8 x n when it reads %tid.y, 4 x 4 x n for %tid.z). */
  readonly shapeByTid?: boolean;
}
export const DEFAULT_LAUNCH_PROFILE: LaunchProfile = { bufferBytes: GENERATED_BUFFER_BYTES, scalarMax: 64, gridX: 2, blockCap: 128, dynamicSharedBytes: GENERATED_DYNAMIC_SHARED_BYTES };
export const COMPACT_LAUNCH_PROFILE: LaunchProfile = { bufferBytes: 1 << 20, scalarMax: 4, gridX: 1, blockCap: 32, dynamicSharedBytes: 48 * 1024, elementMax: 4, shapeByTid: true };

/**
 * Bytes of every generated buffer before the address its parameter gets: kernels read a little before the
 * pointer they are given (a filter's left halo `p[i - r]`, `p[-1]` of a running scan) as they do inside a larger
 * allocation; 1 KiB keeps such reads (and 16-byte vector alignment) valid.
 */
export const POINTER_GUARD_BYTES = 1024;

export function generateLaunch(module: OriModule, fn: OriFunction, seed: number, profile: LaunchProfile = DEFAULT_LAUNCH_PROFILE): Launch {
  const rand = rng(seed ^ 0x9e3779b9);
  const [bx, by, bz] = blockShape(fn, profile);
  const buffers: Record<string, BufferSpec> = {};
  const params: ParamSpec[] = [];
  const textures: Record<string, TextureSpec> = {};
  const surfaces: Record<string, SurfaceSpec> = {};
  const handles = resourceParams(fn);
  const use = paramUse(module, fn);
  /** A generated buffer; the pointer given to the kernel lies past POINTER_GUARD_BYTES of zeros at its start. */
  const buffer = (name: string): string => {
    const values: number[] = new Array<number>(POINTER_GUARD_BYTES / 4).fill(0);
    for (let i = 0; i < profile.bufferBytes / 4; i++) {
      // Mostly small integers (bounded data-dependent loops), some floats in [-100, 100).
      const e = profile.elementMax;
      values.push(e !== undefined ? Math.floor(rand() * e) : rand() < 0.7 ? Math.floor(rand() * 256) : f32bits((rand() - 0.5) * 200));
    }
    buffers[name] = { type: 'u32', values };
    return name;
  };
  const scalar = (): number => 1 + Math.floor(rand() * profile.scalarMax);
  fn.params.forEach((p, k) => {
    const t = p.type.toLowerCase();
    const res = handles.get(k);
    if (res) {
      const name = `param${k}_${p.name}`;
      const made = generateResource(res, rand);
      buffers[name] = made.buffer;
      if (made.texture) textures[name] = { ...made.texture, buffer: name };
      else surfaces[name] = { ...made.surface!, buffer: name };
      params.push(made.texture ? { texture: name } : { surface: name });
      return;
    }
    if (p.count > 0) {
      // a structure by value: its fields used as addresses point into buffers of their own, the rest stays zero
      const fields = use.pointerFields.get(k) ?? [];
      params.push({ fields: fields.map((at) => ({ at, buffer: buffer(`param${k}_${p.name}_at${at}`), offset: POINTER_GUARD_BYTES })) });
      return;
    }
    if ((t === 'u64' || t === 'b64' || t === 's64') && !use.scalars.has(k)) {
      params.push({ buffer: buffer(`param${k}_${p.name}`), offset: POINTER_GUARD_BYTES });
    } else if (t === 'f32' || t === 'f64') {
      params.push({ type: t as ScalarType, value: Math.round((rand() - 0.5) * 2000) / 16 });
    } else {
      // integers, and 64-bit parameters the kernel only computes with (a size_t count, a clock_t budget)
      params.push({ type: (INT_TYPES.has(t) ? t : 'u32') as ScalarType, value: scalar() });
    }
  });
  // kernels sized by the launch's dynamic shared memory (extern .shared arrays) get some, as a real launch would
  const dynamicShared = module.vars.some((v) => v.space === 'shared' && v.extern) || module.functions.some((f) => f.vars.some((v) => v.space === 'shared' && v.extern));
  return {
    kernel: fn.name, grid: [profile.gridX, 1, 1], block: bz > 1 ? [bx, by, bz] : [bx, by, 1], buffers, params,
    ...(Object.keys(textures).length ? { textures } : {}), ...(Object.keys(surfaces).length ? { surfaces } : {}),
    ...(dynamicShared ? { sharedBytes: profile.dynamicSharedBytes } : {}),
  };
}

const INT_TYPES = new Set(['u8', 's8', 'u16', 's16', 'u32', 's32', 'b8', 'b16', 'b32', 'u64', 's64', 'b64']);

/**
 * The block: `.maxntid`/`.reqntid` capped by the profile, else blockCap threads along x. The compact profile
 * shapes a block like the kernel's thread ids: a kernel that reads %tid.y indexes tiles by (x, y) and usually
 * sizes them for a square block (a 16x16 tile of shared memory); 32 threads along x overrun such a tile.
 */
function blockShape(fn: OriFunction, profile: LaunchProfile): [number, number, number] {
  const maxntid = fn.directives.get('maxntid') ?? fn.directives.get('reqntid');
  const cap = profile.blockCap;
  if (maxntid) {
    const bx = Math.max(1, Math.min(maxntid[0] ?? 64, cap));
    return [bx, Math.max(1, Math.min(maxntid[1] ?? 1, Math.floor(1024 / bx))), 1];
  }
  const x = Math.min(64, cap);
  if (!profile.shapeByTid) return [x, 1, 1];
  const dims = tidDims(fn);
  if (dims === 3) return [4, 4, Math.max(1, Math.floor(cap / 16))];
  if (dims === 2) return [8, Math.max(1, Math.floor(cap / 8)), 1];
  return [x, 1, 1];
}

/** 1, 2 or 3: the highest thread-id dimension the kernel reads (SR_TID.Y / SR_TID.Z, or the whole SR_TID). */
function tidDims(fn: OriFunction): number {
  let dims = 1;
  for (const b of fn.blocks) {
    for (const i of b.instrs) {
      for (const u of i.uses) {
        if (u.kind !== 'sreg') continue;
        if (u.name === 'SR_TID.Z') return 3;
        if (u.name === 'SR_TID.Y') dims = 2;
      }
    }
  }
  return dims;
}

/** Texture sizes per geometry: [width, height, depth, layers] (cube maps: 6 faces per layer on top). */
const TEXTURE_SHAPES: Record<string, [number, number, number, number]> = {
  '1D': [4096, 1, 1, 1], '2D': [64, 64, 1, 1], '3D': [16, 16, 16, 1], ARRAY_1D: [256, 1, 1, 4], ARRAY_2D: [32, 32, 1, 4],
  CUBE: [16, 16, 1, 1], ARRAY_CUBE: [8, 8, 1, 2],
};
/** Surface sizes per geometry: [row bytes, height, depth, layers] (1 MiB or less). */
const SURFACE_SHAPES: Record<string, [number, number, number, number]> = {
  '1D': [65536, 1, 1, 1], '2D': [4096, 256, 1, 1], '3D': [1024, 64, 16, 1], ARRAY_1D: [4096, 1, 1, 16], ARRAY_2D: [2048, 64, 1, 8],
};

/**
 * A texture or surface for a handle parameter, shaped by its first use: the geometry's sizes above, 4-channel
 * f32 texels (f32 results; half the seeds filter linearly) or u32/s32 ones (integer results), unnormalized
 * coordinates, clamp addressing; surfaces get elements as wide as the widest access.
 */
function generateResource(res: ResourceUse, rand: () => number): { buffer: BufferSpec; texture?: Omit<TextureSpec, 'buffer'>; surface?: Omit<SurfaceSpec, 'buffer'> } {
  if (res.kind === 'texture') {
    const [width, height, depth, layers] = TEXTURE_SHAPES[res.geometry] ?? TEXTURE_SHAPES['2D']!;
    const cube = res.geometry === 'CUBE' || res.geometry === 'ARRAY_CUBE';
    const float = res.result !== 'S32' && res.result !== 'U32';
    const n = width * height * depth * layers * (cube ? 6 : 1) * 4;
    const values: number[] = [];
    for (let i = 0; i < n; i++) values.push(float ? f32bits(Math.round((rand() - 0.5) * 2000) / 8) : Math.floor(rand() * 256));
    const texture: Omit<TextureSpec, 'buffer'> = {
      format: float ? 'f32' : res.result === 'S32' ? 's32' : 'u32', channels: 4, width, height, depth,
      ...(layers > 1 || res.geometry.startsWith('ARRAY') ? { layers } : {}), ...(cube ? { cube: true } : {}),
      filter: float && rand() < 0.5 ? 'linear' : 'point', address: 'clamp',
    };
    return { buffer: { type: 'u32', values }, texture };
  }
  const [rowBytes, height, depth, layers] = SURFACE_SHAPES[res.geometry] ?? SURFACE_SHAPES['2D']!;
  const elementBytes = res.elementBytes;
  const words: number[] = [];
  for (let i = 0; i < (rowBytes * height * depth * layers) / 4; i++) words.push(Math.floor(rand() * 0x100000000));
  return {
    buffer: { type: 'u32', values: words },
    surface: { width: rowBytes / elementBytes, height, depth, layers, elementBytes },
  };
}

function f32bits(x: number): number {
  return new Uint32Array(new Float32Array([x]).buffer)[0]!;
}
