import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  findGoldenDir,
  formatControl,
  formatInstruction,
  getBits,
  setBits,
  isUnknown,
  normalizeSassText,
  parseInstruction,
  readGoldenTsv,
  wordFromHex,
  wordsEqual,
  wordToHex,
  type DecodedInstruction,
  type GoldenRow,
} from '@ptxforge/sass';
import { describe, expect, it } from 'vitest';
import { decodeVolta, encodeVolta } from './index.js';

const golden = findGoldenDir();
const FLOOR = 1;

const FILES: [string, string][] = [
  ['sm_70', 'cuasm_insrecords_sm70.tsv'],
  ['sm_75', 'cuasm_insrecords_sm75.tsv'],
  ['sm_75', 'cudatest.7.sm_75.tsv'],
  ['sm_80', 'cuasm_insrecords_sm80.tsv'],
  ['sm_86', 'cuasm_insrecords_sm86.tsv'],
  ['sm_90', 'sm90_pairs.tsv'],
];

/** Rows whose text cannot determine the word: symbolic targets/relocations, and reuse flags set on
 * operands nvdisasm does not print `.reuse` for (bits 122..125 kept in the CuAssembler records). */
function textDeterminesWord(r: GoldenRow): boolean {
  if (/`\(|@(lo|hi)\(/.test(r.text)) return false;
  const reuse = getBits(wordFromHex(r.code), 122, 4);
  if ((reuse & 0xf) !== 0 && !r.text.includes('.reuse')) return false;
  return true;
}

/** nvdisasm prints no base register when it is RZ (`[UR4]`), and so no base suffix (`.64`): CuAssembler has
 * the same text for words with and without the suffix bits, so the text cannot give the word. */
function hidesBaseSuffix(d: DecodedInstruction): boolean {
  return !isUnknown(d) && d.operands.some((o) => o.k === 'mem' && o.base === 255 && !!o.baseSfx?.length);
}

/** sm90_pairs has no addresses: branch targets in its text cannot be checked. */
function hasAddressDependentText(arch: string, file: string, r: GoldenRow): boolean {
  return file === 'sm90_pairs.tsv' && /^(@!?U?P\w+\s+)?(BRA|BSSY|CALL\.REL|BRX|BREAK|JMP)\b/.test(r.text) && /0x[0-9a-f]+\s*;?\s*$/.test(r.text);
}

export interface GoldenResult {
  rows: number;
  decodeOk: number;
  encodeOk: number;
  encodeChecked: number;
  fails: string[];
}

export function runGolden(arch: string, file: string, dir = golden!): GoldenResult {
  const rows = readGoldenTsv(join(dir, file));
  const res: GoldenResult = { rows: rows.length, decodeOk: 0, encodeOk: 0, encodeChecked: 0, fails: [] };
  for (const r of rows) {
    const w = wordFromHex(r.code);
    const d = decodeVolta(arch, w, r.addr);
    const addrText = hasAddressDependentText(arch, file, r);
    const symbolic = /`\(|@(lo|hi)\(/.test(r.text);
    if (isUnknown(d)) res.fails.push(`${r.where} decode: unknown (${d.reason}) ${r.text}`);
    else {
      const t = formatInstruction(d);
      let ok = addrText || symbolic || normalizeSassText(t) === normalizeSassText(r.text);
      if (ok && r.ctrl) ok = formatControl(d.control!) === r.ctrl;
      // The structured form must re-encode to the same bits in every case.
      let same = false;
      try {
        same = wordsEqual(encodeVolta(arch, d, r.addr), w);
      } catch {
        same = false;
      }
      if (ok && same) res.decodeOk++;
      else res.fails.push(`${r.where} decode: ${ok ? '' : `text '${t}' `}${same ? '' : 'no bit-identical re-encode '}want ${r.text}`);
    }
    if (!addrText && textDeterminesWord(r) && !hidesBaseSuffix(d)) {
      res.encodeChecked++;
      try {
        const ins = parseInstruction(r.ctrl ? `[${r.ctrl}] ${r.text}` : r.text);
        const e = encodeVolta(arch, ins, r.addr);
        // Full words without a control string (sm90 pairs): the text cannot give the control bits.
        const want = wordFromHex(r.code);
        if (r.fullWord && !r.ctrl) setBits(want, 105, 17, 0);
        if (wordsEqual(e, want)) res.encodeOk++;
        else res.fails.push(`${r.where} encode: ${wordToHex(e)} want ${r.code} ${r.text}`);
      } catch (err) {
        res.fails.push(`${r.where} encode: ${(err as Error).message}`);
      }
    }
  }
  return res;
}

describe.skipIf(!golden)('Volta+ golden vectors both ways (skipped: ../shared/golden absent)', () => {
  for (const [arch, file] of FILES) {
    it(`${arch} ${file}`, () => {
      const r = runGolden(arch, file);
      console.log(`${arch} ${file}: decode ${r.decodeOk}/${r.rows}, encode ${r.encodeOk}/${r.encodeChecked}`);
      if (r.fails.length) console.log(`${file}: ${r.fails.length} failures\n  ${r.fails.slice(0, Number(process.env.GOLDEN_SHOW ?? 40)).join('\n  ')}`);
      expect(r.rows).toBeGreaterThan(400);
      // Ratchet while the tables are being completed: the floor only ever goes up (target: every row).
      expect(r.decodeOk / r.rows).toBeGreaterThanOrEqual(FLOOR);
      expect(r.encodeOk / r.encodeChecked).toBeGreaterThanOrEqual(FLOOR);
    });
  }
});

// Vectors learned by experiment with ptxas (scripts/ptxas-experiments.mjs; forms with no golden text). They
// ship with the package, so this runs without ../shared; every row must pass both ways.
const VECTORS = resolve(dirname(fileURLToPath(import.meta.url)), '../vectors');
const EXPERIMENT_FILES: [string, string][] = [
  ['sm_75', 'sm_75-ptxas.tsv'],
  ['sm_80', 'sm_80-ptxas.tsv'],
  ['sm_86', 'sm_86-ptxas.tsv'],
  ['sm_90', 'sm_90-ptxas.tsv'],
];

describe('Volta+ experiment vectors both ways', () => {
  for (const [arch, file] of EXPERIMENT_FILES) {
    it(`${arch} ${file}`, () => {
      const r = runGolden(arch, file, VECTORS);
      expect(r.fails).toEqual([]);
      expect(r.rows).toBeGreaterThan(10);
      expect(r.decodeOk).toBe(r.rows);
      expect(r.encodeOk).toBe(r.encodeChecked);
      expect(r.encodeChecked).toBe(r.rows);
    });
  }
});
