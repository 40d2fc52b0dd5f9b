// Parser throughput on ../shared/corpus/ocelot/ptx/thrust/Sort.ptx (4.1 MB, PTX 2.2 from nvopencc).
// Run: pnpm --filter @ptxforge/ptx bench   (builds first; prints a message and exits 0 without ../shared)
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parsePtx } from '../dist/index.js';

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
