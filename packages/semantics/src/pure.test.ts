import { parseOri } from '@ptxforge/kernel';
import { describe, expect, it } from 'vitest';
import { f32ToBits, f64ToBits } from './bits.js';
import { describeInstr, evaluateInstr, evaluatePure, type OperandMods, type PureValue } from './pure.js';

/** Evaluate with defs of the given widths; uses are registers of `uw` bits unless given. */
function ev(op: string, defWidths: number[], inputs: PureValue[], opts: { useWidths?: (number | undefined)[]; useMods?: (OperandMods | undefined)[] } = {}): PureValue[] | undefined {
  const [opcode, ...mods] = op.split('.');
  return evaluatePure({ opcode: opcode!, mods, defWidths, ...opts }, inputs);
}
const one = (op: string, inputs: PureValue[], dw = 32): PureValue | undefined => ev(op, [dw], inputs)?.[0];
const f = (x: number): bigint => BigInt(f32ToBits(x));
const d = (x: number): bigint => f64ToBits(x);

describe('integer semantics', () => {
  it('IADD3 wraps at 32 and 64 bits and reports the carry', () => {
    expect(ev('IADD3', [32, 1], [0xffffffffn, 1n, 0n])).toEqual([0n, true]);
    expect(ev('IADD3', [32, 1], [5n, -2n, 0n])).toEqual([3n, true]);
    expect(one('IADD3', [0xffffffffffffffffn, 2n, 0n], 64)).toBe(1n);
    // Carry-in predicates after c (.X).
    expect(one('IADD3.X', [1n, 2n, 3n, true])).toBe(7n);
    // Negated operand: 10 + -3 + 0.
    expect(ev('IADD3', [32], [10n, 3n, 0n], { useMods: [undefined, { neg: true }, undefined] })).toEqual([7n]);
    // -x is ~x + 1 in the adder (as on hardware): a - 0 carries out, a - b with b > a does not
    expect(ev('IADD3', [32, 1], [10n, 0n, 0n], { useMods: [undefined, { neg: true }, undefined] })).toEqual([10n, true]);
    expect(ev('IADD3', [32, 1], [3n, 10n, 0n], { useMods: [undefined, { neg: true }, undefined] })).toEqual([0xfffffff9n, false]);
    expect(ev('IADD3', [32, 1], [10n, 3n, 0n], { useMods: [undefined, { neg: true }, undefined] })).toEqual([7n, true]);
  });
  it('IMAD low, high and wide products', () => {
    expect(one('IMAD', [0x10000n, 0x10000n, 5n])).toBe(5n);
    expect(one('IMAD.HI.U32', [0xffffffffn, 0xffffffffn, 0n])).toBe(0xfffffffen);
    expect(one('IMAD.HI', [0xffffffffn, 0xffffffffn, 0n])).toBe(0n); // (-1 * -1) >> 32
    expect(one('IMAD.HI', [0xffffffffn, 2n, 0n])).toBe(0xffffffffn); // -2 >> 32 = -1
    expect(one('IMAD.WIDE.U32', [0xffffffffn, 0xffffffffn, 1n], 64)).toBe(0xfffffffe00000002n);
    expect(one('IMAD.WIDE', [0xffffffffn, 4n, 0x100n], 64)).toBe(0xfcn); // -4 + 256
  });
  it('shifts by >= width follow PTX', () => {
    expect(one('SHL', [1n, 31n])).toBe(0x80000000n);
    expect(one('SHL', [1n, 32n])).toBe(0n);
    expect(one('SHL', [1n, 0xffffffffn])).toBe(0n);
    expect(one('SHR.U32', [0x80000000n, 40n])).toBe(0n);
    expect(one('SHR.S32', [0x80000000n, 40n])).toBe(0xffffffffn);
    expect(one('SHR.S32', [0x7fffffffn, 40n])).toBe(0n);
    expect(one('SHR.S32', [0x80000000n, 4n])).toBe(0xf8000000n);
    expect(one('SHL', [3n, 63n], 64)).toBe(0x8000000000000000n);
    expect(one('SHL', [3n, 64n], 64)).toBe(0n);
    expect(one('SHR.S64', [0x8000000000000000n, 100n], 64)).toBe(0xffffffffffffffffn);
  });
  it('SHF funnel shifts', () => {
    expect(one('SHF.L.U32', [0x80000001n, 2n, 0n])).toBe(4n);
    expect(one('SHF.L.U64.HI', [0x80000001n, 2n, 1n])).toBe(6n);
    expect(one('SHF.R.S32.HI', [0n, 4n, 0x80000000n])).toBe(0xf8000000n);
    expect(one('SHF.R.U64', [0x10n, 4n, 0x3n])).toBe(0x30000001n);
    expect(one('SHF.R.U32.HI', [0n, 40n, 0xffffffffn])).toBe(0n); // clamps at 32
    expect(one('SHF.L.W.U32', [1n, 33n, 0n])).toBe(2n); // .W wraps mod 32
  });
  it('division by zero and overflow are the documented choice', () => {
    expect(one('IDIV.U32', [7n, 0n])).toBe(0xffffffffn);
    expect(one('IREM.U32', [7n, 0n])).toBe(0xffffffffn); // ptxas's ~b: all ones, as the GPU
    expect(one('IREM.S64', [7n, 0n], 64)).toBe(0xffffffffffffffffn);
    expect(one('IDIV.S32', [0xfffffff9n, 0n])).toBe(0xffffffffn);
    expect(one('IDIV.S32', [0x80000000n, 0xffffffffn])).toBe(0x80000000n);
    expect(one('IREM.S32', [0x80000000n, 0xffffffffn])).toBe(0n);
    expect(one('IDIV.S32', [0xfffffff9n, 2n])).toBe(0xfffffffdn); // -7/2 = -3 (truncating)
    expect(one('IREM.S32', [0xfffffff9n, 2n])).toBe(0xffffffffn); // -7%2 = -1
    expect(one('IDIV.U64', [100n, 7n], 64)).toBe(14n);
  });
  it('comparisons, min/max, abs', () => {
    expect(ev('ISETP.LT.AND', [1, 1], [0xffffffffn, 0n, true])).toEqual([true, false]);
    expect(ev('ISETP.LT.U32.AND', [1, 1], [0xffffffffn, 0n, true])).toEqual([false, true]);
    expect(ev('ISETP.GE.U32.OR', [1], [0n, 5n, true])).toEqual([true]);
    expect(ev('ISETP.EQ.XOR', [1], [5n, 5n, true])).toEqual([false]);
    expect(ev('ISETP.GT.S64.AND', [1], [1n, 0xffffffffffffffffn, true])).toEqual([true]);
    expect(one('IMNMX', [0xffffffffn, 1n, true])).toBe(0xffffffffn);
    expect(one('IMNMX.U32', [0xffffffffn, 1n, true])).toBe(1n);
    expect(one('IABS', [0x80000000n])).toBe(0x80000000n);
    expect(one('IABS', [0xfffffffbn])).toBe(5n);
  });
  it('bit operations', () => {
    expect(one('LOP3.LUT', [0xf0n, 0xccn, 0xaan, 0xc0n])).toBe(0xc0n);
    expect(one('LOP3.LUT', [0xf0n, 0xccn, 0n, 0xfcn])).toBe(0xfcn);
    expect(one('LOP3.LUT', [0xf0n, 0xccn, 0n, 0x3cn])).toBe(0x3cn);
    expect(one('LOP3.LUT', [0n, 0n, 0n, 0x0fn])).toBe(0xffffffffn);
    expect(ev('LOP3.LUT', [32, 1], [0xf0n, 0x0fn, 0n, 0xc0n])).toEqual([0n, false]);
    expect(one('POPC', [0xf0f0n])).toBe(8n);
    expect(one('BREV', [1n])).toBe(0x80000000n);
    expect(one('FLO.U32', [0n])).toBe(0xffffffffn);
    expect(one('FLO.U32', [0x10n])).toBe(4n);
    expect(one('FLO.U32.SH', [1n])).toBe(31n);
    expect(one('FLO.S32', [0xffffffffn])).toBe(0xffffffffn);
    expect(one('FLO.S32', [0xfffffff0n])).toBe(3n);
    expect(one('BFE.U32', [0xabcdn, 4n, 8n])).toBe(0xbcn);
    expect(one('BFE.S32', [0x0f80n, 4n, 8n])).toBe(0xfffffff8n);
    expect(one('BFE.U32', [0xabcdn, 4n, 0n])).toBe(0n);
    expect(one('BFE.S32', [0x80000000n, 28n, 10n])).toBe(0xfffffff8n);
    expect(one('BFI', [0xffn, 0n, 4n, 4n])).toBe(0xf0n);
    expect(one('BFI', [0xffn, 0n, 30n, 8n])).toBe(0xc0000000n);
    expect(one('PRMT', [0x33221100n, 0x3210n, 0x77665544n])).toBe(0x33221100n);
    expect(one('PRMT', [0x33221100n, 0x7654n, 0x77665544n])).toBe(0x77665544n);
    expect(one('PRMT', [0x000000f0n, 0x0008n, 0n])).toBe(0xf0f0f0ffn); // byte 0 replicates the sign of byte 0, others copy byte 0
    expect(one('PRMT.RC8', [0x33221100n, 1n, 0n])).toBe(0x11111111n);
    expect(one('LEA', [3n, 100n, 4n])).toBe(148n);
    expect(one('LEA.HI', [0x80000000n, 1n, 0x1n, 1n])).toBe(4n); // ((1:0x80000000) << 1) >> 32 = 3, + 1
    expect(one('LEA.HI.SX32', [0xfffffffen, 10n, 1n])).toBe(9n); // sext(-2) << 1 >> 32 = -1
  });
  it('PLOP3, SEL and moves', () => {
    expect(ev('PLOP3.LUT', [1, 1], [true, false, true, 0x80n, 0xfen])).toEqual([false, true]);
    expect(one('SEL', [1n, 2n, false])).toBe(2n);
    expect(one('MOV', [-1n], 64)).toBe(0xffffffffffffffffn);
    expect(ev('COPY', [1], [true])).toEqual([true]);
    expect(ev('SEL', [32], [1n, 2n, true], { useMods: [undefined, undefined, { not: true }] })).toEqual([2n]);
  });
});

describe('float semantics', () => {
  it('f32 add/mul: NaN is canonical, signed zeros follow IEEE', () => {
    expect(one('FADD', [f(1.5), f(2.25)])).toBe(f(3.75));
    expect(one('FADD', [0xffc00001n, f(1)])).toBe(0x7fffffffn);
    expect(one('FADD', [f(Infinity), f(-Infinity)])).toBe(0x7fffffffn);
    expect(one('FMUL', [f(Infinity), f(0)])).toBe(0x7fffffffn);
    expect(one('FADD', [f(-0), f(-0)])).toBe(0x80000000n);
    expect(one('FADD', [f(-0), f(0)])).toBe(0n);
    expect(one('FADD', [f(1), f(-1)])).toBe(0n);
    expect(one('FADD.RM', [f(1), f(-1)])).toBe(0x80000000n);
    expect(one('FMUL', [f(-0), f(5)])).toBe(0x80000000n);
    expect(ev('FADD', [32], [f(1), f(3)], { useMods: [undefined, { neg: true }] })).toEqual([f(-2)]);
    expect(ev('FADD', [32], [f(-1), f(-3)], { useMods: [{ abs: true }, { abs: true }] })).toEqual([f(4)]);
  });
  it('f32 rounding modes and FTZ, SAT', () => {
    const third = 0x3eaaaaabn; // RN(1/3)
    expect(one('FDIV', [f(1), f(3)])).toBe(third);
    expect(one('FDIV.RZ', [f(1), f(3)])).toBe(third - 1n);
    expect(one('FDIV.RP', [f(1), f(3)])).toBe(third);
    expect(one('FDIV.RM', [f(-1), f(3)])).toBe(third | 0x80000000n);
    // 1 + 2^-24 is a tie between 1 and 1 + 2^-23: RN goes to even (1), RP up.
    expect(one('FADD', [f(1), f(2 ** -24)])).toBe(f(1));
    expect(one('FADD.RP', [f(1), f(2 ** -24)])).toBe(f(1 + 2 ** -23));
    expect(one('FADD.RZ', [f(3.4028234663852886e38), f(3.4028234663852886e38)])).toBe(0x7f7fffffn);
    expect(one('FADD', [f(3.4028234663852886e38), f(3.4028234663852886e38)])).toBe(0x7f800000n);
    const denorm = 0x00000001n;
    expect(one('FADD', [denorm, 0n])).toBe(denorm);
    expect(one('FADD.FTZ', [denorm, 0n])).toBe(0n);
    expect(one('FADD.FTZ', [denorm | 0x80000000n, 0x80000000n])).toBe(0x80000000n);
    expect(one('FMUL.FTZ', [f(2 ** -100), f(2 ** -30)])).toBe(0n);
    expect(one('FADD.SAT', [f(0.75), f(0.5)])).toBe(f(1));
    expect(one('FADD.SAT', [f(-0.75), f(0.5)])).toBe(0n);
    expect(one('FADD.SAT', [0x7fffffffn, f(0.5)])).toBe(0n);
  });
  it('FFMA rounds once', () => {
    const a = f(1 + 2 ** -12);
    expect(one('FFMA', [a, a, f(-1)])).toBe(f(2 ** -11 + 2 ** -24));
    expect(one('FADD', [one('FMUL', [a, a]) as bigint, f(-1)])).toBe(f(2 ** -11)); // unfused differs
    expect(one('FFMA', [f(2), f(3), f(4)])).toBe(f(10));
    expect(one('FFMA', [f(Infinity), f(0), f(1)])).toBe(0x7fffffffn);
    expect(one('DFMA', [d(1 + 2 ** -30), d(1 + 2 ** -30), d(-1)], 64)).toBe(d(2 ** -29 + 2 ** -60));
  });
  it('f64 arithmetic', () => {
    expect(one('DADD', [d(0.1), d(0.2)], 64)).toBe(d(0.30000000000000004));
    expect(one('DMUL', [d(-0), d(3)], 64)).toBe(d(-0));
    expect(one('DADD', [d(NaN), d(1)], 64)).toBe(0x7fffffffffffffffn);
    expect(one('FDIV', [d(1), d(3)], 64)).toBe(d(1 / 3));
    expect(one('FSQRT', [d(2)], 64)).toBe(d(Math.SQRT2));
    expect(one('DADD.RZ', [d(1), d(2 ** -60)], 64)).toBe(d(1));
    expect(one('DADD.RP', [d(1), d(2 ** -60)], 64)).toBe(d(1 + 2 ** -52));
  });
  it('min/max: NaN and signed zero', () => {
    expect(one('FMNMX', [0x7fc00000n, f(2), true])).toBe(f(2));
    expect(one('FMNMX', [f(2), 0x7fc00000n, false])).toBe(f(2));
    expect(one('FMNMX', [0x7fc00000n, 0xffc00000n, false])).toBe(0x7fffffffn);
    expect(one('FMNMX', [f(0), f(-0), true])).toBe(0x80000000n);
    expect(one('FMNMX', [f(-0), f(0), false])).toBe(0n);
    expect(one('DMNMX', [d(1), d(-5), true], 64)).toBe(d(-5));
  });
  it('compares: ordered and unordered', () => {
    const nan = 0x7fc00000n;
    expect(ev('FSETP.LT.AND', [1, 1], [f(1), f(2), true])).toEqual([true, false]);
    expect(ev('FSETP.LT.AND', [1, 1], [nan, f(2), true])).toEqual([false, true]);
    expect(ev('FSETP.LTU.AND', [1], [nan, f(2), true])).toEqual([true]);
    expect(ev('FSETP.NE.AND', [1], [nan, nan, true])).toEqual([false]);
    expect(ev('FSETP.NEU.AND', [1], [nan, nan, true])).toEqual([true]);
    expect(ev('FSETP.EQ.AND', [1], [f(0), f(-0), true])).toEqual([true]);
    expect(ev('FSETP.NAN.AND', [1], [nan, f(0), true])).toEqual([true]);
    expect(ev('FSETP.NUM.AND', [1], [f(1), f(0), true])).toEqual([true]);
    expect(ev('DSETP.GT.AND', [1], [d(2), d(1), true])).toEqual([true]);
    expect(one('FSET.GT.AND', [f(2), f(1), true])).toBe(0x3f800000n);
    expect(one('FSET.BF.GT.AND', [f(2), f(1), true])).toBe(0xffffffffn);
    expect(one('FSET.BF.GT.AND', [f(0), f(1), true])).toBe(0n);
  });
  it('MUFU is the double result rounded to f32 (approximate on hardware)', () => {
    expect(one('MUFU.RCP', [f(2)])).toBe(f(0.5));
    expect(one('MUFU.RSQ', [f(4)])).toBe(f(0.5));
    expect(one('MUFU.EX2', [f(3)])).toBe(f(8));
    expect(one('MUFU.LG2', [f(8)])).toBe(f(3));
    expect(one('MUFU.SQRT', [f(-1)])).toBe(0x7fffffffn);
    expect(one('MUFU.RCP', [f(0)])).toBe(0x7f800000n);
    expect(one('MUFU.RCP', [f(-0)])).toBe(0xff800000n);
  });
  it('FRND', () => {
    expect(one('FRND.RN', [f(2.5)])).toBe(f(2));
    expect(one('FRND.RN', [f(3.5)])).toBe(f(4));
    expect(one('FRND.RN', [f(-0.5)])).toBe(0x80000000n);
    expect(one('FRND.FLOOR', [f(-1.5)])).toBe(f(-2));
    expect(one('FRND.CEIL', [f(-1.5)])).toBe(0xbf800000n);
    expect(one('FRND.TRUNC', [f(-1.5)])).toBe(f(-1));
    expect(one('FRND.TRUNC', [d(-2.7)], 64)).toBe(d(-2));
  });
  it('packed f16x2', () => {
    // lanes (lo, hi): (1.0, 2.0) + (1.0, 1.0) = (2.0, 3.0)
    expect(one('HADD2', [0x40003c00n, 0x3c003c00n])).toBe(0x42004000n);
    expect(one('HMUL2', [0x40003c00n, 0x40004000n])).toBe(0x44004000n);
    expect(one('HFMA2', [0x40003c00n, 0x40004000n, 0x3c003c00n])).toBe(0x45004200n);
    // 65504 + 32 rounds to infinity (tie to even at the top of the range)
    expect(one('HADD2', [0x7bffn, 0x5000n])).toBe(0x7c00n);
  });
});

describe('conversions', () => {
  it('F2I saturates and sends NaN to 0', () => {
    expect(one('F2I.S32.F32', [0x7fc00000n])).toBe(0n);
    expect(one('F2I.S32.F32', [f(1e10)])).toBe(0x7fffffffn);
    expect(one('F2I.S32.F32', [f(-1e10)])).toBe(0x80000000n);
    expect(one('F2I.U32.F32', [f(-1)])).toBe(0n);
    expect(one('F2I.S32.F32', [f(-1.5)])).toBe(0xffffffffn); // default TRUNC
    expect(one('F2I.S32.F32.RN', [f(-1.5)])).toBe(0xfffffffen);
    expect(one('F2I.S32.F32.RN', [f(2.5)])).toBe(2n);
    expect(one('F2I.S32.F32.FLOOR', [f(-0.5)])).toBe(0xffffffffn);
    expect(one('F2I.S64.F64', [d(-3.9)], 64)).toBe(0xfffffffffffffffdn);
    expect(one('F2I.U8.F32', [f(300)])).toBe(255n);
    expect(one('F2I.S8.F32', [f(-300)])).toBe(0xffffff80n);
    expect(one('F2I.S32.F32', [f(Infinity)])).toBe(0x7fffffffn);
  });
  it('I2F rounds by mode', () => {
    expect(one('I2F.F32.U32', [0xffffffffn])).toBe(0x4f800000n);
    expect(one('I2F.F32.U32.RZ', [0xffffffffn])).toBe(0x4f7fffffn);
    expect(one('I2F.F32.S32', [0xffffffffn])).toBe(f(-1));
    expect(one('I2F.F64.S64', [0x8000000000000000n], 64)).toBe(d(-(2 ** 63)));
    expect(one('I2F.F32.S64', [0x7fffffffffffffffn])).toBe(f(2 ** 63));
    expect(one('I2F.F16.S32', [1n])).toBe(0x3c00n);
  });
  it('F2F and I2I', () => {
    expect(one('F2F.F16.F32', [f(1)])).toBe(0x3c00n);
    expect(one('F2F.F16.F32', [f(65520)])).toBe(0x7c00n);
    expect(one('F2F.F16.F32.RZ', [f(65520)])).toBe(0x7bffn);
    expect(one('F2F.F32.F16', [0x3555n])).toBe(f(0.333251953125));
    expect(one('F2F.F64.F32', [f(0.1)], 64)).toBe(d(Math.fround(0.1)));
    expect(one('F2F.F32.F64', [d(0.1)])).toBe(f(0.1));
    expect(one('F2F.F32.F64', [d(NaN)])).toBe(0x7fffffffn);
    expect(one('F2F.BF16.F32', [f(1)])).toBe(0x3f80n);
    expect(one('I2I.S32.S8', [0x80n])).toBe(0xffffff80n);
    expect(one('I2I.U8.S32', [0x1ffn])).toBe(0xffn);
    expect(one('I2I.U8.S32.SAT', [0x1ffn])).toBe(0xffn);
    expect(one('I2I.U8.S32.SAT', [0xffffffffn])).toBe(0n);
    expect(one('I2I.S64.S32', [0xffffffffn], 64)).toBe(0xffffffffffffffffn);
    expect(one('I2I.U64.U32', [0xffffffffn], 64)).toBe(0xffffffffn);
    expect(one('F2FP.PACK_AB', [f(2), f(1)])).toBe(0x40003c00n);
  });
});

describe('evaluateInstr on Ori instructions', () => {
  it('folds immediates, RZ and PT through describeInstr', () => {
    const m = parseOri(`.target sm_90
.entry @k()
{
bb0:
  %r0 = IADD3 5, -3, RZ
  %p0 = ISETP.GE.U32.AND 7, 9, !PT
  %rd0 = MOV -1
  EXIT
}`);
    const [a, b, c] = m.functions[0]!.blocks[0]!.instrs;
    expect(evaluateInstr(a!)).toEqual([2n]);
    expect(describeInstr(b!).useMods?.[2]).toEqual({ not: true });
    expect(evaluateInstr(b!)).toEqual([false]);
    expect(evaluateInstr(c!)).toEqual([0xffffffffffffffffn]);
  });
  it('returns undefined for impure or unknown operands', () => {
    expect(ev('LDG.E', [32], [0n])).toBeUndefined();
    expect(ev('IADD3', [32], [1n])).toBeUndefined();
  });
});

describe('forms added by the PTX front end (docs/ori-semantics.md)', () => {
  const M64 = (1n << 64n) - 1n;
  it('IMAD.HI.U64 / .S64: high 64 bits of the 128-bit product, plus c', () => {
    expect(one('IMAD.HI.U64', [M64, M64, 0n], 64)).toBe(M64 - 1n);
    expect(one('IMAD.HI.S64', [M64, M64, 0n], 64)).toBe(0n); // (-1 * -1) >> 64
    expect(one('IMAD.HI.S64', [M64, 2n, 0n], 64)).toBe(M64); // -2 >> 64 = -1 (floor)
    expect(one('IMAD.HI.S64', [1n << 63n, 1n << 63n, 0n], 64)).toBe(1n << 62n); // MIN * MIN = 2^126
    expect(one('IMAD.HI.S64', [1n << 63n, 1n, 5n], 64)).toBe(4n); // -1 + 5
    expect(one('IMAD.HI.U64', [1n << 63n, 4n, M64], 64)).toBe(1n); // 2 + (2^64 - 1) wraps
    expect(one('IMAD.HI.S64', [-3n, 0x5555555555555556n, 0n], 64)).toBe(M64 - 1n); // -(2^64 + 2) >> 64 = -2 (floor)
  });
  it('IADD3 with ~b: the carry out is the "no borrow" flag of sub.cc, at 32 and 64 bits', () => {
    const not = { useMods: [undefined, { not: true }, undefined] };
    expect(ev('IADD3', [32, 1], [5n, 3n, 1n], not)).toEqual([2n, true]);
    expect(ev('IADD3', [32, 1], [3n, 5n, 1n], not)).toEqual([0xfffffffen, false]);
    expect(ev('IADD3', [32, 1], [0n, 0n, 1n], not)).toEqual([0n, true]);
    expect(ev('IADD3', [64, 1], [0n, 1n, 1n], not)).toEqual([M64, false]);
    expect(ev('IADD3', [64, 1], [1n << 63n, 1n << 63n, 1n], not)).toEqual([0n, true]);
    // subc: a + ~b + cin
    expect(ev('IADD3.X', [64, 1], [0n, 0n, 0n, false], { useMods: [undefined, { not: true }, undefined, undefined] })).toEqual([M64, false]);
    expect(ev('IADD3.X', [64, 1], [7n, 7n, 0n, true], { useMods: [undefined, { not: true }, undefined, undefined] })).toEqual([0n, true]);
    // add.cc chain: carries out of bit 64
    expect(ev('IADD3', [64, 1], [M64, 1n, 0n])).toEqual([0n, true]);
    expect(ev('IADD3.X', [64, 1], [M64, 0n, 0n, true])).toEqual([0n, true]);
    expect(ev('IADD3.X', [64, 1], [M64, M64, 0n, true])).toEqual([M64, true]);
  });
  it('.FTZ on MUFU flushes denormal inputs and results with their sign', () => {
    expect(one('MUFU.RCP.FTZ', [0x80000001n])).toBe(0xff800000n); // 1 / -0
    expect(one('MUFU.RCP', [0x80000001n])).toBe(0xff800000n); // 1 / -2^-149 overflows anyway
    expect(one('MUFU.EX2.FTZ', [0x00000001n])).toBe(f(1));
    expect(one('MUFU.EX2', [f(-130)])).toBe(0x00080000n); // 2^-130 is a denormal
    expect(one('MUFU.EX2.FTZ', [f(-130)])).toBe(0n);
    expect(one('MUFU.SQRT.FTZ', [0x80000004n])).toBe(0x80000000n); // sqrt(-0) = -0
    expect(one('MUFU.SQRT', [0x80000004n])).toBe(0x7fffffffn); // sqrt of a negative denormal: NaN
  });
  it('.FTZ on HADD2/HMUL2/HFMA2 flushes f16 denormal lanes (bf16 has no FTZ)', () => {
    expect(one('HADD2.FTZ', [0x00018001n, 0x80008001n])).toBe(0x00008000n); // lo: -0 + -0 = -0; hi: +0 + -0 = +0
    expect(one('HADD2', [0x00010001n, 0x00000001n])).toBe(0x00010002n);
    expect(one('HMUL2.FTZ', [0x3c000400n, 0x00010400n])).toBe(0x00000000n); // 2^-14 * 2^-14 underflows; 1 * denormal
    expect(one('HMUL2', [0x3c000400n, 0x00010400n])).toBe(0x00010000n);
    expect(one('HFMA2.FTZ', [0x3c003c00n, 0x3c003c00n, 0x83ff03ffn])).toBe(0x3c003c00n);
    expect(one('HADD2.FTZ.BF16', [0x00010001n, 0n])).toBe(0x00010001n);
  });
});
