export * from './types.js';
export { RegallocError } from './errors.js';
export {
  classesFromRegisterFile, ptxasReportedRegisters, gprBudgetFromMaxRRegCount, PTXAS_REPORTED_EXTRA_GPRS, MAXRREGCOUNT_LOWER_BOUND, effectiveMaxRRegCount,
} from './classes.js';
export { computeBlockLiveness, restrictToDefined, predecessors, SparseSet, type BlockLiveness, type LivenessInput } from './liveness.js';
export { allocateRegisters, layoutBlockWeights, AllocationSession, type AllocateCallOptions } from './allocate.js';
export { verifyAllocation, type AllocationViolation } from './verify.js';
export { applyAllocation, type AllocationCallbacks } from './apply.js';
export { buildDag, criticalHeights, listSchedule, orderCycles, type SchedNode, type SchedDag, type Candidate } from './sched/list.js';
export { schedLatencyFromModel, schedLatencyFromTable, DEFAULT_VARIABLE_LATENCY, type SchedLatency } from './sched/latency.js';
export {
  schedulePreRA, schedulePostRA, blockPressure, type PreRaScheduleOptions, type PostRaScheduleOptions, type ScheduleStats,
} from './sched/schedule.js';
export { raFunctionFromOri, raInstrFromOri, memorySpaceOf } from './ori.js';
export {
  MachineRegisterAllocator, MachineScheduler, machineRegisterAllocatorFor, machineSchedulerFor, regallocPlugin,
} from './plugin.js';
export { PACKAGE } from './package-meta.js';
