import { voltaCodec } from '@ptxforge/mercury-volta';
import type { TableCodec } from '@ptxforge/sass';
import { definePlugin, type TargetCapabilities, type TargetDescriptor } from '@ptxforge/kernel';
import { PIPE_WIDTHS_SM80, slot17HandlerB } from '@ptxforge/target-common';

const capabilities: TargetCapabilities = {
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
  pipeWidths: PIPE_WIDTHS_SM80,
  capabilities,
  slot17: slot17HandlerB,
};

export const targetSm80Plugin = definePlugin(
  { name: '@ptxforge/target-sm80', version: '0.1.0', kernel: '^0.1.0', description: 'Ampere SM backend' },
  { targets: [sm80Target] },
);

export default targetSm80Plugin;

/**
 * Mercury SASS encoder and decoder for this target's archs (the Volta+ table of @ptxforge/mercury-volta).
 * Plain functions until the kernel exposes Encoder/Decoder service tokens; then they register there.
 */
export function sm80SassCodec(arch: string = sm80Target.archs[0]!): TableCodec {
  if (!sm80Target.archs.includes(arch)) throw new Error(`SASS_ARCH: ${arch} is not served by @ptxforge/target-sm80`);
  return voltaCodec(arch);
}
