import type { IrProperty } from '../pipeline/protocol.js';
import type { KnobValue } from '../knobs.js';
import type { Instrumentation } from './instrumentation.js';

export interface CompileOptions {
  /** `-arch` (`sm_90`). */
  arch: string;
  /** -O level 0..4 (default 3, as ptxas). */
  optLevel?: number;
  /** Knob settings (values as text are parsed by the knob's type). */
  knobs?: Readonly<Record<string, KnobValue>> | ReadonlyArray<{ name: string; value: string; where?: string }>;
  /** NamedPhases string (`"A,B=param,shuffle,swap1"`) replacing the default order. */
  namedPhases?: string;
  /** Seed of `shuffle` in namedPhases (reproducible; default 0). */
  shuffleSeed?: number;
  /** Disabled-passes string: a phase is skipped when its name occurs in it, case-insensitively. */
  disablePasses?: string;
  /** Collect per-phase statistics (--stat=phase-wise). */
  stats?: boolean;
  /** Verify the IR after every executed phase (--verify-ir). */
  verifyIr?: boolean;
  /** Capture Ori text after these phases ('all', or spec names, case-insensitive). */
  dumpIr?: 'all' | readonly string[];
  /** Extra before/after-phase callbacks (verification, dumps, tracing). */
  instrumentation?: readonly Instrumentation[];
  /** IR properties the input already has (an Ori dump taken after allocation has PhysicalRegisters ...). */
  properties?: readonly IrProperty[];
  /**
   * Relocatable output (ptxas `-c`, PTX of `nvcc -rdc=true`): `.extern` functions may stay undefined (the
   * linker, nvlink, resolves them); passed on to the front end.
   */
  relocatable?: boolean;
}

export interface ResolvedCompileOptions {
  readonly arch: string;
  readonly optLevel: number;
  readonly namedPhases: string | undefined;
  readonly shuffleSeed: number;
  readonly disablePasses: string;
  readonly stats: boolean;
  readonly verifyIr: boolean;
  readonly dumpIr: 'all' | readonly string[] | undefined;
  readonly properties?: readonly IrProperty[];
}
