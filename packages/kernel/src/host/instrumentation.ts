import type { OriModule } from '../ir/core.js';
import type { PhaseContext } from '../pipeline/protocol.js';

export interface PhaseInfo {
  readonly index: number;
  readonly name: string;
  /** Package that implements it. */
  readonly owner: string;
}

export interface PhaseRunResult {
  /** Whether the phase changed the IR (any function's IR version moved). */
  readonly changed: boolean;
  readonly timeMs: number;
}

/**
 * Callbacks around each executed phase (LLVM PassInstrumentation style). They receive the IR read-only:
 * the dispatch loop checks that no callback changed it and fails with INSTRUMENTATION_MUTATED_IR otherwise.
 * Dumps, statistics, --verify-ir and the interpreter's --verify-each are instrumentations.
 */
export interface Instrumentation {
  readonly name: string;
  beforePipeline?(module: Readonly<OriModule>, ctx: PhaseContext): void;
  beforePhase?(phase: PhaseInfo, module: Readonly<OriModule>, ctx: PhaseContext): void;
  afterPhase?(phase: PhaseInfo, module: Readonly<OriModule>, result: PhaseRunResult, ctx: PhaseContext): void;
  afterPipeline?(module: Readonly<OriModule>, ctx: PhaseContext): void;
}
