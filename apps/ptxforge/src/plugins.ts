import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { KNOWN_ARCHS, PtxforgeError, type PluginDefinition, type PluginEntry } from '@ptxforge/kernel';
import { corePlugin } from '@ptxforge/plugin-core';

/**
 * The plugin packages the CLI always composes after the core plugin: the PTX front end and the
 * optimization families. They are dependencies of @ptxforge/cli, installed with it. Together with
 * TARGET_PACKAGES they are @ptxforge/preset-default's list in its order (a test keeps the two in step).
 */
export const CLI_PLUGIN_PACKAGES: readonly string[] = Object.freeze([
  '@ptxforge/ptx',
  '@ptxforge/plugin-live-dead',
  '@ptxforge/plugin-general-optimize',
  '@ptxforge/plugin-copy-prop',
  '@ptxforge/plugin-movphi',
  '@ptxforge/plugin-strength-reduce',
  '@ptxforge/plugin-predication',
  '@ptxforge/plugin-gvn-cse',
  '@ptxforge/plugin-branch',
  '@ptxforge/plugin-branch-folding',
  '@ptxforge/plugin-loop',
  '@ptxforge/plugin-licm',
]);

/**
 * The first-party SM target packages (the kernel's KNOWN_ARCHS, in SM order). They are optional peer
 * dependencies of @ptxforge/cli: a user installs the ones they need beside it (`npm i -g @ptxforge/cli
 * @ptxforge/target-sm90`), the CLI loads the one that serves `-arch`, and an arch whose package is not
 * installed is the kernel's TARGET_NOT_INSTALLED error naming the package to install.
 */
export const TARGET_PACKAGES: readonly string[] = Object.freeze([...new Set(KNOWN_ARCHS.values())]);
const TARGET_SET: ReadonlySet<string> = new Set(TARGET_PACKAGES);

/** Every optional plugin package the CLI may load: front end, targets, optimization families. */
export const OPTIONAL_PLUGIN_PACKAGES: readonly string[] = Object.freeze([CLI_PLUGIN_PACKAGES[0]!, ...TARGET_PACKAGES, ...CLI_PLUGIN_PACKAGES.slice(1)]);

/**
 * Literal loaders for the first-party packages, so the bundlers see them. In the ESM bundle
 * (apps/ptxforge/bundle.mjs) the target packages and what they import stay run-time imports of installed
 * packages (never copied into the CLI); the other plugins become lazily loaded chunks. In the V8 snapshot
 * every package installed at build time is pre-loaded, and the snapshot's importer first checks that the
 * package still resolves from where the CLI is installed (see snapshot-main.ts).
 */
export const LOADERS: Readonly<Record<string, () => Promise<unknown>>> = {
  '@ptxforge/ptx': () => import('@ptxforge/ptx'),
  '@ptxforge/target-sm30': () => import('@ptxforge/target-sm30'),
  '@ptxforge/target-sm50': () => import('@ptxforge/target-sm50'),
  '@ptxforge/target-sm60': () => import('@ptxforge/target-sm60'),
  '@ptxforge/target-sm70': () => import('@ptxforge/target-sm70'),
  '@ptxforge/target-sm80': () => import('@ptxforge/target-sm80'),
  '@ptxforge/target-sm89': () => import('@ptxforge/target-sm89'),
  '@ptxforge/target-sm90': () => import('@ptxforge/target-sm90'),
  '@ptxforge/plugin-live-dead': () => import('@ptxforge/plugin-live-dead'),
  '@ptxforge/plugin-general-optimize': () => import('@ptxforge/plugin-general-optimize'),
  '@ptxforge/plugin-copy-prop': () => import('@ptxforge/plugin-copy-prop'),
  '@ptxforge/plugin-movphi': () => import('@ptxforge/plugin-movphi'),
  '@ptxforge/plugin-strength-reduce': () => import('@ptxforge/plugin-strength-reduce'),
  '@ptxforge/plugin-predication': () => import('@ptxforge/plugin-predication'),
  '@ptxforge/plugin-gvn-cse': () => import('@ptxforge/plugin-gvn-cse'),
  '@ptxforge/plugin-loop': () => import('@ptxforge/plugin-loop'),
  '@ptxforge/plugin-licm': () => import('@ptxforge/plugin-licm'),
  '@ptxforge/plugin-branch': () => import('@ptxforge/plugin-branch'),
  '@ptxforge/plugin-branch-folding': () => import('@ptxforge/plugin-branch-folding'),
};

/**
 * How a package is imported by name. A package that is not installed must reject with Node's
 * ERR_MODULE_NOT_FOUND / MODULE_NOT_FOUND naming it (what `import()` does); tests and the V8 snapshot
 * inject their own.
 */
export type ModuleImporter = (spec: string) => Promise<unknown>;

export const defaultImporter: ModuleImporter = (spec) => (LOADERS[spec] ?? (() => import(spec)))();

let processImporter: ModuleImporter = defaultImporter;

/** Replace the importer loadDefaultPlugins uses when none is given (the V8 snapshot's start-up does). */
export function setDefaultImporter(importer: ModuleImporter): void {
  processImporter = importer;
}

/** The error an importer raises for a package that is not installed (Node's code and wording). */
export function moduleNotFound(spec: string, from = 'ptxforge'): Error {
  return Object.assign(new Error(`Cannot find package '${spec}' imported from ${from}`), { code: 'ERR_MODULE_NOT_FOUND' });
}

function isPlugin(x: unknown): x is PluginDefinition<unknown> {
  return !!x && typeof x === 'object' && (x as { kind?: unknown }).kind === 'ptxforge-plugin';
}

/** The plugin a module exports: its default export, else its only export made with definePlugin. */
export function pluginOf(mod: Record<string, unknown>, from: string): PluginDefinition<unknown> {
  if (isPlugin(mod.default)) return mod.default;
  const found = Object.values(mod).filter(isPlugin);
  if (found.length === 1) return found[0]!;
  throw new PtxforgeError('PLUGIN_INVALID', `${from} does not export one plugin made with definePlugin (found ${found.length})`);
}

/** Is `e` "package `spec` is not installed" (and not an error inside an installed package)? */
function isMissing(e: unknown, spec: string): boolean {
  const err = e as { code?: string; message?: string };
  return (err.code === 'ERR_MODULE_NOT_FOUND' || err.code === 'MODULE_NOT_FOUND') && !!err.message?.includes(spec);
}

/** The plugin of package `spec`, or undefined when it is not installed. */
async function tryLoad(spec: string, importer: ModuleImporter): Promise<PluginDefinition<unknown> | undefined> {
  try {
    return pluginOf((await importer(spec)) as Record<string, unknown>, spec);
  } catch (e) {
    if (isMissing(e, spec)) return undefined;
    throw e;
  }
}

export interface LoadPluginsOptions {
  /**
   * The -arch about to be compiled: only the target package that serves it is loaded. When that package is
   * not installed (or the arch is not one a first-party package serves, or no arch is given) every
   * installed target is loaded, so listings show them and the kernel's error names what is installed
   * beside the package to install.
   */
  readonly arch?: string;
  /** How packages are imported (default: the literal loaders, else `import(spec)`; see setDefaultImporter). */
  readonly importer?: ModuleImporter;
}

/** Core plugin, the installed CLI plugins and the installed target(s), in @ptxforge/preset-default's order. */
export async function loadDefaultPlugins(options: LoadPluginsOptions = {}): Promise<PluginEntry[]> {
  const importer = options.importer ?? processImporter;
  const targets = new Map<string, PluginDefinition<unknown>>();
  const wanted = options.arch === undefined ? undefined : KNOWN_ARCHS.get(options.arch);
  const one = wanted === undefined ? undefined : await tryLoad(wanted, importer);
  if (one) targets.set(wanted!, one);
  else {
    for (const spec of TARGET_PACKAGES) {
      const p = await tryLoad(spec, importer);
      if (p) targets.set(spec, p);
    }
  }
  const out: PluginEntry[] = [corePlugin];
  for (const spec of OPTIONAL_PLUGIN_PACKAGES) {
    if (TARGET_SET.has(spec)) {
      const t = targets.get(spec);
      if (t) out.push(t);
      continue;
    }
    const p = await tryLoad(spec, importer);
    if (p) out.push(p);
  }
  return out;
}

/** Load a user plugin given on the command line (a package name or a path to a module). */
export async function loadUserPlugin(spec: string, cwd: string): Promise<PluginEntry> {
  const target = spec.startsWith('.') || path.isAbsolute(spec) ? pathToFileURL(path.resolve(cwd, spec)).href : spec;
  let mod: Record<string, unknown>;
  try {
    mod = (await import(target)) as Record<string, unknown>;
  } catch (e) {
    throw new PtxforgeError('PLUGIN_NOT_FOUND', `cannot load plugin '${spec}': ${(e as Error).message}`);
  }
  return pluginOf(mod, spec);
}
