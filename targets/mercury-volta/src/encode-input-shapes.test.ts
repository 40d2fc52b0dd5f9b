import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isUnknown, readGoldenTsv, wordFromHex, wordsEqual, type SassInstruction, type SassOperand } from '@ptxforge/sass';
import { describe, expect, it } from 'vitest';
import { voltaCodec } from './index.js';

// The encoder reads operands by one pass over their own keys (see TableCodec.readOperand): the result must not
// depend on key order, on optional flags present with a falsy value, or on keys it does not know; a flag set
// to true must be read. Checked on the sm_90 ptxas vectors shipped with the package (no ../shared needed).
const VECTORS = resolve(dirname(fileURLToPath(import.meta.url)), '../vectors');
const rows = readGoldenTsv(join(VECTORS, 'sm_90-ptxas.tsv'));
const codec = voltaCodec('sm_90');

/** The same fields, keys in reverse order, with falsy optional flags and an unknown key added. */
function reshaped(o: SassOperand): SassOperand {
  const src = o as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = { note: 'ignored by the encoder' };
  for (const k of Object.keys(src).reverse()) out[k] = src[k];
  for (const f of ['neg', 'abs', 'not', 'reuse', 'sfxOutsideAbs', 'gdesc', 'descOnly']) if (!(f in out)) out[f] = f === 'reuse' ? undefined : false;
  return out as unknown as SassOperand;
}

function reordered(ins: SassInstruction): SassInstruction {
  const src = ins as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(src).reverse()) out[k] = src[k];
  out.operands = ins.operands.map(reshaped);
  return out as unknown as SassInstruction;
}

describe('encoder input shapes (sm_90 ptxas vectors)', () => {
  const known = rows
    .map((r) => ({ r, w: wordFromHex(r.code), d: codec.decode(wordFromHex(r.code), r.addr) }))
    .filter((x): x is { r: (typeof rows)[number]; w: Uint32Array; d: SassInstruction } => !isUnknown(x.d));

  it('has vectors to check', () => {
    expect(known.length).toBeGreaterThan(200);
  });

  it('key order, falsy flags and unknown keys do not change the word', () => {
    const bad: string[] = [];
    for (const { r, d } of known) {
      const a = codec.encode(d, r.addr);
      const b = codec.encode(reordered(d), r.addr);
      if (!wordsEqual(a, b)) bad.push(r.text);
    }
    expect(bad).toEqual([]);
  });

  it('a negation flag set on a register operand is read (the word changes or no row takes it)', () => {
    let checked = 0;
    const ignored: string[] = [];
    for (const { r, d } of known) {
      const i = d.operands.findIndex((o) => o.k === 'reg' && !o.neg && !o.not && o.file === 'R');
      if (i < 0) continue;
      const base = codec.encode(d, r.addr);
      const ops = d.operands.map((o, j) => (j === i ? ({ ...o, neg: true } as SassOperand) : o));
      let changed = true;
      try {
        changed = !wordsEqual(codec.encode({ ...d, operands: ops }, r.addr), base);
      } catch (e) {
        expect((e as { code?: string }).code ?? String(e)).toMatch(/SASS_NO_FORM|SASS_NO_ROW/);
      }
      if (!changed) ignored.push(r.text);
      checked++;
    }
    expect(checked).toBeGreaterThan(50);
    expect(ignored).toEqual([]);
  });
});
