import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isKnown, normalizeSassText, wordFromHex, wordsEqual } from '@ptxforge/sass';
import { describe, expect, it } from 'vitest';
import { formatMaxwellInstruction, maxwellCodec, parseMaxwellInstruction } from './codec.js';
import { goldenRows, normalizeMaxwellText } from './golden.js';
import { maxwellVirtualWord, splitVirtualWord } from './layout.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const golden = path.resolve(here, '../../../../shared/golden');
const has = existsSync(path.join(golden, 'README.md'));

// Every golden row is a test both ways: decode(word) prints the text (whitespace-normalized), and
// encode(parse(text)) gives the word. Reported per file; the floors below are what the derived table must keep.
const FILES: Array<[string, string, number]> = [
  ['cuasm_insrecords_sm50.tsv', 'sm_50', 0.99],
  ['cuasm_insrecords_sm60.tsv', 'sm_60', 0.99],
  ['cuasm_insrecords_sm61.tsv', 'sm_61', 0.99],
  ['cudatest.6.sm_61.tsv', 'sm_61', 0.99],
];

const norm = (t: string) => normalizeSassText(normalizeMaxwellText(t));

describe.skipIf(!has)('Maxwell/Pascal golden rows (../shared/golden)', () => {
  it.each(FILES)('%s (%s) both directions', (file, arch, floor) => {
    const codec = maxwellCodec(arch);
    let n = 0;
    let dec = 0;
    let enc = 0;
    for (const r of goldenRows(path.join(golden, file))) {
      if (r.skip) continue; // sm_50 .reuse rows without reuse bits (golden README); labels and relocations
      n++;
      const d = codec.decode(r.word, r.addr);
      if (isKnown(d) && norm(formatMaxwellInstruction(d)) === norm(r.text)) dec++;
      try {
        const ins = parseMaxwellInstruction(r.text);
        ins.control = r.control ?? { stall: 0, yieldBit: 0, writeBarrier: 0, readBarrier: 0, waitMask: 0, reuse: 0 };
        if (!r.control) ins.control.reuse = d.control?.reuse ?? 0;
        if (wordsEqual(codec.encode(ins, r.addr), r.word)) enc++;
      } catch {
        // counted as a failure
      }
    }
    console.log(`${file} (${arch}): ${n} rows, decode ${((100 * dec) / n).toFixed(2)}%, encode ${((100 * enc) / n).toFixed(2)}%`);
    expect(n).toBeGreaterThan(400);
    expect(dec / n).toBeGreaterThanOrEqual(floor);
    expect(enc / n).toBeGreaterThanOrEqual(floor);
  }, 60_000);

  it('known words re-encode to the same bits (decode → encode)', () => {
    let known = 0;
    let same = 0;
    for (const [file, arch] of FILES) {
      const codec = maxwellCodec(arch);
      for (const r of goldenRows(path.join(golden, file))) {
        const d = codec.decode(r.word, r.addr);
        if (!isKnown(d) || r.skip) continue;
        known++;
        try {
          if (wordsEqual(codec.encode(d, r.addr), r.word)) same++;
        } catch {
          // counted as not identical
        }
      }
    }
    console.log(`decode → encode: ${same} of ${known} known golden words identical`);
    expect(same / known).toBeGreaterThanOrEqual(0.99);
  }, 60_000);

  it('the sm_52 bit-flip sweep decodes without a crash', () => {
    const lines = readFileSync(path.join(golden, 'opcode_sm52.sass'), 'utf8').split('\n');
    const codec = maxwellCodec('sm_52');
    let words = 0;
    let known = 0;
    let same = 0;
    for (const line of lines) {
      const m = /^(.*?);?\s*\/\*\s*(0x[0-9a-f]+)\s*\*\/\s*$/.exec(line);
      if (!m) continue;
      words++;
      const d = codec.decode(maxwellVirtualWord(wordFromHex(m[2]!, 64), 0), 0);
      if (!isKnown(d)) continue;
      known++;
      if (norm(formatMaxwellInstruction(d)) === norm(m[1]!)) same++;
    }
    console.log(`opcode_sm52.sass: ${words} words, ${known} decode to a known form, ${same} print nvdisasm's text`);
    expect(words).toBeGreaterThan(1000);
  }, 60_000);
});

describe('virtual words', () => {
  it('carry the instruction and the slot control bits', () => {
    const w = maxwellVirtualWord(Uint32Array.of(0x00870001, 0x4c980780), 0x7f6);
    expect(splitVirtualWord(w)).toEqual({ inst: Uint32Array.of(0x00870001, 0x4c980780), control: 0x7f6 });
  });
});
