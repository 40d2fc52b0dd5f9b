import { definePlugin } from '@ptxforge/kernel';
import { BackCopyPropagatePhase, RemoveRedundantMultiDefMovPhase, ReplaceEquivMultiDefMovPhase } from './phases.js';

export * from './copies.js';
export * from './phases.js';

/** Move cleanup phases 52, 62, 83. */
export const copyPropPlugin = definePlugin(
  { name: '@ptxforge/plugin-copy-prop', version: '0.1.0', kernel: '^0.1.0', description: 'redundant and dead move elimination, backward copy propagation' },
  {
    phases: {
      OriReplaceEquivMultiDefMov: () => new ReplaceEquivMultiDefMovPhase(),
      OriRemoveRedundantMultiDefMov: () => new RemoveRedundantMultiDefMovPhase(),
      OriBackCopyPropagate: () => new BackCopyPropagatePhase(),
    },
  },
);
export default copyPropPlugin;
