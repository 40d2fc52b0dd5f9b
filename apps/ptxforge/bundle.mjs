// Bundles the built CLI (dist/*.js, compiled by tsc with decorator metadata) into dist/bundle/: one file
// set with the kernel and every first-party plugin, so start-up pays for no module resolution. Plugins
// stay lazily loaded chunks (literal import() in src/plugins.ts); packages that are not installed at
// build time are left as run-time imports. Run by `pnpm build` after tsc.
import { chmodSync } from 'node:fs';
import { build } from 'esbuild';

await build({
  entryPoints: ['dist/cli.js', 'dist/batch-worker.js'],
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir: 'dist/bundle',
  logLevel: 'warning',
  // CommonJS dependencies (tsyringe, commander) call require(): give the ESM bundle one.
  banner: { js: "import { createRequire as __ptxforgeCreateRequire } from 'node:module'; const require = __ptxforgeCreateRequire(import.meta.url);" },
});
chmodSync('dist/bundle/cli.js', 0o755);
