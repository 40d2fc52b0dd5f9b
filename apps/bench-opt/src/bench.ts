#!/usr/bin/env node
/**
 * `pnpm -s bench:opt`: compile the benchmark kernels at -O0 and -O3, run both in the interpreter on their
 * fixed launches and print a markdown table (static and dynamic thread-instruction counts, ptxas -O3
 * static counts from `.text.<kernel>` size / 16 on sm_90). Exit status 1 if -O3 changes a result or raises a
 * dynamic count.
 */
import { BENCH_KERNELS } from './kernels.js';
import { markdownTable, measureAll } from './measure.js';

const rows = await measureAll(BENCH_KERNELS);
process.stdout.write(`${markdownTable(rows)}\n`);
const bad = rows.filter((r) => !r.same || r.dynamicO3 > r.dynamicO0);
if (bad.length) {
  process.stderr.write(`bench:opt: -O3 changed results or raised the dynamic count for ${bad.map((r) => r.kernel).join(', ')}\n`);
  process.exitCode = 1;
}
