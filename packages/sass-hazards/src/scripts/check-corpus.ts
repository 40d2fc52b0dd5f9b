#!/usr/bin/env node
/**
 * `pnpm --filter @ptxforge/sass-hazards check-corpus [--arch sm_90,...] [--cubins DIR] [-v]`: compiles every PTX of
 * ../shared/corpus with the installed ptxas for each arch, decodes the cubins with the Mercury tables and runs the
 * hazard checker. Prints per arch: cubins, functions, instructions, undecoded words, hazards; with -v every hazard
 * and the slack histogram per latency pair (headroom: cycles ptxas waits beyond the model).
 */
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { formatHazard } from '../report.js';
import { checkCubinFile, compileWithPtxas, hasPtxas, ptxFilesUnder } from '../corpus.js';

const args = process.argv.slice(2);
const opt = (k: string): string | undefined => {
  const i = args.indexOf(k);
  return i >= 0 ? args[i + 1] : undefined;
};
const verbose = args.includes('-v');
const archs = (opt('--arch') ?? 'sm_75,sm_80,sm_86,sm_89,sm_90').split(',');
const here = path.dirname(fileURLToPath(import.meta.url));
const corpus = opt('--corpus') ?? path.resolve(here, '../../../../../shared/corpus');
const cubins = opt('--cubins') ?? path.join(tmpdir(), 'ptxforge-corpus-cubins');
if (!existsSync(corpus) || !hasPtxas()) {
  process.stdout.write(`check-corpus: skipped (${!existsSync(corpus) ? `${corpus} is absent` : 'no ptxas on PATH'})\n`);
  process.exit(0);
}
const files = ptxFilesUnder(corpus);
let total = 0;
for (const arch of archs) {
  let n = 0;
  let fns = 0;
  let instrs = 0;
  let undecoded = 0;
  let hazards = 0;
  const slack = new Map<string, Map<number, number>>();
  for (const f of files) {
    const rel = path.relative(corpus, f);
    const out = compileWithPtxas(f, arch, path.join(cubins, arch, rel.replace(/[/\\]/g, '__').replace(/\.ptx$/, '.cubin')));
    if (!out) continue;
    n++;
    const r = checkCubinFile(out);
    undecoded += r.undecoded.length;
    for (const fr of r.functions) {
      fns++;
      instrs += fr.instructions;
      hazards += fr.result.hazards.length;
      if (verbose) for (const h of fr.result.hazards) process.stdout.write(`${rel}: ${formatHazard(h)}\n`);
      for (const [k, v] of fr.result.slack) {
        let m = slack.get(k);
        if (!m) slack.set(k, (m = new Map()));
        for (const [s, c] of v.hist) m.set(s, (m.get(s) ?? 0) + c);
      }
    }
  }
  total += hazards;
  process.stdout.write(`${arch}: ${n} cubins, ${fns} functions, ${instrs} instructions checked, ${undecoded} words undecoded, ${hazards} hazards\n`);
  if (verbose) {
    for (const [k, m] of [...slack].sort()) {
      const hist = [...m].sort((a, b) => a[0] - b[0]);
      const samples = hist.reduce((s, [, c]) => s + c, 0);
      process.stdout.write(`  slack ${k}: ${samples} reads, min ${hist[0]![0]}, ${hist.slice(0, 8).map(([s, c]) => `${s}:${c}`).join(' ')}\n`);
    }
  }
}
process.stdout.write(`${total} hazards\n`);
process.exitCode = total > 0 ? 1 : 0;
