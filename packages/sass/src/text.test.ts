import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findGoldenDir, readGoldenTsv } from './golden.js';
import { formatControl, parseControl } from './control.js';
import { formatFloat, formatInstruction, normalizeSassText, parseInstruction, SassSyntaxError } from './text.js';

const golden = findGoldenDir();

describe('text syntax', () => {
  it('round-trips a typical instruction with control', () => {
    const t = '[B0-2---:R-:W2:Y:S04] @!P0 IADD3 R4, P0, PT, -R2.reuse, c[0x0][0x210], RZ ;';
    const ins = parseInstruction(t);
    expect(ins.guard).toEqual({ file: 'P', n: 0, not: true });
    expect(ins.operands[3]).toEqual({ k: 'reg', file: 'R', n: 2, neg: true, reuse: true });
    expect(ins.operands[4]).toEqual({ k: 'cbank', bank: 0, off: 0x210 });
    expect(formatInstruction(ins, { control: true })).toBe(t);
  });
  it('parses memory operands', () => {
    const ins = parseInstruction('LDG.E.128 R36, desc[UR4][R18.64+-0x10] ;');
    expect(ins.operands[1]).toEqual({ k: 'mem', desc: 4, base: 18, baseSfx: ['64'], off: -0x10 });
    expect(formatInstruction(ins)).toBe('LDG.E.128 R36, desc[UR4][R18.64+-0x10] ;');
  });
  it('prints floats like nvdisasm', () => {
    expect(formatFloat(1)).toBe('1');
    expect(formatFloat(Math.fround(1.3))).toBe('1.2999999523162841797');
    expect(formatFloat(2 ** 64)).toBe('1.84467440737095516160e+19');
    expect(formatFloat(Math.fround(8.523464202880859375e-6))).toBe('8.523464202880859375e-06');
  });
  it('control notation round-trips', () => {
    for (const s of ['B------:R-:W-:Y:S08', 'B012345:R0:W5:-:S15']) expect(formatControl(parseControl(s))).toBe(s);
    expect(() => parseControl('B-----:R-:W-:Y:S08')).toThrow(/SASS_CONTROL_SYNTAX/);
  });
  it('rejects malformed text with a coded error', () => {
    expect(() => parseInstruction('IADD3 R1, [R2')).toThrow(SassSyntaxError);
    expect(() => parseInstruction('@Q0 NOP ;')).toThrow(/SASS_SYNTAX/);
  });
});

describe.skipIf(!golden)('golden texts re-print identically (skipped: ../shared/golden absent)', () => {
  const files = golden ? readdirSync(golden).filter((f) => f.endsWith('.tsv') && !/sm(50|60|61)|sm_61/.test(f)) : [];
  for (const f of files) {
    it(f, () => {
      const bad: string[] = [];
      const rows = readGoldenTsv(join(golden!, f));
      for (const r of rows) {
        let t: string;
        try {
          t = formatInstruction(parseInstruction(r.text));
        } catch (e) {
          t = String(e);
        }
        if (normalizeSassText(t) !== normalizeSassText(r.text)) bad.push(`${r.where}: ${r.text} => ${t}`);
      }
      expect(bad.slice(0, 20)).toEqual([]);
      expect(rows.length).toBeGreaterThan(100);
    });
  }
});
