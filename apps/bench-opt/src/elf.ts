/** Sizes of the `.text.<function>` sections of a 64-bit little-endian ELF (a cubin). */
export function textSectionSizes(elf: Uint8Array): Map<string, number> {
  const dv = new DataView(elf.buffer, elf.byteOffset, elf.byteLength);
  if (dv.getUint32(0, false) !== 0x7f454c46 || elf[4] !== 2) throw new Error('not a 64-bit ELF file');
  const shoff = Number(dv.getBigUint64(0x28, true));
  const shentsize = dv.getUint16(0x3a, true);
  const shnum = dv.getUint16(0x3c, true);
  const shstrndx = dv.getUint16(0x3e, true);
  const sec = (k: number): { name: number; offset: number; size: number } => {
    const o = shoff + k * shentsize;
    return { name: dv.getUint32(o, true), offset: Number(dv.getBigUint64(o + 0x18, true)), size: Number(dv.getBigUint64(o + 0x20, true)) };
  };
  const strtab = sec(shstrndx);
  const nameAt = (off: number): string => {
    let e = strtab.offset + off;
    while (elf[e] !== 0) e++;
    return new TextDecoder().decode(elf.subarray(strtab.offset + off, e));
  };
  const out = new Map<string, number>();
  for (let k = 0; k < shnum; k++) {
    const s = sec(k);
    const n = nameAt(s.name);
    if (n.startsWith('.text.')) out.set(n.slice('.text.'.length), s.size);
  }
  return out;
}
