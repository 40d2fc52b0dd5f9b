import { defineKnob, definePlugin } from '@ptxforge/kernel';
import { KNOB_LIVE_DEAD_REMOVE_UNREACHABLE, KNOB_LIVE_DEAD_USE_LIVENESS, LiveDeadPhase } from './live-dead-phase.js';
import { PACKAGE } from './package-meta.js';

export * from './dead-code.js';
export * from './live-dead-phase.js';

export const knobs = [
  defineKnob({
    name: KNOB_LIVE_DEAD_USE_LIVENESS,
    type: 'bool',
    default: true,
    description: 'OriPerformLiveDead*: also remove defs that are overwritten before any read (bitset liveness), not only unused ones',
  }),
  defineKnob({
    name: KNOB_LIVE_DEAD_REMOVE_UNREACHABLE,
    type: 'bool',
    default: true,
    description: 'OriPerformLiveDead*: delete blocks that cannot be reached from the entry',
  }),
];

/** Liveness / DCE phases 10, 16, 33, 61, 84. */
export const liveDeadPlugin = definePlugin(
  { ...PACKAGE, api: '^1.0.0', description: 'liveness and dead code elimination' },
  {
    phases: {
      EarlyOriSimpleLiveDead: () => new LiveDeadPhase('simple'),
      OriPerformLiveDeadFirst: () => new LiveDeadPhase('full'),
      OriPerformLiveDeadSecond: () => new LiveDeadPhase('full'),
      OriPerformLiveDeadThird: () => new LiveDeadPhase('full'),
      OriPerformLiveDeadFourth: () => new LiveDeadPhase('full'),
    },
    knobs,
  },
);
export default liveDeadPlugin;
