import 'reflect-metadata';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { AnalysisManager } from '../analysis/manager.js';
import { PtxforgeError } from '../errors.js';
import type { OriModule } from '../ir/core.js';
import { CORE_OPCODES } from '../ir/opcodes.js';
import { parseOri } from '../ir/parse.js';
import { KnobValues } from '../knobs.js';
import { hookAt } from '../pipeline/hooks.js';
import type { Diagnostic, DiagnosticSink } from '../pipeline/protocol.js';
import { PHASE_TABLE, phaseIndexOf } from '../pipeline/table.js';
import type { PluginDefinition } from '../plugin.js';
import { capabilitiesFor, KNOWN_ARCHS, NOT_YET_SUPPORTED_ARCHS, smNumber, type TargetView } from '../target.js';
import { Compilation, type CompileResult } from './compilation.js';
import type { CompileOptions, ResolvedCompileOptions } from './options.js';
import { ANY_ARCH, PluginRegistry, type TargetBinding } from './registry.js';
import { ServiceScope } from './service-scope.js';
import { TOKENS } from './tokens.js';

/** A plugin, or a plugin with its options. */
export type PluginEntry = PluginDefinition<any> | readonly [PluginDefinition<any>, unknown]; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface ToolchainConfig {
  plugins: readonly PluginEntry[];
}

/** Input of a compilation: Ori IR in memory, or source text whose file extension picks the front end. */
export type CompileInput = OriModule | { readonly text: string; readonly file: string };

export interface PhaseListRow {
  readonly index: number;
  readonly name: string;
  /** Implementing package, hook handler owners, or 'placeholder'. */
  readonly owner: string;
  readonly gate: string;
  readonly note?: string;
}

class CollectingDiagnostics implements DiagnosticSink {
  readonly all: Diagnostic[] = [];
  report(d: Diagnostic): void {
    this.all.push(d);
  }
}

/**
 * A composed compiler. The root DI container (a child of tsyringe's global one, so toolchains never share
 * state) holds the plugin registry; every compile gets its own child container, disposed at the end.
 */
export class Toolchain {
  private readonly root: DependencyContainer;
  readonly registry: PluginRegistry;

  constructor(config: ToolchainConfig) {
    this.root = rootContainer.createChildContainer();
    this.registry = new PluginRegistry();
    this.root.register(TOKENS.Registry, { useValue: this.registry });
    this.root.register(TOKENS.KnobRegistry, { useValue: this.registry.knobs });
    for (const p of config.plugins) this.use(p);
    // The plugin list is complete: one owner per (slot, arch) and (exclusive hook, arch), whatever the order.
    this.registry.checkOwnership();
  }

  /** Add a plugin (only before the first compilation). */
  use(entry: PluginEntry): this {
    if (Array.isArray(entry)) this.registry.use(entry[0] as PluginDefinition<unknown>, entry[1]);
    else this.registry.use(entry as PluginDefinition<unknown>);
    return this;
  }

  /** The target binding for an -arch, or a coded error that says which package to install. */
  resolveTarget(arch: string): TargetBinding {
    const b = this.registry.targets.get(arch);
    if (b) return b;
    const installed = this.installedTargets();
    const have = installed.length ? ` (installed: ${installed.join('; ')})` : ' (no target is installed)';
    const pkg = KNOWN_ARCHS.get(arch);
    if (pkg) {
      throw new PtxforgeError('TARGET_NOT_INSTALLED', `no installed target serves ${arch}; install ${pkg} and add it to the toolchain${have}`);
    }
    const family = NOT_YET_SUPPORTED_ARCHS.get(arch);
    if (family) {
      throw new PtxforgeError('TARGET_NOT_SUPPORTED', `${arch} (${family}) is not supported yet: no ptxforge target package encodes it${have}`);
    }
    throw new PtxforgeError('TARGET_UNKNOWN_ARCH', `unknown GPU architecture '${arch}'${have}`);
  }

  /** The installed targets, `package: arch, arch ...` each (for listings and errors). */
  installedTargets(): string[] {
    const byOwner = new Map<string, string[]>();
    for (const [arch, b] of this.registry.targets) byOwner.set(b.owner, [...(byOwner.get(b.owner) ?? []), arch]);
    return [...byOwner].map(([owner, archs]) => `${owner}: ${archs.join(', ')}`);
  }

  /**
   * The services a compilation for `arch` would see, outside a compilation (for tools: listings,
   * disassemblers). Factories run on each call of `service`; phases use `ctx.service` instead.
   */
  services(arch: string): ServiceScope {
    this.registry.freeze();
    return new ServiceScope(this.root.createChildContainer(), this.registry, arch, this.targetView(this.resolveTarget(arch), arch));
  }

  /** The read-only target view phases get for an arch. */
  targetView(binding: TargetBinding, arch: string): TargetView {
    const t = binding.target;
    return Object.freeze({ id: t.id, family: t.family, arch, sm: smNumber(arch) ?? 0, capabilities: capabilitiesFor(t, arch) });
  }

  /** Parse source text with the front end for its extension (`.ori` is built in). */
  load(text: string, file: string, target?: TargetView, options: { relocatable?: boolean } = {}): OriModule {
    const ext = /\.[^./\\]+$/.exec(file)?.[0]?.toLowerCase() ?? '';
    if (ext === '.ori') return parseOri(text, { file, opcodes: this.registry.opcodes });
    const fe = this.registry.frontends.get(ext);
    if (!fe) {
      const have = ['.ori', ...this.registry.frontends.keys()].join(', ');
      throw new PtxforgeError('INPUT_UNSUPPORTED', `no front end reads '${ext || file}' files (this toolchain reads ${have})`, {
        pos: { file, line: 1, col: 1 },
      });
    }
    if (!target) throw new PtxforgeError('INPUT_NEEDS_TARGET', `reading ${file} needs the target (-arch) to be known`);
    const m = fe.load(text, file, { target, opcodes: this.registry.opcodes, ...(options.relocatable ? { relocatable: true } : {}) });
    if (m.opcodes !== this.registry.opcodes) m.setOpcodes(this.registry.opcodes);
    return m;
  }

  compile(input: CompileInput, options: CompileOptions): CompileResult {
    this.registry.freeze();
    const optLevel = options.optLevel ?? 3;
    if (!Number.isInteger(optLevel) || optLevel < 0 || optLevel > 4) {
      throw new PtxforgeError('OPT_LEVEL_INVALID', `optimization level must be 0..4, got ${options.optLevel}`);
    }
    if (Array.isArray(options.dumpIr)) {
      for (const name of options.dumpIr as readonly string[]) {
        if (phaseIndexOf(name) === undefined) {
          throw new PtxforgeError('DUMP_IR_UNKNOWN_PHASE', `--dump-ir: no phase is named '${name}' (--list-phases lists the 159 phase names; 'all' dumps after every phase)`);
        }
      }
    }
    const binding = this.resolveTarget(options.arch);
    const resolved: ResolvedCompileOptions = {
      arch: options.arch,
      optLevel,
      namedPhases: options.namedPhases,
      shuffleSeed: options.shuffleSeed ?? 0,
      disablePasses: options.disablePasses ?? '',
      stats: !!options.stats,
      verifyIr: !!options.verifyIr,
      dumpIr: options.dumpIr,
      properties: options.properties ?? [],
    };
    const knobs = new KnobValues(this.registry.knobs);
    if (Array.isArray(options.knobs)) {
      for (const k of options.knobs as ReadonlyArray<{ name: string; value: string; where?: string }>) knobs.set(k.name, k.value, k.where);
    } else {
      for (const [k, v] of Object.entries(options.knobs ?? {})) knobs.set(k, v as string);
    }
    const view = this.targetView(binding, options.arch);
    const unit = 'text' in input ? this.load(input.text, input.file, view, { relocatable: !!options.relocatable }) : input;
    // A module built in memory with the core ISA is read with this toolchain's opcodes (core + plugins).
    if (unit.opcodes === CORE_OPCODES && this.registry.opcodes !== CORE_OPCODES) unit.setOpcodes(this.registry.opcodes);
    const child = this.root.createChildContainer();
    try {
      child.register(TOKENS.Unit, { useValue: unit });
      child.register(TOKENS.KnobValues, { useValue: knobs });
      child.register(TOKENS.Analyses, { useValue: new AnalysisManager() });
      child.register(TOKENS.Diagnostics, { useValue: new CollectingDiagnostics() });
      child.register(TOKENS.Options, { useValue: resolved });
      child.register(TOKENS.Target, { useValue: view });
      child.register(TOKENS.Services, { useValue: new ServiceScope(child, this.registry, options.arch, view) });
      const compilation = child.resolve(Compilation);
      return compilation.run(options.instrumentation ?? []);
    } finally {
      void child.dispose();
    }
  }

  /**
   * The 159 rows of --list-phases: index, spec name, owner or `placeholder`. With an -arch, the owners that
   * compilation would use; without, every-arch owners, else the arch-specific owners with their archs.
   */
  listPhases(arch?: string): PhaseListRow[] {
    if (arch) this.resolveTarget(arch);
    const env = arch ? this.services(arch) : undefined;
    const a = arch ?? ANY_ARCH;
    return PHASE_TABLE.map((p) => {
      const hook = hookAt(p.index);
      if (hook) {
        let owners = [...new Set(this.registry.hookHandlers(hook, a).map((h) => h.owner))];
        if (!arch && owners.length === 0) owners = scopedOwners(this.registry.hooks.get(hook) ?? []);
        return { index: p.index, name: p.name, owner: owners.length ? owners.join('+') : 'hook (no handlers)', gate: p.gate };
      }
      const b = this.registry.phaseFor(p.index, a);
      if (b) {
        const row: PhaseListRow = { index: p.index, name: p.name, owner: b.owner, gate: p.gate };
        const note = env && b.describe?.(env);
        return note ? { ...row, note } : row;
      }
      const scoped = arch ? [] : scopedOwners(this.registry.phases.get(p.index) ?? []);
      return { index: p.index, name: p.name, owner: scoped.length ? scoped.join('+') : 'placeholder', gate: p.gate };
    });
  }
}

/** `owner(sm_50,sm_52)` for arch-scoped contributions (a listing without -arch). */
function scopedOwners(list: ReadonlyArray<{ owner: string; archs: ReadonlySet<string> | '*' }>): string[] {
  return list.filter((b) => b.archs !== '*').map((b) => `${b.owner}(${[...(b.archs as ReadonlySet<string>)].join(',')})`);
}

export function createToolchain(config: ToolchainConfig): Toolchain {
  return new Toolchain(config);
}
