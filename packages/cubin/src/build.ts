// Cubin builder: the ELF ptxas 13.0 writes for a module, made from what a code generator knows about each function
// (its encoded code, register count, parameters, shared/local memory, exits, barriers...). Section order, string
// tables, symbol order, attributes and segments follow the layout profile of the target (profile.ts); the
// comparison against ptxas's own cubins (scripts/cubin-rebuild.mjs, build.ptxas.test.ts) says where they agree.
//
// Function order: `functions` are given in PTX definition order; ptxas emits the sections of the last-defined
// function first, and so does this builder (the global .nv.info lists REGCOUNT/FRAME_SIZE in PTX order).
import { encodeArchFlagsV8 } from './arch.js';
import { ELF_HEADER_SIZE, ELFOSABI_CUDA_V8, ET_EXEC, ET_REL, PT, SHF, SHT, STB, STO_CUDA_ENTRY, STT } from './elf.js';
import { CubinError } from './errors.js';
import { type ElfNote, NT_CUDA_CUINFO, NT_CUDA_TKINFO } from './notes.js';
import { attributeCode, EIFMT, encodeNvInfo, type NvInfoRecord } from './nvinfo.js';
import { type CubinLayoutProfile, type FunctionAttributeKey, layoutProfileFor } from './profile.js';
import { type BuildVariable, dataSectionBytes, layoutModuleData } from './data.js';
import { relocationType } from './relocs.js';
import { encodeNotes, encodeRelocations, encodeSymbols, type SectionSpec, type SegmentSpec, writeCubin } from './write.js';

/** One kernel parameter as EIATTR_KPARAM_INFO records it. */
export interface BuildParam {
  ordinal: number;
  /** Byte offset from the start of the parameter area. */
  offset: number;
  size: number;
  /** log2 of the alignment when ptxas records one (`.ptr .align N`; 0 for the common case). */
  logAlignment?: number;
  /** State space of a `.ptr` parameter's pointee as KPARAM_INFO codes it (global 4, shared 2; 0 when not given). */
  pointeeSpace?: number;
}

/** A private device function placed inside its caller's .text section (ptxas names it `$<caller>$<callee>`). */
export interface BuildSubroutine {
  name: string;
  /** Byte offset inside the caller's code. */
  offset: number;
  size: number;
  /** STB_GLOBAL (.visible/.extern) or STB_LOCAL. */
  global: boolean;
  /** STB_WEAK (ptxas's internal helpers such as `$__internal_0_$__cuda_sm3x_div_rn_ftz_f32_slowpath`). */
  weak?: boolean;
  frameSize?: number;
  /**
   * The register (R number) holding the return address under the subroutine's calling convention. With it the
   * subroutine gets its own CIE (return-address rule) and FDE in .debug_frame, as ptxas writes them.
   */
  returnAddressRegister?: number;
  /** DWARF call-frame instructions of the subroutine's FDE (default none). */
  frameInstructions?: Uint8Array;
}

/** A relocation against the function's code (.rela.text.<fn>). `symbol` names a symbol of the module. */
export interface BuildRelocation {
  offset: number;
  /** R_CUDA_* name or number. */
  type: string | number;
  symbol: string;
  addend?: number;
}

/** Attributes a code generator reports for rare instruction kinds, written where ptxas writes them. */
export interface BuildExtraAttributes {
  coopGroupMaskRegids?: number[];
  coopGroupInstrOffsets?: number[];
  intWarpWideInstrOffsets?: number[];
  syscallOffsets?: number[];
  /** Symbols (by name) of EIATTR_EXTERNS. */
  externs?: string[];
  indirectBranchTargets?: Array<{ offset: number; tag: number; targets: number[] }>;
  /** EIATTR_BINDLESS_TEXTURE_BANK / SURFACE_BANK values. */
  bindlessTextureBank?: number;
  bindlessSurfaceBank?: number;
}

export interface BuildFunction {
  name: string;
  /** `.entry` (kernel) or `.func` with a section of its own. */
  kind: 'entry' | 'func';
  /** `.visible`/`.extern` (STB_GLOBAL) or file-local (STB_LOCAL). */
  global: boolean;
  /** Encoded machine code. */
  code: Uint8Array;
  /** Registers used (EIATTR_REGCOUNT). */
  regCount: number;
  params?: BuildParam[];
  /** Size of the parameter area in constant bank 0 (default: end of the last parameter). */
  paramBytes?: number;
  /** Static shared memory (.nv.shared.<fn>), bytes and alignment (without the system reserve of mercury targets). */
  sharedBytes?: number;
  /**
   * The function uses shared memory even with no static bytes (`.extern .shared` arrays only): on targets with a
   * system reserve the section still exists and holds the reserve, as ptxas writes it.
   */
  usesSharedMemory?: boolean;
  sharedAlign?: number;
  /** Per-thread local memory of the function's own (.nv.local.<fn>), bytes and alignment. */
  localBytes?: number;
  localAlign?: number;
  /** Stack frame (EIATTR_FRAME_SIZE), default 0. */
  frameSize?: number;
  /** EIATTR_MIN_STACK_SIZE, default 0. */
  minStackSize?: number;
  /** EIATTR_CRS_STACK_SIZE (written when defined). */
  crsStackSize?: number;
  /** Byte offsets of the EXIT instructions. */
  exitOffsets: number[];
  /** Named barriers used (EIATTR_NUM_BARRIERS, written when > 0). */
  barriers?: number;
  /** .maxntid / .reqntid. */
  maxThreads?: [number, number, number];
  reqntid?: [number, number, number];
  /** --maxrregcount / .maxnreg (EIATTR_MAXREG_COUNT, default 255). */
  maxRegCount?: number;
  subroutines?: BuildSubroutine[];
  /** Relocations of the code; `[]` still makes the (empty) .rela.text.<fn> section ptxas keeps after calls. */
  relocations?: BuildRelocation[];
  extra?: BuildExtraAttributes;
  /**
   * DWARF call-frame instructions of the function's .debug_frame FDE. Default: `defaultFrameInstructions`
   * from `cfaOffset` (where ptxas defines the CFA: the end of the first block) and the last exit.
   */
  frameInstructions?: Uint8Array;
  /** Byte offset where the FDE defines the CFA (default: cfaOffsetOfCode). */
  cfaOffset?: number;
  /**
   * The function's BRX jump tables (`.nv.constant2.<fn>`, read as constant bank 2): 32-bit function-relative
   * target addresses, as ptxas writes them; list the BRXs in `extra.indirectBranchTargets`.
   */
  constant2?: Uint8Array;
}

export interface BuildTool {
  name: string;
  version: string;
  branch: string;
  /** The command-line options string (ptxas writes e.g. `-arch sm_90 `). */
  options: string;
}

export interface BuildCubinInput {
  /** `sm_90`, `sm_80`... or the SM number. */
  arch: string | number;
  /** The PTX `.target` SM (note .nv.cuinfo); default the arch. */
  virtualSm?: number;
  /** CUDA toolkit version * 10 in .note.nv.cuinfo (130). */
  toolkitVersion?: number;
  /** EIATTR_CUDA_API_VERSION (0x82 for PTX ISA 8.x/9.x from ptxas 13.0). */
  cudaApiVersion?: number;
  /** Who wrote the file (.note.nv.tkinfo). */
  tool?: BuildTool;
  /** EICOMPAT 0x02 (1; 2 when texture references are used). */
  compatTextureMode?: number;
  functions: BuildFunction[];
  /** `.texmode_independent` (EIATTR_TEXMODE_INDEPENDENT in the global .nv.info). */
  texmodeIndependent?: boolean;
  /** Module `.global`/`.const` variables in declaration order (data.ts: sections, layout, relocations). */
  variables?: BuildVariable[];
  /**
   * Constant bank 4 (`.nv.constant4`): slot i (bytes 8i..8i+7) holds the 64-bit address of `symbol` (+ addend), a
   * global variable of `variables`; the code loads it with `LDC.64 R, c[0x4][8i]`.
   */
  addressTable?: Array<{ symbol: string; addend?: number; /** default R_CUDA_64 (a kernel's address: R_CUDA_FUNC_DESC_64) */ type?: string }>;
  /**
   * A relocatable object (ptxas `-c`): ELF type ET_REL and no program headers; nvlink links it with the
   * objects that define its undefined functions.
   */
  relocatable?: boolean;
}

/**
 * Functions a BuildFunction names in `extra.externs` that the module does not define (`vprintf`, `malloc`,
 * `__assertfail`, ...): each becomes an undefined global FUNC symbol right after the first function naming it,
 * an edge (caller, callee) of `.nv.callgraph`, and may be the symbol of an `addressTable` slot (the code loads
 * its address from constant bank 4, resolved by the driver when it loads the module), as ptxas writes them.
 */
function externsOf(input: BuildCubinInput): Set<string> {
  const defined = new Set(input.functions.map((f) => f.name));
  const out = new Set<string>();
  for (const f of input.functions) for (const n of f.extra?.externs ?? []) if (!defined.has(n)) out.add(n);
  return out;
}

const DEFAULT_TOOL: BuildTool = { name: 'ptxforge', version: 'ptxforge', branch: '', options: '' };

function fail(message: string): never {
  throw new CubinError('CUBIN_WRITE', message);
}

function u32s(...xs: number[]): Uint8Array {
  const b = new Uint8Array(4 * xs.length);
  const v = new DataView(b.buffer);
  xs.forEach((x, i) => v.setUint32(4 * i, x >>> 0, true));
  return b;
}

function smOf(arch: string | number): number {
  if (typeof arch === 'number') return arch;
  const m = /^sm_(\d+)[af]?$/.exec(arch);
  if (!m) fail(`arch ${JSON.stringify(arch)} is not an sm_NN target`);
  return Number(m[1]);
}

/** The .note.nv.tkinfo descriptor: version 2, five string offsets, the strings. */
export function encodeTkInfo(tool: BuildTool, objectFilename = ''): Uint8Array {
  const strs = [objectFilename, tool.name, tool.version, tool.branch, tool.options];
  const blob: number[] = [];
  const offs: number[] = [];
  for (const s of strs) {
    offs.push(blob.length);
    for (let i = 0; i < s.length; i++) blob.push(s.charCodeAt(i) & 0xff);
    blob.push(0);
  }
  // ptxas counts the padding to 4 bytes in the descriptor size.
  const out = new Uint8Array(24 + Math.ceil(blob.length / 4) * 4);
  out.set(u32s(2, ...offs));
  out.set(blob, 24);
  return out;
}

/** ULEB128 bytes. */
function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    out.push(b);
  } while (n > 0);
  return out;
}

// The CIE every ptxas 13.0 cubin starts .debug_frame with (functions without a frame of their own): version 3,
// code alignment 4, data alignment -4, return-address register 0xffffffff, CFA = the stack register (R1 in
// ptxas's DWARF register numbering: ULEB 0x5000001)... copied as data, the meaning does not matter to the driver.
const CIE_BODY = Uint8Array.from([
  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x03, 0x00, 0x04, 0x7c, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x0c, 0x81, 0x80,
  0x80, 0x28, 0x00, 0x08, 0xff, 0x81, 0x80, 0x28, 0x08, 0x81, 0x80, 0x80, 0x28, 0x00, 0x00, 0x00,
]);
const DEF_CFA = [0x0c, ...uleb(0x5000001), 0x00];

function advance(bytes: number): number[] {
  const units = (bytes >>> 0) >>> 2;
  return [0x04, units & 0xff, (units >>> 8) & 0xff, (units >>> 16) & 0xff, (units >>> 24) & 0xff];
}

/**
 * The FDE instructions of the common ptxas pattern: two rows, one where the CFA is defined (`cfaOffset`: after
 * the prologue's stack adjustment, else the end of the first basic block) and one at the last exit, emitted in
 * address order as DW_CFA_advance_loc4 steps.
 */
export function defaultFrameInstructions(cfaOffset: number, lastExit: number | undefined, rowAfterFirst = false): Uint8Array {
  const out: number[] = [];
  if (rowAfterFirst) {
    // Turing/Ampere: an empty row after the first instruction (the stack-pointer load), the CFA row, then the
    // last exit even when it lies before the CFA row (a negative advance, as a 32-bit byte delta >>> 2).
    out.push(...advance(16), ...advance(cfaOffset - 16), ...DEF_CFA);
    if (lastExit !== undefined && lastExit !== cfaOffset) out.push(...advance(lastExit - cfaOffset));
    return Uint8Array.from(out);
  }
  if (lastExit !== undefined && lastExit < cfaOffset) {
    out.push(...advance(lastExit), ...advance(cfaOffset - lastExit), ...DEF_CFA);
  } else {
    out.push(...advance(cfaOffset), ...DEF_CFA);
    if (lastExit !== undefined && lastExit > cfaOffset) out.push(...advance(lastExit - cfaOffset));
  }
  return Uint8Array.from(out);
}

// Volta-family (sm_70+) words: opcode in bits 0..11, Rd in 16..23, Ra in 24..31 (../shared/golden/README.md).
const CONTROL_TRANSFER = new Set([0x943, 0x944, 0x947, 0x949, 0x94a, 0x94c, 0x94d, 0x950]); // CALL BRA BRX JMP JMX EXIT RET
const LDC = 0xb82;

/**
 * Where ptxas defines the CFA in a function's FDE: after the prologue's stack-pointer adjustment (an instruction
 * writing R1 from R1) when one comes before the first control transfer, else after the first control transfer
 * (branch, exit, call, return) -- the end of the first basic block. Volta-family code only.
 */
export function cfaOffsetOfCode(code: Uint8Array): number {
  for (let i = 0; i + 16 <= code.length; i += 16) {
    const op = code[i]! | ((code[i + 1]! & 0x0f) << 8);
    if (CONTROL_TRANSFER.has(op)) return i + 16;
    if (code[i + 2] === 1 && code[i + 3] === 1 && op !== LDC) return i + 16;
  }
  return code.length;
}

/**
 * True when the code writes the stack pointer R1: the prologue's load of c[0x0][0x28] (`LDC R1` on sm_90,
 * `IMAD.MOV.U32 R1, RZ, RZ, c[0x0][0x28]` before) or an adjustment of R1 from R1.
 */
export function writesStackPointer(code: Uint8Array): boolean {
  for (let i = 0; i + 16 <= code.length; i += 16) {
    if (code[i + 2] !== 1) continue;
    const op = code[i]! | ((code[i + 1]! & 0x0f) << 8);
    const cbankOffset = ((code[i + 4]! | (code[i + 5]! << 8) | (code[i + 6]! << 16)) >>> 6) & 0xffff;
    if (op === LDC || code[i + 3] === 1 || cbankOffset === 0x28) return true;
  }
  return false;
}

// The CIE of a function that never sets up the stack pointer: no CFA definition (and its FDE only advances to
// the last exit).
const CIE_BODY_NO_STACK = Uint8Array.from([
  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x03, 0x00, 0x04, 0x7c, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x08, 0xff, 0x81,
  0x80, 0x28,
]);

/** The CIE ptxas writes for a subroutine whose return address is in R`reg`; `addrAt` is its DW_OP_addr operand. */
function subroutineCie(reg: number): { body: Uint8Array; addrAt: number } {
  const r = uleb(0x5000000 + reg);
  const body = [
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x03, 0x00, 0x04, 0x7c, ...uleb(0x5000100), ...DEF_CFA,
    0x08, 0xff, 0x81, 0x80, 0x28, 0x08, ...uleb(0x5000001), 0x08, ...r,
    // DW_CFA_val_expression(return-address column, { DW_OP_addr <function>; DW_OP_bregx R, 0; DW_OP_plus })
    0x16, ...uleb(0x5000100), 12 + r.length, 0x03,
  ];
  const addrAt = body.length;
  body.push(0, 0, 0, 0, 0, 0, 0, 0, 0x92, ...r, 0x00, 0x22, 0x00);
  return { body: Uint8Array.from(body), addrAt };
}

function frameEntry(body: Uint8Array): Uint8Array {
  // 64-bit DWARF: 0xffffffff, u64 length; entries padded to 8 bytes overall.
  const len = Math.ceil((12 + body.length) / 8) * 8 - 12;
  const out = new Uint8Array(12 + len);
  const v = new DataView(out.buffer);
  v.setUint32(0, 0xffffffff, true);
  v.setBigUint64(4, BigInt(len), true);
  out.set(body, 12);
  return out;
}

function fdeBody(cie: number, range: number, instructions: Uint8Array, location = 0): Uint8Array {
  const out = new Uint8Array(24 + instructions.length);
  const v = new DataView(out.buffer);
  v.setBigUint64(0, BigInt(cie), true); // CIE pointer: the function's own CIE
  v.setBigUint64(8, BigInt(location), true); // initial location: relocated to the function symbol (+ the addend)
  v.setBigUint64(16, BigInt(range), true);
  out.set(instructions, 24);
  return out;
}

/** A string table in creation order; ptxas does not merge repeated names. */
class StringTable {
  readonly bytes: number[] = [0];
  readonly offsets = new Map<string, number>();
  add(s: string): number {
    const at = this.bytes.length;
    for (let i = 0; i < s.length; i++) this.bytes.push(s.charCodeAt(i) & 0xff);
    this.bytes.push(0);
    if (!this.offsets.has(s)) this.offsets.set(s, at);
    return at;
  }
  get(s: string): number {
    if (s === '') return 0;
    const o = this.offsets.get(s);
    if (o === undefined) fail(`internal: ${s} is not in the string table`);
    return o;
  }
  data(): Uint8Array {
    return Uint8Array.from(this.bytes);
  }
}

interface SymbolDraft {
  name: string;
  value: number;
  size: number;
  type: number;
  bind: number;
  other: number;
  /** Section key resolved to an index at the end (or a fixed shndx). */
  section?: string;
  shndx?: number;
}

function attr(name: string): number {
  const c = attributeCode(`EIATTR_${name}`);
  if (c === undefined) fail(`internal: unknown attribute ${name}`);
  return c;
}

type Rec = Pick<NvInfoRecord, 'format' | 'code' | 'value' | 'payload'>;
const sval = (name: string, payload: Uint8Array): Rec => ({ format: EIFMT.SVAL, code: attr(name), value: payload.length, payload });
const hval = (name: string, value: number): Rec => ({ format: EIFMT.HVAL, code: attr(name), value, payload: new Uint8Array(0) });
const bval = (name: string, value: number): Rec => ({ format: EIFMT.BVAL, code: attr(name), value, payload: new Uint8Array(0) });
const nval = (name: string): Rec => ({ format: EIFMT.NVAL, code: attr(name), value: 0, payload: new Uint8Array(0) });

function checkFunction(f: BuildFunction, seen: Set<string>): void {
  if (!f.name || /[\0]/.test(f.name)) fail(`function name ${JSON.stringify(f.name)} is not a valid symbol name`);
  if (seen.has(f.name)) fail(`function ${f.name} is given twice`);
  seen.add(f.name);
  if (f.code.length % 16 !== 0) fail(`${f.name}: code is ${f.code.length} bytes, not a whole number of 16-byte instructions`);
  if (!Number.isInteger(f.regCount) || f.regCount < 0 || f.regCount > 255) fail(`${f.name}: register count ${f.regCount} is out of 0..255`);
  for (const e of f.exitOffsets) {
    if (e < 0 || e >= f.code.length || e % 16) fail(`${f.name}: exit offset 0x${e.toString(16)} is not an instruction of the code`);
  }
  for (const p of f.params ?? []) {
    if (p.offset < 0 || p.size <= 0 || p.offset + p.size > 0xffff) fail(`${f.name}: parameter ${p.ordinal} (offset ${p.offset}, size ${p.size}) does not fit the parameter bank`);
  }
}

/**
 * Build the cubin ptxas would write for these functions. Throws CUBIN_WRITE for inputs that cannot be laid out
 * (bad code size, exits outside the code, unknown arch layout, unknown relocation symbol...).
 */
export function buildCubin(input: BuildCubinInput): Uint8Array {
  const sm = smOf(input.arch);
  const profile = layoutProfileFor(sm);
  if (!profile) fail(`no cubin layout for sm_${sm}: ptxforge writes cubins for sm_75, sm_80..sm_89 and sm_90`);
  if (!input.functions.length) fail('a cubin needs at least one function');
  const seen = new Set<string>();
  for (const f of input.functions) checkFunction(f, seen);
  const data = layoutModuleData(input.variables ?? []);
  for (const v of data.variables) if (seen.has(v.name)) fail(`${v.name} names both a function and a variable`);
  const externs = externsOf(input);
  for (const n of externs) if (data.byName.has(n)) fail(`${n} names both an extern function and a variable`);
  for (const a of input.addressTable ?? []) {
    if (externs.has(a.symbol)) continue;
    // a kernel's function descriptor (a device-side launch): R_CUDA_FUNC_DESC_64 against the function's symbol
    if (seen.has(a.symbol) && a.type === 'R_CUDA_FUNC_DESC_64') continue;
    const v = data.byName.get(a.symbol);
    if (!v || v.space !== 'global') fail(`.nv.constant4: ${a.symbol} is not a global variable or extern function of the module`);
  }
  return build(input, sm, profile, data);
}

function build(input: BuildCubinInput, sm: number, P: CubinLayoutProfile, data: ReturnType<typeof layoutModuleData>): Uint8Array {
  const mercury = P.name === 'mercury';
  // ptxas emits the last-defined function first.
  const fns = [...input.functions].reverse();
  const shstr = new StringTable();
  const str = new StringTable();
  const both = (s: string) => {
    shstr.add(s);
    str.add(s);
  };
  for (const s of ['.shstrtab', '.strtab', '.symtab', '.symtab_shndx', '.note.nv.tkinfo', '.note.nv.cuinfo', '.nv.info']) both(s);
  if (P.compat) both('.nv.compat');

  // Symbols in creation order: section symbols and local function symbols as each function is emitted,
  // global function symbols after .debug_frame/.nv.callgraph, then (mercury) the constant-bank section symbols.
  const locals: SymbolDraft[] = [];
  const sectionSym = (section: string) => locals.push({ name: section, value: 0, size: 0, type: STT.SECTION, bind: STB.LOCAL, other: 0, section });
  sectionSym('.note.nv.tkinfo');
  sectionSym('.note.nv.cuinfo');
  const fnSymbol = (f: BuildFunction): SymbolDraft => ({
    name: f.name,
    value: 0,
    size: f.code.length,
    type: STT.FUNC,
    bind: f.global ? STB.GLOBAL : STB.LOCAL,
    other: f.kind === 'entry' ? STO_CUDA_ENTRY : 0,
    section: `.text.${f.name}`,
  });
  const subSymbol = (f: BuildFunction, s: BuildSubroutine): SymbolDraft => ({
    name: s.name,
    value: s.offset,
    size: s.size,
    type: STT.FUNC,
    bind: s.weak ? STB.WEAK : s.global ? STB.GLOBAL : STB.LOCAL,
    other: 0,
    section: `.text.${f.name}`,
  });
  // Local and weak subroutine symbols are made with their function; global ones with the other globals.
  const early = (s: BuildSubroutine) => !s.global || !!s.weak;
  const globals: SymbolDraft[] = [];
  let first = true;
  let internalDone = false;
  const hasShared = (f: BuildFunction) => !!f.sharedBytes || (!!f.usesSharedMemory && !!P.sharedReserve);
  const relocationsOf = (f: BuildFunction) => f.relocations ?? (P.sharedReserve && hasShared(f) ? [] : undefined);
  for (const f of fns) {
    if (!f.global) {
      str.add(f.name);
      locals.push(fnSymbol(f));
    }
    both(`.text.${f.name}`);
    sectionSym(`.text.${f.name}`);
    both(`.nv.info.${f.name}`);
    both(`.nv.shared.${f.name}`);
    if (hasShared(f)) sectionSym(`.nv.shared.${f.name}`);
    if (first && P.reservedSharedSymbols) {
      str.add('.nv.reservedSmem.offset0');
      locals.push({ name: '.nv.reservedSmem.offset0', value: 0, size: 4, type: STT.OBJECT, bind: STB.WEAK, other: 0, shndx: 0 });
      both('.nv.shared.reserved.0');
      str.add('__nv_reservedSMEM_offset_0_alias');
      locals.push({ name: '__nv_reservedSMEM_offset_0_alias', value: 0, size: 0, type: STT.NOTYPE, bind: STB.WEAK, other: 0xa0, section: '.nv.shared.reserved.0' });
    }
    first = false;
    for (const s of f.subroutines ?? []) {
      if (early(s)) {
        str.add(s.name);
        locals.push(subSymbol(f, s));
      }
    }
    if (P.sharedReserve && hasShared(f) && !internalDone) {
      // Mercury: the first function using shared memory brings one internal (STV_INTERNAL) symbol whose
      // 20-character name ptxas blanks after resolving its relocations: an empty name, 21 zero bytes in .strtab.
      internalDone = true;
      str.bytes.push(...new Array<number>(21).fill(0));
      locals.push({ name: '', value: 0, size: 0, type: STT.NOTYPE, bind: STB.LOCAL, other: 1, shndx: 0 });
    }
    if (f.localBytes) {
      both(`.nv.local.${f.name}`);
      sectionSym(`.nv.local.${f.name}`);
    }
    if (f.constant2?.length) {
      both(`.nv.constant2.${f.name}`);
      sectionSym(`.nv.constant2.${f.name}`);
    }
    if (relocationsOf(f)) {
      both(`.rel.text.${f.name}`);
      both(`.rela.text.${f.name}`);
    }
    if (P.constant0BeforeText) {
      // Turing/Ampere: the bank's section and its (never written) .rel section are named with the function;
      // .shstrtab and .strtab receive the two names in opposite orders.
      shstr.add(`.nv.constant0.${f.name}`);
      shstr.add(`.rel.nv.constant0.${f.name}`);
      str.add(`.rel.nv.constant0.${f.name}`);
      str.add(`.nv.constant0.${f.name}`);
      sectionSym(`.nv.constant0.${f.name}`);
    }
  }
  // Module data: section symbols, then the file-local variables (ptxas's order for a module with all of them).
  const table = input.addressTable ?? [];
  const hasData = (n: '.nv.global.init' | '.nv.global' | '.nv.constant3') => data.sections.has(n);
  const varSymbol = (v: (typeof data.variables)[number]): SymbolDraft => ({ name: v.name, value: v.offset, size: v.size, type: STT.OBJECT, bind: v.visible ? STB.GLOBAL : STB.LOCAL, other: 0, section: v.section });
  const declared = (input.variables ?? []).map((v) => data.byName.get(v.name)!);
  for (const n of ['.nv.global.init', '.nv.constant4', '.nv.global'] as const) {
    if (n === '.nv.constant4' ? !table.length : !hasData(n)) continue;
    both(n);
    sectionSym(n);
  }
  for (const v of declared) {
    if (v.section === '.nv.constant3' || v.visible) continue;
    str.add(v.name);
    locals.push(varSymbol(v));
  }
  if (hasData('.nv.constant3')) {
    both('.nv.constant3');
    sectionSym('.nv.constant3');
    for (const v of declared) {
      if (v.section !== '.nv.constant3' || v.visible) continue;
      str.add(v.name);
      locals.push(varSymbol(v));
    }
  }
  // ptxas lists the slots' relocations last slot first
  const c4 = table.length ? { bytes: new Uint8Array(8 * table.length), relocations: table.map((a, i) => ({ offset: 8 * i, type: a.type ?? 'R_CUDA_64', symbol: a.symbol, addend: a.addend ?? 0 })).reverse() } : undefined;
  const c3 = hasData('.nv.constant3') ? dataSectionBytes(data, '.nv.constant3') : undefined;
  const gi = hasData('.nv.global.init') ? dataSectionBytes(data, '.nv.global.init') : undefined;
  const dataRelocs: Array<[string, { relocations: Array<{ offset: number; type: string; symbol: string; addend: number }> } | undefined]> = [
    ['.nv.constant4', c4],
    ['.nv.constant3', c3],
    ['.nv.global.init', gi],
  ];
  for (const [n, d] of dataRelocs) if (d?.relocations.length) both(`.rela${n}`);
  for (const s of ['.debug_frame', '.rel.debug_frame', '.rela.debug_frame', '.nv.callgraph', '.nv.prototype']) both(s);
  sectionSym('.debug_frame');
  sectionSym('.nv.callgraph');
  if (P.relAction) {
    both('.nv.rel.action');
    sectionSym('.nv.rel.action');
  }
  const externSymbols = new Set<string>();
  const defined = new Set(input.functions.map((f) => f.name));
  for (const f of fns) {
    if (f.global) {
      str.add(f.name);
      globals.push(fnSymbol(f));
    }
    for (const n of f.extra?.externs ?? []) {
      if (defined.has(n) || externSymbols.has(n)) continue;
      externSymbols.add(n);
      str.add(n);
      globals.push({ name: n, value: 0, size: 0, type: STT.FUNC, bind: STB.GLOBAL, other: 0, shndx: 0 });
    }
    for (const s of f.subroutines ?? []) {
      if (!early(s)) {
        str.add(s.name);
        globals.push(subSymbol(f, s));
      }
    }
  }
  for (const v of declared) {
    if (!v.visible) continue;
    str.add(v.name);
    globals.push(varSymbol(v));
  }
  const tail: SymbolDraft[] = [];
  if (!P.constant0BeforeText) {
    for (const f of fns) {
      both(`.nv.constant0.${f.name}`);
      tail.push({ name: `.nv.constant0.${f.name}`, value: 0, size: 0, type: STT.SECTION, bind: STB.LOCAL, other: 0, section: `.nv.constant0.${f.name}` });
    }
  }
  const symbols = [...locals, ...globals, ...tail];

  // Section list (index order).
  interface Sec extends Omit<SectionSpec, 'link' | 'info'> {
    link?: number | string;
    info?: number | string;
  }
  const secs: Sec[] = [{ name: '', type: SHT.NULL, flags: 0, addralign: 0, data: new Uint8Array(0) }];
  const add = (s: Sec) => secs.push(s);
  add({ name: '.shstrtab', type: SHT.STRTAB, flags: 0, addralign: 1, data: new Uint8Array(0) });
  add({ name: '.strtab', type: SHT.STRTAB, flags: 0, addralign: 1, data: new Uint8Array(0) });
  add({ name: '.symtab', type: SHT.SYMTAB, flags: 0, addralign: 8, entsize: 24, link: '.strtab', info: symbols.length, data: new Uint8Array(0) });
  add({ name: '.debug_frame', type: SHT.PROGBITS, flags: 0, addralign: 1, data: new Uint8Array(0) });
  const tool = input.tool ?? DEFAULT_TOOL;
  const notes = (n: ElfNote) => encodeNotes([n]);
  add({ name: '.note.nv.tkinfo', type: SHT.NOTE, flags: 0x2000000, addralign: 4, data: notes({ name: 'NVIDIA Corp', type: NT_CUDA_TKINFO, desc: encodeTkInfo(tool) }) });
  const cuinfoDesc = new Uint8Array(8);
  new DataView(cuinfoDesc.buffer).setUint16(0, 2, true);
  new DataView(cuinfoDesc.buffer).setUint16(2, input.virtualSm ?? sm, true);
  new DataView(cuinfoDesc.buffer).setUint32(4, input.toolkitVersion ?? 130, true);
  add({
    name: '.note.nv.cuinfo',
    type: SHT.NOTE,
    flags: P.cuinfoFlags,
    addralign: 4,
    link: '.note.nv.tkinfo',
    info: P.compat ? '.nv.compat' : 0,
    data: notes({ name: 'NVIDIA Corp', type: NT_CUDA_CUINFO, desc: cuinfoDesc }),
  });
  add({ name: '.nv.info', type: SHT.CUDA_INFO, flags: 0, addralign: 4, link: '.symtab', data: new Uint8Array(0) });
  if (P.compat) {
    const recs: Rec[] = P.compat.map(([format, code, value]) => {
      if (format === EIFMT.SVAL) return { format, code, value: 8, payload: new Uint8Array(8) };
      return { format, code, value: code === 0x02 ? (input.compatTextureMode ?? value) : value, payload: new Uint8Array(0) };
    });
    add({ name: '.nv.compat', type: SHT.CUDA_COMPAT, flags: 0, addralign: 4, data: encodeNvInfo(recs) });
  }
  for (const f of fns) {
    add({ name: `.nv.info.${f.name}`, type: SHT.CUDA_INFO, flags: SHF.INFO_LINK, addralign: 4, link: '.symtab', info: `.text.${f.name}`, data: new Uint8Array(0) });
  }
  add({ name: '.nv.callgraph', type: SHT.CUDA_CALLGRAPH, flags: 0, addralign: 4, entsize: 8, link: '.symtab', data: new Uint8Array(0) });
  if (P.relAction) add({ name: '.nv.rel.action', type: SHT.CUDA_RELOCINFO, flags: 0, addralign: 8, entsize: 8, data: P.relAction });
  for (const f of fns) {
    if (!relocationsOf(f)) continue;
    add({ name: `.rela.text.${f.name}`, type: SHT.RELA, flags: SHF.INFO_LINK, addralign: 8, entsize: 24, link: '.symtab', info: `.text.${f.name}`, data: new Uint8Array(0) });
  }
  for (const [n, d] of dataRelocs) {
    if (d?.relocations.length) add({ name: `.rela${n}`, type: SHT.RELA, flags: SHF.INFO_LINK, addralign: 8, entsize: 24, link: '.symtab', info: n, data: new Uint8Array(0) });
  }
  add(
    P.debugFrameRela
      ? { name: '.rela.debug_frame', type: SHT.RELA, flags: SHF.INFO_LINK, addralign: 8, entsize: 24, link: '.symtab', info: '.debug_frame', data: new Uint8Array(0) }
      : { name: '.rel.debug_frame', type: SHT.REL, flags: SHF.INFO_LINK, addralign: 8, entsize: 16, link: '.symtab', info: '.debug_frame', data: new Uint8Array(0) },
  );
  const constant0 = (f: BuildFunction): Sec => {
    const paramBytes = f.paramBytes ?? Math.max(0, ...(f.params ?? []).map((p) => p.offset + p.size));
    return { name: `.nv.constant0.${f.name}`, type: SHT.PROGBITS, flags: SHF.ALLOC | SHF.INFO_LINK, addralign: 4, info: `.text.${f.name}`, data: new Uint8Array(P.paramBase + paramBytes) };
  };
  if (c4) add({ name: '.nv.constant4', type: SHT.PROGBITS, flags: SHF.ALLOC, addralign: 8, data: c4.bytes });
  if (c3) add({ name: '.nv.constant3', type: SHT.PROGBITS, flags: SHF.ALLOC, addralign: Math.max(4, data.sections.get('.nv.constant3')!.align), data: c3.bytes });
  if (P.constant0BeforeText) for (const f of fns) add(constant0(f));
  for (const f of fns) {
    if (!f.constant2?.length) continue;
    add({ name: `.nv.constant2.${f.name}`, type: SHT.PROGBITS, flags: SHF.ALLOC | SHF.INFO_LINK, addralign: 4, info: `.text.${f.name}`, data: f.constant2 });
  }
  for (const f of fns) {
    add({ name: `.text.${f.name}`, type: SHT.PROGBITS, flags: SHF.ALLOC | SHF.EXECINSTR, addralign: 128, link: '.symtab', info: `sym:${f.name}`, data: f.code });
  }
  if (gi) add({ name: '.nv.global.init', type: SHT.PROGBITS, flags: SHF.WRITE | SHF.ALLOC, addralign: data.sections.get('.nv.global.init')!.align, data: gi.bytes });
  for (const f of fns) {
    if (!hasShared(f)) continue;
    add({ name: `.nv.shared.${f.name}`, type: SHT.NOBITS, flags: SHF.WRITE | SHF.ALLOC | SHF.INFO_LINK, addralign: f.sharedAlign ?? (f.sharedBytes ? 4 : 16), info: `.text.${f.name}`, data: new Uint8Array(0), size: (f.sharedBytes ?? 0) + (P.sharedReserve ?? 0) });
  }
  if (P.reservedSharedSymbols) add({ name: '.nv.shared.reserved.0', type: SHT.NOBITS, flags: SHF.WRITE | SHF.ALLOC, addralign: 1, data: new Uint8Array(0), size: 0 });
  if (hasData('.nv.global')) {
    const g = data.sections.get('.nv.global')!;
    add({ name: '.nv.global', type: SHT.NOBITS, flags: SHF.WRITE | SHF.ALLOC, addralign: g.align, data: new Uint8Array(0), size: g.size });
  }
  for (const f of fns) {
    if (!f.localBytes) continue;
    add({ name: `.nv.local.${f.name}`, type: SHT.NOBITS, flags: SHF.WRITE | SHF.ALLOC | SHF.INFO_LINK, addralign: f.localAlign ?? 4, info: `.text.${f.name}`, data: new Uint8Array(0), size: f.localBytes });
  }
  if (!P.constant0BeforeText) for (const f of fns) add(constant0(f));

  const secIndex = new Map<string, number>();
  secs.forEach((s, i) => {
    if (i) secIndex.set(s.name, i);
  });
  const symIndex = new Map<string, number>();
  symbols.forEach((s, i) => {
    if (s.type !== STT.SECTION && !symIndex.has(s.name)) symIndex.set(s.name, i + 1);
  });
  const sectionSymIndex = new Map<string, number>();
  symbols.forEach((s, i) => {
    if (s.type === STT.SECTION) sectionSymIndex.set(s.section!, i + 1);
  });
  const secOf = (k: string) => {
    const i = secIndex.get(k);
    if (i === undefined) fail(`internal: no section ${k}`);
    return i;
  };
  const symOf = (name: string, where: string) => {
    const i = symIndex.get(name);
    if (i === undefined) fail(`${where}: no symbol named ${JSON.stringify(name)} in the module`);
    return i;
  };

  // .nv.info (global): REGCOUNT and FRAME_SIZE per function in PTX order (subroutines' frames first), then
  // MIN_STACK_SIZE per function in section order.
  const global: Rec[] = [];
  for (const f of input.functions) {
    const sym = symOf(f.name, f.name);
    global.push(sval('REGCOUNT', u32s(sym, f.regCount)));
    for (const s of [...(f.subroutines ?? [])].reverse()) global.push(sval('FRAME_SIZE', u32s(symOf(s.name, f.name), s.frameSize ?? 0)));
    global.push(sval('FRAME_SIZE', u32s(sym, f.frameSize ?? 0)));
  }
  if (input.texmodeIndependent) global.push(nval('TEXMODE_INDEPENDENT'));
  for (const f of fns) global.push(sval('MIN_STACK_SIZE', u32s(symOf(f.name, f.name), f.minStackSize ?? 0)));
  secs[secOf('.nv.info')]!.data = encodeNvInfo(global);
  // .nv.callgraph: (0, -1), a (caller, callee) pair per call of an extern function, then (0, -2) (0, -3) (0, -4)
  const edges: number[] = [];
  for (const f of fns) for (const n of f.extra?.externs ?? []) if (!defined.has(n)) edges.push(symOf(f.name, f.name), symOf(n, f.name));
  secs[secOf('.nv.callgraph')]!.data = u32s(0, -1, ...edges, 0, -2, 0, -3, 0, -4);

  for (const f of fns) secs[secOf(`.nv.info.${f.name}`)]!.data = encodeNvInfo(functionAttributes(f, input, P, sectionSymIndex, symOf));

  // Relocations of the code.
  for (const f of fns) {
    const relocs = relocationsOf(f);
    if (!relocs) continue;
    const rel = relocs.map((r) => {
      const type = typeof r.type === 'number' ? r.type : relocationType(r.type);
      if (type === undefined) fail(`${f.name}: unknown relocation type ${r.type}`);
      return { offset: r.offset, type, symbol: symOf(r.symbol, f.name), addend: r.addend ?? 0 };
    });
    secs[secOf(`.rela.text.${f.name}`)]!.data = encodeRelocations(rel, true);
  }
  for (const [n, d] of dataRelocs) {
    if (!d?.relocations.length) continue;
    const rel = d.relocations.map((r) => ({ offset: r.offset, type: relocationType(r.type)!, symbol: symOf(r.symbol, n), addend: r.addend }));
    secs[secOf(`.rela${n}`)]!.data = encodeRelocations(rel, true);
  }

  // .debug_frame: per function a CIE and its FDE (R_CUDA_64 at the FDE's initial location).
  const frame: Uint8Array[] = [];
  const frameRel: Array<{ offset: number; symbol: number; type: number; addend: number }> = [];
  let at = 0;
  for (const f of fns) {
    const lastExit = f.exitOffsets.length ? Math.max(...f.exitOffsets) : undefined;
    const cfa = f.cfaOffset ?? cfaOffsetOfCode(f.code);
    const stack = writesStackPointer(f.code);
    const ins =
      f.frameInstructions ??
      (stack ? defaultFrameInstructions(cfa, lastExit, P.frameRowAfterFirstInstruction) : Uint8Array.from(lastExit ? advance(lastExit) : []));
    const cie = frameEntry(stack ? CIE_BODY : CIE_BODY_NO_STACK);
    // The function's FDE covers its code up to the first subroutine placed after it; each subroutine with a known
    // return-address register gets its own CIE and FDE after it.
    const range = Math.min(f.code.length, ...(f.subroutines ?? []).map((s) => s.offset).filter((o) => o > 0));
    const fde = frameEntry(fdeBody(at, range, ins));
    const fnSym = symOf(f.name, f.name);
    // Relocations per function in ptxas's order once the whole list is reversed below: subroutine FDEs, the
    // function's FDE, the subroutine CIEs' DW_OP_addr operands.
    const cieRel: typeof frameRel = [];
    const fdeRel: typeof frameRel = [];
    fdeRel.push({ offset: at + cie.length + 20, symbol: fnSym, type: 2, addend: 0 });
    frame.push(cie, fde);
    at += cie.length + fde.length;
    const subs = [...(f.subroutines ?? [])].filter((x) => x.returnAddressRegister !== undefined).sort((a, b) => a.offset - b.offset);
    for (const sub of subs) {
      const sc = subroutineCie(sub.returnAddressRegister!);
      const subCie = frameEntry(sc.body);
      const subFde = frameEntry(fdeBody(at, sub.size, sub.frameInstructions ?? new Uint8Array(0), sub.offset));
      cieRel.push({ offset: at + 12 + sc.addrAt, symbol: fnSym, type: 2, addend: 0 });
      fdeRel.unshift({ offset: at + subCie.length + 20, symbol: fnSym, type: 2, addend: sub.offset });
      frame.push(subCie, subFde);
      at += subCie.length + subFde.length;
    }
    frameRel.push(...[...cieRel].reverse(), ...[...fdeRel].reverse());
  }
  secs[secOf('.debug_frame')]!.data = concat(frame);
  // ptxas lists the .debug_frame relocations last function first.
  frameRel.reverse();
  secs[secOf(P.debugFrameRela ? '.rela.debug_frame' : '.rel.debug_frame')]!.data = encodeRelocations(frameRel, P.debugFrameRela);

  // String tables and symbols.
  secs[1]!.data = shstr.data();
  secs[2]!.data = str.data();
  const encoded = symbols.map((s) => ({
    nameOffset: s.type === STT.SECTION ? str.get(s.name) : str.get(s.name),
    value: s.value,
    size: s.size,
    type: s.type,
    bind: s.bind,
    other: s.other,
    shndx: s.shndx ?? secOf(s.section!),
  }));
  secs[3]!.data = encodeSymbols([{ nameOffset: 0, value: 0, size: 0, type: 0, bind: 0, other: 0, shndx: 0 }, ...encoded]);

  // Resolve links/infos.
  const resolved: SectionSpec[] = secs.map((s, i) => {
    const r = (x: number | string | undefined): number | undefined => {
      if (x === undefined || typeof x === 'number') return x;
      if (x.startsWith('sym:')) {
        const name = x.slice(4);
        const f = fns.find((g) => g.name === name)!;
        const sym = symOf(name, name);
        return P.regcountInTextInfo ? ((f.regCount << 24) | sym) >>> 0 : sym;
      }
      return secOf(x);
    };
    // .symtab's sh_info: ptxas's mercury writer puts the symbol count (local section symbols follow the globals),
    // the Turing/Ampere writer the index of the first global symbol.
    const symInfo = P.regcountInTextInfo ? locals.length + 1 : symbols.length + 1;
    return { ...s, link: r(s.link), info: i === 3 ? symInfo : r(s.info) };
  });

  // Program headers: PHDR, then the segments of each layout.
  const range = (pred: (s: SectionSpec) => boolean): { first: number; last: number } | 'none' => {
    let first = -1;
    let last = -1;
    resolved.forEach((s, i) => {
      if (i && pred(s)) {
        if (first < 0) first = i;
        last = i;
      }
    });
    return first < 0 ? 'none' : { first, last };
  };
  const isText = (s: SectionSpec) => s.name.startsWith('.text.');
  const isData = (s: SectionSpec) => s.type === SHT.NOBITS || (s.flags & SHF.WRITE) !== 0;
  const isBankData = (s: SectionSpec) => s.name === '.nv.constant4' || s.name === '.nv.constant3';
  const bankData = range(isBankData);
  const isConst0 = (s: SectionSpec) => s.name.startsWith('.nv.constant0.');
  const segments: SegmentSpec[] = [];
  if (input.relocatable) {
    // ptxas -c writes no program headers: the linker lays the sections out
  } else if (mercury) {
    segments.push({ type: PT.PHDR, flags: 4, align: 8, covers: 'phdrs' });
    segments.push({ type: PT.LOAD, flags: 4, align: 8, covers: 'phdrs' });
    if (bankData !== 'none') segments.push({ type: PT.LOAD, flags: 4, align: 8, covers: bankData });
    segments.push({ type: PT.LOAD, flags: 5, align: 8, covers: range(isText) });
    segments.push({ type: PT.LOAD, flags: 6, align: 8, covers: range(isData) });
    segments.push({ type: PT.LOAD, flags: 4, align: 8, covers: range(isConst0) });
  } else {
    segments.push({ type: PT.PHDR, flags: 5, align: 8, covers: 'phdrs' });
    segments.push({ type: PT.LOAD, flags: 5, align: 8, covers: range((s) => isConst0(s) || isText(s) || isBankData(s)) });
    const data = range(isData);
    if (data !== 'none') segments.push({ type: PT.LOAD, flags: 6, align: 8, covers: data });
    segments.push({ type: PT.LOAD, flags: 5, align: 8, covers: 'phdrs' });
  }
  resolved.forEach((s, i) => {
    s.nameOffset = i === 0 ? 0 : shstr.get(s.name);
  });
  if (P.shstrtabSlack) {
    // ptxas leaves room after .shstrtab for names it drops again (observed: 14 + 18 + len(name) per function).
    resolved[2]!.offset = ELF_HEADER_SIZE + resolved[1]!.data.length + P.shstrtabSlack(fns.map((f) => f.name));
  }
  return writeCubin({
    header: { osabi: ELFOSABI_CUDA_V8, abiVersion: 8, type: input.relocatable ? ET_REL : ET_EXEC, flags: encodeArchFlagsV8(sm) },
    sections: resolved,
    segments,
    keepShstrtab: true,
  });
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

function functionAttributes(
  f: BuildFunction,
  input: BuildCubinInput,
  P: CubinLayoutProfile,
  sectionSym: Map<string, number>,
  symOf: (name: string, where: string) => number,
): Rec[] {
  const out: Rec[] = [];
  const entry = f.kind === 'entry';
  const params = [...(f.params ?? [])].sort((a, b) => b.ordinal - a.ordinal);
  const paramBytes = f.paramBytes ?? Math.max(0, ...params.map((p) => p.offset + p.size));
  // A kernel without parameters has no parameter-bank attributes (its bank is still paramBase bytes).
  const hasParams = params.length > 0 || paramBytes > 0;
  const x = f.extra ?? {};
  const order = entry ? P.entryAttributes : P.deviceAttributes;
  const emit: Record<FunctionAttributeKey, () => void> = {
    SW_WAR: () => {
      if (P.swWar === undefined) return;
      out.push(P.swWarSval ? sval('SW_WAR', u32s(P.swWar)) : sval('SW_WAR', u32s(P.swWar)));
    },
    CUDA_API_VERSION: () => out.push(sval('CUDA_API_VERSION', u32s(input.cudaApiVersion ?? 0x82))),
    SW2861232_WAR: () => {
      if (P.sw2861232War) out.push(nval('SW2861232_WAR'));
    },
    PARAM_CBANK: () => {
      if (!entry || !hasParams) return;
      const sym = sectionSym.get(`.nv.constant0.${f.name}`)!;
      out.push(sval('PARAM_CBANK', u32s(sym, ((paramBytes << 16) | P.paramBase) >>> 0)));
    },
    CBANK_PARAM_SIZE: () => {
      if (entry && hasParams) out.push(hval('CBANK_PARAM_SIZE', paramBytes));
    },
    KPARAM_INFO: () => {
      for (const p of params) {
        const flags = ((p.size << 18) | (0x1f << 12) | ((p.pointeeSpace ?? 0) << 8) | (p.logAlignment ?? 0)) >>> 0;
        out.push(sval('KPARAM_INFO', u32s(0, (p.offset << 16) | p.ordinal, flags)));
      }
    },
    SPARSE_MMA_MASK: () => {
      if (P.sparseMmaMask) out.push(hval('SPARSE_MMA_MASK', 0));
    },
    MAXREG_COUNT: () => out.push(hval('MAXREG_COUNT', f.maxRegCount ?? 0xff)),
    NUM_BARRIERS: () => {
      if (f.barriers) out.push(bval('NUM_BARRIERS', f.barriers));
    },
    EXTERNS: () => {
      if (x.externs?.length) out.push(sval('EXTERNS', u32s(...x.externs.map((n) => symOf(n, f.name)))));
    },
    MERCURY_ISA_VERSION: () => out.push(hval('MERCURY_ISA_VERSION', P.mercuryIsaVersion)),
    COOP_GROUP_MASK_REGIDS: () => {
      if (x.coopGroupMaskRegids?.length) out.push(sval('COOP_GROUP_MASK_REGIDS', u32s(...x.coopGroupMaskRegids)));
    },
    COOP_GROUP_INSTR_OFFSETS: () => {
      if (x.coopGroupInstrOffsets?.length) out.push(sval('COOP_GROUP_INSTR_OFFSETS', u32s(...x.coopGroupInstrOffsets)));
    },
    INT_WARP_WIDE_INSTR_OFFSETS: () => {
      if (x.intWarpWideInstrOffsets?.length) out.push(sval('INT_WARP_WIDE_INSTR_OFFSETS', u32s(...x.intWarpWideInstrOffsets)));
    },
    SYSCALL_OFFSETS: () => {
      if (x.syscallOffsets?.length) out.push(sval('SYSCALL_OFFSETS', u32s(...x.syscallOffsets)));
    },
    EXIT_INSTR_OFFSETS: () => {
      if (f.exitOffsets.length) out.push(sval('EXIT_INSTR_OFFSETS', u32s(...f.exitOffsets)));
    },
    INDIRECT_BRANCH_TARGETS: () => {
      if (!x.indirectBranchTargets?.length) return;
      const w: number[] = [];
      for (const b of x.indirectBranchTargets) w.push(b.offset, b.tag, b.targets.length, ...b.targets);
      out.push(sval('INDIRECT_BRANCH_TARGETS', u32s(...w)));
    },
    MAX_THREADS: () => {
      if (f.maxThreads) out.push(sval('MAX_THREADS', u32s(...f.maxThreads)));
    },
    REQNTID: () => {
      if (f.reqntid) out.push(sval('REQNTID', u32s(...f.reqntid)));
    },
    CRS_STACK_SIZE: () => {
      if (f.crsStackSize !== undefined) out.push(sval('CRS_STACK_SIZE', u32s(f.crsStackSize)));
    },
    BINDLESS_TEXTURE_BANK: () => {
      if (x.bindlessTextureBank !== undefined) out.push(sval('BINDLESS_TEXTURE_BANK', u32s(x.bindlessTextureBank)));
    },
    BINDLESS_SURFACE_BANK: () => {
      if (x.bindlessSurfaceBank !== undefined) out.push(sval('BINDLESS_SURFACE_BANK', u32s(x.bindlessSurfaceBank)));
    },
  };
  for (const k of order) emit[k]();
  return out;
}
