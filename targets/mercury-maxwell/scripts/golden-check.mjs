#!/usr/bin/env node
// Checks every Maxwell/Pascal golden row both ways (decode prints the text; encode(parse(text)) gives the
// bits) and prints per-file pass rates; --fails N lists failures. Used while deriving; the tests assert it.
import { readFileSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getBits, setBits, wordFromHex, isKnown } from '@ptxforge/sass';
import { maxwellCodec, formatMaxwellInstruction, parseMaxwellInstruction } from '../dist/index.js';
import { goldenRows, normalizeMaxwellText } from '../dist/golden.js';

const here = dirname(fileURLToPath(import.meta.url));
const golden = resolve(here, '../../../../shared/golden');
const args = process.argv.slice(2);
const nf = args.includes('--fails') ? Number(args[args.indexOf('--fails') + 1]) : 0;
const FILES = { 'cuasm_insrecords_sm50.tsv': 'sm_50', 'cuasm_insrecords_sm60.tsv': 'sm_60', 'cuasm_insrecords_sm61.tsv': 'sm_61', 'cudatest.6.sm_61.tsv': 'sm_61' };
for (const [f, arch] of Object.entries(FILES)) {
  const codec = maxwellCodec(arch);
  let n = 0, dec = 0, enc = 0, skipped = 0;
  const fails = [];
  for (const r of goldenRows(join(golden, f))) {
    if (r.skip) { skipped++; continue; }
    n++;
    const d = codec.decode(r.word, r.addr);
    const want = normalizeMaxwellText(r.text);
    const got = isKnown(d) ? normalizeMaxwellText(formatMaxwellInstruction(d)) : `UNKNOWN (${d.reason})`;
    if (got === want) dec++; else fails.push(`D ${r.where}: ${want}  <>  ${got}`);
    try {
      const ins = parseMaxwellInstruction(r.text);
      if (r.control) ins.control = r.control; else ins.control = { stall: 0, yieldBit: 0, writeBarrier: 0, readBarrier: 0, waitMask: 0, reuse: getBits(r.word, 81, 4) };
      const w = codec.encode(ins, r.addr);
      let same = true; for (let i = 0; i < 4; i++) if (w[i] !== r.word[i]) same = false;
      if (same) enc++; else fails.push(`E ${r.where}: ${want}  want ${[...r.word].reverse().map(x=>x.toString(16).padStart(8,'0')).join('_')} got ${[...w].reverse().map(x=>x.toString(16).padStart(8,'0')).join('_')}`);
    } catch (e) { fails.push(`E ${r.where}: ${want}  ${e.message}`); }
  }
  console.log(`${f} (${arch}): ${n} rows${skipped ? ` (+${skipped} skipped)` : ''}: decode ${dec} (${(100*dec/n).toFixed(2)}%), encode ${enc} (${(100*enc/n).toFixed(2)}%)`);
  if (nf) for (const x of fails.slice(0, nf)) console.log('  ' + x);
}
