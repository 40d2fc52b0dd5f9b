import { definePlugin, type TargetCapabilities, type TargetDescriptor } from '@ptxforge/kernel';

// Pipe widths (ALU FMA DFMA MMA LSU TEX BRA/SMEM). The spec gives sm_80's values
// (4 4 1 1 2 1 1); other generations follow them except where the FP64 rate differs (GP100, GH100: 1:2).
const capabilities = {
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
  pipeWidths: [4, 4, 2, 1, 2, 1, 1],
  capabilities,
  slot17: {
    // Handler A (sub_849110): sync-pattern restructuring + branch-target scan. Placeholder until the
    // branch/switch issue implements it; phase 14 is a no-op meanwhile.
    name: 'A: sync-pattern restructuring + branch scan (sub_849110)',
    status: 'placeholder',
  },
};

export const targetSm60Plugin = definePlugin(
  { name: '@ptxforge/target-sm60', version: '0.1.0', kernel: '^0.1.0', description: 'Pascal SM backend' },
  { targets: [sm60Target] },
);

export default targetSm60Plugin;
