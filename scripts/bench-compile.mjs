#!/usr/bin/env node
// Compile time of ptxforge and of the installed ptxas on the same PTX, side by side in one run.
// Usage: pnpm build && pnpm -s bench:compile [--runs N] [--batch-runs N] [--jobs N] [--no-corpus]
//
// Honest by construction: both tools run as whole processes, in pairs that alternate which one goes
// first, and every figure is a median of per-pair ratios (absolute times on a shared machine drift; a
// ratio taken within one pair mostly cancels the drift). Measured:
//  1. start-up: `ptxforge --version` against `node -e 0` (the floor of any Node program);
//  2. per file, whole process: `ptxforge -arch sm_90 -O3 -v --no-cache -o x.ori f.ptx` against
//     `ptxas -arch=sm_90 -O3 -v f.ptx -o x.cubin` (wall time), plus the in-process "Compile time = X ms"
//     lines both print (ptxas's excludes its parsing; ours covers parsing, lowering and the pipeline);
//  3. batch throughput: all files in one `ptxforge --jobs N --output-dir` process against a shell loop
//     running ptxas once per file (how build systems and Triton call ptxas).
// ptxforge stops at optimized Ori (no register allocation, scheduling or encoding yet), so it does less
// work than ptxas: the ratios say where it stands, not a like-for-like race.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const shared = path.resolve(repo, '../shared/corpus');
const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const k = argv.indexOf(name);
  return k >= 0 ? Number(argv[k + 1]) || dflt : dflt;
};
const runs = opt('--runs', 5);
const batchRuns = opt('--batch-runs', 3);
const jobs = opt('--jobs', os.availableParallelism?.() ?? os.cpus().length);
const useCorpus = !argv.includes('--no-corpus');

const cli = path.join(repo, 'apps/ptxforge/bin/ptxforge');
if (!existsSync(path.join(repo, 'apps/ptxforge/dist/bundle/cli.js'))) {
  console.error('bench-compile: build first (pnpm build): apps/ptxforge/dist/bundle/cli.js is missing');
  process.exit(1);
}
let ptxas = true;
try {
  execFileSync('ptxas', ['--version'], { stdio: 'ignore' });
} catch {
  ptxas = false;
}

const files = ['packages/ptx/test/fixtures/kernels', 'apps/bench-opt/kernels', 'bench/compile'].flatMap((d) =>
  readdirSync(path.join(repo, d)).filter((f) => f.endsWith('.ptx')).sort().map((f) => path.join(repo, d, f)),
);
const corpusFiles = [];
if (existsSync(shared) && useCorpus) {
  for (const f of ['ptx-ir/simple/flashattention_bwd.ptx', 'ptoxide/kernels/gemm.ptx', 'ptoxide/kernels/transpose.ptx']) {
    if (existsSync(path.join(shared, f))) files.push(path.join(shared, f));
  }
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const f = path.join(d, e.name);
      if (e.isDirectory()) walk(f);
      else if (e.name.endsWith('.ptx')) corpusFiles.push(f);
    }
  };
  walk(shared);
  corpusFiles.sort();
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ptxforge-bench-'));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n ? (n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2) : NaN;
};
const geomean = (xs) => Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);

/** Wall time of one process in ms, its exit status and the sum of its "Compile time = X ms" lines. */
function timed(cmd, args) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  const wall = Number(process.hrtime.bigint() - t0) / 1e6;
  let inproc = 0;
  for (const m of `${r.stdout}\n${r.stderr}`.matchAll(/Compile time = ([\d.]+) ms/g)) inproc += Number(m[1]);
  return { wall, inproc, ok: r.status === 0, err: String(r.stderr || r.error?.message || '').split('\n')[0].slice(0, 120) };
}

/** Run `a` and `b` `n` times in pairs, alternating which goes first; per-pair ratios a/b. */
function paired(n, a, b) {
  const ra = [];
  const rb = [];
  for (let k = 0; k < n; k++) {
    if (k % 2 === 0) {
      ra.push(a());
      rb.push(b());
    } else {
      rb.push(b());
      ra.push(a());
    }
  }
  return { a: ra, b: rb };
}

const cpu = os.cpus()[0]?.model?.trim() ?? 'cpu';
console.log(`# bench:compile, ${new Date().toISOString()}, ${cpu} x${os.cpus().length}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}, load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
console.log(`# ptxforge: ${cli} (launcher: V8 snapshot when built, else the ESM bundle); ptxas: ${ptxas ? execFileSync('ptxas', ['--version'], { encoding: 'utf8' }).split('\n').find((l) => /release/.test(l))?.trim() : 'not found'}`);
console.log(`# ${runs} pairs per row, alternating order; medians of per-pair ratios\n`);

// 1. Start-up.
{
  const p = paired(Math.max(runs, 10), () => timed(cli, ['--version']), () => timed(process.execPath, ['-e', '0']));
  const ratios = p.a.map((x, k) => x.wall / p.b[k].wall);
  console.log('## Start-up\n');
  console.log('| command | median wall (ms) | ratio to `node -e 0` (median of pairs) |');
  console.log('|---|---:|---:|');
  console.log(`| ptxforge --version | ${median(p.a.map((x) => x.wall)).toFixed(1)} | ${median(ratios).toFixed(2)} |`);
  console.log(`| node -e 0 | ${median(p.b.map((x) => x.wall)).toFixed(1)} | 1.00 |\n`);
}

// 2. Per file.
if (ptxas) {
  console.log('## Whole process and in-process, per file (sm_90, -O3)\n');
  console.log('| file | ptxforge wall (ms) | ptxas wall (ms) | wall ratio | ptxforge in-process (ms) | ptxas "Compile time" (ms) | in-process ratio |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  const wallRatios = [];
  for (const f of files) {
    const out = path.join(tmp, 'x');
    const p = paired(
      runs,
      () => timed(cli, ['-arch', 'sm_90', '-O3', '-v', '--no-cache', '-o', `${out}.ori`, f]),
      () => timed('ptxas', ['-arch=sm_90', '-O3', '-v', f, '-o', `${out}.cubin`]),
    );
    const name = path.relative(existsSync(shared) && f.startsWith(shared) ? shared : repo, f);
    const bad = [...p.a.filter((x) => !x.ok).map((x) => `ptxforge: ${x.err}`), ...p.b.filter((x) => !x.ok).map((x) => `ptxas: ${x.err}`)];
    if (bad.length) {
      console.log(`| ${name} | | | | | | | ${bad[0]}`);
      continue;
    }
    const wr = median(p.a.map((x, k) => x.wall / p.b[k].wall));
    const ir = median(p.a.map((x, k) => x.inproc / p.b[k].inproc));
    wallRatios.push(wr);
    console.log(
      `| ${name} | ${median(p.a.map((x) => x.wall)).toFixed(1)} | ${median(p.b.map((x) => x.wall)).toFixed(1)} | ${wr.toFixed(2)} | ${median(p.a.map((x) => x.inproc)).toFixed(1)} | ${median(p.b.map((x) => x.inproc)).toFixed(1)} | ${ir.toFixed(2)} |`,
    );
  }
  if (wallRatios.length) console.log(`\nGeometric mean of the wall-time ratios: ${geomean(wallRatios).toFixed(2)}\n`);
} else {
  console.log('# ptxas not found: the per-file and batch comparisons are skipped\n');
}

// 3. Batch throughput against a ptxas shell loop.
if (ptxas) {
  for (const [label, set] of [['bench files', files], ['corpus', corpusFiles]]) {
    if (!set.length) continue;
    // Only files both accept: a failing file would make either side's time meaningless.
    const ok = set.filter((f) => spawnSync('ptxas', ['-arch=sm_90', f, '-o', path.join(tmp, 'probe.cubin')]).status === 0);
    const loop = `for f in "$@"; do ptxas -arch=sm_90 -O3 "$f" -o "${tmp}/loop.cubin" || exit 1; done`;
    const p = paired(
      batchRuns,
      () => {
        const dir = path.join(tmp, `batch-${Math.random().toString(36).slice(2)}`);
        const r = timed(cli, ['-arch', 'sm_90', '-O3', '--no-cache', '--jobs', String(jobs), '--emit', 'ori', '--output-dir', dir, ...ok]);
        rmSync(dir, { recursive: true, force: true });
        return r;
      },
      () => timed('bash', ['-c', loop, 'loop', ...ok]),
    );
    const failed = p.a.filter((x) => !x.ok).length;
    console.log(`## Batch: ${label} (${ok.length} files ptxas accepts), ptxforge --jobs ${jobs} vs a ptxas shell loop\n`);
    console.log('| ptxforge batch (ms) | ptxas loop (ms) | throughput ratio (loop time / batch time) |');
    console.log('|---:|---:|---:|');
    console.log(
      `| ${median(p.a.map((x) => x.wall)).toFixed(0)} | ${median(p.b.map((x) => x.wall)).toFixed(0)} | ${median(p.a.map((x, k) => p.b[k].wall / x.wall)).toFixed(2)} |${failed ? ` (ptxforge failed on some files in ${failed} runs: ${p.a.find((x) => !x.ok)?.err})` : ''}\n`,
    );
  }
}
rmSync(tmp, { recursive: true, force: true });
