import { definePlugin, type TargetCapabilities, type TargetDescriptor } from '@ptxforge/kernel';

// Pipe widths (ALU FMA DFMA MMA LSU TEX BRA/SMEM). The spec gives sm_80's values
// (4 4 1 1 2 1 1); other generations follow them except where the FP64 rate differs (GP100, GH100: 1:2).
const capabilities = {
  uniformRegisters: true,
  convergenceBarriers: true,
  threeInputAlu: true,
  packedHalf: true,
  warpgroupMma: false,
  paramBase: 0x160,
  maxRegistersPerThread: 255,
  maxSharedPerBlock: 99 * 1024,
};

/** The Ada backend: sm_89. Slot 17 per the branch/switch spec's dispatch table. */
export const sm89Target: TargetDescriptor = {
  id: 'sm89',
  family: 'Ada',
  archs: ['sm_89'],
  pipeWidths: [4, 4, 1, 1, 2, 1, 1],
  capabilities,
  slot17: {
    // Handler B (sub_729160): per-instruction branch-distance rewriter (Ampere/Ada short branch
    // encodings). Placeholder until the branch/switch issue implements it; phase 14 is a no-op meanwhile.
    name: 'B: per-instruction branch-distance rewriter (sub_729160)',
    status: 'placeholder',
  },
};

export const targetSm89Plugin = definePlugin(
  { name: '@ptxforge/target-sm89', version: '0.1.0', kernel: '^0.1.0', description: 'Ada SM backend' },
  { targets: [sm89Target] },
);

export default targetSm89Plugin;
