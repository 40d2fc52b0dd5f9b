// CUDA relocation types (r_type of .rel/.rela entries). The order is nvdisasm's relocator table; the values the
// project's cubins carry were checked against ptxas output (R_CUDA_64 2 in .rela.debug_frame,
// R_CUDA_ABS32_LO_32 56 / R_CUDA_ABS32_HI_32 57 for 32@lo/32@hi of a function address, R_CUDA_ABS47_34 58 for
// CALL targets, R_CUDA_ABS32_LO_20 43 / HI_20 44 on sm_5x/6x).
const NAMES = [
  'R_CUDA_NONE', 'R_CUDA_32', 'R_CUDA_64', 'R_CUDA_G32', 'R_CUDA_G64', 'R_CUDA_ABS32_26', 'R_CUDA_TEX_HEADER_INDEX',
  'R_CUDA_SAMP_HEADER_INDEX', 'R_CUDA_SURF_HW_DESC', 'R_CUDA_SURF_HW_SW_DESC', 'R_CUDA_ABS32_LO_26', 'R_CUDA_ABS32_HI_26',
  'R_CUDA_ABS32_23', 'R_CUDA_ABS32_LO_23', 'R_CUDA_ABS32_HI_23', 'R_CUDA_ABS24_26', 'R_CUDA_ABS24_23', 'R_CUDA_ABS16_26',
  'R_CUDA_ABS16_23', 'R_CUDA_TEX_SLOT', 'R_CUDA_SAMP_SLOT', 'R_CUDA_SURF_SLOT', 'R_CUDA_TEX_BINDLESSOFF13_32',
  'R_CUDA_TEX_BINDLESSOFF13_47', 'R_CUDA_CONST_FIELD19_28', 'R_CUDA_CONST_FIELD19_23', 'R_CUDA_TEX_SLOT9_49', 'R_CUDA_6_31',
  'R_CUDA_2_47', 'R_CUDA_TEX_BINDLESSOFF13_41', 'R_CUDA_TEX_BINDLESSOFF13_45', 'R_CUDA_FUNC_DESC32_23',
  'R_CUDA_FUNC_DESC32_LO_23', 'R_CUDA_FUNC_DESC32_HI_23', 'R_CUDA_FUNC_DESC_32', 'R_CUDA_FUNC_DESC_64',
  'R_CUDA_CONST_FIELD21_26', 'R_CUDA_QUERY_DESC21_37', 'R_CUDA_CONST_FIELD19_26', 'R_CUDA_CONST_FIELD21_23',
  'R_CUDA_PCREL_IMM24_26', 'R_CUDA_PCREL_IMM24_23', 'R_CUDA_ABS32_20', 'R_CUDA_ABS32_LO_20', 'R_CUDA_ABS32_HI_20',
  'R_CUDA_ABS24_20', 'R_CUDA_ABS16_20', 'R_CUDA_FUNC_DESC32_20', 'R_CUDA_FUNC_DESC32_LO_20', 'R_CUDA_FUNC_DESC32_HI_20',
  'R_CUDA_CONST_FIELD19_20', 'R_CUDA_BINDLESSOFF13_36', 'R_CUDA_SURF_HEADER_INDEX', 'R_CUDA_INSTRUCTION64',
  'R_CUDA_CONST_FIELD21_20', 'R_CUDA_ABS32_32', 'R_CUDA_ABS32_LO_32', 'R_CUDA_ABS32_HI_32', 'R_CUDA_ABS47_34',
  'R_CUDA_ABS16_32', 'R_CUDA_ABS24_32', 'R_CUDA_FUNC_DESC32_32', 'R_CUDA_FUNC_DESC32_LO_32', 'R_CUDA_FUNC_DESC32_HI_32',
  'R_CUDA_CONST_FIELD19_40', 'R_CUDA_BINDLESSOFF14_40', 'R_CUDA_CONST_FIELD21_38', 'R_CUDA_INSTRUCTION128',
  'R_CUDA_YIELD_OPCODE9_0', 'R_CUDA_YIELD_CLEAR_PRED4_87', 'R_CUDA_32_LO', 'R_CUDA_32_HI', 'R_CUDA_UNUSED_CLEAR32',
  'R_CUDA_UNUSED_CLEAR64', 'R_CUDA_ABS24_40', 'R_CUDA_ABS55_16_34', 'R_CUDA_8_0', 'R_CUDA_8_8', 'R_CUDA_8_16', 'R_CUDA_8_24',
  'R_CUDA_8_32', 'R_CUDA_8_40', 'R_CUDA_8_48', 'R_CUDA_8_56', 'R_CUDA_G8_0', 'R_CUDA_G8_8', 'R_CUDA_G8_16', 'R_CUDA_G8_24',
  'R_CUDA_G8_32', 'R_CUDA_G8_40', 'R_CUDA_G8_48', 'R_CUDA_G8_56', 'R_CUDA_FUNC_DESC_8_0', 'R_CUDA_FUNC_DESC_8_8',
  'R_CUDA_FUNC_DESC_8_16', 'R_CUDA_FUNC_DESC_8_24', 'R_CUDA_FUNC_DESC_8_32', 'R_CUDA_FUNC_DESC_8_40', 'R_CUDA_FUNC_DESC_8_48',
  'R_CUDA_FUNC_DESC_8_56', 'R_CUDA_ABS20_44', 'R_CUDA_SAMP_HEADER_INDEX_0', 'R_CUDA_UNIFIED', 'R_CUDA_UNIFIED_32',
  'R_CUDA_UNIFIED_8_0', 'R_CUDA_UNIFIED_8_8', 'R_CUDA_UNIFIED_8_16', 'R_CUDA_UNIFIED_8_24', 'R_CUDA_UNIFIED_8_32',
  'R_CUDA_UNIFIED_8_40', 'R_CUDA_UNIFIED_8_48', 'R_CUDA_UNIFIED_8_56', 'R_CUDA_UNIFIED32_LO_32', 'R_CUDA_UNIFIED32_HI_32',
  'R_CUDA_ABS56_16_34', 'R_CUDA_CONST_FIELD22_37',
] as const;

const CODES = new Map<string, number>(NAMES.map((n, i) => [n, i]));

/** Name of a relocation type, `R_CUDA_<n>` for one past the table. */
export function relocationTypeName(type: number): string {
  return NAMES[type] ?? `R_CUDA_${type}`;
}

/** Type number of a relocation name, undefined when unknown. */
export function relocationType(name: string): number | undefined {
  return CODES.get(name);
}

/** One relocation entry with its symbol resolved. `addend` is present for RELA sections only. */
export interface CubinRelocation {
  /** Index of the .rel/.rela section holding the entry. */
  section: number;
  /** Index of the section the entry patches (the relocation section's sh_info). */
  target: number;
  offset: number;
  symbol: number;
  symbolName: string;
  type: number;
  typeName: string;
  addend?: number;
}
