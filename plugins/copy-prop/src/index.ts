import { definePlugin } from '@ptxforge/kernel';
import { BackCopyPropagatePhase, RemoveRedundantMultiDefMovPhase, ReplaceEquivMultiDefMovPhase } from './phases.js';
import { PACKAGE } from './package-meta.js';

export * from './copies.js';
export * from './phases.js';

/** Move cleanup phases 52, 62, 83. */
export const copyPropPlugin = definePlugin(
  { ...PACKAGE, api: '^1.0.0', description: 'redundant and dead move elimination, backward copy propagation' },
  {
    phases: {
      OriReplaceEquivMultiDefMov: () => new ReplaceEquivMultiDefMovPhase(),
      OriRemoveRedundantMultiDefMov: () => new RemoveRedundantMultiDefMovPhase(),
      OriBackCopyPropagate: () => new BackCopyPropagatePhase(),
    },
  },
);
export default copyPropPlugin;
