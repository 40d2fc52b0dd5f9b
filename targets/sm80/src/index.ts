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
  maxSharedPerBlock: 163 * 1024,
};

/** The Ampere backend: sm_80, sm_86, sm_87. Slot 17 per the branch/switch spec's dispatch table. */
export const sm80Target: TargetDescriptor = {
  id: 'sm80',
  family: 'Ampere',
  archs: ['sm_80', 'sm_86', 'sm_87'],
  pipeWidths: [4, 4, 1, 1, 2, 1, 1],
  capabilities,
  slot17: {
    // Handler B (sub_729160): per-instruction branch-distance rewriter (Ampere/Ada short branch
    // encodings). Placeholder until the branch/switch issue implements it; phase 14 is a no-op meanwhile.
    name: 'B: per-instruction branch-distance rewriter (sub_729160)',
    status: 'placeholder',
  },
};

export const targetSm80Plugin = definePlugin(
  { name: '@ptxforge/target-sm80', version: '0.1.0', kernel: '^0.1.0', description: 'Ampere SM backend' },
  { targets: [sm80Target] },
);

export default targetSm80Plugin;
