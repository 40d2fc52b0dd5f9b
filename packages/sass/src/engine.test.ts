import { describe, expect, it } from 'vitest';
import { getBits, newWord, wordToHex } from './bits.js';
import { readVoltaControl, writeVoltaControl } from './control.js';
import { TableCodec } from './codec.js';
import { readWideField, writeWideField, type FamilyLayout, type RowSpec } from './engine.js';
import { isUnknown } from './model.js';
import { formatInstruction, parseInstruction } from './text.js';

const layout: FamilyLayout = {
  wordBits: 128,
  opcode: [0, 12],
  guardPred: [12, 3],
  guardNot: 15,
  branchBase: 16,
  readControl: readVoltaControl,
  writeControl: writeVoltaControl,
};

// A toy table: one three-register add with a size slot, a derived alias and a branch.
const rows: RowSpec[] = [
  {
    archs: ['toy'],
    op: 0x210,
    name: 'ADD',
    sig: 'R,R,R',
    guard: 'P',
    atoms: [
      { key: '0', parts: [[16, 8]], enc: 'u' },
      { key: '1', parts: [[24, 8]], enc: 'u' },
      { key: '2', parts: [[32, 8]], enc: 'u' },
    ],
    slots: [{ bits: [[73, 2]], map: { '0': [], '1': ['m:X'], '2': ['m:64'] } }],
    fixed: [],
    derived: [{ token: 'm:MOV', when: [{ atom: '1', eq: 255 }] }],
    order: ['m:MOV', 'm:X', 'm:64', '2:neg'],
    reuse: { '1': 0 },
    mask: '0x00000000000000000000000000000000',
    value: '0x00000000000000000000000000000000',
  },
  {
    archs: ['toy'],
    op: 0x947,
    name: 'BRA',
    sig: 'I',
    guard: 'P',
    atoms: [{ key: '0', parts: [[32, 50]], enc: 'rel' }],
    slots: [],
    fixed: [],
    derived: [],
    order: [],
    mask: '0x000000000000000000000000ffff0000',
    value: '0x00000000000000000000000000000000',
  },
  {
    // sm_90 layout: word offset D, D[7:0] in 16..23 and D>>8 in 34..81 (56 bits, wider than a safe integer)
    archs: ['toy'],
    op: 0x948,
    name: 'JMPS',
    sig: 'I',
    guard: 'P',
    atoms: [{ key: '0', parts: [[16, 8], [34, 48]], enc: 'rel', scale: 4 }],
    slots: [],
    fixed: [],
    derived: [],
    order: [],
    mask: '0x00000000000000000000000300000000',
    value: '0x00000000000000000000000000000000',
  },
];

describe('TableCodec', () => {
  const codec = new TableCodec({ archs: ['toy'], layout, rows });

  it('encodes and decodes a row with slots, reuse and guard', () => {
    const ins = parseInstruction('[B0-----:R1:W2:-:S03] @!P2 ADD.X R1, R2.reuse, R3 ;');
    const w = codec.encode(ins);
    expect(getBits(w, 0, 12)).toBe(0x210);
    expect(getBits(w, 73, 2)).toBe(1);
    expect(getBits(w, 122, 1)).toBe(1);
    const d = codec.decode(w);
    expect(isUnknown(d)).toBe(false);
    expect(formatInstruction(d as never, { control: true })).toBe('[B0-----:R1:W2:-:S03] @!P2 ADD.X R1, R2.reuse, R3 ;');
  });

  it('derives alias tokens on decode and ignores them on encode', () => {
    const w = codec.encode(parseInstruction('ADD R1, RZ, R3 ;'));
    expect(formatInstruction(codec.decode(w) as never)).toBe('ADD.MOV R1, RZ, R3 ;');
    expect(wordToHex(codec.encode(parseInstruction('ADD.MOV R1, RZ, R3 ;')))).toBe(wordToHex(w));
  });

  it('branch targets are relative to the next instruction', () => {
    const w = codec.encode(parseInstruction('BRA 0x100 ;'), 0x40);
    expect(getBits(w, 32, 32)).toBe(0x100 - 0x50);
    expect(formatInstruction(codec.decode(w, 0x40) as never)).toBe('BRA 0x100 ;');
  });

  it('backward branches: negative offsets fill the whole wide field and decode exactly', () => {
    for (const [addr, target] of [
      [0x1000, 0x0],
      [0x40, 0x30],
      [0x40, 0x50],
      [0x123450, 0x20],
      [0x20, 0x7ffff0],
    ] as const) {
      const w = codec.encode(parseInstruction(`BRA 0x${target.toString(16)} ;`), addr);
      const raw = target - addr - 16;
      expect(getBits(w, 32, 32)).toBe(raw >>> 0);
      expect(getBits(w, 64, 18)).toBe(raw < 0 ? 0x3ffff : 0); // sign-extended up to bit 81
      expect(formatInstruction(codec.decode(w, addr) as never)).toBe(`BRA 0x${target.toString(16)} ;`);
      const s = codec.encode(parseInstruction(`JMPS 0x${target.toString(16)} ;`), addr);
      expect(getBits(s, 16, 8)).toBe((raw / 4) & 0xff);
      expect(getBits(s, 34, 30)).toBe(((raw / 4) >> 8) & 0x3fffffff);
      expect(getBits(s, 64, 18)).toBe(raw < 0 ? 0x3ffff : 0);
      expect(formatInstruction(codec.decode(s, addr) as never)).toBe(`JMPS 0x${target.toString(16)} ;`);
    }
  });

  it('wide fields read and write through two 32-bit halves', () => {
    const parts: [number, number][] = [
      [16, 8],
      [34, 48],
    ];
    for (const v of [0, 1, -1, -256, 255, 2 ** 40 + 3, -(2 ** 40) - 5, 2 ** 52 - 1, -(2 ** 52)]) {
      const w = newWord(128);
      writeWideField(w, parts, v);
      expect(readWideField(w, parts, true)).toBe(v);
    }
    const w = newWord(128);
    writeWideField(w, [[32, 50]], -2);
    expect(readWideField(w, [[32, 50]], false)).toBe(2 ** 50 - 2);
    // a 56-bit value outside the safe integers does not decode
    const big = newWord(128);
    big[2] = 0x00020000; // only the sign bit (81) set: -2^55
    expect(readWideField(big, parts, true)).toBeNaN();
  });

  it('words the table does not claim decode as unknown, never throw', () => {
    const w = codec.encode(parseInstruction('ADD R1, R2, R3 ;'));
    w[2] = (w[2]! | (3 << 9)) >>> 0; // slot value 3 is not in the table
    const d = codec.decode(w);
    expect(isUnknown(d) && d.opcodeField).toBe(0x210);
    const z = new Uint32Array(4);
    z[0] = 0x123;
    expect(isUnknown(codec.decode(z))).toBe(true);
  });

  it('rejects what no row holds with coded errors', () => {
    expect(() => codec.encode(parseInstruction('SUB R1, R2, R3 ;'))).toThrow(/SASS_NO_ROW/);
    expect(() => codec.encode(parseInstruction('ADD.Q R1, R2, R3 ;'))).toThrow(/SASS_NO_FORM/);
    expect(() => codec.encode(parseInstruction('ADD R1, R2, R3.reuse ;'))).toThrow(/reuse/);
  });
});
