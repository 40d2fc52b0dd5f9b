import { ELFOSABI_CUDA_V7, ELFOSABI_CUDA_V8 } from './elf.js';

/**
 * The target architecture a cubin's ELF header names.
 *
 * e_flags layouts (worked out from ptxas 13.0 cubins for sm_75..sm_121 and the CUDA 12 era golden cubins):
 * - ABI version 8 (EI_OSABI 0x41, CUDA 13): the SM number is in bits 8..15 (sm_75 0x06004b04, sm_90 0x06005a04,
 *   sm_100 0x06006402, sm_120 0x06007802). Bits 0..7 carry 0x04 below sm_100 and 0x02 from sm_100 on; bits
 *   24..31 carry 0x06 (0x0b with `-g`). The 'a'/'f' variants are not in e_flags: sm_90a is recorded in
 *   .nv.compat (EICOMPAT code 0x09 = 1) and the virtual SM in .note.nv.cuinfo.
 * - ABI version 7 (EI_OSABI 0x33, CUDA <= 12): the SM number is in bits 0..7, the virtual SM in bits 16..23,
 *   EF_CUDA_TEXMODE_UNIFIED 0x100 and EF_CUDA_64BIT_ADDRESS 0x400 (sm_61: 0x003d053d, sm_75: 0x004b054b).
 */
export interface CubinArch {
  /** SM number, e.g. 90. */
  sm: number;
  /** `sm_90`. */
  name: string;
  /** ELF ABI layout of e_flags: 7 (CUDA <= 12) or 8 (CUDA 13). */
  abi: 7 | 8;
  /** Virtual SM from e_flags (ABI 7 only; ABI 8 keeps it in .note.nv.cuinfo). */
  virtualSm?: number;
  /** Flag names nvdisasm prints in `.headerflags` that this reader knows (ABI 7 only). */
  flagNames: string[];
  /** Raw e_flags. */
  flags: number;
}

/** Decode e_flags under the layout EI_OSABI selects; undefined for an OSABI that is not a CUDA one. */
export function decodeArch(osabi: number, abiVersion: number, flags: number): CubinArch | undefined {
  if (osabi === ELFOSABI_CUDA_V8 || (osabi !== ELFOSABI_CUDA_V7 && abiVersion >= 8)) {
    const sm = (flags >>> 8) & 0xff;
    return { sm, name: `sm_${sm}`, abi: 8, flagNames: [], flags };
  }
  if (osabi === ELFOSABI_CUDA_V7 || abiVersion === 7) {
    const sm = flags & 0xff;
    const virtualSm = (flags >>> 16) & 0xff;
    const flagNames: string[] = [];
    if (flags & 0x100) flagNames.push('EF_CUDA_TEXMODE_UNIFIED');
    if (flags & 0x400) flagNames.push('EF_CUDA_64BIT_ADDRESS');
    return { sm, name: `sm_${sm}`, abi: 7, virtualSm: virtualSm || undefined, flagNames, flags };
  }
  return undefined;
}

/**
 * e_flags ptxas 13.0 writes for `sm` (ABI 8): the SM in bits 8..15, 0x06 in bits 24..31, 0x04 below sm_100
 * and 0x02 from sm_100 on in bits 0..7 (observed values; their meaning is not documented).
 */
export function encodeArchFlagsV8(sm: number, opts: { debug?: boolean } = {}): number {
  if (!Number.isInteger(sm) || sm < 0 || sm > 0xff) throw new RangeError(`SM ${sm} does not fit e_flags bits 8..15`);
  const high = opts.debug ? 0x0b : 0x06;
  return ((high << 24) | (sm << 8) | (sm >= 100 ? 0x02 : 0x04)) >>> 0;
}

/** e_flags of ABI 7 (CUDA <= 12): SM, virtual SM, EF_CUDA_TEXMODE_UNIFIED | EF_CUDA_64BIT_ADDRESS. */
export function encodeArchFlagsV7(sm: number, virtualSm = sm): number {
  return ((virtualSm << 16) | 0x500 | sm) >>> 0;
}
