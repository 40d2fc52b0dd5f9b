import semver from 'semver';
import { PtxforgeError } from './errors.js';
import type { OriModule } from './ir/core.js';
import type { OpcodeInfo, OpcodeTable } from './ir/opcodes.js';
import { checkKnobRange, type KnobDef } from './knobs.js';
import type { HookHandlerSpec, HookHandlers } from './pipeline/hooks.js';
import type { PhaseFactory, PhaseProperties } from './pipeline/protocol.js';
import { isServiceToken, type ServiceEnv, type ServiceProvision } from './services.js';
import type { TargetDescriptor, TargetView } from './target.js';

export interface PluginMeta {
  /** npm package name, e.g. `@ptxforge/plugin-branch`. */
  readonly name: string;
  readonly version: string;
  /**
   * Semver range of the plugin API (the kernel's PLUGIN_API, not its package version) this plugin works
   * with, e.g. `^1.0.0`. Releasing the kernel does not change the API, so plugins keep loading.
   */
  readonly api: string;
  readonly description?: string;
}

/**
 * A phase contribution: a factory, or a factory with options:
 * - `archs`: the archs it fills the slot for (default every arch; ownership is per (slot, arch), so an sm_50
 *   and an sm_90 implementation of one slot install side by side; an arch-specific one wins over an
 *   every-arch one);
 * - `replaces`: plugins (by name) whose implementation of this slot it takes over; `replace: true` takes it
 *   from any other. Either way the winner does not depend on the order plugins are registered in;
 * - `requires` / `establishes` / `invalidates`: IR properties (the host checks the chain);
 * - `describe`: a note for --list-phases about the selected arch (e.g. which service it calls).
 */
export interface PhaseContributionSpec extends PhaseProperties {
  readonly create: PhaseFactory;
  readonly archs?: readonly string[];
  readonly replace?: boolean;
  readonly replaces?: string | readonly string[];
  readonly describe?: (env: ServiceEnv) => string | undefined;
}
export type PhaseContribution = PhaseFactory | PhaseContributionSpec;

/** What a front end is told about the compilation it reads for. */
export interface FrontendOptions {
  /** The selected target (the front end places kernel parameters at its capabilities.paramBase). */
  readonly target: TargetView;
  /** The toolchain's opcode table (core ISA + plugins' opcodes); the host also sets it on the module. */
  readonly opcodes?: OpcodeTable;
  /** Relocatable compilation (ptxas `-c`): functions declared `.extern` may be left for the linker. */
  readonly relocatable?: boolean;
}
/** A front end turns a source file into Ori (the PTX front end registers `.ptx`). */
export type Frontend = (text: string, file: string, options: FrontendOptions) => OriModule;

/** What a plugin adds to a toolchain. Keys are validated; an unknown key is an error. */
export interface PluginContributions {
  /** Pipeline phases by spec name (e.g. `OriBranchOpt`). */
  readonly phases?: Readonly<Record<string, PhaseContribution>>;
  /** AdvancedPhase hook handlers. */
  readonly hooks?: HookHandlers;
  readonly knobs?: readonly KnobDef[];
  readonly targets?: readonly TargetDescriptor[];
  readonly opcodes?: readonly OpcodeInfo[];
  /** Input front ends by file extension (`.ptx`). */
  readonly frontends?: Readonly<Record<string, Frontend>>;
  /** Target-scoped services this plugin provides (`provide(Encoder, { archs: ['sm_90'], useValue })`). */
  readonly services?: readonly ServiceProvision[];
}

export interface PluginDefinition<O = void> {
  readonly kind: 'ptxforge-plugin';
  readonly meta: PluginMeta;
  readonly factory: (options: O) => PluginContributions;
}

/**
 * Declare a plugin: its metadata (with the kernel range it supports) and a factory that returns its
 * contributions for the given options. The host checks the range before calling the factory.
 */
export function definePlugin<O = void>(
  meta: PluginMeta,
  factory: ((options: O) => PluginContributions) | PluginContributions,
): PluginDefinition<O> {
  return Object.freeze({
    kind: 'ptxforge-plugin' as const,
    meta: Object.freeze({ ...meta }),
    factory: typeof factory === 'function' ? factory : () => factory,
  });
}

type Check = (v: unknown) => string | undefined;
interface FieldRule {
  readonly required: boolean;
  readonly check: Check;
}
const str: Check = (v) => (typeof v === 'string' && v.length > 0 ? undefined : 'must be a non-empty string');
const obj: Check = (v) => (v && typeof v === 'object' && !Array.isArray(v) ? undefined : 'must be an object');
const arr: Check = (v) => (Array.isArray(v) ? undefined : 'must be an array');
const fn: Check = (v) => (typeof v === 'function' ? undefined : 'must be a function');

/** Manifest rules, one row per allowed key (Babel-style table-driven validation). */
export const META_RULES: Readonly<Record<keyof PluginMeta, FieldRule>> = {
  name: { required: true, check: str },
  version: { required: true, check: (v) => str(v) ?? (PLAIN_VERSION.test(v as string) || semver.valid(v as string) ? undefined : 'must be a semver version') },
  api: { required: true, check: (v) => str(v) ?? (CARET_RANGE.test(v as string) || semver.validRange(v as string) ? undefined : 'must be a semver range of the plugin API, e.g. ^1.0.0') },
  description: { required: false, check: str },
};
export const CONTRIBUTION_RULES: Readonly<Record<keyof PluginContributions, FieldRule>> = {
  phases: { required: false, check: obj },
  hooks: { required: false, check: obj },
  knobs: { required: false, check: arr },
  targets: { required: false, check: arr },
  opcodes: { required: false, check: arr },
  frontends: { required: false, check: obj },
  services: { required: false, check: arr },
};
const ARCH_RE = /^sm_\d+[a-z]?$/;
const PROPERTY_RE = /^[A-Z][A-Za-z0-9]*$/;
const nameList: Check = (v) =>
  typeof v === 'string' || (Array.isArray(v) && v.every((x) => typeof x === 'string')) ? undefined : 'must be a plugin name or a list of them';
const archs: Check = (v) =>
  Array.isArray(v) && v.length > 0 && v.every((a) => typeof a === 'string' && ARCH_RE.test(a)) ? undefined : 'must be a non-empty list of arch names like sm_90';
const props: Check = (v) =>
  Array.isArray(v) && v.every((p) => typeof p === 'string' && PROPERTY_RE.test(p)) ? undefined : 'must be a list of PascalCase IR property names (ControlFlowLast, PhysicalRegisters ...)';
/** Keys of a phase contribution given as an object. */
export const PHASE_RULES: Readonly<Record<keyof PhaseContributionSpec, FieldRule>> = {
  create: { required: true, check: fn },
  archs: { required: false, check: archs },
  replace: { required: false, check: (v) => (typeof v === 'boolean' ? undefined : 'must be a boolean') },
  replaces: { required: false, check: nameList },
  describe: { required: false, check: fn },
  requires: { required: false, check: props },
  establishes: { required: false, check: props },
  invalidates: { required: false, check: props },
};
/** Keys of a hook handler given as an object. */
export const HOOK_RULES: Readonly<Record<keyof HookHandlerSpec, FieldRule>> = {
  handler: { required: true, check: fn },
  order: { required: false, check: (v) => (v === 'pre' || v === 'post' ? undefined : "must be 'pre' or 'post'") },
  archs: { required: false, check: archs },
  replaces: { required: false, check: nameList },
  requires: { required: false, check: props },
  establishes: { required: false, check: props },
  invalidates: { required: false, check: props },
};
const archList: Check = (v) =>
  v === '*' || (Array.isArray(v) && v.length > 0 && v.every((a) => typeof a === 'string' && ARCH_RE.test(a))) ? undefined : "must be '*' or a non-empty list of arch names like sm_90";
export const SERVICE_RULES: Readonly<Record<keyof ServiceProvision, FieldRule>> = {
  service: { required: true, check: (v) => (isServiceToken(v) ? undefined : 'must be a token made with defineService (Encoder, LatencyModel ...)') },
  archs: { required: true, check: archList },
  useValue: { required: false, check: () => undefined },
  useFactory: { required: false, check: fn },
  replaces: {
    required: false,
    check: (v) => (typeof v === 'string' || (Array.isArray(v) && v.every((x) => typeof x === 'string')) ? undefined : 'must be a plugin name or a list of them'),
  },
};
export const TARGET_RULES: Readonly<Record<keyof TargetDescriptor, FieldRule>> = {
  id: { required: true, check: str },
  family: { required: true, check: str },
  archs: {
    required: true,
    check: (v) => arr(v) ?? ((v as unknown[]).length && (v as unknown[]).every((a) => typeof a === 'string' && /^sm_\d+[a-z]?$/.test(a)) ? undefined : 'must list arch names like sm_90'),
  },
  capabilities: { required: true, check: (v) => (typeof v === 'function' ? undefined : obj(v)) },
  hooks: { required: false, check: obj },
  phases: { required: false, check: obj },
};
const KNOB_RULES: Readonly<Record<keyof KnobDef, FieldRule>> = {
  name: { required: true, check: (v) => str(v) ?? (/^[A-Za-z_][\w.-]*$/.test(v as string) ? undefined : 'must be an identifier (letters, digits, _ . -; cicc knobs keep their dashes)') },
  type: { required: true, check: (v) => (['bool', 'int', 'float', 'double', 'string'].includes(v as string) ? undefined : 'must be bool, int, float, double or string') },
  default: { required: true, check: (v) => (['boolean', 'number', 'string'].includes(typeof v) ? undefined : 'must be a boolean, number or string') },
  description: { required: true, check: str },
  owner: { required: false, check: str },
  min: { required: false, check: (v) => (typeof v === 'number' && Number.isFinite(v) ? undefined : 'must be a finite number') },
  max: { required: false, check: (v) => (typeof v === 'number' && Number.isFinite(v) ? undefined : 'must be a finite number') },
  choices: { required: false, check: (v) => (Array.isArray(v) && v.length > 0 && v.every((c) => typeof c === 'string') ? undefined : 'must be a non-empty list of strings') },
};

/** Check an object against a rule table: unknown keys, missing required keys, bad values. */
export function validateFields(
  value: unknown,
  rules: Readonly<Record<string, FieldRule>>,
  what: string,
  plugin: string,
): void {
  if (!value || typeof value !== 'object') {
    throw new PtxforgeError('PLUGIN_MANIFEST_INVALID', `${what} of plugin ${plugin} must be an object`, { plugin });
  }
  for (const k of Object.keys(value)) {
    if (!(k in rules) && k === 'kernel' && 'api' in rules) {
      throw new PtxforgeError(
        'PLUGIN_MANIFEST_UNKNOWN_KEY',
        `plugin ${plugin}: 'kernel' (a kernel package range) is gone; declare the plugin API range instead, e.g. api: '^1.0.0' (PLUGIN_API), and take name and version from your package.json`,
        { plugin },
      );
    }
    if (!(k in rules)) {
      throw new PtxforgeError(
        'PLUGIN_MANIFEST_UNKNOWN_KEY',
        `plugin ${plugin}: unknown key '${k}' in ${what} (allowed: ${Object.keys(rules).join(', ')})`,
        { plugin },
      );
    }
  }
  for (const [k, rule] of Object.entries(rules)) {
    const v = (value as Record<string, unknown>)[k];
    if (v === undefined) {
      if (rule.required) throw new PtxforgeError('PLUGIN_MANIFEST_INVALID', `plugin ${plugin}: ${what} is missing '${k}'`, { plugin });
      continue;
    }
    const msg = rule.check(v);
    if (msg) throw new PtxforgeError('PLUGIN_MANIFEST_INVALID', `plugin ${plugin}: ${what}.${k} ${msg}`, { plugin });
  }
}

export function validateMeta(meta: unknown): PluginMeta {
  const name = (meta as { name?: unknown })?.name;
  validateFields(meta, META_RULES, 'manifest', typeof name === 'string' ? name : '<unnamed>');
  return meta as PluginMeta;
}

export function validateContributions(c: unknown, plugin: string): PluginContributions {
  validateFields(c, CONTRIBUTION_RULES, 'contributions', plugin);
  const pc = c as PluginContributions;
  for (const t of pc.targets ?? []) validateFields(t, TARGET_RULES, `target ${(t as { id?: string }).id ?? '?'}`, plugin);
  for (const sp of pc.services ?? []) {
    const name = isServiceToken((sp as { service?: unknown })?.service) ? sp.service.name : '?';
    validateFields(sp, SERVICE_RULES, `service ${name}`, plugin);
    if (('useValue' in sp && sp.useValue !== undefined) === (sp.useFactory !== undefined)) {
      throw new PtxforgeError('PLUGIN_MANIFEST_INVALID', `plugin ${plugin}: service ${name} needs exactly one of useValue and useFactory`, { plugin });
    }
  }
  for (const k of pc.knobs ?? []) {
    validateFields(k, KNOB_RULES, `knob ${(k as { name?: string }).name ?? '?'}`, plugin);
    try {
      checkKnobRange(k, k.default);
    } catch (e) {
      throw new PtxforgeError('PLUGIN_MANIFEST_INVALID', `plugin ${plugin}: the default of knob ${k.name} is outside its own range: ${(e as Error).message}`, { plugin });
    }
  }
  for (const [name, p] of Object.entries(pc.phases ?? {})) {
    if (typeof p === 'function') continue;
    if (!p || typeof p !== 'object' || fn((p as { create?: unknown }).create)) {
      throw new PtxforgeError('PLUGIN_MANIFEST_INVALID', `plugin ${plugin}: phase ${name} needs a factory function`, { plugin });
    }
    validateFields(p, PHASE_RULES, `phase ${name}`, plugin);
  }
  validateHooks(pc.hooks, 'hooks', plugin);
  for (const t of pc.targets ?? []) validateHooks(t.hooks, `target ${t.id} hooks`, plugin);
  return pc;
}

function validateHooks(hooks: HookHandlers | undefined, what: string, plugin: string): void {
  for (const [name, h] of Object.entries(hooks ?? {})) {
    if (typeof h === 'function') continue;
    if (!h || typeof h !== 'object' || typeof (h as { handler?: unknown }).handler !== 'function') {
      throw new PtxforgeError('PLUGIN_MANIFEST_INVALID', `plugin ${plugin}: hook ${name} needs a handler function`, { plugin });
    }
    validateFields(h, HOOK_RULES, `${what}.${name}`, plugin);
  }
}

// Every first-party plugin declares `^M.m.p` and versions are plain `M.m.p`: those are checked here by
// semver's rules directly (semver's range parser costs ~10 ms of start-up the first time it runs, once
// per CLI process); any other range or version goes to semver.
const PLAIN_VERSION = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/;
const CARET_RANGE = /^\^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/;

/** semver.satisfies(version, range, { includePrerelease: true }), with a fast path for `^M.m.p`. */
export function apiSatisfies(version: string, range: string): boolean {
  const v = PLAIN_VERSION.exec(version);
  const r = CARET_RANGE.exec(range);
  if (!v || !r) return semver.satisfies(version, range, { includePrerelease: true });
  const [vM, vm, vp] = [Number(v[1]), Number(v[2]), Number(v[3])];
  const [M, m, p] = [Number(r[1]), Number(r[2]), Number(r[3])];
  // ^M.m.p: >= M.m.p and below the next change of the leftmost non-zero part.
  const atLeast = vM !== M ? vM > M : vm !== m ? vm > m : vp >= p;
  if (!atLeast) return false;
  if (M > 0) return vM === M;
  if (m > 0) return vM === 0 && vm === m;
  return vM === 0 && vm === 0 && vp === p;
}

/**
 * Semver check of the plugin's API range against the host's PLUGIN_API (KERNEL_VERSION_UNSUPPORTED names the
 * plugin, its range and the host's API).
 */
export function checkApiRange(meta: PluginMeta, hostApi: string): void {
  if (!apiSatisfies(hostApi, meta.api)) {
    throw new PtxforgeError(
      'KERNEL_VERSION_UNSUPPORTED',
      `plugin ${meta.name}@${meta.version} supports plugin API ${meta.api}, but this kernel implements plugin API ${hostApi}; ` +
        `install a version of ${meta.name} built for plugin API ${hostApi}`,
      { plugin: meta.name },
    );
  }
}
