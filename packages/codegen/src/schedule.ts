import type { RegisterFile } from '@ptxforge/kernel';
import { classesFromRegisterFile, gprBudgetFromMaxRRegCount, type MachineScheduler, type RegClass, type ScheduleStats } from '@ptxforge/regalloc';
import { describeMachineFunction } from './regalloc.js';
import type { SchedClassifier } from './sched-info.js';
import type { MFunction } from './mir.js';

export interface PreScheduleOptions {
  scheduler: MachineScheduler;
  classify: SchedClassifier;
  registerFile: RegisterFile;
  /** -O level: ptxas schedules forward to reduce register pressure at -O2 and below, for latency at -O3. */
  optLevel: number;
  /** --maxrregcount (bounds the R pressure the scheduler may reach). */
  maxrregcount?: number;
  /** R pressure the latency mode may reach before it prefers instructions that free registers (default 32). */
  gprTarget?: number;
}

/**
 * Default R pressure bound of the latency-hiding mode. ptxas trades latency against occupancy: beyond 32
 * registers per thread an SM holds fewer than 64 warps (65536 registers), so hiding latency by holding more
 * values live stops paying; below the bound the scheduler is free to hoist loads.
 */
export const DEFAULT_GPR_TARGET = 32;

/**
 * AdvancedPhasePreSched (97): list-schedule every block of the machine function before register
 * allocation with @ptxforge/regalloc's pre-RA scheduler (the target's latencies), in place. -O3 weighs the
 * critical path first with register pressure at a bound (per class: the allocatable registers; R: the
 * target above, or the --maxrregcount budget when lower); -O1/-O2 minimise pressure first (spec: pipeline,
 * "Optimization Level Gating"). A block whose new order is worse keeps its order (the scheduler checks).
 */
export function preScheduleMachineFunction(mf: MFunction, opts: PreScheduleOptions): ScheduleStats {
  const { ra } = describeMachineFunction(mf, opts.classify);
  const pressureLimit: Partial<Record<RegClass, number>> = {};
  for (const c of classesFromRegisterFile(opts.registerFile)) pressureLimit[c.cls] = c.count;
  const budget = opts.maxrregcount !== undefined ? gprBudgetFromMaxRRegCount(opts.maxrregcount) : Infinity;
  pressureLimit.R = Math.min(budget, opts.gprTarget ?? DEFAULT_GPR_TARGET, pressureLimit.R ?? Infinity);
  const s = opts.scheduler.preRA(ra, { mode: opts.optLevel >= 3 ? 'latency' : 'pressure', pressureLimit });
  s.fn.blocks.forEach((b, i) => {
    mf.blocks[i]!.instrs = b.instrs.map((r) => r.ref!);
  });
  return s.stats;
}
