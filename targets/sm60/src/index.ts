import { definePlugin, type TargetCapabilities, type TargetDescriptor } from '@ptxforge/kernel';
import { PIPE_WIDTHS_FAST_FP64, slot17HandlerA } from '@ptxforge/target-common';

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
export const sm60Target: TargetDescriptor = {
  id: 'sm60',
  family: 'Pascal',
  archs: ['sm_60', 'sm_61', 'sm_62'],
  pipeWidths: PIPE_WIDTHS_FAST_FP64,
  capabilities,
  slot17: slot17HandlerA,
};

export const targetSm60Plugin = definePlugin(
  { name: '@ptxforge/target-sm60', version: '0.1.0', kernel: '^0.1.0', description: 'Pascal SM backend' },
  { targets: [sm60Target] },
);

export default targetSm60Plugin;
