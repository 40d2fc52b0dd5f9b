import type { TargetCapabilities } from '@ptxforge/kernel';
import { defineTarget, PIPE_WIDTHS_SM80, slot17HandlerB, ADA_LATENCIES } from '@ptxforge/target-common';
import { voltaCodec, voltaServices } from '@ptxforge/mercury-volta';
import type { TableCodec } from '@ptxforge/sass';
import { PACKAGE } from './package-meta.js';

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
export const sm89TargetDef = defineTarget({
  package: PACKAGE,
  description: 'Ada SM backend',
  id: 'sm89',
  family: 'Ada',
  archs: ['sm_89'],
  capabilities,
  pipeWidths: PIPE_WIDTHS_SM80,
  latencies: { alu: 4, fma: 4, dfma: 'variable', mma: 'variable' },
  slot17: slot17HandlerB,
  machineLatencies: [ADA_LATENCIES],
  services: voltaServices(['sm_89']),
});

export const sm89Target = sm89TargetDef.descriptor;
export const targetSm89Plugin = sm89TargetDef.plugin;

export default targetSm89Plugin;

/**
 * Mercury SASS encoder and decoder of one of this target's archs (the Volta+ table of @ptxforge/mercury-volta;
 * also provided as the kernel's Encoder/Decoder services).
 */
export function sm89SassCodec(arch: string = sm89Target.archs[0]!): TableCodec {
  if (!sm89Target.archs.includes(arch)) throw new Error(`SASS_ARCH: ${arch} is not served by @ptxforge/target-sm89`);
  return voltaCodec(arch);
}
