import { describe, expect, it } from 'vitest';
import { buildCubin, CubinError, layoutModuleData, readCubin, SHT, STB } from './index.js';

// EXIT + self-branch: the builder does not look at the code beyond its size.
const code = Uint8Array.from([0x4d, 0x79, ...new Array(14).fill(0), 0x47, 0x79, ...new Array(14).fill(0)]);
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

// The module of ptxas's sm_90 cubin these expectations come from (ptxas 13.0.88 -O3):
//   .global .align 4 .b32 g_uninit[8];            .visible .global .align 8 .u64 g_vis = 5;
//   .global .align 4 .b32 g_init[3] = {7, 8, 9};  .const .align 4 .b32 c_tab[4] = {1, 2, 3, 4};
//   .const .align 8 .u64 c_ptr = g_init;           kernel k with 128 bytes of shared memory
const variables = [
  { name: 'g_uninit', space: 'global' as const, size: 32, align: 4 },
  { name: 'g_vis', space: 'global' as const, size: 8, align: 8, init: Uint8Array.of(5), visible: true },
  { name: 'g_init', space: 'global' as const, size: 12, align: 4, init: Uint8Array.of(7, 0, 0, 0, 8, 0, 0, 0, 9, 0, 0, 0) },
  { name: 'c_tab', space: 'const' as const, size: 16, align: 4, init: Uint8Array.of(1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0) },
  { name: 'c_ptr', space: 'const' as const, size: 8, align: 8, relocations: [{ offset: 0, size: 8 as const, symbol: 'g_init', generic: true }] },
];

describe('module data (.nv.global, .nv.global.init, .nv.constant3/4)', () => {
  it('lays out and relocates variables as ptxas does', () => {
    const bytes = buildCubin({
      arch: 'sm_90',
      functions: [{ name: 'k', kind: 'entry', global: true, code, regCount: 18, exitOffsets: [0], params: [{ ordinal: 0, offset: 0, size: 8 }], sharedBytes: 128 }],
      variables,
      addressTable: [{ symbol: 'g_vis' }, { symbol: 'g_uninit' }, { symbol: 'g_init' }],
    });
    const c = readCubin(bytes);
    const sec = (n: string) => c.sections.find((s) => s.name === n)!;
    // ptxas: .nv.global.init = g_vis (visible first) then g_init; .nv.global NOBITS 0x20; bank 3 = c_tab, c_ptr
    expect(hex(sec('.nv.global.init').data)).toBe('0500000000000000070000000800000009000000');
    expect(sec('.nv.global.init').flags).toBe(3);
    expect(sec('.nv.global').type).toBe(SHT.NOBITS);
    expect(sec('.nv.global').size).toBe(0x20);
    expect(hex(sec('.nv.constant3').data)).toBe('010000000200000003000000040000000000000000000000');
    expect(sec('.nv.constant4').size).toBe(0x18);
    const order = c.sections.map((s) => s.name);
    expect(order.indexOf('.rela.nv.constant4')).toBeLessThan(order.indexOf('.rela.nv.constant3'));
    expect(order.indexOf('.nv.constant3')).toBeLessThan(order.indexOf('.text.k'));
    expect(order.indexOf('.nv.global.init')).toBeGreaterThan(order.indexOf('.text.k'));
    const rel = c.relocations.filter((r) => r.target !== sec('.debug_frame').index).map((r) => [c.sections[r.target]!.name, r.offset, r.typeName, r.symbolName]);
    expect(rel).toEqual([
      ['.nv.constant4', 16, 'R_CUDA_64', 'g_init'],
      ['.nv.constant4', 8, 'R_CUDA_64', 'g_uninit'],
      ['.nv.constant4', 0, 'R_CUDA_64', 'g_vis'],
      ['.nv.constant3', 16, 'R_CUDA_G64', 'g_init'],
    ]);
    const sym = (n: string) => c.symbols.find((s) => s.name === n)!;
    expect([sym('g_init').value, sym('g_init').size, sym('g_init').bind]).toEqual([8, 12, STB.LOCAL]);
    expect([sym('g_vis').value, sym('g_vis').bind]).toEqual([0, STB.GLOBAL]);
    expect(c.sections[sym('c_ptr').shndx]!.name).toBe('.nv.constant3');
    expect(sym('c_ptr').value).toBe(16);
    // segments as ptxas: a read-only LOAD over banks 4 and 3, the data LOAD from .nv.global.init (file 20 bytes)
    const loads = c.segments.filter((g) => g.type === 1);
    expect(loads.some((g) => g.flags === 4 && g.offset === sec('.nv.constant4').offset && g.filesz === 0x30)).toBe(true);
    expect(loads.some((g) => g.flags === 6 && g.offset === sec('.nv.global.init').offset && g.filesz === 20)).toBe(true);
  });

  it("writes a bank-3 variable's own-space address as its offset (no relocation)", () => {
    const l = layoutModuleData([
      { name: 'x', space: 'const', size: 8, align: 8, init: Uint8Array.of(1) },
      { name: 'p', space: 'const', size: 8, align: 8, relocations: [{ offset: 0, size: 8, symbol: 'x', addend: 4 }] },
    ]);
    expect(l.byName.get('p')!.offset).toBe(8);
    const bytes = buildCubin({ arch: 'sm_90', functions: [{ name: 'k', kind: 'entry', global: true, code, regCount: 8, exitOffsets: [0] }], variables: l.variables });
    const c = readCubin(bytes);
    expect(hex(c.sections.find((s) => s.name === '.nv.constant3')!.data)).toBe('01000000000000000400000000000000');
    expect(c.sections.some((s) => s.name === '.rela.nv.constant3')).toBe(false);
  });

  it('rejects bad data with CUBIN_WRITE', () => {
    const f = [{ name: 'k', kind: 'entry' as const, global: true, code, regCount: 8, exitOffsets: [0] }];
    expect(() => buildCubin({ arch: 'sm_90', functions: f, variables: [{ name: 'a', space: 'global', size: 4, align: 3 }] })).toThrow(CubinError);
    expect(() => buildCubin({ arch: 'sm_90', functions: f, variables: [{ name: 'a', space: 'const', size: 4, align: 4 }], addressTable: [{ symbol: 'a' }] })).toThrow(/not a global variable/);
    expect(() => buildCubin({ arch: 'sm_90', functions: f, variables: [{ name: 'a', space: 'global', size: 4, align: 4, relocations: [{ offset: 0, size: 8, symbol: 'b' }] }] })).toThrow(/outside|not a variable/);
  });
});
