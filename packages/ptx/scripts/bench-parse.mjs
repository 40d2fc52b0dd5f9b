// Parser throughput on ../shared/corpus/ocelot/ptx/thrust/Sort.ptx (4.1 MB, PTX 2.2 from nvopencc), then
// lowering throughput (parsed AST -> Ori, `lowerPtx`, bytes of PTX text per second) on the same file and on
// a few other big corpus files (issue #17 goal: lowering >= 20 MB/s).
// Run: pnpm --filter @ptxforge/ptx bench   (builds first; prints a message and exits 0 without ../shared)
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { lowerPtx, parsePtx } from '../dist/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const file = path.resolve(here, '../../..', '../shared/corpus/ocelot/ptx/thrust/Sort.ptx');
if (!existsSync(file)) {
  console.log(`bench-parse: skipped, ${file} is absent`);
  process.exit(0);
}
const text = readFileSync(file, 'utf8');
const mb = Buffer.byteLength(text) / 1e6;
const runs = [];
for (let i = 0; i < 15; i++) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  parsePtx(text, 'Sort.ptx');
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  if (i >= 3) runs.push({ wall, cpu: (cpu.user + cpu.system) / 1000 }); // 3 warm-up runs
}
const walls = runs.map((r) => r.wall).sort((a, b) => a - b);
const cpus = runs.map((r) => r.cpu).sort((a, b) => a - b);
const rate = (ms) => (mb / (ms / 1000)).toFixed(1);
console.log(`Sort.ptx ${mb.toFixed(2)} MB, ${runs.length} runs: wall best ${walls[0].toFixed(0)} ms (${rate(walls[0])} MB/s), median ${walls[walls.length >> 1].toFixed(0)} ms (${rate(walls[walls.length >> 1])} MB/s); process CPU best ${cpus[0].toFixed(0)} ms`);
console.log(`machine: ${os.cpus()[0]?.model ?? '?'} x${os.cpus().length}, node ${process.version}, load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);

// Lowering: each file parsed once, then lowered 8 times (3 warm-up), CPU and wall medians.
const target = { arch: 'sm_90', capabilities: { paramBase: 0x210 } };
const corpus = path.resolve(here, '../../..', '../shared/corpus');
for (const rel of ['ocelot/ptx/thrust/Sort.ptx', 'ocelot/ptx/thrust/Unique.ptx', 'ocelot/ptx/thrust/bfs.ptx']) {
  const f = path.join(corpus, rel);
  if (!existsSync(f)) continue;
  const src = readFileSync(f, 'utf8');
  const size = Buffer.byteLength(src) / 1e6;
  const ast = parsePtx(src, path.basename(f));
  const lw = [];
  const lc = [];
  let instrs = 0;
  try {
    for (let i = 0; i < 8; i++) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const m = lowerPtx(ast, { target });
      const wall = performance.now() - t0;
      const cpu = process.cpuUsage(c0);
      if (i === 0) instrs = m.functions.reduce((s, fn) => s + fn.blocks.reduce((t, b) => t + b.instrs.length, 0), 0);
      if (i >= 3) {
        lw.push(wall);
        lc.push((cpu.user + cpu.system) / 1000);
      }
    }
  } catch (e) {
    console.log(`lower ${rel}: ${e.code ?? ''} ${e.message.split('\n')[0]}`);
    continue;
  }
  const med = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  const r = (ms) => (size / (ms / 1000)).toFixed(1);
  console.log(`lower ${rel} ${size.toFixed(2)} MB, ${instrs} Ori instructions: wall median ${med(lw).toFixed(0)} ms (${r(med(lw))} MB/s), best ${Math.min(...lw).toFixed(0)} ms (${r(Math.min(...lw))} MB/s); CPU median ${med(lc).toFixed(0)} ms (${r(med(lc))} MB/s)`);
}
