import { PtxforgeError } from '../errors.js';
import { CORE_OPCODES, type OpcodeTable } from '../ir/opcodes.js';
import { KnobRegistry } from '../knobs.js';
import { HOOK_NAMES, HOOK_POINTS, isHookName, type HookFn, type HookHandler, type HookName } from '../pipeline/hooks.js';
import type { PhaseFactory, PhaseProperties } from '../pipeline/protocol.js';
import { PHASE_TABLE, phaseIndexOf } from '../pipeline/table.js';
import {
  checkApiRange, validateContributions, validateMeta, type Frontend, type PhaseContribution, type PluginDefinition, type PluginMeta,
} from '../plugin.js';
import type { ServiceEnv, ServiceProvision, ServiceToken } from '../services.js';
import type { TargetDescriptor } from '../target.js';
import { PLUGIN_API } from '../version.js';

/** Archs a contribution serves: a set, or '*' (every arch; below any contribution that names the arch). */
export type ArchScope = ReadonlySet<string> | '*';
/** Plugins a contribution takes over: by name, or '*' (`replace: true`: any other). */
export type ReplaceScope = ReadonlySet<string> | '*';

/** What competes for one (slot, arch) or (exclusive hook, arch) or (service, arch). */
export interface Contender {
  readonly owner: string;
  readonly archs: ArchScope;
  readonly replaces: ReplaceScope;
}

export interface PhaseBinding extends Contender {
  readonly create: PhaseFactory;
  readonly describe?: (env: ServiceEnv) => string | undefined;
  readonly props: PhaseProperties;
}
export interface HookBinding extends Contender {
  readonly fn: HookFn;
  readonly order: 'pre' | 'normal' | 'post';
  readonly props: PhaseProperties;
  /** Registration sequence number: plugin order among handlers of one `order`. */
  readonly seq: number;
}
/** One service provision as recorded: its owner, the archs ('*' = fallback for every arch), how to build it. */
export interface ServiceBinding extends Contender {
  readonly service: ServiceToken<unknown>;
  readonly provision: ServiceProvision;
  readonly replaces: ReadonlySet<string>;
}
export interface TargetBinding {
  readonly owner: string;
  readonly target: TargetDescriptor;
}

/**
 * Root-scope registry of everything the plugins contributed. Registering records; the first compilation
 * freezes it; after that, `use` throws with the fix (make another toolchain).
 */
export class PluginRegistry {
  readonly plugins: PluginMeta[] = [];
  /** Phase implementations by slot; several when they serve different archs or replace each other. */
  readonly phases = new Map<number, PhaseBinding[]>();
  readonly hooks = new Map<HookName, HookBinding[]>();
  readonly targets = new Map<string, TargetBinding>();
  readonly frontends = new Map<string, { owner: string; load: Frontend }>();
  /** Service provisions by service key, in no meaningful order (resolution does not depend on it). */
  readonly services = new Map<symbol, ServiceBinding[]>();
  readonly knobs = new KnobRegistry();
  private _opcodes: OpcodeTable = CORE_OPCODES;
  private frozen = false;
  private hookSeq = 0;

  /** `hostApi`: the plugin API this host implements (PLUGIN_API; a test may pass another). */
  constructor(readonly hostApi: string = PLUGIN_API) {}

  /** This toolchain's opcode table: the core ISA plus every registered plugin's opcodes. */
  get opcodes(): OpcodeTable {
    return this._opcodes;
  }

  get isFrozen(): boolean {
    return this.frozen;
  }
  freeze(): void {
    if (!this.frozen) this.checkOwnership();
    this.frozen = true;
  }

  use<O>(plugin: PluginDefinition<O>, options?: O): void {
    if (this.frozen) {
      throw new PtxforgeError(
        'TOOLCHAIN_FROZEN',
        `cannot add plugin ${plugin?.meta?.name ?? '?'}: this toolchain has already compiled and is frozen; ` +
          'pass every plugin to createToolchain({ plugins: [...] }) before the first compile, or create a new toolchain',
      );
    }
    if (!plugin || plugin.kind !== 'ptxforge-plugin') {
      throw new PtxforgeError('PLUGIN_INVALID', 'not a plugin: wrap the manifest with definePlugin(...) from @ptxforge/kernel');
    }
    const meta = validateMeta(plugin.meta);
    if (this.plugins.some((p) => p.name === meta.name)) {
      throw new PtxforgeError('PLUGIN_DUPLICATE', `plugin ${meta.name} is used twice in one toolchain`, { plugin: meta.name });
    }
    checkApiRange(meta, this.hostApi);
    let contributions: unknown;
    try {
      contributions = plugin.factory(options as O);
    } catch (e) {
      if (e instanceof PtxforgeError) throw e;
      throw new PtxforgeError('PLUGIN_FACTORY_FAILED', `plugin ${meta.name}: its factory threw: ${(e as Error).message}`, { plugin: meta.name, cause: e });
    }
    const c = validateContributions(contributions, meta.name);
    const owner = meta.name;

    // Validate everything first, then record, so that a refused plugin leaves nothing behind.
    const newPhases: Array<[number, PhaseBinding]> = [];
    for (const [name, p] of Object.entries(c.phases ?? {})) {
      const idx = phaseIndexOf(name);
      if (idx === undefined || PHASE_TABLE[idx]!.name !== name) {
        throw new PtxforgeError(
          'PHASE_UNKNOWN_SLOT',
          `plugin ${owner}: '${name}' is not a phase of the pipeline${idx !== undefined ? ` (did you mean ${PHASE_TABLE[idx]!.name}?)` : ''}`,
          { plugin: owner },
        );
      }
      if (isHookName(name)) {
        throw new PtxforgeError('PHASE_SLOT_IS_HOOK', `plugin ${owner}: ${name} is an AdvancedPhase hook point; give it under 'hooks', not 'phases'`, { plugin: owner });
      }
      newPhases.push([idx, phaseBinding(owner, p, '*')]);
    }
    const newHooks: Array<[HookName, HookBinding]> = [];
    for (const [name, h] of Object.entries(c.hooks ?? {})) {
      if (!isHookName(name)) {
        throw new PtxforgeError('HOOK_UNKNOWN', `plugin ${owner}: '${name}' is not an AdvancedPhase hook (known: ${Object.keys(HOOK_POINTS).join(', ')})`, { plugin: owner });
      }
      newHooks.push([name, this.hookBinding(owner, name, h as HookHandler, '*')]);
    }
    for (const t of c.targets ?? []) {
      for (const a of t.archs) {
        const prev = this.targets.get(a);
        if (prev) {
          throw new PtxforgeError('TARGET_ARCH_OVERLAP', `targets ${prev.target.id} (${prev.owner}) and ${t.id} (${owner}) both claim ${a}`, { plugin: owner });
        }
      }
      // A target's hooks and phases are contributions of its plugin for the target's archs: any slot.
      const own = new Set(t.archs);
      for (const [name, h] of Object.entries(t.hooks ?? {})) {
        if (!isHookName(name)) throw new PtxforgeError('HOOK_UNKNOWN', `target ${t.id} of ${owner}: '${name}' is not an AdvancedPhase hook`, { plugin: owner });
        newHooks.push([name, this.hookBinding(owner, name, h as HookHandler, own)]);
      }
      for (const [name, f] of Object.entries(t.phases ?? {})) {
        const idx = phaseIndexOf(name);
        if (idx === undefined || PHASE_TABLE[idx]!.name !== name || isHookName(name)) {
          throw new PtxforgeError('PHASE_UNKNOWN_SLOT', `target ${t.id} of ${owner}: '${name}' is not a phase slot of the pipeline (hooks go under 'hooks')`, { plugin: owner });
        }
        newPhases.push([idx, phaseBinding(owner, f, own)]);
      }
    }
    for (const k of c.knobs ?? []) {
      const prev = this.knobs.get(k.name);
      if (prev) throw new PtxforgeError('KNOB_NAME_COLLISION', `knob ${k.name} is registered by both ${prev.owner} and ${owner}`, { plugin: owner });
    }
    for (const ext of Object.keys(c.frontends ?? {})) {
      const prev = this.frontends.get(ext);
      if (prev) throw new PtxforgeError('FRONTEND_CONFLICT', `plugins ${prev.owner} and ${owner} both read ${ext} files`, { plugin: owner });
    }
    let opcodes = this._opcodes;
    try {
      if (c.opcodes?.length) opcodes = this._opcodes.extend(c.opcodes);
    } catch (e) {
      throw new PtxforgeError((e as PtxforgeError).code ?? 'OPCODE_CONFLICT', `plugin ${owner}: ${(e as Error).message}`, { plugin: owner });
    }

    const newServices: ServiceBinding[] = [];
    for (const sp of c.services ?? []) {
      const archs = sp.archs === '*' ? '*' : new Set(sp.archs);
      for (const prev of newServices) {
        if (prev.service.key !== sp.service.key) continue;
        const overlap = prev.archs === '*' || archs === '*' ? (prev.archs === archs ? '*' : undefined) : [...archs].find((a) => (prev.archs as Set<string>).has(a));
        if (overlap) {
          throw new PtxforgeError('SERVICE_CONFLICT', `plugin ${owner} provides ${sp.service.name} twice for ${overlap}`, { plugin: owner });
        }
      }
      const replaces = new Set(typeof sp.replaces === 'string' ? [sp.replaces] : (sp.replaces ?? []));
      if (replaces.has(owner)) throw new PtxforgeError('PLUGIN_MANIFEST_INVALID', `plugin ${owner}: service ${sp.service.name} cannot replace its own plugin`, { plugin: owner });
      newServices.push({ owner, service: sp.service, archs, provision: sp, replaces });
    }

    this.plugins.push(meta);
    for (const b of newServices) this.services.set(b.service.key, [...(this.services.get(b.service.key) ?? []), b]);
    for (const [idx, b] of newPhases) this.phases.set(idx, [...(this.phases.get(idx) ?? []), b]);
    for (const [name, b] of newHooks) this.hooks.set(name, [...(this.hooks.get(name) ?? []), b]);
    for (const t of c.targets ?? []) for (const a of t.archs) this.targets.set(a, { owner, target: t });
    for (const k of c.knobs ?? []) this.knobs.register({ ...k, owner });
    this._opcodes = opcodes;
    for (const [ext, load] of Object.entries(c.frontends ?? {})) this.frontends.set(ext, { owner, load });
  }

  /**
   * The provider of a service for one arch, or undefined. Providers naming the arch win over '*' providers;
   * among those, a provider replaced (by plugin name) by another candidate drops out; more than one left is
   * SERVICE_CONFLICT naming them. The answer does not depend on the order plugins were registered in.
   */
  resolveService(service: ServiceToken<unknown>, arch: string): ServiceBinding | undefined {
    return pickOwner(this.services.get(service.key) ?? [], arch, (names, why) =>
      new PtxforgeError(
        'SERVICE_CONFLICT',
        why === 'cycle'
          ? `${service.name} for ${arch}: plugins ${names.join(', ')} replace each other; exactly one may replace the others`
          : `${service.name} for ${arch} is provided by both ${names.join(' and ')}; one of them must declare replaces: '${names[0]}' (or the other) to take it`,
        { plugin: names[names.length - 1] },
      ),
    );
  }

  /** Every service key that has a provider for `arch` (for the compilation container). */
  servicesFor(arch: string): ServiceBinding[] {
    const out: ServiceBinding[] = [];
    for (const list of this.services.values()) {
      const b = this.resolveService(list[0]!.service, arch);
      if (b) out.push(b);
    }
    return out;
  }

  /**
   * The implementation of a phase slot for an arch (undefined: nobody fills it). See pickOwner;
   * PHASE_SLOT_CONFLICT names both plugins.
   */
  phaseFor(index: number, arch: string): PhaseBinding | undefined {
    return pickOwner(this.phases.get(index) ?? [], arch, (names, why) =>
      new PtxforgeError(
        'PHASE_SLOT_CONFLICT',
        why === 'cycle'
          ? `phase ${index} ${PHASE_TABLE[index]!.name}${archText(arch)}: plugins ${names.join(', ')} replace each other; exactly one may replace the others`
          : `plugins ${names.join(' and ')} both implement phase ${index} ${PHASE_TABLE[index]!.name}${archText(arch)}; ` +
            `set { replaces: '${names[0]}' } in ${names[names.length - 1]} (or give them disjoint archs) to choose one`,
        { plugin: names[names.length - 1] },
      ),
    );
  }

  /**
   * Hook handlers for a compilation for `arch`: a sequential hook's handlers that serve the arch, less those
   * another replaces by name, sorted pre/normal/post then plugin order; an exclusive hook's one owner.
   */
  hookHandlers(name: HookName, arch: string): HookBinding[] {
    const all = this.hooks.get(name) ?? [];
    if (HOOK_POINTS[name].kind === 'exclusive') {
      const b = pickOwner(all, arch, (names, why) =>
        new PtxforgeError(
          'HOOK_EXCLUSIVE_CONFLICT',
          why === 'cycle'
            ? `exclusive hook ${name}${archText(arch)}: plugins ${names.join(', ')} replace each other; exactly one may replace the others`
            : `exclusive hook ${name} has one owner per arch, but plugins ${names.join(' and ')} both handle it${archText(arch)}; ` +
              `set { replaces: '${names[0]}' } in the handler of ${names[names.length - 1]} (or give them disjoint archs)`,
          { plugin: names[names.length - 1] },
        ),
      );
      return b ? [b] : [];
    }
    const cands = all.filter((b) => serves(b.archs, arch));
    const live = cands.filter((b) => !cands.some((o) => o !== b && replacesOwner(o, b)));
    const rank = { pre: 0, normal: 1, post: 2 } as const;
    return live.sort((x, y) => rank[x.order] - rank[y.order] || x.seq - y.seq);
  }

  /** Archs anything is registered for (targets and arch-scoped contributions). */
  knownArchs(): string[] {
    const out = new Set<string>(this.targets.keys());
    for (const list of [...this.phases.values(), ...this.hooks.values()]) {
      for (const b of list) if (b.archs !== '*') for (const a of b.archs) out.add(a);
    }
    return [...out].sort();
  }

  /**
   * Check that every phase slot and exclusive hook has at most one owner for every arch anything is
   * registered for (and for archs nobody names). Called when the toolchain's plugin list is complete, so
   * the verdict does not depend on the order plugins were given in.
   */
  checkOwnership(): void {
    const archs = [ANY_ARCH, ...this.knownArchs()];
    for (const idx of [...this.phases.keys()].sort((a, b) => a - b)) for (const a of archs) this.phaseFor(idx, a);
    for (const name of HOOK_NAMES) {
      if (HOOK_POINTS[name].kind !== 'exclusive' || !this.hooks.has(name)) continue;
      for (const a of archs) this.hookHandlers(name, a);
    }
  }

  private hookBinding(owner: string, name: string, h: HookHandler, archs: ArchScope): HookBinding {
    if (typeof h === 'function') return { owner, fn: h, order: 'normal', archs, replaces: new Set(), props: {}, seq: this.hookSeq++ };
    if (!h || typeof h.handler !== 'function') {
      throw new PtxforgeError('PLUGIN_MANIFEST_INVALID', `plugin ${owner}: hook ${name} needs a handler function`, { plugin: owner });
    }
    const own = h.archs ? narrow(archs, h.archs, owner, `hook ${name}`) : archs;
    return {
      owner, fn: h.handler, order: h.order ?? 'normal', archs: own, replaces: replaceSet(owner, h.replaces, `hook ${name}`),
      props: { requires: h.requires, establishes: h.establishes, invalidates: h.invalidates }, seq: this.hookSeq++,
    };
  }
}

/** A pseudo arch that only every-arch ('*') contributions serve: checks conflicts nobody names an arch for. */
export const ANY_ARCH = '*';
function archText(arch: string): string {
  return arch === ANY_ARCH ? ' for every arch' : ` for ${arch}`;
}
function serves(archs: ArchScope, arch: string): boolean {
  return archs === '*' || archs.has(arch);
}
function replacesOwner(by: Contender, b: Contender): boolean {
  return by.owner !== b.owner && (by.replaces === '*' || by.replaces.has(b.owner));
}

/**
 * The one owner of a (slot | exclusive hook | service, arch): among the contenders serving the arch, drop
 * those another contender replaces (by plugin name, or '*'); of the rest, one naming the arch wins over
 * every-arch ones; more than one left is a conflict naming them (sorted, so the message does not depend on
 * registration order either).
 */
export function pickOwner<T extends Contender>(
  all: readonly T[],
  arch: string,
  conflict: (owners: string[], why: 'both' | 'cycle') => PtxforgeError,
): T | undefined {
  const cands = arch === ANY_ARCH ? all.filter((b) => b.archs === '*') : all.filter((b) => serves(b.archs, arch));
  if (cands.length <= 1) return cands[0];
  const live = cands.filter((b) => !cands.some((o) => o !== b && replacesOwner(o, b)));
  if (live.length === 0) throw conflict([...new Set(cands.map((b) => b.owner))].sort(), 'cycle');
  const named = live.filter((b) => b.archs !== '*');
  const tier = named.length ? named : live;
  if (tier.length === 1) return tier[0];
  throw conflict([...new Set(tier.map((b) => b.owner))].sort(), 'both');
}

function replaceSet(owner: string, r: string | readonly string[] | undefined, what: string): Set<string> {
  const set = new Set(typeof r === 'string' ? [r] : (r ?? []));
  if (set.has(owner)) throw new PtxforgeError('PLUGIN_MANIFEST_INVALID', `plugin ${owner}: ${what} cannot replace its own plugin`, { plugin: owner });
  return set;
}

/** A contribution's own `archs` within the scope it comes from (a target's hooks stay within its archs). */
function narrow(scope: ArchScope, archs: readonly string[], owner: string, what: string): ArchScope {
  if (scope === '*') return new Set(archs);
  const outside = archs.filter((a) => !scope.has(a));
  if (outside.length) {
    throw new PtxforgeError('PLUGIN_MANIFEST_INVALID', `plugin ${owner}: ${what} names ${outside.join(', ')}, which its target does not serve`, { plugin: owner });
  }
  return new Set(archs);
}

function phaseBinding(owner: string, p: PhaseContribution | PhaseFactory, scope: ArchScope): PhaseBinding {
  if (typeof p === 'function') return { owner, create: p, archs: scope, replaces: new Set(), props: {} };
  const what = 'phase';
  return {
    owner,
    create: p.create,
    describe: p.describe,
    archs: p.archs ? narrow(scope, p.archs, owner, what) : scope,
    replaces: p.replace ? '*' : replaceSet(owner, p.replaces, what),
    props: { requires: p.requires, establishes: p.establishes, invalidates: p.invalidates },
  };
}
