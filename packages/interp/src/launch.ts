/**
 * Launch descriptions (JSON) and `runKernel`: allocate the buffers, place kernel parameters in constant
 * bank 0, lay out module variables, run the grid and hand back the final memory and the dynamic counts.
 * The format is documented in packages/interp/README.md.
 */
import { PtxforgeError, type OriFunction, type OriModule, type VarDecl } from '@ptxforge/kernel';
import { f32ToBits, f64ToBits, f32FromBits, f64FromBits, floatFromBits, F16 } from '@ptxforge/semantics';
import { roundDouble } from '@ptxforge/semantics';
import { InterpError } from './interp/errors.js';
import { DEFAULT_MAX_STEPS, Machine, type DynamicCounts } from './interp/machine.js';
import { GlobalMemory, type Region } from './interp/memory.js';
import { Program, type LaunchLayout, type SymInfo } from './interp/program.js';
import { applyRelocations, type PlacedInit } from './interp/relocate.js';
import { makeSurface, makeTexture, type ResourceObject, type SurfaceSpec, type TextureSpec } from './interp/texture.js';

export type { SurfaceSpec, TextureSpec, TexelFormat, AddressMode } from './interp/texture.js';

export type ScalarType =
  | 'u8' | 's8' | 'u16' | 's16' | 'u32' | 's32' | 'u64' | 's64'
  | 'b8' | 'b16' | 'b32' | 'b64' | 'f16' | 'f32' | 'f64' | 'pred';

export type Dim3 = number | readonly number[];

/** Initial contents of a buffer: `values` of `type`, a `fill` value, or raw little-endian `hex` bytes. */
export interface BufferSpec {
  readonly type?: ScalarType;
  /** Number of elements (default: values.length, or the hex byte count / element size). */
  readonly count?: number;
  readonly values?: ReadonlyArray<number | string>;
  readonly fill?: number | string;
  readonly hex?: string;
  /** Alias of hex (the corpus files use this name). */
  readonly bytes_hex_le?: string;
  /** Extra bytes beyond count * size (a guard area the kernel may legally touch). */
  readonly padBytes?: number;
}

/** A kernel argument: a buffer's address (plus a byte offset) or a scalar. */
export type ParamSpec =
  | { readonly buffer: string; readonly offset?: number; readonly kind?: 'ptr' }
  /** The handle of a texture or surface object of the launch (a 64-bit value below 2^32). */
  | { readonly texture: string }
  | { readonly surface: string }
  | { readonly type?: ScalarType; readonly kind?: ScalarType; readonly value: number | string }
  /** A by-value structure parameter (`.param .b8 p[N]`): zero bytes, with these fields written over them. */
  | { readonly fields: ReadonlyArray<ParamField> }
  | number;

/** A field of a structure parameter at byte `at`: a buffer's address (8 bytes) or a scalar of its type's size. */
export type ParamField = { readonly at: number } & (
  | { readonly buffer: string; readonly offset?: number }
  | { readonly type: ScalarType; readonly value: number | string }
);

export interface Launch {
  /** Entry to run (default: the only / first `.entry` of the module). */
  readonly kernel?: string;
  readonly grid?: Dim3;
  readonly block?: Dim3;
  /** Dynamic shared memory in bytes (the size of an `.extern .shared` array). */
  readonly sharedBytes?: number;
  /**
   * Bytes of zeroed slack after each module .global variable (default 0): what a GPU reads past the end of
   * an array it over-indexes (the allocation is rounded up); 0 keeps every such access an error.
   */
  readonly globalSlack?: number;
  readonly buffers?: Readonly<Record<string, BufferSpec>>;
  /** Texture objects over buffers (handles 1, 2, ... in listing order; docs/ori-semantics.md). */
  readonly textures?: Readonly<Record<string, TextureSpec>>;
  /** Surface objects over buffers (handles after the textures'). */
  readonly surfaces?: Readonly<Record<string, SurfaceSpec>>;
  /** Positional (kernel parameter order) or by parameter name. */
  readonly params?: ReadonlyArray<ParamSpec> | Readonly<Record<string, ParamSpec>>;
  /** Buffers to report (default: all). */
  readonly outputs?: readonly string[];
  /** Thread-instruction budget (default 200 million). */
  readonly maxSteps?: number;
  /** Where parameters without a c-bank placement go (default 0x210, sm_90). */
  readonly paramBase?: number;
}

export interface BufferResult {
  readonly name: string;
  readonly type: ScalarType;
  readonly address: number;
  readonly bytes: Uint8Array;
}

export interface RunResult {
  readonly ok: boolean;
  /** Final contents of every launch buffer and every module `.global` variable (`@name`). */
  readonly buffers: Record<string, BufferResult>;
  readonly counts: DynamicCounts;
  readonly errors: InterpError[];
  /** What the threads printed with device printf (vprintf), one entry per call per thread, in execution order. */
  readonly printed?: string[];
}

export interface RunOptions {
  /** Run everything through evaluatePure (testing the fast paths). */
  readonly fastPaths?: boolean;
  readonly checkUndefined?: boolean;
  /** Physical register files (code lifted from SASS, @ptxforge/sass-lift): registers alias by number. */
  readonly physicalRegisters?: boolean;
}

const SIZES: Record<ScalarType, number> = {
  u8: 1, s8: 1, b8: 1, u16: 2, s16: 2, b16: 2, f16: 2, u32: 4, s32: 4, b32: 4, f32: 4,
  u64: 8, s64: 8, b64: 8, f64: 8, pred: 1,
};

export function typeSize(t: string): number {
  return SIZES[t as ScalarType] ?? 4;
}

function dim3(d: Dim3 | undefined, what: string): [number, number, number] {
  const a = d === undefined ? [1] : typeof d === 'number' ? [d] : [...d];
  const r: [number, number, number] = [a[0] ?? 1, a[1] ?? 1, a[2] ?? 1];
  if (!r.every((x) => Number.isInteger(x) && x >= 1)) throw new InterpError('bad-launch', `${what} must be positive integers, got ${JSON.stringify(d)}`);
  return r;
}

/** Bits of a scalar value of a type, as an unsigned bigint of the type's size. */
export function scalarBits(t: ScalarType, v: number | string): bigint {
  const size = SIZES[t] ?? 4;
  if (typeof v === 'string' && /^-?0x/i.test(v.trim())) {
    const s = v.trim();
    const neg = s.startsWith('-');
    const b = BigInt(neg ? s.slice(1) : s);
    return BigInt.asUintN(size * 8, neg ? -b : b);
  }
  if (t === 'f32') return BigInt(f32ToBits(Number(v)));
  if (t === 'f64') return f64ToBits(Number(v));
  if (t === 'f16') return roundDouble(Number(v), F16, 'RN');
  if (typeof v === 'number' && !Number.isInteger(v)) throw new InterpError('bad-launch', `value ${v} is not an integer for type ${t}`);
  return BigInt.asUintN(size * 8, BigInt(v));
}

/** Decode element i of a typed buffer (numbers; 64-bit integers as decimal strings when they exceed 2^53). */
export function readElement(bytes: Uint8Array, t: ScalarType, i: number): number | string {
  const size = SIZES[t] ?? 1;
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const o = i * size;
  switch (t) {
    case 'f32': return f32FromBits(dv.getUint32(o, true));
    case 'f64': return f64FromBits(dv.getBigUint64(o, true));
    case 'f16': return floatFromBits(BigInt(dv.getUint16(o, true)), F16);
    case 'u8': case 'b8': case 'pred': return dv.getUint8(o);
    case 's8': return dv.getInt8(o);
    case 'u16': case 'b16': return dv.getUint16(o, true);
    case 's16': return dv.getInt16(o, true);
    case 'u32': case 'b32': return dv.getUint32(o, true);
    case 's32': return dv.getInt32(o, true);
    case 'u64': case 'b64': {
      const v = dv.getBigUint64(o, true);
      return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
    }
    case 's64': {
      const v = dv.getBigInt64(o, true);
      return v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
    }
  }
}

function hexBytes(hex: string): Uint8Array {
  const h = hex.replace(/\s+/g, '');
  if (h.length % 2 || /[^0-9a-f]/i.test(h)) throw new InterpError('bad-launch', 'hex buffer contents must be an even number of hex digits');
  const out = new Uint8Array(h.length / 2);
  for (let k = 0; k < out.length; k++) out[k] = parseInt(h.slice(2 * k, 2 * k + 2), 16);
  return out;
}

export function toHex(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += b.toString(16).padStart(2, '0');
  return s;
}

/** The bytes a BufferSpec describes. */
export function bufferBytes(name: string, spec: BufferSpec): Uint8Array {
  const t = spec.type ?? 'u8';
  const size = SIZES[t];
  if (!size) throw new InterpError('bad-launch', `buffer ${name}: unknown element type ${t}`);
  const hex = spec.hex ?? spec.bytes_hex_le;
  const init = hex !== undefined ? hexBytes(hex) : undefined;
  const count = spec.count ?? spec.values?.length ?? (init ? Math.ceil(init.length / size) : 0);
  const bytes = new Uint8Array(count * size + (spec.padBytes ?? 0));
  if (init) bytes.set(init.subarray(0, bytes.length));
  const dv = new DataView(bytes.buffer);
  const word = t === 'u32' || t === 's32' || t === 'b32';
  const put = (i: number, v: number | string): void => {
    // 32-bit integers (every generated buffer): the same bits as scalarBits without a bigint per element
    if (word && typeof v === 'number' && Number.isInteger(v) && v >= -0x80000000 && v <= 0xffffffff) {
      dv.setUint32(i * 4, v >>> 0, true);
      return;
    }
    const bits = scalarBits(t, v);
    for (let k = 0; k < size; k++) dv.setUint8(i * size + k, Number((bits >> BigInt(8 * k)) & 0xffn));
  };
  if (spec.fill !== undefined) for (let i = 0; i < count; i++) put(i, spec.fill);
  if (spec.values) spec.values.forEach((v, i) => i < count && put(i, v));
  return bytes;
}

/** Pick the entry function a launch names (or the only / first one). */
export function findKernel(module: OriModule, name: string | undefined): OriFunction {
  const entries = module.functions.filter((f) => f.kind === 'entry');
  if (name !== undefined) {
    const f = module.getFunction(name);
    if (!f || f.kind !== 'entry') {
      throw new InterpError('bad-launch', `no kernel @${name} in the module (kernels: ${entries.map((e) => e.name).join(', ') || 'none'})`);
    }
    return f;
  }
  const f = entries[0];
  if (!f) throw new InterpError('bad-launch', 'the module has no .entry function to launch');
  return f;
}

const alignUp = (x: number, a: number): number => Math.ceil(x / Math.max(1, a)) * Math.max(1, a);

interface Prepared {
  readonly layout: LaunchLayout;
  readonly global: GlobalMemory;
  readonly buffers: Array<{ name: string; type: ScalarType; region: Region }>;
}

function prepare(module: OriModule, kernel: OriFunction, launch: Launch): Prepared {
  const grid = dim3(launch.grid, 'grid');
  const block = dim3(launch.block, 'block');
  if (block[0] * block[1] * block[2] > 1024) throw new InterpError('bad-launch', `a block has at most 1024 threads, got ${block.join('x')}`);
  const global = new GlobalMemory();
  const syms = new Map<string, SymInfo>();
  const fnSyms = new Map<OriFunction, Map<string, SymInfo>>();
  const bank0 = new Uint8Array(0x10000);
  const bank3 = new Uint8Array(0x10000);
  const dv0 = new DataView(bank0.buffer);
  [...block, ...grid].forEach((v, k) => dv0.setUint32(4 * k, v, true));

  // Module and function variables: global / const in global memory (const also in bank 3), shared and local
  // in their windows.
  let sharedEnd = 0;
  let localEnd = 0;
  let constEnd = 0;
  const externShared: Array<{ table: Map<string, SymInfo>; v: VarDecl }> = [];
  const relocated: PlacedInit[] = [];
  const place = (table: Map<string, SymInfo>, v: VarDecl, lookup: PlacedInit['lookup']): void => {
    switch (v.space) {
      case 'global': {
        const r = global.allocate(`@${v.name}`, v.size + (launch.globalSlack ?? 0), v.init, v.align);
        table.set(v.name, { space: 'global', address: r.base });
        if (v.relocs?.length) relocated.push({ v, lookup, copies: [{ bytes: r.bytes, at: 0 }] });
        return;
      }
      case 'const': {
        const r = global.allocate(`@${v.name}`, v.size, v.init, v.align);
        constEnd = alignUp(constEnd, v.align);
        if (v.init) bank3.set(v.init.subarray(0, Math.max(0, Math.min(v.size, bank3.length - constEnd))), constEnd);
        if (v.relocs?.length) relocated.push({ v, lookup, copies: [{ bytes: r.bytes, at: 0 }, { bytes: bank3, at: constEnd }] });
        constEnd += v.size;
        table.set(v.name, { space: 'const', address: r.base });
        return;
      }
      case 'shared':
        if (v.extern) {
          externShared.push({ table, v });
          return;
        }
        sharedEnd = alignUp(sharedEnd, v.align);
        table.set(v.name, { space: 'shared', address: sharedEnd });
        sharedEnd += v.size;
        return;
      case 'local':
        localEnd = alignUp(localEnd, v.align);
        table.set(v.name, { space: 'local', address: localEnd });
        localEnd += v.size;
        return;
    }
  };
  for (const v of module.vars) place(syms, v, (n) => syms.get(n));
  for (const f of module.functions) {
    const t = new Map<string, SymInfo>();
    for (const v of f.vars) place(t, v, (n) => t.get(n) ?? syms.get(n));
    fnSyms.set(f, t);
  }
  const dyn = launch.sharedBytes ?? 0;
  if (externShared.length) {
    sharedEnd = alignUp(sharedEnd, 16);
    for (const { table, v } of externShared) table.set(v.name, { space: 'shared', address: sharedEnd });
  }
  const sharedSize = sharedEnd + dyn;
  // Address initializers, now that every variable has its address (shared/local windows included).
  applyRelocations(relocated);

  // Buffers, in the order the launch lists them.
  const buffers: Prepared['buffers'] = [];
  const byName = new Map<string, Region>();
  for (const [name, spec] of Object.entries(launch.buffers ?? {})) {
    const bytes = bufferBytes(name, spec);
    const r = global.allocate(name, bytes.length, bytes);
    byName.set(name, r);
    buffers.push({ name, type: spec.type ?? 'u8', region: r });
  }

  // Texture and surface objects: handle k + 1 for the k-th (textures first, then surfaces).
  const resources = new Map<bigint, ResourceObject>();
  const handles = new Map<string, bigint>();
  const addResource = (kind: 'texture' | 'surface', name: string, spec: TextureSpec | SurfaceSpec): void => {
    const region = byName.get(spec?.buffer);
    if (!region) throw new InterpError('bad-launch', `${kind} '${name}' names buffer '${String(spec?.buffer)}', which the launch does not define`);
    let obj: ResourceObject;
    try {
      obj = kind === 'texture' ? makeTexture(name, spec as TextureSpec, region) : makeSurface(name, spec as SurfaceSpec, region);
    } catch (e) {
      throw new InterpError('bad-launch', `${kind} '${name}': ${(e as Error).message}`);
    }
    const h = BigInt(resources.size + 1);
    resources.set(h, obj);
    handles.set(`${kind}:${name}`, h);
  };
  for (const [name, spec] of Object.entries(launch.textures ?? {})) addResource('texture', name, spec);
  for (const [name, spec] of Object.entries(launch.surfaces ?? {})) addResource('surface', name, spec);

  // Parameters into bank 0.
  const params = kernel.params;
  const given = launch.params ?? [];
  const list: Array<ParamSpec | undefined> = Array.isArray(given)
    ? params.map((_, k) => (given as ParamSpec[])[k])
    : params.map((p) => (given as Record<string, ParamSpec>)[p.name]);
  if (Array.isArray(given) && given.length > params.length) {
    throw new InterpError('bad-launch', `kernel @${kernel.name} takes ${params.length} parameters, the launch gives ${given.length}`);
  }
  let next = launch.paramBase ?? 0x210;
  params.forEach((p, k) => {
    const size = typeSize(p.type) * Math.max(1, p.count);
    const align = p.align ?? typeSize(p.type);
    const off = p.cbank ? p.cbank.offset : alignUp(next, align);
    next = off + size;
    const bank = p.cbank?.bank ?? 0;
    if (bank !== 0) throw new InterpError('bad-launch', `parameter ${p.name} is in constant bank ${bank}; parameters must be in bank 0`);
    const spec = list[k];
    if (spec === undefined) {
      throw new InterpError('bad-launch', `no value for parameter ${k} (${p.name}) of kernel @${kernel.name}`);
    }
    let bits: bigint;
    if (typeof spec === 'object' && 'fields' in spec) {
      bank0.fill(0, off, Math.min(off + size, bank0.length));
      for (const f of spec.fields) {
        let fb: bigint;
        let fsize: number;
        if ('buffer' in f) {
          const r = byName.get(f.buffer);
          if (!r) throw new InterpError('bad-launch', `a field of parameter ${p.name} names buffer '${f.buffer}', which the launch does not define`);
          fb = BigInt(r.base + (f.offset ?? 0));
          fsize = 8;
        } else {
          fb = scalarBits(f.type, f.value);
          fsize = typeSize(f.type);
        }
        if (!(f.at >= 0 && f.at + fsize <= size)) throw new InterpError('bad-launch', `a field at byte ${f.at} does not fit in the ${size}-byte parameter ${p.name}`);
        for (let b = 0; b < fsize && off + f.at + b < bank0.length; b++) bank0[off + f.at + b] = Number((fb >> BigInt(8 * b)) & 0xffn);
      }
      return;
    }
    if (typeof spec === 'number') bits = scalarBits(p.type as ScalarType, spec);
    else if ('texture' in spec || 'surface' in spec) {
      const key = 'texture' in spec ? `texture:${spec.texture}` : `surface:${(spec as { surface: string }).surface}`;
      const h = handles.get(key);
      if (h === undefined) throw new InterpError('bad-launch', `parameter ${p.name} names ${key.replace(':', " '")}', which the launch does not define`);
      bits = h;
    } else if ('buffer' in spec) {
      const r = byName.get(spec.buffer);
      if (!r) throw new InterpError('bad-launch', `parameter ${p.name} names buffer '${spec.buffer}', which the launch does not define`);
      bits = BigInt(r.base + (spec.offset ?? 0));
    } else {
      const t = (spec.type ?? (spec.kind as ScalarType | undefined) ?? p.type) as ScalarType;
      bits = scalarBits(t, spec.value);
    }
    for (let b = 0; b < size && off + b < bank0.length; b++) bank0[off + b] = Number((bits >> BigInt(8 * b)) & 0xffn);
  });

  const banks = new Map<number, Uint8Array>([
    [0, bank0],
    [3, bank3],
  ]);
  return {
    layout: { grid, block, banks, syms, fnSyms, sharedSize, localSize: alignUp(localEnd, 16), ...(resources.size ? { resources } : {}) },
    global,
    buffers,
  };
}

const EMPTY_COUNTS: DynamicCounts = {
  warpInstructions: 0, threadInstructions: 0, branches: 0, divergentBranches: 0, byOpcode: {}, byBlock: {}, byCta: [],
};

/**
 * Run a kernel of a module. Never throws for problems of the program or the launch: they come back in
 * `errors` (with whatever memory state and counts the run reached).
 */
export function runKernel(module: OriModule, launch: Launch, opts: RunOptions = {}): RunResult {
  let prepared: Prepared;
  let kernel: OriFunction;
  try {
    kernel = findKernel(module, launch.kernel);
    prepared = prepare(module, kernel, launch);
  } catch (e) {
    return { ok: false, buffers: {}, counts: EMPTY_COUNTS, errors: [asInterpError(e)] };
  }
  const errors: InterpError[] = [];
  let machine: Machine | undefined;
  try {
    const prog = new Program(module, kernel, prepared.layout, { fastPaths: opts.fastPaths, physicalRegisters: opts.physicalRegisters });
    machine = new Machine(prog, prepared.global, { maxSteps: launch.maxSteps ?? DEFAULT_MAX_STEPS, checkUndefined: opts.checkUndefined });
    machine.runGrid();
  } catch (e) {
    errors.push(asInterpError(e));
  }
  const buffers: Record<string, BufferResult> = {};
  const wanted = launch.outputs ? new Set(launch.outputs) : undefined;
  for (const b of prepared.buffers) {
    if (wanted && !wanted.has(b.name)) continue;
    buffers[b.name] = { name: b.name, type: b.type, address: b.region.base, bytes: b.region.bytes };
  }
  for (const r of prepared.global.regions) {
    if (!r.name.startsWith('@') || (wanted && !wanted.has(r.name))) continue;
    const v = module.vars.find((x) => `@${x.name}` === r.name);
    if (v && v.space !== 'global') continue;
    buffers[r.name] = { name: r.name, type: 'u8', address: r.base, bytes: r.bytes };
  }
  const printed = prepared.global.printed;
  return { ok: errors.length === 0, buffers, counts: machine ? machine.counts() : EMPTY_COUNTS, errors, ...(printed.length ? { printed } : {}) };
}

function asInterpError(e: unknown): InterpError {
  if (e instanceof InterpError) return e;
  if (e instanceof PtxforgeError) return new InterpError('bad-launch', `${e.code}: ${e.message}`);
  return new InterpError('unsupported', `internal interpreter error: ${(e as Error)?.stack ?? String(e)}`);
}

/** JSON form of a result: buffers as typed values plus hex, counts, errors. */
export function resultToJSON(r: RunResult): object {
  const buffers: Record<string, object> = {};
  for (const [name, b] of Object.entries(r.buffers)) {
    const size = SIZES[b.type] ?? 1;
    const values: Array<number | string> = [];
    for (let i = 0; i + size <= b.bytes.length; i += size) values.push(jsonNumber(readElement(b.bytes, b.type, i / size)));
    buffers[name] = { type: b.type, address: `0x${b.address.toString(16)}`, values, hex: toHex(b.bytes) };
  }
  return { ok: r.ok, buffers, ...(r.printed ? { printed: r.printed } : {}), counts: r.counts, errors: r.errors.map((e) => e.toJSON()) };
}

function jsonNumber(v: number | string): number | string {
  if (typeof v === 'number' && !Number.isFinite(v)) return Number.isNaN(v) ? 'nan' : v > 0 ? 'inf' : '-inf';
  if (typeof v === 'number' && Object.is(v, -0)) return '-0';
  return v;
}

/** Parse launch JSON text (validation errors are InterpError 'bad-launch'). */
export function parseLaunch(text: string, file = '<launch>'): Launch {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new InterpError('bad-launch', `${file}: not valid JSON: ${(e as Error).message}`);
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new InterpError('bad-launch', `${file}: a launch must be a JSON object`);
  const allowed = new Set(['kernel', 'grid', 'block', 'sharedBytes', 'globalSlack', 'buffers', 'params', 'outputs', 'maxSteps', 'paramBase', '$comment']);
  for (const k of Object.keys(v)) {
    if (!allowed.has(k)) throw new InterpError('bad-launch', `${file}: unknown key '${k}' (allowed: ${[...allowed].join(', ')})`);
  }
  return v as Launch;
}

export { f64FromBits };
