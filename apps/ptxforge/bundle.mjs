// Bundles the built CLI (dist/*.js, compiled by tsc with decorator metadata) into dist/bundle/: one file
// set with the CLI, commander, the PTX front end, the optimization plugins and code generation, so
// start-up pays for little module resolution. Plugins stay lazily loaded chunks (literal import() in
// src/plugins.ts).
// The SM target packages are optional peer dependencies of the CLI: they are never copied into the bundle
// but imported at run time from where they are installed, so a user installs only the targets they need.
// Everything a target imports (the kernel, target-common, the codecs, their own dependencies) stays a
// run-time import too, so the CLI and the targets share one kernel. Run by `pnpm build` after tsc.
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const repo = path.resolve('../..');
const manifests = new Map();
for (const top of ['packages', 'plugins', 'targets', 'apps']) {
  for (const name of existsSync(path.join(repo, top)) ? readdirSync(path.join(repo, top)) : []) {
    const f = path.join(repo, top, name, 'package.json');
    if (existsSync(f)) {
      const pkg = JSON.parse(readFileSync(f, 'utf8'));
      manifests.set(pkg.name, pkg);
    }
  }
}
const self = JSON.parse(readFileSync('package.json', 'utf8'));
const optionalPeers = Object.entries(self.peerDependenciesMeta ?? {}).filter(([, m]) => m.optional).map(([n]) => n);
// The optional peers and, transitively, every package they depend on or peer-depend on.
const external = new Set();
const todo = [...optionalPeers];
while (todo.length) {
  const name = todo.pop();
  if (external.has(name)) continue;
  external.add(name);
  const pkg = manifests.get(name);
  if (pkg) todo.push(...Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies }));
}

rmSync('dist/bundle', { recursive: true, force: true });
await build({
  entryPoints: ['dist/cli.js', 'dist/batch-worker.js'],
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir: 'dist/bundle',
  logLevel: 'warning',
  external: [...external].sort(),
  // CommonJS dependencies (tsyringe, commander) call require(): give the ESM bundle one.
  banner: { js: "import { createRequire as __ptxforgeCreateRequire } from 'node:module'; const require = __ptxforgeCreateRequire(import.meta.url);" },
});
chmodSync('dist/bundle/cli.js', 0o755);

// Every package the bundle imports at run time must be installed with the CLI: a dependency, or one of
// the optional peers (the targets).
const declared = new Set([...Object.keys(self.dependencies ?? {}), ...optionalPeers]);
const undeclared = new Set();
for (const f of readdirSync('dist/bundle').filter((n) => n.endsWith('.js'))) {
  for (const m of readFileSync(path.join('dist/bundle', f), 'utf8').matchAll(/(?:from |import\(|require\()"((?:@[^/"]+\/)?[^/"]+)[^"]*"/g)) {
    if (!m[1].startsWith('node:') && !m[1].startsWith('.') && !declared.has(m[1])) undeclared.add(m[1]);
  }
}
if (undeclared.size) {
  console.error(`bundle.mjs: the bundle imports ${[...undeclared].sort().join(', ')} at run time; add them to apps/ptxforge's dependencies`);
  process.exit(1);
}
