import { definePlugin } from '@ptxforge/kernel';
import { ConvertAllMovPhiToMovPhase, GenerateMovPhiPhase } from './phases.js';
import { PACKAGE } from './package-meta.js';

export * from './movphi.js';
export * from './phases.js';

/** SSA phi handling phases 23 and 73. */
export const movPhiPlugin = definePlugin(
  { ...PACKAGE, api: '^1.0.0', description: 'MovPhi generation and phi destruction' },
  {
    phases: {
      GenerateMovPhi: () => new GenerateMovPhiPhase(),
      ConvertAllMovPhiToMov: () => new ConvertAllMovPhiToMovPhase(),
    },
  },
);
export default movPhiPlugin;
