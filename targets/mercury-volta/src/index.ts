import {
  readVoltaControl,
  TableCodec,
  writeVoltaControl,
  wordFromBytes,
  type CodecOptions,
  type DecodedInstruction,
  type FamilyLayout,
  type SassInstruction,
  type Word,
} from '@ptxforge/sass';
import { Decoder, Encoder, provide, type MachineInstruction, type ServiceProvision } from '@ptxforge/kernel';
import { isUnknown, wordToBytes } from '@ptxforge/sass';
import { VOLTA_ROWS } from './rows.js';
import { EVIDENCE_ROWS, SUPERSEDED } from './evidence-rows.js';

/** Volta+ word layout (../shared/golden/README.md): opcode 0..11, guard 12..14 + negate 15, control 105..125. */
export const VOLTA_LAYOUT: FamilyLayout = {
  wordBits: 128,
  opcode: [0, 12],
  guardPred: [12, 3],
  guardNot: 15,
  branchBase: 16,
  readControl: readVoltaControl,
  writeControl: writeVoltaControl,
};

/**
 * Row lookup order per arch: the arch's own rows first, then its nearest relatives (per-arch deltas are
 * rows that exist for one arch only or differ between archs). sm_87/sm_89 have no golden vectors of their
 * own and use the Ampere rows; sm_100/sm_120 use Hopper's.
 */
export const VOLTA_ARCH_CHAINS: Readonly<Record<string, readonly string[]>> = {
  sm_70: ['sm_70', 'sm_75'],
  sm_72: ['sm_70', 'sm_75'],
  sm_75: ['sm_75', 'sm_70', 'sm_80'],
  sm_80: ['sm_80', 'sm_86', 'sm_75', 'sm_90', 'sm_70'],
  sm_86: ['sm_86', 'sm_80', 'sm_75', 'sm_90', 'sm_70'],
  sm_87: ['sm_86', 'sm_80', 'sm_75', 'sm_90', 'sm_70'],
  sm_89: ['sm_86', 'sm_80', 'sm_90', 'sm_75', 'sm_70'],
  sm_90: ['sm_90', 'sm_86', 'sm_80', 'sm_75', 'sm_70'],
  sm_90a: ['sm_90', 'sm_86', 'sm_80', 'sm_75', 'sm_70'],
  sm_100: ['sm_90', 'sm_86', 'sm_80', 'sm_75', 'sm_70'],
  sm_100a: ['sm_90', 'sm_86', 'sm_80', 'sm_75', 'sm_70'],
  sm_101: ['sm_90', 'sm_86', 'sm_80', 'sm_75', 'sm_70'],
  sm_103: ['sm_90', 'sm_86', 'sm_80', 'sm_75', 'sm_70'],
  sm_120: ['sm_90', 'sm_86', 'sm_80', 'sm_75', 'sm_70'],
  sm_120a: ['sm_90', 'sm_86', 'sm_80', 'sm_75', 'sm_70'],
  sm_121: ['sm_90', 'sm_86', 'sm_80', 'sm_75', 'sm_70'],
};

export const VOLTA_ARCHS: readonly string[] = Object.keys(VOLTA_ARCH_CHAINS);

export class UnsupportedArchError extends Error {
  readonly code = 'SASS_ARCH';
  constructor(arch: string) {
    super(`SASS_ARCH: ${arch} is not a Volta+ arch (known: ${VOLTA_ARCHS.join(', ')})`);
  }
}

const codecs = new Map<string, TableCodec>();

/** The table codec options of one Volta+ arch (a codec of its own: `new TableCodec(voltaCodecOptions(arch))`). */
export function voltaCodecOptions(arch: string): CodecOptions {
  const chain = VOLTA_ARCH_CHAINS[arch];
  if (!chain) throw new UnsupportedArchError(arch);
  // evidence rows replace the derived rows they widen; twins (IMAD.WIDE signed) come after their siblings
  return { archs: [...chain], layout: VOLTA_LAYOUT, rows: [...VOLTA_ROWS.filter((r) => !SUPERSEDED.has(r)), ...EVIDENCE_ROWS] };
}

/** The table codec of one Volta+ arch (built once, then cached). */
export function voltaCodec(arch: string): TableCodec {
  let c = codecs.get(arch);
  if (!c) {
    c = new TableCodec(voltaCodecOptions(arch));
    codecs.set(arch, c);
  }
  return c;
}

/** Word → structured instruction (or `unknown`); `addr` is the byte address, needed for branch targets. */
export function decodeVolta(arch: string, w: Word, addr = 0): DecodedInstruction {
  return voltaCodec(arch).decode(w, addr);
}

/** Structured instruction → word; throws SassEncodeError (coded) when no row holds it. */
export function encodeVolta(arch: string, ins: SassInstruction, addr = 0): Word {
  return voltaCodec(arch).encode(ins, addr);
}

/** Decodes every 16-byte word of a `.text` section. */
export function decodeVoltaSection(arch: string, bytes: Uint8Array): DecodedInstruction[] {
  const codec = voltaCodec(arch);
  const out: DecodedInstruction[] = [];
  for (let off = 0; off + 16 <= bytes.length; off += 16) out.push(codec.decode(wordFromBytes(bytes, off, 128), off));
  return out;
}

/**
 * The kernel's Encoder and Decoder services for Volta+ archs (16-byte instructions). The structured form is
 * @ptxforge/sass's SassInstruction; a word the tables do not claim decodes to `{ opcode: 'UNKNOWN', unknown:
 * true, opcodeField, reason }`. Encoding throws SassEncodeError (coded) when no row holds the instruction.
 */
export function voltaServices(archs: readonly string[]): ServiceProvision<unknown>[] {
  for (const a of archs) if (!VOLTA_ARCH_CHAINS[a]) throw new UnsupportedArchError(a);
  return [
    provide(Encoder, {
      archs,
      useFactory: (env) => {
        const codec = voltaCodec(env.arch);
        return {
          instructionBytes: 16,
          encode(instr: MachineInstruction, address: number): Uint8Array {
            const out = new Uint8Array(16);
            wordToBytes(codec.encode(instr as SassInstruction, address), out, 0);
            return out;
          },
        };
      },
    }),
    provide(Decoder, {
      archs,
      useFactory: (env) => {
        const codec = voltaCodec(env.arch);
        return {
          instructionBytes: 16,
          decode(code: Uint8Array, offset: number): MachineInstruction {
            const d = codec.decode(wordFromBytes(code, offset, 128), offset);
            return isUnknown(d) ? { ...d, opcode: 'UNKNOWN' } : d;
          },
        };
      },
    }),
  ] as ServiceProvision<unknown>[];
}

export { VOLTA_ROWS, EVIDENCE_ROWS };
