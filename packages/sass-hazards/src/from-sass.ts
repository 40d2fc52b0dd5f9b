import { formatInstruction, isUnknown, type DecodedInstruction, type SassInstruction } from '@ptxforge/sass';
import { decodeControl } from './control.js';
import { instrFromText } from './listing.js';
import type { HazardFunction, HazardInstr } from './types.js';


/** A decoded instruction in the checker's view (text operands, control from the word's high half). */
export function hazardInstrFromSass(addr: number, ins: SassInstruction, hi: bigint): HazardInstr {
  const h = instrFromText(addr, formatInstruction(ins), decodeControl(hi));
  if (ins.opcode === 'BRA' || ins.opcode === 'JMP') {
    for (const o of ins.operands) if (o.k === 'int' && o.reloc === undefined) h.branchTarget = o.v;
  }
  return h;
}

export interface WordsToFunctionResult {
  fn: HazardFunction;
  undecoded: Array<{ addr: number; opcodeField: number; reason: string }>;
}

/**
 * A function's code (128-bit words) through a decoder into a HazardFunction. `decode` is a family codec's
 * decode (e.g. @ptxforge/mercury-volta's `decodeVolta(arch, w, addr)`), taking the word as 32-bit limbs.
 */
export function hazardFunctionFromCode(
  name: string,
  code: Uint8Array,
  decode: (w: Uint32Array, addr: number) => DecodedInstruction,
  extra: { indirectTargets?: number[]; entries?: number[] } = {},
): WordsToFunctionResult {
  const instrs: HazardInstr[] = [];
  const undecoded: WordsToFunctionResult['undecoded'] = [];
  const dv = new DataView(code.buffer, code.byteOffset, code.byteLength);
  for (let a = 0; a + 16 <= code.length; a += 16) {
    const w = new Uint32Array([dv.getUint32(a, true), dv.getUint32(a + 4, true), dv.getUint32(a + 8, true), dv.getUint32(a + 12, true)]);
    const d = decode(w, a);
    const hi = (BigInt(w[3]!) << 32n) | BigInt(w[2]!);
    if (isUnknown(d)) {
      undecoded.push({ addr: a, opcodeField: d.opcodeField, reason: d.reason });
      // keep its control bits (its stall counts, scoreboards and waits still shape the schedule)
      instrs.push({ addr: a, opcode: 'UNDECODED', mods: [], operands: [], control: decodeControl(hi), text: `UNDECODED 0x${d.opcodeField.toString(16)}` });
      continue;
    }
    instrs.push(hazardInstrFromSass(a, d, hi));
  }
  return { fn: { name, instrs, ...extra }, undecoded };
}
