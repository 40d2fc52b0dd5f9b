import { type ControlInfo, type FamilyLayout, getBits, setBits, type Word } from '@ptxforge/sass';

/**
 * Maxwell/Pascal (sm_50..sm_62) instruction words as the table engine sees them: a 128-bit virtual word whose
 * bits 0..63 are the 64-bit instruction and bits 64..84 the slot's 21 control bits from its group's control
 * word (stall 64..67, yield 68, write barrier 69..71, read barrier 72..74, wait mask 75..80, reuse 81..84).
 * Guard predicate 16..18, negate 19; the table lookup field is bits 58..63 (the shortest opcodes, the 32-bit
 * immediate forms, are 6 bits; longer opcodes keep their other bits in each row's constant bits); relative
 * branch offsets count from the next instruction (+8).
 */
export const MAXWELL_CONTROL = { stall: 64, yieldBit: 68, writeBarrier: 69, readBarrier: 72, waitMask: 75, reuse: 81 } as const;

export const MAXWELL_LAYOUT: FamilyLayout = {
  wordBits: 128,
  opcode: [61, 3],
  guardPred: [16, 3],
  guardNot: 19,
  branchBase: 8,
  readControl(w: Word): ControlInfo {
    return {
      stall: getBits(w, 64, 4),
      yieldBit: getBits(w, 68, 1),
      writeBarrier: getBits(w, 69, 3),
      readBarrier: getBits(w, 72, 3),
      waitMask: getBits(w, 75, 6),
      reuse: getBits(w, 81, 4),
    };
  },
  writeControl(w: Word, c: ControlInfo): void {
    setBits(w, 64, 4, c.stall);
    setBits(w, 68, 1, c.yieldBit);
    setBits(w, 69, 3, c.writeBarrier);
    setBits(w, 72, 3, c.readBarrier);
    setBits(w, 75, 6, c.waitMask);
    // OR, not set: forms without .reuse operands keep modifiers in this nibble (TEX.T), written by the row.
    setBits(w, 81, 4, getBits(w, 81, 4) | c.reuse);
  },
};

/** The virtual word of one instruction: its 64 bits and its slot's 21 control bits. */
export function maxwellVirtualWord(inst: Uint32Array, control21: number): Word {
  const w = new Uint32Array(4);
  w[0] = inst[0]!;
  w[1] = inst[1]!;
  setBits(w, 64, 21, control21);
  return w;
}

/** Split a virtual word back into the 64-bit instruction and the slot's 21 control bits. */
export function splitVirtualWord(w: Word): { inst: Uint32Array; control: number } {
  return { inst: Uint32Array.of(w[0]!, w[1]!), control: getBits(w, 64, 21) };
}
