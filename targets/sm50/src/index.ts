import type { TargetCapabilities } from '@ptxforge/kernel';
import { defineTarget, PIPE_WIDTHS_SM80, slot17NoOp } from '@ptxforge/target-common';
import { PACKAGE } from './package-meta.js';

const capabilities: TargetCapabilities = {
  uniformRegisters: false,
  convergenceBarriers: false,
  threeInputAlu: true,
  packedHalf: false,
  warpgroupMma: false,
  paramBase: 0x140,
  maxRegistersPerThread: 255,
  maxSharedPerBlock: 48 * 1024,
};

/** The Maxwell backend: sm_50, sm_52, sm_53. Slot 17 per the branch/switch spec's dispatch table. */
export const sm50TargetDef = defineTarget({
  package: PACKAGE,
  description: 'Maxwell SM backend',
  id: 'sm50',
  family: 'Maxwell',
  archs: ['sm_50', 'sm_52', 'sm_53'],
  capabilities,
  pipeWidths: PIPE_WIDTHS_SM80,
  latencies: { alu: 6, fma: 6, dfma: 'variable', mma: 'variable' },
  slot17: slot17NoOp,
});

export const sm50Target = sm50TargetDef.descriptor;
export const targetSm50Plugin = sm50TargetDef.plugin;

export default targetSm50Plugin;
