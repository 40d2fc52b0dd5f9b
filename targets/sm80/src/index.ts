import type { TargetCapabilities } from '@ptxforge/kernel';
import { defineTarget, PIPE_WIDTHS_SM80, slot17HandlerB, AMPERE_LATENCIES } from '@ptxforge/target-common';
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
  maxSharedPerBlock: 163 * 1024,
};

/** The Ampere backend: sm_80, sm_86, sm_87. Slot 17 per the branch/switch spec's dispatch table. */
export const sm80TargetDef = defineTarget({
  package: PACKAGE,
  description: 'Ampere SM backend',
  id: 'sm80',
  family: 'Ampere',
  archs: ['sm_80', 'sm_86', 'sm_87'],
  capabilities,
  pipeWidths: PIPE_WIDTHS_SM80,
  latencies: { alu: 4, fma: 4, dfma: 'variable', mma: 'variable' },
  slot17: slot17HandlerB,
  machineLatencies: [AMPERE_LATENCIES],
  services: voltaServices(['sm_80', 'sm_86', 'sm_87']),
});

export const sm80Target = sm80TargetDef.descriptor;
export const targetSm80Plugin = sm80TargetDef.plugin;

export default targetSm80Plugin;

/**
 * Mercury SASS encoder and decoder of one of this target's archs (the Volta+ table of @ptxforge/mercury-volta;
 * also provided as the kernel's Encoder/Decoder services).
 */
export function sm80SassCodec(arch: string = sm80Target.archs[0]!): TableCodec {
  if (!sm80Target.archs.includes(arch)) throw new Error(`SASS_ARCH: ${arch} is not served by @ptxforge/target-sm80`);
  return voltaCodec(arch);
}
