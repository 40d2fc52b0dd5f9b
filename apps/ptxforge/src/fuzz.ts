#!/usr/bin/env node
/**
 * `pnpm -s fuzz --count N [--seed S]`: N generated programs through the full default pipeline (every
 * installed plugin, as the CLI composes it) at -O3 for sm_90 with --verify-each. Ends with
 * `N passed, M failed` and the failing seeds (replay one with `--seed S --count 1`).
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
  .option('-v, --verbose', 'print one line per program')
  .exitOverride();
try {
  program.parse(process.argv.slice(2), { from: 'user' });
} catch (e) {
  if (e instanceof CommanderError) process.exit(e.exitCode);
  throw e;
}
const o = program.opts<{ count: string; seed: string; arch: string; optLevel: string; outDir?: string; verbose?: boolean }>();
const plugins = await loadDefaultPlugins();
const summary = runFuzz({
  count: Number(o.count),
  seed: Number(o.seed),
  plugins,
  arch: o.arch,
  optLevel: Number(o.optLevel),
  ...(o.outDir ? { outDir: o.outDir } : {}),
  onCase: (r) => {
    if (!r.ok) process.stdout.write(`seed ${r.seed}: FAIL ${r.message}\n`);
    else if (o.verbose) process.stdout.write(`seed ${r.seed}: ok (${r.phasesChecked} phases checked)\n`);
  },
});
for (const line of fuzzSummaryLines(summary)) process.stdout.write(`${line}\n`);
process.exitCode = summary.failed.length ? 1 : 0;
