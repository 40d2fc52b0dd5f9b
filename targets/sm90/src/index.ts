import { voltaCodec } from '@ptxforge/mercury-volta';
import type { TableCodec } from '@ptxforge/sass';
import { definePlugin, type TargetCapabilities, type TargetDescriptor } from '@ptxforge/kernel';
import { PIPE_WIDTHS_FAST_FP64, slot17HandlerA } from '@ptxforge/target-common';

const capabilities: TargetCapabilities = {
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
  pipeWidths: PIPE_WIDTHS_FAST_FP64,
  capabilities,
  slot17: slot17HandlerA,
};

export const targetSm90Plugin = definePlugin(
  { name: '@ptxforge/target-sm90', version: '0.1.0', kernel: '^0.1.0', description: 'Hopper/Blackwell SM backend' },
  { targets: [sm90Target] },
);

export default targetSm90Plugin;

/**
 * Mercury SASS encoder and decoder for this target's archs (the Volta+ table of @ptxforge/mercury-volta).
 * Plain functions until the kernel exposes Encoder/Decoder service tokens; then they register there.
 */
export function sm90SassCodec(arch: string = sm90Target.archs[0]!): TableCodec {
  if (!sm90Target.archs.includes(arch)) throw new Error(`SASS_ARCH: ${arch} is not served by @ptxforge/target-sm90`);
  return voltaCodec(arch);
}
