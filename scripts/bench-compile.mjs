#!/usr/bin/env node
// Compile time of ptxforge and of the installed ptxas on the same PTX, side by side in one run.
// Usage: pnpm build && pnpm -s bench:compile [--runs N] [--batch-runs N] [--jobs N] [--no-corpus]
//        [--emit cubin|ori] [--no-batch] [--files a.ptx,b.ptx]
//
// Honest by construction: both tools run as whole processes, in pairs that alternate which one goes
// first, and every figure is a median of per-pair ratios (absolute times on a shared machine drift; a
// ratio taken within one pair mostly cancels the drift). Wall and CPU time (user + system, from GNU time
// when installed) are both reported: on a loaded machine the CPU ratio is the steadier one. Measured:
//  1. start-up: `ptxforge --version` against `node -e 0` (the floor of any Node program);
//  2. per file, whole process: `ptxforge -arch sm_90 -O3 -v --no-cache -o x.cubin f.ptx` (code
//     generation included; `--emit ori` stops at optimized Ori) against `ptxas -arch=sm_90 -O3 -v f.ptx
//     -o x.cubin`, plus the in-process "Compile time = X ms" lines both print (ptxas's excludes its
//     parsing; ours covers parsing, lowering, the pipeline and code generation);
//  3. batch throughput: all files in one `ptxforge --jobs N --output-dir` process against a shell loop
//     running ptxas once per file (how build systems and Triton call ptxas), on the files both compile.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// PTXFORGE_CORPUS names the corpus folder when ../shared is elsewhere (e.g. a git worktree)
const shared = process.env.PTXFORGE_CORPUS ?? path.resolve(repo, '../shared/corpus');
const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const k = argv.indexOf(name);
  return k >= 0 ? Number(argv[k + 1]) || dflt : dflt;
};
const runs = opt('--runs', 5);
const batchRuns = opt('--batch-runs', 3);
const jobs = opt('--jobs', os.availableParallelism?.() ?? os.cpus().length);
const useCorpus = !argv.includes('--no-corpus');
// What ptxforge writes: a cubin (like ptxas; code generation included) or, with --emit ori, optimized Ori.
const emit = argv.includes('--emit') ? argv[argv.indexOf('--emit') + 1] : 'cubin';
const skipBatch = argv.includes('--no-batch');
const onlyFiles = argv.includes('--files') ? argv[argv.indexOf('--files') + 1].split(',') : undefined;

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
if (onlyFiles) files.splice(0, files.length, ...onlyFiles.map((f) => path.resolve(f)));
const corpusFiles = [];
if (existsSync(shared) && useCorpus && !onlyFiles) {
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
// GNU time counts CPU in 10 ms steps: a process under 10 ms reads 0. Such pairs have no CPU ratio (they would
// be infinite); a row with none left says so (n/a).
const cpuRatio = (a, b) => (b.cpu > 0 ? a.cpu / b.cpu : NaN);
const finite = (xs) => xs.filter((x) => Number.isFinite(x));
const fmt = (x) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');

// CPU time (user + system) of each process comes from GNU time when it is installed: on a loaded machine
// wall time mostly measures waiting for a core, CPU time what the process itself cost.
const gnuTime = existsSync('/usr/bin/time') && spawnSync('/usr/bin/time', ['-f', '%U', 'true']).status === 0 ? '/usr/bin/time' : undefined;
const timeFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'ptxforge-bench-time-')), 't');

/**
 * Wall time of one process in ms, its CPU time (user + system, ms; NaN without GNU time), its exit status
 * and the sum of its "Compile time = X ms" lines.
 */
function timed(cmd, args) {
  const [exe, argv] = gnuTime ? [gnuTime, ['-f', '%U %S', '-o', timeFile, cmd, ...args]] : [cmd, args];
  const t0 = process.hrtime.bigint();
  const r = spawnSync(exe, argv, { encoding: 'utf8', maxBuffer: 1 << 28 });
  const wall = Number(process.hrtime.bigint() - t0) / 1e6;
  let cpu = NaN;
  if (gnuTime) {
    const m = /([\d.]+) ([\d.]+)\s*$/.exec(readFileSync(timeFile, 'utf8'));
    if (m) cpu = (Number(m[1]) + Number(m[2])) * 1000;
  }
  let inproc = 0;
  for (const m of `${r.stdout}\n${r.stderr}`.matchAll(/Compile time = ([\d.]+) ms/g)) inproc += Number(m[1]);
  return { wall, cpu, inproc, ok: r.status === 0, err: String(r.stderr || r.error?.message || '').split('\n')[0].slice(0, 120) };
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
console.log(`# ${runs} pairs per row, alternating order; medians of per-pair ratios; ptxforge writes ${emit === 'ori' ? 'optimized Ori (--emit ori)' : 'a cubin'}; CPU time ${gnuTime ? 'from GNU time' : 'not measured (no /usr/bin/time)'}\n`);

// 1. Start-up.
{
  const p = paired(Math.max(runs, 10), () => timed(cli, ['--version']), () => timed(process.execPath, ['-e', '0']));
  const ratios = p.a.map((x, k) => x.wall / p.b[k].wall);
  const cpuRatios = p.a.map((x, k) => x.cpu / p.b[k].cpu);
  console.log('## Start-up\n');
  console.log('| command | median wall (ms) | wall ratio to `node -e 0` (median of pairs) | median CPU (ms) | CPU ratio |');
  console.log('|---|---:|---:|---:|---:|');
  console.log(`| ptxforge --version | ${median(p.a.map((x) => x.wall)).toFixed(1)} | ${median(ratios).toFixed(2)} | ${median(p.a.map((x) => x.cpu)).toFixed(0)} | ${median(cpuRatios).toFixed(2)} |`);
  console.log(`| node -e 0 | ${median(p.b.map((x) => x.wall)).toFixed(1)} | 1.00 | ${median(p.b.map((x) => x.cpu)).toFixed(0)} | 1.00 |\n`);
}

// 2. Per file.
if (ptxas) {
  console.log('## Whole process and in-process, per file (sm_90, -O3)\n');
  console.log('| file | ptxforge wall (ms) | ptxas wall (ms) | wall ratio | CPU ratio | ptxforge in-process (ms) | ptxas "Compile time" (ms) | in-process ratio |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  const wallRatios = [];
  const cpuRatios = [];
  for (const f of files) {
    const out = path.join(tmp, 'x');
    const p = paired(
      runs,
      () => timed(cli, ['-arch', 'sm_90', '-O3', '-v', '--no-cache', '-o', `${out}-ours.${emit}`, f]),
      () => timed('ptxas', ['-arch=sm_90', '-O3', '-v', f, '-o', `${out}.cubin`]),
    );
    const name = path.relative(existsSync(shared) && f.startsWith(shared) ? shared : repo, f);
    const bad = [...p.a.filter((x) => !x.ok).map((x) => `ptxforge: ${x.err}`), ...p.b.filter((x) => !x.ok).map((x) => `ptxas: ${x.err}`)];
    if (bad.length) {
      console.log(`| ${name} | | | | | | | ${bad[0]}`);
      continue;
    }
    const wr = median(p.a.map((x, k) => x.wall / p.b[k].wall));
    const cr = median(finite(p.a.map((x, k) => cpuRatio(x, p.b[k]))));
    const ir = median(p.a.map((x, k) => x.inproc / p.b[k].inproc));
    wallRatios.push(wr);
    if (Number.isFinite(cr)) cpuRatios.push(cr);
    console.log(
      `| ${name} | ${median(p.a.map((x) => x.wall)).toFixed(1)} | ${median(p.b.map((x) => x.wall)).toFixed(1)} | ${wr.toFixed(2)} | ${fmt(cr)} | ${median(p.a.map((x) => x.inproc)).toFixed(1)} | ${median(p.b.map((x) => x.inproc)).toFixed(1)} | ${ir.toFixed(2)} |`,
    );
  }
  if (wallRatios.length) console.log(`\nGeometric mean of the wall-time ratios: ${geomean(wallRatios).toFixed(2)}; of the CPU-time ratios: ${fmt(geomean(cpuRatios))} (${cpuRatios.length} files with a CPU ratio)\n`);
} else {
  console.log('# ptxas not found: the per-file and batch comparisons are skipped\n');
}

// 3. Batch throughput against a ptxas shell loop.
if (ptxas && !skipBatch) {
  for (const [label, set] of [['bench files', files], ['corpus', corpusFiles]]) {
    if (!set.length) continue;
    // Only files both accept: a failing file would make either side's time meaningless.
    const ok = set.filter(
      (f) =>
        spawnSync('ptxas', ['-arch=sm_90', f, '-o', path.join(tmp, 'probe.cubin')]).status === 0 &&
        spawnSync(cli, ['-arch', 'sm_90', '--no-cache', '-o', path.join(tmp, `probe.${emit}`), f]).status === 0,
    );
    const loop = `for f in "$@"; do ptxas -arch=sm_90 -O3 "$f" -o "${tmp}/loop.cubin" || exit 1; done`;
    const p = paired(
      batchRuns,
      () => {
        const dir = path.join(tmp, `batch-${Math.random().toString(36).slice(2)}`);
        const r = timed(cli, ['-arch', 'sm_90', '-O3', '--no-cache', '--jobs', String(jobs), '--emit', emit, '--output-dir', dir, ...ok]);
        rmSync(dir, { recursive: true, force: true });
        return r;
      },
      () => timed('bash', ['-c', loop, 'loop', ...ok]),
    );
    const failed = p.a.filter((x) => !x.ok).length;
    console.log(`## Batch: ${label} (${ok.length} of ${set.length} files that ptxas and ptxforge both compile), ptxforge --jobs ${jobs} --emit ${emit} vs a ptxas shell loop\n`);
    console.log('| ptxforge batch (ms) | ptxas loop (ms) | throughput ratio (loop time / batch time) | CPU ratio (loop CPU / batch CPU) |');
    console.log('|---:|---:|---:|---:|');
    console.log(
      `| ${median(p.a.map((x) => x.wall)).toFixed(0)} | ${median(p.b.map((x) => x.wall)).toFixed(0)} | ${median(p.a.map((x, k) => p.b[k].wall / x.wall)).toFixed(2)} | ${median(p.a.map((x, k) => p.b[k].cpu / x.cpu)).toFixed(2)} |${failed ? ` (ptxforge failed on some files in ${failed} runs: ${p.a.find((x) => !x.ok)?.err})` : ''}\n`,
    );
  }
}
rmSync(tmp, { recursive: true, force: true });
rmSync(path.dirname(timeFile), { recursive: true, force: true });
