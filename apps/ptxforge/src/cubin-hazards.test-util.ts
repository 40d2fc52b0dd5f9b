import { Decoder } from '@ptxforge/kernel';
import { readCubin } from '@ptxforge/cubin';
import { createDefaultToolchain } from '@ptxforge/preset-default';
import { wordFromBytes, type SassInstruction } from '@ptxforge/sass';
import { checkHazards, hazardInstrFromSass } from '@ptxforge/sass-hazards';

/** Hazards in every function of an sm_90 cubin, decoded from its bytes (test helper). */
export function cubinHazards(bytes: Uint8Array): number {
  const dec = createDefaultToolchain().services('sm_90').service(Decoder);
  let n = 0;
  for (const f of readCubin(bytes).functions) {
    const instrs = [];
    for (let a = 0; a + 16 <= f.code.length; a += 16) {
      const w = wordFromBytes(f.code, a);
      instrs.push(hazardInstrFromSass(a, dec.decode(f.code, a) as SassInstruction, (BigInt(w[3]!) << 32n) | BigInt(w[2]!)));
    }
    n += checkHazards({ name: f.name, instrs }, { arch: 'sm_90' }).hazards.length;
  }
  return n;
}
