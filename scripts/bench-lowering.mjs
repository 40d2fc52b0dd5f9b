// PTX front-end throughput (issue #17: lowering >= 20 MB/s): parse (`parsePtx`) and lower (`lowerPtx`, parsed
// AST -> Ori) a fixed set of files, CPU time (process.cpuUsage) median after warm-ups, MB/s of PTX text.
//   node scripts/bench-lowering.mjs                      this worktree's build (packages/ptx/dist)
//   node scripts/bench-lowering.mjs --bundle-to F.mjs    bundle this build's front end into one file (for A/B)
//   node scripts/bench-lowering.mjs --ab A.mjs B.mjs     A/B of two bundles: rounds alternate A and B in fresh
//                                                        processes; medians per side and of per-round ratios
// Options: --runs N (timed lowerings per file per process, default 7), --warmup N (default 3), --rounds N
// (A/B processes per side, default 3), --corpus DIR (default ../shared/corpus or $PTXFORGE_CORPUS), --json.
// Skips files that are absent (prints which); exits 0 without the corpus.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const corpus = path.resolve(opt('--corpus', process.env.PTXFORGE_CORPUS ?? path.join(repo, '../shared/corpus')));
// The files of the 2026-11-23 "Start-up and PTX lowering" section of docs/benchmarks.md.
const FILES = [
  ['corpus', 'ptx-ir/simple/flashattention_fwd.ptx'],
  ['corpus', 'ocelot/ptx/thrust/bfs.ptx'],
  ['corpus', 'ocelot/ptx/thrust/histogram_sliced.ptx'],
  ['corpus', 'ocelot/ptx/parboil/pns.ptx'],
  ['repo', 'bench/compile/big.ptx'],
  ['corpus', 'zluda/other/vectorAdd_kernel64.ptx'],
];
const files = FILES.map(([where, rel]) => ({ rel, abs: path.join(where === 'repo' ? repo : corpus, rel) })).filter((f) => existsSync(f.abs));
const runs = Number(opt('--runs', '7'));
const warmup = Number(opt('--warmup', '3'));
const med = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const load = () => os.loadavg().map((x) => x.toFixed(1)).join(' ');

if (args.includes('--bundle-to')) {
  const out = path.resolve(opt('--bundle-to'));
  const require = createRequire(path.join(repo, 'apps/ptxforge/package.json'));
  const { build } = await import(pathToFileURL(require.resolve('esbuild')).href);
  await build({
    entryPoints: [path.join(repo, 'packages/ptx/dist/index.js')], bundle: true, platform: 'node', format: 'esm',
    outfile: out, logLevel: 'error', external: ['@ptxforge/interp'],
  });
  console.log(`bundled the front end of ${repo} into ${out}`);
  process.exit(0);
}

/** One process: parse and lower every file, CPU medians in ms. */
async function measure(implUrl) {
  const { parsePtx, lowerPtx } = await import(implUrl);
  const target = { arch: 'sm_90', capabilities: { paramBase: 0x210 } };
  const res = [];
  for (const f of files) {
    const text = readFileSync(f.abs, 'utf8');
    const bytes = Buffer.byteLength(text);
    const parseCpu = [];
    const lowerCpu = [];
    let ast;
    let instrs = 0;
    let error;
    for (let i = 0; i < warmup + runs; i++) {
      const c0 = process.cpuUsage();
      ast = parsePtx(text, path.basename(f.abs));
      const c1 = process.cpuUsage(c0);
      if (i >= warmup) parseCpu.push((c1.user + c1.system) / 1000);
    }
    try {
      for (let i = 0; i < warmup + runs; i++) {
        const c0 = process.cpuUsage();
        const m = lowerPtx(ast, { target });
        const c1 = process.cpuUsage(c0);
        if (i === 0) for (const fn of m.functions) instrs += fn.instructionCount;
        if (i >= warmup) lowerCpu.push((c1.user + c1.system) / 1000);
      }
    } catch (e) {
      error = `${e.code ?? ''} ${String(e.message).split('\n')[0]}`;
    }
    res.push({ file: f.rel, bytes, instrs, parseMs: med(parseCpu), lowerMs: error ? undefined : med(lowerCpu), error });
  }
  return res;
}

const mbps = (bytes, ms) => (ms > 0 ? bytes / 1e6 / (ms / 1000) : Infinity);
const fmt = (x, d = 1) => (x === undefined ? '' : x.toFixed(d));

if (args.includes('--child')) {
  process.stdout.write(JSON.stringify(await measure(pathToFileURL(path.resolve(opt('--child'))).href)));
  process.exit(0);
}

console.log(`bench-lowering, ${new Date().toISOString()}, ${os.cpus()[0]?.model ?? '?'} x${os.cpus().length}, node ${process.version}, load ${load()}`);
if (!files.length) {
  console.log(`bench-lowering: skipped, none of the files is present (corpus ${corpus})`);
  process.exit(0);
}
if (files.length < FILES.length) console.log(`absent: ${FILES.filter(([, r]) => !files.some((f) => f.rel === r)).map(([, r]) => r).join(', ')}`);
console.log(`CPU time (user + system), median of ${runs} after ${warmup} warm-ups per process`);

const abIdx = args.indexOf('--ab');
if (abIdx < 0) {
  const res = await measure(pathToFileURL(path.join(repo, 'packages/ptx/dist/index.js')).href);
  console.log('\n| file | KB | Ori instructions | parse ms | parse MB/s | lower ms | lower MB/s | µs per Ori instruction |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  let tb = 0;
  let tl = 0;
  let tp = 0;
  for (const r of res) {
    if (r.error) {
      console.log(`| ${r.file} | ${fmt(r.bytes / 1000, 0)} | | ${fmt(r.parseMs)} | ${fmt(mbps(r.bytes, r.parseMs))} | | ${r.error} | |`);
      continue;
    }
    tb += r.bytes;
    tl += r.lowerMs;
    tp += r.parseMs;
    console.log(`| ${r.file} | ${fmt(r.bytes / 1000, 0)} | ${r.instrs} | ${fmt(r.parseMs)} | ${fmt(mbps(r.bytes, r.parseMs))} | ${fmt(r.lowerMs)} | ${fmt(mbps(r.bytes, r.lowerMs))} | ${fmt((r.lowerMs * 1000) / r.instrs, 2)} |`);
  }
  console.log(`| all | ${fmt(tb / 1000, 0)} | | ${fmt(tp)} | ${fmt(mbps(tb, tp))} | ${fmt(tl)} | ${fmt(mbps(tb, tl))} | |`);
  console.log(`load at the end ${load()}`);
  process.exit(0);
}

const sides = [path.resolve(args[abIdx + 1]), path.resolve(args[abIdx + 2])];
for (const s of sides) if (!existsSync(s)) throw new Error(`no bundle ${s} (make one with --bundle-to)`);
const rounds = Number(opt('--rounds', '3'));
const per = [[], []];
for (let r = 0; r < rounds; r++) {
  const order = r % 2 ? [1, 0] : [0, 1];
  for (const k of order) {
    const c = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', sides[k], '--runs', String(runs), '--warmup', String(warmup), '--corpus', corpus], { encoding: 'utf8', maxBuffer: 1 << 26 });
    if (c.status !== 0) throw new Error(`child failed: ${c.stderr}`);
    per[k].push(JSON.parse(c.stdout));
  }
}
console.log(`A = ${sides[0]}\nB = ${sides[1]}\n${rounds} rounds, alternating; each figure a median over rounds of per-process medians`);
console.log('\n| file | KB | Ori instructions | lower A ms | lower B ms | A MB/s | B MB/s | B/A time (median of rounds) | parse A MB/s | parse B MB/s |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
let ta = 0;
let tbm = 0;
let bytes = 0;
for (let i = 0; i < files.length; i++) {
  const a = per[0].map((x) => x[i]);
  const b = per[1].map((x) => x[i]);
  const f = a[0];
  if (f.error || b[0].error) {
    console.log(`| ${f.file} | ${fmt(f.bytes / 1000, 0)} | | | | | | | | ${f.error ?? b[0].error} |`);
    continue;
  }
  const la = med(a.map((x) => x.lowerMs));
  const lb = med(b.map((x) => x.lowerMs));
  const ratio = med(a.map((x, k) => b[k].lowerMs / x.lowerMs));
  ta += la;
  tbm += lb;
  bytes += f.bytes;
  console.log(`| ${f.file} | ${fmt(f.bytes / 1000, 0)} | ${f.instrs}${b[0].instrs !== f.instrs ? ` / ${b[0].instrs}` : ''} | ${fmt(la)} | ${fmt(lb)} | ${fmt(mbps(f.bytes, la))} | ${fmt(mbps(f.bytes, lb))} | ${fmt(ratio, 2)} | ${fmt(mbps(f.bytes, med(a.map((x) => x.parseMs))))} | ${fmt(mbps(f.bytes, med(b.map((x) => x.parseMs))))} |`);
}
console.log(`| all | ${fmt(bytes / 1000, 0)} | | ${fmt(ta)} | ${fmt(tbm)} | ${fmt(mbps(bytes, ta))} | ${fmt(mbps(bytes, tbm))} | ${fmt(tbm / ta, 2)} | | |`);
console.log(`load at the end ${load()}`);
