import { getHeapStatistics } from 'node:v8';
import { inject, injectable } from 'tsyringe';
import { RpoAnalysis } from '../analysis/cfg.js';
import { AnalysisManager } from '../analysis/manager.js';
import { PtxforgeError } from '../errors.js';
import type { OriModule } from '../ir/core.js';
import { printModule } from '../ir/print.js';
import { restoreReachingDefs } from '../ir/reaching-defs.js';
import { assertValidModule } from '../ir/verify.js';
import type { KnobValues } from '../knobs.js';
import { hookAt, type HookName } from '../pipeline/hooks.js';
import type { DiagnosticSink, IrProperty, PhaseContext, PhaseImpl, PhaseProperties, Preserved, Remark } from '../pipeline/protocol.js';
import { gateAllows, PHASE_TABLE } from '../pipeline/table.js';
import { RegisterFile } from '../services.js';
import type { TargetView } from '../target.js';
import type { Instrumentation, PhaseInfo } from './instrumentation.js';
import { defaultPhaseOrder, isPassDisabled, parseNamedPhases, type PhaseStep } from './named-phases.js';
import type { ResolvedCompileOptions } from './options.js';
import type { PluginRegistry } from './registry.js';
import type { ServiceScope } from './service-scope.js';
import { TOKENS } from './tokens.js';

/** Why a slot did not execute. */
export type SkipReason = 'placeholder' | 'opt-level' | 'disabled' | 'no-op';

export interface PhaseRecord {
  readonly index: number;
  readonly name: string;
  readonly owner: string;
  readonly ran: boolean;
  readonly skipped?: SkipReason;
  readonly changed?: boolean;
  readonly timeMs?: number;
  readonly totalKB?: number;
  readonly freeableKB?: number;
}

export interface CompileResult {
  readonly module: OriModule;
  readonly phases: readonly PhaseRecord[];
  readonly diagnostics: DiagnosticSink['all'];
  /** --stat=phase-wise lines (empty unless stats were asked for). */
  readonly statLines: readonly string[];
  /** Ori text captured after phases named in dumpIr. */
  readonly dumps: ReadonlyArray<{ index: number; phase: string; text: string }>;
  /** Informational messages from phases (printed with -v). */
  readonly info: readonly string[];
  /** Optimization remarks in emission order (deterministic: phases run in a fixed order). */
  readonly remarks: readonly Remark[];
}

const KB = 1024;
/** Rough bytes of one Ori instruction with its operands, for the Freeable column. */
const INSTR_BYTES = 160;

interface Slot {
  readonly index: number;
  readonly name: string;
  readonly owner: string;
  readonly impl: PhaseImpl | undefined;
  readonly gate: (typeof PHASE_TABLE)[number]['gate'];
  /** What the slot's implementation (and, for a hook, its handlers) require, establish and invalidate. */
  readonly props: Required<{ [K in keyof PhaseProperties]: readonly IrProperty[] }>;
}

const NO_PROPS = { requires: [], establishes: [], invalidates: [] } as const;
function mergeProps(...ps: Array<PhaseProperties | undefined>): Slot['props'] {
  const u = (k: keyof PhaseProperties): IrProperty[] => [...new Set(ps.flatMap((p) => p?.[k] ?? []))];
  return { requires: u('requires'), establishes: u('establishes'), invalidates: u('invalidates') };
}

/**
 * One compilation: resolved in a child container that holds the unit, knob values, analyses, diagnostics,
 * options and target. Runs the dispatch loop of the spec (sub_C64F70): for each phase index of the order,
 * skip when isNoOp, else execute, with statistics and instrumentation around it.
 */
@injectable()
export class Compilation {
  private readonly info: string[] = [];
  private readonly remarks: Remark[] = [];

  constructor(
    @inject(TOKENS.Registry) private readonly registry: PluginRegistry,
    @inject(TOKENS.Unit) private readonly unit: OriModule,
    @inject(TOKENS.KnobValues) private readonly knobs: KnobValues,
    @inject(TOKENS.Analyses) private readonly analyses: AnalysisManager,
    @inject(TOKENS.Diagnostics) private readonly diagnostics: DiagnosticSink,
    @inject(TOKENS.Options) private readonly options: ResolvedCompileOptions,
    @inject(TOKENS.Target) private readonly target: TargetView,
    @inject(TOKENS.Services) private readonly services: ServiceScope,
  ) {}

  /** Build the 159 slots for this compilation's arch: phase implementations, hook phases, placeholders. */
  private buildSlots(): Slot[] {
    const arch = this.options.arch;
    return PHASE_TABLE.map((p) => {
      const hookName = hookAt(p.index);
      if (hookName) {
        const handlers = this.registry.hookHandlers(hookName, arch);
        const owner = handlers.length ? [...new Set(handlers.map((h) => h.owner))].join('+') : 'hook (no handlers)';
        const props = mergeProps(...handlers.map((h) => h.props));
        return { index: p.index, name: p.name, owner, impl: hookPhase(hookName, handlers), gate: p.gate, props };
      }
      const b = this.registry.phaseFor(p.index, arch);
      if (b) {
        const impl = b.create();
        return { index: p.index, name: p.name, owner: b.owner, impl, gate: p.gate, props: mergeProps(b.props, impl) };
      }
      return { index: p.index, name: p.name, owner: 'placeholder', impl: undefined, gate: p.gate, props: NO_PROPS };
    });
  }

  /** Whether a slot is skipped before isNoOp is asked (the reason), or undefined when it is asked to run. */
  private staticSkip(slot: Slot): SkipReason | undefined {
    if (!slot.impl) return 'placeholder';
    if (!gateAllows(slot.gate, this.options.optLevel)) return 'opt-level';
    if (isPassDisabled(this.options.disablePasses, slot.name)) return 'disabled';
    return undefined;
  }

  /**
   * Walk the order with the properties that hold and refuse a chain in which a phase requires a property
   * no earlier phase established or one a later phase invalidated (PHASE_CHAIN_BROKEN, naming the phase,
   * its plugin, the property and who establishes it). A phase skipped as a no-op at run time still counts
   * as establishing: a no-op means its postcondition already holds.
   */
  private checkChain(slots: readonly Slot[], order: readonly PhaseStep[]): void {
    const have = new Map<IrProperty, string>(this.initialProperties.map((p) => [p, 'the input']));
    const lost = new Map<IrProperty, string>();
    for (const step of order) {
      const slot = slots[step.index]!;
      if (this.staticSkip(slot)) continue;
      for (const req of slot.props.requires) {
        if (have.has(req)) continue;
        const by = lost.get(req);
        const makers = slots.filter((s) => s.impl && s.props.establishes.includes(req)).map((s) => `${s.index} ${s.name} (${s.owner})`);
        const fix = by
          ? `phase ${by} invalidated it`
          : makers.length
            ? `it is established by ${makers.join(', ')}, which does not run before it in this pipeline`
            : `no installed phase establishes it; install a plugin that does for ${this.options.arch}`;
        throw new PtxforgeError('PHASE_CHAIN_BROKEN', `phase ${slot.index} ${slot.name} (${slot.owner}) requires ${req}, but ${fix}`, { plugin: slot.owner });
      }
      for (const p of slot.props.invalidates) {
        have.delete(p);
        lost.set(p, `${slot.index} ${slot.name} (${slot.owner})`);
      }
      for (const p of slot.props.establishes) {
        have.set(p, slot.name);
        lost.delete(p);
      }
    }
  }

  /**
   * After a phase that changed a function's CFG or deleted unreachable code: registers whose only definition
   * on some path went with the deleted or now unreachable code get an UNDEF at the entry, so that "every
   * use is reached by a definition" holds for the next phase and the verifier (reaching-defs.ts). The RPO it
   * needs stays cached for the next phase (inserting UNDEFs does not change the CFG).
   */
  private restoreReachingDefs(cfgBefore: readonly number[]): void {
    const fns = this.unit.functions;
    fns.forEach((fn, k) => {
      if (fn.blocks.length === 0) return;
      if (!fn.hasUnreachableDefs && fns.length === cfgBefore.length && cfgBefore[k] === fn.cfgVersion) return;
      restoreReachingDefs(fn, this.analyses.get(fn, RpoAnalysis));
    });
  }

  /** Properties the input already has (CompileOptions.properties). */
  private get initialProperties(): readonly IrProperty[] {
    return this.options.properties ?? [];
  }

  run(instrumentation: readonly Instrumentation[]): CompileResult {
    const slots = this.buildSlots();
    const order: PhaseStep[] = this.options.namedPhases
      ? parseNamedPhases(this.options.namedPhases, this.options.shuffleSeed)
      : defaultPhaseOrder();
    this.checkChain(slots, order);
    const props = new Set<IrProperty>(this.initialProperties);
    const records: PhaseRecord[] = [];
    const dumps: Array<{ index: number; phase: string; text: string }> = [];
    const statLines: string[] = [];
    const baseline = heapUsed();
    const t0 = performance.now();
    let peak = baseline;
    const ctxFor = (slot: Slot, param: string | undefined): PhaseContext => this.context(slot, param, props);

    const dumpSet = this.options.dumpIr === 'all' ? 'all' : new Set((this.options.dumpIr ?? []).map((s) => s.toLowerCase()));
    const pipelineCtx = ctxFor(slots[0]!, undefined);
    for (const ins of instrumentation) guarded(this.unit, ins.name, () => ins.beforePipeline?.(this.unit, pipelineCtx));

    for (const step of order) {
      const slot = slots[step.index]!;
      const base = { index: slot.index, name: slot.name, owner: slot.owner };
      const skip = this.staticSkip(slot);
      if (skip || !slot.impl) {
        records.push({ ...base, ran: false, skipped: skip ?? 'placeholder' });
        continue;
      }
      const ctx = ctxFor(slot, step.param);
      if (slot.impl.isNoOp?.(ctx)) {
        applyProps(props, slot);
        records.push({ ...base, ran: false, skipped: 'no-op' });
        continue;
      }
      const info: PhaseInfo = base;
      for (const ins of instrumentation) guarded(this.unit, ins.name, () => ins.beforePhase?.(info, this.unit, ctx));
      const v0 = irVersionSum(this.unit);
      const cfg0 = this.unit.functions.map((f) => f.cfgVersion);
      const n0 = instrCount(this.unit);
      const h0 = heapUsed();
      const p0 = performance.now();
      try {
        slot.impl.execute(ctx);
      } catch (e) {
        if (e instanceof PtxforgeError) throw e;
        throw new PtxforgeError('PHASE_FAILED', `phase ${slot.index} ${slot.name} (${slot.owner}) failed: ${(e as Error).message}`, {
          plugin: slot.owner,
          cause: e,
        });
      }
      const timeMs = performance.now() - p0;
      const h1 = heapUsed();
      peak = Math.max(peak, h1);
      const changed = irVersionSum(this.unit) !== v0;
      this.analyses.invalidate(undefined, changed ? (slot.impl.preserves ?? 'none') : 'all');
      if (changed) this.restoreReachingDefs(cfg0);
      applyProps(props, slot);
      if (this.options.verifyIr) {
        // Until a phase establishes ControlFlowLast (SetControlFlowOpLastInBB), a control-flow instruction
        // inside a block is legal input.
        // Machine state is checked against the arch's register file once PhysicalRegisters / ControlRecords hold.
        assertValidModule(this.unit, `after phase ${slot.index} ${slot.name}`, props.has('ControlFlowLast') ? [] : ['ORI_VERIFY_TERMINATOR'], {
          registerFile: this.services.tryService(RegisterFile),
          requirePhysical: props.has('PhysicalRegisters'),
          requireControl: props.has('ControlRecords'),
        });
      }
      const totalKB = Math.max(0, Math.round((h1 - h0) / KB));
      const freeableKB = Math.round((Math.max(0, n0 - instrCount(this.unit)) * INSTR_BYTES) / KB);
      records.push({ ...base, ran: true, changed, timeMs, totalKB, freeableKB });
      if (dumpSet === 'all' || dumpSet.has(slot.name.toLowerCase())) {
        dumps.push({ index: slot.index, phase: slot.name, text: printModule(this.unit) });
      }
      for (const ins of instrumentation) guarded(this.unit, ins.name, () => ins.afterPhase?.(info, this.unit, { changed, timeMs }, ctx));
    }
    for (const ins of instrumentation) guarded(this.unit, ins.name, () => ins.afterPipeline?.(this.unit, pipelineCtx));

    // Statistics in the spec's shape (sub_C64310): "<name> :: [Total N KB ] [Freeable N KB ] [Freeable Leaked
    // N KB ] (P%)", plus the phase time. Total is the JS heap growth during the phase, Freeable the estimated
    // size of the IR it removed, Leaked is always 0 (garbage collection frees everything unreferenced), and
    // P is the phase's share of the pipeline time.
    if (this.options.stats) {
      const total = performance.now() - t0;
      const pct = (ms: number): string => `(${total > 0 ? Math.round((100 * ms) / total) : 0}%)`;
      for (const r of records) {
        if (!r.ran) continue;
        statLines.push(
          `${r.name} :: [Total ${r.totalKB} KB ] [Freeable ${r.freeableKB} KB ] [Freeable Leaked 0 KB ] ${pct(r.timeMs!)} [Time ${r.timeMs!.toFixed(3)} ms ]`,
        );
      }
      const sumKB = records.reduce((s, r) => s + (r.totalKB ?? 0), 0);
      const sumFree = records.reduce((s, r) => s + (r.freeableKB ?? 0), 0);
      statLines.push(`All Phases Summary :: [Total ${sumKB} KB ] [Freeable ${sumFree} KB ] [Freeable Leaked 0 KB ] (100%) [Time ${total.toFixed(3)} ms ]`);
      statLines.push(`[Pool Consumption = ${Math.max(0, Math.round((peak - baseline) / KB))} KB]`);
    }
    return { module: this.unit, phases: records, diagnostics: this.diagnostics.all, statLines, dumps, info: this.info, remarks: this.remarks };
  }

  private context(slot: Slot, param: string | undefined, props: ReadonlySet<IrProperty>): PhaseContext {
    const { unit, target, options, knobs, analyses, diagnostics, info, remarks, services } = this;
    return {
      module: unit,
      target,
      optLevel: options.optLevel,
      phase: { index: slot.index, name: slot.name },
      phaseParam: param,
      knob: <T extends boolean | number | string>(name: string): T => knobs.get<T>(name),
      analysis: (fn, a) => analyses.get(fn, a),
      invalidate: (fn, preserved: Preserved = 'none') => analyses.invalidate(fn, preserved),
      isPassDisabled: (name) => isPassDisabled(options.disablePasses, name),
      diagnostics,
      info: (m) => info.push(m),
      remark: (r) => remarks.push({ ...r, phaseIndex: slot.index, phase: slot.name }),
      service: (token) => services.service(token),
      tryService: (token) => services.tryService(token),
      hasProperty: (p) => props.has(p),
    };
  }
}

function applyProps(props: Set<IrProperty>, slot: Slot): void {
  for (const p of slot.props.invalidates) props.delete(p);
  for (const p of slot.props.establishes) props.add(p);
}

/** A hook slot as a phase: no-op without handlers, else runs them in order (errors name plugin and hook). */
function hookPhase(name: HookName, handlers: ReadonlyArray<{ owner: string; fn: (ctx: PhaseContext) => void }>): PhaseImpl {
  return {
    isNoOp: () => handlers.length === 0,
    execute(ctx) {
      for (const h of handlers) {
        try {
          h.fn(ctx);
        } catch (e) {
          if (e instanceof PtxforgeError) throw e;
          throw new PtxforgeError('HOOK_FAILED', `hook ${name} of plugin ${h.owner} failed: ${(e as Error).message}`, { plugin: h.owner, cause: e });
        }
      }
    },
  };
}

function guarded(unit: OriModule, who: string, f: () => void): void {
  const v = irVersionSum(unit);
  f();
  if (irVersionSum(unit) !== v) {
    throw new PtxforgeError('INSTRUMENTATION_MUTATED_IR', `instrumentation ${who} changed the IR; instrumentation callbacks must treat the IR as read-only`);
  }
}

function irVersionSum(m: OriModule): number {
  let s = 0;
  for (const f of m.functions) s += f.irVersion;
  return s;
}
function instrCount(m: OriModule): number {
  let s = 0;
  for (const f of m.functions) s += f.instructionCount;
  return s;
}
function heapUsed(): number {
  // The same figure as process.memoryUsage().heapUsed, without the resident-set-size read that call also
  // makes (it showed up in profiles: two calls per phase).
  return getHeapStatistics().used_heap_size;
}
