import { definePlugin, type TargetCapabilities, type TargetDescriptor } from '@ptxforge/kernel';

// Pipe widths (ALU FMA DFMA MMA LSU TEX BRA/SMEM). The spec gives sm_80's values
// (4 4 1 1 2 1 1); other generations follow them except where the FP64 rate differs (GP100, GH100: 1:2).
const capabilities = {
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
  pipeWidths: [4, 4, 1, 1, 2, 1, 1],
  capabilities,
  slot17: {
    name: 'NO-OP (sub_661210, rep ret)',
    status: 'noop',
  },
};

export const targetSm30Plugin = definePlugin(
  { name: '@ptxforge/target-sm30', version: '0.1.0', kernel: '^0.1.0', description: 'Kepler SM backend' },
  { targets: [sm30Target] },
);

export default targetSm30Plugin;
