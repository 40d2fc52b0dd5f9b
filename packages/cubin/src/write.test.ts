import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  buildStringTable,
  CubinError,
  decodeAttribute,
  EIFMT,
  encodeArchFlagsV8,
  encodeNotes,
  encodeNvInfo,
  encodeRelocations,
  encodeSymbols,
  ET_EXEC,
  imageOfCubin,
  parseNotes,
  PT,
  readCubin,
  SHF,
  SHT,
  STB,
  STO_CUDA_ENTRY,
  STT,
  writeCubin,
} from './index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = path.join(here, '../test/fixtures/attrs/kernels.ptx');

const u32le = (...xs: number[]) => {
  const b = new Uint8Array(4 * xs.length);
  const v = new DataView(b.buffer);
  xs.forEach((x, i) => v.setUint32(4 * i, x, true));
  return b;
};

describe('writeCubin', () => {
  it('writes a cubin built from parts that reads back the same', () => {
    const strtab = buildStringTable(['k', '.text.k', '.nv.constant0.k']);
    const symbols = [
      { nameOffset: 0, value: 0, size: 0, type: 0, bind: 0, other: 0, shndx: 0 },
      { nameOffset: strtab.offsets.get('.text.k')!, value: 0, size: 0, type: STT.SECTION, bind: STB.LOCAL, other: 0, shndx: 4 },
      { nameOffset: strtab.offsets.get('k')!, value: 0, size: 32, type: STT.FUNC, bind: STB.GLOBAL, other: STO_CUDA_ENTRY, shndx: 4 },
    ];
    const code = new Uint8Array(32).fill(0xab);
    const nvinfo = encodeNvInfo([{ format: EIFMT.SVAL, code: 0x2f, value: 8, payload: u32le(2, 12) }]);
    const image = {
      header: { osabi: 0x41, abiVersion: 8, type: ET_EXEC, flags: encodeArchFlagsV8(90) },
      sections: [
        { name: '', type: SHT.NULL, flags: 0, addralign: 0, data: new Uint8Array(0) },
        { name: '.shstrtab', type: SHT.STRTAB, flags: 0, addralign: 1, data: new Uint8Array(0) },
        { name: '.strtab', type: SHT.STRTAB, flags: 0, addralign: 1, data: strtab.data },
        { name: '.symtab', type: SHT.SYMTAB, flags: 0, addralign: 8, entsize: 24, link: 2, info: 2, data: encodeSymbols(symbols) },
        { name: '.text.k', type: SHT.PROGBITS, flags: SHF.ALLOC | SHF.EXECINSTR, addralign: 128, link: 3, info: 2, data: code },
        { name: '.nv.info', type: SHT.CUDA_INFO, flags: 0, addralign: 4, link: 3, data: nvinfo },
        { name: '.nv.shared.k', type: SHT.NOBITS, flags: SHF.ALLOC | SHF.WRITE, addralign: 16, data: new Uint8Array(0), size: 256 },
      ],
      segments: [
        { type: PT.PHDR, flags: 4, align: 8, covers: 'phdrs' as const },
        { type: PT.LOAD, flags: 5, align: 8, covers: { first: 4, last: 4 } },
      ],
    };
    const bytes = writeCubin(image);
    const c = readCubin(bytes);
    expect(c.arch.name).toBe('sm_90');
    expect(c.sections.map((s) => s.name)).toEqual(image.sections.map((s) => s.name));
    expect(c.sections[4]!.offset % 128).toBe(0);
    expect(Array.from(c.functions[0]!.code)).toEqual(Array.from(code));
    expect(c.functions[0]!).toMatchObject({ name: 'k', isEntry: true, registerCount: 12 });
    expect(c.sections[6]!.size).toBe(256);
    expect(c.functions[0]!.shared?.size).toBe(256);
    expect(c.segments[1]).toMatchObject({ type: PT.LOAD, offset: c.sections[4]!.offset, filesz: 32, memsz: 32 });
    expect(c.segments[0]).toMatchObject({ type: PT.PHDR, offset: c.header.phoff, filesz: 2 * 56 });
    expect(decodeAttribute(c.nvInfo[0]!)).toEqual({ kind: 'symValue', symbol: 2, value: 12 });
    // Deterministic: the same image gives the same bytes.
    expect(Buffer.from(writeCubin(image)).equals(Buffer.from(bytes))).toBe(true);
  });

  it('rejects an image without a null section or .shstrtab (CUBIN_WRITE)', () => {
    const e = (() => {
      try {
        writeCubin({ header: { osabi: 0x41, abiVersion: 8, type: 2, flags: 0 }, sections: [] });
      } catch (x) {
        return x;
      }
    })();
    expect(e).toBeInstanceOf(CubinError);
    expect((e as CubinError).code).toBe('CUBIN_WRITE');
  });
});

const ptxas = (() => {
  try {
    execFileSync('ptxas', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!ptxas)('read(write(x)) on ptxas cubins', () => {
  const dir = ptxas ? mkdtempSync(path.join(tmpdir(), 'cubin-write-')) : '';
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ['sm_75', []],
    ['sm_90', []],
    ['sm_90', ['-c']],
    ['sm_120', []],
  ])('%s %j: byte-identical with the layout kept, same content laid out anew', (arch, extra) => {
    const out = path.join(dir, `${arch}${extra.join('')}.cubin`);
    execFileSync('ptxas', [`-arch=${arch}`, ...extra, fixture, '-o', out]);
    const bytes = readFileSync(out);
    const c = readCubin(bytes);
    expect(Buffer.from(writeCubin(imageOfCubin(c))).equals(bytes)).toBe(true);

    const again = readCubin(writeCubin(imageOfCubin(c, { keepLayout: false })));
    expect(again.sections.map((s) => [s.name, s.type, s.flags, s.size, s.link, s.info])).toEqual(
      c.sections.map((s) => [s.name, s.type, s.flags, s.name === '.shstrtab' ? again.sections[s.index]!.size : s.size, s.link, s.info]),
    );
    for (const s of c.sections) {
      if (s.name !== '.shstrtab') expect(Buffer.from(again.sections[s.index]!.data).equals(Buffer.from(s.data))).toBe(true);
      if (s.addralign > 1) expect(again.sections[s.index]!.offset % s.addralign).toBe(0);
    }
    expect(again.functions.map((f) => [f.name, f.registerCount])).toEqual(c.functions.map((f) => [f.name, f.registerCount]));
    expect(again.segments.length).toBe(c.segments.length);

    // The table encoders reproduce ptxas's bytes.
    const symtab = c.sections.find((s) => s.type === SHT.SYMTAB)!;
    expect(Buffer.from(encodeSymbols(c.symbols)).equals(Buffer.from(symtab.data))).toBe(true);
    for (const s of c.sections) {
      if (s.type === SHT.REL || s.type === SHT.RELA) {
        const rs = c.relocations.filter((r) => r.section === s.index);
        expect(Buffer.from(encodeRelocations(rs, s.type === SHT.RELA)).equals(Buffer.from(s.data))).toBe(true);
      }
      if (s.type === SHT.NOTE) expect(Buffer.from(encodeNotes(parseNotes(s.data, s.name))).equals(Buffer.from(s.data))).toBe(true);
    }
  });
});
