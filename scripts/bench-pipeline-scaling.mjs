#!/usr/bin/env node
// Whole-pipeline scaling on one big function: generated PTX kernels of about 8k, 16k and 32k instructions
// (several shapes), compiled by `ptxforge -arch sm_90 -O3 --stat=phase-wise` and, when installed, by
// `ptxas -arch=sm_90 -O3` on the same file (one run each, whole processes: wall time, and CPU time = user +
// system from GNU time). By default ptxforge goes through code generation to a cubin like ptxas; `--emit ori`
// stops it after the optimizer. Prints per shape the total time per size, the optimizer pipeline's own time
// (--stat's "All Phases Summary"), the growth for 4x the input (goal <= 4.6x), ptxas's time beside it, and
// every phase whose own time grows by more than 4.6x from the smallest to the largest size (the superlinear
// suspects), with its share.
// With `--runs N` every size runs N times per shape, the sizes alternating within each round; the table shows
// medians and the growth is the median over rounds of (largest size / smallest size), in CPU and in wall time
// (on a loaded machine CPU time is the figure to read). `--no-ptxas` skips the ptxas runs.
// Usage: pnpm build && node scripts/bench-pipeline-scaling.mjs [--sizes 8000,16000,32000] [--shapes a,b] [--emit ori|cubin] [--runs N] [--no-ptxas]
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(repo, 'apps/ptxforge/bin/ptxforge');
const argv = process.argv.slice(2);
const arg = (n, d) => {
  const k = argv.indexOf(n);
  return k >= 0 ? argv[k + 1] : d;
};
const sizes = arg('--sizes', '8000,16000,32000').split(',').map(Number);
// --emit ori stops after the optimizer (the 159-phase pipeline); the default goes on through code
// generation to a cubin, as ptxas does.
const emit = arg('--emit', 'cubin');
const runs = Math.max(1, Number(arg('--runs', '1')) || 1);
const median = (xs) => {
  const v = xs.filter(Number.isFinite).sort((a, b) => a - b);
  const n = v.length;
  return n ? (n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) : NaN;
};
const tmp = mkdtempSync(path.join(os.tmpdir(), 'ptxforge-scaling-'));

const header = (name) => `.version 8.5
.target sm_90
.address_size 64
.visible .entry ${name}(.param .u64 p_out, .param .u64 p_in, .param .u32 p_n)
{
  .reg .pred %p<8>;
  .reg .b32 %r<64>;
  .reg .b64 %rd<16>;
  .reg .f32 %f<32>;
  ld.param.u64 %rd1, [p_out];
  ld.param.u64 %rd2, [p_in];
  ld.param.u32 %r1, [p_n];
  cvta.to.global.u64 %rd3, %rd1;
  cvta.to.global.u64 %rd4, %rd2;
  mov.u32 %r2, %tid.x;
  mul.wide.u32 %rd5, %r2, 4;
  add.s64 %rd6, %rd4, %rd5;
  add.s64 %rd7, %rd3, %rd5;
  ld.global.u32 %r3, [%rd6];
  mov.u32 %r4, 0;
  mov.f32 %f1, 0f3F800000;
`;
const footer = `  st.global.u32 [%rd7], %r4;
  ret;
}
`;

/** Shapes of code, each a unit of about `per` PTX instructions, repeated to reach a size. */
const SHAPES = {
  // Straight-line integer and float arithmetic, values chained through a few registers.
  straight: { per: 8, unit: (k) => `  add.s32 %r5, %r3, ${k};
  mul.lo.s32 %r6, %r5, %r2;
  xor.b32 %r7, %r6, %r4;
  shl.b32 %r8, %r7, 3;
  add.s32 %r4, %r8, %r5;
  cvt.rn.f32.s32 %f2, %r4;
  fma.rn.f32 %f1, %f2, 0f3F000000, %f1;
  cvt.rzi.s32.f32 %r9, %f1;
` },
  // if/else diamonds on data-dependent conditions.
  diamonds: { per: 8, unit: (k) => `  and.b32 %r5, %r4, ${(k % 31) + 1};
  setp.eq.s32 %p1, %r5, 0;
  @%p1 bra $LA_${k};
  add.s32 %r4, %r4, ${k};
  bra $LB_${k};
$LA_${k}:
  xor.b32 %r4, %r4, %r3;
$LB_${k}:
  shl.b32 %r6, %r4, 1;
  add.s32 %r4, %r6, %r2;
` },
  // One register redefined over and over (the live-dead stress of issue 16).
  redefine: { per: 4, unit: (k) => `  add.s32 %r4, %r4, ${k};
  xor.b32 %r4, %r4, %r3;
  mul.lo.s32 %r4, %r4, 3;
  add.s32 %r4, %r4, %r2;
` },
  // Small counted loops in sequence.
  loops: { per: 9, unit: (k) => `  mov.u32 %r10, 0;
$LL_${k}:
  add.s32 %r4, %r4, %r10;
  xor.b32 %r4, %r4, ${k};
  add.s32 %r10, %r10, 1;
  setp.lt.u32 %p2, %r10, %r1;
  @%p2 bra $LL_${k};
  shl.b32 %r11, %r4, 1;
  add.s32 %r4, %r11, %r3;
` },
};
const shapes = arg('--shapes', Object.keys(SHAPES).join(',')).split(',');

function generate(shape, n) {
  const s = SHAPES[shape];
  const units = Math.max(1, Math.round(n / s.per));
  let body = '';
  for (let k = 0; k < units; k++) body += s.unit(k);
  return header(`scale_${shape}`) + body + footer;
}

const gnuTime = existsSync('/usr/bin/time');
/** One whole process: wall ms, and CPU seconds (user + system, GNU time) when /usr/bin/time exists. */
function run(cmd, args) {
  const tf = path.join(tmp, 'time.txt');
  const t0 = process.hrtime.bigint();
  const r = gnuTime
    ? spawnSync('/usr/bin/time', ['-f', '%U %S', '-o', tf, cmd, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 })
    : spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  let cpu = NaN;
  if (gnuTime && existsSync(tf)) {
    const [u, s] = readFileSync(tf, 'utf8').trim().split('\n').pop().split(/\s+/).map(Number);
    cpu = u + s;
  }
  return { ms, cpu, ok: r.status === 0, stderr: r.stderr ?? '', err: (r.stderr || '').split('\n')[0] };
}

let ptxas = !argv.includes('--no-ptxas');
if (ptxas) try {
  execFileSync('ptxas', ['--version'], { stdio: 'ignore' });
} catch {
  ptxas = false;
}

console.log(`# bench:pipeline-scaling, ${new Date().toISOString()}, ${os.cpus()[0]?.model?.trim()} x${os.cpus().length}, node ${process.version}, load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
for (const shape of shapes) {
  if (!SHAPES[shape]) {
    console.log(`unknown shape ${shape}`);
    continue;
  }
  const rows = [];
  const files = sizes.map((n) => {
    const f = path.join(tmp, `${shape}-${n}.ptx`);
    writeFileSync(f, generate(shape, n));
    return f;
  });
  // rounds[r][k]: run r of size k (sizes alternate within a round; every other round runs them largest first)
  const rounds = [];
  for (let r = 0; r < runs; r++) {
    const order = sizes.map((_, k) => k);
    if (r % 2) order.reverse();
    const round = [];
    for (const k of order) {
      const f = files[k];
      const ours = run(cli, ['-arch', 'sm_90', '-O3', '--no-cache', '--stat=phase-wise', '--emit', emit, f, '-o', path.join(tmp, emit === 'ori' ? 'x.ori' : 'x.cubin')]);
      const theirs = ptxas ? run('ptxas', ['-arch=sm_90', '-O3', f, '-o', path.join(tmp, 'x.cubin')]) : undefined;
      const phases = new Map();
      for (const m of ours.stderr.matchAll(/^(\w+) :: .*\[Time ([\d.]+) ms \]$/gm)) if (m[1] !== 'All') phases.set(m[1], (phases.get(m[1]) ?? 0) + Number(m[2]));
      const all = /^All Phases Summary :: .*\[Time ([\d.]+) ms \]$/m.exec(ours.stderr);
      round[k] = { n: sizes[k], ours, theirs, phases, pipelineMs: all ? Number(all[1]) : NaN };
    }
    rounds.push(round);
  }
  // Per size: medians over the rounds (the phase table of the first round).
  for (let k = 0; k < sizes.length; k++) {
    const rs = rounds.map((round) => round[k]);
    const ok = rs.every((x) => x.ours.ok);
    const theirsOk = rs.every((x) => x.theirs?.ok);
    rows.push({
      n: sizes[k],
      ours: { ok, ms: median(rs.map((x) => x.ours.ms)), cpu: median(rs.map((x) => x.ours.cpu)), err: rs.find((x) => !x.ours.ok)?.ours.err },
      theirs: rs[0].theirs && { ok: theirsOk, ms: median(rs.map((x) => x.theirs.ms)), cpu: median(rs.map((x) => x.theirs.cpu)), err: rs.find((x) => !x.theirs.ok)?.theirs.err },
      phases: rs[0].phases,
      pipelineMs: median(rs.map((x) => x.pipelineMs)),
    });
  }
  console.log(`\n## ${shape}\n`);
  console.log(`| PTX instructions | ptxforge wall (ms) | ptxas wall (ms) | wall ratio | ptxforge CPU (s) | ptxas CPU (s) | CPU ratio | optimizer pipeline (ms) |`);
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    const t = r.theirs?.ok ? r.theirs.ms : NaN;
    const tc = r.theirs?.ok ? r.theirs.cpu : NaN;
    const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');
    console.log(`| ${r.n} | ${r.ours.ok ? r.ours.ms.toFixed(0) : `failed: ${r.ours.err}`} | ${Number.isFinite(t) ? t.toFixed(0) : r.theirs ? `failed: ${r.theirs.err}` : 'n/a'} | ${Number.isFinite(t) && r.ours.ok ? (r.ours.ms / t).toFixed(2) : ''} | ${f2(r.ours.cpu)} | ${f2(tc)} | ${r.ours.ok ? f2(r.ours.cpu / tc) : ''} | ${Number.isFinite(r.pipelineMs) ? r.pipelineMs.toFixed(0) : 'n/a'} |`);
  }
  const a = rows[0];
  const b = rows[rows.length - 1];
  if (a && b && a !== b && a.ours.ok && b.ours.ok) {
    const growth = b.ours.ms / a.ours.ms;
    const goal = ((4.6 * b.n) / a.n / 4).toFixed(1);
    const last = sizes.length - 1;
    const perRound = (f) => median(rounds.map((round) => f(round[last]) / f(round[0])));
    const g = runs > 1 ? { wall: perRound((x) => x.ours.ms), cpu: perRound((x) => x.ours.cpu), pipe: perRound((x) => x.pipelineMs) } : { wall: growth, cpu: b.ours.cpu / a.ours.cpu, pipe: b.pipelineMs / a.pipelineMs };
    console.log(`\nGrowth for ${(b.n / a.n).toFixed(0)}x the input${runs > 1 ? ` (median of ${runs} rounds)` : ''}: ${g.wall.toFixed(2)}x wall, ${g.cpu.toFixed(2)}x CPU, ${g.pipe.toFixed(2)}x optimizer pipeline (goal <= ${goal}x)`);
    const suspects = [...b.phases]
      .map(([name, ms]) => ({ name, ms, g: ms / Math.max(0.05, a.phases.get(name) ?? 0.05) }))
      .filter((p) => p.g > (4.6 * b.n) / a.n / 4 && p.ms > 0.02 * b.ours.ms)
      .sort((x, y) => y.ms - x.ms);
    for (const p of suspects) console.log(`- superlinear: ${p.name} ${p.ms.toFixed(0)} ms at ${b.n} (${p.g.toFixed(1)}x)`);
  }
}
rmSync(tmp, { recursive: true, force: true });
