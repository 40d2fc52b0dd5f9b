// Cubin writer on the reader's types: an image is the ELF header fields, the sections (with their bytes) in index
// order and the program headers. `writeCubin` lays the sections out (each at the next offset its alignment allows,
// unless the image pins an offset), then the section header table and the program headers, as ptxas does.
// `imageOfCubin` turns a read cubin back into an image; with its layout kept, writing gives the same bytes.
import {
  ELF_HEADER_SIZE,
  ELF_MAGIC,
  type ElfHeader,
  type ElfSection,
  type ElfSegment,
  type ElfSymbol,
  PROGRAM_HEADER_SIZE,
  PT,
  REL_SIZE,
  RELA_SIZE,
  SECTION_HEADER_SIZE,
  SHT,
  SYMBOL_SIZE,
} from './elf.js';
import { CubinError } from './errors.js';
import type { ElfNote } from './notes.js';
import type { Cubin } from './read.js';

/** One section to write. `size` is only needed for SHT_NOBITS (its bytes take no file space). */
export interface SectionSpec {
  name: string;
  type: number;
  flags: number;
  addr?: number;
  link?: number;
  info?: number;
  addralign: number;
  entsize?: number;
  data: Uint8Array;
  size?: number;
  /** File offset to use instead of the computed one (to reproduce another writer's layout). */
  offset?: number;
  /** Offset of the name in .shstrtab, used when the image also supplies .shstrtab's bytes. */
  nameOffset?: number;
}

/** A program header given by the sections it covers (computed offsets and sizes) or as raw values. */
export type SegmentSpec =
  | { type: number; flags: number; align: number; covers: 'phdrs' }
  | { type: number; flags: number; align: number; covers: { first: number; last: number } | 'none' }
  | { raw: ElfSegment };

export interface CubinImage {
  header: Pick<ElfHeader, 'osabi' | 'abiVersion' | 'type' | 'flags'> & Partial<Pick<ElfHeader, 'entry' | 'version' | 'identVersion'>>;
  /** Sections in index order; index 0 must be the null section. */
  sections: SectionSpec[];
  segments?: SegmentSpec[];
  /** Offsets of the section and program header tables (computed when absent). */
  shoff?: number;
  phoff?: number;
  /** Keep the given .shstrtab bytes and name offsets instead of building the table (default: build it). */
  keepShstrtab?: boolean;
}

const alignUp = (n: number, a: number) => (a > 1 ? Math.ceil(n / a) * a : n);

/** A string table holding each name once (offset 0 is the empty string), in first-use order. */
export function buildStringTable(names: readonly string[]): { data: Uint8Array; offsets: Map<string, number> } {
  const offsets = new Map<string, number>([['', 0]]);
  const parts: number[] = [0];
  for (const n of names) {
    if (offsets.has(n)) continue;
    offsets.set(n, parts.length);
    for (let i = 0; i < n.length; i++) parts.push(n.charCodeAt(i) & 0xff);
    parts.push(0);
  }
  return { data: Uint8Array.from(parts), offsets };
}

/** .symtab bytes of symbols (their nameOffset must point into the matching .strtab). */
export function encodeSymbols(symbols: readonly Omit<ElfSymbol, 'index' | 'name'>[]): Uint8Array {
  const out = new Uint8Array(symbols.length * SYMBOL_SIZE);
  const v = new DataView(out.buffer);
  symbols.forEach((s, i) => {
    const o = i * SYMBOL_SIZE;
    v.setUint32(o, s.nameOffset, true);
    v.setUint8(o + 4, ((s.bind & 0xf) << 4) | (s.type & 0xf));
    v.setUint8(o + 5, s.other);
    v.setUint16(o + 6, s.shndx, true);
    v.setBigUint64(o + 8, BigInt(s.value), true);
    v.setBigUint64(o + 16, BigInt(s.size), true);
  });
  return out;
}

/** .rel (no addend) or .rela bytes. */
export function encodeRelocations(
  relocs: readonly { offset: number; symbol: number; type: number; addend?: number }[],
  rela: boolean,
): Uint8Array {
  const size = rela ? RELA_SIZE : REL_SIZE;
  const out = new Uint8Array(relocs.length * size);
  const v = new DataView(out.buffer);
  relocs.forEach((r, i) => {
    const o = i * size;
    v.setBigUint64(o, BigInt(r.offset), true);
    v.setUint32(o + 8, r.type, true);
    v.setUint32(o + 12, r.symbol, true);
    if (rela) v.setBigInt64(o + 16, BigInt(r.addend ?? 0), true);
  });
  return out;
}

/** Note section bytes (name and descriptor each padded to 4 bytes). */
export function encodeNotes(notes: readonly ElfNote[]): Uint8Array {
  const chunks: number[] = [];
  const u32 = (x: number) => chunks.push(x & 0xff, (x >>> 8) & 0xff, (x >>> 16) & 0xff, (x >>> 24) & 0xff);
  for (const n of notes) {
    const name = [...n.name].map((c) => c.charCodeAt(0) & 0xff);
    u32(name.length + 1);
    u32(n.desc.length);
    u32(n.type);
    chunks.push(...name, 0);
    while (chunks.length % 4) chunks.push(0);
    chunks.push(...n.desc);
    while (chunks.length % 4) chunks.push(0);
  }
  return Uint8Array.from(chunks);
}

function fail(message: string): never {
  throw new CubinError('CUBIN_WRITE', message);
}

/** Lay out and write an image. Throws CUBIN_WRITE for images that cannot be laid out. */
export function writeCubin(image: CubinImage): Uint8Array {
  const secs = image.sections;
  if (!secs.length || secs[0]!.type !== SHT.NULL) fail('section 0 must be the null section');
  const shstrndx = secs.findIndex((s) => s.name === '.shstrtab');
  if (shstrndx < 0) fail('the image has no .shstrtab section');

  // Section names: keep the given table, or build one (names in index order).
  let nameOffsets: number[];
  let shstrtab: Uint8Array;
  if (image.keepShstrtab) {
    shstrtab = secs[shstrndx]!.data;
    nameOffsets = secs.map((s, i) => {
      if (s.nameOffset === undefined) fail(`section ${i} (${s.name}) has no nameOffset but keepShstrtab is set`);
      return s.nameOffset;
    });
  } else {
    const t = buildStringTable(secs.slice(1).map((s) => s.name));
    shstrtab = t.data;
    nameOffsets = secs.map((s, i) => (i === 0 ? 0 : t.offsets.get(s.name)!));
  }
  const dataOf = (i: number) => (i === shstrndx ? shstrtab : secs[i]!.data);

  // Layout.
  const offsets: number[] = [0];
  let cursor = ELF_HEADER_SIZE;
  for (let i = 1; i < secs.length; i++) {
    const s = secs[i]!;
    const at = s.offset ?? alignUp(cursor, s.addralign);
    if (s.offset !== undefined && s.offset < ELF_HEADER_SIZE) fail(`${s.name}: offset 0x${s.offset.toString(16)} overlaps the ELF header`);
    offsets.push(at);
    if (s.type !== SHT.NOBITS) cursor = Math.max(cursor, at + dataOf(i).length);
  }
  const shoff = image.shoff ?? alignUp(cursor, 8);
  const shEnd = shoff + secs.length * SECTION_HEADER_SIZE;
  const segs = image.segments ?? [];
  const phoff = segs.length ? (image.phoff ?? alignUp(Math.max(cursor, shEnd), 8)) : 0;
  const total = Math.max(cursor, shEnd, phoff + segs.length * PROGRAM_HEADER_SIZE);

  const out = new Uint8Array(total);
  const v = new DataView(out.buffer);
  out.set(ELF_MAGIC, 0);
  out[4] = 2; // ELFCLASS64
  out[5] = 1; // little-endian
  out[6] = image.header.identVersion ?? 1;
  out[7] = image.header.osabi;
  out[8] = image.header.abiVersion;
  v.setUint16(16, image.header.type, true);
  v.setUint16(18, 190, true); // EM_CUDA
  v.setUint32(20, image.header.version ?? 1, true);
  v.setBigUint64(24, BigInt(image.header.entry ?? 0), true);
  v.setBigUint64(32, BigInt(phoff), true);
  v.setBigUint64(40, BigInt(shoff), true);
  v.setUint32(48, image.header.flags >>> 0, true);
  v.setUint16(52, ELF_HEADER_SIZE, true);
  v.setUint16(54, segs.length ? PROGRAM_HEADER_SIZE : 0, true);
  v.setUint16(56, segs.length, true);
  v.setUint16(58, SECTION_HEADER_SIZE, true);
  v.setUint16(60, secs.length, true);
  v.setUint16(62, shstrndx, true);

  for (let i = 1; i < secs.length; i++) {
    const s = secs[i]!;
    if (s.type !== SHT.NOBITS) out.set(dataOf(i), offsets[i]!);
  }
  const sizeOf = (i: number) => (secs[i]!.type === SHT.NOBITS ? (secs[i]!.size ?? 0) : dataOf(i).length);
  for (let i = 0; i < secs.length; i++) {
    const s = secs[i]!;
    const o = shoff + i * SECTION_HEADER_SIZE;
    v.setUint32(o, nameOffsets[i]!, true);
    v.setUint32(o + 4, s.type, true);
    v.setBigUint64(o + 8, BigInt(s.flags), true);
    v.setBigUint64(o + 16, BigInt(s.addr ?? 0), true);
    v.setBigUint64(o + 24, BigInt(i === 0 ? 0 : offsets[i]!), true);
    v.setBigUint64(o + 32, BigInt(i === 0 ? 0 : sizeOf(i)), true);
    v.setUint32(o + 40, s.link ?? 0, true);
    v.setUint32(o + 44, s.info ?? 0, true);
    v.setBigUint64(o + 48, BigInt(s.addralign), true);
    v.setBigUint64(o + 56, BigInt(s.entsize ?? 0), true);
  }
  segs.forEach((g, k) => {
    let seg: ElfSegment;
    if ('raw' in g) seg = g.raw;
    else if (g.covers === 'phdrs') {
      const size = segs.length * PROGRAM_HEADER_SIZE;
      seg = { type: g.type, flags: g.flags, offset: phoff, vaddr: 0, paddr: 0, filesz: size, memsz: size, align: g.align };
    } else if (g.covers === 'none') {
      seg = { type: g.type, flags: g.flags, offset: 0, vaddr: 0, paddr: 0, filesz: 0, memsz: 0, align: g.align };
    } else {
      const { first, last } = g.covers;
      let filesz = 0;
      let memsz = 0;
      for (let i = first; i <= last; i++) {
        const end = offsets[i]! - offsets[first]! + sizeOf(i);
        memsz = Math.max(memsz, end);
        if (secs[i]!.type !== SHT.NOBITS) filesz = Math.max(filesz, end);
      }
      seg = { type: g.type, flags: g.flags, offset: offsets[first]!, vaddr: 0, paddr: 0, filesz, memsz, align: g.align };
    }
    const o = phoff + k * PROGRAM_HEADER_SIZE;
    v.setUint32(o, seg.type, true);
    v.setUint32(o + 4, seg.flags, true);
    v.setBigUint64(o + 8, BigInt(seg.offset), true);
    v.setBigUint64(o + 16, BigInt(seg.vaddr), true);
    v.setBigUint64(o + 24, BigInt(seg.paddr), true);
    v.setBigUint64(o + 32, BigInt(seg.filesz), true);
    v.setBigUint64(o + 40, BigInt(seg.memsz), true);
    v.setBigUint64(o + 48, BigInt(seg.align), true);
  });
  return out;
}

/**
 * The image of a read cubin. `keepLayout` (default true) pins every offset, the program headers and the
 * section-name table, so writing reproduces the file byte for byte; without it the writer lays the file out
 * itself (segments are then re-derived from the sections each one covered).
 */
export function imageOfCubin(cubin: Cubin, opts: { keepLayout?: boolean } = {}): CubinImage {
  const keep = opts.keepLayout !== false;
  const sections: SectionSpec[] = cubin.sections.map((s: ElfSection) => ({
    name: s.name,
    type: s.type,
    flags: s.flags,
    addr: s.addr,
    link: s.link,
    info: s.info,
    addralign: s.addralign,
    entsize: s.entsize,
    data: s.data,
    size: s.size,
    ...(keep ? { offset: s.offset, nameOffset: s.nameOffset } : {}),
  }));
  const segments: SegmentSpec[] = cubin.segments.map((g) => {
    if (keep) return { raw: g };
    if (g.type === PT.PHDR || (g.type === PT.LOAD && g.offset === cubin.header.phoff && g.filesz === cubin.header.phnum * PROGRAM_HEADER_SIZE)) {
      return { type: g.type, flags: g.flags, align: g.align, covers: 'phdrs' as const };
    }
    // The sections a segment covered: those starting inside it (NOBITS ones by their offset).
    let first = -1;
    let last = -1;
    for (const s of cubin.sections) {
      if (s.index === 0 || s.size === 0) continue;
      if (s.offset >= g.offset && s.offset < g.offset + Math.max(g.memsz, 1) && (s.flags & 0x2) !== 0) {
        if (first < 0) first = s.index;
        last = s.index;
      }
    }
    return first < 0
      ? { type: g.type, flags: g.flags, align: g.align, covers: 'none' as const }
      : { type: g.type, flags: g.flags, align: g.align, covers: { first, last } };
  });
  return {
    header: {
      osabi: cubin.header.osabi,
      abiVersion: cubin.header.abiVersion,
      type: cubin.header.type,
      flags: cubin.header.flags,
      entry: cubin.header.entry,
      version: cubin.header.version,
      identVersion: cubin.header.identVersion,
    },
    sections,
    segments,
    ...(keep ? { shoff: cubin.header.shoff, phoff: cubin.header.phoff, keepShstrtab: true } : {}),
  };
}
