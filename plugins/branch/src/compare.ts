import type { Instr, Operand, Register } from '@ptxforge/kernel';

/** Integer comparisons of ISETP. */
export type IntCmp = 'EQ' | 'NE' | 'LT' | 'LE' | 'GT' | 'GE';
const CMPS: ReadonlySet<string> = new Set(['EQ', 'NE', 'LT', 'LE', 'GT', 'GE']);

export function cmpOf(i: Instr): IntCmp | undefined {
  for (const m of i.mods) if (CMPS.has(m)) return m as IntCmp;
  return undefined;
}

/** Whether an ISETP compares unsigned (`.U32`); without a type it is signed, as in the interpreter. */
export function isUnsignedCmp(i: Instr): boolean {
  return i.hasMod('U32') || i.hasMod('U64');
}

const TWO32 = 4294967296;
/** A 32-bit immediate as a number in the signed or unsigned domain. */
export function imm32(o: Operand, unsigned: boolean): number | undefined {
  if (o.kind === 'rz') return 0;
  if (o.kind !== 'imm' || o.fmt === 'f32' || o.fmt === 'f64') return undefined;
  const u = Number(BigInt.asUintN(32, o.value));
  return unsigned || u < 0x80000000 ? u : u - TWO32;
}

export function evalCmp(cmp: IntCmp, a: number, b: number): boolean {
  switch (cmp) {
    case 'EQ': return a === b;
    case 'NE': return a !== b;
    case 'LT': return a < b;
    case 'LE': return a <= b;
    case 'GT': return a > b;
    case 'GE': return a >= b;
  }
}

/**
 * A plain 32-bit `%p = ISETP.<cmp>[.S32|.U32].AND a, b, PT` (one predicate def, no guard, no .EX, combined
 * with PT), the shape switch cascades and constant conditions are made of.
 */
export interface PlainCompare {
  readonly instr: Instr;
  readonly pred: Register;
  readonly cmp: IntCmp;
  readonly unsigned: boolean;
  readonly a: Operand;
  readonly b: Operand;
}

export function plainCompare(i: Instr): PlainCompare | undefined {
  if (i.opcode !== 'ISETP' || i.guard || i.hasMod('EX') || i.hasMod('U64') || i.hasMod('S64')) return undefined;
  if (i.hasMod('OR') || i.hasMod('XOR')) return undefined;
  if (i.defs.length !== 1 || i.defs[0]!.kind !== 'reg' || i.defs[0]!.reg.cls !== 'P') return undefined;
  if (i.uses.length !== 3) return undefined;
  const c = i.uses[2]!;
  if (c.kind !== 'pt' || c.not) return undefined;
  const cmp = cmpOf(i);
  if (!cmp) return undefined;
  const a = i.uses[0]!;
  const b = i.uses[1]!;
  for (const o of [a, b]) if (o.kind === 'reg' && (o.reg.width !== 1 || o.reg.cls !== 'R' || o.neg || o.abs || o.not)) return undefined;
  return { instr: i, pred: i.defs[0]!.reg, cmp, unsigned: isUnsignedCmp(i), a, b };
}

/** The value of a compare whose outcome does not depend on registers (two immediates, or `x OP x`). */
export function constantCompare(pc: PlainCompare): boolean | undefined {
  const x = imm32(pc.a, pc.unsigned);
  const y = imm32(pc.b, pc.unsigned);
  if (x !== undefined && y !== undefined) return evalCmp(pc.cmp, x, y);
  if (pc.a.kind === 'reg' && pc.b.kind === 'reg' && pc.a.reg === pc.b.reg) return evalCmp(pc.cmp, 0, 0);
  return undefined;
}

/** `sel CMP c` with the register first: swaps a constant-first compare (LT becomes GT ...). */
export function selectorCompare(pc: PlainCompare): { sel: Register; cmp: IntCmp; c: number } | undefined {
  const swap: Record<IntCmp, IntCmp> = { EQ: 'EQ', NE: 'NE', LT: 'GT', LE: 'GE', GT: 'LT', GE: 'LE' };
  if (pc.a.kind === 'reg') {
    const c = imm32(pc.b, pc.unsigned);
    return c === undefined ? undefined : { sel: pc.a.reg, cmp: pc.cmp, c };
  }
  if (pc.b.kind === 'reg') {
    const c = imm32(pc.a, pc.unsigned);
    return c === undefined ? undefined : { sel: pc.b.reg, cmp: swap[pc.cmp], c };
  }
  return undefined;
}
