import { type CubinArch, decodeArch } from './arch.js';
import {
  ELF_HEADER_SIZE,
  ELF_MAGIC,
  ELFCLASS64,
  ELFDATA2LSB,
  EM_CUDA,
  type ElfHeader,
  type ElfSection,
  type ElfSegment,
  type ElfSymbol,
  PROGRAM_HEADER_SIZE,
  REL_SIZE,
  RELA_SIZE,
  SECTION_HEADER_SIZE,
  SHT,
  STO_CUDA_ENTRY,
  STT,
  SYMBOL_SIZE,
} from './elf.js';
import { CubinError } from './errors.js';
import { type CuInfo, decodeCuInfo, decodeTkInfo, type ElfNote, parseNotes, type TkInfo } from './notes.js';
import { attributeCode, decodeAttribute, type NvInfoRecord, parseNvInfo } from './nvinfo.js';
import { type CubinRelocation, relocationTypeName } from './relocs.js';

/** One function of a cubin: a `.text.<name>` section with what the other sections say about it. */
export interface CubinFunction {
  name: string;
  /** The FUNC symbol naming the section (undefined for a .text section without one). */
  symbol?: ElfSymbol;
  /** Other FUNC symbols inside the section (ptxas places private `.func`s called only from here there,
   *  named `$<fn>$<callee>`), by address. */
  subroutines: ElfSymbol[];
  /** A kernel entry (STO_CUDA_ENTRY in st_other) rather than a device function. */
  isEntry: boolean;
  text: ElfSection;
  /** The machine code (the section's bytes). */
  code: Uint8Array;
  /** Records of `.nv.info.<name>`. */
  attributes: NvInfoRecord[];
  /** Records of the global `.nv.info` whose symbol index is this function's (REGCOUNT, FRAME_SIZE, stack sizes). */
  globalAttributes: NvInfoRecord[];
  /** EIATTR_REGCOUNT, when present. */
  registerCount?: number;
  /** `.nv.constant0.<name>`: the function's parameter constant bank. */
  constant0?: ElfSection;
  /** `.nv.shared.<name>`: the function's static shared memory (NOBITS; its size is the amount). */
  shared?: ElfSection;
  /** `.nv.local.<name>`, when the function has local memory of its own. */
  local?: ElfSection;
  /** Relocations patching this function's code. */
  relocations: CubinRelocation[];
}

export interface Cubin {
  file?: string;
  bytes: Uint8Array;
  header: ElfHeader;
  arch: CubinArch;
  sections: ElfSection[];
  segments: ElfSegment[];
  /** .symtab entries (index 0 is the null symbol). */
  symbols: ElfSymbol[];
  /** Entries of every .rel/.rela section, in section order. */
  relocations: CubinRelocation[];
  /** Records of the global `.nv.info`. */
  nvInfo: NvInfoRecord[];
  /** Records of `.nv.compat` (CUDA 13). */
  compat: NvInfoRecord[];
  notes: ElfNote[];
  cuInfo?: CuInfo;
  tkInfo?: TkInfo;
  /** Every `.text.<name>` section, in section order. */
  functions: CubinFunction[];
}

export interface ReadCubinOptions {
  /** File name used in error messages. */
  file?: string;
}

/** True when the bytes start like an ELF64 little-endian EM_CUDA file (a cheap test before readCubin). */
export function looksLikeCubin(bytes: Uint8Array): boolean {
  if (bytes.length < ELF_HEADER_SIZE) return false;
  for (let i = 0; i < 4; i++) if (bytes[i] !== ELF_MAGIC[i]) return false;
  return bytes[4] === ELFCLASS64 && bytes[5] === ELFDATA2LSB && (bytes[18]! | (bytes[19]! << 8)) === EM_CUDA;
}

class Reader {
  readonly view: DataView;
  constructor(
    readonly bytes: Uint8Array,
    readonly file: string | undefined,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  fail(code: 'CUBIN_TRUNCATED' | 'CUBIN_MALFORMED', message: string): never {
    throw new CubinError(code, message, { file: this.file });
  }
  need(offset: number, size: number, what: string): void {
    if (offset < 0 || size < 0 || offset + size > this.bytes.length) {
      this.fail(
        'CUBIN_TRUNCATED',
        `${what} (0x${offset.toString(16)}..0x${(offset + size).toString(16)}) runs past the end of the file (0x${this.bytes.length.toString(16)} bytes)`,
      );
    }
  }
  u8(o: number) {
    return this.view.getUint8(o);
  }
  u16(o: number) {
    return this.view.getUint16(o, true);
  }
  u32(o: number) {
    return this.view.getUint32(o, true);
  }
  u64(o: number, what: string): number {
    const v = this.view.getBigUint64(o, true);
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) this.fail('CUBIN_MALFORMED', `${what} 0x${v.toString(16)} is out of range`);
    return Number(v);
  }
  i64(o: number): number {
    return Number(this.view.getBigInt64(o, true));
  }
  cstr(start: number, end: number, what: string): string {
    if (start >= end) this.fail('CUBIN_MALFORMED', `${what}: string offset out of its table`);
    let e = start;
    while (e < end && this.bytes[e] !== 0) e++;
    if (e === end) this.fail('CUBIN_MALFORMED', `${what}: string is not terminated`);
    return latin1(this.bytes.subarray(start, e));
  }
}

function latin1(b: Uint8Array): string {
  // Symbol names are ASCII in practice; decode bytewise so that any byte survives a write-back unchanged.
  let s = '';
  for (let i = 0; i < b.length; i++) s += String.fromCharCode(b[i]!);
  return s;
}

function readHeader(r: Reader): ElfHeader {
  const b = r.bytes;
  if (b.length < 4 || b[0] !== ELF_MAGIC[0] || b[1] !== ELF_MAGIC[1] || b[2] !== ELF_MAGIC[2] || b[3] !== ELF_MAGIC[3]) {
    throw new CubinError('CUBIN_NOT_ELF', 'not a cubin: the file does not start with the ELF magic (7f 45 4c 46)', {
      file: r.file,
    });
  }
  if (b.length < ELF_HEADER_SIZE) r.fail('CUBIN_TRUNCATED', 'ELF header is cut short');
  if (b[4] !== ELFCLASS64 || b[5] !== ELFDATA2LSB) {
    throw new CubinError(
      'CUBIN_UNSUPPORTED_ELF',
      `not a cubin: ELF class ${b[4]} / data encoding ${b[5]}, cubins are ELF64 little-endian (2 / 1)`,
      { file: r.file },
    );
  }
  const machine = r.u16(18);
  if (machine !== EM_CUDA) {
    throw new CubinError('CUBIN_NOT_CUDA', `not a cubin: e_machine is ${machine}, cubins have EM_CUDA (${EM_CUDA})`, {
      file: r.file,
    });
  }
  return {
    class: b[4]!,
    data: b[5]!,
    identVersion: b[6]!,
    osabi: b[7]!,
    abiVersion: b[8]!,
    type: r.u16(16),
    machine,
    version: r.u32(20),
    entry: r.u64(24, 'e_entry'),
    phoff: r.u64(32, 'e_phoff'),
    shoff: r.u64(40, 'e_shoff'),
    flags: r.u32(48),
    ehsize: r.u16(52),
    phentsize: r.u16(54),
    phnum: r.u16(56),
    shentsize: r.u16(58),
    shnum: r.u16(60),
    shstrndx: r.u16(62),
  };
}

function readSections(r: Reader, h: ElfHeader): ElfSection[] {
  if (h.shnum === 0) return [];
  if (h.shentsize !== SECTION_HEADER_SIZE) {
    r.fail('CUBIN_MALFORMED', `section header entries are ${h.shentsize} bytes, ELF64 has ${SECTION_HEADER_SIZE}`);
  }
  r.need(h.shoff, h.shnum * SECTION_HEADER_SIZE, 'section header table');
  const out: ElfSection[] = [];
  for (let i = 0; i < h.shnum; i++) {
    const o = h.shoff + i * SECTION_HEADER_SIZE;
    const type = r.u32(o + 4);
    const offset = r.u64(o + 24, `section ${i} sh_offset`);
    const size = r.u64(o + 32, `section ${i} sh_size`);
    let data = new Uint8Array(0);
    if (type !== SHT.NOBITS && type !== SHT.NULL) {
      r.need(offset, size, `section ${i}`);
      data = r.bytes.subarray(offset, offset + size);
    }
    out.push({
      index: i,
      name: '',
      nameOffset: r.u32(o),
      type,
      flags: r.u64(o + 8, `section ${i} sh_flags`),
      addr: r.u64(o + 16, `section ${i} sh_addr`),
      offset,
      size,
      link: r.u32(o + 40),
      info: r.u32(o + 44),
      addralign: r.u64(o + 48, `section ${i} sh_addralign`),
      entsize: r.u64(o + 56, `section ${i} sh_entsize`),
      data,
    });
  }
  if (h.shstrndx >= out.length) r.fail('CUBIN_MALFORMED', `e_shstrndx ${h.shstrndx} names no section`);
  const strtab = out[h.shstrndx]!;
  for (const s of out) {
    if (s.index === 0 && s.nameOffset === 0) continue;
    s.name = r.cstr(strtab.offset + s.nameOffset, strtab.offset + strtab.size, `section ${s.index} name`);
  }
  return out;
}

function readSegments(r: Reader, h: ElfHeader): ElfSegment[] {
  if (h.phnum === 0) return [];
  if (h.phentsize !== PROGRAM_HEADER_SIZE) {
    r.fail('CUBIN_MALFORMED', `program header entries are ${h.phentsize} bytes, ELF64 has ${PROGRAM_HEADER_SIZE}`);
  }
  r.need(h.phoff, h.phnum * PROGRAM_HEADER_SIZE, 'program header table');
  const out: ElfSegment[] = [];
  for (let i = 0; i < h.phnum; i++) {
    const o = h.phoff + i * PROGRAM_HEADER_SIZE;
    out.push({
      type: r.u32(o),
      flags: r.u32(o + 4),
      offset: r.u64(o + 8, 'p_offset'),
      vaddr: r.u64(o + 16, 'p_vaddr'),
      paddr: r.u64(o + 24, 'p_paddr'),
      filesz: r.u64(o + 32, 'p_filesz'),
      memsz: r.u64(o + 40, 'p_memsz'),
      align: r.u64(o + 48, 'p_align'),
    });
  }
  return out;
}

function readSymbols(r: Reader, sections: ElfSection[]): ElfSymbol[] {
  const symtab = sections.find((s) => s.type === SHT.SYMTAB);
  if (!symtab) return [];
  if (symtab.entsize !== SYMBOL_SIZE || symtab.size % SYMBOL_SIZE !== 0) {
    r.fail('CUBIN_MALFORMED', `${symtab.name}: entry size ${symtab.entsize}, ELF64 symbols are ${SYMBOL_SIZE} bytes`);
  }
  const strtab = sections[symtab.link];
  if (!strtab || strtab.type !== SHT.STRTAB) r.fail('CUBIN_MALFORMED', `${symtab.name}: sh_link names no string table`);
  const out: ElfSymbol[] = [];
  for (let i = 0; i < symtab.size / SYMBOL_SIZE; i++) {
    const o = symtab.offset + i * SYMBOL_SIZE;
    const nameOffset = r.u32(o);
    const info = r.u8(o + 4);
    out.push({
      index: i,
      name: nameOffset === 0 ? '' : r.cstr(strtab.offset + nameOffset, strtab.offset + strtab.size, `symbol ${i} name`),
      nameOffset,
      value: r.u64(o + 8, `symbol ${i} st_value`),
      size: r.u64(o + 16, `symbol ${i} st_size`),
      type: info & 0xf,
      bind: info >>> 4,
      other: r.u8(o + 5),
      shndx: r.u16(o + 6),
    });
  }
  return out;
}

function readRelocations(r: Reader, sections: ElfSection[], symbols: ElfSymbol[]): CubinRelocation[] {
  const out: CubinRelocation[] = [];
  for (const s of sections) {
    if (s.type !== SHT.REL && s.type !== SHT.RELA) continue;
    const rela = s.type === SHT.RELA;
    const size = rela ? RELA_SIZE : REL_SIZE;
    if (s.entsize !== size || s.size % size !== 0) {
      r.fail('CUBIN_MALFORMED', `${s.name}: entry size ${s.entsize}, ELF64 ${rela ? 'RELA' : 'REL'} entries are ${size}`);
    }
    for (let i = 0; i < s.size / size; i++) {
      const o = s.offset + i * size;
      const type = r.u32(o + 8);
      const symbol = r.u32(o + 12);
      if (symbol >= symbols.length) r.fail('CUBIN_MALFORMED', `${s.name}: entry ${i} names symbol ${symbol}, beyond .symtab`);
      const rel: CubinRelocation = {
        section: s.index,
        target: s.info,
        offset: r.u64(o, `${s.name} r_offset`),
        symbol,
        symbolName: symbols[symbol]!.name,
        type,
        typeName: relocationTypeName(type),
      };
      if (rela) rel.addend = r.i64(o + 16);
      out.push(rel);
    }
  }
  return out;
}

/**
 * Read a cubin. Throws CubinError: CUBIN_NOT_ELF / CUBIN_UNSUPPORTED_ELF / CUBIN_NOT_CUDA for files that are not
 * cubins, CUBIN_TRUNCATED / CUBIN_MALFORMED for damaged ones. Section data are views into `bytes` (no copies).
 */
export function readCubin(bytes: Uint8Array, opts: ReadCubinOptions = {}): Cubin {
  const r = new Reader(bytes, opts.file);
  const header = readHeader(r);
  const arch = decodeArch(header.osabi, header.abiVersion, header.flags);
  if (!arch) {
    throw new CubinError(
      'CUBIN_NOT_CUDA',
      `not a cubin: EI_OSABI 0x${header.osabi.toString(16)} / ABI version ${header.abiVersion} is not a CUDA ELF ABI`,
      { file: opts.file },
    );
  }
  const sections = readSections(r, header);
  const segments = readSegments(r, header);
  const symbols = readSymbols(r, sections);
  const relocations = readRelocations(r, sections, symbols);

  const byName = new Map<string, ElfSection>();
  for (const s of sections) if (!byName.has(s.name)) byName.set(s.name, s);

  const wrap = <T>(name: string, f: () => T): T => {
    try {
      return f();
    } catch (e) {
      if (e instanceof CubinError && opts.file && !e.message.startsWith(opts.file)) {
        throw new CubinError(e.code as 'CUBIN_MALFORMED', e.message, { file: opts.file });
      }
      throw e;
    }
  };
  const global = byName.get('.nv.info');
  const nvInfo = global ? wrap('.nv.info', () => parseNvInfo(global.data, '.nv.info')) : [];
  const compatSection = sections.find((s) => s.type === SHT.CUDA_COMPAT);
  const compat = compatSection ? wrap(compatSection.name, () => parseNvInfo(compatSection.data, compatSection.name)) : [];

  const notes: ElfNote[] = [];
  for (const s of sections) if (s.type === SHT.NOTE) notes.push(...wrap(s.name, () => parseNotes(s.data, s.name)));
  let cuInfo: CuInfo | undefined;
  let tkInfo: TkInfo | undefined;
  for (const n of notes) {
    cuInfo ??= decodeCuInfo(n);
    tkInfo ??= decodeTkInfo(n);
  }

  // Per-function views. Global .nv.info SVAL records carry the function's symbol index first.
  const globalBySymbol = new Map<number, NvInfoRecord[]>();
  for (const rec of nvInfo) {
    if (rec.format !== 4 || rec.payload.length < 4) continue;
    const sym = rec.payload[0]! | (rec.payload[1]! << 8) | (rec.payload[2]! << 16) | (rec.payload[3]! << 24);
    let list = globalBySymbol.get(sym >>> 0);
    if (!list) globalBySymbol.set(sym >>> 0, (list = []));
    list.push(rec);
  }
  const relocsByTarget = new Map<number, CubinRelocation[]>();
  for (const rel of relocations) {
    let list = relocsByTarget.get(rel.target);
    if (!list) relocsByTarget.set(rel.target, (list = []));
    list.push(rel);
  }
  const funcSymbolsBySection = new Map<number, ElfSymbol[]>();
  for (const sym of symbols) {
    if (sym.type !== STT.FUNC) continue;
    let list = funcSymbolsBySection.get(sym.shndx);
    if (!list) funcSymbolsBySection.set(sym.shndx, (list = []));
    list.push(sym);
  }
  const regcount = attributeCode('EIATTR_REGCOUNT')!;

  const functions: CubinFunction[] = [];
  for (const text of sections) {
    if (!text.name.startsWith('.text.')) continue;
    const name = text.name.slice('.text.'.length);
    const candidates = funcSymbolsBySection.get(text.index) ?? [];
    // sh_info of a .text section is the index of its function's symbol; fall back to the name.
    const byInfo = symbols[text.info];
    const symbol =
      byInfo && byInfo.type === STT.FUNC && byInfo.shndx === text.index
        ? byInfo
        : (candidates.find((s) => s.name === name) ?? candidates[0]);
    const subroutines = candidates.filter((s) => s !== symbol).sort((a, b) => a.value - b.value || a.index - b.index);
    const info = byName.get(`.nv.info.${name}`);
    const attributes = info ? wrap(info.name, () => parseNvInfo(info.data, info.name)) : [];
    const globalAttributes = symbol ? (globalBySymbol.get(symbol.index) ?? []) : [];
    let registerCount: number | undefined;
    for (const rec of globalAttributes) {
      if (rec.code !== regcount) continue;
      const v = decodeAttribute(rec);
      if (v.kind === 'symValue') registerCount = v.value;
    }
    functions.push({
      name,
      symbol,
      subroutines,
      isEntry: symbol ? (symbol.other & STO_CUDA_ENTRY) !== 0 : false,
      text,
      code: text.data,
      attributes,
      globalAttributes,
      registerCount,
      constant0: byName.get(`.nv.constant0.${name}`),
      shared: byName.get(`.nv.shared.${name}`),
      local: byName.get(`.nv.local.${name}`),
      relocations: relocsByTarget.get(text.index) ?? [],
    });
  }

  return {
    file: opts.file,
    bytes,
    header,
    arch,
    sections,
    segments,
    symbols,
    relocations,
    nvInfo,
    compat,
    notes,
    cuInfo,
    tkInfo,
    functions,
  };
}
