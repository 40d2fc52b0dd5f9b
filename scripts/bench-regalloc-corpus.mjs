#!/usr/bin/env node
// Register counts of @ptxforge/regalloc beside ptxas -O3 on the PTX corpus (issue 12: registers <= 1.3x ptxas,
// geomean). For each corpus PTX file: ptxas 13.0 -arch=sm_90 -O3 -v gives "Used N registers" per entry;
// ptxforge -O3 --emit ori gives the optimized Ori (SASS-level opcodes, virtual registers), which is allocated
// with R1 reserved (ptxas's stack pointer) after the pre-RA scheduler, and reported as ptxas counts
// (highest R + 1 + 2). The Ori is the input of instruction selection, not its output, so this measures the
// allocator and scheduler on pre-legalization code: an estimate until the SASS path lands.
// Needs ../shared/corpus and ptxas; skips (and says so) otherwise.
// Usage: pnpm --filter @ptxforge/regalloc... --filter @ptxforge/cli... build && node scripts/bench-regalloc-corpus.mjs [--limit N]
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const corpus = path.resolve(root, '../shared/corpus');
const argv = process.argv.slice(2);
const limit = Number(argv[argv.indexOf('--limit') + 1] || 0) || Infinity;
if (!fs.existsSync(corpus)) {
  console.log('bench-regalloc-corpus: ../shared/corpus is absent, skipped');
  process.exit(0);
}
if (spawnSync('ptxas', ['--version']).status !== 0) {
  console.log('bench-regalloc-corpus: ptxas is not installed, skipped');
  process.exit(0);
}
const { parseOri } = await import('../packages/kernel/dist/index.js');
const { allocateRegisters, classesFromRegisterFile, ptxasReportedRegisters, raFunctionFromOri, schedulePreRA, schedulePostRA, schedLatencyFromModel, SPILL_HOMES } = await import('../packages/regalloc/dist/index.js');
const { registerFileFor, createLatencyModel, HOPPER_LATENCIES, PIPE_WIDTHS_SM80 } = await import('../packages/target-common/dist/index.js');

const files = [];
const walk = (d) => {
  for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = path.join(d, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name.endsWith('.ptx')) files.push(p);
  }
};
walk(corpus);
const chosen = files.slice(0, limit);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ra-corpus-'));
// one ptxforge process for all inputs (batch mode); files it rejects simply have no output
const names = new Map();
const inputs = [];
chosen.forEach((f, k) => {
  const link = path.join(tmp, `f${k}.ptx`);
  fs.copyFileSync(f, link);
  names.set(`f${k}`, path.relative(corpus, f));
  inputs.push(link);
});
fs.mkdirSync(path.join(tmp, 'ori'));
spawnSync(path.join(root, 'apps/ptxforge/bin/ptxforge'), ['-arch', 'sm_90', '-O3', '--emit', 'ori', '--output-dir', path.join(tmp, 'ori'), ...inputs], { stdio: 'ignore' });

const CLASSES = classesFromRegisterFile(registerFileFor({ maxRegistersPerThread: 255, uniformRegisters: true, convergenceBarriers: true }));
const LAT = schedLatencyFromModel(createLatencyModel(PIPE_WIDTHS_SM80, { alu: 4, fma: 4, dfma: 8, mma: 16 }, HOPPER_LATENCIES));
const rows = [];
for (const [key, shown] of names) {
  const oriPath = path.join(tmp, 'ori', `${key}.ori`);
  if (!fs.existsSync(oriPath)) continue;
  let out;
  try {
    out = execFileSync('ptxas', ['-arch=sm_90', '-O3', '-v', path.join(tmp, `${key}.ptx`), '-o', path.join(tmp, `${key}.cubin`)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    out = null;
  }
  if (out === null) continue;
  const r = spawnSync('ptxas', ['-arch=sm_90', '-O3', '-v', path.join(tmp, `${key}.ptx`), '-o', path.join(tmp, `${key}.cubin`)], { encoding: 'utf8' });
  const text = `${r.stdout}${r.stderr}`;
  const used = new Map();
  let cur;
  for (const line of text.split('\n')) {
    const m = /Compiling entry function '([^']+)'/.exec(line) ?? /Function properties for (\S+)/.exec(line);
    if (m) cur = m[1];
    const u = /Used (\d+) registers/.exec(line);
    if (u && cur) used.set(cur, Number(u[1]));
  }
  let mod;
  try {
    mod = parseOri(fs.readFileSync(oriPath, 'utf8'));
  } catch {
    continue;
  }
  for (const fn of mod.functions) {
    if (fn.kind !== 'entry' || !used.has(fn.name)) continue;
    const { fn: ra } = raFunctionFromOri(fn);
    const opts = { classes: CLASSES, reserved: { R: [1] }, spillHome: SPILL_HOMES };
    let res, pre, ms;
    try {
      const t0 = performance.now();
      pre = schedulePreRA(ra, { latency: LAT, pressureLimit: { R: 32 } });
      res = allocateRegisters(pre.fn, opts);
      ms = performance.now() - t0;
    } catch (e) {
      rows.push({ file: shown, fn: fn.name, error: e.code ?? String(e) });
      continue;
    }
    const ours = ptxasReportedRegisters(Math.max(res.usage.R?.used ?? 0, 2));
    const noSched = ptxasReportedRegisters(Math.max(allocateRegisters(ra, opts).usage.R?.used ?? 0, 2));
    const post = schedulePostRA(res, { latency: LAT });
    rows.push({
      file: shown, fn: fn.name, instrs: fn.instructionCount, ptxas: used.get(fn.name), ours, noSched, ms, spills: res.stats.spillStores,
      cyc0: pre.stats.cyclesBefore, cyc1: pre.stats.cyclesAfter, cyc2: post.stats.cyclesAfter,
    });
  }
}
fs.rmSync(tmp, { recursive: true, force: true });
const ok = rows.filter((r) => !r.error);
const geo = (xs) => Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);
const ratio = geo(ok.map((r) => r.ours / r.ptxas));
const ratioNoSched = geo(ok.map((r) => r.noSched / r.ptxas));
console.log(`# regalloc vs ptxas -O3 registers, sm_90, ${new Date().toISOString().slice(0, 10)}, ${os.cpus()[0]?.model ?? '?'} x${os.cpus().length}, node ${process.version}`);
console.log(`entries: ${ok.length} compared (${rows.length - ok.length} allocator errors) from ${chosen.length} corpus files`);
console.log(`registers ours/ptxas geomean: ${ratio.toFixed(3)} with the pre-RA scheduler, ${ratioNoSched.toFixed(3)} without; ours <= ptxas on ${ok.filter((r) => r.ours <= r.ptxas).length}`);
const sum = (k) => ok.reduce((s, r) => s + r[k], 0);
console.log(`estimated cycles (single-issue, sum of blocks, SASS latency table + queue estimates): source order ${sum('cyc0')}, pre-RA scheduled ${sum('cyc1')} (${(sum('cyc1') / sum('cyc0')).toFixed(3)}x), after post-RA ${sum('cyc2')} (${(sum('cyc2') / sum('cyc0')).toFixed(3)}x)`);
console.log(`spilling entries: ${ok.filter((r) => r.spills).length}; allocation time total ${ok.reduce((s, r) => s + r.ms, 0).toFixed(0)} ms`);
const worst = [...ok].sort((a, b) => b.ours / b.ptxas - a.ours / a.ptxas).slice(0, 10);
console.log('| file | entry | Ori instrs | ptxas | ours | ours, no pre-RA sched |');
console.log('|---|---|---|---|---|---|');
for (const r of worst) console.log(`| ${r.file} | ${r.fn} | ${r.instrs} | ${r.ptxas} | ${r.ours} | ${r.noSched} |`);
for (const r of rows.filter((x) => x.error)) console.log(`error: ${r.file} ${r.fn}: ${r.error}`);
