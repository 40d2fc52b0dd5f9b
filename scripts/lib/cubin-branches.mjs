/**
 * Branch counts of a cubin's code: a tiny ELF64 reader that walks every `.text.*` section as 128-bit
 * instructions and tallies the opcode field (bits 0..11 of the first 64-bit word). sm_75+ SASS: 0x947 BRA,
 * 0x949 BRX. Used by `pnpm bench:branch` and the branch/switch acceptance test.
 */
export const OPC_BRA = 0x947;
export const OPC_BRX = 0x949;

/** The `.text.<kernel>` sections of an ELF64 cubin: kernel name -> its code bytes. */
export function cubinTextSections(bytes) {
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
    if (name.startsWith('.text.')) out.set(name.slice('.text.'.length), buf.subarray(s.off, s.off + s.size));
  }
  return out;
}

export function cubinOpcodeCounts(bytes) {
  const out = new Map();
  for (const [name, code] of cubinTextSections(bytes)) {
    const dv = new DataView(code.buffer, code.byteOffset, code.byteLength);
    const counts = new Map();
    for (let o = 0; o + 16 <= code.length; o += 16) {
      const op = dv.getUint16(o, true) & 0xfff;
      counts.set(op, (counts.get(op) ?? 0) + 1);
    }
    out.set(name, { instructions: code.length / 16, bra: counts.get(OPC_BRA) ?? 0, brx: counts.get(OPC_BRX) ?? 0 });
  }
  return out;
}

/**
 * Loops of each kernel of a cubin, counted as back edges: BRAs whose target is at or before themselves. The
 * targets come from the Mercury decoder (`decodeSection(code)`, e.g. @ptxforge/mercury-volta's
 * decodeVoltaSection bound to the arch: one decoded instruction per 16 bytes, BRA's target an int operand),
 * not from bit slicing here. The `BRA self` that pads the end of a kernel is not a program loop.
 */
export function cubinLoopCounts(bytes, decodeSection) {
  const out = new Map();
  for (const [name, code] of cubinTextSections(bytes)) {
    const decoded = decodeSection(code);
    let instructions = 0;
    let loops = 0;
    let lastInstr = -1;
    decoded.forEach((d, k) => {
      if (d.unknown || d.opcode !== 'NOP') lastInstr = k;
    });
    decoded.forEach((d, k) => {
      if (d.unknown) {
        instructions++;
        return;
      }
      if (d.opcode === 'NOP') return;
      instructions++;
      if (d.opcode !== 'BRA') return;
      const t = d.operands.find((o) => o.k === 'int');
      if (!t) return;
      const target = Number(t.v);
      const addr = k * 16;
      if (target === addr && k === lastInstr) return; // the trailing self-loop
      if (target <= addr) loops++;
    });
    out.set(name, { instructions, loops });
  }
  return out;
}

/**
 * The block shape of each kernel of a cubin, from its decoded SASS (`decodeSection` as for cubinLoopCounts):
 * `bra`/`brx` counts (the trailing `BRA self` after the last EXIT included, as in cubinOpcodeCounts),
 * `branchOnly`: blocks that hold nothing but an unconditional BRA (a BRA that starts a block: a branch target or
 * the instruction after an unconditional BRA/BRX/EXIT/RET; the trailing self-loop excluded), and `braToNext`:
 * unconditional BRAs whose target is the next instruction.
 */
export function cubinBranchShape(bytes, decodeSection) {
  const out = new Map();
  const always = (d) => !d.guard || (d.guard.n === 7 && !d.guard.not);
  for (const [name, code] of cubinTextSections(bytes)) {
    const decoded = decodeSection(code);
    const targets = new Set();
    const targetOf = (d) => {
      const t = d.operands?.find((o) => o.k === 'int');
      return t ? Number(t.v) : undefined;
    };
    let lastInstr = -1;
    decoded.forEach((d, k) => {
      if (d.unknown || d.opcode !== 'NOP') lastInstr = k;
      if (!d.unknown && d.opcode === 'BRA') {
        const t = targetOf(d);
        if (t !== undefined) targets.add(t);
      }
    });
    let bra = 0;
    let brx = 0;
    let branchOnly = 0;
    let braToNext = 0;
    let prevEnds = true;
    decoded.forEach((d, k) => {
      const addr = k * 16;
      if (d.unknown) {
        prevEnds = false;
        return;
      }
      if (d.opcode === 'BRX') brx++;
      if (d.opcode === 'BRA') {
        bra++;
        const t = targetOf(d);
        const selfLoop = t === addr && k === lastInstr;
        if (always(d) && !selfLoop) {
          if (prevEnds || targets.has(addr)) branchOnly++;
          if (t === addr + 16) braToNext++;
        }
      }
      prevEnds = always(d) && (d.opcode === 'BRA' || d.opcode === 'BRX' || d.opcode === 'EXIT' || d.opcode === 'RET');
    });
    out.set(name, { bra, brx, branchOnly, braToNext });
  }
  return out;
}
