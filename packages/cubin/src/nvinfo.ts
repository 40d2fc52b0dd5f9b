// .nv.info / .nv.info.<fn> / .nv.compat: flat sequences of 4-byte-aligned TLV records
//   [format:u8][code:u8][u16][payload]
// format 1 EIFMT_NVAL (no value; the u16 is 0), 2 EIFMT_BVAL (byte value in the u16's low byte),
// 3 EIFMT_HVAL (16-bit value in the u16), 4 EIFMT_SVAL (the u16 is the payload size; payload follows).
// A record is kept as read (format, code, the u16, the payload) so that encoding it gives the same bytes;
// `decodeAttribute` gives the typed view of the payload by the attribute's name.
import { CubinError } from './errors.js';

export const EIFMT = { NVAL: 1, BVAL: 2, HVAL: 3, SVAL: 4 } as const;
export const EIFMT_NAMES = ['', 'EIFMT_NVAL', 'EIFMT_BVAL', 'EIFMT_HVAL', 'EIFMT_SVAL'] as const;

/**
 * How an attribute's payload is laid out.
 * - symValue: SVAL [symbol index:u32][value:u32] in the global .nv.info (REGCOUNT, FRAME_SIZE, stack sizes)
 *   and [value:u32] when it sits in the function's own .nv.info.<fn>.
 * - value: one u32 (SVAL) or the BVAL/HVAL value.
 * - offsets: u32 byte offsets into the function's .text (EXIT_INSTR_OFFSETS and the other *_OFFSETS).
 * - symbols: u32 symbol indices (EXTERNS).
 * - dims: three u32, x y z (MAX_THREADS, REQNTID, CTA_PER_CLUSTER).
 * - kparam: KPARAM_INFO entries, 12 bytes each.
 * - paramCbank: [constant-bank section symbol:u32][offset:u16][size:u16].
 * - version: HVAL major.minor (MERCURY_ISA_VERSION: 0x0101 is 1.1).
 * - branchTargets: INDIRECT_BRANCH_TARGETS groups [branch offset:u32][u32][count:u32][targets:u32 x count].
 * - flag: presence is the information (NVAL).
 * - raw: payload shown as u32 words (or bytes when not a multiple of 4).
 */
export type PayloadKind =
  | 'symValue'
  | 'value'
  | 'offsets'
  | 'symbols'
  | 'dims'
  | 'kparam'
  | 'paramCbank'
  | 'version'
  | 'branchTargets'
  | 'flag'
  | 'raw';

export interface AttributeInfo {
  code: number;
  name: string;
  kind: PayloadKind;
}

// Codes: the order of ptxas 13.0's EIATTR name table (the strings are all in the ptxas binary). The codes this
// project's cubins carry were checked against ptxas output by varying the PTX (see the tests): REGCOUNT 0x2f,
// FRAME_SIZE 0x11, MIN_STACK_SIZE 0x12, MAX_STACK_SIZE 0x23, PARAM_CBANK 0x0a, CBANK_PARAM_SIZE 0x19,
// KPARAM_INFO 0x17, MAXREG_COUNT 0x1b, EXIT_INSTR_OFFSETS 0x1c, CUDA_API_VERSION 0x37, SW_WAR 0x36,
// MAX_THREADS 0x05, REQNTID 0x10, CTAIDZ_USED 0x04, MERCURY_ISA_VERSION 0x5f, JUMPTABLE_RELOCS 0x03...
const TABLE: Array<[number, string, PayloadKind]> = [
  [0x00, 'EIATTR_ERROR', 'raw'],
  [0x01, 'EIATTR_PAD', 'raw'],
  [0x02, 'EIATTR_IMAGE_SLOT', 'raw'],
  [0x03, 'EIATTR_JUMPTABLE_RELOCS', 'offsets'],
  [0x04, 'EIATTR_CTAIDZ_USED', 'flag'],
  [0x05, 'EIATTR_MAX_THREADS', 'dims'],
  [0x06, 'EIATTR_IMAGE_OFFSET', 'raw'],
  [0x07, 'EIATTR_IMAGE_SIZE', 'raw'],
  [0x08, 'EIATTR_TEXTURE_NORMALIZED', 'raw'],
  [0x09, 'EIATTR_SAMPLER_INIT', 'raw'],
  [0x0a, 'EIATTR_PARAM_CBANK', 'paramCbank'],
  [0x0b, 'EIATTR_SMEM_PARAM_OFFSETS', 'raw'],
  [0x0c, 'EIATTR_CBANK_PARAM_OFFSETS', 'raw'],
  [0x0d, 'EIATTR_SYNC_STACK', 'symValue'],
  [0x0e, 'EIATTR_TEXID_SAMPID_MAP', 'raw'],
  [0x0f, 'EIATTR_EXTERNS', 'symbols'],
  [0x10, 'EIATTR_REQNTID', 'dims'],
  [0x11, 'EIATTR_FRAME_SIZE', 'symValue'],
  [0x12, 'EIATTR_MIN_STACK_SIZE', 'symValue'],
  [0x13, 'EIATTR_SAMPLER_FORCE_UNNORMALIZED', 'raw'],
  [0x14, 'EIATTR_BINDLESS_IMAGE_OFFSETS', 'raw'],
  [0x15, 'EIATTR_BINDLESS_TEXTURE_BANK', 'value'],
  [0x16, 'EIATTR_BINDLESS_SURFACE_BANK', 'value'],
  [0x17, 'EIATTR_KPARAM_INFO', 'kparam'],
  [0x18, 'EIATTR_SMEM_PARAM_SIZE', 'value'],
  [0x19, 'EIATTR_CBANK_PARAM_SIZE', 'value'],
  [0x1a, 'EIATTR_QUERY_NUMATTRIB', 'value'],
  [0x1b, 'EIATTR_MAXREG_COUNT', 'value'],
  [0x1c, 'EIATTR_EXIT_INSTR_OFFSETS', 'offsets'],
  [0x1d, 'EIATTR_S2RCTAID_INSTR_OFFSETS', 'offsets'],
  [0x1e, 'EIATTR_CRS_STACK_SIZE', 'symValue'],
  [0x1f, 'EIATTR_NEED_CNP_WRAPPER', 'flag'],
  [0x20, 'EIATTR_NEED_CNP_PATCH', 'flag'],
  [0x21, 'EIATTR_EXPLICIT_CACHING', 'flag'],
  [0x22, 'EIATTR_ISTYPEP_USED', 'flag'],
  [0x23, 'EIATTR_MAX_STACK_SIZE', 'symValue'],
  [0x24, 'EIATTR_SUQ_USED', 'flag'],
  [0x25, 'EIATTR_LD_CACHEMOD_INSTR_OFFSETS', 'offsets'],
  [0x26, 'EIATTR_LOAD_CACHE_REQUEST', 'value'],
  [0x27, 'EIATTR_ATOM_SYS_INSTR_OFFSETS', 'offsets'],
  [0x28, 'EIATTR_COOP_GROUP_INSTR_OFFSETS', 'offsets'],
  [0x29, 'EIATTR_COOP_GROUP_MASK_REGIDS', 'raw'],
  [0x2a, 'EIATTR_SW1850030_WAR', 'offsets'],
  [0x2b, 'EIATTR_WMMA_USED', 'flag'],
  [0x2c, 'EIATTR_HAS_PRE_V10_OBJECT', 'value'],
  [0x2d, 'EIATTR_ATOMF16_EMUL_INSTR_OFFSETS', 'offsets'],
  [0x2e, 'EIATTR_ATOM16_EMUL_INSTR_REG_MAP', 'raw'],
  [0x2f, 'EIATTR_REGCOUNT', 'symValue'],
  [0x30, 'EIATTR_SW2393858_WAR', 'offsets'],
  [0x31, 'EIATTR_INT_WARP_WIDE_INSTR_OFFSETS', 'offsets'],
  [0x32, 'EIATTR_SHARED_SCRATCH', 'value'],
  [0x33, 'EIATTR_STATISTICS', 'raw'],
  [0x34, 'EIATTR_INDIRECT_BRANCH_TARGETS', 'branchTargets'],
  [0x35, 'EIATTR_SW2861232_WAR', 'flag'],
  [0x36, 'EIATTR_SW_WAR', 'value'],
  [0x37, 'EIATTR_CUDA_API_VERSION', 'value'],
  [0x38, 'EIATTR_NUM_MBARRIERS', 'value'],
  [0x39, 'EIATTR_MBARRIER_INSTR_OFFSETS', 'offsets'],
  [0x3a, 'EIATTR_COROUTINE_RESUME_OFFSETS', 'offsets'],
  [0x3b, 'EIATTR_SAM_REGION_STACK_SIZE', 'symValue'],
  [0x3c, 'EIATTR_PER_REG_TARGET_PERF_STATS', 'raw'],
  [0x3d, 'EIATTR_CTA_PER_CLUSTER', 'dims'],
  [0x3e, 'EIATTR_EXPLICIT_CLUSTER', 'flag'],
  [0x3f, 'EIATTR_MAX_CLUSTER_RANK', 'value'],
  [0x40, 'EIATTR_INSTR_REG_MAP', 'raw'],
  [0x41, 'EIATTR_RESERVED_SMEM_USED', 'flag'],
  [0x42, 'EIATTR_RESERVED_SMEM_0_SIZE', 'value'],
  [0x43, 'EIATTR_UCODE_SECTION_DATA', 'raw'],
  [0x44, 'EIATTR_UNUSED_LOAD_BYTE_OFFSET', 'offsets'],
  [0x45, 'EIATTR_KPARAM_INFO_V2', 'raw'],
  [0x46, 'EIATTR_SYSCALL_OFFSETS', 'offsets'],
  [0x47, 'EIATTR_SW_WAR_MEMBAR_SYS_INSTR_OFFSETS', 'offsets'],
  [0x48, 'EIATTR_GRAPHICS_GLOBAL_CBANK', 'value'],
  [0x49, 'EIATTR_SHADER_TYPE', 'value'],
  [0x4a, 'EIATTR_VRC_CTA_INIT_COUNT', 'value'],
  [0x4b, 'EIATTR_TOOLS_PATCH_FUNC', 'value'],
  [0x4c, 'EIATTR_NUM_BARRIERS', 'value'],
  [0x4d, 'EIATTR_TEXMODE_INDEPENDENT', 'flag'],
  [0x4e, 'EIATTR_PERF_STATISTICS', 'raw'],
  [0x4f, 'EIATTR_AT_ENTRY_FRAGMENTS', 'raw'],
  [0x50, 'EIATTR_SPARSE_MMA_MASK', 'value'],
  [0x51, 'EIATTR_TCGEN05_1CTA_USED', 'flag'],
  [0x52, 'EIATTR_TCGEN05_2CTA_USED', 'flag'],
  [0x53, 'EIATTR_GEN_ERRBAR_AT_EXIT', 'flag'],
  [0x54, 'EIATTR_REG_RECONFIG', 'value'],
  [0x55, 'EIATTR_ANNOTATIONS', 'raw'],
  [0x56, 'EIATTR_UNKNOWN', 'raw'],
  [0x57, 'EIATTR_STACK_CANARY_TRAP_OFFSETS', 'offsets'],
  [0x58, 'EIATTR_STUB_FUNCTION_KIND', 'value'],
  [0x59, 'EIATTR_LOCAL_CTA_ASYNC_STORE_OFFSETS', 'offsets'],
  [0x5a, 'EIATTR_MERCURY_FINALIZER_OPTIONS', 'raw'],
  [0x5b, 'EIATTR_BLOCKS_ARE_CLUSTERS', 'flag'],
  [0x5c, 'EIATTR_SANITIZE', 'value'],
  [0x5d, 'EIATTR_SYSCALLS_FALLBACK', 'raw'],
  [0x5e, 'EIATTR_CUDA_REQ', 'raw'],
  [0x5f, 'EIATTR_MERCURY_ISA_VERSION', 'version'],
];

const BY_CODE = new Map<number, AttributeInfo>(TABLE.map(([code, name, kind]) => [code, { code, name, kind }]));
const BY_NAME = new Map<string, AttributeInfo>(TABLE.map(([code, name, kind]) => [name, { code, name, kind }]));

/** The attribute with this code, or a placeholder named `EIATTR_0x..` for codes the table does not know. */
export function attributeInfo(code: number): AttributeInfo {
  return BY_CODE.get(code) ?? { code, name: `EIATTR_0x${code.toString(16).padStart(2, '0')}`, kind: 'raw' };
}

/** The code of an attribute by name (`EIATTR_REGCOUNT` or `REGCOUNT`). */
export function attributeCode(name: string): number | undefined {
  return (BY_NAME.get(name) ?? BY_NAME.get(`EIATTR_${name}`))?.code;
}

// .nv.compat records (EICOMPAT_ATTR_*). Only the codes whose meaning was pinned down by varying ptxas's target
// are named; the rest print by number. 0x07 carries the Mercury ISA version (0x0101 = 1.1, the same value as
// EIATTR_MERCURY_ISA_VERSION); 0x09 is 1 exactly for the arch-specific 'a' targets (sm_90a, sm_100a).
const COMPAT_NAMES = new Map<number, string>([
  [0x07, 'EICOMPAT_ATTR_MERCURY_ISA_MAJOR_MINOR_VERSION'],
  [0x09, 'EICOMPAT_ATTR_CUDA_ACCELERATOR_TARGET'],
]);

export function compatAttributeName(code: number): string {
  return COMPAT_NAMES.get(code) ?? `EICOMPAT_ATTR_0x${code.toString(16).padStart(2, '0')}`;
}

/** One TLV record, exactly as stored. */
export interface NvInfoRecord {
  /** EIFMT_* (1..4). */
  format: number;
  code: number;
  /** The u16 after the code: the value for BVAL/HVAL (0 for NVAL), the payload size for SVAL. */
  value: number;
  /** SVAL payload (empty otherwise). */
  payload: Uint8Array;
  /** Byte offset of the record in its section. */
  offset: number;
}

/** Parse an attribute section's bytes. Malformed records raise CUBIN_MALFORMED naming the section and offset. */
export function parseNvInfo(data: Uint8Array, sectionName = '.nv.info'): NvInfoRecord[] {
  const out: NvInfoRecord[] = [];
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let i = 0;
  while (i < data.length) {
    if (i + 4 > data.length) {
      throw new CubinError('CUBIN_MALFORMED', `${sectionName}: attribute record at 0x${i.toString(16)} is cut short`);
    }
    const format = data[i]!;
    const code = data[i + 1]!;
    const value = view.getUint16(i + 2, true);
    if (format === EIFMT.SVAL) {
      if (i + 4 + value > data.length) {
        throw new CubinError(
          'CUBIN_MALFORMED',
          `${sectionName}: ${attributeInfo(code).name} at 0x${i.toString(16)} has a ${value}-byte payload running past the section`,
        );
      }
      out.push({ format, code, value, payload: data.subarray(i + 4, i + 4 + value), offset: i });
      // Records are 4-byte aligned; ptxas payloads are multiples of 4, but a reader must not lose sync if not.
      i += 4 + ((value + 3) & ~3);
    } else if (format >= EIFMT.NVAL && format <= EIFMT.HVAL) {
      out.push({ format, code, value, payload: new Uint8Array(0), offset: i });
      i += 4;
    } else {
      throw new CubinError(
        'CUBIN_MALFORMED',
        `${sectionName}: attribute record at 0x${i.toString(16)} has unknown format ${format}`,
      );
    }
  }
  return out;
}

/** Encode records back to section bytes (exact inverse of parseNvInfo for what ptxas writes). */
export function encodeNvInfo(records: readonly Pick<NvInfoRecord, 'format' | 'code' | 'value' | 'payload'>[]): Uint8Array {
  let size = 0;
  for (const r of records) size += 4 + (r.format === EIFMT.SVAL ? (r.payload.length + 3) & ~3 : 0);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  let i = 0;
  for (const r of records) {
    out[i] = r.format;
    out[i + 1] = r.code;
    if (r.format === EIFMT.SVAL) {
      view.setUint16(i + 2, r.payload.length, true);
      out.set(r.payload, i + 4);
      i += 4 + ((r.payload.length + 3) & ~3);
    } else {
      view.setUint16(i + 2, r.value, true);
      i += 4;
    }
  }
  return out;
}

/** One kernel parameter of EIATTR_KPARAM_INFO. */
export interface KParamInfo {
  index: number;
  ordinal: number;
  /** Byte offset of the parameter from the start of the parameter area. */
  offset: number;
  size: number;
  logAlignment: number;
  space: number;
  cbank: number;
  /** True when the parameter lives in a constant bank (bit 17 clear), the only kind ptxas 13 writes for kernels. */
  inCbank: boolean;
}

/** The typed view of a record's payload. */
export type AttributeValue =
  | { kind: 'flag' }
  | { kind: 'value'; value: number }
  | { kind: 'symValue'; symbol?: number; value: number }
  | { kind: 'offsets'; offsets: number[] }
  | { kind: 'symbols'; symbols: number[] }
  | { kind: 'dims'; dims: number[] }
  | { kind: 'kparam'; params: KParamInfo[] }
  | { kind: 'paramCbank'; symbol: number; offset: number; size: number }
  | { kind: 'version'; major: number; minor: number }
  | { kind: 'branchTargets'; branches: Array<{ offset: number; tag: number; targets: number[] }> }
  | { kind: 'raw'; words?: number[]; bytes: Uint8Array };

function u32s(p: Uint8Array): number[] {
  const view = new DataView(p.buffer, p.byteOffset, p.byteLength);
  const out: number[] = [];
  for (let i = 0; i + 4 <= p.length; i += 4) out.push(view.getUint32(i, true));
  return out;
}

function raw(r: NvInfoRecord): AttributeValue {
  if (r.format !== EIFMT.SVAL) return r.format === EIFMT.NVAL ? { kind: 'flag' } : { kind: 'value', value: r.value };
  return r.payload.length % 4 === 0
    ? { kind: 'raw', words: u32s(r.payload), bytes: r.payload }
    : { kind: 'raw', bytes: r.payload };
}

/**
 * Decode a record's payload by its attribute. A payload whose size does not fit the attribute's layout
 * falls back to `raw` (never throws): unseen ptxas versions must still be listed.
 */
export function decodeAttribute(r: NvInfoRecord): AttributeValue {
  const info = attributeInfo(r.code);
  if (r.format !== EIFMT.SVAL) {
    if (r.format === EIFMT.NVAL) return { kind: 'flag' };
    const value = r.format === EIFMT.BVAL ? r.value & 0xff : r.value;
    if (info.kind === 'version') return { kind: 'version', major: value >>> 8, minor: value & 0xff };
    return { kind: 'value', value };
  }
  const p = r.payload;
  const w = p.length % 4 === 0 ? u32s(p) : undefined;
  if (!w) return raw(r);
  switch (info.kind) {
    case 'symValue':
      if (w.length === 2) return { kind: 'symValue', symbol: w[0]!, value: w[1]! };
      if (w.length === 1) return { kind: 'symValue', value: w[0]! };
      return raw(r);
    case 'value':
      return w.length === 1 ? { kind: 'value', value: w[0]! } : raw(r);
    case 'offsets':
      return { kind: 'offsets', offsets: w };
    case 'symbols':
      return { kind: 'symbols', symbols: w };
    case 'dims':
      return { kind: 'dims', dims: w };
    case 'paramCbank':
      return w.length === 2 ? { kind: 'paramCbank', symbol: w[0]!, offset: w[1]! & 0xffff, size: w[1]! >>> 16 } : raw(r);
    case 'kparam': {
      if (w.length % 3 !== 0) return raw(r);
      const params: KParamInfo[] = [];
      for (let i = 0; i < w.length; i += 3) {
        const flags = w[i + 2]!;
        params.push({
          index: w[i]!,
          ordinal: w[i + 1]! & 0xffff,
          offset: w[i + 1]! >>> 16,
          size: flags >>> 18,
          logAlignment: flags & 0xff,
          space: (flags >>> 8) & 0xf,
          cbank: (flags >>> 12) & 0x1f,
          inCbank: (flags & 0x20000) === 0,
        });
      }
      return { kind: 'kparam', params };
    }
    case 'branchTargets': {
      const branches: Array<{ offset: number; tag: number; targets: number[] }> = [];
      let i = 0;
      while (i + 3 <= w.length) {
        const n = w[i + 2]!;
        if (i + 3 + n > w.length) return raw(r);
        branches.push({ offset: w[i]!, tag: w[i + 1]!, targets: w.slice(i + 3, i + 3 + n) });
        i += 3 + n;
      }
      return i === w.length ? { kind: 'branchTargets', branches } : raw(r);
    }
    case 'version':
      return w.length === 1 ? { kind: 'version', major: (w[0]! >>> 8) & 0xff, minor: w[0]! & 0xff } : raw(r);
    case 'flag':
    case 'raw':
      return raw(r);
  }
}

const hex = (n: number) => `0x${n.toString(16)}`;

/**
 * One-line text of a decoded attribute, e.g. `EIATTR_REGCOUNT: 10 (add)`; `symbolName` resolves symbol indices.
 */
export function formatAttribute(
  r: NvInfoRecord,
  symbolName: (index: number) => string | undefined = () => undefined,
  compat = false,
): string {
  const name = compat ? compatAttributeName(r.code) : attributeInfo(r.code).name;
  const sym = (i: number) => symbolName(i) ?? `sym#${i}`;
  const v = decodeAttribute(r);
  switch (v.kind) {
    case 'flag':
      return name;
    case 'value':
      return `${name}: ${hex(v.value)}`;
    case 'symValue':
      return v.symbol === undefined ? `${name}: ${hex(v.value)}` : `${name}: ${hex(v.value)} (${sym(v.symbol)})`;
    case 'offsets':
      return `${name}: ${v.offsets.map(hex).join(' ')}`;
    case 'symbols':
      return `${name}: ${v.symbols.map(sym).join(' ')}`;
    case 'dims':
      return `${name}: ${v.dims.join(' ')}`;
    case 'paramCbank':
      return `${name}: ${sym(v.symbol)} offset ${hex(v.offset)} size ${hex(v.size)}`;
    case 'version':
      return `${name}: ${v.major}.${v.minor}`;
    case 'kparam':
      return v.params
        .map(
          (p) =>
            `${name}: ordinal ${p.ordinal} offset ${hex(p.offset)} size ${hex(p.size)}` +
            (p.logAlignment ? ` logalign ${p.logAlignment}` : '') +
            (p.inCbank ? '' : ` space ${p.space}`),
        )
        .join('\n');
    case 'branchTargets':
      return v.branches.map((b) => `${name}: ${hex(b.offset)} -> ${b.targets.map(hex).join(' ')}`).join('\n');
    case 'raw':
      return v.words
        ? `${name}: ${v.words.map((x) => hex(x)).join(' ')}`
        : `${name}: [${Array.from(v.bytes, (b) => b.toString(16).padStart(2, '0')).join(' ')}]`;
  }
}
