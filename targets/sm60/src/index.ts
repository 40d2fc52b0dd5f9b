import type { TargetCapabilities } from '@ptxforge/kernel';
import { defineTarget, PIPE_WIDTHS_FAST_FP64, slot17HandlerA } from '@ptxforge/target-common';
import { PACKAGE } from './package-meta.js';

const capabilities: TargetCapabilities = {
  uniformRegisters: false,
  convergenceBarriers: false,
  threeInputAlu: true,
  packedHalf: true,
  warpgroupMma: false,
  paramBase: 0x140,
  maxRegistersPerThread: 255,
  maxSharedPerBlock: 48 * 1024,
};

/** The Pascal backend: sm_60, sm_61, sm_62. Slot 17 per the branch/switch spec's dispatch table. */
export const sm60TargetDef = defineTarget({
  package: PACKAGE,
  description: 'Pascal SM backend',
  id: 'sm60',
  family: 'Pascal',
  archs: ['sm_60', 'sm_61', 'sm_62'],
  capabilities,
  pipeWidths: PIPE_WIDTHS_FAST_FP64,
  latencies: { alu: 6, fma: 6, dfma: 'variable', mma: 'variable' }, // FP64 is fast on GP100 only: wait by scoreboard
  slot17: slot17HandlerA,
});

export const sm60Target = sm60TargetDef.descriptor;
export const targetSm60Plugin = sm60TargetDef.plugin;

export default targetSm60Plugin;
