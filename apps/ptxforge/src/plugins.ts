import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { PtxforgeError, type PluginDefinition, type PluginEntry } from '@ptxforge/kernel';
import { PRESET_DEFAULT_PACKAGES } from '@ptxforge/preset-default/packages';
import { corePlugin } from '@ptxforge/plugin-core';

/**
 * Plugin packages the CLI composes when they are installed: the list of @ptxforge/preset-default (less the
 * core plugin, which the CLI always has). A user who installs only @ptxforge/target-sm90 gets exactly that
 * backend, and asking for another arch names the package to install (the kernel's KNOWN_ARCHS).
 */
export const OPTIONAL_PLUGIN_PACKAGES: readonly string[] = PRESET_DEFAULT_PACKAGES.filter((p) => p !== '@ptxforge/plugin-core');

/**
 * Literal loaders for the first-party packages, so the bundler (apps/ptxforge/bundle.mjs) can see them:
 * in the bundled CLI each becomes a lazily loaded chunk of the same file set (one kernel, no module
 * resolution at run time); in the unbundled dist they are ordinary imports of installed packages, and a
 * package that is not installed is skipped (asking for its arch then names it). Packages not listed here
 * are imported by name.
 */
const LOADERS: Readonly<Record<string, () => Promise<unknown>>> = {
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

function isMissing(e: unknown, spec: string): boolean {
  const err = e as { code?: string; message?: string };
  return (err.code === 'ERR_MODULE_NOT_FOUND' || err.code === 'MODULE_NOT_FOUND') && !!err.message?.includes(spec);
}

/** Core plugin plus every optional plugin package that is installed. */
export async function loadDefaultPlugins(): Promise<PluginEntry[]> {
  const out: PluginEntry[] = [corePlugin];
  for (const spec of OPTIONAL_PLUGIN_PACKAGES) {
    try {
      out.push(pluginOf((await (LOADERS[spec] ?? (() => import(spec)))()) as Record<string, unknown>, spec));
    } catch (e) {
      if (!isMissing(e, spec)) throw e;
    }
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
