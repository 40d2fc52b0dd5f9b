import type { Decoder, Encoder, OriModule, RegisterFile } from '@ptxforge/kernel';
import { ptxasReportedRegisters, type MachineScheduler, type ScheduleStats } from '@ptxforge/regalloc';
import { allocateMachineFunction } from './regalloc.js';
import { buildCubin, layoutProfileFor, type BuildFunction } from '@ptxforge/cubin';
import { type ModuleData, planModuleData } from './data.js';
import { emitFunction } from './emit.js';
import { ABI_MIN_REGISTERS } from './abi-call.js';
import { selectFunction } from './isel.js';
import { legalize } from './lower.js';
import { preScheduleMachineFunction } from './schedule.js';
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
  /** The target's RegisterFile service (classes, counts, pair/quad alignment). */
  registerFile: RegisterFile;
  /** --maxrregcount (default: the target's maximum, 255). */
  maxRegisters?: number;
  /** -O level (default 3): 0 keeps instructions in selection order; 1-2 schedule for pressure, 3 for latency. */
  optLevel?: number;
  /**
   * The arch's list schedulers (@ptxforge/regalloc's MachineScheduler service, bound to its LatencyModel):
   * AdvancedPhasePreSched (97) before allocation and PostSchedule (110) after it. Without one, no scheduling.
   */
  scheduler?: MachineScheduler;
  /** Relocatable output (ptxas -c): an ET_REL object whose undefined functions nvlink resolves. */
  relocatable?: boolean;
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
  /** Scheduler statistics (estimated cycles before/after, blocks reordered) when the schedulers ran. */
  preSchedule?: ScheduleStats;
  postSchedule?: ScheduleStats;
}

export interface CodegenResult {
  cubin: Uint8Array;
  kernels: KernelStats[];
}

/** Select, legalize, assign registers, generate control words, encode: one machine function. */
export function compileFunction(m: OriModule, fnName: string, opts: CodegenOptions, data: ModuleData = planModuleData(m)): { mf: MFunction; kernel: BuildFunction; stats: KernelStats } {
  const fn = m.functions.find((f) => f.name === fnName);
  if (!fn) throw new CodegenError('CODEGEN_BAD_INPUT', `no function ${fnName}`);
  const sharedBase = layoutProfileFor(opts.sm)?.sharedReserve ?? 0;
  const mf = selectFunction(m, fn, { paramBase: opts.paramBase, data, sharedBase });
  const temp = (file: 'R' | 'P' = 'R'): VReg => {
    const v: VReg = { id: mf.vregs.length, file, width: 1, name: `%t${mf.vregs.length}` };
    mf.vregs.push(v);
    return v;
  };
  legalize(mf, opts.encoder, temp);
  const optLevel = opts.optLevel ?? 3;
  const sched = opts.scheduler && optLevel >= 1 ? { scheduler: opts.scheduler, classify: { opcodes: m.opcodes } } : undefined;
  const maxrregcount = opts.maxRegisters !== undefined ? { maxrregcount: opts.maxRegisters } : {};
  const preSchedule = sched ? preScheduleMachineFunction(mf, { ...sched, registerFile: opts.registerFile, optLevel, ...maxrregcount }) : undefined;
  const asg = allocateMachineFunction(mf, { registerFile: opts.registerFile, ...maxrregcount, ...(sched ? { postSchedule: sched } : {}) });
  const e = emitFunction(mf, asg, { arch: opts.arch, encoder: opts.encoder, decoder: opts.decoder });
  if (e.hazards > 0) throw new CodegenError('CODEGEN_HAZARDS', `${fn.name}: the scoreboard generator left ${e.hazards} hazard(s)`);
  // ptxas reports the highest R register + 1 + 2 (docs/codegen-regalloc.md)
  // a kernel calling through the ABI shares its allocation with the callee (abi-call.ts)
  const registers = Math.max(ptxasReportedRegisters(Math.max(asg.used.R, 2)), mf.externs?.length ? ABI_MIN_REGISTERS : 0);
  const maxntid = fn.directives.get('maxntid');
  const reqntid = fn.directives.get('reqntid');
  const dim3 = (v: number[]): [number, number, number] => [v[0] ?? 1, v[1] ?? 1, v[2] ?? 1];
  // EIATTR_NUM_BARRIERS as ptxas counts them: the highest named barrier used + 1 (all 16 when an id is in a register)
  let barriers = 0;
  for (const b of mf.blocks) {
    for (const mi of b.instrs) {
      if (mi.opcode !== 'BAR') continue;
      const id = mi.ops[0] as { k: string; v?: number } | undefined;
      barriers = Math.max(barriers, id?.k === 'int' && id.v !== undefined ? id.v + 1 : 16);
    }
  }
  const kernel: BuildFunction = {
    name: fn.name, kind: 'entry', global: true, code: e.code, regCount: registers,
    params: mf.params.map((p, i) => ({ ordinal: i, offset: p.offset, size: p.size })), paramBytes: mf.paramBytes,
    ...(mf.sharedBytes ? { sharedBytes: mf.sharedBytes } : {}), ...(mf.usesShared ? { usesSharedMemory: true } : {}), frameSize: mf.frameBytes, exitOffsets: e.exitOffsets,
    // calls are inlined: the stack a kernel needs is its own frame (ptxas writes MIN_STACK_SIZE = FRAME_SIZE then)
    minStackSize: mf.frameBytes, ...(barriers ? { barriers } : {}),
    ...(maxntid ? { maxThreads: dim3(maxntid) } : {}), ...(reqntid ? { reqntid: dim3(reqntid) } : {}),
    ...(opts.maxRegisters !== undefined ? { maxRegCount: opts.maxRegisters } : {}),
    ...(e.constant2 ? { constant2: e.constant2 } : {}),
    ...(e.constant2 || mf.externs?.length
      ? {
          extra: {
            ...(e.constant2 ? { indirectBranchTargets: e.indirectBranches.map((b) => ({ ...b, tag: 0 })) } : {}),
            ...(mf.externs?.length ? { externs: mf.externs } : {}),
            ...(e.syscallOffsets.length ? { syscallOffsets: e.syscallOffsets } : {}),
          },
        }
      : {}),
  };
  return {
    mf, kernel,
    stats: {
      name: fn.name, registers, instructions: e.instructions, stallCycles: e.stallCycles, hazards: e.hazards, sharedBytes: mf.sharedBytes,
      spillStores: asg.stats.spillStoreBytes, spillLoads: asg.stats.spillLoadBytes, frameBytes: mf.frameBytes,
      ...(preSchedule ? { preSchedule } : {}), ...(asg.postSchedule ? { postSchedule: asg.postSchedule } : {}),
    },
  };
}

/** Code generation for every kernel of an optimized module, into one cubin. */
export function generateCubin(m: OriModule, opts: CodegenOptions): CodegenResult {
  const kernels: BuildFunction[] = [];
  const stats: KernelStats[] = [];
  const data = planModuleData(m);
  for (const fn of m.functions) {
    if (fn.kind !== 'entry') continue;
    const r = compileFunction(m, fn.name, opts, data);
    kernels.push(r.kernel);
    stats.push(r.stats);
  }
  const cubin = buildCubin({
    arch: opts.arch, functions: kernels, ...(opts.relocatable ? { relocatable: true } : {}),
    ...(data.variables.length ? { variables: data.variables } : {}), ...(data.addressTable.length ? { addressTable: data.addressTable } : {}),
  });
  return { cubin, kernels: stats };
}
