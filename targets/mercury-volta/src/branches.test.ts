import { formatInstruction, getBits, isUnknown, parseInstruction, wordFromHalves, wordToHex, type SassInstruction } from '@ptxforge/sass';
import { describe, expect, it } from 'vitest';
import { decodeVolta, encodeVolta } from './index.js';

/**
 * Branch offsets in both directions. Code generation emits backward branches for loops; the offsets are
 * sign-extended over the whole field (50 bits at 32..81 before Hopper, the 56-bit split word offset
 * D[7:0] 16..23 / D>>8 34..81 on sm_90), wider than a double's exact integers once negative.
 */
const decodeText = (arch: string, w: Uint32Array, addr: number): string => {
  const d = decodeVolta(arch, w, addr);
  return isUnknown(d) ? `UNKNOWN (${d.reason})` : formatInstruction(d);
};

/** The signed offset field as it sits in the word: byte offset (pre-Hopper) or word offset (sm_90). */
function storedOffset(arch: string, w: Uint32Array, splitForm: boolean): number {
  if (arch === 'sm_90' && splitForm) {
    const hi = getBits(w, 34, 30) + getBits(w, 64, 18) * 2 ** 30; // D>>8, 48 bits
    const d = (hi >= 2 ** 47 ? hi - 2 ** 48 : hi) * 256 + getBits(w, 16, 8);
    return d * 4;
  }
  // 32..81 sign-extended (bits 32..33 are zero in byte offsets, or the .U/.DIV flags of BRA's word-offset form)
  const v = getBits(w, 34, 30) * 4 + getBits(w, 64, 18) * 2 ** 32;
  return v >= 2 ** 49 ? v - 2 ** 50 : v;
}

const ARCHS = ['sm_70', 'sm_75', 'sm_80', 'sm_86', 'sm_89', 'sm_90'];
// [text with TARGET placeholder, split on sm_90, archs that have the form]
const FORMS: [string, boolean, string[]][] = [
  ['BRA TARGET ;', true, ARCHS],
  ['@!P1 BRA TARGET ;', true, ARCHS],
  ['BRA !P2, TARGET ;', true, ARCHS],
  ['BRA.U TARGET ;', false, ['sm_70', 'sm_75', 'sm_80', 'sm_86', 'sm_89']],
  ['BRA.DIV UR4, TARGET ;', true, ['sm_80', 'sm_86', 'sm_89', 'sm_90']],
  ['BSSY B1, TARGET ;', false, ARCHS],
  ['CALL.REL.NOINC TARGET ;', true, ARCHS],
  ['CALL.REL.NOINC R8 TARGET ;', true, ARCHS],
  ['RET.REL.NODEC R2 TARGET ;', true, ARCHS],
];

describe('Volta+ branch offsets, forward and backward', () => {
  for (const arch of ARCHS) {
    it(`${arch}: targets before and after the branch encode sign-extended and decode to the same target`, () => {
      for (const [form, split, archs] of FORMS) {
        if (!archs.includes(arch)) continue;
        for (const [addr, target] of [
          [0x230, 0x170],
          [0x1000, 0x0],
          [0x40, 0x50],
          [0x40, 0x2000],
          [0x123450, 0x30],
          [0x30, 0x123450],
        ] as const) {
          const text = form.replace('TARGET', `0x${target.toString(16)}`);
          const w = encodeVolta(arch, parseInstruction(text), addr);
          expect(storedOffset(arch, w, split), `${arch} ${text} at 0x${addr.toString(16)}`).toBe(target - addr - 16);
          expect(decodeText(arch, w, addr), `${arch} ${wordToHex(w)}`).toBe(text);
        }
      }
    });

    it(`${arch}: indexed branches keep their signed offset (BRX R4 -0x100)`, () => {
      for (const off of [-0x100, -0x3d0, 0x40, -0x123450]) {
        const text = `BRX R4 ${off < 0 ? '-' : ''}0x${Math.abs(off).toString(16)} ;`;
        const w = encodeVolta(arch, parseInstruction(text), 0x80);
        expect(storedOffset(arch, w, true)).toBe(off);
        expect(decodeText(arch, w, 0x80)).toBe(text);
      }
    });
  }

  it('real ptxas 13 sm_90 words: a loop back edge and an indexed branch', () => {
    // `@!P1 BRA` at 0x230 back to 0x170 (a counted loop), bit-identical after re-encoding
    const back = wordFromHalves('0xfffffffc00cc9947', '0x000fea000383ffff');
    const d = decodeVolta('sm_90', back, 0x230) as SassInstruction;
    expect(formatInstruction(d)).toBe('@!P1 BRA 0x170 ;');
    expect(wordToHex(encodeVolta('sm_90', d, 0x230))).toBe(wordToHex(back));
    // `BRA` to itself at the end of a function (0x390)
    const self = wordFromHalves('0xfffffffc00fc7947', '0x000fc0000383ffff');
    expect(formatInstruction(decodeVolta('sm_90', self, 0x390) as SassInstruction)).toBe('BRA 0x390 ;');
    // BRX R4 at 0xf0 with the offset -(0xf0 + 0x10): jump-table index relative to the function start
    const brx = wordFromHalves('0xfffffffc04c07949', '0x000fea000383ffff');
    const x = decodeVolta('sm_90', brx, 0xf0) as SassInstruction;
    expect(formatInstruction(x)).toBe('BRX R4 -0x100 ;');
    expect(wordToHex(encodeVolta('sm_90', x, 0xf0))).toBe(wordToHex(brx));
  });
});
