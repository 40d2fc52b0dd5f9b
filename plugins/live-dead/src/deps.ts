export { computeRpo } from '@ptxforge/kernel';
export { computeLiveness, isRemovableWhenDead, killedRegs } from '@ptxforge/opt-utils';
