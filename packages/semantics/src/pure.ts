/**
 * `evaluatePure`: the meaning of every side-effect-free ALU instruction of Ori as a function from operand
 * values to def values. The interpreter executes these (its fast paths are cross-checked against them) and
 * the optimizer's constant folding calls the same function, so folding can never disagree with execution.
 *
 * Values: data operands are unsigned bit patterns (bigint) of the operand's width; predicates are booleans.
 * Immediates may be passed as negative bigints: they are sign-extended / wrapped to the width they are read at.
 */
import type { Instr, Operand } from '@ptxforge/kernel';
import { BF16, F16, F32, F64, s, u, type FloatFormat } from './bits.js';
import { fp8Type, fromFp8, toFp8 } from './fp8.js';
import { f2f, f2fpPack, f2i, floatType, i2f, i2i, intToReg, intType, type IntType } from './convert.js';
import {
  decode, fadd, fcmpBits, fdiv, ffma, fminmax, fmul, frnd, fsqrt, mufu,
  type FloatCmp, type FloatOpts, type FrndMode, type MufuFn,
} from './float.js';
import {
  bfe, bfi, brev, combine, flo, iabs, iadd3, icmp, idiv, imad, imadWide, imnmx, imulHi, irem, lea, leaHi,
  lop3, plop3, popc, prmt, shf, shl, shr, type BoolComb, type IntCmp,
} from './int.js';
import type { RoundMode } from './round.js';

export type PureValue = bigint | boolean;

export interface OperandMods {
  readonly neg?: boolean;
  readonly abs?: boolean;
  readonly not?: boolean;
}

/** What evaluatePure needs to know about an instruction (an Ori `Instr` has all of it; see describeInstr). */
export interface PureInstr {
  readonly opcode: string;
  readonly mods: readonly string[];
  /** Width in bits of each def: 1 for a predicate, 32 / 64 / 128 for data registers. */
  readonly defWidths: readonly number[];
  /** Width in bits of each use when it is a register (1 for predicates); undefined for immediates, RZ, c-bank. */
  readonly useWidths?: readonly (number | undefined)[];
  /** Operand modifiers of each use (`-x`, `|x|`, `!p` / `~x`). */
  readonly useMods?: readonly (OperandMods | undefined)[];
}

/** Opcodes evaluatePure knows (all pure: no memory, no thread identity, no control flow). */
export const PURE_OPCODES: ReadonlySet<string> = new Set([
  'IADD3', 'IMAD', 'IMUL', 'IMNMX', 'IABS', 'ISETP', 'ISCADD', 'LEA', 'SHF', 'SHL', 'SHR', 'IDIV', 'IREM',
  'POPC', 'FLO', 'BREV', 'BFE', 'BFI', 'PRMT', 'LOP3', 'LOP', 'PLOP3', 'SEL', 'FSEL', 'MOV', 'UMOV', 'COPY',
  'MOVPHI', 'R2UR', 'FADD', 'FMUL', 'FFMA', 'DADD', 'DMUL', 'DFMA', 'HADD2', 'HMUL2', 'HFMA2', 'FMNMX',
  'DMNMX', 'FSETP', 'DSETP', 'FSET', 'MUFU', 'FDIV', 'FSQRT', 'FRND', 'F2F', 'F2I', 'I2F', 'I2I', 'F2FP', 'FCHK',
]);

const ROUND_MODES: readonly RoundMode[] = ['RN', 'RZ', 'RM', 'RP'];
const INT_CMPS = new Set(['EQ', 'NE', 'LT', 'LE', 'GT', 'GE']);
const FLOAT_CMPS = new Set(['EQ', 'NE', 'LT', 'LE', 'GT', 'GE', 'EQU', 'NEU', 'LTU', 'LEU', 'GTU', 'GEU', 'NUM', 'NAN']);
const COMBS = new Set(['AND', 'OR', 'XOR']);

type Kind = 'i' | 'f32' | 'f64' | 'h2' | 'p';

class Inputs {
  constructor(
    private readonly instr: PureInstr,
    private readonly values: readonly PureValue[],
  ) {}
  get length(): number {
    return this.values.length;
  }
  has(i: number): boolean {
    return i < this.values.length;
  }
  width(i: number): number | undefined {
    return this.instr.useWidths?.[i];
  }
  /** A data operand read at `w` bits, with its modifiers applied as an operand of the given kind. */
  data(i: number, w: number, kind: Kind = 'i'): bigint {
    const raw = this.values[i];
    if (raw === undefined) throw new MissingOperand();
    let v = u(typeof raw === 'boolean' ? (raw ? 1n : 0n) : raw, w);
    const m = this.instr.useMods?.[i];
    if (!m) return v;
    if (kind === 'i') {
      if (m.abs) v = iabs(v, w);
      if (m.neg) v = u(-v, w);
      if (m.not) v = u(~v, w);
    } else {
      const signs = kind === 'h2' ? 0x80008000n : 1n << BigInt(w - 1);
      if (m.abs) v &= ~signs;
      if (m.neg) v ^= signs;
      if (m.not) v = u(~v, w);
    }
    return v;
  }
  pred(i: number, dflt = true): boolean {
    const raw = this.values[i];
    if (raw === undefined) return dflt;
    const v = typeof raw === 'boolean' ? raw : raw !== 0n;
    return this.instr.useMods?.[i]?.not ? !v : v;
  }
}

class MissingOperand extends Error {}
/** A form evaluatePure does not define (answered as undefined, like an unknown opcode). */
class UnsupportedForm extends Error {}

function roundMode(mods: readonly string[]): RoundMode {
  for (const m of mods) if ((ROUND_MODES as readonly string[]).includes(m)) return m as RoundMode;
  return 'RN';
}
function fopts(mods: readonly string[]): FloatOpts {
  return { mode: roundMode(mods), ftz: mods.includes('FTZ'), sat: mods.includes('SAT') };
}
function findMod<T extends string>(mods: readonly string[], set: ReadonlySet<string>): T | undefined {
  return mods.find((m) => set.has(m)) as T | undefined;
}
function isUnsigned(mods: readonly string[]): boolean {
  return mods.includes('U32') || mods.includes('U64');
}
function typeMods(mods: readonly string[]): string[] {
  return mods.filter((m) => intType(m) || floatType(m));
}
function frndMode(mods: readonly string[]): FrndMode {
  for (const m of mods) {
    switch (m) {
      case 'TRUNC': case 'RZI': case 'RZ':
        return 'TRUNC';
      case 'FLOOR': case 'RMI': case 'RM':
        return 'FLOOR';
      case 'CEIL': case 'RPI': case 'RP':
        return 'CEIL';
      case 'RN': case 'RNI':
        return 'RN';
    }
  }
  return 'TRUNC';
}

/**
 * Evaluate a pure ALU instruction. Returns one value per def (a boolean for predicate defs), or undefined
 * when the opcode is not pure, a form is not supported, or an operand is missing.
 */
export function evaluatePure(instr: PureInstr, inputs: readonly PureValue[]): PureValue[] | undefined {
  if (!PURE_OPCODES.has(instr.opcode)) return undefined;
  try {
    return evalOp(instr, new Inputs(instr, inputs));
  } catch (e) {
    if (e instanceof MissingOperand || e instanceof UnsupportedForm) return undefined;
    throw e;
  }
}

function withCarries(d: bigint, carries: readonly boolean[], instr: PureInstr): PureValue[] {
  const out: PureValue[] = [d];
  for (let k = 1; k < instr.defWidths.length; k++) out.push(carries[k - 1] ?? false);
  return out;
}

function evalOp(instr: PureInstr, x: Inputs): PureValue[] | undefined {
  const mods = instr.mods;
  const dw = instr.defWidths[0] ?? 32;
  const w = dw === 64 ? 64 : 32;
  // fp8 types exist only on F2F (docs/ori-semantics.md); anywhere else they are not a defined form.
  if (instr.opcode !== 'F2F' && mods.some((m) => fp8Type(m))) return undefined;
  switch (instr.opcode) {
    case 'IADD3': {
      const cins: boolean[] = [];
      for (let k = 3; k < x.length; k++) cins.push(x.pred(k));
      // The hardware negates a source as ~x + 1 inside the adder, so `-x` of x = 0 adds 2^w (a carry out):
      // ptxas's 64-bit subtraction `IADD3 lo, P0, a, -b, RZ; IADD3.X hi, ..., ~bhi, RZ, P0` relies on it.
      let extra = 0;
      for (let k = 0; k < 3; k++) if (instr.useMods?.[k]?.neg && u(x.data(k, w), w) === 0n) extra++;
      const r = iadd3(x.data(0, w), x.data(1, w), x.data(2, w), cins, w);
      if (extra) {
        const c = (r.carry[0] ? 1 : 0) + (r.carry[1] ? 2 : 0) + extra;
        return withCarries(r.d, [(c & 1) === 1, (c & 2) === 2], instr);
      }
      return withCarries(r.d, r.carry, instr);
    }
    case 'IMAD': {
      const cin = mods.includes('X') && x.has(3) ? x.pred(3) : false;
      if (mods.includes('WIDE')) {
        const r = imadWide(x.data(0, 32), x.data(1, 32), x.data(2, 64), !mods.includes('U32'), cin);
        return withCarries(r.d, [r.carry], instr);
      }
      if (mods.includes('HI')) return [imulHi(x.data(0, w), x.data(1, w), x.data(2, w), !isUnsigned(mods), w)];
      const r = imad(x.data(0, w), x.data(1, w), x.data(2, w), cin, w);
      return withCarries(r.d, [r.carry], instr);
    }
    case 'IMUL':
      if (mods.includes('WIDE')) return [imadWide(x.data(0, 32), x.data(1, 32), 0n, !mods.includes('U32')).d];
      if (mods.includes('HI')) return [imulHi(x.data(0, w), x.data(1, w), 0n, !isUnsigned(mods), w)];
      return [imad(x.data(0, w), x.data(1, w), 0n, false, w).d];
    case 'IMNMX':
      return [imnmx(x.data(0, w), x.data(1, w), x.pred(2), !isUnsigned(mods), w)];
    case 'IABS':
      return [iabs(x.data(0, w), w)];
    case 'ISETP': {
      const cmp = findMod<IntCmp>(mods, INT_CMPS);
      const comb = findMod<BoolComb>(mods, COMBS) ?? 'AND';
      if (!cmp) return undefined;
      if (mods.includes('EX')) {
        // SASS 64-bit compare, high words: the low words' result (last predicate use) breaks ties.
        const signed = !isUnsigned(mods);
        const a = x.data(0, 32);
        const b = x.data(1, 32);
        const pin = x.pred(3);
        const eq = icmp('EQ', a, b, signed, 32);
        let t: boolean;
        if (cmp === 'EQ') t = eq && pin;
        else if (cmp === 'NE') t = !eq || pin;
        else t = icmp(cmp === 'LT' || cmp === 'LE' ? 'LT' : 'GT', a, b, signed, 32) || (eq && pin);
        const c = x.pred(2);
        const out: PureValue[] = [combine(comb, t, c)];
        if (instr.defWidths.length > 1) out.push(combine(comb, !t, c));
        return out;
      }
      const cw = mods.includes('U64') || mods.includes('S64') ? 64 : mods.includes('U32') || mods.includes('S32') ? 32 : Math.max(x.width(0) ?? 32, x.width(1) ?? 32) === 64 ? 64 : 32;
      const t = icmp(cmp, x.data(0, cw), x.data(1, cw), !isUnsigned(mods), cw);
      const c = x.pred(2);
      const out: PureValue[] = [combine(comb, t, c)];
      if (instr.defWidths.length > 1) out.push(combine(comb, !t, c));
      return out;
    }
    case 'ISCADD':
      return [lea(x.data(0, w), x.data(1, w), x.data(2, 32), w, false).d];
    case 'LEA': {
      if (mods.includes('HI')) {
        const a = x.data(0, 32);
        const b = x.data(1, 32);
        let hi: bigint;
        let sh: bigint;
        let next: number;
        if (mods.includes('SX32')) {
          hi = s(a, 32) < 0n ? 0xffffffffn : 0n;
          sh = x.data(2, 32);
          next = 3;
        } else {
          hi = x.data(2, 32);
          sh = x.data(3, 32);
          next = 4;
        }
        const cin = mods.includes('X') && x.has(next) ? x.pred(next) : false;
        return withCarries(leaHi(a, b, hi, sh, cin), [false], instr);
      }
      const cin = mods.includes('X') && x.has(3) ? x.pred(3) : false;
      const r = lea(x.data(0, w), x.data(1, w), x.data(2, 32), w, cin);
      return withCarries(r.d, [r.carry], instr);
    }
    case 'SHF': {
      const left = mods.includes('L');
      if (!left && !mods.includes('R')) return undefined;
      const t64 = mods.includes('U64') || mods.includes('S64');
      return [shf(x.data(0, 32), x.data(1, 32), x.data(2, 32), {
        left, signed: mods.includes('S32') || mods.includes('S64'), typeWidth: t64 ? 64 : 32, wrap: mods.includes('W'), high: mods.includes('HI'),
      })];
    }
    case 'SHL':
      return [shl(x.data(0, w), x.data(1, 32), w)];
    case 'SHR':
      return [shr(x.data(0, w), x.data(1, 32), mods.includes('S32') || mods.includes('S64'), w)];
    case 'IDIV':
      return [idiv(x.data(0, w), x.data(1, w), !isUnsigned(mods), w)];
    case 'IREM':
      return [irem(x.data(0, w), x.data(1, w), !isUnsigned(mods), w)];
    case 'POPC': {
      const sw = x.width(0) === 64 || mods.includes('U64') || mods.includes('B64') ? 64 : 32;
      return [u(popc(x.data(0, sw), sw), w)];
    }
    case 'FLO': {
      const sw = x.width(0) === 64 || mods.includes('U64') || mods.includes('S64') ? 64 : 32;
      return [u(flo(x.data(0, sw), mods.includes('S32') || mods.includes('S64'), mods.includes('SH'), sw), w)];
    }
    case 'BREV':
      return [brev(x.data(0, w), w)];
    case 'BFE': {
      const bw = mods.includes('U64') || mods.includes('S64') ? 64 : w;
      return [u(bfe(x.data(0, bw), x.data(1, 32), x.data(2, 32), mods.includes('S32') || mods.includes('S64'), bw), w)];
    }
    case 'BFI':
      return [bfi(x.data(0, w), x.data(1, w), x.data(2, 32), x.data(3, 32), w)];
    case 'PRMT': {
      const mode = mods.find((m) => ['F4E', 'B4E', 'RC8', 'ECL', 'ECR', 'RC16'].includes(m));
      return [prmt(x.data(0, 32), x.data(1, 32), x.data(2, 32), mode)];
    }
    case 'LOP3': {
      const lut = Number(x.data(3, 32) & 0xffn);
      const d = lop3(x.data(0, w), x.data(1, w), x.data(2, w), lut, w);
      // The predicate def says whether the result is nonzero (SASS LOP3 with a P output).
      if (instr.defWidths.length === 1 && instr.defWidths[0] === 1) return [d !== 0n];
      const out: PureValue[] = [d];
      for (let k = 1; k < instr.defWidths.length; k++) out.push(d !== 0n);
      return out;
    }
    case 'LOP': {
      const a = x.data(0, w);
      const b = x.data(1, w);
      if (mods.includes('AND')) return [a & b];
      if (mods.includes('OR')) return [a | b];
      if (mods.includes('XOR')) return [a ^ b];
      if (mods.includes('PASS_B')) return [b];
      return undefined;
    }
    case 'PLOP3': {
      const a = x.pred(0);
      const b = x.pred(1);
      const c = x.pred(2);
      const out: PureValue[] = [plop3(a, b, c, Number(x.data(3, 32) & 0xffn))];
      if (instr.defWidths.length > 1) out.push(plop3(a, b, c, x.has(4) ? Number(x.data(4, 32) & 0xffn) : 0));
      return out;
    }
    case 'SEL':
    case 'FSEL':
      if (dw === 1) return [x.pred(2) ? x.pred(0) : x.pred(1)];
      return [x.pred(2) ? x.data(0, dw, instr.opcode === 'FSEL' ? 'f32' : 'i') : x.data(1, dw, instr.opcode === 'FSEL' ? 'f32' : 'i')];
    case 'MOV':
    case 'UMOV':
    case 'COPY':
    case 'MOVPHI':
    case 'R2UR':
      if (dw === 1) return [x.pred(0)];
      return [x.data(0, dw)];
    case 'FADD':
    case 'FMUL':
    case 'FFMA': {
      if (dw !== 32) return undefined;
      const o = fopts(mods);
      if (instr.opcode === 'FFMA') return [ffma(x.data(0, 32, 'f32'), x.data(1, 32, 'f32'), x.data(2, 32, 'f32'), F32, o)];
      const f = instr.opcode === 'FADD' ? fadd : fmul;
      return [f(x.data(0, 32, 'f32'), x.data(1, 32, 'f32'), F32, o)];
    }
    case 'DADD':
    case 'DMUL':
    case 'DFMA': {
      const o: FloatOpts = { mode: roundMode(mods), sat: mods.includes('SAT') };
      if (instr.opcode === 'DFMA') return [ffma(x.data(0, 64, 'f64'), x.data(1, 64, 'f64'), x.data(2, 64, 'f64'), F64, o)];
      const f = instr.opcode === 'DADD' ? fadd : fmul;
      return [f(x.data(0, 64, 'f64'), x.data(1, 64, 'f64'), F64, o)];
    }
    case 'HADD2':
    case 'HMUL2':
    case 'HFMA2': {
      const fmt: FloatFormat = mods.includes('BF16') || mods.includes('BF16_V2') ? BF16 : F16;
      // .FTZ flushes f16 denormal lanes (PTX add/mul/fma.ftz.f16); bf16 has no FTZ form.
      const o: FloatOpts = { mode: roundMode(mods), sat: mods.includes('SAT'), ftz: fmt === F16 && mods.includes('FTZ') };
      const n = instr.opcode === 'HFMA2' ? 3 : 2;
      const ins = [0, 1, 2].slice(0, n).map((i) => x.data(i, 32, 'h2'));
      const lane = (k: number): bigint => {
        const h = ins.map((v) => (v >> BigInt(16 * k)) & 0xffffn);
        if (instr.opcode === 'HFMA2') return ffma(h[0]!, h[1]!, h[2]!, fmt, o);
        return (instr.opcode === 'HADD2' ? fadd : fmul)(h[0]!, h[1]!, fmt, o);
      };
      return [(lane(1) << 16n) | lane(0)];
    }
    case 'FMNMX':
      return [fminmax(x.data(0, 32, 'f32'), x.data(1, 32, 'f32'), x.pred(2), F32, mods.includes('FTZ'))];
    case 'DMNMX':
      return [fminmax(x.data(0, 64, 'f64'), x.data(1, 64, 'f64'), x.pred(2), F64)];
    case 'FSETP':
    case 'DSETP':
    case 'FSET': {
      const cmp = findMod<FloatCmp>(mods, FLOAT_CMPS);
      const comb = findMod<BoolComb>(mods, COMBS) ?? 'AND';
      if (!cmp) return undefined;
      const fmt = instr.opcode === 'DSETP' ? F64 : F32;
      const k: Kind = fmt === F64 ? 'f64' : 'f32';
      const t = fcmpBits(cmp, x.data(0, fmt.width, k), x.data(1, fmt.width, k), fmt, mods.includes('FTZ'));
      const c = x.pred(2);
      if (instr.opcode === 'FSET') {
        const r = combine(comb, t, c);
        return [r ? (mods.includes('BF') ? 0xffffffffn : 0x3f800000n) : 0n];
      }
      const out: PureValue[] = [combine(comb, t, c)];
      if (instr.defWidths.length > 1) out.push(combine(comb, !t, c));
      return out;
    }
    case 'MUFU': {
      if (mods.includes('RCP64H') || mods.includes('RSQ64H')) {
        // high word of an f64 approximation from the high word of the input (low word taken as 0); ptxas
        // refines it with DFMA Newton steps, so the exact approximation does not reach results
        const hi = Number(x.data(0, 32) & 0xffffffffn);
        const dv = new DataView(new ArrayBuffer(8));
        dv.setUint32(4, hi, true);
        dv.setUint32(0, 0, true);
        const a = dv.getFloat64(0, true);
        dv.setFloat64(0, mods.includes('RCP64H') ? 1 / a : 1 / Math.sqrt(a), true);
        return [BigInt(dv.getUint32(4, true))];
      }
      const fn = mods.find((m) => ['RCP', 'RSQ', 'SQRT', 'SIN', 'COS', 'EX2', 'LG2', 'TANH'].includes(m)) as MufuFn | undefined;
      if (!fn || dw !== 32) return undefined;
      return [mufu(fn, x.data(0, 32, 'f32'), mods.includes('FTZ'))];
    }
    case 'FDIV': {
      const fmt = dw === 64 ? F64 : F32;
      const k: Kind = fmt === F64 ? 'f64' : 'f32';
      return [fdiv(x.data(0, fmt.width, k), x.data(1, fmt.width, k), fmt, fopts(mods))];
    }
    case 'FSQRT': {
      const fmt = dw === 64 ? F64 : F32;
      return [fsqrt(x.data(0, fmt.width, fmt === F64 ? 'f64' : 'f32'), fmt, fopts(mods))];
    }
    case 'FRND': {
      const fmt = dw === 64 || mods.includes('F64') ? F64 : F32;
      return [frnd(x.data(0, fmt.width, fmt === F64 ? 'f64' : 'f32'), frndMode(mods), fmt, mods.includes('FTZ'))];
    }
    case 'F2F': {
      const fp8 = f2fFp8(mods, x, dw);
      if (fp8 !== undefined) return fp8;
      const [dn, sn] = typeMods(mods);
      const dst = dn ? floatType(dn) : undefined;
      const src = sn ? floatType(sn) : undefined;
      if (!dst || !src) return undefined;
      const v = f2f(x.data(0, src.width, src === F64 ? 'f64' : 'f32'), dst, src, roundMode(mods), mods.includes('FTZ'), mods.includes('SAT'));
      return [u(v, dw)];
    }
    case 'F2I': {
      const [dn, sn] = typeMods(mods);
      const dst = dn ? intType(dn) : undefined;
      const src = (sn ? floatType(sn) : undefined) ?? (x.width(0) === 64 ? F64 : F32);
      if (!dst) return undefined;
      const v = f2i(x.data(0, src.width, src === F64 ? 'f64' : 'f32'), dst, src, frndMode(mods), mods.includes('FTZ'));
      return [intToReg(v, dst, dw)];
    }
    case 'I2F': {
      const [dn, sn] = typeMods(mods);
      const dst = dn ? floatType(dn) : undefined;
      const src: IntType | undefined = sn ? intType(sn) : { signed: true, width: x.width(0) === 64 ? 64 : 32 };
      if (!dst || !src) return undefined;
      return [u(i2f(x.data(0, src.width === 64 ? 64 : 32), dst, src, roundMode(mods)), dw)];
    }
    case 'I2I': {
      const [dn, sn] = typeMods(mods);
      const dst = dn ? intType(dn) : undefined;
      const src = sn ? intType(sn) : undefined;
      if (!dst || !src) return undefined;
      return [intToReg(i2i(x.data(0, src.width === 64 ? 64 : 32), dst, src, mods.includes('SAT')), dst, dw)];
    }
    case 'F2FP': {
      const fmt = mods.includes('BF16') ? BF16 : F16;
      return [f2fpPack(x.data(0, 32, 'f32'), x.data(1, 32, 'f32'), fmt, roundMode(mods))];
    }
    case 'FCHK': {
      // True when the fast reciprocal division sequence could be inexact: a non-normal input, or an exponent
      // outside the range where a * rcp(b) cannot overflow or underflow.
      const a = decode(x.data(0, 32, 'f32'), F32);
      const b = decode(x.data(1, 32, 'f32'), F32);
      const normal = (v: number): boolean => Number.isFinite(v) && v !== 0 && Math.abs(v) >= 2 ** -126;
      if (!normal(a) || !normal(b)) return [true];
      const ea = Math.floor(Math.log2(Math.abs(a)));
      const eb = Math.floor(Math.log2(Math.abs(b)));
      return [ea - eb > 125 || ea - eb < -125 || Math.abs(eb) > 125];
    }
  }
  return undefined;
}

/**
 * F2F with an fp8 type (`F2F.E4M3.F32.SATFINITE`, `F2F.F16.E5M2` ...): one value in the low bits of a register,
 * fp8 as a byte (read from the low 8 bits, written zero-extended). Undefined when no fp8 type is involved;
 * fp8 <-> integer and fp8 <-> fp8 are not forms (UnsupportedForm: evaluatePure answers undefined).
 */
function f2fFp8(mods: readonly string[], x: Inputs, dw: number): PureValue[] | undefined {
  const types = mods.filter((m) => intType(m) || floatType(m) || fp8Type(m));
  const [dn, sn] = types;
  if (!dn || !sn) return undefined;
  const d8 = fp8Type(dn);
  const s8 = fp8Type(sn);
  if (!d8 && !s8) return undefined;
  if (d8 && !s8) {
    const src = floatType(sn);
    if (!src) throw new UnsupportedForm();
    const v = toFp8(x.data(0, src.width, src === F64 ? 'f64' : 'f32'), src, d8, roundMode(mods), mods.includes('SATFINITE'), mods.includes('FTZ'));
    return [u(v, dw)];
  }
  const dst = floatType(dn);
  if (!s8 || !dst) throw new UnsupportedForm();
  return [u(fromFp8(x.data(0, 8), s8, dst), dw)];
}

/** Width in bits of a register operand (predicates 1), undefined for non-register operands. */
function operandWidth(o: Operand): number | undefined {
  if (o.kind === 'reg') return o.reg.cls === 'P' || o.reg.cls === 'UP' ? 1 : o.reg.width * 32;
  if (o.kind === 'pt') return 1;
  return undefined;
}

/** The PureInstr view of an Ori instruction. */
export function describeInstr(i: Instr): PureInstr {
  return {
    opcode: i.opcode,
    mods: i.mods,
    defWidths: i.defs.map((d) => operandWidth(d) ?? 32),
    useWidths: i.uses.map(operandWidth),
    useMods: i.uses.map((o) => (o.kind === 'reg' ? { neg: o.neg, abs: o.abs, not: o.not } : o.kind === 'pt' && o.not ? { not: true } : undefined)),
  };
}

/**
 * Constant-fold helper: evaluate an Ori instruction whose uses all have known values. `valueOf` gives the
 * value of a use (immediates, RZ, PT are handled here; return undefined for anything unknown). Returns
 * undefined when the instruction is guarded, not pure, or some use is unknown.
 */
export function evaluateInstr(i: Instr, valueOf: (o: Operand, index: number) => PureValue | undefined = () => undefined): PureValue[] | undefined {
  if (i.guard || !PURE_OPCODES.has(i.opcode)) return undefined;
  const vals: PureValue[] = [];
  for (let k = 0; k < i.uses.length; k++) {
    const o = i.uses[k]!;
    let v: PureValue | undefined;
    if (o.kind === 'imm') v = o.value;
    else if (o.kind === 'rz') v = 0n;
    else if (o.kind === 'pt') v = true; // `!PT` is applied through useMods
    else v = valueOf(o, k);
    if (v === undefined) return undefined;
    vals.push(v);
  }
  return evaluatePure(describeInstr(i), vals);
}
