import { definePlugin, type TargetCapabilities, type TargetDescriptor } from '@ptxforge/kernel';

// Pipe widths (ALU FMA DFMA MMA LSU TEX BRA/SMEM). The spec gives sm_80's values
// (4 4 1 1 2 1 1); other generations follow them except where the FP64 rate differs (GP100, GH100: 1:2).
const capabilities = {
  uniformRegisters: true,
  convergenceBarriers: true,
  threeInputAlu: true,
  packedHalf: true,
  warpgroupMma: true,
  paramBase: 0x210,
  maxRegistersPerThread: 255,
  maxSharedPerBlock: 227 * 1024,
};

/** The Hopper/Blackwell backend: sm_90, sm_90a, sm_100, sm_100a, sm_101, sm_103, sm_120, sm_120a, sm_121. Slot 17 per the branch/switch spec's dispatch table. */
export const sm90Target: TargetDescriptor = {
  id: 'sm90',
  family: 'Hopper/Blackwell',
  archs: ['sm_90', 'sm_90a', 'sm_100', 'sm_100a', 'sm_101', 'sm_103', 'sm_120', 'sm_120a', 'sm_121'],
  pipeWidths: [4, 4, 2, 1, 2, 1, 1],
  capabilities,
  slot17: {
    // Handler A (sub_849110): sync-pattern restructuring + branch-target scan. Placeholder until the
    // branch/switch issue implements it; phase 14 is a no-op meanwhile.
    name: 'A: sync-pattern restructuring + branch scan (sub_849110)',
    status: 'placeholder',
  },
};

export const targetSm90Plugin = definePlugin(
  { name: '@ptxforge/target-sm90', version: '0.1.0', kernel: '^0.1.0', description: 'Hopper/Blackwell SM backend' },
  { targets: [sm90Target] },
);

export default targetSm90Plugin;
