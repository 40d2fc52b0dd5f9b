import {
  defineService, definePlugin, provide, LatencyModel, RegisterFile, type ServiceEnv,
} from '@ptxforge/kernel';
import { allocateRegisters } from './allocate.js';
import { classesFromRegisterFile } from './classes.js';
import { PACKAGE } from './package-meta.js';
import { schedLatencyFromModel, type SchedLatency } from './sched/latency.js';
import { schedulePostRA, schedulePreRA, type PostRaScheduleOptions, type PreRaScheduleOptions, type ScheduleStats } from './sched/schedule.js';
import type { RaClassInfo, RaFunction, RaOptions, RaResult } from './types.js';
import { verifyAllocation, type AllocationViolation } from './verify.js';

/**
 * The machine-level allocator and schedulers as per-arch services. The kernel's `RegisterAllocator` /
 * `Scheduler` tokens take an OriFunction and return nothing, which does not fit an allocator whose result
 * (assignment, spill code) the machine-code stage applies with its own instruction factory; these tokens
 * serve that stage (AdvancedPhaseAllocReg 101, AdvancedPhasePreSched 97, PostSchedule 110) through
 * `ctx.service(MachineRegisterAllocator)`, with the register file and latencies of the selected arch already
 * bound from its RegisterFile and LatencyModel services.
 */
export interface MachineRegisterAllocator {
  /** The arch's register classes (from RegisterFile). */
  readonly classes: readonly RaClassInfo[];
  allocate<Ref>(fn: RaFunction<Ref>, opts?: Omit<RaOptions, 'classes'>): RaResult<Ref>;
  verify(res: RaResult, opts?: Omit<RaOptions, 'classes'>): AllocationViolation[];
}

export interface MachineScheduler {
  /** The arch's latencies (from LatencyModel). */
  readonly latency: SchedLatency;
  preRA<Ref>(fn: RaFunction<Ref>, opts?: Omit<PreRaScheduleOptions, 'latency'>): { fn: RaFunction<Ref>; stats: ScheduleStats };
  postRA<Ref>(res: RaResult<Ref>, opts?: Omit<PostRaScheduleOptions, 'latency'>): { result: RaResult<Ref>; stats: ScheduleStats };
}

export const MachineRegisterAllocator = defineService<MachineRegisterAllocator>(
  'MachineRegisterAllocator', 'register allocation of machine functions (@ptxforge/regalloc abstract functions)',
);
export const MachineScheduler = defineService<MachineScheduler>('MachineScheduler', 'pre- and post-allocation list scheduling of machine functions');

export function machineRegisterAllocatorFor(env: Pick<ServiceEnv, 'service'>): MachineRegisterAllocator {
  const classes = classesFromRegisterFile(env.service(RegisterFile));
  return Object.freeze({
    classes,
    allocate: <Ref>(fn: RaFunction<Ref>, opts: Omit<RaOptions, 'classes'> = {}) => allocateRegisters(fn, { ...opts, classes }),
    verify: (res: RaResult, opts: Omit<RaOptions, 'classes'> = {}) => verifyAllocation(res, { ...opts, classes }),
  });
}

export function machineSchedulerFor(env: Pick<ServiceEnv, 'service'>): MachineScheduler {
  const latency = schedLatencyFromModel(env.service(LatencyModel));
  return Object.freeze({
    latency,
    preRA: <Ref>(fn: RaFunction<Ref>, opts: Omit<PreRaScheduleOptions, 'latency'> = {}) => schedulePreRA(fn, { ...opts, latency }),
    postRA: <Ref>(res: RaResult<Ref>, opts: Omit<PostRaScheduleOptions, 'latency'> = {}) => schedulePostRA(res, { ...opts, latency }),
  });
}

/** The plugin: both services for every arch (`'*'`: below any target that provides its own). */
export const regallocPlugin = definePlugin(
  { ...PACKAGE, api: '^1.0.0', description: 'machine register allocator (graph colouring) and list schedulers as per-arch services' },
  {
    services: [
      provide(MachineRegisterAllocator, { archs: '*', useFactory: machineRegisterAllocatorFor }),
      provide(MachineScheduler, { archs: '*', useFactory: machineSchedulerFor }),
    ],
  },
);
