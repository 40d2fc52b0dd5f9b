#!/usr/bin/env node
/**
 * `pnpm -s cubin-rebuild [--arch sm_90,sm_80,sm_75] [--verbose] [--frame]`: every corpus cubin of the installed
 * ptxas (scripts/lib/ptxas-corpus.mjs cache) is read, its function-level facts extracted (buildInputOfCubin) and
 * the cubin rebuilt with buildCubin from those facts and the original code bytes; the two files are compared
 * section by section. Prints per arch: files byte-identical, files differing (with the sections that differ
 * and how often), files using sections the builder does not model yet. `--frame` takes the .debug_frame CFA
 * instructions from ptxas's file instead of the builder's default rule.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCubin, buildInputOfCubin, compareCubins, readCubin, unsupportedSections } from '../packages/cubin/dist/index.js';
import { ptxasCorpus } from './lib/ptxas-corpus.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const archArg = argv.indexOf('--arch');
const archs = archArg >= 0 ? argv[archArg + 1].split(',') : ['sm_90', 'sm_80', 'sm_75'];
const verbose = argv.includes('--verbose');
const frame = argv.includes('--frame');
const { cubinsFor } = ptxasCorpus(repo, 'cubin-rebuild');

for (const arch of archs) {
  const files = await cubinsFor(arch);
  let identical = 0;
  let differing = 0;
  let unsupported = 0;
  let failed = 0;
  const bySection = new Map();
  const unsupportedBy = new Map();
  const examples = [];
  for (const file of files) {
    const c = readCubin(readFileSync(file), { file });
    const un = unsupportedSections(c);
    if (un.length) {
      unsupported++;
      for (const u of new Set(un.map((n) => n.replace(/\..*?$/, '').replace(/\d+$/, 'N')))) unsupportedBy.set(u, (unsupportedBy.get(u) ?? 0) + 1);
      continue;
    }
    let ours;
    try {
      ours = readCubin(buildCubin(buildInputOfCubin(c, { keepFrameInstructions: frame })));
    } catch (e) {
      failed++;
      if (examples.length < 20) examples.push(`${path.basename(file)}: ${e.code ?? 'error'} ${e.message}`);
      continue;
    }
    const diffs = compareCubins(c, ours);
    if (!diffs.length) {
      identical++;
      continue;
    }
    differing++;
    const keys = new Set(diffs.map((d) => `${d.name.replace(/^(\.[a-z_]+(\.[a-z_]+)?(\.(text|info|shared|local|constant0))?)\..*$/, '$1.<fn>')} ${d.kind}`));
    for (const k of keys) bySection.set(k, (bySection.get(k) ?? 0) + 1);
    if (verbose && examples.length < 40) examples.push(`${path.basename(file)}: ${diffs.map((d) => `${d.name} ${d.kind} ${d.detail}`).join('; ')}`);
  }
  console.log(`cubin-rebuild ${arch}: ${identical} identical, ${differing} differing, ${failed} failed, ${unsupported} with unmodelled sections (of ${files.length})`);
  for (const [k, n] of [...bySection].sort((a, b) => b[1] - a[1])) console.log(`  differs: ${k}: ${n}`);
  for (const [k, n] of [...unsupportedBy].sort((a, b) => b[1] - a[1])) console.log(`  unmodelled: ${k}: ${n}`);
  for (const e of examples) console.log(`  ${e}`);
}
