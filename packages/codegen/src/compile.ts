import { Decoder, Encoder, LatencyModel, RegisterFile, serviceMissing, type OriModule, type Toolchain } from '@ptxforge/kernel';
import { MachineScheduler, machineSchedulerFor } from '@ptxforge/regalloc';
import { generateCubin, type CodegenResult } from './generate.js';
import { CodegenError } from './mir.js';

export interface CompileToCubinOptions {
  arch: string;
  /** -O level (default 3). */
  optLevel?: number;
  /** --maxrregcount. */
  maxrregcount?: number;
  /** File name for diagnostics (default `<input>.ptx`). */
  file?: string;
  /** Relocatable output (ptxas -c). */
  relocatable?: boolean;
}

export interface CompileToCubinResult extends CodegenResult {
  /** The optimized Ori text is not kept; this is the arch the cubin is for. */
  arch: string;
}

/**
 * PTX (or Ori) text to cubin bytes: the front end and the optimization pipeline of `tc`, then code generation
 * with the arch's Encoder/Decoder services. Unsupported opcodes raise CODEGEN_NOT_IMPLEMENTED naming them; an
 * arch without an encoder raises NO_ENCODER naming the package to install.
 */
export function compileToCubin(tc: Toolchain, source: string, opts: CompileToCubinOptions): CompileToCubinResult {
  const file = opts.file ?? '<input>.ptx';
  const result = tc.compile({ text: source, file }, { arch: opts.arch, optLevel: opts.optLevel ?? 3, ...(opts.relocatable ? { relocatable: true } : {}) });
  return { ...cubinOfModule(tc, result.module, opts.arch, { ...opts, optLevel: opts.optLevel ?? 3 }), arch: opts.arch };
}

/**
 * Code generation for an optimized module with the arch's services of `tc` (NO_ENCODER when it has none). The
 * schedulers are the arch's MachineScheduler service when a plugin provides one, else @ptxforge/regalloc's
 * over the arch's LatencyModel; -O0 (`optLevel`) schedules nothing.
 */
export function cubinOfModule(tc: Toolchain, module: OriModule, arch: string, opts: { maxrregcount?: number; optLevel?: number; relocatable?: boolean } = {}): CodegenResult {
  const scope = tc.services(arch);
  const encoder = scope.tryService(Encoder);
  const decoder = scope.tryService(Decoder);
  if (!encoder || !decoder) {
    const why = serviceMissing(tc.registry, Encoder, arch).message;
    throw new CodegenError('NO_ENCODER', `no SASS encoder is installed for ${arch}: ${why.replace(/^no Encoder for [^;]*; /, '')}`);
  }
  const scheduler = scope.tryService(MachineScheduler) ?? (scope.tryService(LatencyModel) ? machineSchedulerFor(scope) : undefined);
  return generateCubin(module, {
    arch, sm: scope.target.sm, paramBase: scope.target.capabilities.paramBase, encoder, decoder, registerFile: scope.service(RegisterFile),
    ...(opts.maxrregcount !== undefined ? { maxRegisters: opts.maxrregcount } : {}),
    optLevel: opts.optLevel ?? 3,
    ...(opts.relocatable ? { relocatable: true } : {}),
    ...(scheduler ? { scheduler } : {}),
  });
}
