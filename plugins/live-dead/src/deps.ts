export { computeRpo } from '@ptxforge/kernel';
export { computeLiveness, isRemovableWhenDead, killedRegs, runUnlessFixpoint, sweepDeadBackward } from '@ptxforge/opt-utils';
