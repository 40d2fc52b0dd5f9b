import { PT, RZ, imm, reg, type Operand as OriOperand, type Register } from '@ptxforge/kernel';
import type { Operand } from '../ast.js';
import { B32, F32, FnLowerer, PRED, S32, S64, U32, U64, isSpecialRegister, type FormalParam } from './context.js';
import { byteSize, convMod, intMod, isTypeMod, ptxType, regShape, type PtxType } from './types.js';
import { lowerCvtTf32, lowerWmma } from './wmma.js';
import { lowerLdmatrix, lowerMma } from './warp-matrix.js';
import { TEXTURE_HANDLERS } from './texture.js';
import { lowerFunctionAddress, lowerIndirectCall } from './indirect-call.js';
import { VIDEO_HANDLERS } from './video.js';
import { MBARRIER_HANDLERS, lowerAsyncCopy } from './mbarrier.js';

/**
 * PTX instruction -> Ori, one handler per PTX opcode. Each handler reads `c.ins` (opcode, modifiers,
 * operands) and emits Ori through `c.emit` following docs/ori-semantics.md. Anything a handler does not
 * know is a located PTX_UNSUPPORTED error naming the construct.
 */
type Handler = (c: FnLowerer) => void;

const NOT_PT: OriOperand = { kind: 'pt', not: true };
const LUT_AND = 0xc0;
const LUT_OR = 0xfc;
const LUT_XOR = 0x3c;
/** (a ^ b) & c */
const LUT_XOR_AND = 0x28;

function types(c: FnLowerer): readonly PtxType[] {
  // the checker worked out the types of the instruction's form (shared by every instruction of that form)
  if (c.formTypesOf === c.ins && c.formTypes) return c.formTypes;
  return c.ins.mods.filter(isTypeMod).map((m) => ptxType(m)!);
}
/** The instruction type (last type modifier). */
function typeOf(c: FnLowerer): PtxType {
  const t = types(c);
  if (!t.length) c.fail('PTX_SEMANTIC', `${c.opText}: missing a type modifier (.u32, .f32 ...)`);
  return t[t.length - 1]!;
}
function has(c: FnLowerer, m: string): boolean {
  return c.ins.mods.includes(m);
}
/** Float rounding modifier (.rn/.rz/.rm/.rp) as Ori mods; `.rn` is the default and is left implicit. */
function frnd(c: FnLowerer): string[] {
  for (const m of c.ins.mods) {
    if (m === 'rz') return ['RZ'];
    if (m === 'rm') return ['RM'];
    if (m === 'rp') return ['RP'];
  }
  return [];
}
function ftzSat(c: FnLowerer, allowSat = true): string[] {
  const out: string[] = [];
  if (has(c, 'ftz')) out.push('FTZ');
  if (allowSat && has(c, 'sat')) out.push('SAT');
  return out;
}
/** Reject modifiers this lowering does not implement (so nothing is silently ignored). */
function refuse(c: FnLowerer, ...mods: string[]): void {
  for (const m of mods) if (has(c, m)) c.unsupported(`the .${m} modifier of ${c.ins.opcode}`);
}
function w(t: PtxType): 1 | 2 | 4 {
  return regShape(t).width;
}
function isF16(t: PtxType): boolean {
  return t.name === 'f16' || t.name === 'f16x2';
}

/** `d = op(...)` with a destination of type t: compute into the right width, then extend into d if wider. */
function withDst(c: FnLowerer, o: Operand, t: PtxType, f: (d: Register) => void): void {
  // c.out(o, t) without its result object and closure (this runs for most instructions)
  const d = c.dst(o);
  const w = regShape(t).width;
  if (d.cls === 'P' || d.width === w) {
    f(d);
    return;
  }
  const r = c.fn.newReg('R', w);
  f(r);
  c.assign(d, r, t);
}

// ---- integer arithmetic --------------------------------------------------------------------------
function addSub(sub: boolean): Handler {
  return (c: FnLowerer) => {
    c.expectOperands(3);
    const t = typeOf(c);
    if (t.kind === 'f') return floatAdd(c, t, sub);
    const cc = has(c, 'cc');
    const a = c.src(c.operand(1), t);
    let b = c.src(c.operand(2), t);
    if (has(c, 'sat')) {
      if (t.name !== 's32') c.unsupported(`${c.opText} (saturation is defined for .s32 only)`);
      // Exact in 64 bits, then clamp back to s32.
      const a64 = c.tmp(2, 'I2I', ['S64', 'S32'], [a]);
      const b64 = c.tmp(2, 'I2I', ['S64', 'S32'], [b]);
      const s = c.tmp(2, 'IADD3', [], [reg(a64), sub ? reg(b64, { neg: true }) : reg(b64), RZ]);
      withDst(c, c.operand(0), t, (d) => c.emit('I2I', ['S32', 'S64', 'SAT'], [reg(d)], [reg(s)]));
      return;
    }
    if (sub) {
      // a - b = a + ~b + 1 (the carry out of which is PTX's sub.cc "no borrow" flag).
      if (b.kind === 'imm') b = imm(BigInt.asIntN(t.bits > 32 ? 64 : 32, ~b.value), 'hex');
      else if (b.kind === 'reg') b = { ...b, not: !b.not };
      else b = reg(c.tmp(w(t), 'LOP3', ['LUT'], [b, RZ, RZ, imm(0x0f)]), { neg: false });
      withDst(c, c.operand(0), t, (d) => {
        c.emit('IADD3', [], cc ? [reg(d), reg(c.cc)] : [reg(d)], [a, b, imm(1)]);
      });
      return;
    }
    withDst(c, c.operand(0), t, (d) => c.emit('IADD3', [], cc ? [reg(d), reg(c.cc)] : [reg(d)], [a, b, RZ]));
  };
}
function addcSubc(sub: boolean): Handler {
  return (c: FnLowerer) => {
    c.expectOperands(3);
    const t = typeOf(c);
    const a = c.src(c.operand(1), t);
    let b = c.src(c.operand(2), t);
    if (sub) {
      if (b.kind === 'imm') b = imm(BigInt.asIntN(t.bits > 32 ? 64 : 32, ~b.value), 'hex');
      else if (b.kind === 'reg') b = { ...b, not: !b.not };
    }
    const cc = c.cc;
    withDst(c, c.operand(0), t, (d) => c.emit('IADD3', ['X'], has(c, 'cc') ? [reg(d), reg(cc)] : [reg(d)], [a, b, RZ, reg(cc)]));
  };
}

function floatAdd(c: FnLowerer, t: PtxType, sub: boolean): void {
  const a = c.src(c.operand(1), t);
  let b = c.src(c.operand(2), t);
  if (sub) b = negate(c, b, t);
  const op = t.bits === 64 ? 'DADD' : isF16(t) ? 'HADD2' : 'FADD';
  if (t.name.startsWith('bf16')) c.unsupported(`${c.opText} (bf16 arithmetic)`);
  const mods = [...frnd(c), ...(t.bits === 64 ? [] : ftzSat(c))];
  withDst(c, c.operand(0), t, (d) => c.emit(op, mods, [reg(d)], [a, b]));
}
function negate(c: FnLowerer, v: OriOperand, t: PtxType): OriOperand {
  if (v.kind === 'reg') return { ...v, neg: !v.neg };
  if (v.kind === 'imm') {
    const sign = t.bits === 64 ? 1n << 63n : t.bits === 16 ? 0x8000n : t.name.endsWith('x2') ? 0x80008000n : 0x80000000n;
    return imm(v.value ^ sign, v.fmt);
  }
  return reg(c.tmp(w(t), 'MOV', [], [v]), { neg: true });
}

const mul: Handler = (c: FnLowerer) => {
  c.expectOperands(3);
  const t = typeOf(c);
  if (t.kind === 'f') {
    const op = t.bits === 64 ? 'DMUL' : isF16(t) ? 'HMUL2' : 'FMUL';
    if (t.name.startsWith('bf16')) c.unsupported(`${c.opText} (bf16 arithmetic)`);
    const a = c.src(c.operand(1), t);
    const b = c.src(c.operand(2), t);
    withDst(c, c.operand(0), t, (d) => c.emit(op, [...frnd(c), ...(t.bits === 64 ? [] : ftzSat(c))], [reg(d)], [a, b]));
    return;
  }
  imad(c, t, undefined);
};

/** mul/mad .lo/.hi/.wide for integers; `addend` is the third source of mad. */
function imad(c: FnLowerer, t: PtxType, addend: Operand | undefined): void {
  const wide = has(c, 'wide');
  const hi = has(c, 'hi');
  refuse(c, 'sat');
  if (wide) {
    if (t.bits === 64) c.unsupported(`${c.opText} (128-bit products)`);
    if (t.bits === 16) {
      // 16x16 -> 32: exact in a 32-bit multiply of the extended inputs.
      const a = c.norm(c.operand(1), t);
      const b = c.norm(c.operand(2), t);
      const dt = t.kind === 's' ? S32 : U32;
      const cc = addend ? c.src(addend, dt) : RZ;
      withDst(c, c.operand(0), dt, (d) => c.emit('IMAD', [], [reg(d)], [a, b, cc]));
      return;
    }
    const a = c.src(c.operand(1), t);
    const b = c.src(c.operand(2), t);
    const dt = t.kind === 's' ? S64 : U64;
    const cc = addend ? c.src(addend, dt) : RZ;
    withDst(c, c.operand(0), dt, (d) => c.emit('IMAD', t.kind === 's' ? ['WIDE'] : ['WIDE', 'U32'], [reg(d)], [a, b, cc]));
    return;
  }
  if (hi) {
    if (t.bits === 16) {
      const a = c.norm(c.operand(1), t);
      const b = c.norm(c.operand(2), t);
      const p = c.tmp(1, 'IMAD', [], [a, b, RZ]);
      const h = c.tmp(1, 'SHR', [t.kind === 's' ? 'S32' : 'U32'], [reg(p), imm(16)]);
      const cc = addend ? c.src(addend, t) : RZ;
      withDst(c, c.operand(0), t, (d) => c.emit('IADD3', [], [reg(d)], [reg(h), cc, RZ]));
      return;
    }
    const a = c.src(c.operand(1), t);
    const b = c.src(c.operand(2), t);
    const cc = addend ? c.src(addend, t) : RZ;
    withDst(c, c.operand(0), t, (d) => c.emit('IMAD', ['HI', intMod(t)], carryDefs(c, d), carryUses(c, [a, b, cc])));
    return;
  }
  const a = c.src(c.operand(1), t);
  const b = c.src(c.operand(2), t);
  if (addend && (has(c, 'cc') || c.ins.opcode === 'madc')) {
    // mad.lo.cc / madc: product, then an add that produces/consumes the carry.
    const p = c.tmp(w(t), 'IMAD', [], [a, b, RZ]);
    const cc = c.src(addend, t);
    withDst(c, c.operand(0), t, (d) => c.emit('IADD3', c.ins.opcode === 'madc' ? ['X'] : [], carryDefs(c, d), c.ins.opcode === 'madc' ? [reg(p), cc, RZ, reg(c.cc)] : [reg(p), cc, RZ]));
    return;
  }
  const cc = addend ? c.src(addend, t) : RZ;
  withDst(c, c.operand(0), t, (d) => c.emit('IMAD', [], [reg(d)], [a, b, cc]));
}
function carryDefs(c: FnLowerer, d: Register): OriOperand[] {
  return has(c, 'cc') ? [reg(d), reg(c.cc)] : [reg(d)];
}
function carryUses(c: FnLowerer, uses: OriOperand[]): OriOperand[] {
  if (has(c, 'cc') || c.ins.opcode === 'madc') c.unsupported(`${c.opText} (carry with .hi)`);
  return uses;
}

const mad: Handler = (c: FnLowerer) => {
  c.expectOperands(4);
  const t = typeOf(c);
  if (t.kind === 'f') return fma(c);
  imad(c, t, c.operand(3));
};

const fma: Handler = (c: FnLowerer) => {
  c.expectOperands(4);
  const t = typeOf(c);
  if (t.name === 'bf16x2' || t.name === 'bf16') return bf16Fma(c, t);
  refuse(c, 'relu', 'oob');
  const op = t.bits === 64 ? 'DFMA' : isF16(t) ? 'HFMA2' : 'FFMA';
  const [a, b, d3] = [1, 2, 3].map((k) => c.src(c.operand(k), t)) as [OriOperand, OriOperand, OriOperand];
  withDst(c, c.operand(0), t, (d) => c.emit(op, [...frnd(c), ...(t.bits === 64 ? [] : ftzSat(c))], [reg(d)], [a, b, d3]));
};

/** bf16 fma through f32: widening bf16 -> f32 is exact (a 16-bit shift); one rounding back to bf16. */
function bf16Fma(c: FnLowerer, t: PtxType): void {
  refuse(c, 'relu', 'oob', 'sat', 'ftz');
  const ops = [1, 2, 3].map((k) => c.src(c.operand(k), B32));
  const lanes = (t.name === 'bf16' ? [0] : [0, 16]).map((sh) => {
    const [a, b, x] = ops.map((v) => reg(sh === 0 ? c.tmp(1, 'SHL', [], [v, imm(16)]) : c.tmp(1, 'LOP3', ['LUT'], [v, imm(0xffff0000n, 'hex'), RZ, imm(LUT_AND)])));
    const f = c.tmp(1, 'FFMA', [], [a!, b!, x!]);
    return c.tmp(1, 'F2F', ['BF16', 'F32'], [reg(f)]);
  });
  if (lanes.length === 1) return withDst(c, c.operand(0), B32, (d) => c.emit('MOV', [], [reg(d)], [reg(lanes[0]!)]));
  withDst(c, c.operand(0), B32, (d) => c.emit('PRMT', [], [reg(d)], [reg(lanes[0]!), imm(0x5410, 'hex'), reg(lanes[1]!)]));
}

function mul24(isMad: boolean): Handler {
  return (c: FnLowerer) => {
    c.expectOperands(isMad ? 4 : 3);
    const t = typeOf(c);
    const ext = t.kind === 's' ? 'S32' : 'U32';
    const a = c.tmp(1, 'BFE', [ext], [c.src(c.operand(1), t), imm(0), imm(24)]);
    const b = c.tmp(1, 'BFE', [ext], [c.src(c.operand(2), t), imm(0), imm(24)]);
    const add = isMad ? c.src(c.operand(3), t) : RZ;
    if (has(c, 'hi')) {
      // bits 16..47 of the 48-bit product
      const p = c.tmp(2, 'IMAD', ['WIDE', ...(t.kind === 's' ? [] : ['U32'])], [reg(a), reg(b), RZ]);
      const s = c.tmp(2, 'SHR', [t.kind === 's' ? 'S64' : 'U64'], [reg(p), imm(16)]);
      const lo = c.tmp(1, 'I2I', ['U32', 'U64'], [reg(s)]);
      withDst(c, c.operand(0), t, (d) => c.emit('IADD3', [], [reg(d)], [reg(lo), add, RZ]));
      return;
    }
    withDst(c, c.operand(0), t, (d) => c.emit('IMAD', [], [reg(d)], [reg(a), reg(b), add]));
  };
}

function divRem(rem: boolean): Handler {
  return (c: FnLowerer) => {
    c.expectOperands(3);
    const t = typeOf(c);
    if (t.kind === 'f') {
      if (rem) c.unsupported(`${c.opText}`);
      const a = c.src(c.operand(1), t);
      const b = c.src(c.operand(2), t);
      if (has(c, 'approx') && t.bits === 32) {
        // div.approx.f32 is a * rcp.approx(b) on the hardware.
        const r = c.tmp(1, 'MUFU', ['RCP', ...ftzSat(c, false)], [b]);
        withDst(c, c.operand(0), t, (d) => c.emit('FMUL', ftzSat(c, false), [reg(d)], [a, reg(r)]));
        return;
      }
      withDst(c, c.operand(0), t, (d) => c.emit('FDIV', [...frnd(c), ...(t.bits === 64 ? [] : ftzSat(c, false))], [reg(d)], [a, b]));
      return;
    }
    const a = c.norm(c.operand(1), t);
    const b = c.norm(c.operand(2), t);
    const mt = t.bits < 32 ? (t.kind === 's' ? S32 : U32) : t;
    withDst(c, c.operand(0), mt, (d) => c.emit(rem ? 'IREM' : 'IDIV', [intMod(mt)], [reg(d)], [a, b]));
  };
}

function minMax(isMin: boolean): Handler {
  return (c: FnLowerer) => {
    c.expectOperands(3);
    const t = typeOf(c);
    if (t.name === 'f16' || t.name === 'f16x2' || t.name === 'bf16' || t.name === 'bf16x2') return halfMinMax(c, t, isMin);
    refuse(c, 'xorsign', 'abs');
    if (has(c, 'NaN') && (t.name === 'f32' || t.name === 'f64')) {
      // min/max.NaN: a NaN input gives the canonical NaN (PTX ISA), else the ordinary min/max.
      const a = c.src(c.operand(1), t);
      const b = c.src(c.operand(2), t);
      const wide = t.bits === 64;
      const m = c.tmp(wide ? 2 : 1, wide ? 'DMNMX' : 'FMNMX', wide ? [] : ftzSat(c, false), [a, b, isMin ? PT : NOT_PT]);
      const nan = c.tmpP(wide ? 'DSETP' : 'FSETP', ['NAN', 'AND'], [a, b, PT]);
      const qnan = wide ? imm(0x7fffffffffffffffn, 'hex') : imm(0x7fffffffn, 'hex');
      withDst(c, c.operand(0), t, (d) => c.emit('SEL', [], [reg(d)], [qnan, reg(m), reg(nan)]));
      return;
    }
    if (has(c, 'NaN')) c.unsupported(`${c.opText} (.NaN on .${t.name})`);
    if (has(c, 'relu') && t.name !== 's32') c.unsupported(`${c.opText} (.relu on .${t.name})`);
    if (t.kind === 'f') {
      if (t.name !== 'f32' && t.name !== 'f64') c.unsupported(`${c.opText}`);
      const a = c.src(c.operand(1), t);
      const b = c.src(c.operand(2), t);
      withDst(c, c.operand(0), t, (d) => c.emit(t.bits === 64 ? 'DMNMX' : 'FMNMX', t.bits === 64 ? [] : ftzSat(c, false), [reg(d)], [a, b, isMin ? PT : NOT_PT]));
      return;
    }
    const a = c.norm(c.operand(1), t);
    const b = c.norm(c.operand(2), t);
    const mt = t.bits < 32 ? (t.kind === 's' ? S32 : U32) : t;
    if (has(c, 'relu')) {
      // .relu: negative results become 0 (max with 0 after the min/max).
      const m = c.tmp(1, 'IMNMX', [intMod(mt)], [a, b, isMin ? PT : NOT_PT]);
      withDst(c, c.operand(0), mt, (d) => c.emit('IMNMX', ['S32'], [reg(d)], [reg(m), RZ, NOT_PT]));
      return;
    }
    withDst(c, c.operand(0), mt, (d) => c.emit('IMNMX', [intMod(mt)], [reg(d)], [a, b, isMin ? PT : NOT_PT]));
  };
}

/**
 * min/max on f16, bf16 and their packed pairs (ptxas: HMNMX2 on sm_90), one lane at a time through f32: widening
 * is exact (F2F for f16, a 16-bit shift for bf16), FMNMX picks one of the two inputs (or gives the canonical NaN
 * when both are NaN, as the PTX ISA says), and narrowing that value back is exact too. `.NaN`: a NaN in either
 * input gives the canonical NaN 0x7fff. `.ftz` (f16 only) flushes subnormal inputs first: widened to f32 they are
 * normal numbers that FMNMX.FTZ would keep. `.xorsign.abs` (sm_86+): see below.
 */
function halfMinMax(c: FnLowerer, t: PtxType, isMin: boolean): void {
  refuse(c, 'relu');
  const bf = t.name.startsWith('bf');
  if (bf) refuse(c, 'ftz');
  const pair = t.name.endsWith('x2');
  const xorsign = has(c, 'xorsign');
  if (xorsign !== has(c, 'abs')) c.unsupported(`${c.opText} (.xorsign needs .abs)`);
  const [a0, b0] = [1, 2].map((k) => (bf ? c.src(c.operand(k), B32) : flushF16(c, c.src(c.operand(k), B32)))) as [OriOperand, OriOperand];
  // .xorsign.abs: min/max of the magnitudes; the result takes the XOR of the inputs' signs unless it is NaN
  // (PTX ISA: a NaN result ignores .xorsign.abs).
  const SIGNS = imm(0x80008000n, 'hex');
  const signs = xorsign ? c.tmp(1, 'LOP3', ['LUT'], [a0, b0, SIGNS, imm(LUT_XOR_AND)]) : undefined;
  const [a, b] = xorsign ? [a0, b0].map((v) => reg(c.tmp(1, 'LOP3', ['LUT'], [v, imm(0x7fff7fffn, 'hex'), RZ, imm(LUT_AND)]))) as [OriOperand, OriOperand] : [a0, b0];
  const widen = (v: OriOperand, hi: boolean): OriOperand => {
    if (bf) return reg(hi ? c.tmp(1, 'LOP3', ['LUT'], [v, imm(0xffff0000n, 'hex'), RZ, imm(LUT_AND)]) : c.tmp(1, 'SHL', [], [v, imm(16)]));
    return reg(c.tmp(1, 'F2F', ['F32', 'F16'], [hi ? reg(c.tmp(1, 'SHR', ['U32'], [v, imm(16)])) : v]));
  };
  const lanes = (pair ? [false, true] : [false]).map((hi) => {
    const x = widen(a, hi);
    const y = widen(b, hi);
    const m = c.tmp(1, 'FMNMX', [], [x, y, isMin ? PT : NOT_PT]);
    let h = bf ? c.tmp(1, 'SHR', ['U32'], [reg(m), imm(16)]) : c.tmp(1, 'F2F', ['F16', 'F32'], [reg(m)]);
    // NaN result: both inputs NaN (FMNMX gives NaN), or with .NaN either one
    const nan = has(c, 'NaN') ? c.tmpP('FSETP', ['NAN', 'AND'], [x, y, PT]) : xorsign ? c.tmpP('FSETP', ['NAN', 'AND'], [reg(m), reg(m), PT]) : undefined;
    if (has(c, 'NaN')) h = c.tmp(1, 'SEL', [], [imm(0x7fffn, 'hex'), reg(h), reg(nan!)]);
    if (!signs) return h;
    const sign = hi ? c.tmp(1, 'SHR', ['U32'], [reg(signs), imm(16)]) : c.tmp(1, 'LOP3', ['LUT'], [reg(signs), imm(0x8000n, 'hex'), RZ, imm(LUT_AND)]);
    const signed = c.tmp(1, 'LOP3', ['LUT'], [reg(h), reg(sign), RZ, imm(LUT_OR)]);
    return c.tmp(1, 'SEL', [], [reg(h), reg(signed), reg(nan!)]);
  });
  if (!pair) return withDst(c, c.operand(0), t, (d) => c.emit('MOV', [], [reg(d)], [reg(lanes[0]!)]));
  withDst(c, c.operand(0), B32, (d) => c.emit('PRMT', [], [reg(d)], [reg(lanes[0]!), imm(0x5410, 'hex'), reg(lanes[1]!)]));
}

const absH: Handler = (c: FnLowerer) => {
  c.expectOperands(2);
  const t = typeOf(c);
  if (t.kind === 'f') {
    const a = c.src(c.operand(1), t);
    if (has(c, 'ftz') && t.bits === 32) {
      withDst(c, c.operand(0), t, (d) => c.emit('FADD', ['FTZ'], [reg(d)], [absOf(c, a, t), imm(0x80000000n, 'f32')]));
      return;
    }
    const mask = t.bits === 64 ? 0x7fffffffffffffffn : t.bits === 16 ? 0x7fffn : t.name === 'f16x2' ? 0x7fff7fffn : 0x7fffffffn;
    withDst(c, c.operand(0), t, (d) => c.emit('LOP3', ['LUT'], [reg(d)], [a, imm(mask, 'hex'), RZ, imm(LUT_AND)]));
    return;
  }
  const a = c.norm(c.operand(1), t);
  withDst(c, c.operand(0), t, (d) => c.emit('IABS', [], [reg(d)], [a]));
};
function absOf(c: FnLowerer, v: OriOperand, t: PtxType): OriOperand {
  if (v.kind === 'reg') return { ...v, abs: true, neg: false };
  return reg(c.tmp(w(t), 'MOV', [], [v]), { abs: true });
}

const negH: Handler = (c: FnLowerer) => {
  c.expectOperands(2);
  const t = typeOf(c);
  if (t.kind === 'f') {
    const a = c.src(c.operand(1), t);
    if (has(c, 'ftz') && t.bits === 32) {
      withDst(c, c.operand(0), t, (d) => c.emit('FADD', ['FTZ'], [reg(d)], [negate(c, a, t), imm(0x80000000n, 'f32')]));
      return;
    }
    // Exact sign flip (PTX neg does not round).
    const mask = t.bits === 64 ? 0x8000000000000000n : t.bits === 16 ? 0x8000n : t.name === 'f16x2' ? 0x80008000n : 0x80000000n;
    withDst(c, c.operand(0), t, (d) => c.emit('LOP3', ['LUT'], [reg(d)], [a, imm(mask, 'hex'), RZ, imm(LUT_XOR)]));
    return;
  }
  const a = c.src(c.operand(1), t);
  withDst(c, c.operand(0), t, (d) => c.emit('IADD3', [], [reg(d)], [negate(c, a, t), RZ, RZ]));
};

// ---- compare and select --------------------------------------------------------------------------
const INT_CMP: Record<string, [string, boolean | undefined]> = {
  eq: ['EQ', undefined], ne: ['NE', undefined], lt: ['LT', undefined], le: ['LE', undefined], gt: ['GT', undefined], ge: ['GE', undefined],
  lo: ['LT', false], ls: ['LE', false], hi: ['GT', false], hs: ['GE', false],
};
const FLOAT_CMP = new Set(['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'equ', 'neu', 'ltu', 'leu', 'gtu', 'geu', 'num', 'nan']);
const BOOL_OPS: Record<string, string> = { and: 'AND', or: 'OR', xor: 'XOR' };

/**
 * With `.ftz`, an f16 compare operand flushes f16 subnormals first (`HADD2.FTZ x, -0` is x for every other
 * value): widened to f32 they would be normal numbers, which FSETP.FTZ does not flush.
 */
function flushF16(c: FnLowerer, v: OriOperand): OriOperand {
  if (!has(c, 'ftz')) return v;
  return reg(c.tmp(1, 'HADD2', ['FTZ'], [v, imm(0x80008000n, 'hex')]));
}

/** Emit a compare `p[, q] = (a cmp b) comb c` for the compare/type modifiers of the current instruction. */
function compare(c: FnLowerer, t: PtxType, a: Operand, b: Operand, defs: OriOperand[], comb: string, cIn: OriOperand): void {
  const cmpMod = c.ins.mods.find((m) => m in INT_CMP || FLOAT_CMP.has(m));
  if (!cmpMod) c.fail('PTX_SEMANTIC', `${c.opText}: missing a comparison (.eq, .lt, .gtu ...)`);
  if (t.kind === 'f') {
    if (!FLOAT_CMP.has(cmpMod)) c.fail('PTX_SEMANTIC', `${c.opText}: .${cmpMod} is not a float comparison`);
    let va = c.src(a, t);
    let vb = c.src(b, t);
    if (t.bits === 16) {
      if (t.name !== 'f16') c.unsupported(`${c.opText} on .${t.name}`);
      va = reg(c.tmp(1, 'F2F', ['F32', 'F16'], [flushF16(c, va)]));
      vb = reg(c.tmp(1, 'F2F', ['F32', 'F16'], [flushF16(c, vb)]));
    }
    c.emit(t.bits === 64 ? 'DSETP' : 'FSETP', [cmpMod.toUpperCase(), ...(has(c, 'ftz') && t.bits === 32 ? ['FTZ'] : []), comb], defs, [va, vb, cIn]);
    return;
  }
  const [cmp, signedOverride] = INT_CMP[cmpMod] ?? c.fail('PTX_SEMANTIC', `${c.opText}: .${cmpMod} is not an integer comparison`);
  const va = c.norm(a, t);
  const vb = c.norm(b, t);
  const signed = signedOverride ?? t.kind === 's';
  const ty = `${signed ? 'S' : 'U'}${t.bits > 32 ? 64 : 32}`;
  c.emit('ISETP', [cmp, ty, comb], defs, [va, vb, cIn]);
}

const setp: Handler = (c: FnLowerer) => {
  c.expectOperands(3, 4);
  const t = typeOf(c);
  if (t.name === 'f16x2' || t.name === 'bf16x2' || t.name === 'bf16') c.unsupported(`${c.opText}`);
  const dst = c.operand(0);
  const defs: OriOperand[] = dst.kind === 'pair'
    ? [reg(c.dst(dst.first)), dst.second.kind === 'sink' ? PT : reg(c.dst(dst.second))]
    : [reg(c.dst(dst))];
  const combMod = c.ins.mods.find((m) => m in BOOL_OPS);
  const comb = combMod ? BOOL_OPS[combMod]! : 'AND';
  const cIn = c.ins.operands.length === 4 ? c.pred(c.operand(3)) : PT;
  if (combMod && c.ins.operands.length !== 4) c.fail('PTX_SEMANTIC', `${c.opText}: .${combMod} needs a fourth predicate operand`);
  compare(c, t, c.operand(1), c.operand(2), defs, comb, cIn);
};

const set: Handler = (c: FnLowerer) => {
  c.expectOperands(3, 4);
  const [dt, st] = types(c);
  if (!dt || !st) c.fail('PTX_SEMANTIC', `${c.opText}: set needs a destination and a source type`);
  const combMod = c.ins.mods.find((m) => m in BOOL_OPS);
  const cIn = c.ins.operands.length === 4 ? c.pred(c.operand(3)) : PT;
  if (st.name === 'f16x2') return setF16x2(c, dt, combMod ? BOOL_OPS[combMod]! : 'AND', cIn);
  const p = c.fn.newReg('P', 1);
  compare(c, st, c.operand(1), c.operand(2), [reg(p)], combMod ? BOOL_OPS[combMod]! : 'AND', cIn);
  const one = dt.kind === 'f' ? (dt.bits === 16 ? imm(0x3c00, 'hex') : imm(0x3f800000n, 'f32')) : imm(-1);
  withDst(c, c.operand(0), dt, (d) => c.emit('SEL', [], [reg(d)], [one, RZ, reg(p)]));
};

/** set on .f16x2: each 16-bit lane compares in f32 (exact) and gets 0xffff / 1.0 (f16) or 0. */
function setF16x2(c: FnLowerer, dt: PtxType, comb: string, cIn: OriOperand): void {
  const cmp = c.ins.mods.find((m) => FLOAT_CMP.has(m))!;
  const a = c.src(c.operand(1), B32);
  const b = c.src(c.operand(2), B32);
  const lanes = [0, 16].map((sh) => {
    const [fa, fb] = [a, b].map((v) => reg(c.tmp(1, 'F2F', ['F32', 'F16'], [flushF16(c, reg(c.tmp(1, 'BFE', ['U32'], [v, imm(sh), imm(16)])))])));
    const p = c.tmpP('FSETP', [cmp.toUpperCase(), ...(has(c, 'ftz') ? ['FTZ'] : []), comb], [fa!, fb!, cIn]);
    return c.tmp(1, 'SEL', [], [dt.kind === 'f' ? imm(0x3c00, 'hex') : imm(0xffff, 'hex'), RZ, reg(p)]);
  });
  withDst(c, c.operand(0), B32, (d) => c.emit('PRMT', [], [reg(d)], [reg(lanes[0]!), imm(0x5410, 'hex'), reg(lanes[1]!)]));
}

const selp: Handler = (c: FnLowerer) => {
  c.expectOperands(4);
  const t = typeOf(c);
  const a = c.src(c.operand(1), t);
  const b = c.src(c.operand(2), t);
  const p = c.pred(c.operand(3));
  withDst(c, c.operand(0), t, (d) => c.emit('SEL', [], [reg(d)], [a, b, p]));
};

const slct: Handler = (c: FnLowerer) => {
  c.expectOperands(4);
  const [dt, ct] = types(c);
  if (!dt || !ct) c.fail('PTX_SEMANTIC', `${c.opText}: slct needs two types`);
  const a = c.src(c.operand(1), dt);
  const b = c.src(c.operand(2), dt);
  const p = c.fn.newReg('P', 1);
  if (ct.kind === 'f') c.emit('FSETP', ['GE', ...ftzSat(c, false), 'AND'], [reg(p)], [c.src(c.operand(3), ct), RZ, PT]);
  else c.emit('ISETP', ['GE', 'S32', 'AND'], [reg(p)], [c.src(c.operand(3), ct), RZ, PT]);
  withDst(c, c.operand(0), dt, (d) => c.emit('SEL', [], [reg(d)], [a, b, reg(p)]));
};

// ---- logic and bits ------------------------------------------------------------------------------
function logic(lut: number): Handler {
  return (c: FnLowerer) => {
    c.expectOperands(3);
    const t = typeOf(c);
    if (t.kind === 'pred') {
      const a = c.pred(c.operand(1));
      const b = c.pred(c.operand(2));
      c.emit('PLOP3', ['LUT'], [reg(c.dst(c.operand(0)))], [a, b, PT, imm(lut), imm(0)]);
      return;
    }
    const a = c.src(c.operand(1), t);
    const b = c.src(c.operand(2), t);
    withDst(c, c.operand(0), t, (d) => c.emit('LOP3', ['LUT'], [reg(d)], [a, b, RZ, imm(lut)]));
  };
}
const notH: Handler = (c: FnLowerer) => {
  c.expectOperands(2);
  const t = typeOf(c);
  if (t.kind === 'pred') {
    c.emit('PLOP3', ['LUT'], [reg(c.dst(c.operand(0)))], [c.pred(c.operand(1)), PT, PT, imm(0x0f), imm(0)]);
    return;
  }
  const a = c.src(c.operand(1), t);
  withDst(c, c.operand(0), t, (d) => c.emit('LOP3', ['LUT'], [reg(d)], [a, RZ, RZ, imm(0x0f)]));
};
const cnot: Handler = (c: FnLowerer) => {
  c.expectOperands(2);
  const t = typeOf(c);
  const p = c.fn.newReg('P', 1);
  c.emit('ISETP', ['EQ', intMod(t), 'AND'], [reg(p)], [c.norm(c.operand(1), t), RZ, PT]);
  withDst(c, c.operand(0), t, (d) => c.emit('SEL', [], [reg(d)], [imm(1), RZ, reg(p)]));
};
const lop3: Handler = (c: FnLowerer) => {
  c.expectOperands(5);
  const t = typeOf(c);
  const lut = c.operand(4);
  if (lut.kind !== 'int') c.fail('PTX_SEMANTIC', `${c.opText}: the LUT must be an immediate`);
  const [a, b, x] = [1, 2, 3].map((k) => c.src(c.operand(k), t)) as [OriOperand, OriOperand, OriOperand];
  withDst(c, c.operand(0), t, (d) => c.emit('LOP3', ['LUT'], [reg(d)], [a, b, x, imm(Number(lut.value) & 0xff)]));
};

const shl: Handler = (c: FnLowerer) => {
  c.expectOperands(3);
  const t = typeOf(c);
  const a = c.src(c.operand(1), t);
  const s = c.src(c.operand(2), U32);
  withDst(c, c.operand(0), t, (d) => c.emit('SHL', [], [reg(d)], [a, s]));
};
const shr: Handler = (c: FnLowerer) => {
  c.expectOperands(3);
  const t = typeOf(c);
  const a = c.norm(c.operand(1), t);
  const s = c.src(c.operand(2), U32);
  const mt = t.bits < 32 ? (t.kind === 's' ? S32 : U32) : t;
  withDst(c, c.operand(0), mt, (d) => c.emit('SHR', [intMod(mt)], [reg(d)], [a, s]));
};
/** PTX funnel shift with plain shifts (SHF's hi/lo conventions are left to the backend). */
const shf: Handler = (c: FnLowerer) => {
  c.expectOperands(4);
  const left = has(c, 'l');
  const wrap = has(c, 'wrap');
  if (!left && !has(c, 'r')) c.fail('PTX_SEMANTIC', `${c.opText}: expected .l or .r`);
  const a = c.src(c.operand(1), B32);
  const b = c.src(c.operand(2), B32);
  const n = wrap
    ? c.tmp(1, 'LOP3', ['LUT'], [c.src(c.operand(3), U32), imm(31), RZ, imm(LUT_AND)])
    : c.tmp(1, 'IMNMX', ['U32'], [c.src(c.operand(3), U32), imm(32), PT]);
  const inv = c.tmp(1, 'IADD3', [], [imm(32), reg(n, { neg: true }), RZ]);
  const [x, y] = left
    ? [c.tmp(1, 'SHL', [], [b, reg(n)]), c.tmp(1, 'SHR', ['U32'], [a, reg(inv)])]
    : [c.tmp(1, 'SHR', ['U32'], [a, reg(n)]), c.tmp(1, 'SHL', [], [b, reg(inv)])];
  withDst(c, c.operand(0), B32, (d) => c.emit('LOP3', ['LUT'], [reg(d)], [reg(x), reg(y), RZ, imm(LUT_OR)]));
};

const bfe: Handler = (c: FnLowerer) => {
  c.expectOperands(4);
  const t = typeOf(c);
  const [a, p, l] = [c.src(c.operand(1), t), c.src(c.operand(2), U32), c.src(c.operand(3), U32)];
  withDst(c, c.operand(0), t, (d) => c.emit('BFE', [intMod(t)], [reg(d)], [a, p, l]));
};
const bfi: Handler = (c: FnLowerer) => {
  c.expectOperands(5);
  const t = typeOf(c);
  const [a, b] = [c.src(c.operand(1), t), c.src(c.operand(2), t)];
  const [p, l] = [c.src(c.operand(3), U32), c.src(c.operand(4), U32)];
  withDst(c, c.operand(0), t, (d) => c.emit('BFI', [], [reg(d)], [a, b, p, l]));
};
const prmt: Handler = (c: FnLowerer) => {
  c.expectOperands(4);
  const mode = c.ins.mods.find((m) => ['f4e', 'b4e', 'rc8', 'ecl', 'ecr', 'rc16'].includes(m));
  const [a, b, s] = [c.src(c.operand(1), B32), c.src(c.operand(2), B32), c.src(c.operand(3), B32)];
  withDst(c, c.operand(0), B32, (d) => c.emit('PRMT', mode ? [mode.toUpperCase()] : [], [reg(d)], [a, s, b]));
};
/** Split a 64-bit operand into 32-bit halves. */
function halves(c: FnLowerer, v: OriOperand): [Register, Register] {
  const lo = c.tmp(1, 'I2I', ['U32', 'U64'], [v]);
  const sh = c.tmp(2, 'SHR', ['U64'], [v, imm(32)]);
  return [lo, c.tmp(1, 'I2I', ['U32', 'U64'], [reg(sh)])];
}
/** bmsk.{clamp,wrap}.b32 d, a, b: b one-bits starting at bit a. */
const bmsk: Handler = (c: FnLowerer) => {
  c.expectOperands(3);
  const wrap = has(c, 'wrap');
  const lim = (o: Operand): Register => wrap
    ? c.tmp(1, 'LOP3', ['LUT'], [c.src(o, U32), imm(31), RZ, imm(LUT_AND)])
    : c.tmp(1, 'IMNMX', ['U32'], [c.src(o, U32), imm(32), PT]);
  const start = lim(c.operand(1));
  const width = lim(c.operand(2));
  const ones = c.tmp(1, 'SHL', [], [imm(-1), reg(width)]);
  const low = c.tmp(1, 'LOP3', ['LUT'], [reg(ones), RZ, RZ, imm(0x0f)]);
  withDst(c, c.operand(0), B32, (d) => c.emit('SHL', [], [reg(d)], [reg(low), reg(start)]));
};

/**
 * Scalar video shifts `vshl/vshr.dtype.atype.u32.{clamp,wrap}[.add|.min|.max] d, a, b[, c]` on full 32-bit
 * operands (no byte/half selectors, no .sat): shift by b clamped to 32 or wrapped mod 32, then the secondary op.
 */
function videoShift(left: boolean): Handler {
  return (c: FnLowerer) => {
    const ts = types(c);
    if (ts.length !== 3 || ts.some((t) => t.bits !== 32) || has(c, 'sat')) c.unsupported(`instruction '${c.opText}'`);
    const [dt, at] = ts as [PtxType, PtxType, PtxType];
    const second = c.ins.mods.find((m) => m === 'add' || m === 'min' || m === 'max');
    c.expectOperands(second ? 4 : 3, 4);
    const a = c.src(c.operand(1), at);
    const b = c.src(c.operand(2), U32);
    const n = has(c, 'wrap')
      ? c.tmp(1, 'LOP3', ['LUT'], [b, imm(31), RZ, imm(LUT_AND)])
      : c.tmp(1, 'IMNMX', ['U32'], [b, imm(32), PT]);
    const sh = left ? c.tmp(1, 'SHL', [], [a, reg(n)]) : c.tmp(1, 'SHR', [at.kind === 's' ? 'S32' : 'U32'], [a, reg(n)]);
    if (!second) return withDst(c, c.operand(0), dt, (d) => c.emit('MOV', [], [reg(d)], [reg(sh)]));
    const x = c.src(c.operand(3), dt);
    if (second === 'add') return withDst(c, c.operand(0), dt, (d) => c.emit('IADD3', [], [reg(d)], [reg(sh), x, RZ]));
    withDst(c, c.operand(0), dt, (d) => c.emit('IMNMX', [intMod(dt)], [reg(d)], [reg(sh), x, second === 'min' ? PT : NOT_PT]));
  };
}

const popc: Handler = (c: FnLowerer) => {
  c.expectOperands(2);
  const t = typeOf(c);
  const a = c.src(c.operand(1), t);
  if (t.bits === 64) {
    const [lo, hi] = halves(c, a);
    const pl = c.tmp(1, 'POPC', [], [reg(lo)]);
    const ph = c.tmp(1, 'POPC', [], [reg(hi)]);
    withDst(c, c.operand(0), U32, (d) => c.emit('IADD3', [], [reg(d)], [reg(pl), reg(ph), RZ]));
    return;
  }
  withDst(c, c.operand(0), U32, (d) => c.emit('POPC', [], [reg(d)], [a]));
};
const clz: Handler = (c: FnLowerer) => {
  c.expectOperands(2);
  const t = typeOf(c);
  const a = c.src(c.operand(1), t);
  if (t.bits === 64) {
    // clz64 = hi != 0 ? clz(hi) : 32 + clz(lo); with FLO: 63 - index over the 64 bits.
    const [lo, hi] = halves(c, a);
    const fh = c.tmp(1, 'FLO', ['U32'], [reg(hi)]);
    const fl = c.tmp(1, 'FLO', ['U32'], [reg(lo)]);
    const p = c.tmpP('ISETP', ['NE', 'U32', 'AND'], [reg(hi), RZ, PT]);
    const ch = c.tmp(1, 'IADD3', [], [imm(31), reg(fh, { neg: true }), RZ]);
    const cl = c.tmp(1, 'IADD3', [], [imm(63), reg(fl, { neg: true }), RZ]);
    withDst(c, c.operand(0), U32, (d) => c.emit('SEL', [], [reg(d)], [reg(ch), reg(cl), reg(p)]));
    return;
  }
  // FLO gives the index of the highest one bit, 0xffffffff for 0: clz = 31 - index (32 for 0).
  const f = c.tmp(1, 'FLO', ['U32'], [a]);
  withDst(c, c.operand(0), U32, (d) => c.emit('IADD3', [], [reg(d)], [imm(31), reg(f, { neg: true }), RZ]));
};
const bfind: Handler = (c: FnLowerer) => {
  c.expectOperands(2);
  const t = typeOf(c);
  if (t.bits === 64) c.unsupported(`${c.opText} on 64-bit values`);
  const a = c.src(c.operand(1), t);
  withDst(c, c.operand(0), U32, (d) => c.emit('FLO', [t.kind === 's' ? 'S32' : 'U32', ...(has(c, 'shiftamt') ? ['SH'] : [])], [reg(d)], [a]));
};
const brev: Handler = (c: FnLowerer) => {
  c.expectOperands(2);
  const t = typeOf(c);
  const a = c.src(c.operand(1), t);
  withDst(c, c.operand(0), t, (d) => c.emit('BREV', [], [reg(d)], [a]));
};
const copysign: Handler = (c: FnLowerer) => {
  c.expectOperands(3);
  const t = typeOf(c);
  // d = b with the sign of a: per bit, mask ? a : b.
  const mask = t.bits === 64 ? 0x8000000000000000n : 0x80000000n;
  const a = c.src(c.operand(1), t);
  const b = c.src(c.operand(2), t);
  withDst(c, c.operand(0), t, (d) => c.emit('LOP3', ['LUT'], [reg(d)], [a, b, imm(mask, 'hex'), imm(lutOf((x, y, z) => (z ? x : y)))]));
};
function lutOf(f: (a: number, b: number, c: number) => number): number {
  let lut = 0;
  for (let i = 0; i < 8; i++) if (f((i >> 2) & 1, (i >> 1) & 1, i & 1)) lut |= 1 << i;
  return lut;
}
const sad: Handler = (c: FnLowerer) => {
  c.expectOperands(4);
  const t = typeOf(c);
  const a = c.norm(c.operand(1), t);
  const b = c.norm(c.operand(2), t);
  const mt = t.bits < 32 ? (t.kind === 's' ? S32 : U32) : t;
  const p = c.tmpP('ISETP', ['GT', intMod(mt), 'AND'], [a, b, PT]);
  const ab = c.tmp(w(mt), 'IADD3', [], [a, negate(c, b, mt), RZ]);
  const ba = c.tmp(w(mt), 'IADD3', [], [b, negate(c, a, mt), RZ]);
  const diff = c.tmp(w(mt), 'SEL', [], [reg(ab), reg(ba), reg(p)]);
  const add = c.src(c.operand(3), t);
  withDst(c, c.operand(0), t, (d) => c.emit('IADD3', [], [reg(d)], [reg(diff), add, RZ]));
};
function dp(four: boolean): Handler {
  return (c: FnLowerer) => {
    c.expectOperands(4);
    const [ta, tb] = types(c);
    if (!ta || !tb) c.fail('PTX_SEMANTIC', `${c.opText}: needs two source types`);
    const a = c.src(c.operand(1), ta);
    const b = c.src(c.operand(2), tb);
    let acc = c.src(c.operand(3), ta.kind === 's' || tb.kind === 's' ? S32 : U32);
    const hiHalf = has(c, 'hi');
    for (let k = 0; k < (four ? 4 : 2); k++) {
      // dp2a: a has two 16-bit halves, b contributes bytes 0-1 (.lo) or 2-3 (.hi)
      const ea = c.tmp(1, 'BFE', [ta.kind === 's' ? 'S32' : 'U32'], [a, imm(four ? 8 * k : 16 * k), imm(four ? 8 : 16)]);
      const eb = c.tmp(1, 'BFE', [tb.kind === 's' ? 'S32' : 'U32'], [b, imm(four ? 8 * k : 8 * k + (hiHalf ? 16 : 0)), imm(8)]);
      acc = reg(c.tmp(1, 'IMAD', [], [reg(ea), reg(eb), acc]));
    }
    withDst(c, c.operand(0), U32, (d) => c.emit('MOV', [], [reg(d)], [acc]));
  };
}

// ---- float specials ------------------------------------------------------------------------------
function mufu(fn: string): Handler {
  return (c: FnLowerer) => {
    c.expectOperands(2);
    const t = typeOf(c);
    const a = c.src(c.operand(1), t);
    if (t.bits === 64) {
      // No f64 MUFU in Ori: rcp/rsqrt/sqrt through the exact pseudo-ops.
      if (fn === 'RCP') return withDst(c, c.operand(0), t, (d) => c.emit('FDIV', frnd(c), [reg(d)], [imm(0x3ff0000000000000n, 'f64'), a]));
      if (fn === 'SQRT') return withDst(c, c.operand(0), t, (d) => c.emit('FSQRT', frnd(c), [reg(d)], [a]));
      if (fn === 'RSQ') {
        const s = c.tmp(2, 'FSQRT', [], [a]);
        return withDst(c, c.operand(0), t, (d) => c.emit('FDIV', [], [reg(d)], [imm(0x3ff0000000000000n, 'f64'), reg(s)]));
      }
      c.unsupported(`${c.opText}`);
    }
    if (t.bits === 16 || t.name.startsWith('bf16')) c.unsupported(`${c.opText} on .${t.name}`);
    const exact = !has(c, 'approx') && (fn === 'RCP' || fn === 'SQRT');
    if (exact) {
      if (fn === 'RCP') return withDst(c, c.operand(0), t, (d) => c.emit('FDIV', [...frnd(c), ...ftzSat(c, false)], [reg(d)], [imm(0x3f800000n, 'f32'), a]));
      return withDst(c, c.operand(0), t, (d) => c.emit('FSQRT', [...frnd(c), ...ftzSat(c, false)], [reg(d)], [a]));
    }
    withDst(c, c.operand(0), t, (d) => c.emit('MUFU', [fn, ...ftzSat(c, false)], [reg(d)], [a]));
  };
}

const testp: Handler = (c: FnLowerer) => {
  c.expectOperands(2);
  const t = typeOf(c);
  const a = c.src(c.operand(1), t);
  const d = c.dst(c.operand(0));
  const op = t.bits === 64 ? 'DSETP' : 'FSETP';
  const inf = t.bits === 64 ? imm(0x7ff0000000000000n, 'f64') : imm(0x7f800000n, 'f32');
  const minNorm = t.bits === 64 ? imm(0x0010000000000000n, 'f64') : imm(0x00800000n, 'f32');
  const abs = absOf(c, a, t);
  if (has(c, 'number')) c.emit(op, ['NUM', 'AND'], [reg(d)], [a, a, PT]);
  else if (has(c, 'notanumber')) c.emit(op, ['NAN', 'AND'], [reg(d)], [a, a, PT]);
  else if (has(c, 'finite')) c.emit(op, ['LT', 'AND'], [reg(d)], [abs, inf, PT]);
  else if (has(c, 'infinite')) c.emit(op, ['EQ', 'AND'], [reg(d)], [abs, inf, PT]);
  else if (has(c, 'normal')) {
    const p = c.tmpP(op, ['LT', 'AND'], [abs, inf, PT]);
    c.emit(op, ['GE', 'AND'], [reg(d)], [abs, minNorm, reg(p)]);
  } else if (has(c, 'subnormal')) {
    const p = c.tmpP(op, ['GT', 'AND'], [abs, t.bits === 64 ? imm(0n, 'f64') : imm(0n, 'f32'), PT]);
    c.emit(op, ['LT', 'AND'], [reg(d)], [abs, minNorm, reg(p)]);
  } else c.fail('PTX_SEMANTIC', `${c.opText}: expected .finite, .infinite, .number, .notanumber, .normal or .subnormal`);
};

// ---- conversions ---------------------------------------------------------------------------------
const IRND: Record<string, string> = { rni: 'RN', rzi: 'TRUNC', rmi: 'FLOOR', rpi: 'CEIL' };
const FP8 = /^(e4m3|e5m2|e2m1|e2m3|e3m2|ue8m0)(x2)?$/;
const cvt: Handler = (c: FnLowerer) => {
  const fp8 = c.ins.mods.find((m) => FP8.test(m) || m === 'tf32');
  if (fp8 === 'e4m3x2' || fp8 === 'e5m2x2') return cvtFp8x2(c, fp8.slice(0, 4).toUpperCase(), fp8);
  if (fp8 === 'tf32') return lowerCvtTf32(c);
  if (fp8) c.unsupported(`${c.opText} (.${fp8} conversions)`);
  const ts = types(c);
  if (has(c, 'pack')) return cvtPack(c, ts);
  if (ts.length === 2 && (ts[0]!.name === 'f16x2' || ts[0]!.name === 'bf16x2') && ts[1]!.name === 'f32') {
    // cvt.rn[.relu].f16x2.f32 d, a, b: d = {cvt(a) in the upper half, cvt(b) in the lower half}
    refuse(c, 'satfinite', 'rs');
    c.expectOperands(3);
    const h = ts[0]!.name === 'f16x2' ? 'F16' : 'BF16';
    const half = (k: number): Register => {
      const x = c.src(c.operand(k), F32);
      const r = c.tmp(1, 'F2F', [h, 'F32', ...frnd(c)], [x]);
      if (!has(c, 'relu')) return r;
      // .relu: negative results become +0 (NaN stays NaN)
      const neg = c.tmpP('FSETP', ['LT', 'AND'], [x, imm(0n, 'f32'), PT]);
      return c.tmp(1, 'SEL', [], [RZ, reg(r), reg(neg)]);
    };
    const hi = half(1);
    const lo = half(2);
    withDst(c, c.operand(0), B32, (d) => c.emit('PRMT', [], [reg(d)], [reg(lo), imm(0x5410, 'hex'), reg(hi)]));
    return;
  }
  c.expectOperands(2);
  if (ts.length !== 2) c.fail('PTX_SEMANTIC', `${c.opText}: cvt needs a destination and a source type`);
  const [dt, st] = ts as [PtxType, PtxType];
  if (dt.name.endsWith('x2') || st.name.endsWith('x2') || dt.name === 'tf32' || dt.bits === 128 || st.bits === 128) c.unsupported(`${c.opText}`);
  const a = c.src(c.operand(1), st);
  const irnd = c.ins.mods.find((m) => m in IRND);
  const sat = has(c, 'sat') ? ['SAT'] : [];
  const ftz = has(c, 'ftz') ? ['FTZ'] : [];
  const dstOp = c.operand(0);
  if (dt.kind !== 'f' && st.kind !== 'f') {
    const dBits = dt.bits <= 32 ? 32 : 64;
    const sBits = st.bits <= 32 ? 32 : 64;
    if (dt.bits === st.bits && !sat.length) return withDst(c, dstOp, dt, (d) => c.emit('MOV', [], [reg(d)], [a]));
    if (dBits === sBits && dt.bits >= st.bits && dt.kind === st.kind && !sat.length && st.bits === 32) {
      return withDst(c, dstOp, dt, (d) => c.emit('MOV', [], [reg(d)], [a]));
    }
    return withDst(c, dstOp, dt, (d) => c.emit('I2I', [convMod(dt), convMod(st), ...sat], [reg(d)], [a]));
  }
  if (dt.kind === 'f' && st.kind !== 'f') {
    const src = st.bits < 32 ? c.norm(c.operand(1), st) : a;
    const sMod = st.bits < 32 ? (st.kind === 's' ? 'S32' : 'U32') : convMod(st);
    return withDst(c, dstOp, dt, (d) => c.emit('I2F', [convMod(dt), sMod, ...frnd(c), ...ftz, ...sat], [reg(d)], [src]));
  }
  if (dt.kind !== 'f' && st.kind === 'f') {
    const mode = irnd ? IRND[irnd]! : 'TRUNC';
    return withDst(c, dstOp, dt, (d) => c.emit('F2I', [convMod(dt), convMod(st), mode, ...ftz], [reg(d)], [a]));
  }
  if (dt.name === st.name) {
    if (irnd) return withDst(c, dstOp, dt, (d) => c.emit('FRND', [IRND[irnd]!, ...ftz, ...sat], [reg(d)], [a]));
    if (!ftz.length && !sat.length) return withDst(c, dstOp, dt, (d) => c.emit('MOV', [], [reg(d)], [a]));
  }
  if (irnd) {
    // round to integral in the source type, then convert (exact for integral values)
    const r = c.tmp(w(st), 'FRND', [IRND[irnd]!, ...ftz], [a]);
    return withDst(c, dstOp, dt, (d) => c.emit('F2F', [convMod(dt), convMod(st), ...ftz, ...sat], [reg(d)], [reg(r)]));
  }
  withDst(c, dstOp, dt, (d) => c.emit('F2F', [convMod(dt), convMod(st), ...frnd(c), ...ftz, ...sat], [reg(d)], [a]));
};

/**
 * fp8 pairs (docs/ori-semantics.md, "F2F with fp8 types"): one F2F per value, packed / unpacked with PRMT.
 * - `cvt.rn.satfinite{.relu}.e4m3x2.f32 d, a, b`: d.b16 = {fp8(a) in the upper byte, fp8(b) in the lower}.
 * - `cvt.rn.satfinite{.relu}.e4m3x2.f16x2 d, a`: the same from the two halves of a (upper half -> upper byte).
 * - `cvt.rn{.relu}.f16x2.e4m3x2 d, a`: d = {f16(a.byte1) in the upper half, f16(a.byte0) in the lower} (exact).
 * `.relu` turns negative results into +0 (NaN stays NaN) by a select on the source's sign.
 */
function cvtFp8x2(c: FnLowerer, f8: string, f8mod: string): void {
  refuse(c, 'rz', 'rm', 'rp', 'rs');
  const mods = c.ins.mods;
  const other = mods.find((m) => m === 'f32' || m === 'f16x2');
  if (!other) c.unsupported(`${c.opText}`);
  const toFp8 = mods.indexOf(f8mod) < mods.indexOf(other); // the destination type comes first
  const relu = has(c, 'relu');
  /** Negative and not NaN (FSETP.LT is ordered), for .relu. */
  const negative = (x32: OriOperand): Register => c.tmpP('FSETP', ['LT', 'AND'], [x32, imm(0n, 'f32'), PT]);
  if (!toFp8) {
    if (other !== 'f16x2') c.unsupported(`${c.opText}`);
    c.expectOperands(2);
    const a = c.src(c.operand(1), B32);
    const half = (shift: number): Register => {
      const byte = shift ? reg(c.tmp(1, 'SHR', ['U32'], [a, imm(shift)])) : a;
      const h = c.tmp(1, 'F2F', ['F16', f8], [byte]);
      if (!relu) return h;
      return c.tmp(1, 'SEL', [], [RZ, reg(h), reg(negative(reg(c.tmp(1, 'F2F', ['F32', 'F16'], [reg(h)]))))]);
    };
    const lo = half(0);
    const hi = half(8);
    withDst(c, c.operand(0), B32, (d) => c.emit('PRMT', [], [reg(d)], [reg(lo), imm(0x5410, 'hex'), reg(hi)]));
    return;
  }
  const sat = has(c, 'satfinite') ? ['SATFINITE'] : [];
  const fromF32 = other === 'f32';
  c.expectOperands(fromF32 ? 3 : 2);
  const packed = fromF32 ? undefined : c.src(c.operand(1), B32);
  /** k = 1: the upper byte (a, or the upper f16 half of a); k = 2: the lower byte (b, or the lower half). */
  const byte = (k: number): Register => {
    const x = fromF32 ? c.src(c.operand(k), F32) : k === 1 ? reg(c.tmp(1, 'SHR', ['U32'], [packed!, imm(16)])) : packed!;
    const r = c.tmp(1, 'F2F', [f8, fromF32 ? 'F32' : 'F16', ...sat], [x]);
    if (!relu) return r;
    return c.tmp(1, 'SEL', [], [RZ, reg(r), reg(negative(fromF32 ? x : reg(c.tmp(1, 'F2F', ['F32', 'F16'], [x]))))]);
  };
  const hi = byte(1);
  const lo = byte(2);
  // byte 0 = lo.byte0, byte 1 = hi.byte0, bytes 2..3 = lo.byte1 (0: F2F zero-extends the fp8 byte).
  withDst(c, c.operand(0), B32, (d) => c.emit('PRMT', [], [reg(d)], [reg(lo), imm(0x1140, 'hex'), reg(hi)]));
}

/** cvt.pack.sat.{u8,s8}.s32.b32 d, a, b, c: d = {c[15:0], sat8(a), sat8(b)} (byte 0 = b). */
function cvtPack(c: FnLowerer, ts: readonly PtxType[]): void {
  const [dt, st] = ts;
  if (!dt || !st || (dt.name !== 'u8' && dt.name !== 's8') || c.ins.operands.length !== 4) c.unsupported(`${c.opText}`);
  const sat = (k: number): Register => c.tmp(1, 'I2I', [convMod(dt), convMod(st), 'SAT'], [c.src(c.operand(k), st)]);
  const sa = sat(1);
  const sb = sat(2);
  const t = c.tmp(1, 'PRMT', [], [reg(sb), imm(0x0040, 'hex'), reg(sa)]);
  const cc = c.src(c.operand(3), B32);
  withDst(c, c.operand(0), B32, (d) => c.emit('PRMT', [], [reg(d)], [reg(t), imm(0x5410, 'hex'), cc]));
}

const cvta: Handler = (c: FnLowerer) => {
  c.expectOperands(2);
  const t = typeOf(c);
  const toGeneric = !has(c, 'to');
  const space = c.ins.mods.find((m) => ['global', 'shared', 'local', 'const', 'param'].includes(m) || m.startsWith('shared::'));
  if (!space) c.fail('PTX_SEMANTIC', `${c.opText}: expected a state space (.global, .shared, .local, .const)`);
  const sp = space.startsWith('shared') ? 'shared' : space;
  const a = c.src(c.operand(1), t);
  if (sp === 'global' || sp === 'const') return withDst(c, c.operand(0), t, (d) => c.emit('MOV', [], [reg(d)], [a]));
  if (sp === 'param') c.unsupported(`${c.opText} (generic addresses of parameters)`);
  // generic = window base + offset (ori-semantics.md, Memory)
  const win = c.tmp(2, 'S2R', [], [{ kind: 'sreg', name: sp === 'shared' ? 'SR_SWINBASE' : 'SR_LWINBASE' }]);
  if (toGeneric) {
    const off = a.kind === 'reg' && a.reg.width === 1 ? reg(c.fit(a.reg, U64)) : a;
    return withDst(c, c.operand(0), U64, (d) => c.emit('IADD3', [], [reg(d)], [reg(win), off, RZ]));
  }
  const g = a.kind === 'reg' && a.reg.width === 1 ? reg(c.fit(a.reg, U64)) : a;
  const diff = c.tmp(2, 'IADD3', [], [g, reg(win, { neg: true }), RZ]);
  withDst(c, c.operand(0), U64, (d) => c.emit('MOV', [], [reg(d)], [reg(diff)]));
};

// ---- moves ---------------------------------------------------------------------------------------
const mov: Handler = (c: FnLowerer) => {
  c.expectOperands(2);
  const t = typeOf(c);
  const dst = c.operand(0);
  const src = c.operand(1);
  if (t.kind === 'pred') {
    c.emit('PLOP3', ['LUT'], [reg(c.dst(dst))], [c.pred(src), PT, PT, imm(0xf0), imm(0)]);
    return;
  }
  if (has(c, 'v2') || has(c, 'v4') || has(c, 'v8')) return movVector(c, t);
  if (dst.kind === 'vec') return unpack(c, t, dst.elems, c.src(src, t));
  if (src.kind === 'vec') return pack(c, t, dst, src.elems);
  if (dst.kind === 'name' && dst.comp === undefined && c.lookup(dst.name)?.kind === 'reg') {
    const s = c.lookup(dst.name) as { kind: 'reg'; vec: number; regs: Register[] };
    if (s.vec !== 0) {
      // mov.b32 v, x into a vector register (`.reg .v2 .b16 v`): x split into its components.
      const comps: Operand[] = s.regs.map((_, k) => ({ kind: 'name', name: dst.name, comp: 'xyzw'[k]! }));
      return unpack(c, t, comps, c.src(src, t));
    }
  }
  if (src.kind === 'name' && src.comp === undefined && c.lookup(src.name)?.kind === 'reg') {
    const s = c.lookup(src.name) as { kind: 'reg'; vec: number; regs: Register[] };
    if (s.vec !== 0) return pack(c, t, dst, [], s.regs);
  }
  if (src.kind === 'name' && c.lookup(src.name)?.kind === 'func') return lowerFunctionAddress(c, dst, src.name, t, (d, v) => withDst(c, dst, t, (r) => c.emit('MOV', [], [reg(r)], [v])));
  if (src.kind === 'name' && !c.lookup(src.name) && isSpecialRegister(src.comp !== undefined ? `${src.name}.${src.comp}` : src.name)) {
    // Read the special register straight into the destination.
    const d = c.dst(dst);
    const r = c.special(src.comp !== undefined ? `${src.name}.${src.comp}` : src.name, t, d);
    if (r !== d) c.assign(d, r, t);
    return;
  }
  const v = c.src(src, t);
  withDst(c, dst, t, (d) => c.emit('MOV', [], [reg(d)], [v]));
};
function movVector(c: FnLowerer, t: PtxType): void {
  const dst = c.operand(0);
  const src = c.operand(1);
  const ds = vecRegs(c, dst);
  const ss = src.kind === 'vec' ? src.elems.map((e) => c.src(e, t)) : vecRegs(c, src).map((r) => reg(r));
  if (ds.length !== ss.length) c.fail('PTX_SEMANTIC', `${c.opText}: vector sizes differ`);
  // Read every source before writing (mov.v2 a, {a.y, a.x} swaps).
  const tmps = ss.map((s) => c.tmp(w(t), 'MOV', [], [s]));
  ds.forEach((d, k) => c.emit('MOV', [], [reg(d)], [reg(tmps[k]!)]));
}
function vecRegs(c: FnLowerer, o: Operand): Register[] {
  if (o.kind === 'vec') return o.elems.map((e) => c.dst(e));
  if (o.kind === 'name') {
    const s = c.lookup(o.name);
    if (s?.kind === 'reg' && s.vec) return s.regs;
  }
  c.fail('PTX_SEMANTIC', `${c.opText}: expected a vector operand, found '${c.describe(o)}'`);
}
/** `mov.b64 d, {lo, hi}` / `mov.b32 d, {h0, h1}`: little-endian concatenation of the elements. */
function pack(c: FnLowerer, t: PtxType, dst: Operand, elems: Operand[], regs?: Register[]): void {
  const n = regs ? regs.length : elems.length;
  const eb = t.bits / n;
  const parts: OriOperand[] = regs ? regs.map((r) => reg(r)) : elems.map((e) => c.src(e, { name: `b${eb}`, bits: eb, kind: 'b' }));
  if (t.bits === 32 && n === 2) {
    return withDst(c, dst, t, (d) => c.emit('PRMT', [], [reg(d)], [parts[0]!, imm(0x5410, 'hex'), parts[1]!]));
  }
  if (t.bits === 32 && n === 4) {
    const lo = c.tmp(1, 'PRMT', [], [parts[0]!, imm(0x0040, 'hex'), parts[1]!]);
    const hi = c.tmp(1, 'PRMT', [], [parts[2]!, imm(0x0040, 'hex'), parts[3]!]);
    return withDst(c, dst, t, (d) => c.emit('PRMT', [], [reg(d)], [reg(lo), imm(0x5410, 'hex'), reg(hi)]));
  }
  if (t.bits === 64 && n === 2) {
    const lo = c.tmp(2, 'I2I', ['U64', 'U32'], [parts[0]!]);
    const hi = c.tmp(2, 'I2I', ['U64', 'U32'], [parts[1]!]);
    const sh = c.tmp(2, 'SHL', [], [reg(hi), imm(32)]);
    return withDst(c, dst, t, (d) => c.emit('LOP3', ['LUT'], [reg(d)], [reg(sh), reg(lo), RZ, imm(LUT_OR)]));
  }
  if (t.bits === 64 && n === 4) {
    const lo = c.tmp(1, 'PRMT', [], [parts[0]!, imm(0x5410, 'hex'), parts[1]!]);
    const hi = c.tmp(1, 'PRMT', [], [parts[2]!, imm(0x5410, 'hex'), parts[3]!]);
    const lo64 = c.tmp(2, 'I2I', ['U64', 'U32'], [reg(lo)]);
    const hi64 = c.tmp(2, 'I2I', ['U64', 'U32'], [reg(hi)]);
    const sh = c.tmp(2, 'SHL', [], [reg(hi64), imm(32)]);
    return withDst(c, dst, t, (d) => c.emit('LOP3', ['LUT'], [reg(d)], [reg(sh), reg(lo64), RZ, imm(LUT_OR)]));
  }
  c.unsupported(`${c.opText} packing ${n} elements`);
}
function unpack(c: FnLowerer, t: PtxType, elems: Operand[], v: OriOperand): void {
  const n = elems.length;
  const eb = t.bits / n;
  elems.forEach((e, k) => {
    if (e.kind === 'sink') return;
    const d = c.dst(e);
    if (t.bits === 64) {
      const sh = k * eb === 0 ? v : reg(c.tmp(2, 'SHR', ['U64'], [v, imm(k * eb)]));
      if (eb === 32) c.emit('I2I', ['U32', 'U64'], [reg(d)], [sh]);
      else c.emit('BFE', ['U32'], [reg(d)], [reg(c.tmp(1, 'I2I', ['U32', 'U64'], [sh])), imm(0), imm(eb)]);
    } else if (t.bits === 32) {
      c.emit('BFE', ['U32'], [reg(d)], [v, imm(k * eb), imm(eb)]);
    } else c.unsupported(`${c.opText} unpacking`);
  });
}

// ---- memory --------------------------------------------------------------------------------------
const SPACES = ['global', 'shared', 'local', 'const', 'param'];
function spaceOf(c: FnLowerer): string {
  for (const m of c.ins.mods) {
    if (SPACES.includes(m)) return m;
    if (m.startsWith('shared::')) {
      if (m !== 'shared::cta') c.unsupported(`.${m}`);
      return 'shared';
    }
    if (m.startsWith('param::')) return 'param';
  }
  return '';
}
function vecWidth(c: FnLowerer): number {
  for (const m of c.ins.mods) if (m === 'v2' || m === 'v4' || m === 'v8') return Number(m.slice(1));
  return 0;
}
function sizeMod(t: PtxType, load: boolean): string {
  if (t.bits === 8) return load && t.kind === 's' ? 'S8' : 'U8';
  if (t.bits === 16) return load && t.kind === 's' ? 'S16' : 'U16';
  return String(t.bits);
}
const LD_OP: Record<string, [string, string]> = { global: ['LDG', 'STG'], shared: ['LDS', 'STS'], local: ['LDL', 'STL'], '': ['LD', 'ST'], const: ['LDG', 'STG'] };
function orderingMods(c: FnLowerer, space: string): string[] {
  const out: string[] = space === 'global' || space === '' || space === 'const' ? ['E'] : [];
  if (has(c, 'nc') || space === 'const') out.push('CONSTANT');
  if (has(c, 'volatile')) out.push('STRONG', 'SYS');
  else if (has(c, 'relaxed') || has(c, 'acquire') || has(c, 'release')) out.push('STRONG', has(c, 'cta') ? 'CTA' : has(c, 'sys') ? 'SYS' : 'GPU');
  return out;
}

/**
 * The fences ptxas 13 puts around an access with a memory order (sm_90 output of ld.acquire / st.release /
 * atom/red .acquire/.release/.acq_rel): a release side is preceded by `MEMBAR.ALL` of the access's scope, an
 * acquire side at GPU or system scope is followed by an L1 invalidation (`CCTL.IVALL`), so that the weak loads after
 * it cannot hit lines cached before it. The interpreter runs memory sequentially consistent, so these change no
 * result there; they are what makes the orders hold on the GPU.
 */
function releaseFence(c: FnLowerer): void {
  if (has(c, 'release') || has(c, 'acq_rel')) c.emit('MEMBAR', [has(c, 'cta') ? 'CTA' : has(c, 'sys') ? 'SYS' : 'GPU', 'ALL'], [], []);
}
function acquireFence(c: FnLowerer): void {
  if ((has(c, 'acquire') || has(c, 'acq_rel')) && !has(c, 'cta')) c.emit('CCTL', ['IVALL'], [], []);
}

/** Destinations of a load / sources of a store, one per element (vector operands or vector registers). */
function elements(c: FnLowerer, o: Operand, n: number): Operand[] {
  if (n === 0) {
    if (o.kind === 'vec' && o.elems.length === 1) return o.elems; // Triton: ld.global.b32 { %r1 }, [...]
    if (o.kind === 'name' && o.comp === undefined) {
      const s = c.lookup(o.name);
      if (s?.kind === 'reg' && s.vec) return s.regs.map((_, k) => ({ kind: 'name', name: o.name, comp: 'xyzw'[k]! }));
    }
    return [o];
  }
  if (o.kind === 'vec') {
    if (o.elems.length !== n) c.fail('PTX_SEMANTIC', `${c.opText}: expected a vector of ${n} elements, found ${o.elems.length}`);
    return o.elems;
  }
  if (o.kind === 'name') {
    const s = c.lookup(o.name);
    if (s?.kind === 'reg' && s.vec === n) return s.regs.map((_, k) => ({ kind: 'name', name: o.name, comp: 'xyzw'[k]! }));
  }
  c.fail('PTX_SEMANTIC', `${c.opText}: expected a vector of ${n} elements, found '${c.describe(o)}'`);
}

const ld: Handler = (c: FnLowerer) => {
  c.expectOperands(2, 3);
  if (c.ins.operands.length === 3) c.unsupported(`${c.opText} with a cache-policy operand`);
  const t = typeOf(c);
  const space = spaceOf(c);
  const n = vecWidth(c);
  const dsts = elements(c, c.operand(0), n);
  if (space === 'param') return ldParam(c, t, dsts);
  const [op] = LD_OP[space]!;
  const size = byteSize(t);
  const base = c.address(c.operand(1), space === 'const' ? 'global' : space);
  const mods = [...orderingMods(c, space), sizeMod(t, true)];
  dsts.forEach((e, k) => {
    if (e.kind === 'sink') return;
    const a = { ...base, offset: base.offset + k * size };
    withDst(c, e, t, (d) => c.emit(op, mods, [reg(d)], [a]));
  });
  acquireFence(c);
};
const st: Handler = (c: FnLowerer) => {
  c.expectOperands(2, 3);
  if (c.ins.operands.length === 3) c.unsupported(`${c.opText} with a cache-policy operand`);
  const t = typeOf(c);
  const space = spaceOf(c);
  const n = vecWidth(c);
  const srcs = elements(c, c.operand(1), n);
  if (space === 'param') return stParam(c, t, srcs);
  if (space === 'const') c.fail('PTX_SEMANTIC', `${c.opText}: .const memory is read-only`);
  const [, op] = LD_OP[space]!;
  const size = byteSize(t);
  const vals = srcs.map((s) => c.src(s, t));
  const base = c.address(c.operand(0), space);
  const mods = [...orderingMods(c, space), sizeMod(t, false)];
  releaseFence(c);
  vals.forEach((v, k) => c.emit(op, mods, [], [{ ...base, offset: base.offset + k * size }, v]));
};

/** The `.param` symbol and byte offset named by `[name+off]`. */
function paramSlot(c: FnLowerer, o: Operand): { sym: NonNullable<ReturnType<FnLowerer['lookup']>>; off: number; name: string } {
  if (o.kind !== 'addr' || o.base === undefined) c.fail('PTX_SEMANTIC', `${c.opText}: expected [param+offset], found '${c.describe(o)}'`);
  const s = c.lookup(o.base);
  if (!s) c.fail('PTX_SEMANTIC', `${c.opText}: '${o.base}' is not declared`);
  return { sym: s, off: Number(o.offset), name: o.base };
}
function ldParam(c: FnLowerer, t: PtxType, dsts: Operand[]): void {
  const { sym, off, name } = paramSlot(c, c.operand(1));
  if (sym.kind === 'reg') {
    // [reg+off] with a kernel-parameter address (see FnLowerer.src): indexed constant-bank load.
    if (c.fn.kind !== 'entry') c.unsupported(`${c.opText} through a register address in a .func`);
    const idx = c.fit(c.regOf({ kind: 'name', name }), U32);
    const size = byteSize(t);
    dsts.forEach((e, k) => {
      if (e.kind === 'sink') return;
      withDst(c, e, t, (d) => c.emit('LDC', [sizeMod(t, true)], [reg(d)], [{ kind: 'cbank', bank: 0, offset: off + k * size, index: idx }]));
    });
    return;
  }
  const size = byteSize(t);
  dsts.forEach((e, k) => {
    if (e.kind === 'sink') return;
    const o = off + k * size;
    if (sym.kind === 'kparam') {
      // Kernel parameters are constant-bank loads at paramBase + offset (ori-semantics.md, Memory).
      const cb = { kind: 'cbank' as const, bank: 0, offset: c.mod.paramBase + sym.offset + o };
      if (t.bits < 32) withDst(c, e, t, (d) => c.emit('LDC', [sizeMod(t, true)], [reg(d)], [cb]));
      else withDst(c, e, t, (d) => c.emit('MOV', [], [reg(d)], [cb]));
      return;
    }
    if (sym.kind !== 'pvar') c.fail('PTX_SEMANTIC', `${c.opText}: '${name}' is not a parameter`);
    const r = pvarRead(c, sym, o, t, name);
    withDst(c, e, t, (d) => c.emit(d.cls === 'P' ? 'COPY' : 'MOV', [], [reg(d)], [reg(r)]));
  });
}
function stParam(c: FnLowerer, t: PtxType, srcs: Operand[]): void {
  const { sym, off, name } = paramSlot(c, c.operand(0));
  if (sym.kind !== 'pvar') c.fail('PTX_SEMANTIC', `${c.opText}: cannot store to '${name}'`);
  const size = byteSize(t);
  srcs.forEach((s, k) => pvarWrite(c, sym, off + k * size, t, c.src(s, t), name));
}
type PVar = Extract<NonNullable<ReturnType<FnLowerer['lookup']>>, { kind: 'pvar' }>;
function pvarRead(c: FnLowerer, p: PVar, off: number, t: PtxType, name: string): Register {
  if (!p.aggregate) {
    if (off !== 0) c.unsupported(`${c.opText} at offset ${off} of scalar parameter '${name}'`);
    const r = p.regs[0]!;
    return r.cls === 'R' && r.width !== w(t) ? c.fit(r, t) : r;
  }
  if (t.bits < 32 && Math.floor(off / 4) === Math.floor((off + t.bits / 8 - 1) / 4)) {
    // A byte or half-word inside one 32-bit word of the aggregate.
    return c.tmp(1, 'BFE', [t.kind === 's' ? 'S32' : 'U32'], [reg(wordOf(c, p, Math.floor(off / 4), name)), imm((off % 4) * 8), imm(t.bits)]);
  }
  if (off % 4 !== 0 || (t.bits !== 32 && t.bits !== 64)) c.unsupported(`${c.opText}: ${t.bits}-bit access at offset ${off} of aggregate parameter '${name}'`);
  const k = off / 4;
  if (t.bits === 32) return wordOf(c, p, k, name);
  const lo = c.tmp(2, 'I2I', ['U64', 'U32'], [reg(wordOf(c, p, k, name))]);
  const hi = c.tmp(2, 'I2I', ['U64', 'U32'], [reg(wordOf(c, p, k + 1, name))]);
  const sh = c.tmp(2, 'SHL', [], [reg(hi), imm(32)]);
  return c.tmp(2, 'LOP3', ['LUT'], [reg(sh), reg(lo), RZ, imm(LUT_OR)]);
}
function wordOf(c: FnLowerer, p: PVar, k: number, name: string): Register {
  const r = p.regs[k];
  if (!r) c.fail('PTX_SEMANTIC', `${c.opText}: offset ${k * 4} is outside parameter '${name}'`);
  return r;
}
function pvarWrite(c: FnLowerer, p: PVar, off: number, t: PtxType, v: OriOperand, name: string): void {
  if (!p.aggregate) {
    if (off !== 0) c.unsupported(`${c.opText} at offset ${off} of scalar parameter '${name}'`);
    const d = p.regs[0]!;
    if (d.cls === 'P') return void c.emit('COPY', [], [reg(d)], [v]);
    if (v.kind === 'reg' && v.reg.width !== d.width) return c.assign(d, v.reg, t);
    c.emit('MOV', [], [reg(d)], [v]);
    return;
  }
  if (t.bits < 32 && Math.floor(off / 4) === Math.floor((off + t.bits / 8 - 1) / 4)) {
    // Insert the byte / half-word into its word (the other bytes keep their values).
    const word = wordOf(c, p, Math.floor(off / 4), name);
    return void c.emit('BFI', [], [reg(word)], [v, reg(word), imm((off % 4) * 8), imm(t.bits)]);
  }
  if (off % 4 !== 0 || (t.bits !== 32 && t.bits !== 64)) c.unsupported(`${c.opText}: ${t.bits}-bit access at offset ${off} of aggregate parameter '${name}'`);
  const k = off / 4;
  if (t.bits === 32) return void c.emit('MOV', [], [reg(wordOf(c, p, k, name))], [v]);
  const [lo, hi] = halves(c, v);
  c.emit('MOV', [], [reg(wordOf(c, p, k, name))], [reg(lo)]);
  c.emit('MOV', [], [reg(wordOf(c, p, k + 1, name))], [reg(hi)]);
}

/**
 * cp.async copies synchronously (a load and a store per 4 bytes; bytes past src-size are zero), so
 * commit_group / wait_group / wait_all have nothing left to wait for.
 */
const cp: Handler = (c: FnLowerer) => {
  if (!has(c, 'async')) c.unsupported(`instruction '${c.opText}'`);
  if (lowerAsyncCopy(c)) return;
  if (has(c, 'commit_group') || has(c, 'wait_group') || has(c, 'wait_all')) return void c.emit('NOP', [], [], []);
  if (!has(c, 'shared') || !has(c, 'global') || c.ins.mods.some((m) => m.startsWith('bulk') || m.startsWith('mbarrier'))) c.unsupported(`instruction '${c.opText}'`);
  c.expectOperands(3, 4);
  const size = c.operand(2);
  const srcSize = c.ins.operands[3] ?? size;
  if (size.kind !== 'int') c.unsupported(`${c.opText} with a register copy size`);
  const dst = c.address(c.operand(0), 'shared');
  const src = c.address(c.operand(1), 'global');
  if (srcSize.kind !== 'int') {
    // Register src-size (Triton masking): word k is loaded only when 4k < src-size, else it is zero.
    const n = c.src(srcSize, U32);
    for (let k = 0; k < Number(size.value); k += 4) {
      // The guard of the PTX instruction is folded into p, which is written on every path.
      const p = c.fn.newReg('P', 1);
      c.emit('ISETP', ['LT', 'U32', 'AND'], [reg(p)], [imm(k), n, c.guard ? reg(c.guard.reg, { not: c.guard.not }) : PT], { noGuard: true });
      const v = c.tmp(1, 'MOV', [], [RZ]);
      c.emit('LDG', ['E', '32'], [reg(v)], [{ ...src, offset: src.offset + k }], { noGuard: true }).setGuard({ reg: p, not: false });
      c.emit('STS', ['32'], [], [{ ...dst, offset: dst.offset + k }, reg(v)]);
    }
    return;
  }
  for (let k = 0; k < Number(size.value); k += 4) {
    const v = k < Number(srcSize.value) ? reg(c.tmp(1, 'LDG', ['E', '32'], [{ ...src, offset: src.offset + k }])) : RZ;
    c.emit('STS', ['32'], [], [{ ...dst, offset: dst.offset + k }, v]);
  }
};

const ATOM_OPS: Record<string, string> = { add: 'ADD', min: 'MIN', max: 'MAX', inc: 'INC', dec: 'DEC', and: 'AND', or: 'OR', xor: 'XOR', exch: 'EXCH', cas: 'CAS' };
function atomType(c: FnLowerer, t: PtxType): string {
  if (t.kind === 'f') {
    if (t.name !== 'f32' && t.name !== 'f64') c.unsupported(`${c.opText} on .${t.name}`);
    return `F${t.bits}`;
  }
  if (t.bits !== 32 && t.bits !== 64) c.unsupported(`${c.opText} on .${t.name}`);
  return `${t.kind === 's' ? 'S' : 'U'}${t.bits}`;
}
function atomic(isRed: boolean): Handler {
  return (c: FnLowerer) => {
    const t = typeOf(c);
    const opMod = c.ins.mods.find((m) => m in ATOM_OPS);
    if (!opMod) c.fail('PTX_SEMANTIC', `${c.opText}: expected an operation (.add, .cas, .exch ...)`);
    if (c.ins.mods.some((m) => m.startsWith('v') && /^v\d$/.test(m))) c.unsupported(`vector ${c.ins.opcode}`);
    const space = spaceOf(c);
    const op = space === 'shared' ? 'ATOMS' : space === '' ? 'ATOM' : 'ATOMG';
    const mods = [ATOM_OPS[opMod]!, atomType(c, t)];
    // the scope of global/generic atomics (.gpu is the default): code generation writes it (STRONG.SM / .SYS)
    if (op !== 'ATOMS' && has(c, 'cta')) mods.push('CTA');
    else if (op !== 'ATOMS' && has(c, 'sys')) mods.push('SYS');
    if (isRed) {
      c.expectOperands(2);
      const a = c.address(c.operand(0), space);
      const v = c.src(c.operand(1), t);
      releaseFence(c);
      if (op === 'ATOMG') c.emit('RED', mods, [], [a, v]);
      else c.emit(op, mods, [RZ], [a, v]);
      acquireFence(c);
      return;
    }
    const cas = opMod === 'cas';
    c.expectOperands(cas ? 4 : 3);
    const a = c.address(c.operand(1), space);
    const vals = (cas ? [2, 3] : [2]).map((k) => c.src(c.operand(k), t));
    releaseFence(c);
    withDst(c, c.operand(0), t, (d) => c.emit(op, mods, [reg(d)], [a, ...vals]));
    acquireFence(c);
  };
}

// ---- control flow --------------------------------------------------------------------------------
const bra: Handler = (c: FnLowerer) => {
  c.expectOperands(1);
  c.emit('BRA', has(c, 'uni') ? ['U'] : [], [], [c.labelOperand(c.operand(0))]);
};
const brx: Handler = (c: FnLowerer) => {
  c.expectOperands(2);
  const idx = c.src(c.operand(0), U32);
  const tl = c.operand(1);
  const s = tl.kind === 'name' ? c.lookup(tl.name) : undefined;
  if (!s || s.kind !== 'targets') c.fail('PTX_SEMANTIC', `${c.opText}: expected a .branchtargets list, found '${c.describe(tl)}'`);
  const blocks = s.labels.map((l) => {
    const o = c.labelOperand({ kind: 'name', name: l });
    return (o as { block: import('@ptxforge/kernel').Block }).block;
  });
  c.emit('BRX', [], [], [idx, { kind: 'labels', blocks }]);
};
const exit: Handler = (c: FnLowerer) => {
  c.expectOperands(0);
  c.emit('EXIT', [], [], []);
};
const ret: Handler = (c: FnLowerer) => {
  c.expectOperands(0);
  c.emitReturn();
};
const trap: Handler = (c: FnLowerer) => {
  c.emit('KILL', [], [], []);
};
const nop: Handler = (c: FnLowerer) => {
  c.emit('NOP', [], [], []);
};

const call: Handler = (c: FnLowerer) => {
  const ops = c.ins.operands;
  let k = 0;
  let rets: Operand[] = [];
  if (ops[0]?.kind === 'list') {
    rets = ops[0].elems;
    k = 1;
  }
  const target = ops[k];
  if (!target || target.kind !== 'name') c.fail('PTX_SEMANTIC', `${c.opText}: expected a function name`);
  const fsym = c.lookup(target.name);
  const args = ops[k + 1]?.kind === 'list' ? (ops[k + 1] as { elems: Operand[] }).elems : [];
  if (fsym?.kind === 'reg') return lowerIndirectCall(c, rets, target, args, ops[k + 2], directCall);
  if (fsym?.kind !== 'func') c.fail('PTX_SEMANTIC', `${c.opText}: '${target.name}' is not a function`);
  if (ops.length > k + 2) c.unsupported(`${c.opText} with a prototype or target list`);
  directCall(c, target.name, rets, args);
};
/** `call (rets), f, (args)` of a known function `f`: the Ori CALL @f with the argument and result registers. */
function directCall(c: FnLowerer, name: string, rets: Operand[], args: Operand[]): void {
  const target = { name };
  const callee = c.mod.funcs.get(name)!;
  if (args.length !== callee.params.length) c.fail('PTX_SEMANTIC', `${c.opText}: ${target.name} takes ${callee.params.length} arguments, found ${args.length}`);
  if (rets.length !== callee.returns.length) c.fail('PTX_SEMANTIC', `${c.opText}: ${target.name} returns ${callee.returns.length} values, found ${rets.length}`);
  args.forEach((a, i) => checkCallArgument(c, a, callee.params[i]!));
  rets.forEach((r, i) => checkCallArgument(c, r, callee.returns[i]!));
  const uses: OriOperand[] = [{ kind: 'sym', name: target.name }];
  // Predicates cross the call as 0/1 in R registers (see lowerFunction).
  args.forEach((a, i) => {
    for (const v of callValues(c, a, callee.params[i]!.type)) {
      uses.push(v.kind === 'reg' && v.reg.cls === 'P' ? reg(c.tmp(1, 'SEL', [], [imm(1), RZ, v])) : v);
    }
  });
  const defs: OriOperand[] = [];
  const after: Array<[Register, Register]> = [];
  rets.forEach((r, i) => {
    for (const o of callValues(c, r, callee.returns[i]?.type ?? B32)) {
      if (o.kind !== 'reg') c.fail('PTX_SEMANTIC', `${c.opText}: return value must be a register or .param`);
      if (o.reg.cls === 'P') {
        const t = c.fn.newReg('R', 1);
        after.push([o.reg, t]);
        defs.push(reg(t));
      } else defs.push(o);
    }
  });
  c.emit('CALL', [], defs, uses);
  for (const [p, t] of after) c.emit('ISETP', ['NE', 'U32', 'AND'], [reg(p)], [reg(t), RZ, PT]);
}
/**
 * An argument (or result) of a call against its formal parameter, as ptxas 13.0.88 checks it: a `.param`
 * variable has the formal's size, is an array exactly when the formal is, and an array has its alignment;
 * a register has the formal's size, a predicate only for a predicate, a float not for an integer formal.
 * Wording of ptxas ("Type of argument does not match formal parameter 'a'").
 */
function checkCallArgument(c: FnLowerer, o: Operand, f: FormalParam): void {
  if (o.kind !== 'name' || o.comp !== undefined) return;
  const s = c.lookup(o.name);
  const type = (why: string): never => c.fail('PTX_SEMANTIC', `Type of argument does not match formal parameter '${f.name}' ('${o.name}': ${why})`);
  if (s?.kind === 'pvar' && s.bytes !== undefined) {
    if (s.aggregate !== f.aggregate) type(f.aggregate ? `a scalar for an array of ${f.bytes} bytes` : `an array for a scalar .${f.type.name}`);
    if (s.bytes !== f.bytes) type(`${s.bytes} bytes, the parameter ${f.bytes}`);
    if (f.aggregate && s.align !== f.align) c.fail('PTX_SEMANTIC', `Alignment of argument does not match formal parameter '${f.name}' ('${o.name}': .align ${s.align}, the parameter .align ${f.align})`);
    return;
  }
  if (s?.kind !== 'reg' || s.vec || f.aggregate || f.vec) return;
  const r = s.type;
  if ((r.kind === 'pred') !== (f.type.kind === 'pred')) type(`a .${r.name} register for a .${f.type.name} parameter`);
  if (r.kind !== 'pred' && byteSize(r) !== f.bytes) type(`a .${r.name} register for a .${f.type.name} parameter`);
  if (r.kind === 'f' && (f.type.kind === 'u' || f.type.kind === 's')) type(`a .${r.name} register for a .${f.type.name} parameter`);
}

/** The registers carrying one call argument / result: a `.param` variable's registers or a `.reg` value. */
function callValues(c: FnLowerer, o: Operand, t: PtxType): OriOperand[] {
  if (o.kind === 'name' && o.comp === undefined) {
    const s = c.lookup(o.name);
    if (s?.kind === 'pvar') return s.regs.map((r) => reg(r));
    if (s?.kind === 'reg') return s.regs.map((r) => reg(r));
  }
  return [c.src(o, t)];
}

// ---- synchronization and warp-level ------------------------------------------------------------
const bar: Handler = (c: FnLowerer) => {
  const ops = c.ins.operands;
  if (has(c, 'warp')) {
    c.expectOperands(1);
    c.emit('WARPSYNC', [], [], [c.src(c.operand(0), B32)]);
    return;
  }
  if (c.ins.mods.some((m) => m === 'cluster')) c.unsupported(`${c.opText}`);
  if (has(c, 'red')) {
    const op = c.ins.mods.find((m) => m === 'popc' || m === 'and' || m === 'or');
    if (!op) c.fail('PTX_SEMANTIC', `${c.opText}: expected .popc, .and or .or`);
    c.expectOperands(3, 4);
    const id = c.src(c.operand(1), U32);
    const cnt = ops.length === 4 ? [c.src(c.operand(2), U32)] : [];
    const p = c.pred(c.operand(ops.length - 1));
    const d0 = c.operand(0);
    const d = c.dst(d0);
    if (d.cls === 'P') {
      const r = c.tmp(1, 'BAR', ['RED', op.toUpperCase()], [id, ...cnt, p]);
      c.emit('ISETP', ['NE', 'U32', 'AND'], [reg(d)], [reg(r), RZ, PT]);
    } else c.emit('BAR', ['RED', op.toUpperCase()], [reg(d)], [id, ...cnt, p]);
    return;
  }
  const arrive = has(c, 'arrive');
  c.expectOperands(arrive ? 2 : 0, 2);
  const id = ops.length ? c.src(c.operand(0), U32) : imm(0);
  const cnt = ops.length > 1 ? [c.src(c.operand(1), U32)] : [];
  c.emit('BAR', [arrive ? 'ARV' : 'SYNC'], [], [id, ...cnt]);
};
const membar: Handler = (c: FnLowerer) => {
  const scope = has(c, 'cta') ? 'CTA' : has(c, 'sys') ? 'SYS' : 'GPU';
  c.emit('MEMBAR', [scope], [], []);
};
const fence: Handler = (c: FnLowerer) => {
  // the async proxy (cp.async.bulk, mbarrier complete-tx) and mbarrier-init fences: nothing to order in the
  // interpreter; code generation gives ptxas's forms (mbarrier.ts's family)
  if (has(c, 'proxy') && has(c, 'async')) {
    const space = has(c, 'shared::cta') || has(c, 'shared::cluster') ? ['SHARED'] : has(c, 'global') ? ['GLOBAL'] : [];
    return void c.emit('FENCE', ['PROXY', 'ASYNC', ...space], [], []);
  }
  if (has(c, 'mbarrier_init')) return void c.emit('FENCE', ['MBARRIER_INIT'], [], []);
  if (c.ins.mods.some((m) => m.startsWith('proxy') || m === 'cluster' || m.startsWith('mbarrier'))) {
    c.emit('FENCE', [], [], []);
    return;
  }
  membar(c);
};
const SHFL_MODES: Record<string, string> = { idx: 'IDX', up: 'UP', down: 'DOWN', bfly: 'BFLY' };
const shfl: Handler = (c: FnLowerer) => {
  const mode = c.ins.mods.find((m) => m in SHFL_MODES);
  if (!mode) c.fail('PTX_SEMANTIC', `${c.opText}: expected .idx, .up, .down or .bfly`);
  const sync = has(c, 'sync');
  c.expectOperands(sync ? 5 : 4);
  const d0 = c.operand(0);
  const defs: OriOperand[] = d0.kind === 'pair' ? [reg(c.dst(d0.first)), d0.second.kind === 'sink' ? PT : reg(c.dst(d0.second))] : [reg(c.dst(d0))];
  const uses = [1, 2, 3].map((k) => c.src(c.operand(k), B32));
  if (sync) uses.push(c.src(c.operand(4), B32));
  c.emit('SHFL', [SHFL_MODES[mode]!], defs, uses);
};
const vote: Handler = (c: FnLowerer) => {
  const sync = has(c, 'sync');
  c.expectOperands(sync ? 3 : 2);
  const mask = sync ? [c.src(c.operand(2), B32)] : [];
  const p = c.pred(c.operand(1));
  const d = c.dst(c.operand(0));
  if (has(c, 'ballot')) return void c.emit('VOTE', ['ANY'], [reg(d)], [p, ...mask]);
  const mode = has(c, 'all') ? 'ALL' : has(c, 'any') ? 'ANY' : has(c, 'uni') ? 'EQ' : c.fail('PTX_SEMANTIC', `${c.opText}: expected .all, .any, .uni or .ballot`);
  c.emit('VOTE', [mode], [RZ, reg(d)], [p, ...mask]);
};
const activemask: Handler = (c: FnLowerer) => {
  c.expectOperands(1);
  c.emit('VOTE', ['ANY'], [reg(c.dst(c.operand(0)))], [PT]);
};
const match: Handler = (c: FnLowerer) => {
  c.expectOperands(3);
  const t = typeOf(c);
  const mode = has(c, 'all') ? 'ALL' : 'ANY';
  const d0 = c.operand(0);
  const defs: OriOperand[] = d0.kind === 'pair' ? [reg(c.dst(d0.first)), reg(c.dst(d0.second))] : [reg(c.dst(d0))];
  c.emit('MATCH', [mode], defs, [c.src(c.operand(1), t), c.src(c.operand(2), B32)]);
};
const REDUX_OPS: Record<string, string> = { add: 'SUM', min: 'MIN', max: 'MAX', and: 'AND', or: 'OR', xor: 'XOR' };
const redux: Handler = (c: FnLowerer) => {
  c.expectOperands(3);
  const t = typeOf(c);
  const op = c.ins.mods.find((m) => m in REDUX_OPS);
  if (!op) c.fail('PTX_SEMANTIC', `${c.opText}: expected .add, .min, .max, .and, .or or .xor`);
  if (t.kind === 'f') c.unsupported(`${c.opText} on floats`);
  const mods = [REDUX_OPS[op]!, ...(t.kind === 's' ? ['S32'] : t.kind === 'u' ? ['U32'] : [])];
  c.emit('REDUX', mods, [reg(c.dst(c.operand(0)))], [c.src(c.operand(1), t), c.src(c.operand(2), B32)]);
};
// griddepcontrol (sm_90, programmatic dependent launch): .wait orders this grid after its prerequisite grids'
// memory, .launch_dependents lets dependent grids start early. A single launch has no other grid: for the
// interpreter both are fences with nothing to wait for; code generation gives ptxas's ACQBULK / PREEXIT.
const griddepcontrol: Handler = (c: FnLowerer) => {
  c.expectOperands(0);
  const what = has(c, 'wait') ? 'WAIT' : has(c, 'launch_dependents') ? 'LAUNCH_DEPENDENTS' : c.fail('PTX_SEMANTIC', `${c.opText}: expected .wait or .launch_dependents`);
  c.emit('FENCE', ['GRIDDEP', what], [], []);
};
const createpolicy: Handler = (c: FnLowerer) => {
  // Cache policies are hints the interpreter ignores; the policy value itself is opaque.
  c.emit('MOV', [], [reg(c.dst(c.operand(0)))], [imm(0)]);
};

export const HANDLERS: Readonly<Record<string, Handler>> = {
  add: addSub(false), sub: addSub(true), addc: addcSubc(false), subc: addcSubc(true),
  mul, mad, madc: mad, fma, mul24: mul24(false), mad24: mul24(true),
  div: divRem(false), rem: divRem(true), min: minMax(true), max: minMax(false), abs: absH, neg: negH,
  setp, set, selp, slct,
  and: logic(LUT_AND), or: logic(LUT_OR), xor: logic(LUT_XOR), not: notH, cnot, lop3,
  shl, shr, shf, bfe, bfi, prmt, popc, clz, bfind, brev, copysign, sad, dp4a: dp(true), dp2a: dp(false),
  rcp: mufu('RCP'), sqrt: mufu('SQRT'), rsqrt: mufu('RSQ'), sin: mufu('SIN'), cos: mufu('COS'), ex2: mufu('EX2'), lg2: mufu('LG2'), tanh: mufu('TANH'),
  testp, cvt, cvta, mov,
  vshl: videoShift(true), vshr: videoShift(false),
  ld, ldu: ld, st, cp, bmsk, atom: atomic(false), red: atomic(true),
  bra, brx, exit, ret, trap, call,
  bar, barrier: bar, membar, fence, shfl, vote, activemask, match, redux,
  nanosleep: nop, prefetch: nop, prefetchu: nop, pmevent: nop, createpolicy, griddepcontrol,
  mma: lowerMma, ldmatrix: lowerLdmatrix, wmma: lowerWmma,
  ...TEXTURE_HANDLERS,
  ...VIDEO_HANDLERS,
  ...MBARRIER_HANDLERS,
};

export { PRED };
