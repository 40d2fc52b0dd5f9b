#!/usr/bin/env node
// `pnpm -s sass-roundtrip [--arch sm_90,...] [--verbose]`: compile every PTX of ../shared/corpus that ptxas
// accepts for each arch, decode every word of every .text section of the cubins and re-encode it, and print one
// line per arch: `sm_90: N words, K known, R identical`. Cubins are cached in .cache/sass-roundtrip/ (keyed by
// the ptxas version, the arch and the PTX's content), so only the first run pays for ptxas. Skips cleanly (exit 0,
// a note on stderr) when ptxas or ../shared/corpus is missing.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ptxasCorpus } from './lib/ptxas-corpus.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ARCHS = ['sm_75', 'sm_80', 'sm_86', 'sm_89', 'sm_90', 'sm_100', 'sm_120'];

const args = process.argv.slice(2);
const verbose = args.includes('--verbose');
const k = args.indexOf('--arch');
const archs = k >= 0 ? (args[k + 1] ?? '').split(',').filter(Boolean) : ARCHS;

const { files, cubinsFor } = ptxasCorpus(repo, 'sass-roundtrip');
const { pathToFileURL } = await import('node:url');
const { readCubin } = await import(pathToFileURL(path.join(repo, 'packages/cubin/dist/index.js')).href);
const { roundtripCubin, roundtripLine, registerFamilyCodecs } = await import(pathToFileURL(path.join(repo, 'apps/dis/dist/index.js')).href);
registerFamilyCodecs();

for (const arch of archs) {
  const cubins = await cubinsFor(arch);
  const total = { words: 0, known: 0, identical: 0, unknownByOpcode: new Map() };
  let failed = 0;
  for (const c of cubins) {
    try {
      const r = roundtripCubin(readCubin(readFileSync(c), { file: c }));
      total.words += r.words;
      total.known += r.known;
      total.identical += r.identical;
      for (const [op, n] of r.unknownByOpcode) total.unknownByOpcode.set(op, (total.unknownByOpcode.get(op) ?? 0) + n);
    } catch (e) {
      failed++;
      console.error(`sass-roundtrip: ${c}: ${e.message}`);
    }
  }
  console.log(`${arch}: ${roundtripLine(total)}`);
  if (verbose) {
    console.error(`  ${cubins.length} cubins (${files.length - cubins.length} PTX files rejected by ptxas), ${failed} unreadable`);
    const top = [...total.unknownByOpcode].sort((a, b) => b[1] - a[1]).slice(0, 25);
    for (const [op, n] of top) console.error(`  unknown opcode field 0x${op.toString(16)}: ${n}`);
  }
}
