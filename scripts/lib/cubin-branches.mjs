/**
 * Branch counts of a cubin's code: a tiny ELF64 reader that walks every `.text.*` section as 128-bit
 * instructions and tallies the opcode field (bits 0..11 of the first 64-bit word). sm_75+ SASS: 0x947 BRA,
 * 0x949 BRX. Used by `pnpm bench:branch` and the branch/switch acceptance test.
 */
export const OPC_BRA = 0x947;
export const OPC_BRX = 0x949;

export function cubinOpcodeCounts(bytes) {
  const buf = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  if (dv.getUint32(0, false) !== 0x7f454c46 || buf[4] !== 2) throw new Error('not an ELF64 file');
  const shoff = Number(dv.getBigUint64(0x28, true));
  const shentsize = dv.getUint16(0x3a, true);
  const shnum = dv.getUint16(0x3c, true);
  const shstrndx = dv.getUint16(0x3e, true);
  const sh = (i) => {
    const o = shoff + i * shentsize;
    return { name: dv.getUint32(o, true), off: Number(dv.getBigUint64(o + 0x18, true)), size: Number(dv.getBigUint64(o + 0x20, true)) };
  };
  const strs = sh(shstrndx);
  const nameOf = (n) => {
    let e = strs.off + n;
    let s = '';
    while (buf[e]) s += String.fromCharCode(buf[e++]);
    return s;
  };
  const out = new Map();
  for (let i = 0; i < shnum; i++) {
    const s = sh(i);
    const name = nameOf(s.name);
    if (!name.startsWith('.text.')) continue;
    const counts = new Map();
    for (let o = s.off; o + 16 <= s.off + s.size; o += 16) {
      const op = dv.getUint16(o, true) & 0xfff;
      counts.set(op, (counts.get(op) ?? 0) + 1);
    }
    out.set(name.slice('.text.'.length), { instructions: s.size / 16, bra: counts.get(OPC_BRA) ?? 0, brx: counts.get(OPC_BRX) ?? 0 });
  }
  return out;
}
