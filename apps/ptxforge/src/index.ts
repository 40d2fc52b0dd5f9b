export { runCli, normalizeArgs, type CliIO } from './run.js';
export { loadDefaultPlugins, loadUserPlugin, pluginOf, OPTIONAL_PLUGIN_PACKAGES } from './plugins.js';
