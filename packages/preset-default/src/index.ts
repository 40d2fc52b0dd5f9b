import { createToolchain, PtxforgeError, type PluginDefinition, type PluginEntry, type Toolchain } from '@ptxforge/kernel';
import { branchFoldingPlugin } from '@ptxforge/plugin-branch-folding';
import { branchPlugin } from '@ptxforge/plugin-branch';
import { copyPropPlugin } from '@ptxforge/plugin-copy-prop';
import { corePlugin } from '@ptxforge/plugin-core';
import { generalOptimizePlugin } from '@ptxforge/plugin-general-optimize';
import { gvnCsePlugin } from '@ptxforge/plugin-gvn-cse';
import { licmPlugin } from '@ptxforge/plugin-licm';
import { liveDeadPlugin } from '@ptxforge/plugin-live-dead';
import { loopPlugin } from '@ptxforge/plugin-loop';
import { movPhiPlugin } from '@ptxforge/plugin-movphi';
import { predicationPlugin } from '@ptxforge/plugin-predication';
import { strengthReducePlugin } from '@ptxforge/plugin-strength-reduce';
import { ptxFrontendPlugin } from '@ptxforge/ptx';
import { targetSm30Plugin } from '@ptxforge/target-sm30';
import { targetSm50Plugin } from '@ptxforge/target-sm50';
import { targetSm60Plugin } from '@ptxforge/target-sm60';
import { targetSm70Plugin } from '@ptxforge/target-sm70';
import { targetSm80Plugin } from '@ptxforge/target-sm80';
import { targetSm89Plugin } from '@ptxforge/target-sm89';
import { targetSm90Plugin } from '@ptxforge/target-sm90';
import { PRESET_DEFAULT_PACKAGES } from './packages.js';

export { PRESET_DEFAULT_PACKAGES };

/** The default plugins, in the order of PRESET_DEFAULT_PACKAGES (a test keeps the two in step). */
export const presetDefault: readonly PluginDefinition<any>[] = Object.freeze([ // eslint-disable-line @typescript-eslint/no-explicit-any
  corePlugin,
  ptxFrontendPlugin,
  targetSm30Plugin, targetSm50Plugin, targetSm60Plugin, targetSm70Plugin, targetSm80Plugin, targetSm89Plugin, targetSm90Plugin,
  liveDeadPlugin, generalOptimizePlugin, copyPropPlugin, movPhiPlugin, strengthReducePlugin, predicationPlugin, gvnCsePlugin,
  branchPlugin, branchFoldingPlugin,
  loopPlugin, licmPlugin,
]);

export interface DefaultToolchainOptions {
  /** More plugins after the preset's (a third-party hook, a service that replaces a target's ...). */
  readonly plugins?: readonly PluginEntry[];
  /** Preset packages to leave out, by package name (e.g. a plugin the extra plugins replace wholesale). */
  readonly exclude?: readonly string[];
}

/** A toolchain of the default plugins plus `plugins`, without the packages named in `exclude`. */
export function createDefaultToolchain(options: DefaultToolchainOptions = {}): Toolchain {
  const drop = new Set(options.exclude ?? []);
  const unknown = [...drop].filter((n) => !PRESET_DEFAULT_PACKAGES.includes(n));
  if (unknown.length) {
    throw new PtxforgeError('PRESET_EXCLUDE_UNKNOWN', `${unknown.join(', ')} ${unknown.length > 1 ? 'are' : 'is'} not in @ptxforge/preset-default (its packages: ${PRESET_DEFAULT_PACKAGES.join(', ')})`);
  }
  return createToolchain({ plugins: [...presetDefault.filter((p) => !drop.has(p.meta.name)), ...(options.plugins ?? [])] });
}
