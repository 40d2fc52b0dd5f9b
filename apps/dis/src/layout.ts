// How instruction words sit in a .text section, per encoding family. The family comes from the SM number of the
// ELF header through one data table (no per-arch branches elsewhere).
//
// - volta   (sm_70+):  one 128-bit word per instruction; the control fields are bits 105..125 of the word.
// - maxwell (sm_50..62): 32-byte groups: a 64-bit control word, then 3 instructions of 64 bits; slot k's control
//   is bits 21k..21k+20 of the control word (stall 0..3, yield 4, write barrier 5..7, read barrier 8..10,
//   wait mask 11..16, reuse 17..20).
// - kepler  (sm_30..37): 64-byte groups: a 64-bit scheduling word, then 7 instructions of 64 bits; slot k's
//   8 scheduling bits are at 4+8k in sm_30 (Kepler A: bits 0..3 = 0b0111, 60..63 = 0b0010) and at 2+8k in
//   sm_32/35/37 (Kepler B), whose scheduling words we have no public samples of (assumption, see README).

export type WordFamily = 'volta' | 'maxwell' | 'kepler';

export interface WordLayout {
  family: WordFamily;
  /** Bits per instruction word (control included for volta). */
  wordBits: 128 | 64;
  /** Bytes of a group (volta: one word). */
  groupBytes: number;
  /** Instructions per group. */
  slotsPerGroup: number;
  /** Control bits per slot stored in the group's control word (0 for volta). */
  controlBitsPerSlot: number;
  /** Bit position of slot 0's control bits in the control word. */
  controlBase: number;
}

const LAYOUTS: ReadonlyArray<{ from: number; to: number; layout: WordLayout }> = [
  {
    from: 30,
    to: 30,
    layout: { family: 'kepler', wordBits: 64, groupBytes: 64, slotsPerGroup: 7, controlBitsPerSlot: 8, controlBase: 4 },
  },
  {
    from: 32,
    to: 37,
    layout: { family: 'kepler', wordBits: 64, groupBytes: 64, slotsPerGroup: 7, controlBitsPerSlot: 8, controlBase: 2 },
  },
  {
    from: 50,
    to: 62,
    layout: { family: 'maxwell', wordBits: 64, groupBytes: 32, slotsPerGroup: 3, controlBitsPerSlot: 21, controlBase: 0 },
  },
  {
    from: 70,
    to: 255,
    layout: { family: 'volta', wordBits: 128, groupBytes: 16, slotsPerGroup: 1, controlBitsPerSlot: 0, controlBase: 0 },
  },
];

/** The word layout of an SM, undefined for SMs no family covers (sm_20, sm_63..69). */
export function layoutForSm(sm: number): WordLayout | undefined {
  return LAYOUTS.find((l) => sm >= l.from && sm <= l.to)?.layout;
}

/** One instruction position of a .text section. */
export interface InstructionSlot {
  /** Byte address of the instruction inside its section. */
  addr: number;
  /** The instruction word as 32-bit limbs, least significant first (4 limbs volta, 2 otherwise). */
  word: Uint32Array;
  /** The slot's control bits from the group's control word (maxwell/kepler only). */
  control?: number;
  /** Address of the group's control word (maxwell/kepler only). */
  controlAddr?: number;
  /** The whole control word as [lo32, hi32] (maxwell/kepler only). */
  controlWord?: Uint32Array;
}

export interface SplitCode {
  slots: InstructionSlot[];
  /** Bytes at the end that do not make a whole group (a damaged section); never decoded. */
  trailing: number;
}

function u32(code: Uint8Array, o: number): number {
  return (code[o]! | (code[o + 1]! << 8) | (code[o + 2]! << 16) | (code[o + 3]! << 24)) >>> 0;
}

/** Extract `width` bits at `pos` (< 64) of a two-limb word. */
export function bits64(w: Uint32Array, pos: number, width: number): number {
  let v = 0;
  for (let i = 0; i < width; i++) {
    const p = pos + i;
    const bit = (w[p >>> 5]! >>> (p & 31)) & 1;
    v += bit * 2 ** i;
  }
  return v;
}

/** Split a section's bytes into instruction slots. */
export function splitCode(code: Uint8Array, layout: WordLayout): SplitCode {
  const slots: InstructionSlot[] = [];
  const groups = Math.floor(code.length / layout.groupBytes);
  const limbs = layout.wordBits / 32;
  for (let g = 0; g < groups; g++) {
    const base = g * layout.groupBytes;
    if (layout.family === 'volta') {
      const word = new Uint32Array(limbs);
      for (let i = 0; i < limbs; i++) word[i] = u32(code, base + 4 * i);
      slots.push({ addr: base, word });
      continue;
    }
    const controlWord = Uint32Array.of(u32(code, base), u32(code, base + 4));
    for (let k = 0; k < layout.slotsPerGroup; k++) {
      const addr = base + 8 * (k + 1);
      const word = Uint32Array.of(u32(code, addr), u32(code, addr + 4));
      const control = bits64(controlWord, layout.controlBase + k * layout.controlBitsPerSlot, layout.controlBitsPerSlot);
      slots.push({ addr, word, control, controlAddr: base, controlWord });
    }
  }
  return { slots, trailing: code.length - groups * layout.groupBytes };
}

/** Hex of a word, most significant limb first: `0x` + 32 (volta) or 16 digits. */
export function wordHex(w: Uint32Array): string {
  let s = '';
  for (let i = w.length - 1; i >= 0; i--) s += w[i]!.toString(16).padStart(8, '0');
  return '0x' + s;
}

/** The 64-bit halves nvdisasm prints for a word, low half first (`0x000fe200078e00ff`). */
export function wordHalves(w: Uint32Array): string[] {
  const out: string[] = [];
  for (let i = 0; i < w.length; i += 2) {
    out.push('0x' + w[i + 1]!.toString(16).padStart(8, '0') + w[i]!.toString(16).padStart(8, '0'));
  }
  return out;
}
