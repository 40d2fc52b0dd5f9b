// The codecs of the encoding families, adapted to the disassembler's WordCodec interface and registered for
// the SMs they serve. Until the kernel's target services provide a Decoder per arch, the disassembler asks the
// family packages directly.
import {
  formatControl,
  formatInstruction,
  isKnown,
  parseInstruction,
  type DecodedInstruction,
  type SassInstruction,
} from '@ptxforge/sass';
import {
  formatMaxwellInstruction,
  MAXWELL_ARCH_ORDER,
  maxwellCodec,
  maxwellVirtualWord,
  parseMaxwellInstruction,
  splitVirtualWord,
} from '@ptxforge/mercury-maxwell';
import { VOLTA_ARCH_CHAINS, voltaCodec } from '@ptxforge/mercury-volta';
import { type DecodedWord, registerCodecProvider, type WordCodec } from './codec.js';
import type { WordLayout } from './layout.js';

/** Mnemonics whose last integer operand is a code address (label it `.L_x_N`). */
const BRANCHES = new Set(['BRA', 'BSSY', 'CALL', 'JMP', 'SSY', 'PBK', 'PCNT', 'CAL', 'JCAL', 'PRET', 'BPT', 'WARPSYNC', 'BREAK']);

function branchTarget(ins: SassInstruction, codeSize: number): number | undefined {
  if (!BRANCHES.has(ins.opcode)) return undefined;
  for (let i = ins.operands.length - 1; i >= 0; i--) {
    const o = ins.operands[i]!;
    if (o.k === 'int') return !o.reloc && o.v >= 0 && o.v <= codeSize ? o.v : undefined;
  }
  return undefined;
}

function unknownWord(d: Extract<DecodedInstruction, { unknown: true }>, opcodeField: number): DecodedWord {
  return {
    known: false,
    text: `UNKNOWN 0x${opcodeField.toString(16)}`,
    opcodeField,
    reason: d.reason,
    control: d.control ? formatControl(d.control) : undefined,
  };
}

const bare = (text: string) => text.replace(/\s*;\s*$/, '');

function voltaWordCodec(arch: string): WordCodec {
  const codec = voltaCodec(arch);
  return {
    family: 'volta',
    name: `@ptxforge/mercury-volta (${arch})`,
    decode(slot) {
      const d = codec.decode(slot.word, slot.addr);
      if (!isKnown(d)) return unknownWord(d, d.opcodeField);
      const ins = d;
      return {
        known: true,
        text: bare(formatInstruction({ ...ins, control: undefined })),
        opcodeField: slot.word[0]! & 0xfff,
        control: ins.control ? formatControl(ins.control) : undefined,
        branchTarget: branchTarget(ins, Number.MAX_SAFE_INTEGER),
        reencode: () => ({ word: codec.encode(ins, slot.addr) }),
      };
    },
    assemble(text, addr) {
      return { word: codec.encode(parseInstruction(text), addr) };
    },
  };
}

function maxwellWordCodec(arch: string): WordCodec {
  const codec = maxwellCodec(arch);
  const opcodeField = (w: Uint32Array) => w[1]! >>> 16;
  return {
    family: 'maxwell',
    name: `@ptxforge/mercury-maxwell (${arch})`,
    decode(slot) {
      const d = codec.decode(maxwellVirtualWord(slot.word, slot.control ?? 0), slot.addr);
      if (!isKnown(d)) return unknownWord(d, opcodeField(slot.word));
      const ins = d;
      return {
        known: true,
        text: bare(formatMaxwellInstruction({ ...ins, control: undefined })),
        opcodeField: opcodeField(slot.word),
        control: ins.control ? formatControl(ins.control) : undefined,
        branchTarget: branchTarget(ins, Number.MAX_SAFE_INTEGER),
        reencode: () => {
          const { inst, control } = splitVirtualWord(codec.encode(ins, slot.addr));
          return { word: inst, control };
        },
      };
    },
    assemble(text, addr) {
      const { inst, control } = splitVirtualWord(codec.encode(parseMaxwellInstruction(text), addr));
      return { word: inst, control };
    },
  };
}

let registered = false;

/** Register the family codecs (idempotent). */
export function registerFamilyCodecs(): void {
  if (registered) return;
  registered = true;
  registerCodecProvider((sm: number, layout: WordLayout) => {
    const arch = `sm_${sm}`;
    if (layout.family === 'volta' && VOLTA_ARCH_CHAINS[arch]) return voltaWordCodec(arch);
    if (layout.family === 'maxwell' && MAXWELL_ARCH_ORDER[arch]) return maxwellWordCodec(arch);
    return undefined;
  });
}
