import { PtxforgeError } from '../errors.js';
import { checkOpcodes, defineOpcodes } from '../ir/opcodes.js';
import { KnobRegistry } from '../knobs.js';
import { HOOK_POINTS, isHookName, type HookFn, type HookHandler, type HookName } from '../pipeline/hooks.js';
import type { PhaseFactory } from '../pipeline/protocol.js';
import { PHASE_TABLE, phaseIndexOf } from '../pipeline/table.js';
import {
  checkApiRange, validateContributions, validateMeta, type Frontend, type PluginDefinition, type PluginMeta,
} from '../plugin.js';
import type { ServiceEnv, ServiceProvision, ServiceToken } from '../services.js';
import type { TargetDescriptor } from '../target.js';
import { PLUGIN_API } from '../version.js';

export interface PhaseBinding {
  readonly owner: string;
  readonly create: PhaseFactory;
  readonly describe?: (env: ServiceEnv) => string | undefined;
}
export interface HookBinding {
  readonly owner: string;
  readonly fn: HookFn;
  readonly order: 'pre' | 'normal' | 'post';
}
/** One service provision as recorded: its owner, the archs ('*' = fallback for every arch), how to build it. */
export interface ServiceBinding {
  readonly owner: string;
  readonly service: ServiceToken<unknown>;
  readonly archs: ReadonlySet<string> | '*';
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
  readonly phases = new Map<number, PhaseBinding>();
  readonly hooks = new Map<HookName, HookBinding[]>();
  readonly targets = new Map<string, TargetBinding>();
  readonly frontends = new Map<string, { owner: string; load: Frontend }>();
  /** Service provisions by service key, in no meaningful order (resolution does not depend on it). */
  readonly services = new Map<symbol, ServiceBinding[]>();
  readonly knobs = new KnobRegistry();
  private frozen = false;

  /** `hostApi`: the plugin API this host implements (PLUGIN_API; a test may pass another). */
  constructor(readonly hostApi: string = PLUGIN_API) {}

  get isFrozen(): boolean {
    return this.frozen;
  }
  freeze(): void {
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
      const replace = typeof p === 'object' && !!p.replace;
      const prev = this.phases.get(idx);
      if (prev && !replace) {
        throw new PtxforgeError(
          'PHASE_SLOT_CONFLICT',
          `plugins ${prev.owner} and ${owner} both implement phase ${idx} ${name}; set { replace: true } in ${owner} to take the slot`,
          { plugin: owner },
        );
      }
      newPhases.push([idx, typeof p === 'function' ? { owner, create: p } : { owner, create: p.create, describe: p.describe }]);
    }
    const newHooks: Array<[HookName, HookBinding]> = [];
    for (const [name, h] of Object.entries(c.hooks ?? {})) {
      if (!isHookName(name)) {
        throw new PtxforgeError('HOOK_UNKNOWN', `plugin ${owner}: '${name}' is not an AdvancedPhase hook (known: ${Object.keys(HOOK_POINTS).join(', ')})`, { plugin: owner });
      }
      newHooks.push([name, hookBinding(owner, name, h as HookHandler)]);
    }
    for (const t of c.targets ?? []) {
      for (const a of t.archs) {
        const prev = this.targets.get(a);
        if (prev) {
          throw new PtxforgeError('TARGET_ARCH_OVERLAP', `targets ${prev.target.id} (${prev.owner}) and ${t.id} (${owner}) both claim ${a}`, { plugin: owner });
        }
      }
      for (const [name, h] of Object.entries(t.hooks ?? {})) {
        if (!isHookName(name)) throw new PtxforgeError('HOOK_UNKNOWN', `target ${t.id} of ${owner}: '${name}' is not an AdvancedPhase hook`, { plugin: owner });
        hookBinding(owner, name, h as HookHandler);
      }
      for (const name of Object.keys(t.phases ?? {})) {
        const idx = phaseIndexOf(name);
        if (idx === undefined || idx < 139) {
          throw new PtxforgeError('PHASE_UNKNOWN_SLOT', `target ${t.id} of ${owner}: targets fill only the arch-specific slots ArchSpecificPhase139..158, not '${name}'`, { plugin: owner });
        }
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
    try {
      checkOpcodes(c.opcodes ?? []);
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
    for (const [idx, b] of newPhases) this.phases.set(idx, b);
    for (const [name, b] of newHooks) this.hooks.set(name, [...(this.hooks.get(name) ?? []), b]);
    for (const t of c.targets ?? []) for (const a of t.archs) this.targets.set(a, { owner, target: t });
    for (const k of c.knobs ?? []) this.knobs.register({ ...k, owner });
    defineOpcodes(c.opcodes ?? []);
    for (const [ext, load] of Object.entries(c.frontends ?? {})) this.frontends.set(ext, { owner, load });
  }

  /**
   * The provider of a service for one arch, or undefined. Providers naming the arch win over '*' providers;
   * among those, a provider replaced (by plugin name) by another candidate drops out; more than one left is
   * SERVICE_CONFLICT naming them. The answer does not depend on the order plugins were registered in.
   */
  resolveService(service: ServiceToken<unknown>, arch: string): ServiceBinding | undefined {
    const all = this.services.get(service.key) ?? [];
    let tier = all.filter((b) => b.archs !== '*' && b.archs.has(arch));
    if (tier.length === 0) tier = all.filter((b) => b.archs === '*');
    if (tier.length <= 1) return tier[0];
    const winners = tier.filter((b) => !tier.some((o) => o !== b && o.replaces.has(b.owner)));
    if (winners.length === 1) return winners[0];
    const names = (winners.length ? winners : tier).map((b) => b.owner).sort();
    if (winners.length === 0) {
      throw new PtxforgeError('SERVICE_CONFLICT', `${service.name} for ${arch}: plugins ${names.join(', ')} replace each other; exactly one may replace the others`);
    }
    throw new PtxforgeError(
      'SERVICE_CONFLICT',
      `${service.name} for ${arch} is provided by both ${names.join(' and ')}; one of them must declare replaces: '${names[0]}' (or the other) to take it`,
      { plugin: names[names.length - 1] },
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

  /** Hook handlers for a compilation: plugin handlers plus the selected target's, sorted pre/normal/post. */
  hookHandlers(name: HookName, target: TargetBinding | undefined): HookBinding[] {
    const list = [...(this.hooks.get(name) ?? [])];
    const th = target?.target.hooks?.[name];
    if (th && target) list.push(hookBinding(target.owner, name, th));
    const rank = { pre: 0, normal: 1, post: 2 } as const;
    return list.map((b, k) => ({ b, k })).sort((x, y) => rank[x.b.order] - rank[y.b.order] || x.k - y.k).map((x) => x.b);
  }
}

function hookBinding(owner: string, name: string, h: HookHandler): HookBinding {
  if (typeof h === 'function') return { owner, fn: h, order: 'normal' };
  if (!h || typeof h.handler !== 'function') {
    throw new PtxforgeError('PLUGIN_MANIFEST_INVALID', `plugin ${owner}: hook ${name} needs a handler function`, { plugin: owner });
  }
  if (h.order !== undefined && h.order !== 'pre' && h.order !== 'post') {
    throw new PtxforgeError('PLUGIN_MANIFEST_INVALID', `plugin ${owner}: hook ${name} order must be 'pre' or 'post'`, { plugin: owner });
  }
  return { owner, fn: h.handler, order: h.order ?? 'normal' };
}
