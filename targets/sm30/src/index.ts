import { definePlugin, type TargetCapabilities, type TargetDescriptor } from '@ptxforge/kernel';
import { PIPE_WIDTHS_SM80, slot17NoOp } from '@ptxforge/target-common';

const capabilities: TargetCapabilities = {
  uniformRegisters: false,
  convergenceBarriers: false,
  threeInputAlu: false,
  packedHalf: false,
  warpgroupMma: false,
  paramBase: 0x140,
  maxRegistersPerThread: 255,
  maxSharedPerBlock: 48 * 1024,
};

/** The Kepler backend: sm_30, sm_32, sm_35, sm_37. Slot 17 per the branch/switch spec's dispatch table. */
export const sm30Target: TargetDescriptor = {
  id: 'sm30',
  family: 'Kepler',
  archs: ['sm_30', 'sm_32', 'sm_35', 'sm_37'],
  pipeWidths: PIPE_WIDTHS_SM80,
  capabilities,
  slot17: slot17NoOp,
};

export const targetSm30Plugin = definePlugin(
  { name: '@ptxforge/target-sm30', version: '0.1.0', kernel: '^0.1.0', description: 'Kepler SM backend' },
  { targets: [sm30Target] },
);

export default targetSm30Plugin;
