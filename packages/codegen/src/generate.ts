import type { Decoder, Encoder, OriModule } from '@ptxforge/kernel';
import { assignRegisters } from './assign.js';
import { kernelCubin, type CompiledKernel } from './cubin-image.js';
import { emitFunction } from './emit.js';
import { selectFunction } from './isel.js';
import { legalize } from './lower.js';
import { CodegenError, type MFunction, type VReg } from './mir.js';

export interface CodegenOptions {
  /** -arch (sm_90 ...). */
  arch: string;
  /** Numeric SM of the arch (cubin header flags). */
  sm: number;
  /** Constant-bank 0 offset of kernel parameters (the target's capabilities.paramBase). */
  paramBase: number;
  /** The target's Encoder and Decoder services. */
  encoder: Encoder;
  decoder: Decoder;
  /** --maxrregcount (default: the target's maximum, 255). */
  maxRegisters?: number;
}

export interface KernelStats {
  name: string;
  registers: number;
  instructions: number;
  stallCycles: number;
  hazards: number;
  sharedBytes: number;
  spillStores: number;
  spillLoads: number;
  frameBytes: number;
}

export interface CodegenResult {
  cubin: Uint8Array;
  kernels: KernelStats[];
}

/** Select, legalize, assign registers, generate control words, encode: one machine function. */
export function compileFunction(m: OriModule, fnName: string, opts: CodegenOptions): { mf: MFunction; kernel: CompiledKernel; stats: KernelStats } {
  const fn = m.functions.find((f) => f.name === fnName);
  if (!fn) throw new CodegenError('CODEGEN_BAD_INPUT', `no function ${fnName}`);
  const mf = selectFunction(m, fn, { paramBase: opts.paramBase });
  const temp = (): VReg => {
    const v: VReg = { id: mf.vregs.length, file: 'R', width: 1, name: `%t${mf.vregs.length}` };
    mf.vregs.push(v);
    return v;
  };
  legalize(mf, opts.encoder, temp);
  const maxR = Math.min(255, opts.maxRegisters ?? 255);
  // R1 is the stack pointer of the ABI (ptxas never allocates it)
  const asg = assignRegisters(mf, { limits: { R: maxR, P: 7, UR: 63, UP: 7, B: 16 }, reserved: { R: [1], UR: mf.usesGlobalDesc ? [4, 5] : [] } });
  const e = emitFunction(mf, asg, { arch: opts.arch, encoder: opts.encoder, decoder: opts.decoder });
  if (e.hazards > 0) throw new CodegenError('CODEGEN_HAZARDS', `${fn.name}: the scoreboard generator left ${e.hazards} hazard(s)`);
  // ptxas counts at least the registers the ABI reserves (R0..R1 stack pointer slot) plus two
  const registers = Math.max(asg.used.R + 2, 8);
  const kernel: CompiledKernel = {
    name: fn.name, code: e.code, registers, params: mf.params.map((p) => ({ offset: p.offset, size: p.size })), paramBase: mf.paramBase,
    paramBytes: mf.paramBytes, exitOffsets: e.exitOffsets, sharedBytes: mf.sharedBytes, frameBytes: mf.frameBytes,
  };
  return {
    mf, kernel,
    stats: {
      name: fn.name, registers, instructions: e.instructions, stallCycles: e.stallCycles, hazards: e.hazards, sharedBytes: mf.sharedBytes,
      spillStores: 0, spillLoads: 0, frameBytes: mf.frameBytes,
    },
  };
}

/** Code generation for every kernel of an optimized module, into one cubin. */
export function generateCubin(m: OriModule, opts: CodegenOptions): CodegenResult {
  const kernels: CompiledKernel[] = [];
  const stats: KernelStats[] = [];
  for (const fn of m.functions) {
    if (fn.kind !== 'entry') continue;
    const r = compileFunction(m, fn.name, opts);
    kernels.push(r.kernel);
    stats.push(r.stats);
  }
  return { cubin: kernelCubin(opts.arch, opts.sm, kernels), kernels: stats };
}
