import { imm, RZ, PT, NOT_PT, type Instr, type Operand, type OriFunction } from '@ptxforge/kernel';
import { constBits, immOf, isPlainReg, mask, sameOperand } from '@ptxforge/opt-utils';
import { lutShape, specializeLut } from './lut.js';
import { rewriteInstr, rewriteToMov } from './rewrite.js';

/** Operand a MOV can carry (plain register, immediate, RZ, c-bank). */
function movable(o: Operand): boolean {
  return isPlainReg(o) || o.kind === 'imm' || o.kind === 'rz' || o.kind === 'cbank';
}
const isZero = (o: Operand, bits: number): boolean => constBits(o, bits) === 0n;

/** Width in bits of an instruction's single R/UR def, or undefined. */
function dataDefBits(i: Instr): number | undefined {
  if (i.defs.length !== 1) return undefined;
  const d = i.defs[0]!;
  if (d.kind !== 'reg' || (d.reg.cls !== 'R' && d.reg.cls !== 'UR')) return undefined;
  return 32 * d.reg.width;
}

/** A constant predicate def as ptxas writes it: `p[, q] = PLOP3.LUT PT, PT, PT, lut, lut2`. */
function rewriteToPredicateConstants(i: Instr, values: readonly boolean[]): Instr {
  return rewriteInstr(i, 'PLOP3', ['LUT'], [PT, PT, PT, ...values.map((v) => imm(v ? 0xff : 0, 'hex'))]);
}

type Rule = (i: Instr) => boolean;

/**
 * Algebraic identities and trivial strength cases, each an exact rewrite at the instruction's width:
 * x + 0 + 0 = x; x * 0 = 0; x * 1 + c = x + c; x << 0 = x; SEL on equal inputs or a constant predicate;
 * IMNMX(x, x) = x; LOP3/PLOP3 tables with constant inputs reduced to a constant or a copy;
 * ISETP of a register against itself (`ISETP.EQ PT, R0, R0` is true) to a constant predicate.
 */
const RULES: Readonly<Record<string, Rule>> = {
  IADD3(i) {
    const bits = dataDefBits(i);
    if (bits === undefined || i.mods.length || i.uses.length !== 3) return false;
    const nz = i.uses.filter((o) => !isZero(o, bits));
    if (nz.length === 0) return !!rewriteToMov(i, RZ);
    if (nz.length === 1 && movable(nz[0]!)) return !!rewriteToMov(i, nz[0]!);
    return false;
  },
  IMAD(i) {
    const bits = dataDefBits(i);
    if (bits === undefined || i.uses.length !== 3 || i.mods.some((m) => m !== 'U32' && m !== 'S32')) return false;
    const [a, b, c] = i.uses as [Operand, Operand, Operand];
    if ((isZero(a, bits) || isZero(b, bits)) && movable(c)) return !!rewriteToMov(i, c);
    if (constBits(b, bits) === 1n && !isZero(c, bits)) return !!rewriteInstr(i, 'IADD3', [], [a, c, RZ]);
    if (constBits(a, bits) === 1n && !isZero(c, bits)) return !!rewriteInstr(i, 'IADD3', [], [b, c, RZ]);
    if (constBits(b, bits) === 1n && movable(a)) return !!rewriteToMov(i, a);
    if (constBits(a, bits) === 1n && movable(b)) return !!rewriteToMov(i, b);
    return false;
  },
  IMUL(i) {
    const bits = dataDefBits(i);
    if (bits === undefined || i.uses.length !== 2 || i.mods.some((m) => m !== 'U32' && m !== 'S32')) return false;
    const [a, b] = i.uses as [Operand, Operand];
    if (isZero(a, bits) || isZero(b, bits)) return !!rewriteToMov(i, RZ);
    if (constBits(b, bits) === 1n && movable(a)) return !!rewriteToMov(i, a);
    if (constBits(a, bits) === 1n && movable(b)) return !!rewriteToMov(i, b);
    return false;
  },
  SHL: shift,
  SHR: shift,
  SEL: select,
  FSEL: select,
  IMNMX(i) {
    if (dataDefBits(i) === undefined || i.uses.length !== 3) return false;
    const [a, b] = i.uses as [Operand, Operand];
    return sameOperand(a, b) && movable(a) ? !!rewriteToMov(i, a) : false;
  },
  LOP3(i) {
    const bits = dataDefBits(i);
    if (bits === undefined || i.uses.length !== 4 || !i.hasMod('LUT') || i.mods.length !== 1) return false;
    const lutOp = i.uses[3]!;
    if (lutOp.kind !== 'imm') return false;
    const lut = Number(lutOp.value & 0xffn);
    const known = i.uses.slice(0, 3).map((o) => {
      const v = constBits(o, bits);
      return v === 0n ? 0 : v === mask(bits) ? 1 : undefined;
    });
    const shape = lutShape(specializeLut(lut, known));
    if (!shape) return false;
    if (shape.kind === 'const') return !!rewriteToMov(i, shape.value ? immOf(-1n, bits) : RZ);
    const x = i.uses[shape.index]!;
    if (!shape.negated && movable(x)) return !!rewriteToMov(i, x);
    return false;
  },
  PLOP3(i) {
    if (i.uses.length < 4 || !i.hasMod('LUT')) return false;
    const known = i.uses.slice(0, 3).map((o) => (o.kind === 'pt' ? (o.not ? 0 : 1) : undefined));
    if (known.every((k) => k !== undefined)) return false; // already canonical constant form
    const values: boolean[] = [];
    for (let k = 0; k < i.defs.length; k++) {
      const l = i.uses[3 + k];
      if (l?.kind !== 'imm') return false;
      const shape = lutShape(specializeLut(Number(l.value & 0xffn), known));
      if (shape?.kind !== 'const') return false;
      values.push(shape.value === 1);
    }
    return !!rewriteToPredicateConstants(i, values);
  },
  ISETP(i) {
    if (i.uses.length !== 3 || i.defs.length < 1 || i.defs.length > 2 || i.mods.includes('X') || i.mods.includes('EX')) return false;
    const [a, b, c] = i.uses as [Operand, Operand, Operand];
    if (!sameOperand(a, b) || c.kind !== 'pt') return false;
    const cmp = i.mods.find((m) => ['EQ', 'NE', 'LT', 'LE', 'GT', 'GE'].includes(m));
    const comb = i.mods.find((m) => ['AND', 'OR', 'XOR'].includes(m)) ?? 'AND';
    if (!cmp) return false;
    const t = cmp === 'EQ' || cmp === 'LE' || cmp === 'GE';
    const cv = !c.not;
    const combine = (x: boolean): boolean => (comb === 'AND' ? x && cv : comb === 'OR' ? x || cv : x !== cv);
    const values = [combine(t), combine(!t)].slice(0, i.defs.length);
    return !!rewriteToPredicateConstants(i, values);
  },
};

function shift(i: Instr): boolean {
  const bits = dataDefBits(i);
  if (bits === undefined || i.uses.length !== 2) return false;
  const [a, s] = i.uses as [Operand, Operand];
  if (isZero(s, 32) && movable(a)) return !!rewriteToMov(i, a);
  if (isZero(a, bits)) return !!rewriteToMov(i, RZ);
  return false;
}

function select(i: Instr): boolean {
  if (dataDefBits(i) === undefined || i.uses.length !== 3) return false;
  const [a, b, p] = i.uses as [Operand, Operand, Operand];
  if (p.kind === 'pt') {
    const x = p.not ? b : a;
    return movable(x) ? !!rewriteToMov(i, x) : false;
  }
  return sameOperand(a, b) && movable(a) ? !!rewriteToMov(i, a) : false;
}

/** Apply the identities to every instruction once; returns how many were rewritten. */
export function simplifyAlgebraic(fn: OriFunction): number {
  let n = 0;
  for (const b of fn.blocks) {
    for (const i of [...b.instrs]) {
      const rule = RULES[i.opcode];
      if (rule && i.block === b && rule(i)) n++;
    }
  }
  return n;
}

export { NOT_PT };
