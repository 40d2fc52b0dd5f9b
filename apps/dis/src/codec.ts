import { bits64, type InstructionSlot, type WordFamily, type WordLayout } from './layout.js';

/** What the disassembler needs to know about one decoded instruction word. */
export interface DecodedWord {
  /** Every field of the word is claimed by the tables. */
  known: boolean;
  /** nvdisasm-syntax text without the trailing ` ;` (`@!P0 IADD3 R4, P0, PT, R2, c[0x0][0x210], RZ`), or
   *  `UNKNOWN 0x<opcode field>` for an unknown word. */
  text: string;
  /** The word's opcode field (volta: bits 0..11; maxwell/kepler: bits 48..63, whose top bits are the opcode). */
  opcodeField: number;
  /** Control info in CuAssembler notation without brackets (`B------:R-:W2:Y:S04`), where the family has it. */
  control?: string;
  /** Byte address a branch of this instruction goes to, for `.L_x_N` labels. */
  branchTarget?: number;
  /** Why the word is unknown. */
  reason?: string;
  /** Encode the structured form back to bits (instruction word, and the slot's control bits for
   *  maxwell/kepler). Present exactly when `known`. */
  reencode?(): { word: Uint32Array; control?: number };
}

/**
 * One encoding family's codec as the disassembler uses it. The instruction model, tables and engine live in
 * @ptxforge/sass and the family packages; a codec adapts them to this interface.
 */
export interface WordCodec {
  readonly family: WordFamily;
  /** Human-readable origin of the tables (shown by --roundtrip). */
  readonly name: string;
  decode(slot: InstructionSlot): DecodedWord;
  /** Parse one line of printed text (optional control prefix) back to bits; throws a coded error on bad text. */
  assemble?(text: string, addr: number): { word: Uint32Array; control?: number };
}

/** Opcode field of a word for `UNKNOWN` lines (see DecodedWord.opcodeField). */
export function opcodeFieldOf(family: WordFamily, word: Uint32Array): number {
  return family === 'volta' ? word[0]! & 0xfff : bits64(word, 48, 16);
}

/** The codec of last resort: every word is unknown, printed with its opcode field. */
export function unknownCodec(layout: WordLayout): WordCodec {
  return {
    family: layout.family,
    name: 'none (no decoding tables registered for this family)',
    decode(slot) {
      const opcodeField = opcodeFieldOf(layout.family, slot.word);
      return {
        known: false,
        text: `UNKNOWN 0x${opcodeField.toString(16)}`,
        opcodeField,
        reason: 'no decoding tables for this family',
      };
    },
  };
}

export type CodecProvider = (sm: number, layout: WordLayout) => WordCodec | undefined;

const providers: CodecProvider[] = [];

/**
 * Register a codec provider (a family package does this when loaded). Later registrations win, so a fuller
 * table set replaces an older one.
 */
export function registerCodecProvider(p: CodecProvider): void {
  providers.unshift(p);
}

/** The codec for an SM: the newest provider that serves it, else the unknown codec. */
export function codecFor(sm: number, layout: WordLayout): WordCodec {
  for (const p of providers) {
    const c = p(sm, layout);
    if (c) return c;
  }
  return unknownCodec(layout);
}

/** Decode without ever throwing: a codec that throws on a word yields an unknown word naming the error. */
export function safeDecode(codec: WordCodec, layout: WordLayout, slot: InstructionSlot): DecodedWord {
  try {
    return codec.decode(slot);
  } catch (e) {
    const opcodeField = opcodeFieldOf(layout.family, slot.word);
    return {
      known: false,
      text: `UNKNOWN 0x${opcodeField.toString(16)}`,
      opcodeField,
      reason: `decoder error: ${e instanceof Error ? e.message : String(e)}`,
    };
  }
}
