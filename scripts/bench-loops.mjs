#!/usr/bin/env node
// Loop-family benchmark (issue #14): for each kernel of plugins/loop/test/fixtures/cuda/loops.ptx (nvcc -arch=sm_90
// -ptx -Xcicc -O1 of loops.cu), the interpreter's dynamic thread-instruction count at -O3 without the loop
// phases (18, 22, 24, 35/66/79/88 disabled) and with them, the loops left in our Ori, and beside them ptxas -O3's
// static instruction count and loops (back edges: BRA with a target at or before itself; targets decoded by
// @ptxforge/mercury-volta through scripts/lib/cubin-branches.mjs). Prints a markdown table and a summary line.
// Usage: node scripts/bench-loops.mjs [n] [file.ptx ...] (default: every .ptx of plugins/loop/test/fixtures/cuda).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir, cpus } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CUDA = path.join(ROOT, 'plugins/loop/test/fixtures/cuda');
const FILES = process.argv.length > 3
  ? process.argv.slice(3).map((f) => path.resolve(f))
  : readdirSync(CUDA).filter((f) => f.endsWith('.ptx')).sort().map((f) => path.join(CUDA, f));
const CLI = path.join(ROOT, 'apps/ptxforge/dist/cli.js');
const N = Number(process.argv[2] ?? 100);
const { parseOri, computeLoops } = await import(path.join(ROOT, 'packages/kernel/dist/index.js'));
const { decodeVoltaSection } = await import(path.join(ROOT, 'targets/mercury-volta/dist/index.js'));
const { cubinLoopCounts } = await import(path.join(ROOT, 'scripts/lib/cubin-branches.mjs'));
const dir = mkdtempSync(path.join(tmpdir(), 'bench-loops-'));
const LOOP_PHASES = 'OriLoopSimplification,OriLoopUnrolling,OriPipelining,OriHoistInvariants';

function ours(PTX, kernel, disable) {
  const launch = path.join(dir, `${path.basename(PTX)}.${kernel}.launch.json`);
  writeFileSync(launch, JSON.stringify({ kernel, grid: [2, 1, 1], block: [64, 1, 1], buffers: { out: { type: 'f32', count: 4096 }, in: { type: 'f32', count: 4096, fill: 0.5 } }, params: [{ buffer: 'out' }, { buffer: 'in' }, N] }));
  const ori = path.join(dir, `${path.basename(PTX)}.${kernel}.${disable ? 'before' : 'after'}.ori`);
  const args = [CLI, PTX, '--gpu-name', 'sm_90', '-O3', '--entry', kernel, '--no-cache', '--run', '--launch', launch, '-o', ori];
  if (disable) args.push('--disable-passes', LOOP_PHASES);
  const out = execFileSync('node', args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  const run = JSON.parse(out);
  const m = parseOri(readFileSync(ori, 'utf8'));
  let loops = 0;
  for (const fn of m.functions) if (fn.name === kernel) loops += computeLoops(fn).all.length; // the kernel only, not device functions
  return { dyn: run.counts.threadInstructions, loops };
}

/** ptxas -O3's static instruction count and loops (back edges decoded by the Mercury decoder). */
function ptxasStats(PTX, kernel) {
  const cubin = path.join(dir, `${path.basename(PTX)}.${kernel}.cubin`);
  execFileSync('ptxas', ['-arch=sm_90', '-O3', '-e', kernel, PTX, '-o', cubin]);
  const stats = cubinLoopCounts(readFileSync(cubin), (code) => decodeVoltaSection('sm_90', code));
  return stats.get(kernel);
}

const hasPtxas = spawnSync('ptxas', ['--version']).status === 0;
const rows = [];
let kernelsN = 0, notMore = 0, oursLoops = 0, ptxasLoops = 0, logRatio = 0;
for (const PTX of FILES) {
  const file = path.basename(PTX, '.ptx');
  const kernels = [...readFileSync(PTX, 'utf8').matchAll(/\.visible \.entry (\w+)\(/g)].map((m) => m[1]);
  for (const k of kernels) {
    const before = ours(PTX, k, true);
    const after = ours(PTX, k, false);
    const px = hasPtxas ? ptxasStats(PTX, k) : undefined;
    kernelsN++;
    oursLoops += after.loops;
    logRatio += Math.log(after.dyn / before.dyn);
    if (px) {
      ptxasLoops += px.loops;
      if (after.loops <= px.loops) notMore++;
    }
    rows.push(`| ${file} | ${k} | ${before.dyn} | ${after.dyn} | ${(after.dyn / before.dyn).toFixed(3)} | ${before.loops} | ${after.loops} | ${px ? px.instructions : 'n/a'} | ${px ? px.loops : 'n/a'} |`);
  }
}
console.log(`Loop kernels (${FILES.map((f) => path.relative(ROOT, f)).join(', ')}), n = ${N}, grid 2x64; ${new Date().toISOString().slice(0, 16)}Z, ${cpus()[0]?.model ?? '?'}`);
console.log('');
console.log('| file | kernel | dyn. thread instrs, loop phases off | with loop phases (-O3) | after/before | our loops before | our loops after | ptxas -O3 static instrs | ptxas -O3 loops |');
console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|');
for (const r of rows) console.log(r);
console.log('');
console.log(`${kernelsN} kernels: loops left ours ${oursLoops}, ptxas -O3 ${hasPtxas ? ptxasLoops : 'n/a'}; no more loops than ptxas on ${hasPtxas ? notMore : 'n/a'}/${kernelsN}; dynamic thread instructions after/before geomean ${Math.exp(logRatio / kernelsN).toFixed(3)}`);
