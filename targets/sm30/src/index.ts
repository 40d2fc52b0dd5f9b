import type { TargetCapabilities } from '@ptxforge/kernel';
import { defineTarget, PIPE_WIDTHS_SM80, slot17NoOp } from '@ptxforge/target-common';
import { PACKAGE } from './package-meta.js';

const capabilities: TargetCapabilities = {
  uniformRegisters: false,
  convergenceBarriers: false,
  threeInputAlu: false,
  packedHalf: false,
  warpgroupMma: false,
  paramBase: 0x140,
  maxRegistersPerThread: 255,
  maxSharedPerBlock: 48 * 1024,
};

/** The Kepler backend: sm_30, sm_32, sm_35, sm_37. Slot 17 per the branch/switch spec's dispatch table. */
export const sm30TargetDef = defineTarget({
  package: PACKAGE,
  description: 'Kepler SM backend',
  id: 'sm30',
  family: 'Kepler',
  archs: ['sm_30', 'sm_32', 'sm_35', 'sm_37'],
  capabilities,
  pipeWidths: PIPE_WIDTHS_SM80,
  latencies: { alu: 9, fma: 9, dfma: 'variable', mma: 'variable' },
  slot17: slot17NoOp,
});

export const sm30Target = sm30TargetDef.descriptor;
export const targetSm30Plugin = sm30TargetDef.plugin;

export default targetSm30Plugin;
