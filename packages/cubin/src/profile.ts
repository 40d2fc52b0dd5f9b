// How ptxas 13.0 lays out a cubin for a family of targets: the data `buildCubin` follows. Two layouts exist in
// ptxas 13.0's output (worked out from its cubins of the ../shared corpus, section by section):
// - 'mercury' (sm_90 and later): .nv.compat, .rela.debug_frame (RELA), the reserved shared-memory symbols,
//   the per-function constant bank after the code, parameters at c[0x0][0x210].
// - 'turing-ampere' (sm_75..sm_89): .nv.rel.action, .rel.debug_frame (REL), the register count in the high byte
//   of .text.<fn>'s sh_info, the constant bank before the code, parameters at c[0x0][0x160].
// The attribute orders are the orders ptxas writes them in; `buildCubin` only emits the ones that apply.

/** Names of the per-function attributes in the order a layout writes them (EIATTR_ prefix dropped). */
export type FunctionAttributeKey =
  | 'SW_WAR'
  | 'CUDA_API_VERSION'
  | 'SW2861232_WAR'
  | 'PARAM_CBANK'
  | 'CBANK_PARAM_SIZE'
  | 'KPARAM_INFO'
  | 'SPARSE_MMA_MASK'
  | 'MAXREG_COUNT'
  | 'NUM_BARRIERS'
  | 'EXTERNS'
  | 'MERCURY_ISA_VERSION'
  | 'COOP_GROUP_MASK_REGIDS'
  | 'COOP_GROUP_INSTR_OFFSETS'
  | 'INT_WARP_WIDE_INSTR_OFFSETS'
  | 'SYSCALL_OFFSETS'
  | 'EXIT_INSTR_OFFSETS'
  | 'INDIRECT_BRANCH_TARGETS'
  | 'MAX_THREADS'
  | 'REQNTID'
  | 'CRS_STACK_SIZE'
  | 'BINDLESS_TEXTURE_BANK'
  | 'BINDLESS_SURFACE_BANK';

export interface CubinLayoutProfile {
  name: 'mercury' | 'turing-ampere';
  /** Byte offset of the first kernel parameter in constant bank 0. */
  paramBase: number;
  /** EIATTR_MERCURY_ISA_VERSION value (HVAL major<<8|minor). */
  mercuryIsaVersion: number;
  /** EIATTR_SW_WAR value (absent when undefined). */
  swWar?: number;
  /** EIATTR_SW_WAR is written as an SVAL u32 (mercury) or an HVAL (turing). */
  swWarSval: boolean;
  /** EIATTR_SW2861232_WAR (NVAL) is written. */
  sw2861232War: boolean;
  /** EIATTR_SPARSE_MMA_MASK (HVAL 0) is written. */
  sparseMmaMask: boolean;
  /** Order of the per-function attributes of an entry. */
  entryAttributes: readonly FunctionAttributeKey[];
  /** Order of the per-function attributes of a device function with its own section. */
  deviceAttributes: readonly FunctionAttributeKey[];
  /** .nv.compat section with these records (format, code, value), CUDA 13 and mercury only. */
  compat?: ReadonlyArray<readonly [format: number, code: number, value: number]>;
  /** The .nv.rel.action section's bytes (turing-ampere). */
  relAction?: Uint8Array;
  /** .debug_frame relocations carry an addend (RELA) or not (REL). */
  debugFrameRela: boolean;
  /** .nv.shared.reserved.0 and its two weak symbols. */
  reservedSharedSymbols: boolean;
  /** The register count sits in bits 24..31 of .text.<fn>'s sh_info. */
  regcountInTextInfo: boolean;
  /** .nv.constant0.<fn> comes before the code sections (and its symbol is made with the function's). */
  constant0BeforeText: boolean;
  /**
   * Bytes ptxas leaves unused between .shstrtab and .strtab. The mercury writer leaves 14 + sum(18 + length of
   * the function's name): the size of names it drops after reserving their room (`.rel.nv.constant0.<fn>` per
   * function is the likely candidate; the formula is what fits every corpus cubin).
   */
  shstrtabSlack?: (functionNames: readonly string[]) => number;
  /** The .debug_frame FDE has an empty row after the first instruction (Turing/Ampere). */
  frameRowAfterFirstInstruction?: boolean;
  /** ptxas -v lists the constant banks (`, N bytes cmem[0]`) on the "Used N registers" line. */
  verbosePrintsCmem?: boolean;
  /** Shared memory the system reserves at the start of a function's .nv.shared section (1 KB on sm_90). */
  sharedReserve?: number;
  /** .note.nv.cuinfo's sh_flags and whether its sh_info names .nv.compat. */
  cuinfoFlags: number;
}

const MERCURY_ENTRY: readonly FunctionAttributeKey[] = [
  'CUDA_API_VERSION',
  'KPARAM_INFO',
  'SPARSE_MMA_MASK',
  'MAXREG_COUNT',
  'NUM_BARRIERS',
  'EXTERNS',
  'MERCURY_ISA_VERSION',
  'COOP_GROUP_MASK_REGIDS',
  'COOP_GROUP_INSTR_OFFSETS',
  'INT_WARP_WIDE_INSTR_OFFSETS',
  'SYSCALL_OFFSETS',
  'EXIT_INSTR_OFFSETS',
  'INDIRECT_BRANCH_TARGETS',
  'MAX_THREADS',
  'REQNTID',
  'CRS_STACK_SIZE',
  'CBANK_PARAM_SIZE',
  'PARAM_CBANK',
  'SW_WAR',
  'BINDLESS_TEXTURE_BANK',
  'BINDLESS_SURFACE_BANK',
];

const TURING_ENTRY: readonly FunctionAttributeKey[] = [
  'SW_WAR',
  'CUDA_API_VERSION',
  'SW2861232_WAR',
  'PARAM_CBANK',
  'CBANK_PARAM_SIZE',
  'KPARAM_INFO',
  'MAXREG_COUNT',
  'NUM_BARRIERS',
  'EXTERNS',
  'MERCURY_ISA_VERSION',
  'COOP_GROUP_MASK_REGIDS',
  'COOP_GROUP_INSTR_OFFSETS',
  'INT_WARP_WIDE_INSTR_OFFSETS',
  'SYSCALL_OFFSETS',
  'EXIT_INSTR_OFFSETS',
  'INDIRECT_BRANCH_TARGETS',
  'MAX_THREADS',
  'REQNTID',
  'CRS_STACK_SIZE',
  'BINDLESS_TEXTURE_BANK',
  'BINDLESS_SURFACE_BANK',
];

export const MERCURY_PROFILE: CubinLayoutProfile = {
  name: 'mercury',
  paramBase: 0x210,
  mercuryIsaVersion: 0x0101,
  swWar: 8,
  swWarSval: true,
  sw2861232War: false,
  sparseMmaMask: true,
  entryAttributes: MERCURY_ENTRY,
  deviceAttributes: ['CUDA_API_VERSION', 'SPARSE_MMA_MASK', 'MERCURY_ISA_VERSION', 'CRS_STACK_SIZE', 'SW_WAR'],
  // EICOMPAT records as ptxas 13.0 writes them for sm_90 (0x02 is 2 for cubins using texture references).
  compat: [
    [2, 0x09, 0],
    [2, 0x02, 1],
    [2, 0x05, 5],
    [3, 0x07, 0x0101],
    [2, 0x03, 0],
    [2, 0x06, 1],
    [4, 0x0b, 0],
  ],
  debugFrameRela: true,
  reservedSharedSymbols: true,
  regcountInTextInfo: false,
  constant0BeforeText: false,
  cuinfoFlags: 0x1000040,
  sharedReserve: 0x400,
  shstrtabSlack: (names) => names.reduce((n, s) => n + 18 + s.length, 14),
};

export const TURING_AMPERE_PROFILE: CubinLayoutProfile = {
  name: 'turing-ampere',
  paramBase: 0x160,
  mercuryIsaVersion: 0,
  swWar: undefined,
  swWarSval: false,
  sw2861232War: true,
  sparseMmaMask: false,
  entryAttributes: TURING_ENTRY,
  deviceAttributes: ['SW_WAR', 'CUDA_API_VERSION', 'SW2861232_WAR', 'MERCURY_ISA_VERSION', 'CRS_STACK_SIZE'],
  // ptxas 13.0 writes the same 16 bytes for every sm_75..sm_89 cubin of the corpus.
  relAction: Uint8Array.from([0x73, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x11, 0x25, 0, 0x05, 0x36]),
  debugFrameRela: false,
  reservedSharedSymbols: false,
  regcountInTextInfo: true,
  constant0BeforeText: true,
  cuinfoFlags: 0x1000000,
  frameRowAfterFirstInstruction: true,
  verbosePrintsCmem: true,
};

/** sm_75 writes EIATTR_SW_WAR 1 first and no SW2861232_WAR; sm_80..sm_89 the reverse. */
export const TURING_PROFILE: CubinLayoutProfile = { ...TURING_AMPERE_PROFILE, swWar: 1, sw2861232War: false };

/** The layout ptxas 13.0 uses for `sm`, or undefined for targets whose layout was not worked out. */
export function layoutProfileFor(sm: number): CubinLayoutProfile | undefined {
  if (sm === 75) return TURING_PROFILE;
  if (sm >= 80 && sm <= 89) return TURING_AMPERE_PROFILE;
  if (sm === 90) return MERCURY_PROFILE;
  return undefined;
}
