// Builds the V8 start-up snapshot of the CLI (see src/snapshot-main.ts): a CommonJS bundle of
// dist/snapshot-main.js, then `node --build-snapshot`. Best effort: when this node cannot build user
// snapshots the launcher (bin/ptxforge) keeps using the ESM bundle. Run by `pnpm build` after bundle.mjs.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const dir = 'dist/snapshot';
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
await build({
  entryPoints: ['dist/snapshot-main.js'],
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  outfile: `${dir}/ptxforge.cjs`,
  logLevel: 'error',
  // Less source text in the heap (V8 keeps a function's source for lazy compilation): a smaller blob
  // deserialises faster. Names are kept, so stack traces still read.
  minifyWhitespace: true,
  minifySyntax: true,
  // The snapshot is location-independent: module URLs are computed when a run starts.
  define: { 'import.meta.url': 'globalThis.__ptxforgeModuleUrl' },
});
// Warm-up kernels compiled while the snapshot is built (src/snapshot-main.ts): nvcc-made PTX of the
// CLI's own fixtures, none of them a benchmark input.
const fixtures = 'test/fixtures/cuda-kernels';
const warmup = existsSync(fixtures)
  ? readdirSync(fixtures).sort().map((d) => path.resolve(fixtures, d, 'kernel.ptx')).filter((f) => existsSync(f))
  : [];
// V8 flags baked into the blob (a blob loads only with the flags it was built with; bin/ptxforge reads them from
// dist/snapshot/node). --no-rehash-snapshot: keep the hash seed of the build instead of rehashing every hash
// table of the heap at each start (~6% of a small kernel's whole-process instructions under callgrind).
// --interrupt-budget-factor-for-feedback-allocation=32 (V8's default 8): a function gets its feedback vector, and
// with it Sparkplug code, after 4x more bytecode run, so a small compile stops baseline-compiling code it runs a
// few times (callgrind, whole process: nounroll_loop -5.6%, ptoxide gemm -1.7%, bench-opt kernels.ptx -0.7%;
// --no-sparkplug was -17% / +9% / +11%, --no-lazy-feedback-allocation -6.1% / -0.2% / -0.5%).
const v8Flags = ['--no-rehash-snapshot', '--interrupt-budget-factor-for-feedback-allocation=32'];
const r = spawnSync(process.execPath, [...v8Flags, '--snapshot-blob', `${dir}/ptxforge.blob`, '--build-snapshot', `${dir}/ptxforge.cjs`], {
  encoding: 'utf8',
  env: { ...process.env, PTXFORGE_SNAPSHOT_WARMUP: warmup.join(path.delimiter) },
});
for (const line of (r.stderr || '').split('\n')) if (line.startsWith('snapshot: ')) console.log(line);
if (r.status !== 0) {
  console.log(`snapshot: not built (${(r.stderr || '').split('\n').find((l) => l.trim() && !/^\(node:\d+\) Warning|^It may still|^To request|trace-warnings/.test(l)) ?? `exit ${r.status}`}); bin/ptxforge uses the ESM bundle`);
  rmSync(dir, { recursive: true, force: true });
} else {
  // The launcher uses the blob only with the node binary that built it, and starts it with the same V8 flags.
  const st = statSync(process.execPath);
  writeFileSync(`${dir}/node`, `${process.execPath} ${st.size}-${Math.floor(st.mtimeMs / 1000)} ${v8Flags.join(' ')}\n`);
}
