#!/usr/bin/env node
/**
 * `pnpm -s fuzz --count N [--seed S]`: N generated programs through the full default pipeline (every
 * installed plugin, as the CLI composes it) at -O3 for sm_90 with --verify-each. Ends with
 * `N passed, M failed` and the failing seeds (replay one with `--seed S --count 1`). `--knob NAME=VALUE`
 * (repeatable) sets a knob in every compilation, e.g. `--knob PerformLoopFusion=1` for phase 59.
 * `--through-sass` also compiles each program to a cubin with ptxforge's code generator (@ptxforge/codegen's
 * compileToCubin) and runs the lifted SASS (@ptxforge/sass-lift) on the same launch: its buffers must equal the
 * Ori path's. `--features all|none|a,b` picks the generator's constructs beyond the base set (default all:
 * 64-bit integers, f64, f16x2, SHFL/VOTE, memory in control flow, early exits, multi-exit loops, irreducible
 * regions, calls, predicated instructions).
 */
import { Command, CommanderError } from 'commander';
import { createToolchain } from '@ptxforge/kernel';
import { FUZZ_FEATURES, fuzzSummaryLines, runFuzz, type FuzzFeature } from '@ptxforge/interp';
import { runCubin } from '@ptxforge/sass-lift';
import { compileToCubin } from '@ptxforge/codegen';
import { loadDefaultPlugins } from './plugins.js';

const program = new Command('fuzz')
  .option('--count <N>', 'number of programs', '100')
  .option('--seed <S>', 'first seed', '1')
  .option('--arch <sm>', 'target', 'sm_90')
  .option('-O, --opt-level <N>', 'optimization level', '3')
  .option('--out-dir <dir>', 'write the IR before/after a failing phase here')
  .option('--knob <NAME=VALUE...>', 'set a knob in every compilation (repeatable), e.g. PerformLoopFusion=1')
  .option('-v, --verbose', 'print one line per program')
  .option('--through-sass', 'also run each program from the cubin ptxforge generates for it (lifted SASS)')
  .option('--features <list>', `generator constructs beyond the base set: all, none, or a comma list of ${FUZZ_FEATURES.join(', ')}`, 'all')
  .exitOverride();
try {
  program.parse(process.argv.slice(2), { from: 'user' });
} catch (e) {
  if (e instanceof CommanderError) process.exit(e.exitCode);
  throw e;
}
const o = program.opts<{ count: string; seed: string; arch: string; optLevel: string; outDir?: string; verbose?: boolean; knob?: string[]; throughSass?: boolean; features: string }>();
let features: FuzzFeature[];
if (o.features === 'all') features = [...FUZZ_FEATURES];
else if (o.features === 'none' || o.features === '') features = [];
else {
  features = [];
  for (const f of o.features.split(',')) {
    if (!(FUZZ_FEATURES as readonly string[]).includes(f)) {
      process.stderr.write(`fuzz: error FUZZ_BAD_FEATURE: unknown generator feature '${f}' (known: ${FUZZ_FEATURES.join(', ')}, or all / none)\n`);
      process.exit(2);
    }
    features.push(f as FuzzFeature);
  }
}
const knobs: Array<{ name: string; value: string }> = [];
for (const kv of o.knob ?? []) {
  const eq = kv.indexOf('=');
  if (eq <= 0) {
    process.stderr.write(`fuzz: error FUZZ_BAD_KNOB: --knob expects NAME=VALUE, got '${kv}'\n`);
    process.exit(2);
  }
  knobs.push({ name: kv.slice(0, eq), value: kv.slice(eq + 1) });
}
const plugins = await loadDefaultPlugins();

let throughSass: ((text: string, file: string, launch: Parameters<typeof runCubin>[1]) => Record<string, Uint8Array> | string) | undefined;
if (o.throughSass) {
  const tc = createToolchain({ plugins });
  throughSass = (text, file, launch) => {
    let cubin: Uint8Array;
    try {
      cubin = compileToCubin(tc, text, { arch: o.arch, optLevel: Number(o.optLevel), file }).cubin;
    } catch (e) {
      const err = e as Error & { code?: string };
      return `compile: ${err.code ? `${err.code}: ` : ''}${err.message.split('\n')[0]}`;
    }
    try {
      const r = runCubin(cubin, launch);
      if (!r.result.ok) return `interpreter: ${r.result.errors.map((x) => x.message.split('\n')[0]).join('; ')}`;
      const out: Record<string, Uint8Array> = {};
      for (const [k, v] of Object.entries(r.result.buffers)) out[k] = v.bytes;
      return out;
    } catch (e) {
      const err = e as Error & { code?: string };
      return `run: ${err.code ? `${err.code}: ` : ''}${err.message.split('\n')[0]}`;
    }
  };
}
const summary = runFuzz({
  count: Number(o.count),
  seed: Number(o.seed),
  plugins,
  arch: o.arch,
  optLevel: Number(o.optLevel),
  features,
  ...(o.outDir ? { outDir: o.outDir } : {}),
  ...(knobs.length ? { knobs } : {}),
  ...(throughSass ? { throughSass } : {}),
  onCase: (r) => {
    if (!r.ok) process.stdout.write(`seed ${r.seed}: FAIL ${r.message}\n`);
    else if (o.verbose) process.stdout.write(`seed ${r.seed}: ok (${r.phasesChecked} phases checked)\n`);
  },
});
for (const line of fuzzSummaryLines(summary)) process.stdout.write(`${line}\n`);
process.exitCode = summary.failed.length ? 1 : 0;
