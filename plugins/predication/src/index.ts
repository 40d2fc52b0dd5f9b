import { defineKnob, definePlugin, type PhaseContext, type PhaseImpl } from '@ptxforge/kernel';
import { ifConvert } from './if-convert.js';
import { PACKAGE } from './package-meta.js';

export * from './if-convert.js';

export const KNOB_PRED_MAX_ARM = 'OriPredicationMaxArmInstrs';
export const KNOB_PRED_ALLOW_LONGER = 'OriPredicationAllowLongerPaths';
export const KNOB_PRED_FORM_SEL = 'OriPredicationFormSel';
export const KNOB_PRED_COST_MODEL = 'OriPredicationCostModel';
export const KNOB_PRED_EXIT_ARMS = 'OriPredicationExitArms';

export const knobs = [
  defineKnob({ name: KNOB_PRED_MAX_ARM, type: 'int', default: 8, min: 0, max: 4096, description: 'OriDoPredication: largest branch arm (instructions, without its branch) that is if-converted' }),
  defineKnob({
    name: KNOB_PRED_ALLOW_LONGER,
    type: 'bool',
    default: false,
    description: 'OriDoPredication: also convert when some thread would execute more instructions than on its branchy path (trades instructions for divergence)',
  }),
  defineKnob({
    name: KNOB_PRED_COST_MODEL,
    type: 'string',
    default: 'thread',
    choices: ['thread', 'issue'],
    description: "OriDoPredication: per-thread cost of a path: 'thread' counts instructions whose guard holds (thread-instructions), 'issue' also predicated-off ones",
  }),
  defineKnob({
    name: KNOB_PRED_EXIT_ARMS,
    type: 'bool',
    default: true,
    description: 'OriDoPredication: predicate a small arm that leaves to another join (`@g BRA X; X: body; BRA J`) into its branch (`@g body; @g BRA J`)',
  }),
  defineKnob({ name: KNOB_PRED_FORM_SEL, type: 'bool', default: true, description: 'OriDoPredication: merge opposite-guard moves of a diamond into one SEL' }),
];

/** 63 OriDoPredication. */
export class PredicationPhase implements PhaseImpl {
  readonly preserves = 'none' as const;
  execute(ctx: PhaseContext): void {
    const o = {
      maxArmInstrs: ctx.knob<number>(KNOB_PRED_MAX_ARM),
      allowLongerPaths: ctx.knob<boolean>(KNOB_PRED_ALLOW_LONGER),
      formSel: ctx.knob<boolean>(KNOB_PRED_FORM_SEL) && !ctx.isPassDisabled('PredicationFormSel'),
      costModel: ctx.knob<string>(KNOB_PRED_COST_MODEL) === 'issue' ? ('issue' as const) : ('thread' as const),
      exitArms: ctx.knob<boolean>(KNOB_PRED_EXIT_ARMS),
    };
    for (const fn of ctx.module.functions) ifConvert(fn, o);
  }
}

export const predicationPlugin = definePlugin(
  { ...PACKAGE, api: '^1.0.0', description: 'if-conversion (predication)' },
  { phases: { OriDoPredication: () => new PredicationPhase() }, knobs },
);
export default predicationPlugin;
