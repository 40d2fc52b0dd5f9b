import type { Instr, Operand, Register } from '@ptxforge/kernel';
import type { MOperand, VFile, VReg, VRegOperand } from './mir.js';

/**
 * 64-bit integer division and remainder (`div/rem.u64/.s64`, Ori `IDIV/IREM` on register pairs), selected to the
 * algorithm of ptxas 13's internal subroutines `__internal_0_$__cuda_sm20_{div,rem}_{u64,s64}` on sm_90 (read from
 * `ptxas -arch=sm_90` output of one-instruction kernels, decoded with ptxforge-dis):
 *
 *   f  = I2F.U64.RP b                    the divisor rounded up to f32
 *   r  = MUFU.RCP f                      1/f (within an ulp)
 *   x0 = F2I.U64.TRUNC (r + 0x1ffffffe)  the reciprocal scaled by 2^64 (exponent + 64) less two ulps: x0 <= 2^64/b
 *   x  = x + mulhi64(x, -(x*b))          twice: Newton steps in 64-bit integers (error 2^-22 -> 2^-44 -> below 2^-64)
 *   q  = mulhi64(x, a); r = a - q*b      the quotient estimate, at most two low
 *   q += 1, r -= b where r >= b          twice
 *   b == 0: all ones (quotient and remainder, as ptxas's final SELs of 0xffffffff)
 *
 * Signed: the same on magnitudes (`|INT64_MIN|` = 2^63 as unsigned), the quotient negated where the signs differ,
 * the remainder takes the dividend's sign; so INT64_MIN / -1 = INT64_MIN and INT64_MIN % -1 = 0 (two's complement
 * wrap, as the interpreter). ptxas calls the subroutine (CALL.REL.NOINC / RET.REL.NODEC with the operands in fixed
 * registers); here the same straight-line body is inlined into the caller, and ptxas's carry-chained
 * `IMAD.WIDE.U32 Rd, Pc, ...` / `IMAD.HI.U32 Rd, Pc, ...` partial sums are spelled with the forms the rest of the
 * selector uses (IMAD.WIDE.U32 into a pair with a zero-extended addend, IADD3 / IADD3.X carry chains): the same
 * values, exact for every input (the differential test in isel-divide64.test.ts covers the edge cases).
 */
export interface Divide64Selector {
  fail(why: string): never;
  newV(file: VFile, width: 1 | 2 | 4, name?: string): VReg;
  vOf(r: Register): VReg;
  emit(opcode: string, mods: string[], ops: MOperand[], ndefs: number): void;
  r(v: VReg, part?: number, span?: number, mods?: Partial<VRegOperand>): VRegOperand;
  part(o: Operand, part: number, opts?: { float?: boolean }): MOperand;
  def(o: Operand | undefined, part?: number): MOperand;
  inReg(o: MOperand): MOperand;
}

/** A 64-bit value as its two 32-bit halves (registers). */
type Pair = readonly [MOperand, MOperand];

const RZ = (): MOperand => ({ k: 'reg', file: 'R', n: 255 });
const PT = (not = false): MOperand => ({ k: 'reg', file: 'P', n: 7, ...(not ? { not: true } : {}) });
const imm = (v: number): MOperand => ({ k: 'int', v: v >>> 0 });
/** The 2^64 scaling of the f32 reciprocal less two ulps (exponent field + 64, mantissa - 2). */
const RCP_SCALE_2_64 = 0x1ffffffe;

class Divide64 {
  constructor(private readonly s: Divide64Selector) {}

  r1(): VReg {
    return this.s.newV('R', 1);
  }

  p1(): VReg {
    return this.s.newV('P', 1);
  }

  /** A fresh register pair holding `lo`, `hi`. */
  pairReg(lo: MOperand, hi: MOperand): VReg {
    const p = this.s.newV('R', 2);
    this.s.emit('MOV', [], [this.s.r(p, 0), lo], 1);
    this.s.emit('MOV', [], [this.s.r(p, 1), hi], 1);
    return p;
  }

  halves(p: VReg): Pair {
    return [this.s.r(p, 0), this.s.r(p, 1)];
  }

  /** An Ori 64-bit source operand as two 32-bit registers. */
  source(o: Operand): Pair {
    if (o.kind === 'reg' && o.reg.width === 1) this.s.fail(`32-bit register ${o.reg.name} as a 64-bit divide operand`);
    return [this.s.inReg(this.s.part(o, 0)), this.s.inReg(this.s.part(o, 1))];
  }

  neg(a: Pair): Pair {
    const lo = this.r1();
    const hi = this.r1();
    const c = this.p1();
    this.s.emit('IADD3', [], [this.s.r(lo), this.s.r(c), PT(), RZ(), { ...(a[0] as VRegOperand), neg: true }, RZ()], 3);
    this.s.emit('IADD3', ['X'], [this.s.r(hi), RZ(), { ...(a[1] as VRegOperand), not: true }, RZ(), this.s.r(c), PT(true)], 1);
    return [this.s.r(lo), this.s.r(hi)];
  }

  add(a: Pair, b: Pair): Pair {
    const lo = this.r1();
    const hi = this.r1();
    const c = this.p1();
    this.s.emit('IADD3', [], [this.s.r(lo), this.s.r(c), PT(), a[0], b[0], RZ()], 3);
    this.s.emit('IADD3', ['X'], [this.s.r(hi), a[1], b[1], RZ(), this.s.r(c), PT(true)], 1);
    return [this.s.r(lo), this.s.r(hi)];
  }

  /** a - b: a + ~b + 1 (the low IADD3's carry out is "no borrow"). */
  sub(a: Pair, b: Pair): Pair {
    const lo = this.r1();
    const hi = this.r1();
    const c = this.p1();
    this.s.emit('IADD3', [], [this.s.r(lo), this.s.r(c), PT(), a[0], { ...(b[0] as VRegOperand), neg: true }, RZ()], 3);
    this.s.emit('IADD3', ['X'], [this.s.r(hi), a[1], { ...(b[1] as VRegOperand), not: true }, RZ(), this.s.r(c), PT(true)], 1);
    return [this.s.r(lo), this.s.r(hi)];
  }

  /** The low 64 bits of a*b: lo*lo wide, the cross products into the high word. */
  mulLo(a: Pair, b: Pair): Pair {
    const t = this.s.newV('R', 2);
    this.s.emit('IMAD', ['WIDE', 'U32'], [this.s.r(t, 0, 2), a[0], b[0], RZ()], 1);
    const h1 = this.r1();
    this.s.emit('IMAD', [], [this.s.r(h1), a[0], b[1], this.s.r(t, 1)], 1);
    const h = this.r1();
    this.s.emit('IMAD', [], [this.s.r(h), a[1], b[0], this.s.r(h1)], 1);
    return [this.s.r(t, 0), this.s.r(h)];
  }

  /**
   * The high 64 bits of the unsigned 128-bit a*b: four 32x32 wide products, each partial sum kept below 2^64 by
   * accumulating through IMAD.WIDE.U32's 64-bit addend (zero-extended words), the last carry by IADD3/IADD3.X.
   */
  mulHi(a: Pair, b: Pair): Pair {
    const s = this.s;
    const p00 = s.newV('R', 2);
    s.emit('IMAD', ['WIDE', 'U32'], [s.r(p00, 0, 2), a[0], b[0], RZ()], 1);
    const t = s.newV('R', 2);
    s.emit('IMAD', ['WIDE', 'U32'], [s.r(t, 0, 2), a[0], b[1], s.r(this.pairReg(s.r(p00, 1), RZ()), 0, 2)], 1);
    const m = s.newV('R', 2);
    s.emit('IMAD', ['WIDE', 'U32'], [s.r(m, 0, 2), a[1], b[0], s.r(this.pairReg(s.r(t, 0), RZ()), 0, 2)], 1);
    const w = s.newV('R', 2);
    s.emit('IMAD', ['WIDE', 'U32'], [s.r(w, 0, 2), a[1], b[1], s.r(this.pairReg(s.r(t, 1), RZ()), 0, 2)], 1);
    const lo = this.r1();
    const hi = this.r1();
    const c = this.p1();
    s.emit('IADD3', [], [s.r(lo), s.r(c), PT(), s.r(w, 0), s.r(m, 1), RZ()], 3);
    s.emit('IADD3', ['X'], [s.r(hi), s.r(w, 1), RZ(), RZ(), s.r(c), PT(true)], 1);
    return [s.r(lo), s.r(hi)];
  }

  /** Unsigned a >= b (ISETP.GE.U32 on the low words, .EX on the high words). */
  geU(a: Pair, b: Pair): VReg {
    const lo = this.p1();
    const p = this.p1();
    this.s.emit('ISETP', ['GE', 'U32', 'AND'], [this.s.r(lo), PT(), a[0], b[0], PT()], 2);
    this.s.emit('ISETP', ['GE', 'U32', 'AND', 'EX'], [this.s.r(p), PT(), a[1], b[1], PT(), this.s.r(lo)], 2);
    return p;
  }

  /** The sign of a signed 64-bit value (its high word below zero). */
  negative(hi: MOperand): VReg {
    const p = this.p1();
    this.s.emit('ISETP', ['LT', 'AND'], [this.s.r(p), PT(), hi, RZ(), PT()], 2);
    return p;
  }

  /** p ? a : b on both halves. */
  sel(a: Pair, b: Pair, p: VReg): Pair {
    const lo = this.r1();
    const hi = this.r1();
    this.s.emit('SEL', [], [this.s.r(lo), a[0], b[0], this.s.r(p)], 1);
    this.s.emit('SEL', [], [this.s.r(hi), a[1], b[1], this.s.r(p)], 1);
    return [this.s.r(lo), this.s.r(hi)];
  }

  /** Two's-complement magnitude and sign of a signed value. */
  magnitude(a: Pair): { mag: Pair; neg: VReg } {
    const neg = this.negative(a[1]);
    return { mag: this.sel(this.neg(a), a, neg), neg };
  }

  /** Unsigned quotient and remainder of a / b (b != 0; b == 0 is selected away by the caller). */
  unsigned(a: Pair, b: Pair): { q: Pair; r: Pair } {
    const s = this.s;
    const bp = this.pairReg(b[0], b[1]);
    const f = this.r1();
    s.emit('I2F', ['U64', 'RP'], [s.r(f), s.r(bp, 0, 2)], 1);
    const rf = this.r1();
    s.emit('MUFU', ['RCP'], [s.r(rf), s.r(f)], 1);
    const rs = this.r1();
    s.emit('IADD3', [], [s.r(rs), s.r(rf), imm(RCP_SCALE_2_64), RZ()], 1);
    const x0 = s.newV('R', 2);
    s.emit('F2I', ['U64', 'TRUNC'], [s.r(x0, 0, 2), s.r(rs)], 1);
    let x = this.halves(x0);
    for (let k = 0; k < 2; k++) x = this.add(x, this.mulHi(x, this.neg(this.mulLo(x, b))));
    let q = this.mulHi(x, a);
    let r = this.sub(a, this.mulLo(q, b));
    const one: Pair = [imm(1), RZ()];
    for (let k = 0; k < 2; k++) {
      const big = this.geU(r, b);
      q = this.sel(this.add(q, one), q, big);
      r = this.sel(this.sub(r, b), r, big);
    }
    return { q, r };
  }
}

/** Selects `IDIV/IREM.U64/.S64 d, a, b` (64-bit registers) into the caller's current block. */
export function selectDivide64(s: Divide64Selector, ins: Instr): void {
  const d = ins.defs[0]!;
  const signed = !ins.mods.includes('U64') && !ins.mods.includes('U32');
  const rem = ins.opcode === 'IREM';
  const g = new Divide64(s);
  const a0 = g.source(ins.uses[0]!);
  const b0 = g.source(ins.uses[1]!);
  let out: Pair;
  if (signed) {
    const a = g.magnitude(a0);
    const b = g.magnitude(b0);
    const { q, r } = g.unsigned(a.mag, b.mag);
    if (rem) out = g.sel(g.neg(r), r, a.neg);
    else {
      const differ = s.newV('P', 1);
      s.emit('PLOP3', ['LUT'], [s.r(differ), PT(), s.r(a.neg), s.r(b.neg), PT(), imm(0x3c), imm(0)], 2);
      out = g.sel(g.neg(q), q, differ);
    }
  } else {
    const { q, r } = g.unsigned(a0, b0);
    out = rem ? r : q;
  }
  // division by zero: all ones, quotient and remainder alike (ptxas's `SEL Rd, Rq, 0xffffffff, P`)
  const nz = s.newV('P', 1);
  const nonzero = s.newV('P', 1);
  s.emit('ISETP', ['NE', 'U32', 'AND'], [s.r(nz), PT(), b0[0], RZ(), PT()], 2);
  s.emit('ISETP', ['NE', 'AND', 'EX'], [s.r(nonzero), PT(), b0[1], RZ(), PT(), s.r(nz)], 2);
  for (let w = 0; w < 2; w++) s.emit('SEL', [], [s.def(d, w), out[w]!, imm(0xffffffff), s.r(nonzero)], 1);
}
