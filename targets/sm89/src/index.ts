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
  maxSharedPerBlock: 99 * 1024,
};

/** The Ada backend: sm_89. Slot 17 per the branch/switch spec's dispatch table. */
export const sm89Target: TargetDescriptor = {
  id: 'sm89',
  family: 'Ada',
  archs: ['sm_89'],
  pipeWidths: PIPE_WIDTHS_SM80,
  capabilities,
  slot17: slot17HandlerB,
};

export const targetSm89Plugin = definePlugin(
  { name: '@ptxforge/target-sm89', version: '0.1.0', kernel: '^0.1.0', description: 'Ada SM backend' },
  { targets: [sm89Target] },
);

export default targetSm89Plugin;

/**
 * Mercury SASS encoder and decoder for this target's archs (the Volta+ table of @ptxforge/mercury-volta).
 * Plain functions until the kernel exposes Encoder/Decoder service tokens; then they register there.
 */
export function sm89SassCodec(arch: string = sm89Target.archs[0]!): TableCodec {
  if (!sm89Target.archs.includes(arch)) throw new Error(`SASS_ARCH: ${arch} is not served by @ptxforge/target-sm89`);
  return voltaCodec(arch);
}
