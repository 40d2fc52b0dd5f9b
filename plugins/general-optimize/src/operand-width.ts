import type { Instr } from '@ptxforge/kernel';

/** Opcodes whose operands have widths other than the def's (conversions, widening); never given constants. */
const MIXED_WIDTH = new Set(['I2I', 'I2F', 'F2I', 'F2F', 'F2FP', 'POPC', 'FLO', 'BREV', 'R2UR', 'S2R', 'S2UR', 'CS2R', 'P2R', 'R2P', 'IDP', 'VABSDIFF', 'PHI', 'MOVPHI']);
const DATA_CATEGORIES = new Set(['int', 'float', 'logic', 'move', 'convert']);

/**
 * Width (in 32-bit units) at which instruction `i` reads its use operand `index`, when it is known to be one
 * plain width; undefined for mixed-width positions (shift amounts of 64-bit shifts, WIDE multiplies,
 * conversions, memory). Constant propagation only puts an immediate where this equals the register's width,
 * so the immediate is read exactly as the register was (docs/ori-semantics.md "Width").
 */
export function useOperandWidth(i: Instr, index: number): number | undefined {
  const info = i.info;
  if (!info || !DATA_CATEGORIES.has(info.category) || MIXED_WIDTH.has(i.opcode)) return undefined;
  const first = i.defs[0];
  const defW = first?.kind === 'reg' && (first.reg.cls === 'R' || first.reg.cls === 'UR') ? first.reg.width : undefined;
  switch (i.opcode) {
    case 'ISETP':
      return index < 2 ? (i.hasMod('U64') || i.hasMod('S64') ? 2 : 1) : undefined;
    case 'FSETP':
    case 'FSET':
    case 'HSETP2':
      return index < 2 ? 1 : undefined;
    case 'DSETP':
      return index < 2 ? 2 : undefined;
    case 'SHL':
    case 'SHR':
      return index === 0 ? defW : index === 1 ? 1 : undefined;
    case 'SHF':
      return index === 1 ? 1 : index < 3 ? defW : undefined;
    case 'IMAD':
    case 'IMUL':
      return i.hasMod('WIDE') ? undefined : index < 3 ? defW : undefined;
    case 'LEA':
      return i.hasMod('HI') ? undefined : index < 2 ? defW : undefined;
    case 'BFE':
      return index === 0 ? defW : undefined;
    case 'BFI':
      return index < 2 ? defW : undefined;
    case 'IMNMX':
    case 'FMNMX':
    case 'DMNMX':
    case 'SEL':
    case 'FSEL':
      return index < 2 ? defW : undefined;
    case 'LOP3':
      return index < 3 ? defW : undefined;
    case 'IADD3':
      return index < 3 ? defW : undefined;
    default:
      if (info.category === 'convert' && i.opcode !== 'FRND') return undefined;
      return defW;
  }
}
