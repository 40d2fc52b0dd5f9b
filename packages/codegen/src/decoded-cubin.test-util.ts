// Test support shared by the codegen differential tests (not part of the build: tsconfig.build.json excludes
// *.test-util.ts): a cubin's instructions decoded back from its bytes as text, and the hazard checker's verdict
// over every function, with the indirect branch targets its attributes record.
import { expect } from 'vitest';
import { Decoder, type Toolchain } from '@ptxforge/kernel';
import { runKernel, type Launch } from '@ptxforge/interp';
import { runCubin } from '@ptxforge/sass-lift';
import { decodeAttribute, readCubin } from '@ptxforge/cubin';
import { checkHazards, hazardInstrFromSass } from '@ptxforge/sass-hazards';
import { formatInstruction, wordFromBytes, type SassInstruction } from '@ptxforge/sass';
import { compileToCubin } from './index.js';

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

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/**
 * PTX → optimized Ori → interpreter, and PTX → our cubin (0 hazards, as compiled and as decoded) → lifted →
 * interpreter: every output buffer the same bytes. Returns the first output (hex) and the decoded instructions.
 */
export function sameAsPtxPath(tc: Toolchain, ptx: string, launch: Launch, arch = 'sm_90'): { out: string; texts: string[] } {
  const file = 'k.ptx';
  const r = compileToCubin(tc, ptx, { arch, file, optLevel: 3 });
  expect(r.kernels.every((k) => k.hazards === 0)).toBe(true);
  const { texts, hazards } = decodeCubin(tc, r.cubin, arch);
  expect(hazards).toBe(0);
  const ref = runKernel(tc.compile({ text: ptx, file }, { arch, optLevel: 3 }).module, launch);
  expect(ref.errors ?? []).toEqual([]);
  expect(ref.ok).toBe(true);
  const got = runCubin(r.cubin, launch);
  expect(got.result.errors).toEqual([]);
  for (const name of launch.outputs ?? []) expect(hex(got.result.buffers[name]!.bytes)).toBe(hex(ref.buffers[name]!.bytes));
  return { out: hex(got.result.buffers[launch.outputs![0]!]!.bytes), texts };
}

/** Kernel `k(input, output)` on one block of `threads` threads, output zeroed. */
export const launchOf = (threads: number, input: Buffer, outBytes: number): Launch => ({
  kernel: 'k', grid: [1, 1, 1], block: [threads, 1, 1],
  buffers: { input: { hex: input.toString('hex') }, output: { hex: '00'.repeat(outBytes) } },
  params: [{ buffer: 'input' }, { buffer: 'output' }], outputs: ['output'],
});

export const PTX_HEAD_SM90 = `.version 8.0
.target sm_90
.address_size 64
`;
