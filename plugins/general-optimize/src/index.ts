import { defineKnob, definePlugin } from '@ptxforge/kernel';
import { GeneralOptimizePhase, KNOB_GO_MAX_ROUNDS } from './general-optimize-phase.js';
import { PACKAGE } from './package-meta.js';

export * from './general-optimize-phase.js';
export * from './propagate.js';
export * from './simplify.js';
export * from './fold.js';
export * from './fuse-mul-add.js';
export * from './lut.js';
export * from './operand-width.js';

export const knobs = [
  defineKnob({
    name: KNOB_GO_MAX_ROUNDS,
    type: 'int',
    default: 8,
    min: 0,
    max: 1000,
    description: 'GeneralOptimize*: at most this many rounds of copy/constant propagation, folding and simplification per function (fixed-point budget)',
  }),
];

/** GeneralOptimize bundles in slots 13, 29, 37, 46, 58, 65. */
export const generalOptimizePlugin = definePlugin(
  { ...PACKAGE, api: '^1.0.0', description: 'GeneralOptimize bundles: copy/constant propagation, folding, algebraic simplification' },
  {
    phases: {
      GeneralOptimizeEarly: () => new GeneralOptimizePhase('early'),
      GeneralOptimize: () => new GeneralOptimizePhase('mid-loop'),
      GeneralOptimizeMid: () => new GeneralOptimizePhase('mid'),
      GeneralOptimizeMid2: () => new GeneralOptimizePhase('mid2'),
      GeneralOptimizeLate: () => new GeneralOptimizePhase('late'),
      GeneralOptimizeLate2: () => new GeneralOptimizePhase('late2'),
    },
    knobs,
  },
);
export default generalOptimizePlugin;
