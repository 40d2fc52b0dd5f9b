export { computeRpo } from '@ptxforge/kernel';
export { computeLiveness, isRemovableWhenDead, killedRegs, sweepDeadBackward } from '@ptxforge/opt-utils';
