// Parser throughput benchmark: parse ../shared/corpus/ocelot/ptx/thrust/Sort.ptx repeatedly, report MB/s.
// Run: pnpm --filter @ptxforge/ptx bench   (needs ../shared; prints a message and exits 0 when absent)
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parsePtx } from '../src/index.js';

const file = path.resolve(import.meta.dirname, '../../../../shared/corpus/ocelot/ptx/thrust/Sort.ptx');
if (!existsSync(file)) {
  console.log(`bench-parse: skipped, ${file} is absent`);
  process.exit(0);
}
const text = readFileSync(file, 'utf8');
const mb = Buffer.byteLength(text) / 1e6;
for (let i = 0; i < 3; i++) parsePtx(text, 'Sort.ptx'); // warm-up
const runs = 10;
const times: number[] = [];
for (let i = 0; i < runs; i++) {
  const t0 = process.hrtime.bigint();
  parsePtx(text, 'Sort.ptx');
  times.push(Number(process.hrtime.bigint() - t0) / 1e6);
}
times.sort((a, b) => a - b);
const median = times[runs >> 1]!;
console.log(`Sort.ptx ${mb.toFixed(2)} MB: median ${median.toFixed(1)} ms, best ${times[0]!.toFixed(1)} ms -> ${(mb / (median / 1000)).toFixed(1)} MB/s (${os.cpus()[0]?.model ?? '?'}, node ${process.version})`);
