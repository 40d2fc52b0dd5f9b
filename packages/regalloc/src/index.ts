export * from './types.js';
export { RegallocError } from './errors.js';
export { classesFromRegisterFile, ptxasReportedRegisters, gprBudgetFromMaxRRegCount, PTXAS_REPORTED_EXTRA_GPRS } from './classes.js';
export { computeBlockLiveness, predecessors, SparseSet, type BlockLiveness, type LivenessInput } from './liveness.js';
export { allocateRegisters, layoutBlockWeights } from './allocate.js';
export { verifyAllocation, type AllocationViolation } from './verify.js';
export { applyAllocation, type AllocationCallbacks } from './apply.js';
