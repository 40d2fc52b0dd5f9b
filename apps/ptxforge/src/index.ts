export { runCli, normalizeArgs, type CliIO } from './run.js';
export { loadDefaultPlugins, loadUserPlugin, pluginOf, OPTIONAL_PLUGIN_PACKAGES } from './plugins.js';
export { interpOptionsOf, verifyEachFor, runAfterCompile, type InterpCliOptions } from './interp.js';
