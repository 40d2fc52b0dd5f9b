import { describe, expect, it } from 'vitest';
import { parseControl } from './control.js';
import { instrFromText } from './listing.js';
import { instrRoles } from './roles.js';

const show = (text: string): { defs: string[]; uses: string[] } => {
  const r = instrRoles(instrFromText(0, text, parseControl('B------:R-:W5:-:S01')));
  const f = (a: { reg: { file: string; index: number; count: number } }): string => `${a.reg.file}${a.reg.index}x${a.reg.count}`;
  return { defs: r.defs.map(f), uses: r.uses.map(f) };
};

// Register layouts of texture operands as ptxas 13 fills them (each coordinate loaded by its own LDG; see
// textureWidths in roles.ts): results Rd (channels 1-2) and Rd2 (channels 3-4), Ra coordinates, Rb the rest.
describe('texture instruction roles', () => {
  it('tex.2d, all channels: Rd and Rd2 pairs; Ra = x, y; Rb = lod', () => {
    expect(show('TEX.LL R10, R8, R8, R10, UR4, 0x0, 2D ;')).toEqual({ defs: ['R10x2', 'R8x2'], uses: ['R8x2', 'R10x1', 'UR4x1'] });
  });
  it('two channels: Rd2 is RZ, Rd a pair', () => {
    expect(show('TEX.LL RZ, R12, R12, R0, UR6, 0x0, 2D, 0x3 ;').defs).toEqual(['R12x2']);
  });
  it('three channels: Rd pair, Rd2 single', () => {
    expect(show('TEX.LL R20, R10, R10, R0, UR4, 0x0, 2D, 0x7 ;').defs).toEqual(['R20x1', 'R10x2']);
  });
  it('one channel', () => {
    expect(show('TEX.SCR.LL RZ, R5, R4, R0, 0x0, 0x5e, 2D, 0x1 ;')).toEqual({ defs: ['R5x1'], uses: ['R4x2', 'R0x1'] });
  });
  it('3D and ARRAY_2D: three coordinate registers', () => {
    expect(show('TEX.LL R14, R12, R12, R15, UR4, 0x0, 3D ;').uses).toEqual(['R12x3', 'R15x1', 'UR4x1']);
    expect(show('TEX.LL R10, R8, R8, R11, UR4, 0x0, ARRAY_2D ;').uses).toEqual(['R8x3', 'R11x1', 'UR4x1']);
  });
  it('.DC / .AOFFI / .B add registers to Rb; TXD 2D reads four derivatives', () => {
    expect(show('TEX.LL.DC R14, R12, R10, R12, UR4, 0x0, 2D ;').uses).toEqual(['R10x2', 'R12x2', 'UR4x1']);
    expect(show('TEX.SCR.B.LL R14, R12, R10, R12, 2D ;').uses).toEqual(['R10x2', 'R12x2']);
    expect(show('TXD R22, R20, R16, R20, UR4, 0x0, 2D ;').uses).toEqual(['R16x2', 'R20x4', 'UR4x1']);
  });
  it('TLD.LZ 1D reads one coordinate and no Rb; TXQ reads its LOD register', () => {
    expect(show('TLD.LZ R10, R8, R2, UR4, 0x0, 1D ;')).toEqual({ defs: ['R10x2', 'R8x2'], uses: ['R2x1', 'UR4x1'] });
    expect(show('TXQ RZ, R8, R8, TEX_HEADER_DIMENSION, UR4, 0x0, 0x1 ;')).toEqual({ defs: ['R8x1'], uses: ['R8x1', 'UR4x1'] });
  });
});
