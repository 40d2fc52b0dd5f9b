import { defineKnob, definePlugin } from '@ptxforge/kernel';
import { SLOT17_KNOBS } from '@ptxforge/target-common';
import { AnalyzeControlFlow } from './analyze-control-flow.js';
import { FinalInspectionPass, OriCheckInitialProgram } from './check-initial-program.js';
import { ReportPhase } from './reports.js';
import { OriSanitize } from './sanitize.js';
import { SetControlFlowOpLastInBB } from './set-control-flow-last.js';
import { describeSlot17, DoSwitchOptFirst } from './switch-opt-first.js';
import { PACKAGE } from './package-meta.js';

export { AnalyzeControlFlow, FinalInspectionPass, OriCheckInitialProgram, ReportPhase, OriSanitize, SetControlFlowOpLastInBB, DoSwitchOptFirst };
export { describeFunction } from './reports.js';

/** The core phases every toolchain wants: validation, CFG analysis and fixups, reports, slot-17 dispatch. */
export const corePlugin = definePlugin(
  { ...PACKAGE, api: '^1.0.0', description: 'validation, CFG analysis, reports, phase 14 dispatch' },
  {
    phases: {
      OriCheckInitialProgram: () => new OriCheckInitialProgram(),
      AnalyzeControlFlow: () => new AnalyzeControlFlow(),
      SetControlFlowOpLastInBB: () => new SetControlFlowOpLastInBB(),
      ReportInitialRepresentation: () => new ReportPhase('ReportInitialRepresentation'),
      OriSanitize: () => new OriSanitize(),
      DoSwitchOptFirst: { create: () => new DoSwitchOptFirst(), describe: describeSlot17 },
      FinalInspectionPass: () => new FinalInspectionPass(),
      ReportBeforeScheduling: () => new ReportPhase('ReportBeforeScheduling'),
    },
    knobs: [
      defineKnob({
        name: 'OriSanitizeRemoveUnreachable',
        type: 'bool',
        default: true,
        description: 'OriSanitize (phase 12) removes blocks unreachable from the entry',
      }),
      // The targets' slot-17 handlers read these; phase 14 (this plugin's dispatch) owns them.
      ...SLOT17_KNOBS,
    ],
  },
);

export default corePlugin;
