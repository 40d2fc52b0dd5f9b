import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isUnknown, readGoldenTsv, TableCodec, wordFromHex, wordToHex, type SassInstruction, type SassOperand } from '@ptxforge/sass';
import { describe, expect, it } from 'vitest';
import { voltaCodec, voltaCodecOptions } from './index.js';

// The encoder remembers each instruction form's row choice (TableCodec's form cache) and then stores only the
// operand values. The result must be the full row search's whatever the values: a value that does not fit the
// cached row must still find a later row, or fail with the same error. Checked on the ptxas vectors shipped with
// the package (no ../shared needed): every instruction and value variants of it, encoded by a codec with the
// cache (warmed by the instructions themselves) and by one without.
const VECTORS = resolve(dirname(fileURLToPath(import.meta.url)), '../vectors');

const INTS = [0, 1, -1, 0x7f, -0x80, 0xffff, 0x10000, -0x8000, 0x7fffff, 0x800000, 0x7fffffff, -0x80000000, 0xffffffff, 2 ** 32, 2 ** 40 + 3, 0.5];
const FLOATS = [0, -0, 1.5, -2.25, 1e30, 3.4e38, 1e-40, Number.NaN, Number.POSITIVE_INFINITY];
const REGS = [0, 1, 2, 7, 63, 200, 254, 255];

function variants(ins: SassInstruction): SassInstruction[] {
  const out: SassInstruction[] = [];
  const put = (i: number, o: SassOperand): void => {
    const operands = ins.operands.slice();
    operands[i] = o;
    out.push({ ...ins, operands });
  };
  ins.operands.forEach((o, i) => {
    switch (o.k) {
      case 'reg':
        for (const n of REGS) put(i, { ...o, n });
        break;
      case 'int':
        for (const v of INTS) put(i, { ...o, v });
        break;
      case 'float':
        for (const v of FLOATS) put(i, { ...o, v });
        break;
      case 'cbank':
        for (const off of [0, 4, 0x210, 0xfffc, 0x10000, -4]) put(i, { ...o, off });
        for (const bank of [0, 3, 31, 32]) put(i, { ...o, bank });
        break;
      case 'mem':
        for (const off of [0, 4, -4, 0x7fffff, -0x800000, 0x1000000]) put(i, { ...o, off });
        for (const base of [0, 254, 255]) put(i, { ...o, base });
        break;
      default:
        break;
    }
  });
  return out;
}

function result(codec: TableCodec, ins: SassInstruction, addr: number): string {
  try {
    return wordToHex(codec.encode(ins, addr));
  } catch (e) {
    return `${(e as { code?: string }).code}: ${(e as Error).message}`;
  }
}

describe('encoder form cache', () => {
  for (const arch of ['sm_75', 'sm_80', 'sm_86', 'sm_90']) {
    it(`changes no word or error on ${arch} vectors and value variants`, () => {
      const base = voltaCodec(arch);
      const cached = new TableCodec(voltaCodecOptions(arch));
      const uncached = new TableCodec({ ...voltaCodecOptions(arch), formCache: false });
      const rows = readGoldenTsv(join(VECTORS, `${arch}-ptxas.tsv`));
      const known: { d: SassInstruction; addr: number }[] = [];
      for (const r of rows) {
        const d = base.decode(wordFromHex(r.code), r.addr);
        if (!isUnknown(d)) known.push({ d, addr: r.addr });
      }
      expect(known.length).toBeGreaterThan(rows.length * 0.9);
      // warm the cache with every form, then every variant of every form
      for (const { d, addr } of known) result(cached, d, addr);
      let checked = 0;
      let failed = 0;
      for (const { d, addr } of known) {
        for (const v of [d, ...variants(d)]) {
          const want = result(uncached, v, addr);
          expect(result(cached, v, addr), `${arch} ${JSON.stringify(v)}`).toBe(want);
          if (!want.startsWith('0x')) failed++;
          checked++;
        }
      }
      // both outcomes are compared: words and errors (values no row holds)
      expect(checked).toBeGreaterThan(known.length * 5);
      expect(failed).toBeGreaterThan(0);
      expect(failed).toBeLessThan(checked);
    }, 120_000);
  }
});
