// Test support shared by the codegen differential tests (not part of the build: tsconfig.build.json excludes
// *.test-util.ts): a cubin's instructions decoded back from its bytes as text, and the hazard checker's verdict
// over every function, with the indirect branch targets its attributes record.
import { Decoder, type Toolchain } from '@ptxforge/kernel';
import { decodeAttribute, readCubin } from '@ptxforge/cubin';
import { checkHazards, hazardInstrFromSass } from '@ptxforge/sass-hazards';
import { formatInstruction, wordFromBytes, type SassInstruction } from '@ptxforge/sass';

/** The cubin's instructions (nvdisasm-style text, all functions in order) and the number of uncovered hazards. */
export function decodeCubin(tc: Toolchain, bytes: Uint8Array, arch = 'sm_90'): { texts: string[]; hazards: number } {
  const dec = tc.services(arch).service(Decoder);
  const texts: string[] = [];
  let hazards = 0;
  for (const f of readCubin(bytes).functions) {
    const instrs = [];
    for (let a = 0; a + 16 <= f.code.length; a += 16) {
      const d = dec.decode(f.code, a) as SassInstruction;
      texts.push(formatInstruction(d));
      const w = wordFromBytes(f.code, a);
      instrs.push(hazardInstrFromSass(a, d, (BigInt(w[3]!) << 32n) | BigInt(w[2]!)));
    }
    const indirectTargets: number[] = [];
    for (const r of f.attributes) {
      const v = decodeAttribute(r);
      if (v.kind === 'branchTargets') for (const b of v.branches) indirectTargets.push(...b.targets);
    }
    hazards += checkHazards({ name: f.name, instrs, indirectTargets }, { arch }).hazards.length;
  }
  return { texts, hazards };
}
