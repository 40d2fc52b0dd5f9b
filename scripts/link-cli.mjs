#!/usr/bin/env node
// `pnpm -s link-cli [--bin-dir DIR]`: put `ptxforge` (and the other apps' commands, when built) on PATH
// by symlinking their built entry points into a bin directory -- by default npm's global bin directory
// (`npm prefix -g`/bin), which is on PATH wherever npm's global commands are. The links point into this
// checkout, so `pnpm build` updates the commands in place; remove them with --unlink.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readlinkSync, symlinkSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const unlink = args.includes('--unlink');
const k = args.indexOf('--bin-dir');
let binDir = k >= 0 ? path.resolve(args[k + 1] ?? '') : '';
if (!binDir) {
  const prefix = execFileSync('npm', ['prefix', '-g'], { encoding: 'utf8' }).trim();
  binDir = process.platform === 'win32' ? prefix : path.join(prefix, 'bin');
}

/** Command name -> built entry point (relative to the repository). */
const COMMANDS = {
  ptxforge: 'apps/ptxforge/dist/bundle/cli.js',
  'ptxforge-dis': 'apps/dis/dist/cli.js',
};

mkdirSync(binDir, { recursive: true });
let linked = 0;
for (const [name, rel] of Object.entries(COMMANDS)) {
  const target = path.join(repo, rel);
  const link = path.join(binDir, name);
  const exists = (() => {
    try {
      lstatSync(link);
      return true;
    } catch {
      return false;
    }
  })();
  if (unlink) {
    if (exists && lstatSync(link).isSymbolicLink() && readlinkSync(link) === target) {
      unlinkSync(link);
      console.log(`removed ${link}`);
    }
    continue;
  }
  if (!existsSync(target)) {
    console.log(`skipped ${name}: ${rel} is not built (run pnpm build)`);
    continue;
  }
  if (exists) {
    if (!lstatSync(link).isSymbolicLink()) {
      console.error(`link-cli: ${link} exists and is not a link; not replacing it`);
      process.exitCode = 1;
      continue;
    }
    unlinkSync(link);
  }
  chmodSync(target, 0o755);
  symlinkSync(target, link);
  console.log(`${link} -> ${target}`);
  linked++;
}
if (!unlink && linked) console.log(`${linked} command(s) linked into ${binDir}`);
