import { PACKAGE } from './package-meta.js';

/**
 * The plugin API this kernel implements: a semver of its own that changes only when the plugin contract
 * (definePlugin, contributions, PhaseContext, services, hooks) changes, never because the package was
 * released. Plugins declare the range they support (`api: '^1.0.0'`); a major bump here means a breaking
 * change of the contract, a minor one an addition.
 */
export const PLUGIN_API = '1.0.0';

/** This package's version (from its package.json, generated at build): for reports, never for plugin checks. */
export const KERNEL_VERSION: string = PACKAGE.version;
