#!/usr/bin/env node
// `pnpm -s bench:sass-interp`: interpreter speed on lifted SASS against the PTX path, same kernel, same launch
// (issue 11). Per kernel: the PTX compiled in process at -O3 (sm_90) and run by the interpreter, and ptxas's sm_90
// cubin of the same PTX lifted (@ptxforge/sass-lift) and run; runs alternate, medians of per-pair time ratios.
// Rates are thread-instructions per second of each form (their instruction counts differ: SASS vs Ori).
// Needs ../shared/corpus and ptxas (skips otherwise).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const corpus = path.resolve(repo, '../shared/corpus');
const imp = (p) => import(pathToFileURL(path.join(repo, p)).href);
let ptxas = true;
try {
  execFileSync('ptxas', ['--version'], { stdio: 'ignore' });
} catch {
  ptxas = false;
}
if (!existsSync(corpus) || !ptxas) {
  console.log(`bench:sass-interp: skipped (${ptxas ? `${corpus} is absent` : 'no ptxas on PATH'})`);
  process.exit(0);
}
const pairs = Number(process.argv[process.argv.indexOf('--pairs') + 1]) || 5;
const { createToolchain } = await imp('packages/kernel/dist/index.js');
const { loadDefaultPlugins } = await imp('apps/ptxforge/dist/index.js');
const { runKernel } = await imp('packages/interp/dist/index.js');
const { liftCubin } = await imp('packages/sass-lift/dist/index.js');
const { readCubin } = await imp('packages/cubin/dist/index.js');
const tc = createToolchain({ plugins: await loadDefaultPlugins() });

const f32 = (n, f) => Array.from({ length: n }, (_, i) => f(i));
const KERNELS = [
  {
    name: 'ptoxide gemm 32x32x32 (grid 32x32)', file: 'ptoxide/kernels/gemm.ptx', kernel: '_Z4gemmPfS_S_mmm',
    launch: { grid: [32, 32, 1], block: [1, 1, 1], buffers: { a: { type: 'f32', values: f32(1024, (i) => i % 7) }, b: { type: 'f32', values: f32(1024, (i) => i % 5) }, c: { type: 'f32', count: 1024 } },
      params: [{ buffer: 'a' }, { buffer: 'b' }, { buffer: 'c' }, { type: 'u64', value: 32 }, { type: 'u64', value: 32 }, { type: 'u64', value: 32 }], outputs: ['c'] },
  },
  {
    name: 'ptoxide transpose n=32 (block 32x32)', file: 'ptoxide/kernels/transpose.ptx', kernel: '_Z9transposePfS_m',
    launch: { grid: [1, 1, 1], block: [32, 32, 1], buffers: { a: { type: 'f32', values: f32(1024, (i) => i) }, b: { type: 'f32', count: 1024 } },
      params: [{ buffer: 'a' }, { buffer: 'b' }, { type: 'u64', value: 32 }], outputs: ['b'] },
  },
  {
    name: 'ptoxide add n=4096 (grid 16x256)', file: 'ptoxide/kernels/add.ptx', kernel: '_Z3addPfS_S_m',
    launch: { grid: [16, 1, 1], block: [256, 1, 1], buffers: { a: { type: 'f32', values: f32(4096, (i) => i) }, b: { type: 'f32', values: f32(4096, () => 2) }, c: { type: 'f32', count: 4096 } },
      params: [{ buffer: 'a' }, { buffer: 'b' }, { buffer: 'c' }, { type: 'u64', value: 4096 }], outputs: ['c'] },
  },
];

// The nvcc-kernel differential's kernels (apps/ptxforge/test/fixtures/nvcc-kernels), each on the launch the PTX path
// generates for it (seed 1: two CTAs, random buffers), as `ptxforge --run --seed 1` makes it.
const { generateLaunch, findKernel } = await imp('packages/interp/dist/index.js');
const nvccDir = path.join(repo, 'apps/ptxforge/test/fixtures/nvcc-kernels');
for (const d of existsSync(nvccDir) ? readdirSync(nvccDir).sort() : []) {
  const file = path.join(nvccDir, d, 'kernel.ptx');
  if (!existsSync(file)) continue;
  KERNELS.push({ name: `nvcc ${d} (generated launch, seed 1)`, path: file, kernel: d, generated: true });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const tmp = mkdtempSync(path.join(os.tmpdir(), 'bench-sass-interp-'));
const rows = [];
for (const k of KERNELS) {
  const ptx = k.path ?? path.join(corpus, k.file);
  const text = readFileSync(ptx, 'utf8');
  const module = tc.compile({ text, file: k.file ?? ptx }, { arch: 'sm_90', optLevel: 3 }).module;
  if (k.generated) {
    const l = generateLaunch(module, findKernel(module, k.kernel), 1);
    k.launch = { ...l, outputs: Object.keys(l.buffers) };
  }
  const out = path.join(tmp, `${path.basename(ptx, '.ptx')}.cubin`);
  execFileSync('ptxas', ['-arch=sm_90', '-O3', ptx, '-o', out]);
  const cubin = readCubin(readFileSync(out));
  const lifted = liftCubin(cubin, k.kernel);
  const launch = { ...k.launch, kernel: k.kernel };
  const runPtx = () => runKernel(module, launch);
  const runSass = () => runKernel(lifted.module, launch, { physicalRegisters: true, checkUndefined: false });
  // one warm-up each, and the two must agree
  const a = runPtx();
  const b = runSass();
  if (!a.ok || !b.ok) throw new Error(`${k.name}: ${[...a.errors, ...b.errors].map((e) => e.message).join('; ')}`);
  for (const name of k.launch.outputs) {
    if (Buffer.compare(Buffer.from(a.buffers[name].bytes), Buffer.from(b.buffers[name].bytes)) !== 0) throw new Error(`${k.name}: buffer ${name} differs between the PTX path and the lifted cubin`);
  }
  const ratios = [];
  const tp = [];
  const ts = [];
  for (let p = 0; p < pairs; p++) {
    const order = p % 2 ? ['sass', 'ptx'] : ['ptx', 'sass'];
    const t = {};
    for (const which of order) {
      const t0 = performance.now();
      which === 'ptx' ? runPtx() : runSass();
      t[which] = performance.now() - t0;
    }
    tp.push(t.ptx);
    ts.push(t.sass);
    ratios.push(t.sass / t.ptx);
  }
  const mp = median(tp);
  const ms = median(ts);
  rows.push(`| ${k.name} | ${a.counts.threadInstructions} | ${b.counts.threadInstructions} | ${mp.toFixed(1)} | ${ms.toFixed(1)} | ${(a.counts.threadInstructions / mp).toFixed(0)}k | ${(b.counts.threadInstructions / ms).toFixed(0)}k | ${median(ratios).toFixed(2)} | ${lifted.module.functions[0].blocks.reduce((n, bl) => n + bl.instrs.length, 0)} |`);
}
console.log(`### Interpreter speed on lifted SASS (\`pnpm -s bench:sass-interp\`, issue #11)`);
console.log('');
console.log(`${new Date().toISOString()}, ${os.cpus()[0]?.model ?? '?'} x${os.cpus().length}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}, load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}; ${pairs} pairs per kernel, alternating, medians; the run only (compile, ptxas and lifting excluded; both include the launch setup; the lifted code runs as runCubin runs it: physical registers, no undefined-read checks).`);
console.log('');
console.log('| kernel | thread-instr PTX path (Ori) | thread-instr lifted SASS | PTX run (ms) | SASS run (ms) | PTX rate (instr/s) | SASS rate (instr/s) | time ratio SASS/PTX (median of pairs) | lifted Ori instructions |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const r of rows) console.log(r);
