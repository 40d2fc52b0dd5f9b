import type { SassInstruction, SassOperand } from '@ptxforge/sass';
import type { Encoder } from '@ptxforge/kernel';
import { CodegenError, type MFunction, type MInstr, type MOperand, type VReg, type VRegOperand, type VMemOperand, type LabelOperand, type VCBankOperand } from './mir.js';

/** Uniform register pair holding the global memory descriptor (`ULDC.64 UR4, c[0x0][0x208]`, as ptxas). */
export const DESC_UR = 4;

/**
 * One machine instruction as @ptxforge/sass's structured instruction, given the physical register of every
 * virtual register (`reg`) and the address of every block (`blockAddr`).
 */
export function toSass(mi: MInstr, reg: (v: VReg) => number, blockAddr: (b: number) => number, addr = 0, descUR = DESC_UR): SassInstruction {
  const operands = mi.ops.map((o): SassOperand => {
    switch ((o as { k: string }).k) {
      case 'vreg': {
        const r = o as VRegOperand;
        const file = r.v.file === 'P' || r.v.file === 'UP' || r.v.file === 'UR' || r.v.file === 'B' ? r.v.file : 'R';
        return {
          k: 'reg', file, n: reg(r.v) + r.part,
          ...(r.neg ? { neg: true } : {}), ...(r.abs ? { abs: true } : {}), ...(r.not ? { not: true } : {}), ...(r.sfx ? { sfx: r.sfx } : {}),
        };
      }
      case 'vmem': {
        const m = o as VMemOperand;
        return {
          k: 'mem', base: m.stack ? 1 : m.base ? reg(m.base) : 255, off: m.off,
          ...(m.desc ? { desc: descUR } : {}), ...(m.wide && m.base && !m.plain ? { baseSfx: ['64'] } : {}), ...(m.urz ? { ur: 63 } : {}),
        };
      }
      case 'label':
        return { k: 'int', v: blockAddr((o as LabelOperand).block) };
      case 'jtable':
        return { k: 'int', v: -(addr + 16), sep: ' ' };
      case 'vcbank': {
        const c = o as VCBankOperand;
        return { k: 'cbank', bank: c.bank, off: c.off, reg: { file: 'R', n: reg(c.index) } };
      }
      default:
        return { ...(o as SassOperand) };
    }
  });
  return {
    opcode: mi.opcode,
    mods: [...mi.mods],
    operands,
    ...(mi.guard ? { guard: { file: mi.guard.v.file === 'UP' ? 'UP' : 'P', n: reg(mi.guard.v), not: mi.guard.not } } : {}),
  };
}

const zeroReg = (): number => 0;
const probeBlockAddr = (): number => 0x100;

/**
 * Does the encoder hold this instruction's form? (Registers stand in as R0/P0; branch targets as 0.)
 * A probe that fails is an answer, not an error: the encoder's exception is thrown without a stack trace
 * (capturing one costs more than the probe itself; on bench/compile/big.ptx about one probe in five fails).
 */
export function encodes(enc: Encoder, mi: MInstr): boolean {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    enc.encode(toSass(mi, zeroReg, probeBlockAddr), 0);
    return true;
  } catch {
    return false;
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** Sources of these opcodes may be exchanged (first two sources; IADD3 all three). */
const COMMUTE: Record<string, number> = { IADD3: 3, IMAD: 2, FADD: 2, FMUL: 2, FFMA: 2, DADD: 2, DMUL: 2, DFMA: 2, IMNMX: 2, FMNMX: 2 };

function isRegLike(o: MOperand): boolean {
  const k = (o as { k: string }).k;
  return k === 'vreg' || k === 'reg';
}

function signedVariant(o: MOperand): MOperand | undefined {
  if ((o as SassOperand).k !== 'int') return undefined;
  const v = (o as { v: number }).v;
  if (v >= 0x80000000 && v <= 0xffffffff) return { k: 'int', v: v - 0x100000000 };
  if (v < 0 && v >= -0x80000000) return { k: 'int', v: v + 0x100000000 };
  return undefined;
}

/**
 * Legalization against the target's encoder: an instruction whose operand form does not encode is rewritten
 * (immediate spelled signed, commuted sources, then non-register sources moved into registers one at a time)
 * until it does; what still does not encode is CODEGEN_NO_FORM naming the instruction.
 */
export function legalize(fn: MFunction, enc: Encoder, newTemp: (file?: 'R' | 'P') => VReg): void {
  for (const b of fn.blocks) {
    const out: MInstr[] = [];
    for (const mi0 of b.instrs) {
      if (legalizeOne(mi0, enc, newTemp, out)) continue;
      // a form the target lacks may have an equivalent sequence of forms it has; each is then legalized
      const seq = expand(mi0, enc, newTemp);
      if (!seq) throw noForm(fn, mi0);
      for (const mi of seq) if (!legalizeOne(mi, enc, newTemp, out)) throw noForm(fn, mi);
    }
    b.instrs = out;
  }
}

function noForm(fn: MFunction, mi: MInstr): CodegenError {
  return new CodegenError('CODEGEN_NO_FORM', `${fn.name}${mi.line ? ` line ${mi.line}` : ''}: no encodable form for ${describe(mi)}`);
}

/**
 * One instruction in a form the encoder holds, appended to `out` (with the moves it needs): as it is, as an
 * equivalent single instruction (`equivalents`), or either of those with operands fixed (`fix`). False when none
 * encodes.
 */
function legalizeOne(mi: MInstr, enc: Encoder, newTemp: (file?: 'R' | 'P') => VReg, out: MInstr[]): boolean {
  if (encodes(enc, mi)) {
    out.push(mi);
    return true;
  }
  const alts = equivalents(mi);
  for (const a of alts) {
    if (encodes(enc, a)) {
      out.push(a);
      return true;
    }
  }
  for (const c of [mi, ...alts]) {
    const pre: MInstr[] = [];
    const fixed = fix(c, enc, newTemp, pre);
    if (fixed) {
      out.push(...pre, fixed);
      return true;
    }
  }
  return false;
}

/** The compare with its sources exchanged: a < b is b > a (unordered forms alike). */
const MIRRORED: Record<string, string> = {
  LT: 'GT', GT: 'LT', LE: 'GE', GE: 'LE', EQ: 'EQ', NE: 'NE', LTU: 'GTU', GTU: 'LTU', LEU: 'GEU', GEU: 'LEU', EQU: 'EQU', NEU: 'NEU', NUM: 'NUM', NAN: 'NAN', F: 'F', T: 'T',
};
/** The complementary float compare: !(a < b) is a >= b or unordered (GEU). */
const FLOAT_COMPLEMENT: Record<string, string> = {
  LT: 'GEU', GEU: 'LT', EQ: 'NEU', NEU: 'EQ', LE: 'GTU', GTU: 'LE', GT: 'LEU', LEU: 'GT', NE: 'EQU', EQU: 'NE', GE: 'LTU', LTU: 'GE', NUM: 'NAN', NAN: 'NUM', F: 'T', T: 'F',
};
const INT_COMPLEMENT: Record<string, string> = { LT: 'GE', GE: 'LT', LE: 'GT', GT: 'LE', EQ: 'NE', NE: 'EQ' };

/**
 * Single instructions computing the same as `mi`, for operand or modifier forms the encoder may lack:
 * - compares (FSETP/DSETP/ISETP, not the .EX chain): the mirrored condition on exchanged sources, and the
 *   complementary condition with the two results exchanged (`SETP.cmp.bop P, Q, a, b, c` writes
 *   P = (a cmp b) bop c and Q = !(a cmp b) bop c, so !cmp writes them the other way round), and both;
 * - PLOP3 with complemented sources: the complement folded into the LUT (the source's index bit flipped).
 */
function equivalents(mi: MInstr): MInstr[] {
  const out: MInstr[] = [];
  if ((mi.opcode === 'FSETP' || mi.opcode === 'DSETP' || mi.opcode === 'ISETP') && mi.ndefs === 2 && !mi.mods.includes('EX')) {
    const ci = mi.mods.findIndex((m) => MIRRORED[m] !== undefined);
    const comp = mi.opcode === 'ISETP' ? INT_COMPLEMENT : FLOAT_COMPLEMENT;
    if (ci >= 0 && (mi.opcode !== 'ISETP' || comp[mi.mods[ci]!])) {
      const cond = mi.mods[ci]!;
      const withCond = (c: string, ops: MOperand[]): MInstr => ({ ...mi, mods: mi.mods.map((m, i) => (i === ci ? c : m)), ops });
      const [p, q, a, b, ...rest] = mi.ops as [MOperand, MOperand, MOperand, MOperand, ...MOperand[]];
      out.push(withCond(MIRRORED[cond]!, [p, q, b, a, ...rest]));
      out.push(withCond(comp[cond]!, [q, p, a, b, ...rest]));
      out.push(withCond(MIRRORED[comp[cond]!]!, [q, p, b, a, ...rest]));
    }
  }
  if (mi.opcode === 'IADD3') {
    // zero immediates as RZ: a 64-bit constant's zero word (sub.s64 d, 0x1c0000000000, x: `IADD3 d, P, PT, 0, -x, 0`)
    // leaves two immediates no IADD3 form holds (segmentationTreeThrust)
    const ops = [...mi.ops];
    let changed = false;
    for (let i = mi.ndefs; i < mi.ndefs + 3 && i < ops.length; i++) {
      const o = ops[i] as { k: string; v?: number };
      if (o.k === 'int' && o.v === 0) {
        ops[i] = RZ;
        changed = true;
      }
    }
    if (changed) out.push({ ...mi, ops });
  }
  if (mi.opcode === 'PLOP3' && mi.ndefs === 2) {
    const lutAt = 5;
    const lut = mi.ops[lutAt] as SassOperand;
    if (lut?.k === 'int' && [2, 3, 4].some((i) => (mi.ops[i] as { not?: boolean }).not)) {
      let v = lut.v & 0xff;
      const ops = [...mi.ops];
      for (let j = 0; j < 3; j++) {
        const o = ops[2 + j] as { not?: boolean };
        if (!o.not) continue;
        const { not: _n, ...plain } = o as Record<string, unknown>;
        void _n;
        ops[2 + j] = plain as unknown as MOperand;
        const flip = 4 >> j;
        let nv = 0;
        for (let i = 0; i < 8; i++) if ((v >> (i ^ flip)) & 1) nv |= 1 << i;
        v = nv;
      }
      ops[lutAt] = { k: 'int', v };
      out.push({ ...mi, ops });
    }
  }
  return out;
}

const vr = (v: VReg, part = 0, span = 1): VRegOperand => ({ k: 'vreg', v, part, span });
const isPT = (o: MOperand): boolean => (o as SassOperand).k === 'reg' && (o as { file: string }).file === 'P' && (o as { n: number }).n === 7 && !(o as { not?: boolean }).not;
const RZ: MOperand = { k: 'reg', file: 'R', n: 255 };

/**
 * Equivalent sequences for forms the encoder lacks (asked, never assumed):
 * - a global access as the generic one and back (`LDG.E.U8` as `LD.E.U8`): generic addresses of global memory
 *   are the global addresses;
 * - a compare with `.FTZ` as the compare of flushed sources (`FMUL.FTZ t, x, 1` keeps every value but
 *   subnormals, which become zeros of the same sign, as FTZ reads them);
 * - signed `IMAD.WIDE` as `IMAD.WIDE.U32` plus the two sign corrections of the high word
 *   (hi -= (a < 0 ? b : 0) + (b < 0 ? a : 0), as sign-word products: (a >> 31) * b).
 */
function expand(mi: MInstr, enc: Encoder, newTemp: (file?: 'R' | 'P') => VReg): MInstr[] | undefined {
  const base = { ...(mi.guard ? { guard: mi.guard } : {}), ...(mi.line ? { line: mi.line } : {}) };
  const swap: Record<string, string> = { LDG: 'LD', LD: 'LDG', STG: 'ST', ST: 'STG' };
  if (swap[mi.opcode]) {
    const c = { ...mi, opcode: swap[mi.opcode]! };
    return encodes(enc, c) ? [c] : undefined;
  }
  if ((mi.opcode === 'FSETP' || mi.opcode === 'FSET') && mi.mods.includes('FTZ')) {
    const pre: MInstr[] = [];
    const ops = mi.ops.map((o, i) => {
      if (i < mi.ndefs || (o as { k: string }).k !== 'vreg' || (o as VRegOperand).v.file !== 'R') return o;
      const t = newTemp();
      const { neg, abs, ...plain } = o as VRegOperand;
      pre.push({ opcode: 'FMUL', mods: ['FTZ'], ops: [vr(t), plain, { k: 'float', v: 1 }], ndefs: 1, ...base });
      return { ...vr(t), ...(neg ? { neg } : {}), ...(abs ? { abs } : {}) };
    });
    return [...pre, { ...mi, mods: mi.mods.filter((m) => m !== 'FTZ'), ops }];
  }
  if (mi.opcode === 'FSETP' && mi.mods.includes('NUM') && isPT(mi.ops[1]!)) {
    // NUM (both ordered) as the complement of NAN, combined with the third source by PLOP3
    const comb = mi.mods.find((m) => m === 'AND' || m === 'OR' || m === 'XOR') ?? 'AND';
    const t = newTemp('P');
    const lut = comb === 'AND' ? 0x0c : comb === 'OR' ? 0xcf : 0xc3;
    return [
      { ...mi, mods: ['NAN', 'AND', ...mi.mods.filter((m) => m === 'FTZ')], ops: [vr(t), mi.ops[1]!, mi.ops[2]!, mi.ops[3]!, { k: 'reg', file: 'P', n: 7 }] },
      { opcode: 'PLOP3', mods: ['LUT'], ops: [mi.ops[0]!, { k: 'reg', file: 'P', n: 7 }, vr(t), mi.ops[4]!, { k: 'reg', file: 'P', n: 7 }, { k: 'int', v: lut }, { k: 'int', v: 0 }], ndefs: 2, ...base },
    ];
  }
  if (mi.opcode === 'IMAD' && mi.mods.includes('WIDE') && !mi.mods.includes('U32')) {
    const d = mi.ops[0] as VRegOperand;
    if (d.k !== 'vreg') return undefined;
    const pre: MInstr[] = [];
    const reg = (o: MOperand): MOperand => {
      if (isRegLike(o)) return o;
      const t = newTemp();
      pre.push({ opcode: 'MOV', mods: [], ops: [vr(t), o], ndefs: 1, ...base });
      return vr(t);
    };
    const a = reg(mi.ops[1]!);
    const b = reg(mi.ops[2]!);
    const sa = newTemp();
    const sb = newTemp();
    const hi = { ...d, part: d.part + 1, span: 1 };
    return [
      ...pre,
      { opcode: 'SHF', mods: ['R', 'S32', 'HI'], ops: [vr(sa), RZ, { k: 'int', v: 31 }, a], ndefs: 1, ...base },
      { opcode: 'SHF', mods: ['R', 'S32', 'HI'], ops: [vr(sb), RZ, { k: 'int', v: 31 }, b], ndefs: 1, ...base },
      { ...mi, mods: ['WIDE', 'U32'], ops: [d, a, b, mi.ops[3]!] },
      { opcode: 'IMAD', mods: [], ops: [hi, vr(sa), b, hi], ndefs: 1, ...base },
      { opcode: 'IMAD', mods: [], ops: [hi, vr(sb), a, hi], ndefs: 1, ...base },
    ];
  }
  return undefined;
}

function describe(mi: MInstr): string {
  const ops = mi.ops.map((o) => {
    const k = (o as { k: string }).k;
    if (k === 'vreg') return `${(o as VRegOperand).v.file}`;
    if (k === 'vmem') return '[mem]';
    if (k === 'int') return 'imm';
    return k;
  });
  return `${[mi.opcode, ...mi.mods].join('.')} ${ops.join(', ')}`;
}

function fix(mi: MInstr, enc: Encoder, newTemp: () => VReg, pre: MInstr[]): MInstr | undefined {
  // 1: immediates spelled signed / unsigned
  const trySigned = (m: MInstr): MInstr | undefined => {
    const ops = m.ops.map((o) => signedVariant(o) ?? o);
    const c = { ...m, ops };
    return encodes(enc, c) ? c : undefined;
  };
  let c = trySigned(mi);
  if (c) return c;
  // 2: commute a non-register source into another source slot
  const n = COMMUTE[mi.opcode];
  if (n && !mi.mods.includes('X') && !mi.mods.includes('WIDE') && !mi.mods.includes('HI')) {
    const s0 = mi.ndefs;
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        const ops = [...mi.ops];
        [ops[s0 + i], ops[s0 + j]] = [ops[s0 + j]!, ops[s0 + i]!];
        const cand = { ...mi, ops };
        if (encodes(enc, cand)) return cand;
        c = trySigned(cand);
        if (c) return c;
      }
    }
  }
  // 3: move non-register sources into registers: the fewest moves that make the form encode (later sources
  // first among equals, so trailing LUT/shift immediates stay put when an earlier source is the problem)
  const movable: number[] = [];
  for (let i = mi.ops.length - 1; i >= mi.ndefs; i--) {
    const o = mi.ops[i]!;
    const k = (o as { k: string }).k;
    if (isRegLike(o) || k === 'vmem' || k === 'vcbank' || k === 'label' || k === 'name') continue;
    movable.push(i);
  }
  const subsets: number[][] = [];
  for (let mask = 1; mask < 1 << movable.length; mask++) subsets.push(movable.filter((_, j) => (mask >> j) & 1));
  subsets.sort((x, y) => x.length - y.length);
  // registers stand in as R0 when asking the encoder, so one probe register serves every candidate
  const probe: VReg = { id: -1, file: 'R', width: 1, name: 'probe' };
  const moveOf = (i: number, v: VReg): MInstr => {
    const o = mi.ops[i]!;
    const src: MOperand = (o as { k: string }).k === 'float' ? { k: 'int', v: f32Bits((o as { v: number }).v) } : o;
    // an unguarded move: the temporary is fresh and read only by this instruction
    return { opcode: 'MOV', mods: [], ops: [{ k: 'vreg', v, part: 0, span: 1 }, src], ndefs: 1, ...(mi.line ? { line: mi.line } : {}) };
  };
  for (const subset of subsets) {
    if (!subset.every((i) => encodes(enc, moveOf(i, probe)))) continue;
    const ops = [...mi.ops];
    for (const i of subset) ops[i] = { k: 'vreg', v: probe, part: 0, span: 1 };
    if (!encodes(enc, { ...mi, ops })) continue;
    for (const i of subset) {
      const t = newTemp();
      pre.push(moveOf(i, t));
      ops[i] = { k: 'vreg', v: t, part: 0, span: 1 };
    }
    return { ...mi, ops };
  }
  return undefined;
}

function f32Bits(x: number): number {
  const dv = new DataView(new ArrayBuffer(4));
  dv.setFloat32(0, x);
  return dv.getUint32(0);
}
