#!/usr/bin/env node
// Code size of the tail-merge kernels with and without BranchFolding's tail merging (-O3, sm_90), and beside
// them the size of ptxas -O3's code for the same PTX (.text.<fn> bytes / 16 on sm_90, including ptxas's
// trailing padding). Usage: pnpm -s bench:tail-merge [dir-of-fixtures]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cubinOpcodeCounts } from './lib/cubin-branches.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = process.argv[2] ?? path.join(root, 'plugins/branch-folding/test/fixtures/e2e');
const cli = path.join(root, 'apps/ptxforge/bin/ptxforge');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'bench-tail-merge-'));

function oriInstructions(file, knobs) {
  const out = path.join(tmp, 'o.ori');
  execFileSync(cli, ['-arch', 'sm_90', '-O3', '--no-cache', ...knobs.flatMap((k) => ['--knob', k]), '-o', out, file], { stdio: ['ignore', 'ignore', 'inherit'] });
  // Instruction lines: indented, not a label, not a directive.
  return readFileSync(out, 'utf8').split('\n').filter((l) => /^\s+[@%A-Z]/.test(l) && !/^\s*\./.test(l)).length;
}

function ptxasInstructions(file) {
  const have = spawnSync('ptxas', ['--version'], { encoding: 'utf8' });
  if (have.status !== 0) return undefined;
  const out = path.join(tmp, 'p.cubin');
  const r = spawnSync('ptxas', ['-arch=sm_90', '-O3', file, '-o', out], { encoding: 'utf8' });
  if (r.status !== 0) return undefined;
  let n = 0;
  for (const f of cubinOpcodeCounts(readFileSync(out)).values()) n += f.instructions;
  return n;
}

if (!existsSync(cli)) {
  console.error('build first: pnpm build');
  process.exit(1);
}
console.log(`# tail-merge code size, sm_90 -O3 (${os.cpus()[0]?.model ?? 'unknown cpu'}, ${new Date().toISOString().slice(0, 10)})`);
console.log('| kernel | Ori instrs, tail merge off | on | saved | ptxas -O3 SASS instrs (with padding) |');
console.log('|---|---:|---:|---:|---:|');
let off = 0;
let on = 0;
for (const name of readdirSync(dir).sort()) {
  const file = path.join(dir, name, 'input.ptx');
  if (!existsSync(file)) continue;
  const a = oriInstructions(file, ['enable-tail-merge=false']);
  const b = oriInstructions(file, []);
  off += a;
  on += b;
  const p = ptxasInstructions(file);
  console.log(`| ${name} | ${a} | ${b} | ${a - b} | ${p ?? 'n/a'} |`);
}
console.log(`| total | ${off} | ${on} | ${off - on} (${((100 * (off - on)) / off).toFixed(1)}%) | |`);
