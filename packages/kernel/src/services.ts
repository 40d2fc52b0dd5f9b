import { PtxforgeError } from './errors.js';
import type { OriFunction } from './ir/core.js';
import type { PhaseContext } from './pipeline/protocol.js';
import type { TargetView } from './target.js';

/**
 * Target-scoped services: the backend contract as injection tokens with typed interfaces (issue 9). A
 * plugin (a target package or a third party) provides a service for a set of archs; each compilation gets a
 * child DI container in which only the selected -arch's providers resolve, and phases and hooks reach them
 * through `ctx.service(Token)`, never through the container.
 *
 * A token is keyed by a registered symbol (`Symbol.for('@ptxforge/service:<name>')`), not by object
 * identity, so a token from a second copy of the kernel loaded in the same process names the same service.
 */
export interface ServiceToken<T> {
  readonly kind: 'ptxforge-service';
  /** Service name as users see it in errors (`Encoder`). */
  readonly name: string;
  /** The DI key. */
  readonly key: symbol;
  readonly description: string;
  /** Phantom: the service's interface (never set at run time). */
  readonly __type?: T;
}

/** The type a token stands for. */
export type ServiceOf<K> = K extends ServiceToken<infer T> ? T : never;

/** Define a service token. Names are global (`Symbol.for`): two definitions of one name are one service. */
export function defineService<T>(name: string, description = ''): ServiceToken<T> {
  if (!/^[A-Z][A-Za-z0-9]*(\.[A-Za-z0-9]+)*$/.test(name)) {
    throw new PtxforgeError('SERVICE_NAME_INVALID', `service name '${name}' must be a PascalCase identifier (optionally dotted: Vendor.Thing)`);
  }
  return Object.freeze({ kind: 'ptxforge-service' as const, name, key: Symbol.for(`@ptxforge/service:${name}`), description });
}

export function isServiceToken(x: unknown): x is ServiceToken<unknown> {
  return !!x && typeof x === 'object' && (x as { kind?: unknown }).kind === 'ptxforge-service' && typeof (x as { key?: unknown }).key === 'symbol';
}

/** What a service factory may ask: the arch it builds for, the target view, and other services of that arch. */
export interface ServiceEnv {
  readonly arch: string;
  readonly target: TargetView;
  service<T>(token: ServiceToken<T>): T;
  tryService<T>(token: ServiceToken<T>): T | undefined;
}

/**
 * One service provision of a plugin: `archs` it serves (`'*'` = every arch, a fallback below any provider
 * that names the arch), a value or a factory (called at most once per compilation, lazily), and optionally
 * the plugin it `replaces` (by package name) for those archs.
 */
export interface ServiceProvision<T = unknown> {
  readonly service: ServiceToken<T>;
  readonly archs: readonly string[] | '*';
  readonly useValue?: T;
  readonly useFactory?: (env: ServiceEnv) => T;
  readonly replaces?: string | readonly string[];
}

/** `provide(Encoder, { archs: ['sm_90'], useValue: enc })`: a typed provision for a plugin's `services`. */
export function provide<T>(
  service: ServiceToken<T>,
  p: { archs: readonly string[] | '*'; replaces?: string | readonly string[] } & ({ useValue: T } | { useFactory: (env: ServiceEnv) => T }),
): ServiceProvision<T> {
  return Object.freeze({ service, ...p }) as ServiceProvision<T>;
}

// ---------------------------------------------------------------------------------------------------------
// The backend contract.

/** Register classes of the SM register files (sm_75+ add the uniform ones; sm_70+ convergence barriers). */
export type RegisterClassName = 'GPR' | 'PRED' | 'UGPR' | 'UPRED' | 'BARRIER';

export interface RegisterClassInfo {
  readonly name: RegisterClassName;
  /** SASS spelling prefix: R, P, UR, UP, B. */
  readonly prefix: string;
  /** Allocatable registers of the class (RZ/PT/URZ/UPT excluded). */
  readonly count: number;
  /** Index of the hard-wired zero/true register (RZ = 255, PT = 7, URZ = 63, UPT = 7), if the class has one. */
  readonly zero?: number;
  /**
   * Alignment (in registers) of a value spanning `width` registers: pairs start at even registers, quads at
   * multiples of 4 (`{ 2: 2, 4: 4 }`). Widths not listed need no alignment.
   */
  readonly alignment: Readonly<Record<number, number>>;
}

/** The target's register file: classes, counts and pair/quad alignment rules. */
export interface RegisterFile {
  readonly classes: readonly RegisterClassInfo[];
}

/** One opcode of the target's ISA. */
export interface IsaOpcode {
  readonly name: string;
  /** Operand forms the encoder accepts, in the codec's notation (e.g. `R,R,R`, `R,R,I`, `R,R,C`). */
  readonly forms: readonly string[];
  /** Register classes the opcode reads or writes. */
  readonly registerClasses: readonly RegisterClassName[];
}

/** The target's instruction set: what the legalizer may emit and the encoder accepts. */
export interface IsaTable {
  readonly opcodes: ReadonlyMap<string, IsaOpcode>;
}

/**
 * The 7-entry pipe-width table (spec: loop passes, "Pipe width values from code_object+16"): issue slots per
 * cycle per SM sub-partition for ALU, FMA, DFMA, MMA, LSU, TEX and BRA/SMEM, the denominators of ResMII.
 */
export type PipeWidths = readonly [alu: number, fma: number, dfma: number, mma: number, lsu: number, tex: number, bra: number];
export const PIPE_NAMES = ['ALU', 'FMA', 'DFMA', 'MMA', 'LSU', 'TEX', 'BRA/SMEM'] as const;
export type PipeName = (typeof PIPE_NAMES)[number];

/** Variable-latency classes: their results are waited for through a scoreboard, not a stall count. */
export type VariableLatencyClass = 'memory' | 'texture' | 'shared' | 'transcendental' | 'double' | 'barrier' | 'misc';

/**
 * Machine-level (Volta+ SASS) latency classes. Fixed-latency ("coupled") results are ready a fixed number of
 * cycles after issue and are covered by stall counts; variable-latency ("decoupled") results by a write
 * scoreboard the consumer waits on; "redirected" units (fp64/fp16/MMA on some parts, R2UR) are either.
 */
export type MachineWriterClass =
  | 'alu' | 'fma' | 'disp64' | 'wideLo' | 'wideHi' | 'fp16' | 'fp64' | 'fp64pred' | 'mma1' | 'mma2' | 'dmma' | 'uniform' | 'r2ur';
export type MachineReaderClass = 'alu' | 'fma' | 'wideAB' | 'wideCL' | 'wideCH' | 'fp16' | 'fp64' | 'mma' | 'var' | 'agu' | 'uniform';
/** Variable-latency queues; results of one queue come back in issue order. */
export type MachineQueue =
  | 'global' | 'local' | 'shared' | 'const' | 'tex' | 'mufu' | 'conv' | 'xu' | 's2r' | 'shfl' | 'bar' | 'fp64' | 'r2ur' | 'misc';
/** How one machine instruction's results become available. */
export type MachineOpTiming =
  | { kind: 'fixed'; writer: MachineWriterClass; reader: MachineReaderClass }
  | { kind: 'variable'; queue: MachineQueue; lateRead: boolean; reader: MachineReaderClass }
  /** fixed latency when the instruction sets no write scoreboard, else scoreboard-covered */
  | { kind: 'redirected'; writer: MachineWriterClass; queue: MachineQueue; reader: MachineReaderClass }
  | { kind: 'none'; reader: MachineReaderClass };

/** The SASS latency table of a family of archs: plain data, served by the targets' LatencyModel. */
export interface MachineLatencyTable {
  readonly name: string;
  readonly archs: readonly string[];
  /** cycles from a writer's issue until a reader of the class may issue (missing reader: `default`) */
  readonly raw: Readonly<Record<MachineWriterClass, Readonly<Partial<Record<MachineReaderClass, number>>> & { readonly default: number }>>;
  /** Cycles after issue within which a variable-latency instruction without a read scoreboard may still read its vector sources. */
  readonly lateReadCycles?: Readonly<Partial<Record<MachineQueue, number>>>;
  /** Opcodes whose class differs on these archs. */
  readonly overrides?: Readonly<Record<string, MachineOpTiming>>;
}

/** A machine instruction as the latency questions need it: opcode and modifiers (`IMAD`, ['WIDE', 'U32']). */
export interface MachineOp {
  readonly opcode: string;
  readonly mods?: readonly string[];
}

/** Latencies and pipes of the target (consumed by schedulers, the pipeliner, scoreboards, the hazard checker). */
export interface LatencyModel {
  /**
   * Volta+ targets: the SASS latency table of the arch, the one source the hazard checker, the scoreboard
   * generator and the schedulers share. Absent where no table is known (pre-Volta, sm_70/72).
   */
  readonly machine?: MachineLatencyTable;
  /** Timing class of a machine instruction under `machine` (present with it). */
  machineTiming?(op: MachineOp): MachineOpTiming;
  /**
   * Cycles from the issue of `writer` until `reader` may issue and read its result, when `writer`'s result has a
   * fixed latency (stall counts cover it); undefined when a scoreboard covers it (present with `machine`).
   */
  operandLatency?(writer: MachineOp, reader: MachineOp): number | undefined;
  readonly pipeWidths: PipeWidths;
  /** The pipe an opcode issues to; undefined when it has no column in the 7-entry table (MUFU's XU, pseudo-ops). */
  pipe(opcode: string): PipeName | undefined;
  /** Cycles from issue until a fixed-latency result may be read; undefined for variable-latency opcodes. */
  fixedLatency(opcode: string): number | undefined;
  /** The variable-latency class of an opcode (needs a scoreboard), undefined for fixed-latency ones. */
  variableLatency(opcode: string): VariableLatencyClass | undefined;
}

/**
 * A target's vtable slot 17 handler, called by phase 14 DoSwitchOptFirst for each function (spec:
 * branch/switch, "Phase 14 Vtable Slot 17 -- Per-SM Dispatch Resolution"). `status` says what it is: a
 * genuine no-op (SM30, SM50), a placeholder for a handler not implemented yet, or an implementation.
 */
export interface Slot17Handler {
  /** Spec handler identity: 'NO-OP ...', 'A: ...', 'B: ...'. */
  readonly name: string;
  readonly status: 'noop' | 'placeholder' | 'implemented';
  run(fn: OriFunction, ctx: PhaseContext): void;
}

/**
 * A structured machine instruction as the codec exchanges it. The fields beyond `opcode` (guard, operands,
 * modifiers, control: stall, yield, barriers, wait mask, reuse) are defined by the codec package
 * (@ptxforge/sass); the kernel keeps the contract open so that codecs of different families fit.
 */
export interface MachineInstruction {
  readonly opcode: string;
}

/** Structured instruction → machine words, for one SM family. */
export interface Encoder {
  /** Bytes per instruction (8 before Volta with separate control words, 16 from Volta on). */
  readonly instructionBytes: number;
  /** Encode one instruction placed at byte `address` (branch targets are relative to it). */
  encode(instr: MachineInstruction, address: number): Uint8Array;
}

/** Machine words → structured instruction, for one SM family. */
export interface Decoder {
  readonly instructionBytes: number;
  /** Decode the instruction at byte `offset` of `code` (its address is `offset`). */
  decode(code: Uint8Array, offset: number): MachineInstruction;
}

/** Assigns stalls, yields, read/write barriers, wait masks and reuse flags (AdvancedScoreboardsAndOpexes). */
export interface ScoreboardGenerator {
  run(fn: OriFunction, ctx: PhaseContext): void;
}

/** Assigns physical registers (AdvancedPhaseAllocReg). */
export interface RegisterAllocator {
  allocate(fn: OriFunction, ctx: PhaseContext): void;
}

/** Orders instructions: before register allocation (AdvancedPhasePreSched) or after (post-RA scheduling). */
export interface Scheduler {
  schedule(fn: OriFunction, ctx: PhaseContext, stage: 'pre-ra' | 'post-ra'): void;
}

export const IsaTable = defineService<IsaTable>('IsaTable', "the target's opcodes, operand forms and register classes");
export const RegisterFile = defineService<RegisterFile>('RegisterFile', 'register classes, counts and pair/quad alignment');
export const LatencyModel = defineService<LatencyModel>('LatencyModel', 'fixed and variable latencies, pipes and pipe widths');
export const Slot17Handler = defineService<Slot17Handler>('Slot17Handler', 'the vtable slot 17 handler phase 14 calls');
export const Encoder = defineService<Encoder>('Encoder', 'structured SASS instruction to machine words');
export const Decoder = defineService<Decoder>('Decoder', 'machine words to structured SASS instruction');
export const ScoreboardGenerator = defineService<ScoreboardGenerator>('ScoreboardGenerator', 'control information: stalls, barriers, wait masks, reuse');
export const RegisterAllocator = defineService<RegisterAllocator>('RegisterAllocator', 'virtual to physical register assignment');
export const Scheduler = defineService<Scheduler>('Scheduler', 'instruction scheduling');

/** The backend contract's tokens, in the order docs list them. */
export const BACKEND_SERVICES: readonly ServiceToken<unknown>[] = [
  IsaTable, RegisterFile, LatencyModel, Slot17Handler, Encoder, Decoder, ScoreboardGenerator, RegisterAllocator, Scheduler,
] as ServiceToken<unknown>[];
