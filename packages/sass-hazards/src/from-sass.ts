import { formatInstruction, formatOperand, isUnknown, type DecodedInstruction, type MemOperand, type SassInstruction, type SassOperand } from '@ptxforge/sass';
import { decodeControl } from './control.js';
import { instrFromText, parseOperand } from './listing.js';
import type { HazardFunction, HazardInstr, RegRef, SassOperandView } from './types.js';

/**
 * A decoded instruction in the checker's view (text operands, control from the word's high half). Built from
 * the structured operands directly; the result is the same object, field for field, as printing the instruction
 * and parsing the text back (`hazardInstrFromSassText`, which listings use), only without the regular
 * expressions of the listing parser: code generation builds one per distinct encoded word.
 */
export function hazardInstrFromSass(addr: number, ins: SassInstruction, hi: bigint): HazardInstr {
  const operands = operandViews(ins);
  if (!operands) return hazardInstrFromSassText(addr, ins, hi);
  const g = ins.guard;
  const h: HazardInstr = {
    addr,
    opcode: ins.opcode,
    mods: ins.mods.slice(),
    guard: g ? { file: g.file, index: g.n, negated: g.not } : undefined,
    operands,
    control: decodeControl(hi),
    text: formatInstruction(ins).replace(/\s*;\s*$/, ''),
  };
  if (ins.opcode === 'BRA' || ins.opcode === 'JMP') {
    for (const o of ins.operands) if (o.k === 'int' && o.reloc === undefined) h.branchTarget = o.v;
  }
  return h;
}

const OPCODE_RE = /^[A-Z][A-Z0-9_]*$/;
const MOD_RE = /^[^.\s;/]+$/;
const SFX_RE = /^[A-Z0-9_]+$/;

/**
 * Each operand's view as `parseSassText` would give it for the printed instruction, or undefined where the
 * printed text would not split back into the same operands (a name with a comma or blank, an unbalanced
 * bracket) or the head would not parse the same: the caller then takes the text route.
 */
function operandViews(ins: SassInstruction): SassOperandView[] | undefined {
  if (!OPCODE_RE.test(ins.opcode)) return undefined;
  for (const m of ins.mods) if (!MOD_RE.test(m)) return undefined;
  const g = ins.guard;
  if (g && !((g.file === 'P' || g.file === 'UP') && Number.isInteger(g.n) && g.n >= 0 && g.n <= 7)) return undefined;
  const out = new Array<SassOperandView>(ins.operands.length);
  for (let i = 0; i < ins.operands.length; i++) {
    const o = ins.operands[i]!;
    const text = formatOperand(o);
    if (!splitsWhole(text)) return undefined;
    out[i] = operandView(o, text) ?? parseOperand(text);
  }
  return out;
}

/** Whether `splitOperands` keeps `text` as one operand: no separator, comment, backtick or open bracket in it. */
function splitsWhole(text: string): boolean {
  if (!text) return false;
  let depth = 0;
  for (let k = 0; k < text.length; k++) {
    const c = text.charCodeAt(k);
    // ',' ' ' '\t' '`' ';' '/' and other blanks
    if (c === 44 || c === 32 || c === 9 || c === 96 || c === 59 || c === 47 || c === 10 || c === 13 || c === 11 || c === 12) return false;
    if (c === 91 || c === 40) depth++;
    else if (c === 93 || c === 41) {
      if (--depth < 0) return false;
    }
  }
  return depth === 0;
}

const regRef = (file: RegRef['file'], index: number, count: number): RegRef => ({ file, index, count });

/**
 * The common operand shapes (registers, integers, constant-bank and memory addresses) without parsing their
 * text; undefined for the rest (names, floats, relocations, unusual suffixes), which `parseOperand` reads.
 */
function operandView(o: SassOperand, text: string): SassOperandView | undefined {
  switch (o.k) {
    case 'reg': {
      const sfx = o.sfx ?? [];
      for (const x of sfx) if (!SFX_RE.test(x)) return undefined;
      // nvdisasm's |R1|.H0 (suffix after the bar) does not read back as a register
      if (o.abs && o.sfxOutsideAbs && sfx.length) return undefined;
      if (!Number.isInteger(o.n) || o.n < 0) return undefined;
      const reuse = !!o.reuse;
      if (o.file === 'R' || o.file === 'UR') {
        const kind = o.file === 'R' ? 'reg' : 'ureg';
        const zero = o.file === 'R' ? 255 : 63;
        if (o.n > zero) return undefined;
        // the count the text's `.64` / `.128` suffix gives (the first that occurs)
        let count = 1;
        if (sfx.includes('64')) count = 2;
        else if (sfx.includes('128')) count = 4;
        return { kind, reg: o.n === zero ? undefined : regRef(o.file, o.n, count), reuse, text };
      }
      if (o.file === 'P' || o.file === 'UP') {
        if (sfx.length || o.n > 7) return undefined;
        const kind = o.file === 'P' ? 'pred' : 'upred';
        if (o.n === 7) return { kind, reuse, text };
        return { kind, reg: regRef(o.file, o.n, 1), reuse, text };
      }
      return undefined;
    }
    case 'int': {
      if (o.reloc !== undefined || !Number.isSafeInteger(o.v)) return undefined;
      // the listing parser drops a leading minus sign: -0x10 reads as 16
      return { kind: 'imm', value: Math.abs(o.v), text };
    }
    case 'cbank': {
      if (o.sfx?.length) return undefined;
      const r = o.reg;
      const addrRegs: RegRef[] = [];
      if (r) {
        const zero = r.file === 'R' ? 255 : 63;
        if (!Number.isInteger(r.n) || r.n < 0 || r.n > zero) return undefined;
        if (r.n !== zero) addrRegs.push(regRef(r.file, r.n, 1));
      }
      return { kind: 'cbank', addrRegs, text };
    }
    case 'mem':
      return memView(o, text);
    default:
      return undefined;
  }
}

/** A memory operand's address registers in text order (`desc[UR4][R2.64+UR5+0x10]`); a descriptor UR is a pair. */
function memView(m: MemOperand, text: string): SassOperandView | undefined {
  const ur = (n: number | undefined): boolean => n === undefined || (Number.isInteger(n) && n >= 0 && n <= 63);
  if (!ur(m.ur) || !ur(m.desc)) return undefined;
  const regs: RegRef[] = [];
  let descForm = false;
  if (m.gdesc || m.descOnly) {
    const n = m.gdesc ? (m.ur ?? 63) : (m.desc ?? 63);
    if (n !== 63) regs.push(regRef('UR', n, 1));
    descForm = true;
  } else {
    if (m.desc !== undefined) {
      if (m.desc !== 63) regs.push(regRef('UR', m.desc, 1));
      descForm = true;
    }
    const sfx = m.baseSfx ?? [];
    // the address scan reads one suffix after a register: .64 (a pair), .U32 or .Xn
    if (sfx.length && !(sfx[0] === '64' || sfx[0] === 'U32' || /^X\d+$/.test(sfx[0]!))) return undefined;
    for (const x of sfx) if (!SFX_RE.test(x)) return undefined;
    if (!Number.isInteger(m.base) || m.base < 0 || m.base > 255) return undefined;
    if (m.base !== 255) regs.push(regRef('R', m.base, sfx[0] === '64' ? 2 : 1));
    if (m.ur !== undefined && m.ur !== 63) regs.push(regRef('UR', m.ur, 1));
  }
  if (descForm && regs.length > 0 && regs[0]!.file === 'UR' && (m.gdesc || m.descOnly || m.desc !== 63)) regs[0] = { ...regs[0]!, count: 2 };
  return { kind: 'mem', addrRegs: regs, text };
}

/** The same view through the listing parser: print the instruction, parse the text (what listings go through). */
export function hazardInstrFromSassText(addr: number, ins: SassInstruction, hi: bigint): HazardInstr {
  const h = instrFromText(addr, formatInstruction(ins), decodeControl(hi));
  if (ins.opcode === 'BRA' || ins.opcode === 'JMP') {
    for (const o of ins.operands) if (o.k === 'int' && o.reloc === undefined) h.branchTarget = o.v;
  }
  return h;
}

export interface WordsToFunctionResult {
  fn: HazardFunction;
  undecoded: Array<{ addr: number; opcodeField: number; reason: string }>;
}

/**
 * A function's code (128-bit words) through a decoder into a HazardFunction. `decode` is a family codec's
 * decode (e.g. @ptxforge/mercury-volta's `decodeVolta(arch, w, addr)`), taking the word as 32-bit limbs.
 */
export function hazardFunctionFromCode(
  name: string,
  code: Uint8Array,
  decode: (w: Uint32Array, addr: number) => DecodedInstruction,
  extra: { indirectTargets?: number[]; entries?: number[] } = {},
): WordsToFunctionResult {
  const instrs: HazardInstr[] = [];
  const undecoded: WordsToFunctionResult['undecoded'] = [];
  const dv = new DataView(code.buffer, code.byteOffset, code.byteLength);
  for (let a = 0; a + 16 <= code.length; a += 16) {
    const w = new Uint32Array([dv.getUint32(a, true), dv.getUint32(a + 4, true), dv.getUint32(a + 8, true), dv.getUint32(a + 12, true)]);
    const d = decode(w, a);
    const hi = (BigInt(w[3]!) << 32n) | BigInt(w[2]!);
    if (isUnknown(d)) {
      undecoded.push({ addr: a, opcodeField: d.opcodeField, reason: d.reason });
      // keep its control bits (its stall counts, scoreboards and waits still shape the schedule)
      instrs.push({ addr: a, opcode: 'UNDECODED', mods: [], operands: [], control: decodeControl(hi), text: `UNDECODED 0x${d.opcodeField.toString(16)}` });
      continue;
    }
    instrs.push(hazardInstrFromSass(a, d, hi));
  }
  return { fn: { name, instrs, ...extra }, undecoded };
}
