import type { TargetCapabilities } from '@ptxforge/kernel';
import { defineTarget, PIPE_WIDTHS_FAST_FP64, slot17HandlerA, HOPPER_LATENCIES } from '@ptxforge/target-common';
import { voltaCodec, voltaServices } from '@ptxforge/mercury-volta';
import type { TableCodec } from '@ptxforge/sass';
import { PACKAGE } from './package-meta.js';

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

/**
 * The Hopper backend: sm_90 and sm_90a, the archs it really encodes (Blackwell sm_100+ is not claimed: the
 * kernel answers TARGET_NOT_SUPPORTED for it until a package encodes it). Slot 17 per the branch/switch
 * spec's dispatch table.
 */
export const sm90TargetDef = defineTarget({
  package: PACKAGE,
  description: 'Hopper SM backend (sm_90, sm_90a)',
  id: 'sm90',
  family: 'Hopper',
  archs: ['sm_90', 'sm_90a'],
  capabilities,
  pipeWidths: PIPE_WIDTHS_FAST_FP64,
  latencies: { alu: 4, fma: 4, dfma: 8, mma: 'variable' },
  slot17: slot17HandlerA,
  machineLatencies: [HOPPER_LATENCIES],
  services: voltaServices(['sm_90', 'sm_90a']),
});

export const sm90Target = sm90TargetDef.descriptor;
export const targetSm90Plugin = sm90TargetDef.plugin;

export default targetSm90Plugin;

/**
 * Mercury SASS encoder and decoder of one of this target's archs (the Volta+ table of @ptxforge/mercury-volta;
 * also provided as the kernel's Encoder/Decoder services).
 */
export function sm90SassCodec(arch: string = sm90Target.archs[0]!): TableCodec {
  if (!sm90Target.archs.includes(arch)) throw new Error(`SASS_ARCH: ${arch} is not served by @ptxforge/target-sm90`);
  return voltaCodec(arch);
}
