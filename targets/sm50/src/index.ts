import { definePlugin, type TargetCapabilities, type TargetDescriptor } from '@ptxforge/kernel';
import { PIPE_WIDTHS_SM80, slot17NoOp } from '@ptxforge/target-common';

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
export const sm50Target: TargetDescriptor = {
  id: 'sm50',
  family: 'Maxwell',
  archs: ['sm_50', 'sm_52', 'sm_53'],
  pipeWidths: PIPE_WIDTHS_SM80,
  capabilities,
  slot17: slot17NoOp,
};

export const targetSm50Plugin = definePlugin(
  { name: '@ptxforge/target-sm50', version: '0.1.0', kernel: '^0.1.0', description: 'Maxwell SM backend' },
  { targets: [sm50Target] },
);

export default targetSm50Plugin;
