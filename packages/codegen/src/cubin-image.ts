import {
  EIFMT, ET_EXEC, PT, SHF, SHT, STB, STO_CUDA_ENTRY, STT, ELFOSABI_CUDA_V8, attributeCode, buildStringTable,
  encodeArchFlagsV8, encodeNotes, encodeNvInfo, encodeSymbols, writeCubin, type SectionSpec, type SegmentSpec,
} from '@ptxforge/cubin';

/**
 * What code generation knows about one compiled kernel, the input of the cubin writer.
 *
 * TEMPORARY writer glue: the from-scratch cubin builder of @ptxforge/cubin (issue 12, helper cg-cubin) replaces
 * `kernelCubin` as soon as it is on main; this composes the reader/writer primitives that exist (writeCubin,
 * encodeNvInfo, encodeSymbols) into the sections the lifter and the driver need, in ptxas's order.
 */
export interface CompiledKernel {
  name: string;
  code: Uint8Array;
  registers: number;
  params: Array<{ offset: number; size: number }>;
  paramBase: number;
  paramBytes: number;
  exitOffsets: number[];
  sharedBytes: number;
  frameBytes: number;
}

const attr = (name: string): number => {
  const c = attributeCode(name);
  if (c === undefined) throw new Error(`unknown attribute ${name}`);
  return c;
};

function u32le(...xs: number[]): Uint8Array {
  const out = new Uint8Array(4 * xs.length);
  const v = new DataView(out.buffer);
  xs.forEach((x, i) => v.setUint32(4 * i, x >>> 0, true));
  return out;
}

export function kernelCubin(arch: string, sm: number, kernels: readonly CompiledKernel[]): Uint8Array {
  const sections: SectionSpec[] = [{ name: '', type: SHT.NULL, flags: 0, addralign: 0, data: new Uint8Array(0) }];
  const add = (s: SectionSpec): number => sections.push(s) - 1;
  const shstrtab = add({ name: '.shstrtab', type: SHT.STRTAB, flags: 0, addralign: 1, data: new Uint8Array(0) });
  const strtabIdx = add({ name: '.strtab', type: SHT.STRTAB, flags: 0, addralign: 1, data: new Uint8Array(0) });
  const symtabIdx = add({ name: '.symtab', type: SHT.SYMTAB, flags: 0, addralign: 8, entsize: 24, link: strtabIdx, data: new Uint8Array(0) });
  void shstrtab;
  // .note.nv.cuinfo: version 2, sm, CUDA API 0x82 (what ptxas 13 writes)
  add({
    name: '.note.nv.cuinfo', type: SHT.NOTE, flags: 0x1000040, addralign: 4,
    data: encodeNotes([{ name: 'NVIDIA Corp', type: 1000, desc: Uint8Array.from([2, 0, sm & 0xff, 0, 0x82, 0, 0, 0]) }]),
  });
  const globalInfoIdx = add({ name: '.nv.info', type: 0x70000000, flags: 0, addralign: 4, link: symtabIdx, data: new Uint8Array(0) });
  // symbols: null, one section symbol per .text / .nv.constant0, then the global function symbols
  const names: string[] = [];
  const locals: Array<{ name: string; shndxOf: () => number }> = [];
  const perKernel = kernels.map((k) => {
    const info = add({ name: `.nv.info.${k.name}`, type: 0x70000000, flags: SHF.INFO_LINK, addralign: 4, link: symtabIdx, data: new Uint8Array(0) });
    return { k, info, text: -1, c0: -1, shared: -1 };
  });
  for (const p of perKernel) {
    p.text = add({ name: `.text.${p.k.name}`, type: SHT.PROGBITS, flags: SHF.ALLOC | SHF.EXECINSTR, addralign: 128, link: symtabIdx, data: p.k.code });
  }
  for (const p of perKernel) {
    if (p.k.sharedBytes > 0) {
      p.shared = add({ name: `.nv.shared.${p.k.name}`, type: SHT.NOBITS, flags: SHF.ALLOC | SHF.WRITE, addralign: 16, data: new Uint8Array(0), size: p.k.sharedBytes });
    }
    p.c0 = add({ name: `.nv.constant0.${p.k.name}`, type: SHT.PROGBITS, flags: SHF.ALLOC | SHF.INFO_LINK, addralign: 4, data: new Uint8Array(p.k.paramBase + p.k.paramBytes) });
  }
  for (const p of perKernel) {
    locals.push({ name: `.text.${p.k.name}`, shndxOf: () => p.text });
    locals.push({ name: `.nv.constant0.${p.k.name}`, shndxOf: () => p.c0 });
    if (p.shared >= 0) locals.push({ name: `.nv.shared.${p.k.name}`, shndxOf: () => p.shared });
  }
  for (const l of locals) names.push(l.name);
  for (const p of perKernel) names.push(p.k.name);
  const strtab = buildStringTable(names);
  const syms: Array<Parameters<typeof encodeSymbols>[0][number]> = [{ nameOffset: 0, value: 0, size: 0, type: 0, bind: 0, other: 0, shndx: 0 }];
  for (const l of locals) syms.push({ nameOffset: strtab.offsets.get(l.name)!, value: 0, size: 0, type: STT.SECTION, bind: STB.LOCAL, other: 0, shndx: l.shndxOf() });
  const firstGlobal = syms.length;
  const symOf = new Map<string, number>();
  for (const p of perKernel) {
    symOf.set(p.k.name, syms.length);
    syms.push({ nameOffset: strtab.offsets.get(p.k.name)!, value: 0, size: p.k.code.length, type: STT.FUNC, bind: STB.GLOBAL, other: STO_CUDA_ENTRY, shndx: p.text });
  }
  sections[strtabIdx]!.data = strtab.data;
  sections[symtabIdx]!.data = encodeSymbols(syms);
  sections[symtabIdx]!.info = firstGlobal;
  // global .nv.info: REGCOUNT, FRAME_SIZE, MIN_STACK_SIZE per kernel
  const g: Array<{ format: number; code: number; value: number; payload: Uint8Array }> = [];
  for (const p of perKernel) {
    const s = symOf.get(p.k.name)!;
    g.push({ format: EIFMT.SVAL, code: attr('EIATTR_REGCOUNT'), value: 8, payload: u32le(s, p.k.registers) });
    g.push({ format: EIFMT.SVAL, code: attr('EIATTR_FRAME_SIZE'), value: 8, payload: u32le(s, p.k.frameBytes) });
    g.push({ format: EIFMT.SVAL, code: attr('EIATTR_MIN_STACK_SIZE'), value: 8, payload: u32le(s, 0) });
  }
  sections[globalInfoIdx]!.data = encodeNvInfo(g);
  for (const p of perKernel) {
    const k = p.k;
    const recs: Array<{ format: number; code: number; value: number; payload: Uint8Array }> = [];
    recs.push({ format: EIFMT.SVAL, code: attr('EIATTR_CUDA_API_VERSION'), value: 4, payload: u32le(0x82) });
    // KPARAM_INFO, last parameter first (as ptxas): index 0, ordinal|offset<<16, size/log-align/space word
    for (let i = k.params.length - 1; i >= 0; i--) {
      const prm = k.params[i]!;
      recs.push({ format: EIFMT.SVAL, code: attr('EIATTR_KPARAM_INFO'), value: 12, payload: u32le(0, (i & 0xffff) | (prm.offset << 16), 0x1f000 | ((prm.size & 0x3fff) << 18)) });
    }
    recs.push({ format: EIFMT.HVAL, code: attr('EIATTR_MAXREG_COUNT'), value: 255, payload: new Uint8Array(0) });
    if (k.exitOffsets.length) recs.push({ format: EIFMT.SVAL, code: attr('EIATTR_EXIT_INSTR_OFFSETS'), value: 4 * k.exitOffsets.length, payload: u32le(...k.exitOffsets) });
    recs.push({ format: EIFMT.HVAL, code: attr('EIATTR_CBANK_PARAM_SIZE'), value: k.paramBytes, payload: new Uint8Array(0) });
    recs.push({ format: EIFMT.SVAL, code: attr('EIATTR_PARAM_CBANK'), value: 8, payload: u32le(localIndex(locals, `.nv.constant0.${k.name}`), (k.paramBase & 0xffff) | (k.paramBytes << 16)) });
    sections[p.info]!.data = encodeNvInfo(recs);
    sections[p.info]!.info = p.text;
  }
  const segments: SegmentSpec[] = [{ type: PT.PHDR, flags: 4, align: 8, covers: 'phdrs' }];
  for (const p of perKernel) segments.push({ type: PT.LOAD, flags: 5, align: 8, covers: { first: p.text, last: p.text } });
  return writeCubin({
    header: { osabi: ELFOSABI_CUDA_V8, abiVersion: 8, type: ET_EXEC, flags: encodeArchFlagsV8(sm) },
    sections,
    segments,
  });
  void arch;
}

function localIndex(locals: ReadonlyArray<{ name: string }>, name: string): number {
  let i = 0;
  for (const l of locals) {
    i++;
    if (l.name === name) return i;
  }
  return 0;
}
