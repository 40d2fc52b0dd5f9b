import { defineKnob, definePlugin } from '@ptxforge/kernel';
import { PACKAGE } from './package-meta.js';

/** Options of the example plugin. */
export interface InstrCountOptions {
  /** Also list the count per opcode. */
  perOpcode?: boolean;
}

/**
 * An example of a third-party AdvancedPhase plugin: it fills the AdvancedPhasePreSched hook (phase 97)
 * and reports, for every function, how many instructions reach the scheduler. It only reads the IR.
 */
export const instrCountPlugin = definePlugin<InstrCountOptions | undefined>(
  { ...PACKAGE, api: '^1.0.0', description: 'counts instructions before scheduling' },
  (options) => ({
    knobs: [
      defineKnob({ name: 'InstrCountPerOpcode', type: 'bool', default: false, description: 'instr-count example: list counts per opcode too' }),
    ],
    hooks: {
      AdvancedPhasePreSched: {
        order: 'pre',
        handler(ctx) {
          const perOpcode = options?.perOpcode || ctx.knob<boolean>('InstrCountPerOpcode');
          for (const fn of ctx.module.functions) {
            ctx.info(`instr-count: ${fn.name} has ${fn.instructionCount} instructions before scheduling`);
            if (!perOpcode) continue;
            const counts = new Map<string, number>();
            for (const i of fn.instructions()) counts.set(i.opcode, (counts.get(i.opcode) ?? 0) + 1);
            const list = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
            ctx.info(`instr-count: ${fn.name} by opcode: ${list.map(([op, n]) => `${op}=${n}`).join(' ')}`);
          }
        },
      },
    },
  }),
);

export default instrCountPlugin;
