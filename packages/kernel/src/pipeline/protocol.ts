import type { Analysis, PreservedAnalyses } from '../analysis/manager.js';
import type { OriFunction, OriModule } from '../ir/core.js';
import type { ServiceToken } from '../services.js';
import type { TargetView } from '../target.js';

/** What a phase keeps valid: 'all', 'cfg', 'none' or a list of analysis tokens (see defineAnalysis). */
export type Preserved = PreservedAnalyses;

/**
 * The phase protocol (spec: "Phase Object Layout": execute, isNoOp, getName). A phase implementation is
 * created once per compilation by its factory; `isNoOp` is asked first and a no-op phase is skipped.
 */
/**
 * IR properties a phase may require, establish or invalidate (LLVM's MachineFunctionProperties). The host
 * walks the pipeline it is about to run with the set of properties that hold and refuses a chain in which a
 * phase requires a property no earlier phase established (PHASE_CHAIN_BROKEN), so no phase number is
 * special in the host: what phase 6 does is declared data (`establishes: ['ControlFlowLast']`).
 *
 * The kernel's vocabulary (a plugin may add its own PascalCase names):
 * - `ControlFlowLast`: control-flow instructions stand last in their block (the verifier checks it once
 *   established; before, a branch inside a block is legal input);
 * - `PhysicalRegisters`: every register operand names a physical register (R0, UR4, P1 ...);
 * - `Scheduled`: instructions are in their final order;
 * - `ControlRecords`: every instruction has its control record (stall, yield, barriers, wait mask, reuse);
 * - `Encoded`: machine code has been produced.
 */
export type IrProperty = 'ControlFlowLast' | 'PhysicalRegisters' | 'Scheduled' | 'ControlRecords' | 'Encoded' | (string & {});
export const KERNEL_IR_PROPERTIES: readonly IrProperty[] = ['ControlFlowLast', 'PhysicalRegisters', 'Scheduled', 'ControlRecords', 'Encoded'];

/** What a phase needs and what it changes about the IR's properties. */
export interface PhaseProperties {
  readonly requires?: readonly IrProperty[];
  readonly establishes?: readonly IrProperty[];
  readonly invalidates?: readonly IrProperty[];
}

export interface PhaseImpl extends PhaseProperties {
  isNoOp?(ctx: PhaseContext): boolean;
  execute(ctx: PhaseContext): void;
  /** Analyses still valid after execute. Default 'none'. */
  readonly preserves?: Preserved;
}

export type PhaseFactory = () => PhaseImpl;

export type DiagnosticSeverity = 'error' | 'warning' | 'remark' | 'info';
export interface Diagnostic {
  readonly severity: DiagnosticSeverity;
  readonly code: string;
  readonly message: string;
  readonly phase?: string;
  readonly fn?: string;
  /** PTX/Ori line the diagnostic is about, when known. */
  readonly line?: number;
}

/**
 * A structured optimization remark (LLVM's -Rpass/-Rpass-missed, in JSON): what a phase did or declined to
 * do, and why. `passed` = transformation applied, `missed` = rejected (with the spec's reason/code),
 * `analysis` = a fact worth reporting. Collected per compilation; the CLI writes them with --remarks F.json.
 */
export type RemarkKind = 'passed' | 'missed' | 'analysis';
export interface RemarkInput {
  readonly kind: RemarkKind;
  /** Short stable identifier of the remark, e.g. 'SwitchLowered', 'LoopUnrolled', 'LoopNotUnrolled'. */
  readonly name: string;
  readonly fn: string;
  /** Block label the remark is about (a loop header, a switch head ...). */
  readonly block?: string;
  /** Source line (PTX line of the instruction it is about), when known. */
  readonly line?: number;
  readonly message: string;
  /** Machine-readable details (factor, code, cases, density, strategy ...). */
  readonly args?: Readonly<Record<string, string | number | boolean>>;
}
export interface Remark extends RemarkInput {
  /** Phase index and spec name that emitted it (filled by the host). */
  readonly phaseIndex: number;
  readonly phase: string;
}

export interface DiagnosticSink {
  report(d: Diagnostic): void;
  readonly all: readonly Diagnostic[];
}

/**
 * The narrow view a phase (and a hook handler) gets of its compilation: the unit, the target, option and
 * knob values, cached analyses and diagnostics. Plugins never see the DI container.
 */
export interface PhaseContext {
  readonly module: OriModule;
  readonly target: TargetView;
  readonly optLevel: number;
  /** Index and spec name of the running phase. */
  readonly phase: { readonly index: number; readonly name: string };
  /** The `=param` given to this phase in --named-phases, if any. */
  readonly phaseParam: string | undefined;
  knob<T extends boolean | number | string>(name: string): T;
  analysis<T>(fn: OriFunction, a: Analysis<T>): T;
  /** Drop cached analyses of a function after an in-phase CFG change (the dispatch loop also invalidates). */
  invalidate(fn: OriFunction, preserved?: Preserved): void;
  /** Case-insensitive substring check of --disable-passes for a sub-pass name (spec: IsPassDisabled). */
  isPassDisabled(name: string): boolean;
  readonly diagnostics: DiagnosticSink;
  /** Informational output (printed by the CLI with -v). */
  info(message: string): void;
  /** Record an optimization remark (the host adds the phase). */
  remark(r: RemarkInput): void;
  /** The selected arch's provider of a service; SERVICE_MISSING (naming the package to install) if none. */
  service<T>(token: ServiceToken<T>): T;
  /** The selected arch's provider of a service, or undefined. */
  tryService<T>(token: ServiceToken<T>): T | undefined;
  /** Whether an IR property holds at this point of the pipeline (see IrProperty). */
  hasProperty(p: IrProperty): boolean;
}
