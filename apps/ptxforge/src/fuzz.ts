#!/usr/bin/env node
/**
 * `pnpm -s fuzz --count N [--seed S]`: N generated programs through the full default pipeline (every
 * installed plugin, as the CLI composes it) at -O3 for sm_90 with --verify-each. Ends with
 * `N passed, M failed` and the failing seeds (replay one with `--seed S --count 1`). `--knob NAME=VALUE`
 * (repeatable) sets a knob in every compilation, e.g. `--knob PerformLoopFusion=1` for phase 59.
 */
import { Command, CommanderError } from 'commander';
import { fuzzSummaryLines, runFuzz } from '@ptxforge/interp';
import { loadDefaultPlugins } from './plugins.js';

const program = new Command('fuzz')
  .option('--count <N>', 'number of programs', '100')
  .option('--seed <S>', 'first seed', '1')
  .option('--arch <sm>', 'target', 'sm_90')
  .option('-O, --opt-level <N>', 'optimization level', '3')
  .option('--out-dir <dir>', 'write the IR before/after a failing phase here')
  .option('--knob <NAME=VALUE...>', 'set a knob in every compilation (repeatable), e.g. PerformLoopFusion=1')
  .option('-v, --verbose', 'print one line per program')
  .exitOverride();
try {
  program.parse(process.argv.slice(2), { from: 'user' });
} catch (e) {
  if (e instanceof CommanderError) process.exit(e.exitCode);
  throw e;
}
const o = program.opts<{ count: string; seed: string; arch: string; optLevel: string; outDir?: string; verbose?: boolean; knob?: string[] }>();
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
const summary = runFuzz({
  count: Number(o.count),
  seed: Number(o.seed),
  plugins,
  arch: o.arch,
  optLevel: Number(o.optLevel),
  ...(o.outDir ? { outDir: o.outDir } : {}),
  ...(knobs.length ? { knobs } : {}),
  onCase: (r) => {
    if (!r.ok) process.stdout.write(`seed ${r.seed}: FAIL ${r.message}\n`);
    else if (o.verbose) process.stdout.write(`seed ${r.seed}: ok (${r.phasesChecked} phases checked)\n`);
  },
});
for (const line of fuzzSummaryLines(summary)) process.stdout.write(`${line}\n`);
process.exitCode = summary.failed.length ? 1 : 0;
