import type { TargetCapabilities } from '@ptxforge/kernel';
import { defineTarget, PIPE_WIDTHS_SM80, slot17HandlerA, TURING_LATENCIES } from '@ptxforge/target-common';
import { voltaCodec, voltaServices } from '@ptxforge/mercury-volta';
import type { TableCodec } from '@ptxforge/sass';
import { PACKAGE } from './package-meta.js';

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
export const sm70TargetDef = defineTarget({
  package: PACKAGE,
  description: 'Volta/Turing SM backend',
  id: 'sm70',
  family: 'Volta/Turing',
  archs: ['sm_70', 'sm_72', 'sm_75'],
  capabilities,
  pipeWidths: PIPE_WIDTHS_SM80,
  latencies: { alu: 4, fma: 4, dfma: 'variable', mma: 'variable' }, // FP64 is fast on GV100 only, not on Turing: wait by scoreboard
  slot17: slot17HandlerA,
  machineLatencies: [TURING_LATENCIES],
  services: voltaServices(['sm_70', 'sm_72', 'sm_75']),
});

export const sm70Target = sm70TargetDef.descriptor;
export const targetSm70Plugin = sm70TargetDef.plugin;

export default targetSm70Plugin;

/**
 * Mercury SASS encoder and decoder of one of this target's archs (the Volta+ table of @ptxforge/mercury-volta;
 * also provided as the kernel's Encoder/Decoder services).
 */
export function sm70SassCodec(arch: string = sm70Target.archs[0]!): TableCodec {
  if (!sm70Target.archs.includes(arch)) throw new Error(`SASS_ARCH: ${arch} is not served by @ptxforge/target-sm70`);
  return voltaCodec(arch);
}
