import { definePlugin, type TargetCapabilities, type TargetDescriptor } from '@ptxforge/kernel';

// Pipe widths (ALU FMA DFMA MMA LSU TEX BRA/SMEM). The spec gives sm_80's values
// (4 4 1 1 2 1 1); other generations follow them except where the FP64 rate differs (GP100, GH100: 1:2).
const capabilities = {
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
  pipeWidths: [4, 4, 1, 1, 2, 1, 1],
  capabilities,
  slot17: {
    name: 'NO-OP (sub_661210, rep ret)',
    status: 'noop',
  },
};

export const targetSm50Plugin = definePlugin(
  { name: '@ptxforge/target-sm50', version: '0.1.0', kernel: '^0.1.0', description: 'Maxwell SM backend' },
  { targets: [sm50Target] },
);

export default targetSm50Plugin;
