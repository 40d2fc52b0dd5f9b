import { join } from 'node:path';
import { decodeVolta } from '@ptxforge/mercury-volta';
import { findGoldenDir, isUnknown, parseInstruction, readGoldenTsv, wordFromHex, type SassInstruction } from '@ptxforge/sass';
import { describe, expect, it } from 'vitest';
import { hazardInstrFromSass, hazardInstrFromSassText } from './from-sass.js';

// hazardInstrFromSass builds the checker's view from the structured operands; it must give exactly what printing
// the instruction and parsing the text back gives (the scoreboard generator's output depends on every field).
const HI = (0x1f3n << 41n) | 0x123n;

function same(ins: SassInstruction, addr = 0x40): void {
  expect(hazardInstrFromSass(addr, ins, HI)).toStrictEqual(hazardInstrFromSassText(addr, ins, HI));
}

describe('hazardInstrFromSass without the listing parser', () => {
  // shapes the direct route handles and the ones it hands to the parser (names, floats, relocations, odd suffixes)
  const texts = [
    '@!P0 IADD3 R4, P0, PT, R2, c[0x0][0x210], RZ ;',
    '@UPT IMAD.WIDE.U32 R2, R3.reuse, 0x4, R4 ;',
    'LDG.E.64 R2, desc[UR4][R2.64+0x10] ;',
    'LDG.E R2, desc[UR4][R2.64+UR6+-0x10] ;',
    'STG.E desc[URZ][R2.64], R5 ;',
    'LDS.U16 R3, [R4.X4+UR5+0x8] ;',
    'LDS R3, [UR5] ;',
    'LDS R3, [0x10] ;',
    'LDS R3, [RZ] ;',
    'ULDC.64 UR4, c[0x0][0x118] ;',
    'LDC R3, c[0x3][R19+0x4] ;',
    'LDC R3, c[0x3][UR4] ;',
    'FADD R1, -|R2|, |c[0x0][0x160]| ;',
    'HADD2 R1, -|R2.H0_H0|, R3.H1_H1 ;',
    'HFMA2.MMA R1, R2.reuse.H1_H1, -RZ, 0.5 ;',
    'FFMA R1, R2, -1.5, R3 ;',
    'FMUL R1, R2, +INF ;',
    'FSEL R1, R2, +QNAN, !P3 ;',
    'IADD3 R1, R2, -0x80, RZ ;',
    'LOP3.LUT R1, R2, ~R3, RZ, 0xc0, !PT ;',
    'S2R R0, SR_TID.X ;',
    'CS2R R4, SRZ ;',
    'P2R R0, PR, RZ, 0x7f ;',
    'DEPBAR.LE SB0, 0x1 ;',
    'BRA 0x1a0 ;',
    'BSSY B0, 0x200 ;',
    'BSYNC B0 ;',
    'MOV R2, 32@lo(flist) ;',
    'CALL.REL.NOINC R8 0x0 ;',
    'ISETP.GE.U32.AND P0, PT, R0, UR4, PT ;',
    'PLOP3.LUT P0, PT, !UP0, PT, PT, 0x80, 0x0 ;',
    'EXIT ;',
    'NOP ;',
    'IMMA.16816.S8.S8 R12, R4.ROW, R8.COL, R12 ;',
    'TEX.SCR.LL.NODEP R4, R2, R0, 0x0, 0x58, 2D, 0x1 ;',
  ];
  it.each(texts)('%s', (t) => same(parseInstruction(t)));

  it('structured shapes the printer alone can make', () => {
    same({ opcode: 'MOV', mods: [], operands: [{ k: 'reg', file: 'R', n: 2 }, { k: 'name', name: '{4,3,2,1}' }] });
    same({ opcode: 'MOV', mods: [], operands: [{ k: 'reg', file: 'R', n: 2 }, { k: 'reg', file: 'R', n: 3, abs: true, sfxOutsideAbs: true, sfx: ['H0_H0'] }] });
    same({ opcode: 'IADD3', mods: ['X'], operands: [{ k: 'reg', file: 'R', n: 2, sfx: ['64', '128'] }, { k: 'int', v: -0 }] });
    same({ opcode: 'LDG', mods: ['E'], operands: [{ k: 'reg', file: 'R', n: 2 }, { k: 'mem', base: 2, baseSfx: ['U32', '64'], off: 4 }] });
    same({ opcode: 'LDG', mods: ['E'], operands: [{ k: 'reg', file: 'R', n: 2 }, { k: 'mem', base: 255, ur: 4, off: 0, desc: 63 }] });
    same({ opcode: 'UTMALDG', mods: ['2D'], operands: [{ k: 'mem', base: 255, off: 0, descOnly: true, desc: 4 }, { k: 'mem', base: 255, off: 0, gdesc: true, ur: 8 }] });
    same({ guard: { file: 'UP', n: 7, not: true }, opcode: 'MOV', mods: [], operands: [{ k: 'reg', file: 'P', n: 7, not: true }, { k: 'reg', file: 'B', n: 3 }] });
    same({ opcode: 'MOV', mods: ['A.B'], operands: [{ k: 'reg', file: 'R', n: 2 }] });
    same({ opcode: 'IADD3', mods: [], operands: [{ k: 'reg', file: 'R', n: 2 }, { k: 'cbank', bank: 0, off: 0x10, neg: true, not: true, sfx: ['H1'] }] });
    same({ opcode: 'IADD3', mods: [], operands: [{ k: 'int', v: 2 ** 60 }, { k: 'int', v: 1, reloc: '32@hi(x)' }] });
  });

  const golden = findGoldenDir();
  const files: Array<[string, string]> = [
    ['sm_75', 'cuasm_insrecords_sm75.tsv'],
    ['sm_75', 'cudatest.7.sm_75.tsv'],
    ['sm_80', 'cuasm_insrecords_sm80.tsv'],
    ['sm_86', 'cuasm_insrecords_sm86.tsv'],
    ['sm_90', 'sm90_pairs.tsv'],
  ];
  it.skipIf(!golden)('every decodable golden word (needs ../shared/golden)', async () => {
    let n = 0;
    for (const [arch, file] of files) {
      const rows = readGoldenTsv(join(golden!, file));
      for (const [k, r] of rows.entries()) {
        const d = decodeVolta(arch, wordFromHex(r.code), r.addr);
        if (isUnknown(d)) continue;
        same(d, r.addr);
        n++;
        if (k % 500 === 0) await new Promise(setImmediate);
      }
    }
    expect(n).toBeGreaterThan(10000);
  });
});
