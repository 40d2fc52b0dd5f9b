#!/usr/bin/env node
// Issue #16, rows 2, 4 and 5: ptxforge and the installed ptxas on the same large generated kernels, side by
// side. Usage: pnpm build && pnpm -s bench:stress [--runs N] [--emit ori|cubin] [--rows 2,4,5]
//
// Inputs (apps/ptxforge/src/stress-ptx.ts): 5000 if/else diamonds (~15k blocks), one register defined 20k times,
// 3000 independent `if` blocks. Whole processes: `ptxforge -arch sm_90 -O3 --no-cache --emit ori|cubin f.ptx
// -o out` against `ptxas -arch=sm_90 -O3 f.ptx -o out.cubin` (ptxas always makes a cubin; `--emit ori` stops
// ptxforge after the optimizer, the phases these rows stress). Runs alternate which tool goes first; the
// figures are medians of per-pair ratios of CPU time (user + system, GNU time) and of wall time: on a shared
// machine wall time mostly measures waiting for a core.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const arg = (name, dflt) => {
  const k = argv.indexOf(name);
  return k >= 0 && argv[k + 1] !== undefined ? argv[k + 1] : dflt;
};
const runs = Number(arg('--runs', '3'));
const emit = arg('--emit', 'ori');
const rows = arg('--rows', '2,4,5').split(',').map(Number);
if (!['ori', 'cubin'].includes(emit) || !Number.isInteger(runs) || runs < 1) {
  console.error('bench-stress: usage: [--runs N] [--emit ori|cubin] [--rows 2,4,5]');
  process.exit(2);
}
const cli = path.join(repo, 'apps/ptxforge/dist/bundle/cli.js');
if (!existsSync(cli)) {
  console.error('bench-stress: build first (pnpm build): apps/ptxforge/dist/bundle/cli.js is missing');
  process.exit(1);
}
const { STRESS_ROWS } = await import('../apps/ptxforge/dist/stress-ptx.js');
let ptxas = true;
try {
  execFileSync('ptxas', ['--version'], { stdio: 'ignore' });
} catch {
  ptxas = false;
}
const gnuTime = existsSync('/usr/bin/time');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'ptxforge-stress-'));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n ? (n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2) : NaN;
};

/** One whole process: wall and CPU seconds (CPU from GNU time when installed). */
function timed(cmd, args) {
  const tf = path.join(tmp, 'time.txt');
  const t0 = process.hrtime.bigint();
  const r = gnuTime
    ? spawnSync('/usr/bin/time', ['-f', '%U %S', '-o', tf, cmd, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 })
    : spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (rc ${r.status}): ${(r.stderr || '').slice(0, 400)}`);
  let cpu = NaN;
  if (gnuTime) {
    const [u, s] = readFileSync(tf, 'utf8').trim().split('\n').pop().split(/\s+/).map(Number);
    cpu = u + s;
  }
  return { wall, cpu };
}

const lines = [];
const out = (s = '') => {
  lines.push(s);
  console.log(s);
};
out(`Rows 2/4/5 of issue #16, ${new Date().toISOString().slice(0, 16)}Z, ${os.cpus()[0]?.model ?? 'cpu'} x${os.cpus().length}, load ${os.loadavg().map((x) => x.toFixed(1)).join('/')}, ${runs} pairs, ptxforge --emit ${emit}${ptxas ? '' : ' (ptxas not installed: ptxforge only)'}`);
out();
out(`| row | input | PTX lines | ptxforge CPU s | ptxas CPU s | CPU ratio (median of pairs) | ptxforge wall s | ptxas wall s | wall ratio |`);
out(`|---|---|---:|---:|---:|---:|---:|---:|---:|`);
try {
  for (const row of STRESS_ROWS.filter((r) => rows.includes(r.row))) {
    const f = path.join(tmp, `${row.name}.ptx`);
    const text = row.make();
    writeFileSync(f, text);
    const ours = () => timed(process.execPath, [cli, '-arch', 'sm_90', '-O3', '--no-cache', '--emit', emit, f, '-o', path.join(tmp, `ours.${emit}`)]);
    const theirs = () => timed('ptxas', ['-arch=sm_90', '-O3', f, '-o', path.join(tmp, 'theirs.cubin')]);
    const o = [];
    const t = [];
    for (let k = 0; k < runs; k++) {
      if (!ptxas) o.push(ours());
      else if (k % 2) (t.push(theirs()), o.push(ours()));
      else (o.push(ours()), t.push(theirs()));
    }
    const fmt = (x) => (Number.isFinite(x) ? x.toFixed(2) : '-');
    const ratio = (key) => (ptxas ? median(o.map((x, k) => x[key] / t[k][key])) : NaN);
    out(
      `| ${row.row} | ${row.what} | ${text.split('\n').length} | ${fmt(median(o.map((x) => x.cpu)))} | ${fmt(ptxas ? median(t.map((x) => x.cpu)) : NaN)} | ${fmt(ratio('cpu'))} | ${fmt(median(o.map((x) => x.wall)))} | ${fmt(ptxas ? median(t.map((x) => x.wall)) : NaN)} | ${fmt(ratio('wall'))} |`,
    );
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
