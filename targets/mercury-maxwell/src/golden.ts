import { readFileSync } from 'node:fs';
import { type ControlInfo, getBits, setBits, type Word, wordFromHex } from '@ptxforge/sass';
import { stripAnnotations } from './codec.js';
import { MAXWELL_LAYOUT } from './layout.js';

/** One Maxwell/Pascal golden row: the virtual word (instruction + slot control), its address and text. */
export interface MaxwellGoldenRow {
  where: string;
  word: Word;
  addr: number;
  text: string;
  /** The slot's control info when the file has full words (cudatest). */
  control?: ControlInfo;
  /** Why the row cannot be checked: the golden README's exception (sm_50 records printed with `.reuse` carry
   *  no reuse bits) or symbolic text (a label or relocation: the value is not in the word). */
  skip?: 'no-reuse-bits' | 'symbolic';
}

/**
 * Reads CuAssembler records (`code_no_ctrl`: 64-bit word, reuse nibble at virtual bits 81..84) and the
 * cudatest full words (`inst64` with the group's control word and the slot number).
 */
export function goldenRows(file: string): MaxwellGoldenRow[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const head = lines[0]!.split('\t');
  const name = file.split('/').pop()!;
  const sm50 = name.includes('sm50');
  const out: MaxwellGoldenRow[] = [];
  for (let i = 1; i < lines.length; i++) {
    if (!lines[i]!.trim()) continue;
    const f = lines[i]!.split('\t');
    const col = (k: string) => f[head.indexOf(k)]!;
    const row: MaxwellGoldenRow = { where: `${name}:${i + 1}`, word: new Uint32Array(4), addr: parseInt(col('addr'), 16), text: col('text') };
    if (head.includes('code_no_ctrl')) {
      row.word = wordFromHex(col('code_no_ctrl'));
      // The sm_50 file carries no reuse nibble (README). Texture instructions use the same two bits for their
      // `.T`/`.P` suffix (sm_60/61 rows: reuse value 1 prints .T, 2 prints .P; the sm_50 TLDS words printing
      // .T and .P are otherwise alike), so their text cannot come from the word either.
      if (sm50 && (/\.reuse\b/.test(row.text) || /^(@!?P\w+\s+)?(TEXS|TLDS|TLD4S|TEX|TLD|TLD4|TXQ)\.(\S*\.)?[TP]\s/.test(row.text)) && getBits(row.word, 81, 4) === 0)
        row.skip = 'no-reuse-bits';
    } else {
      const w = wordFromHex(col('inst64'));
      const ctrl = wordFromHex(col('ctrl64_of_group'));
      setBits(w, 64, 21, getBits(ctrl, 21 * Number(col('slot')), 21));
      row.word = w;
      row.control = MAXWELL_LAYOUT.readControl(w);
    }
    if (/`\(|@(lo|hi)\(|@fdesc/.test(row.text)) row.skip = 'symbolic';
    out.push(row);
  }
  return out;
}

/**
 * Text compared whitespace-normalized: runs of blanks collapse, blanks before `,`/`;`, between `] [` and the
 * final `;` go,
 * and what is not part of the word (dual-issue braces, `(*"..."*)` annotations) is dropped.
 */
export function normalizeMaxwellText(t: string): string {
  return stripAnnotations(t)
    .replace(/\s+/g, ' ')
    .replace(/\s*;\s*$/, '')
    .replace(/ ([,;])/g, '$1')
    .replace(/\] \[/g, '][')
    .trim();
}
