import { definePlugin, type TargetCapabilities, type TargetDescriptor } from '@ptxforge/kernel';

// Pipe widths (ALU FMA DFMA MMA LSU TEX BRA/SMEM). The spec gives sm_80's values
// (4 4 1 1 2 1 1); other generations follow them except where the FP64 rate differs (GP100, GH100: 1:2).
const capabilities = (arch: string): TargetCapabilities => ({
  // Turing (sm_75) added the uniform datapath; Volta (sm_70/72) has none.
  uniformRegisters: arch === 'sm_75',
  convergenceBarriers: true,
  threeInputAlu: true,
  packedHalf: true,
  warpgroupMma: false,
  paramBase: 0x160,
  maxRegistersPerThread: 255,
  maxSharedPerBlock: arch === 'sm_75' ? 64 * 1024 : 96 * 1024,
});

/** The Volta/Turing backend: sm_70, sm_72, sm_75. Slot 17 per the branch/switch spec's dispatch table. */
export const sm70Target: TargetDescriptor = {
  id: 'sm70',
  family: 'Volta/Turing',
  archs: ['sm_70', 'sm_72', 'sm_75'],
  pipeWidths: [4, 4, 1, 1, 2, 1, 1],
  capabilities,
  slot17: {
    // Handler A (sub_849110): sync-pattern restructuring + branch-target scan. Placeholder until the
    // branch/switch issue implements it; phase 14 is a no-op meanwhile.
    name: 'A: sync-pattern restructuring + branch scan (sub_849110)',
    status: 'placeholder',
  },
};

export const targetSm70Plugin = definePlugin(
  { name: '@ptxforge/target-sm70', version: '0.1.0', kernel: '^0.1.0', description: 'Volta/Turing SM backend' },
  { targets: [sm70Target] },
);

export default targetSm70Plugin;
