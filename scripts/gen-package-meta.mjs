#!/usr/bin/env node
// Writes src/package-meta.ts of the package in the current directory from its package.json, so a plugin's
// name and version come from one place (its package.json) and survive bundling (esbuild inlines the
// generated module; a run-time read of ../package.json would point elsewhere in the bundle). Run by each
// plugin's `build` script before tsc; the file is committed so tests and editors work before a build, and
// rewritten only when it would change (after `pnpm changeset version`, the next build updates it).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const dir = process.argv[2] ? path.resolve(process.argv[2]) : process.cwd();
const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
const text =
  '// Generated from package.json by scripts/gen-package-meta.mjs (run by `build`); do not edit.\n' +
  `export const PACKAGE = { name: ${JSON.stringify(pkg.name)}, version: ${JSON.stringify(pkg.version)} } as const;\n`;
const out = path.join(dir, 'src', 'package-meta.ts');
let old = '';
try {
  old = readFileSync(out, 'utf8');
} catch {
  // first run
}
if (old !== text) writeFileSync(out, text);
