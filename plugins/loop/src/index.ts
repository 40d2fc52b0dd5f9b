import { definePlugin } from '@ptxforge/kernel';
import { LOOP_KNOBS } from './knobs.js';

export * from './knobs.js';

export const loopPlugin = definePlugin(
  { name: '@ptxforge/plugin-loop', version: '0.1.0', kernel: '^0.1.0', description: 'loop simplification, unrolling, pipelining and fusion' },
  { knobs: LOOP_KNOBS },
);
export default loopPlugin;
