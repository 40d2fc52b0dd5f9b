// ELF64 little-endian constants and the raw structures a cubin is made of. Every field is a JS number:
// cubins are far below 2^53 bytes, and the reader rejects 64-bit values that do not fit (CUBIN_MALFORMED).
// No npm ELF library is used: the maintained ones are 32/64-bit generic parsers without writing, and a cubin
// needs byte-exact control of both directions (the code-generation issue writes cubins with these types).

export const ELF_MAGIC = [0x7f, 0x45, 0x4c, 0x46] as const;
export const ELFCLASS64 = 2;
export const ELFDATA2LSB = 1;
export const EV_CURRENT = 1;
/** e_machine of every cubin. */
export const EM_CUDA = 190;
/** EI_OSABI of cubins written by CUDA <= 12.x (ELF ABI version 7, arch in e_flags bits 0..7). */
export const ELFOSABI_CUDA_V7 = 0x33;
/** EI_OSABI of cubins written by CUDA 13 (ELF ABI version 8, arch in e_flags bits 8..15). */
export const ELFOSABI_CUDA_V8 = 0x41;

export const ELF_HEADER_SIZE = 64;
export const SECTION_HEADER_SIZE = 64;
export const PROGRAM_HEADER_SIZE = 56;
export const SYMBOL_SIZE = 24;
export const RELA_SIZE = 24;
export const REL_SIZE = 16;

export const ET_REL = 1;
export const ET_EXEC = 2;

export const SHT = {
  NULL: 0,
  PROGBITS: 1,
  SYMTAB: 2,
  STRTAB: 3,
  RELA: 4,
  NOTE: 7,
  NOBITS: 8,
  REL: 9,
  /** .nv.info and .nv.info.<fn>: EIATTR records. */
  CUDA_INFO: 0x70000000,
  /** .nv.callgraph: pairs of symbol indices (caller, callee); negative callees are markers. */
  CUDA_CALLGRAPH: 0x70000001,
  /** .nv.prototype. */
  CUDA_PROTOTYPE: 0x70000002,
  /** .nv.rel.action: relocation actions. */
  CUDA_RELOCINFO: 0x7000000b,
  /** .nv.compat: EICOMPAT records (same TLV format as .nv.info), new in CUDA 13. */
  CUDA_COMPAT: 0x70000086,
} as const;

/** Names of section types, for printing (types not listed print as hex). */
export const SECTION_TYPE_NAMES: ReadonlyMap<number, string> = new Map([
  [SHT.NULL, 'SHT_NULL'],
  [SHT.PROGBITS, 'SHT_PROGBITS'],
  [SHT.SYMTAB, 'SHT_SYMTAB'],
  [SHT.STRTAB, 'SHT_STRTAB'],
  [SHT.RELA, 'SHT_RELA'],
  [SHT.NOTE, 'SHT_NOTE'],
  [SHT.NOBITS, 'SHT_NOBITS'],
  [SHT.REL, 'SHT_REL'],
  [SHT.CUDA_INFO, 'SHT_CUDA_INFO'],
  [SHT.CUDA_CALLGRAPH, 'SHT_CUDA_CALLGRAPH'],
  [SHT.CUDA_PROTOTYPE, 'SHT_CUDA_PROTOTYPE'],
  [SHT.CUDA_RELOCINFO, 'SHT_CUDA_RELOCINFO'],
  [SHT.CUDA_COMPAT, 'SHT_CUDA_COMPAT'],
]);

export const SHF = {
  WRITE: 0x1,
  ALLOC: 0x2,
  EXECINSTR: 0x4,
  INFO_LINK: 0x40,
} as const;

export const STB = { LOCAL: 0, GLOBAL: 1, WEAK: 2 } as const;
export const STT = { NOTYPE: 0, OBJECT: 1, FUNC: 2, SECTION: 3, FILE: 4 } as const;
/** st_other bit set on kernel entry functions (.entry). */
export const STO_CUDA_ENTRY = 0x10;
/** st_other bit set on symbols in constant memory. */
export const STO_CUDA_CONSTANT = 0x80;

export const SHN_UNDEF = 0;
export const SHN_ABS = 0xfff1;
export const SHN_XINDEX = 0xffff;

export const PT = { NULL: 0, LOAD: 1, NOTE: 4, PHDR: 6 } as const;

/** The ELF header fields a cubin uses (e_ident bytes beyond class/data/version/osabi/abiversion are zero). */
export interface ElfHeader {
  /** ELFCLASS64. */
  class: number;
  /** ELFDATA2LSB. */
  data: number;
  /** EI_VERSION. */
  identVersion: number;
  osabi: number;
  abiVersion: number;
  /** e_type: ET_EXEC for a linked cubin (ptxas default), ET_REL for `ptxas -c`. */
  type: number;
  machine: number;
  version: number;
  entry: number;
  phoff: number;
  shoff: number;
  flags: number;
  ehsize: number;
  phentsize: number;
  phnum: number;
  shentsize: number;
  shnum: number;
  shstrndx: number;
}

/** One section: its header fields and its bytes (empty for SHT_NOBITS, whose `size` is still the memory size). */
export interface ElfSection {
  index: number;
  name: string;
  /** Offset of the name in .shstrtab. */
  nameOffset: number;
  type: number;
  flags: number;
  addr: number;
  offset: number;
  size: number;
  link: number;
  info: number;
  addralign: number;
  entsize: number;
  data: Uint8Array;
}

export interface ElfSegment {
  type: number;
  flags: number;
  offset: number;
  vaddr: number;
  paddr: number;
  filesz: number;
  memsz: number;
  align: number;
}

export interface ElfSymbol {
  index: number;
  name: string;
  nameOffset: number;
  value: number;
  size: number;
  /** STT_* (low nibble of st_info). */
  type: number;
  /** STB_* (high nibble of st_info). */
  bind: number;
  /** st_other: visibility in bits 0..1, CUDA flags (STO_CUDA_ENTRY 0x10, STO_CUDA_CONSTANT 0x80) above. */
  other: number;
  shndx: number;
}

export function sectionTypeName(type: number): string {
  return SECTION_TYPE_NAMES.get(type) ?? `0x${type.toString(16)}`;
}
