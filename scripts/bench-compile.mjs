#!/usr/bin/env node
// Compile time of ptxforge and of the real ptxas on the same PTX files, side by side in one run.
// Usage: pnpm build && node scripts/bench-compile.mjs [--runs N]
// Both are run as processes with -arch=sm_90 -O3 -v and the "Compile time = X ms" line each prints is
// read, so process start-up is excluded on both sides. ptxforge's pipeline does not yet allocate
// registers, schedule or encode, so the comparison shows where it stands, not a like-for-like race.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const shared = path.resolve(repo, '../shared/corpus');
const runs = Number(process.argv[process.argv.indexOf('--runs') + 1] || 5) || 5;

const files = [
  ...['packages/ptx/test/fixtures/kernels', 'apps/bench-opt/kernels', 'bench/compile'].flatMap((d) =>
    readdirSync(path.join(repo, d)).filter((f) => f.endsWith('.ptx')).map((f) => path.join(repo, d, f)),
  ),
];
if (existsSync(shared)) {
  for (const f of ['ptx-ir/simple/flashattention_fwd.ptx', 'ptx-ir/simple/flashattention_bwd.ptx', 'ptx-ir/simple/matmul.ptx', 'ptoxide/kernels/gemm.ptx', 'ptoxide/kernels/transpose.ptx']) {
    if (existsSync(path.join(shared, f))) files.push(path.join(shared, f));
  }
} else {
  console.log('# ../shared/corpus is absent: only the repository fixtures are measured');
}

let ptxas = true;
try {
  execFileSync('ptxas', ['--version'], { stdio: 'ignore' });
} catch {
  ptxas = false;
  console.log('# ptxas not found: only ptxforge is measured');
}

function compileTime(cmd, args) {
  // ptxas prints its info lines on stderr, ptxforge on stdout: read both.
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) return { error: String(r.stderr || r.error?.message).split('\n')[0].slice(0, 100) };
  const out = `${r.stdout}\n${r.stderr}`;
  let ms = 0;
  for (const m of out.matchAll(/Compile time = ([\d.]+) ms/g)) ms += Number(m[1]);
  return { ms };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const cli = path.join(repo, 'apps/ptxforge/dist/cli.js');
console.log(`# ${new Date().toISOString().slice(0, 10)}, ${os.cpus()[0]?.model ?? 'cpu'} x${os.cpus().length}, node ${process.version}, median of ${runs}`);
console.log('| file | ptxforge -O3 (ms) | ptxas -O3 (ms) | ratio |');
console.log('|---|---:|---:|---:|');
for (const f of files) {
  const ours = [];
  const theirs = [];
  let err;
  for (let k = 0; k < runs; k++) {
    const a = compileTime(process.execPath, [cli, '-arch', 'sm_90', '-O3', '-v', f]);
    if (a.error) err = `ptxforge: ${a.error}`;
    else ours.push(a.ms);
    if (ptxas) {
      const b = compileTime('ptxas', ['-arch=sm_90', '-O3', '-v', f, '-o', '/dev/null']);
      if (b.error) err = `ptxas: ${b.error}`;
      else theirs.push(b.ms);
    }
  }
  const name = path.relative(existsSync(shared) && f.startsWith(shared) ? shared : repo, f);
  const o = ours.length ? median(ours) : NaN;
  const t = theirs.length ? median(theirs) : NaN;
  console.log(`| ${name} | ${o.toFixed(1)} | ${ptxas ? t.toFixed(1) : 'n/a'} | ${Number.isFinite(o / t) ? (o / t).toFixed(2) : 'n/a'} |${err ? ` ${err}` : ''}`);
}
