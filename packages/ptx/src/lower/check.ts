/**
 * PTX instruction checks ptxas makes before any lowering (issue #16, row 10): instruction types an opcode
 * takes, comparison qualifiers, operand types and sizes (PTX ISA "Type Information for Instructions and
 * Operands": exact for arithmetic, the relaxed rules of "Operand Size Exceeding Instruction-Type Size" for
 * ld/st/cvt), immediates of the wrong kind, vector operand sizes and state spaces of addresses. Messages
 * use ptxas's wording (compared with ptxas 13.0.88 on small cases) and add which operand is wrong.
 *
 * The tables cover the opcodes programs use most; an opcode without a row is not checked here (its
 * handler still rejects what it cannot lower).
 */
import { PtxforgeError } from '@ptxforge/kernel';
import { checkAsyncCopyFamily, checkMbarrier } from './mbarrier-check.js';
import type { Operand } from '../ast.js';
import { isSpecialRegister, type FnLowerer } from './context.js';
import { isTypeMod, ptxType, type PtxType } from './types.js';

const INT = ['u16', 'u32', 'u64', 's16', 's32', 's64'];
const F16 = ['f16', 'f16x2', 'bf16', 'bf16x2'];
const FLT = ['f32', 'f64'];
const BITS = ['b16', 'b32', 'b64'];

/** Instruction types each opcode takes (ptxas: "Unexpected instruction types specified for 'op'"). */
const TYPES: Record<string, readonly string[]> = {
  add: [...INT, ...F16, ...FLT], sub: [...INT, ...F16, ...FLT], min: [...INT, ...F16, ...FLT, 'u16x2', 's16x2'],
  max: [...INT, ...F16, ...FLT, 'u16x2', 's16x2'], abs: ['s16', 's32', 's64', ...F16, ...FLT], neg: ['s16', 's32', 's64', ...F16, ...FLT],
  mul: [...INT, ...F16, ...FLT], mad: [...INT, ...FLT], div: [...INT, ...FLT], rem: INT,
  mul24: ['u32', 's32'], mad24: ['u32', 's32'], redux: ['b32', 'u32', 's32', 'f32'],
  setp: [...BITS, ...INT, ...F16, ...FLT],
  and: ['pred', ...BITS], or: ['pred', ...BITS], xor: ['pred', ...BITS], not: ['pred', ...BITS], cnot: BITS,
  shl: BITS, shr: [...BITS, ...INT], selp: [...BITS, ...INT, ...FLT],
  fma: [...F16, ...FLT], rcp: FLT, sqrt: FLT, rsqrt: FLT, sin: ['f32'], cos: ['f32'], lg2: ['f32'],
  ex2: ['f32', ...F16], tanh: ['f32', ...F16], popc: ['b32', 'b64'], clz: ['b32', 'b64'], brev: ['b32', 'b64'],
  bfind: ['u32', 'u64', 's32', 's64'], bfe: ['u32', 'u64', 's32', 's64'], bfi: ['b32', 'b64'], prmt: ['b32'],
  copysign: FLT, testp: FLT, cvta: ['u32', 'u64'], vote: ['b32', 'pred'], shfl: ['b32'], createpolicy: ['b64'], shf: ['b32'],
  mov: ['pred', 'b16', 'b32', 'b64', 'b128', 'u16', 'u32', 'u64', 's16', 's32', 's64', 'f32', 'f64'],
  ld: ['b8', 'b16', 'b32', 'b64', 'b128', 'u8', 'u16', 'u32', 'u64', 's8', 's16', 's32', 's64', 'f32', 'f64'],
};
TYPES.st = TYPES.ld!;
TYPES.ldu = TYPES.ld!;

const INT_CMP = new Set(['eq', 'ne', 'lt', 'le', 'gt', 'ge']);
const UNS_CMP = new Set(['lo', 'ls', 'hi', 'hs']);
const FLT_CMP = new Set(['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'equ', 'neu', 'ltu', 'leu', 'gtu', 'geu', 'num', 'nan']);
const ALL_CMP = new Set([...INT_CMP, ...UNS_CMP, ...FLT_CMP]);

/** How an operand is checked against its type. */
type Mode = 'exact' | 'relaxed';
/** One operand's expectation: a type, or 'pred', with the check mode; 'skip' leaves it alone. */
type Want = { t: PtxType; mode: Mode; dst?: boolean } | 'skip';

const T = (n: string): PtxType => ptxType(n)!;
const U32 = T('u32');
const B32 = T('b32');
const B16 = T('b16');
const F32T = T('f32');
const F16X2 = T('f16x2');
/** The packed fp8 pair format of a cvt (e4m3x2 / e5m2x2), if any. */
const fp8x2Of = (mods: readonly string[]): string | undefined => mods.find((m) => m === 'e4m3x2' || m === 'e5m2x2');
const PRED = T('pred');
const PRED_DST: Want = { t: PRED, mode: 'exact', dst: true };

function fail(c: FnLowerer, code: string, message: string): never {
  throw new PtxforgeError(code, message, { pos: { file: c.mod.file, line: c.ins.pos.line, col: c.ins.pos.col } });
}

/** ptxas names the instruction with the modifiers that select its form (`mul.wide`, `cvta.to`). */
function ptxasName(c: FnLowerer): string {
  const { opcode, mods } = c.ins;
  if ((opcode === 'mul' || opcode === 'mad' || opcode === 'mul24' || opcode === 'mad24') && (mods.includes('lo') || mods.includes('hi') || mods.includes('wide'))) {
    return `${opcode}.${mods.find((m) => m === 'lo' || m === 'hi' || m === 'wide')}`;
  }
  if (opcode === 'cvta' && mods.includes('to')) return 'cvta.to';
  if (opcode === 'createpolicy' && mods[0] && !isTypeMod(mods[0])) return `createpolicy.${mods[0]}`;
  if (opcode === 'shf' && (mods.includes('l') || mods.includes('r'))) return `shf.${mods.includes('l') ? 'l' : 'r'}`;
  if (opcode === 'dp2a' && (mods.includes('lo') || mods.includes('hi'))) return `dp2a.${mods.includes('lo') ? 'lo' : 'hi'}`;
  return opcode;
}

/** Whether a register of type r may stand where the instruction wants type t. */
export function compatible(t: PtxType, r: PtxType, mode: Mode): boolean {
  if (t.kind === 'pred' || r.kind === 'pred') return t.kind === r.kind;
  // An .f16x2 register is a .b32 register to every instruction that is not a float one (ptxas 13.0.88 takes
  // `ld.global.u32`/`.b16`, `add.u32`, `cvt.u32.u16` on it and refuses `ld.f32`, `add.f32`, `cvt.f32.f16`);
  // an .f16 register keeps its float type everywhere (`ld.u16` into it is refused).
  if (r.name === 'f16x2' && t.kind !== 'f') r = B32;
  if (mode === 'exact') {
    if (r.bits !== t.bits) return false;
    if (t.kind === 'b') return true;
    if (t.kind === 'f') return r.kind === 'b' || r.name === t.name;
    return r.kind !== 'f';
  }
  // Relaxed (ld, st, cvt): a wider register is fine, except that a float register must match exactly
  // unless the instruction type is untyped bits.
  if (t.kind === 'b') return r.bits >= t.bits;
  if (t.kind === 'f') return r.name === t.name || (r.kind === 'b' && r.bits >= t.bits) || (t.bits === 16 && r.kind !== 'f' && r.bits >= 16);
  return r.kind !== 'f' && r.bits >= t.bits;
}

/** Why an immediate cannot be an operand of type t (undefined when it can). */
function immediateProblem(o: Operand, t: PtxType): string | undefined {
  if (o.kind === 'int') return t.kind === 'f' ? `the integer ${o.value} is not a .${t.name} value (write a float literal)` : undefined;
  if (o.kind !== 'float') return undefined;
  if (t.kind === 'f') return undefined;
  // 0fXXXXXXXX is 32 bits, 0dXXXXXXXXXXXXXXXX and decimal literals (doubles) 64: raw bits of an untyped operand
  if (t.kind === 'b' && o.width === t.bits) return undefined;
  return `the float literal is not a .${t.name} value`;
}

const describeType = (r: PtxType): string => `.${r.name}`;

/** Check one operand against its expectation; vectors element by element. */
function checkOperand(c: FnLowerer, o: Operand, k: number, w: Want): void {
  if (w === 'skip') return;
  // the failure paths (mismatch) name the instruction; nothing is built on the path that passes (runs per operand)
  switch (o.kind) {
    case 'int': case 'float': {
      if (w.dst) mismatch(c, k, `is an immediate where a destination register is needed`);
      const p = immediateProblem(o, w.t);
      if (p) mismatch(c, k, `(${c.describe(o)}): ${p}`);
      return;
    }
    case 'not':
      if (w.t.kind !== 'pred') mismatch(c, k, `'${c.describe(o)}': '!' applies to predicates`);
      return checkOperand(c, o.operand, k, w);
    case 'name': {
      const s = c.lookup(o.name);
      if (!s) {
        const full = o.comp !== undefined ? `${o.name}.${o.comp}` : o.name;
        if (isSpecialRegister(full)) {
          if (w.t.kind === 'f') fail(c, 'PTX_ARGUMENT_MISMATCH', `Special register argument not allowed for instruction '${ptxasName(c)}' (${full} with .${w.t.name})`);
          if (w.t.kind === 'pred') mismatch(c, k, `(${full}) is not a predicate`);
        }
        return; // undeclared names: the handler reports them
      }
      if (s.kind === 'reg') {
        // A whole vector register (`.reg .v2 .u32 v` used as `v`): its size is checked with the vector modifier.
        if (s.vec && o.comp === undefined) return;
        if (!compatible(w.t, s.type, w.mode)) mismatch(c, k, `'${o.comp !== undefined ? `${o.name}.${o.comp}` : o.name}' is a ${describeType(s.type)} register, expected ${w.t.kind === 'pred' ? 'a .pred register' : `.${w.t.name}`}`);
        return;
      }
      if (s.kind === 'var' && w.t.kind !== 'b' && w.t.kind !== 'u' && w.t.kind !== 's') mismatch(c, k, `(the address of '${o.name}') is not a .${w.t.name} value`);
      return;
    }
    case 'vec':
      for (const e of o.elems) if (e.kind !== 'sink') checkOperand(c, e, k, w);
      return;
    case 'pair':
      checkOperand(c, o.first, k, w);
      // The second destination of a pair (`setp ... p|q`, `shfl ... r|p`) is a predicate.
      if (o.second.kind !== 'sink') checkOperand(c, o.second, k, PRED_DST);
      return;
    default:
  }
}

function mismatch(c: FnLowerer, k: number, why: string): never {
  fail(c, 'PTX_ARGUMENT_MISMATCH', `Arguments mismatch for instruction '${ptxasName(c)}': operand ${k + 1} ${why}`);
}

/** Immediates at these operand positions must lie in [lo, hi] (ptxas: "Argument N of instruction ..."). */
function checkImmediateRange(c: FnLowerer, at: readonly number[], lo: bigint, hi: bigint): void {
  for (const k of at) {
    const o = c.ins.operands[k];
    if (o?.kind === 'int' && (o.value < lo || o.value > hi)) {
      fail(c, 'PTX_IMMEDIATE_RANGE', `Argument ${k} of instruction '${ptxasName(c)}': value '${o.value}' out of range, expected to be in range [${lo}..${hi}]`);
    }
  }
}

/** The expectation of each operand of the current instruction, or undefined when it is not checked. */
function operandWants(c: FnLowerer, t: PtxType, types: PtxType[]): Want[] | undefined {
  const { opcode, mods } = c.ins;
  const ex = (x: PtxType): Want => ({ t: x, mode: 'exact' });
  const dst = (x: PtxType, mode: Mode = 'exact'): Want => ({ t: x, mode, dst: true });
  const wide = (x: PtxType): PtxType => T(`${x.kind}${x.bits * 2}`);
  const n = c.ins.operands.length;
  const all = (): Want[] => [dst(t), ...Array.from({ length: n - 1 }, () => ex(t))];
  switch (opcode) {
    case 'add': case 'sub': case 'min': case 'max': case 'abs': case 'neg': case 'div': case 'rem': case 'fma':
    case 'and': case 'or': case 'xor': case 'not': case 'cnot': case 'copysign': case 'rcp': case 'sqrt': case 'rsqrt':
    case 'sin': case 'cos': case 'lg2': case 'ex2': case 'tanh': case 'brev': case 'mul24': case 'mad24':
      if (t.name.endsWith('x2') && t.bits === 32 && (opcode === 'min' || opcode === 'max') && t.kind !== 'f') return undefined;
      return all();
    case 'mul': case 'mad':
      if (mods.includes('wide') && t.kind !== 'f') {
        if (t.bits > 32) return undefined;
        return opcode === 'mul' ? [dst(wide(t)), ex(t), ex(t)] : [dst(wide(t)), ex(t), ex(t), ex(wide(t))];
      }
      return all();
    case 'shl': case 'shr':
      return [dst(t), ex(t), ex(U32)];
    case 'popc': case 'clz': case 'bfind':
      return [dst(U32), ex(t)];
    case 'bfe':
      checkImmediateRange(c, [2, 3], 0n, 255n);
      return [dst(t), ex(t), ex(U32), ex(U32)];
    case 'bfi':
      checkImmediateRange(c, [3, 4], 0n, 255n);
      return [dst(t), ex(t), ex(t), ex(U32), ex(U32)];
    case 'atom':
      if (mods.some((m) => /^v\d$/.test(m)) || t.name.endsWith('x2')) return undefined;
      return [dst(t), 'skip', ex(t), ex(t)];
    case 'red':
      if (mods.some((m) => /^v\d$/.test(m)) || t.name.endsWith('x2')) return undefined;
      return ['skip', ex(t)];
    case 'shfl':
      if (!mods.includes('sync')) return undefined;
      return [dst(B32), ex(B32), ex(B32), ex(B32), ex(U32)];
    case 'prmt':
      return [dst(B32), ex(B32), ex(B32), ex(B32)];
    case 'redux':
      // redux.sync.op.type d, a, membermask: the mask is a 32-bit integer (ptxas refuses a float literal there)
      return [dst(t), ex(t), ex(U32)];
    case 'vote':
      // vote.ballot.b32 d, p, mask; vote.{all,any,uni}.pred p, q, mask (the sync form's mask is a .b32).
      if (!mods.includes('sync')) return undefined;
      return [dst(t), ex(PRED), ex(U32)];
    case 'selp':
      return [dst(t), ex(t), ex(t), ex(PRED)];
    case 'setp':
      return [dst(PRED), ex(t), ex(t), ex(PRED)];
    case 'testp':
      return [dst(PRED), ex(t)];
    case 'cvt': {
      const f8 = fp8x2Of(c.ins.mods);
      if (f8) {
        // the packed fp8 pair is a 16-bit register, an f16x2 a 32-bit one (.b32 or .f16x2), f32 sources .f32
        // (ptxas 13.0.88: "Arguments mismatch for instruction 'cvt'" for a .b32 pair or an .f32 f16x2)
        const m = c.ins.mods;
        const other = m.includes('f32') ? F32T : m.includes('f16x2') ? F16X2 : undefined;
        if (!other) return undefined;
        if (m.indexOf(f8) < m.indexOf(other.name)) return other === F32T ? [dst(B16), ex(F32T), ex(F32T)] : [dst(B16), ex(F16X2)];
        return [dst(other), ex(B16)];
      }
      if (types.length !== 2) return undefined;
      return [dst(types[0]!, 'relaxed'), { t: types[1]!, mode: 'relaxed' }];
    }
    case 'cvta':
      return [dst(t), mods.includes('to') || n < 2 ? ex(t) : 'skip'];
    case 'mov': {
      if (n !== 2) return undefined;
      if (c.ins.operands.some((o) => o.kind === 'vec')) return checkMovVector(c, t);
      return [dst(t), ex(t)];
    }
    case 'createpolicy':
      return createpolicyWants(c);
    case 'shf':
      // shf.{l,r}.{clamp,wrap}.b32 d, a, b, c: the shift amount is an integer (a float register is refused there only)
      return [dst(B32), ex(B32), ex(B32), ex(U32)];
    case 'dp4a': case 'dp2a':
      // dp4a.atype.btype d, a, b, c: every operand an integer register (ptxas refuses .f32 and 16-bit ones)
      return [dst(U32), ex(U32), ex(U32), ex(U32)];
    case 'ld': case 'ldu':
      return [dst(t, 'relaxed'), 'skip', 'skip'];
    case 'st':
      return ['skip', { t, mode: 'relaxed' }, 'skip'];
    default:
      return undefined;
  }
}

/**
 * createpolicy (PTX ISA createpolicy; ptxas 13.0.88 verdicts): `.fractional` d, {fraction}: a .b64 policy and an
 * .f32 fraction in (0, 1]; `.range` d, [a], primary size, total size: .b32 sizes; `.cvt.L2` d, policy: .b64.
 */
function createpolicyWants(c: FnLowerer): Want[] | undefined {
  const B64 = T('b64');
  const form = c.ins.mods[0];
  // the policy register is an integer one: ptxas refuses an .f64 register there (which a .b64 operand would take)
  const d: Want = { t: T('u64'), mode: 'exact', dst: true };
  if (form === 'fractional') {
    const f = c.ins.operands[1];
    if (f?.kind === 'float' && !(f.value > 0 && f.value <= 1)) {
      fail(c, 'PTX_IMMEDIATE_RANGE', `Argument 2 of instruction 'createpolicy.fractional': value '${f.value.toFixed(6)}' out of range, expected to be in range (0.000000 .. 1.000000]`);
    }
    return [d, { t: T('f32'), mode: 'exact' }];
  }
  if (form === 'range') return [d, 'skip', { t: B32, mode: 'exact' }, { t: B32, mode: 'exact' }];
  if (form === 'cvt') return [d, { t: B64, mode: 'exact' }];
  return undefined;
}

/**
 * mov with a `{…}` operand (PTX ISA mov, ptxas 13.0.88 wording): `mov.vN.t {…}, {…}` copies element-wise
 * (elements of one size, each a .t operand); without `.vN` it packs or unpacks, which only an untyped .bN
 * instruction does, with register elements of one size and N/elements bits each. Returns the wants of the
 * scalar operand of a pack/unpack (checked like any operand), or undefined.
 */
function checkMovVector(c: FnLowerer, t: PtxType): Want[] | undefined {
  const [d, s] = c.ins.operands as [Operand, Operand];
  const mismatch = (why: string): never => fail(c, 'PTX_ARGUMENT_MISMATCH', `Arguments mismatch for instruction 'mov': ${why}`);
  const regElems = (o: Operand): Array<{ name: string; type: PtxType }> => {
    const out: Array<{ name: string; type: PtxType }> = [];
    if (o.kind !== 'vec') return out;
    let bits = 0;
    for (const e of o.elems) {
      if (e.kind !== 'name') continue;
      const sym = c.lookup(e.name);
      if (sym?.kind !== 'reg' || (sym.vec && e.comp === undefined)) continue;
      const full = e.comp !== undefined ? `${e.name}.${e.comp}` : e.name;
      if (bits && sym.type.bits !== bits) fail(c, 'PTX_VECTOR_SIZE', `Incompatible elements of vector expression in 'mov': '${full}' is ${sym.type.bits}-bit, an earlier element ${bits}-bit`);
      bits = sym.type.bits;
      out.push({ name: full, type: sym.type });
    }
    return out;
  };
  const vn = c.ins.mods.find((m) => /^v\d+$/.test(m));
  if (vn) {
    for (const o of [d, s]) {
      if (o.kind === 'vec' && o.elems.length !== Number(vn.slice(1))) fail(c, 'PTX_VECTOR_SIZE', `Argument vector size mismatch for instruction 'mov': {${o.elems.length} elements} with .${vn}`);
    }
    for (const o of [d, s]) for (const e of regElems(o)) if (!compatible(t, e.type, 'exact')) mismatch(`'${e.name}' is a .${e.type.name} register, expected .${t.name}`);
    return undefined;
  }
  if (d.kind === 'vec' && s.kind === 'vec') fail(c, 'PTX_ARGUMENT_MISMATCH', `Illegal vector-vector operands for vector-scalar or scalar-vector mov instruction`);
  const v = d.kind === 'vec' ? d : (s as Extract<Operand, { kind: 'vec' }>);
  const elems = regElems(v);
  if (t.kind !== 'b') mismatch(`packing and unpacking take an untyped .b16/.b32/.b64/.b128 instruction type, not .${t.name}`);
  const eb = t.bits / v.elems.length;
  for (const e of elems) if (e.type.kind === 'pred' || e.type.bits !== eb) mismatch(`'${e.name}' is a .${e.type.name} register, ${v.elems.length} elements of .${t.name} are ${eb}-bit`);
  return d.kind === 'vec' ? ['skip', { t, mode: 'exact' }] : [{ t, mode: 'exact', dst: true }, 'skip'];
}

/** The `.vN` modifier (`/^v\d+$/`), without a regular expression per modifier (ld/st run this per instruction). */
function vectorMod(mods: readonly string[]): string | undefined {
  for (const m of mods) {
    if (m.length < 2 || m.charCodeAt(0) !== 118) continue;
    let k = 1;
    while (k < m.length && m.charCodeAt(k) >= 48 && m.charCodeAt(k) <= 57) k++;
    if (k === m.length) return m;
  }
  return undefined;
}

/** ld/st: `.vN` and the vector operand agree in size; vector elements have one size. */
function checkVector(c: FnLowerer, o: Operand | undefined): void {
  if (!o) return;
  const v = vectorMod(c.ins.mods);
  const want = v ? Number(v.slice(1)) : 0;
  const name = ptxasName(c);
  if (o.kind === 'vec') {
    // A one-element {r} without .vN is a scalar (LLVM/Triton write it so); ptxas takes it.
    if (o.elems.length !== want && !(want === 0 && o.elems.length === 1)) fail(c, 'PTX_VECTOR_SIZE', `Argument vector size mismatch for instruction '${name}': {${o.elems.length} elements} with ${want ? `.v${want}` : 'no vector modifier'}`);
    let bits = 0;
    for (const e of o.elems) {
      if (e.kind !== 'name') continue;
      const s = c.lookup(e.name);
      if (s?.kind !== 'reg') continue;
      if (bits && s.type.bits !== bits) fail(c, 'PTX_VECTOR_SIZE', `Incompatible elements of vector expression in '${name}': '${e.name}' is ${s.type.bits}-bit, an earlier element ${bits}-bit`);
      bits = s.type.bits;
    }
  } else if (o.kind === 'name' && o.comp === undefined && c.lookup(o.name)?.kind === 'reg') {
    const s = c.lookup(o.name) as { vec: number };
    if (s.vec !== want) fail(c, 'PTX_VECTOR_SIZE', `Argument vector size mismatch for instruction '${name}': '${o.name}' has ${s.vec || 'no'} vector components${want ? `, .v${want} needs ${want}` : ''}`);
  } else if (want && o.kind !== 'sink') {
    fail(c, 'PTX_VECTOR_SIZE', `Argument vector size mismatch for instruction '${name}': .v${want} needs a {…} operand of ${want} elements`);
  }
}

/** ld/st: the address names a variable of the instruction's state space (generic reaches any). */
function checkStateSpace(c: FnLowerer, o: Operand | undefined): void {
  if (!o || o.kind !== 'addr' || o.base === undefined) return;
  let space: string | undefined;
  for (const m of c.ins.mods) {
    if (m === 'global' || m === 'shared' || m === 'local' || m === 'const' || m === 'param' || m.startsWith('shared::')) {
      space = m;
      break;
    }
  }
  const dot = o.base.indexOf('.');
  const s = c.lookup(dot < 0 ? o.base : o.base.slice(0, dot));
  if (!s) return;
  if (c.ins.opcode === 'st' && space === 'const') fail(c, 'PTX_STATE_SPACE', `State space incorrect for instruction 'st': .const memory is read-only`);
  if (space === undefined) return;
  const sp = space.startsWith('shared') ? 'shared' : space;
  let have: string | undefined;
  if (s.kind === 'var') have = s.space;
  else if (s.kind === 'kparam' || s.kind === 'pvar') have = 'param';
  if (have && have !== sp) {
    fail(c, 'PTX_STATE_SPACE', `State space mismatch between instruction and address in instruction '${c.ins.opcode}': '${o.base}' is in .${have}, the instruction accesses .${sp}`);
  }
}

const NARROW_FLOATS = ['e4m3x2', 'e5m2x2', 'e2m1x2', 'e2m3x2', 'e3m2x2', 'ue8m0x2', 'e4m3x4', 'e5m2x4', 'e2m1x4', 'e2m3x4', 'e3m2x4', 's2f6x2', 'e4m3', 'e5m2'];
const RND = ['rn', 'rz', 'rm', 'rp'];
const IRND = ['rni', 'rzi', 'rmi', 'rpi'];
const ROUNDING = new Set([...RND, ...IRND, 'rna', 'rs']);
const SPACE_MODS = new Set(['global', 'shared', 'local', 'const', 'param', 'shared::cta', 'shared::cluster', 'param::entry', 'param::func', 'tex']);
const LD_ST_COMMON = [
  'global', 'shared', 'local', 'const', 'param', 'shared::cta', 'shared::cluster', 'param::entry', 'param::func',
  'weak', 'volatile', 'relaxed', 'mmio', 'cta', 'cluster', 'gpu', 'sys', 'cg', 'cs', 'v2', 'v4', 'v8', 'unified',
  'L1::evict_normal', 'L1::evict_unchanged', 'L1::evict_first', 'L1::evict_last', 'L1::no_allocate',
  'L2::evict_normal', 'L2::evict_first', 'L2::evict_last', 'L2::cache_hint', 'L2::64B', 'L2::128B', 'L2::256B',
];
const LD_MODS = new Set([...LD_ST_COMMON, 'acquire', 'ca', 'lu', 'cv', 'nc']);
const ST_MODS = new Set([...LD_ST_COMMON, 'release', 'wb', 'wt']);

/**
 * The modifiers (other than types) an opcode takes for instruction type t, per the PTX ISA and ptxas
 * 13.0.88 (".ftz" only on f32/f16 forms, ".sat" on s32 add/sub, ".cc" on integer forms ...); undefined
 * for opcodes this table does not describe (they are not checked).
 */
function allowedMods(opcode: string, t: PtxType | undefined, mods: readonly string[]): ReadonlySet<string> | undefined {
  const f32 = t?.name === 'f32';
  const f64 = t?.name === 'f64';
  const half = t?.name === 'f16' || t?.name === 'f16x2';
  const bhalf = t?.name === 'bf16' || t?.name === 'bf16x2';
  const int = !!t && t.kind !== 'f';
  const set = (...xs: Array<string | false>): ReadonlySet<string> => new Set(xs.filter((x): x is string => !!x));
  switch (opcode) {
    case 'add': case 'sub':
      if (int) return set('cc', t!.name === 's32' && 'sat');
      return set(...(f32 || f64 ? RND : ['rn']), (f32 || half) && 'ftz', (f32 || half) && 'sat');
    case 'addc': case 'subc':
      return set('cc');
    case 'mul':
      if (int) return set('lo', 'hi', 'wide');
      return set(...(f32 || f64 ? RND : ['rn']), (f32 || half) && 'ftz', (f32 || half) && 'sat');
    case 'mad':
      if (int) return set('lo', 'hi', 'wide', !mods.includes('wide') && 'cc', mods.includes('hi') && t!.name === 's32' && 'sat');
      return set(...(f32 || f64 ? RND : ['rn']), (f32 || half) && 'ftz', (f32 || half) && 'sat');
    case 'fma':
      return set(...(f32 || f64 ? RND : ['rn']), (f32 || half) && 'ftz', (f32 || half) && 'sat', (half || bhalf) && 'relu', (half || bhalf) && 'oob');
    case 'div':
      if (int) return set();
      return f32 ? set('approx', 'full', 'ftz', ...RND) : set(...RND);
    case 'rem': case 'and': case 'or': case 'xor': case 'not': case 'cnot': case 'shl': case 'shr': case 'selp':
    case 'bfe': case 'bfi': case 'brev': case 'popc': case 'clz': case 'copysign':
      return set();
    case 'min': case 'max':
      if (int) return set('relu');
      return set((f32 || half || bhalf) && 'NaN', (f32 || half || bhalf) && 'xorsign', (f32 || half || bhalf) && 'abs', (f32 || half) && 'ftz');
    case 'abs': case 'neg':
      return set((f32 || half) && 'ftz');
    case 'bfind':
      return set('shiftamt');
    case 'prmt':
      return set('f4e', 'b4e', 'rc8', 'ecl', 'ecr', 'rc16');
    case 'testp':
      return set('finite', 'infinite', 'number', 'notanumber', 'normal', 'subnormal');
    case 'rcp': case 'sqrt':
      return set('approx', 'ftz', ...RND);
    case 'rsqrt': case 'sin': case 'cos': case 'lg2': case 'ex2':
      // ptxas: "Illegal modifier '.ftz' for instruction 'ex2'" on the f16/bf16 forms
      return set('approx', !half && !bhalf && 'ftz');
    case 'tanh':
      return set('approx');
    case 'setp': case 'set':
      return set(...FLT_CMP, ...UNS_CMP, 'and', 'or', 'xor', (t?.name === 'f32' || t?.name === 'f16' || t?.name === 'f16x2' || (opcode === 'set' && mods.includes('f32'))) && 'ftz');
    case 'cvt':
      // Plus the narrow float formats and packing forms (cvt.rn.satfinite.e4m3x2.f32, cvt.pack.sat.u8.s32.b32).
      return set(...RND, ...IRND, 'ftz', 'sat', 'relu', 'satfinite', 'rna', 'rs', 'pack', ...NARROW_FLOATS);
    case 'cvta':
      return set('to', 'global', 'shared', 'local', 'const', 'param', 'shared::cta', 'shared::cluster', 'param::entry');
    case 'mov':
      return set('v2', 'v4', 'v8');
    case 'ret': case 'bra': case 'call':
      return set('uni');
    case 'vote':
      return set('sync', 'all', 'any', 'uni', 'ballot');
    case 'shfl':
      return set('sync', 'up', 'down', 'bfly', 'idx');
    case 'exit':
      return set();
    case 'mul24':
      return set('lo', 'hi');
    case 'mad24':
      return set('lo', 'hi', mods.includes('hi') && 'sat');
    case 'ld': case 'ldu':
      return LD_MODS;
    case 'st':
      return ST_MODS;
    default:
      return undefined;
  }
}

/** ptxas's wording for a modifier an instruction does not take. */
function illegalModifier(c: FnLowerer, m: string): never {
  const name = ptxasName(c);
  if (ROUNDING.has(m)) fail(c, 'PTX_ILLEGAL_MODIFIER', `Illegal rounding modifier for instruction '${name}' (.${m})`);
  if (ALL_CMP.has(m)) fail(c, 'PTX_ILLEGAL_MODIFIER', `Comparison qualifier is not allowed for instruction '${name}' (.${m})`);
  if (SPACE_MODS.has(m)) fail(c, 'PTX_ILLEGAL_MODIFIER', `No state space qualifier expected for instruction '${name}' (.${m})`);
  if (/^v\d+$/.test(m)) fail(c, 'PTX_ILLEGAL_MODIFIER', `Vector qualifier is not allowed for instruction '${name}' (.${m})`);
  fail(c, 'PTX_ILLEGAL_MODIFIER', `Illegal modifier '.${m}' for instruction '${name}'`);
}

const APPROX_ONLY = new Set(['ex2', 'lg2', 'sin', 'cos', 'rsqrt', 'tanh']);

/** Modifiers the form needs: a rounding mode for fma/mad/div/rcp/sqrt and for conversions that round. */
function checkRequiredMods(c: FnLowerer, t: PtxType, types: PtxType[]): void {
  const { opcode, mods } = c.ins;
  const has = (xs: readonly string[]): boolean => mods.some((m) => xs.includes(m));
  const name = ptxasName(c);
  const need = (what: string): never => fail(c, 'PTX_MODIFIER_REQUIRED', `${what} required for instruction '${name}'`);
  // fma.rn{.ftz}{.sat}.f16/f16x2, fma.rn.bf16/bf16x2: the rounding mode is part of the form (ptxas: "Rounding
  // modifier required for instruction 'fma'").
  if (opcode === 'fma' && F16.includes(t.name) && !has(['rn'])) need('Rounding modifier');
  if (t.kind === 'f' && (t.name === 'f32' || t.name === 'f64')) {
    if ((opcode === 'fma' || opcode === 'mad') && !has(RND)) need('Rounding modifier');
    if (opcode === 'div' && !has(RND) && !(t.name === 'f32' && has(['approx', 'full']))) need(t.name === 'f32' ? "Rounding modifier or '.approx' modifier" : 'Rounding modifier');
    if ((opcode === 'rcp' || opcode === 'sqrt') && !has(RND) && !mods.includes('approx')) need("Rounding modifier or '.approx' modifier");
  }
  if (opcode === 'mul' && t.kind !== 'f' && !has(['lo', 'hi', 'wide'])) {
    fail(c, 'PTX_INSTRUCTION_TYPE', `Unexpected instruction types specified for 'mul' (an integer mul needs .lo, .hi or .wide)`);
  }
  if (opcode === 'mad' && t.kind !== 'f' && !has(['lo', 'hi', 'wide'])) {
    fail(c, 'PTX_INSTRUCTION_TYPE', `Unexpected instruction types specified for 'mad' (an integer mad needs .lo, .hi or .wide)`);
  }
  if (opcode === 'testp' && !has(['finite', 'infinite', 'number', 'notanumber', 'normal', 'subnormal'])) need('Test operation');
  // The approximate-only functions (ptxas 13.0.88: ".approx modifier required for instruction 'ex2'"; the half
  // forms: "Rounding modifier or '.approx' modifier required").
  if (APPROX_ONLY.has(opcode) && !mods.includes('approx')) need(F16.includes(t.name) ? "Rounding modifier or '.approx' modifier" : '.approx modifier');
  const f8 = opcode === 'cvt' ? fp8x2Of(mods) : undefined;
  if (f8) {
    // cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.{f32,f16x2} and cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2}: .rn and nothing
    // else; to fp8, .satfinite too (ptxas 13.0.88: "Rounding modifier required", "Illegal rounding modifier",
    // "'.satfinite' modifier required for instruction 'cvt' with destination type '.e4m3x2'")
    const bad = mods.find((m) => ROUNDING.has(m) && m !== 'rn');
    if (bad) illegalModifier(c, bad);
    if (!mods.includes('rn')) need('Rounding modifier');
    const other = mods.find((m) => m === 'f32' || m === 'f16x2');
    if (other && mods.indexOf(f8) < mods.indexOf(other) && !mods.includes('satfinite')) {
      fail(c, 'PTX_MODIFIER_REQUIRED', `'.satfinite' modifier required for instruction '${name}' with destination type '.${f8}'`);
    }
    return;
  }
  if (opcode === 'cvt' && types.length === 2) {
    const [d, s] = types as [PtxType, PtxType];
    // cvt.frnd2{.relu}{.satfinite}.{f16x2,bf16x2}.f32 and cvt.frnd2.tf32.f32: rounding .rn/.rz (.rs, and .rna
    // for tf32) and nothing else (PTX ISA cvt; ptxas 13.0.88: "Rounding modifier required for instruction 'cvt'").
    if ((d.name === 'f16x2' || d.name === 'bf16x2' || d.name === 'tf32') && s.name === 'f32') {
      const ok = d.name === 'tf32' ? ['rn', 'rz', 'rna', 'rs'] : ['rn', 'rz', 'rs'];
      const bad = mods.find((m) => ROUNDING.has(m) && !ok.includes(m));
      if (bad) illegalModifier(c, bad);
      if (!has(ok)) need('Rounding modifier');
      return;
    }
    if (d.name.endsWith('x2') || s.name.endsWith('x2') || d.name === 'tf32' || s.name === 'tf32') return;
    const fr = has(RND);
    const ir = has(IRND);
    const df = d.kind === 'f';
    const sf = s.kind === 'f';
    if (df && !sf) {
      if (ir) illegalModifier(c, mods.find((m) => IRND.includes(m))!);
      if (!fr) need('Rounding modifier');
    } else if (!df && sf) {
      if (fr) illegalModifier(c, mods.find((m) => RND.includes(m))!);
      if (!ir) need('Rounding modifier');
    } else if (df && sf) {
      if (d.bits < s.bits && !fr && !has(['rna', 'rs'])) need('Rounding modifier');
      if (d.bits > s.bits && (fr || ir)) illegalModifier(c, mods.find((m) => ROUNDING.has(m))!);
    } else if (fr || ir) illegalModifier(c, mods.find((m) => ROUNDING.has(m))!);
  }
}

/**
 * redux.sync: the operation decides the type (PTX ISA redux.sync; ptxas 13.0.88: "Incorrect type '.u32' for
 * operation '.or' in instruction 'redux'"): bitwise operations on .b32, arithmetic on .u32/.s32 (min/max also
 * on .f32 for the targets that have it).
 */
const REDUX_TYPES: Readonly<Record<string, readonly string[]>> = {
  and: ['b32'], or: ['b32'], xor: ['b32'], add: ['u32', 's32'], min: ['u32', 's32', 'f32'], max: ['u32', 's32', 'f32'],
};
function checkReduxOperation(c: FnLowerer, t: PtxType): void {
  const ops = c.ins.mods.filter((m) => m in REDUX_TYPES);
  if (ops.length !== 1) fail(c, 'PTX_ILLEGAL_MODIFIER', `Illegal reduction operation for instruction 'redux' (${ops.length ? ops.map((m) => `.${m}`).join(' ') : 'none given'}; one of .add .min .max .and .or .xor)`);
  const op = ops[0]!;
  if (!REDUX_TYPES[op]!.includes(t.name)) fail(c, 'PTX_INSTRUCTION_TYPE', `Incorrect type '.${t.name}' for operation '.${op}' in instruction 'redux'`);
}

/**
 * bar / barrier (PTX ISA "bar, barrier"; wording of ptxas 13.0.88): `bar{.cta}.{sync,arrive,red}`,
 * `barrier{.cta}.{sync,arrive,red}{.aligned}`, `bar.warp.sync`; `.red` takes one of .popc (.u32) or .and/.or
 * (.pred). `bar` has no `.aligned` (it is implied).
 */
const BAR_MODS: Readonly<Record<string, ReadonlySet<string>>> = {
  bar: new Set(['sync', 'arrive', 'red', 'popc', 'and', 'or', 'cta', 'warp']),
  barrier: new Set(['sync', 'arrive', 'red', 'popc', 'and', 'or', 'cta', 'aligned', 'cluster', 'wait', 'relaxed', 'acquire', 'release']),
};
const BAR_REDUCTIONS = new Set(['popc', 'and', 'or']);
function checkBarrier(c: FnLowerer, t: PtxType | undefined): void {
  const { opcode, mods } = c.ins;
  const allowed = BAR_MODS[opcode]!;
  for (const m of mods) {
    if (isTypeMod(m) || allowed.has(m)) continue;
    if (ALL_CMP.has(m) || ['add', 'min', 'max', 'inc', 'dec', 'exch', 'cas', 'xor'].includes(m)) fail(c, 'PTX_ILLEGAL_MODIFIER', `Illegal reduction operation for instruction '${opcode}' (.${m})`);
    illegalModifier(c, m);
  }
  const red = mods.includes('red');
  const op = mods.filter((m) => BAR_REDUCTIONS.has(m));
  if (red && op.length !== 1) fail(c, 'PTX_ILLEGAL_MODIFIER', `Illegal reduction operation for instruction '${opcode}' (.red needs one of .popc .and .or)`);
  if (!red && op.length) fail(c, 'PTX_ILLEGAL_MODIFIER', `Illegal reduction operation for instruction '${opcode}' (.${op[0]} without .red)`);
  if (red) {
    const want = op[0] === 'popc' ? 'u32' : 'pred';
    if (!t || t.name !== want) fail(c, 'PTX_INSTRUCTION_TYPE', want === 'pred' ? 'Operation requires .pred type' : `Unexpected instruction types specified for '${opcode}' (.red.popc needs .u32)`);
  } else if (t) fail(c, 'PTX_INSTRUCTION_TYPE', `Unexpected instruction types specified for '${opcode}' (.${t.name} without .red)`);
}

/** cp.async.{ca,cg}: the copy size (argument 2) is 4, 8 or 16 bytes (.cg: 16), as ptxas 13.0.88 words it. */
function checkCpAsyncSize(c: FnLowerer): void {
  const o = c.ins.operands[2];
  if (o?.kind !== 'int') return;
  const ok = c.ins.mods.includes('cg') ? [16n] : [4n, 8n, 16n];
  if (!ok.includes(o.value)) fail(c, 'PTX_IMMEDIATE_RANGE', `Argument 2 of instruction 'cp.async': unexpected value '${o.value}', expected to be ${ok.join(' or ')}`);
}

/**
 * bar/barrier immediates (ptxas 13.0.88): a barrier number is in [0..15] after truncation to 32 bits (it prints
 * the 64-bit value: "Barrier number '18446744073709551615' out of range" for -1, and takes 4294967311 as 15); a
 * thread count is a multiple of the warp size; `bar.arrive` needs its thread count.
 */
function checkBarrierImmediates(c: FnLowerer): void {
  const { opcode, mods, operands: ops } = c.ins;
  if (mods.includes('warp')) return; // bar.warp.sync membermask
  const red = mods.includes('red');
  const idAt = red ? 1 : 0;
  const countAt = red ? (ops.length === 4 ? 2 : -1) : ops.length >= 2 ? 1 : -1;
  const name = `${opcode}.${mods.find((m) => m === 'sync' || m === 'arrive' || m === 'red') ?? 'sync'}`;
  const id = ops[idAt];
  if (id?.kind === 'int' && BigInt.asUintN(32, id.value) > 15n) {
    fail(c, 'PTX_IMMEDIATE_RANGE', `Barrier number '${BigInt.asUintN(64, id.value)}' out of range, expected to be in range [0..15]`);
  }
  const count = countAt >= 0 ? ops[countAt] : undefined;
  if (count?.kind === 'int' && BigInt.asUintN(32, count.value) % 32n !== 0n) {
    fail(c, 'PTX_IMMEDIATE_RANGE', `Number of threads participating in barrier must be in multiple of warp size ('${name}': ${count.value})`);
  }
  if (mods.includes('arrive') && !red && ops.length < 2) {
    fail(c, 'PTX_ARGUMENT_MISMATCH', `Arguments mismatch for instruction '${name}': .arrive needs the number of participating threads`);
  }
}

/** bar/barrier operands: barrier ids, thread counts and masks are 32-bit integers; `.red` has a result and a predicate. */
function checkBarrierOperands(c: FnLowerer, t: PtxType | undefined): void {
  const ops = c.ins.operands;
  checkBarrierImmediates(c);
  const red = c.ins.mods.includes('red');
  ops.forEach((o, k) => {
    let w: Want = { t: U32, mode: 'exact' };
    if (red && k === 0) w = { t: t ?? U32, mode: 'exact', dst: true };
    else if (red && k === ops.length - 1) w = { t: PRED, mode: 'exact' };
    checkOperand(c, o, k, w);
  });
}

/** Every modifier is one the opcode takes (at most one vector width, one rounding mode). */
function checkModifiers(c: FnLowerer, t: PtxType | undefined): void {
  const { opcode, mods } = c.ins;
  const allowed = allowedMods(opcode, t, mods);
  if (!allowed) return;
  let vec = 0;
  let rnd = 0;
  for (const m of mods) {
    if (isTypeMod(m)) continue;
    if (/^v\d+$/.test(m) && m !== 'v2' && m !== 'v4' && m !== 'v8') fail(c, 'PTX_ILLEGAL_MODIFIER', `Unknown modifier '.${m}'`);
    if (!allowed.has(m)) illegalModifier(c, m);
    if (/^v\d+$/.test(m) && ++vec > 1) fail(c, 'PTX_ILLEGAL_MODIFIER', `Multiple vector modifiers specified for instruction '${ptxasName(c)}'`);
    if (ROUNDING.has(m) && ++rnd > 1) fail(c, 'PTX_ILLEGAL_MODIFIER', `Multiple rounding modifiers specified for instruction '${ptxasName(c)}'`);
  }
  if ((opcode === 'ld' || opcode === 'st') && mods.includes('param')) {
    // ptxas 13.0.88 takes the cache operators .ca/.cg/.cs/.lu/.cv on .param, not eviction priorities, .nc or .wb/.wt
    const cache = mods.find((m) => m.startsWith('L1::') || m.startsWith('L2::') || ['nc', 'wb', 'wt'].includes(m));
    if (cache) fail(c, 'PTX_ILLEGAL_MODIFIER', `Modifier '.${cache}' cannot be applied to '.param' space for instruction '${opcode}'`);
  }
  if ((opcode === 'ld' || opcode === 'st') && mods.includes('volatile') && (mods.includes('local') || mods.includes('param'))) {
    fail(c, 'PTX_ILLEGAL_MODIFIER', `Modifier '.volatile' cannot be applied to '.${mods.includes('local') ? 'local' : 'param'}' space`);
  }
  if (opcode === 'ld' || opcode === 'st') checkMemoryOrder(c);
}

const SCOPES = ['cta', 'cluster', 'gpu', 'sys'];
const ORDERS = ['relaxed', 'acquire', 'release'];

/**
 * ld/st memory consistency qualifiers (PTX ISA "Memory Consistency Model"; ptxas 13.0.88 words): a scope needs
 * a memory order and an order needs a scope ("Modifier '.release' requires scope with 'st' instruction"),
 * `.weak` takes no scope, and `.volatile` (relaxed.sys) takes neither ("Duplicate .release modifier").
 */
function checkMemoryOrder(c: FnLowerer): void {
  const { opcode, mods } = c.ins;
  const scope = mods.find((m) => SCOPES.includes(m));
  const order = mods.find((m) => ORDERS.includes(m));
  if (mods.includes('volatile') && (order || scope)) fail(c, 'PTX_ILLEGAL_MODIFIER', `Duplicate .${order ?? scope} modifier ('.volatile' is .relaxed.sys)`);
  if (mods.includes('weak') && scope) fail(c, 'PTX_ILLEGAL_MODIFIER', `Modifier '.weak' cannot be combined with modifier '.${scope}'`);
  if (scope && !order) fail(c, 'PTX_ILLEGAL_MODIFIER', `Modifier '.${scope}' requires memory order with '${opcode}' instruction`);
  if (order && !scope) fail(c, 'PTX_ILLEGAL_MODIFIER', `Modifier '.${order}' requires scope with '${opcode}' instruction`);
}

const MEMORY_OPS = new Set(['ld', 'ldu', 'st', 'atom', 'red', 'prefetch', 'prefetchu']);

/**
 * A 32-bit register as a global or generic address: ptxas 13 warns "Program uses 32-bit address ...
 * conflicting with .address_size 64" and stops ("32-Bit compilation is no longer supported").
 * Shared, local, const and param addresses are 32-bit window offsets and stay legal.
 */
function checkAddressSize(c: FnLowerer): void {
  const { opcode, mods, operands } = c.ins;
  // `mov.u32 r, g` / `cvta.global.u32`: the 32-bit address of a .global variable, or a 32-bit generic address.
  if (opcode === 'mov' && operands.length === 2 && operands[1]!.kind === 'name' && (mods.includes('u32') || mods.includes('b32') || mods.includes('s32'))) {
    const s = c.lookup((operands[1] as { name: string }).name);
    if (s?.kind === 'var' && s.space === 'global') {
      fail(c, 'PTX_ADDRESS_SIZE_32', `Program uses 32-bit address ('${(operands[1] as { name: string }).name}') which is conflicting with .address_size 64: 32-bit compilation is no longer supported`);
    }
  }
  if (opcode === 'cvta' && mods.includes('u32')) {
    fail(c, 'PTX_ADDRESS_SIZE_32', `Program uses 32-bit address (cvta.u32) which is conflicting with .address_size 64: 32-bit compilation is no longer supported`);
  }
  if (!MEMORY_OPS.has(opcode)) return;
  for (const m of mods) if (m === 'shared' || m.startsWith('shared::') || m === 'local' || m === 'const' || m === 'param') return;
  let a: Operand | undefined;
  for (const o of operands) {
    if (o.kind === 'addr') {
      a = o;
      break;
    }
  }
  if (!a || a.kind !== 'addr' || a.base === undefined) return;
  const dot = a.base.indexOf('.');
  const s = c.lookup(dot < 0 ? a.base : a.base.slice(0, dot));
  if (s?.kind !== 'reg' || (s.vec && dot < 0)) return;
  if (s.type.bits === 32) {
    fail(c, 'PTX_ADDRESS_SIZE_32', `Program uses 32-bit address ('${a.base}') which is conflicting with .address_size 64: 32-bit compilation is no longer supported`);
  }
}

/**
 * The oldest `.target` and PTX ISA version each instruction form needs (PTX ISA "Target ISA notes" and "PTX ISA
 * notes" of each instruction). `form` names what the instruction uses in ptxas's words (probed with ptxas
 * 13.0.88 on one-instruction kernels, typo of "arithemetic" included), or undefined when it does not use it;
 * the message is `<form> requires .target sm_N or higher` / `<form> requires PTX ISA .version X.Y or later`.
 * `opcodes` limits a row to some opcodes (undefined: every instruction). `ptx` is major*100+minor.
 */
interface FeatureGate {
  readonly opcodes?: readonly string[];
  readonly form: (opcode: string, mods: readonly string[], types: readonly string[]) => string | undefined;
  readonly sm?: number;
  readonly ptx?: number;
  /** Only for targets below this (`cvt` to e4m3x2 has its own PTX version on sm_89). */
  readonly belowSm?: number;
}
const hasAny = (mods: readonly string[], xs: readonly string[]): string | undefined => mods.find((m) => xs.includes(m));
const HALF = ['f16', 'f16x2'];
const BHALF = ['bf16', 'bf16x2'];
const ATOM_SPACE = (mods: readonly string[]): string => (mods.includes('shared') || mods.some((m) => m.startsWith('shared::')) ? '.shared' : mods.includes('global') ? '.global' : '');
const FEATURE_GATES: readonly FeatureGate[] = [
  { opcodes: ['shf'], sm: 32, form: (_o, m) => `Instruction '${m.includes('l') ? 'shf.l' : m.includes('r') ? 'shf.r' : 'shf'}'` },
  { opcodes: ['dp4a', 'dp2a'], sm: 61, form: (o) => `Instruction '${o}'` },
  { opcodes: ['ld'], sm: 32, form: (_o, m) => (m.includes('nc') ? "Instruction 'ld.nc'" : undefined) },
  { opcodes: ['cvt'], sm: 80, form: (_o, _m, t) => (t.includes('f32') && (t[0] === 'f16x2' || t[0] === 'bf16x2') ? `Feature 'cvt.${t[0]}.f32'` : undefined) },
  { sm: 70, ptx: 803, form: (_o, _m, t) => (t.includes('b128') ? "Feature 'Type .b128'" : undefined) },
  // the .bf16/.bf16x2 types themselves, on any instruction
  { sm: 80, form: (_o, _m, t) => { const b = hasAny(t, BHALF); return b ? `Feature '.${b}'` : undefined; } },
  { opcodes: ['add', 'sub', 'mul', 'fma', 'neg', 'abs', 'setp', 'set'], sm: 53, form: (o, _m, t) => (hasAny(o === 'set' ? t.slice(1) : t, HALF) ? "Feature 'f16 arithemetic and compare instructions'" : undefined) },
  { opcodes: ['min', 'max'], sm: 80, ptx: 700, form: (o, _m, t) => (hasAny(t, HALF) ? `Feature '${o}.f16 or ${o}.f16x2'` : undefined) },
  { opcodes: ['ex2'], sm: 75, ptx: 700, form: (_o, _m, t) => (hasAny(t, HALF) ? "Feature 'ex2.f16/f16x2'" : undefined) },
  { opcodes: ['add', 'sub', 'mul', 'setp', 'ex2'], sm: 90, ptx: 708, form: (o, _m, t) => { const b = hasAny(t, BHALF); return b ? `Feature '${o}.${b}'` : undefined; } },
  { opcodes: ['tanh'], sm: 75, ptx: 700, form: () => "Feature 'tanh'" },
  { opcodes: ['redux'], sm: 80, ptx: 700, form: () => "Feature 'redux'" },
  { opcodes: ['min', 'max'], sm: 80, ptx: 700, form: (_o, m) => (m.includes('NaN') ? "Modifier '.NaN'" : undefined) },
  { opcodes: ['min', 'max'], sm: 86, ptx: 702, form: (_o, m) => (m.includes('abs') ? "Feature '.abs'" : undefined) },
  { opcodes: ['cvt', 'fma', 'min', 'max'], sm: 80, ptx: 700, form: (_o, m) => (m.includes('relu') ? "Modifier '.relu'" : undefined) },
  { opcodes: ['cvt'], sm: 89, ptx: 708, form: (_o, m) => (hasAny(m, ['e4m3x2', 'e5m2x2']) ? "Feature 'cvt with .e4m3x2/.e5m2x2'" : undefined) },
  { opcodes: ['cvt'], ptx: 801, belowSm: 90, form: (_o, m) => (hasAny(m, ['e4m3x2', 'e5m2x2']) ? "Feature 'cvt with .e4m3x2/.e5m2x2 on sm_89'" : undefined) },
  { ptx: 708, form: (_o, m) => (m.some((x) => x.endsWith('::cta')) ? "Feature '::cta'" : undefined) },
  { sm: 90, ptx: 708, form: (_o, m) => (m.some((x) => x.endsWith('::cluster')) ? "Feature '::cluster'" : undefined) },
  { opcodes: ['fence', 'membar', 'atom', 'red', 'ld', 'st'], sm: 90, ptx: 708, form: (_o, m) => (m.includes('cluster') ? "Feature '.cluster scope'" : undefined) },
  { opcodes: ['fence'], sm: 70, ptx: 600, form: (_o, m) => (m.includes('proxy') ? undefined : "Feature 'fence instruction'") },
  { opcodes: ['fence'], sm: 70, ptx: 705, form: (_o, m) => (m.includes('proxy') ? "Feature 'fence.proxy'" : undefined) },
  { opcodes: ['fence'], sm: 90, ptx: 800, form: (_o, m) => (m.includes('proxy') && m.includes('async') ? "Modifier '.async'" : undefined) },
  { opcodes: ['ld', 'st', 'atom', 'red'], sm: 70, ptx: 600, form: (_o, m) => { const x = hasAny(m, ['relaxed', 'acquire', 'release']); return x ? `Feature '.${x}'` : undefined; } },
  { opcodes: ['ld', 'st'], sm: 70, ptx: 802, form: (_o, m) => (m.includes('mmio') ? "Feature '.mmio'" : undefined) },
  { opcodes: ['atom', 'red'], sm: 60, form: (o, m, t) => (t.includes('f64') && m.includes('add') ? `Instruction '${o}.add.f64${ATOM_SPACE(m)}'` : undefined) },
  { opcodes: ['atom', 'red'], sm: 32, form: (o, m, t) => { const op = hasAny(m, ['min', 'max', 'and', 'or', 'xor']); return op && hasAny(t, ['s64', 'u64', 'b64']) ? `Instruction '${o}.${op}.${hasAny(t, ['s64', 'u64', 'b64'])}${ATOM_SPACE(m)}'` : undefined; } },
  { opcodes: ['match'], sm: 70, ptx: 600, form: () => "Instruction 'match'" },
  { opcodes: ['nanosleep'], sm: 70, ptx: 602, form: () => "Instruction 'nanosleep'" },
  { opcodes: ['activemask'], ptx: 602, form: () => "Feature 'activemask'" },
  { opcodes: ['createpolicy'], sm: 80, ptx: 704, form: (_o, m) => (m.includes('fractional') ? "Feature 'createpolicy.fractional'" : "Feature 'createpolicy'") },
  { opcodes: ['ld', 'st', 'atom', 'red', 'cp', 'prefetch'], sm: 80, ptx: 704, form: (_o, m) => (m.includes('L2::cache_hint') ? "Modifier '.L2::cache_hint'" : undefined) },
  { opcodes: ['ld'], ptx: 704, form: (_o, m) => (hasAny(m, ['L2::64B', 'L2::128B', 'L2::256B']) ? "Feature 'cache prefetching'" : undefined) },
  { opcodes: ['ld', 'st'], sm: 70, ptx: 704, form: (o, m) => { const x = m.find((y) => y.startsWith('L1::')); return x ? `Modifier '.${x.slice(4)}' on '${o}'` : undefined; } },
  { opcodes: ['cp'], sm: 80, ptx: 700, form: (_o, m) => (m[0] === 'async' && m[1] !== 'bulk' ? (m[1] === 'mbarrier' ? "Feature 'cp.async.mbarrier.arrive'" : "Feature 'cp.async'") : undefined) },
  { opcodes: ['ldmatrix'], sm: 75, ptx: 605, form: () => "Feature 'ldmatrix'" },
  { opcodes: ['wmma'], sm: 80, ptx: 700, form: (_o, _m, t) => (hasAny(t, ['bf16', 'tf32']) ? "Feature 'WMMA with .bf16/.tf32 FP types'" : undefined) },
  { opcodes: ['wmma'], sm: 80, ptx: 700, form: (_o, _m, t) => (t.includes('f64') ? "Feature 'WMMA with fp64 types'" : undefined) },
  { opcodes: ['wmma'], ptx: 603, form: (_o, m) => (m.includes('aligned') ? "Feature '.aligned modifier for wmma'" : undefined) },
  { opcodes: ['stmatrix'], sm: 90, ptx: 708, form: () => "Feature 'stmatrix'" },
  { opcodes: ['mapa', 'getctarank'], sm: 90, ptx: 708, form: (o) => `Feature '${o}'` },
  { opcodes: ['elect'], sm: 90, ptx: 800, form: () => "Feature 'elect'" },
  { opcodes: ['griddepcontrol'], sm: 90, ptx: 708, form: (_o, m) => `Modifier '.${m[0] ?? 'wait'}'` },
  { opcodes: ['discard', 'applypriority'], sm: 80, ptx: 704, form: (o) => `Feature '${o}'` },
];
const GATES_BY_OPCODE = new Map<string, FeatureGate[]>();
const GATES_ANY: FeatureGate[] = [];
for (const g of FEATURE_GATES) {
  if (!g.opcodes) GATES_ANY.push(g);
  else for (const o of g.opcodes) GATES_BY_OPCODE.set(o, [...(GATES_BY_OPCODE.get(o) ?? []), g]);
}

function checkFeatureGates(c: FnLowerer, types: readonly string[]): void {
  const sm = c.mod.targetSm;
  const ptx = c.mod.ptxVersion;
  const { opcode, mods } = c.ins;
  for (const list of [GATES_ANY, GATES_BY_OPCODE.get(opcode)]) {
    for (const g of list ?? []) {
      if (g.belowSm !== undefined && (sm === undefined || sm >= g.belowSm)) continue;
      const needSm = g.sm !== undefined && sm !== undefined && sm > 0 && sm < g.sm;
      const needPtx = g.ptx !== undefined && ptx !== undefined && ptx < g.ptx;
      if (!needSm && !needPtx) continue;
      const form = g.form(opcode, mods, types);
      if (!form) continue;
      if (needSm) fail(c, 'PTX_TARGET_FEATURE', `${form} requires .target sm_${g.sm} or higher`);
      fail(c, 'PTX_VERSION_FEATURE', `${form} requires PTX ISA .version ${Math.floor(g.ptx! / 100)}.${g.ptx! % 100} or later`);
    }
  }
}

/** An address `[r+off]` needs an integer or untyped register (ptxas: "Illegal to use symbol ... as address operand"). */
function checkAddressRegisters(c: FnLowerer): void {
  for (const o of c.ins.operands) {
    if (o.kind !== 'addr' || o.base === undefined) continue;
    const dot = o.base.indexOf('.');
    const s = c.lookup(dot < 0 ? o.base : o.base.slice(0, dot));
    if (s?.kind !== 'reg' || (s.vec && dot < 0)) continue;
    if (s.type.kind === 'f' || s.type.kind === 'pred') {
      fail(c, 'PTX_ADDRESS_OPERAND', `Illegal to use symbol '${o.base}' of type .${s.type.name} as address operand. Use integer or bit only.`);
    }
  }
}

/** The checks of one instruction that read only its opcode, modifiers and module (and its address size). */
function checkForm(c: FnLowerer): { t: PtxType | undefined; types: PtxType[] } {
  const { opcode, mods } = c.ins;
  checkFeatureGates(c, mods.filter(isTypeMod));
  if ((opcode === 'ld' || opcode === 'st' || opcode === 'ldu') && mods.filter((m) => SPACE_MODS.has(m)).length > 1) {
    fail(c, 'PTX_STATE_SPACE', `Unexpected number of state spaces specified in instruction '${opcode}'`);
  }
  if (opcode === 'shf' && !mods.includes('clamp') && !mods.includes('wrap')) {
    fail(c, 'PTX_MODIFIER_REQUIRED', `Clamp modifier required for instruction '${mods.includes('l') ? 'shf.l' : mods.includes('r') ? 'shf.r' : 'shf'}'`);
  }
  if ((opcode === 'dp2a') && !mods.includes('lo') && !mods.includes('hi')) fail(c, 'PTX_MODIFIER_REQUIRED', `'.hi/.lo' modifier required for instruction 'dp2a'`);
  if (opcode === 'shf' && mods.includes('l') === mods.includes('r')) {
    if (mods.includes('l')) fail(c, 'PTX_ILLEGAL_MODIFIER', `Illegal modifier for instruction 'shf.l' (.l and .r)`);
    fail(c, 'PTX_UNKNOWN_INSTRUCTION', `Not a name of any known instruction: 'shf' (shf.l or shf.r)`);
  }
  if (opcode === 'dp4a' || opcode === 'dp2a') {
    // two types, .u32 or .s32 each (ptxas: "Unexpected instruction types specified for 'dp4a'")
    const ts = mods.filter(isTypeMod);
    if (ts.length !== 2 || ts.some((x) => x !== 'u32' && x !== 's32')) {
      fail(c, 'PTX_INSTRUCTION_TYPE', `Unexpected instruction types specified for '${ptxasName(c)}' (${ts.map((x) => `.${x}`).join('') || 'none'}; it takes .atype.btype, each .u32 or .s32)`);
    }
  }
  if ((opcode === 'vote' || opcode === 'shfl') && !mods.includes('sync') && (c.mod.targetSm ?? 0) >= 70 && (c.mod.ptxVersion ?? 0) >= 604) {
    fail(c, 'PTX_SYNC_REQUIRED', `Instruction '${opcode}' without '.sync' is not supported on .target sm_70 and higher from PTX ISA version 6.4`);
  }
  checkAddressSize(c);
  const types = mods.filter(isTypeMod).map((m) => ptxType(m)!);
  const allowed = TYPES[opcode];
  const t = types[types.length - 1];
  if (opcode === 'cvt' && !mods.includes('pack') && types.some((x) => x.kind === 'b')) {
    fail(c, 'PTX_INSTRUCTION_TYPE', `Unexpected instruction types specified for 'cvt' (${types.map((x) => `.${x.name}`).join('')}: conversions name signed, unsigned or float types)`);
  }
  // ptxas reads mul24/mad24 with a modifier it does not know as an unknown instruction name.
  if ((opcode === 'mul24' || opcode === 'mad24') && mods.some((m) => !isTypeMod(m) && m !== 'lo' && m !== 'hi' && m !== 'sat')) {
    fail(c, 'PTX_UNKNOWN_INSTRUCTION', `Not a name of any known instruction: '${opcode}' (.${mods.find((m) => !isTypeMod(m) && m !== 'lo' && m !== 'hi' && m !== 'sat')})`);
  }
  if ((opcode === 'mul24' || opcode === 'mad24') && !mods.includes('lo') && !mods.includes('hi')) {
    fail(c, 'PTX_UNKNOWN_INSTRUCTION', `Not a name of any known instruction: '${opcode}' (${opcode}.lo or ${opcode}.hi)`);
  }
  if (opcode === 'cvta' && mods.includes('to') && mods[0] !== 'to') fail(c, 'PTX_ILLEGAL_MODIFIER', `Unknown modifier '.to' (write cvta.to.<space>)`);
  if ((opcode === 'neg' || opcode === 'abs') && t && t.kind === 'u' && types.length === 1) {
    fail(c, 'PTX_INSTRUCTION_TYPE', `Instruction '${opcode}' applies only to signed numeric types (.${t.name})`);
  }
  if (allowed && !t && opcode !== 'vote') fail(c, 'PTX_INSTRUCTION_TYPE', `Unexpected instruction types specified for '${opcode}' (no instruction type; it takes ${allowed.map((x) => `.${x}`).join(' ')})`);
  if (allowed && t && (types.length !== 1 || !allowed.includes(t.name))) {
    fail(c, 'PTX_INSTRUCTION_TYPE', `Unexpected instruction types specified for '${opcode === 'shf' || opcode === 'createpolicy' ? ptxasName(c) : opcode}' (${types.map((x) => `.${x.name}`).join('')}; it takes ${allowed.map((x) => `.${x}`).join(' ')})`);
  }
  if (opcode === 'vote' && mods.includes('sync')) {
    const mode = mods.find((m) => m === 'ballot' || m === 'all' || m === 'any' || m === 'uni');
    if (!t) fail(c, 'PTX_INSTRUCTION_TYPE', `Unexpected instruction types specified for 'vote' (vote.sync.${mode ?? '<mode>'} needs .b32 or .pred)`);
    const want = mode === 'ballot' ? 'b32' : 'pred';
    if (mode && t.name !== want) fail(c, 'PTX_INSTRUCTION_TYPE', `Instruction 'vote' requires '.${want}' type with '.${mode}' modifier.`);
  }
  checkModifiers(c, t);
  if (t) checkRequiredMods(c, t, types);
  if (opcode === 'redux' && !mods.includes('sync')) fail(c, 'PTX_MODIFIER_REQUIRED', `.sync modifier required for instruction 'redux'`);
  if (opcode === 'redux' && t) checkReduxOperation(c, t);
  if (opcode === 'atom' || opcode === 'red') {
    const cmp = mods.find((m) => ALL_CMP.has(m));
    if (cmp) fail(c, 'PTX_ILLEGAL_MODIFIER', `Comparison qualifier is not allowed for instruction '${opcode}' (.${cmp})`);
  }
  if (opcode === 'bar' || opcode === 'barrier') checkBarrier(c, t);
  if (opcode === 'setp' || opcode === 'set') {
    const cmp = mods.find((m) => ALL_CMP.has(m));
    if (!cmp) fail(c, 'PTX_MODIFIER_REQUIRED', `Comparison modifier required for instruction '${opcode}'`);
    if (mods.filter((m) => ALL_CMP.has(m)).length > 1) fail(c, 'PTX_COMPARISON', `Multiple comparisons set in instruction '${opcode}' (${mods.filter((m) => ALL_CMP.has(m)).map((m) => `.${m}`).join(' ')})`);
    // set.CmpOp.dtype.stype: exactly two types (setp's one type is checked with TYPES)
    if (opcode === 'set' && types.length !== 2) fail(c, 'PTX_INSTRUCTION_TYPE', `Unexpected instruction types specified for 'set' (${types.map((x) => `.${x.name}`).join('')}: set takes a destination and a source type)`);
    const st = opcode === 'set' ? types[1] : t;
    if (cmp && st) {
      const ok = st.kind === 'f' ? FLT_CMP.has(cmp) : st.kind === 'b' ? cmp === 'eq' || cmp === 'ne' : st.kind === 'u' ? INT_CMP.has(cmp) || UNS_CMP.has(cmp) : INT_CMP.has(cmp);
      if (!ok) fail(c, 'PTX_COMPARISON', `Mismatch between instruction type and comparison qualifier (.${cmp} with .${st.name})`);
    }
  }
  return { t, types };
}

/**
 * Opcode/modifier combinations that passed the checks that read nothing else (per module: the .sync rule
 * reads its target and PTX version), with their types: most instructions of a function repeat a few forms,
 * so those checks run once per form. The operand checks still run on every instruction.
 */
const formsChecked = new WeakMap<object, FormNode>();

/** A trie over opcode then modifiers (no key string built per instruction); `checked` once the form passed. */
interface FormNode {
  next?: Map<string, FormNode>;
  checked?: { t: PtxType | undefined; types: PtxType[] };
  /** operandWants of the form by operand count (null: not checked), for the opcodes whose wants read nothing else. */
  wants?: Array<Want[] | null>;
}

/** Opcodes whose operandWants read the operands themselves (or check them): never cached per form. */
const WANTS_READ_OPERANDS = new Set(['mov', 'createpolicy', 'bfe', 'bfi']);

function formNode(root: FormNode, opcode: string, mods: readonly string[]): FormNode {
  let n = root;
  for (let k = -1; k < mods.length; k++) {
    const part = k < 0 ? opcode : mods[k]!;
    let next = (n.next ??= new Map()).get(part);
    if (!next) n.next.set(part, (next = {}));
    n = next;
  }
  return n;
}

const IMMEDIATE_ADDRESS_OPS = new Set(['ld', 'ldu', 'st', 'atom', 'red']);

/** `[24]`: an absolute address is a window offset, which ptxas takes only in .local and .param. */
function checkImmediateAddress(c: FnLowerer): void {
  for (const o of c.ins.operands) {
    if (o.kind !== 'addr' || o.base !== undefined || o.list) continue;
    if (c.ins.mods.some((m) => m === 'local' || m === 'param' || m.startsWith('param::'))) return;
    fail(c, 'PTX_ADDRESS_OPERAND', `Immediate addresses allowed only for .local state space ([${o.offset}] in '${[c.ins.opcode, ...c.ins.mods].join('.')}')`);
  }
}

/** Run every check on the current instruction (`c.ins`). */
export function checkInstruction(c: FnLowerer): void {
  const { opcode, mods } = c.ins;
  // operand checks first, as before the form cache (same first error)
  checkAddressRegisters(c);
  if (IMMEDIATE_ADDRESS_OPS.has(opcode)) checkImmediateAddress(c);
  let root = formsChecked.get(c.mod);
  if (!root) formsChecked.set(c.mod, (root = {}));
  const form = formNode(root, opcode, mods);
  let types: PtxType[];
  let t: PtxType | undefined;
  if (form.checked) {
    // the form's own checks passed before; the one check between them that reads operands, in its place
    checkAddressSize(c);
    ({ t, types } = form.checked);
  } else {
    ({ t, types } = checkForm(c));
    form.checked = { t, types };
  }
  c.formTypes = types;
  c.formTypesOf = c.ins;
  if (opcode === 'bar' || opcode === 'barrier') return checkBarrierOperands(c, t);
  if (opcode === 'mbarrier') return checkMbarrier(c);
  if (opcode === 'cp' && mods[0] === 'async' && (mods[1] === 'bulk' || mods[1] === 'mbarrier')) return checkAsyncCopyFamily(c);
  if (opcode === 'cp' && mods[0] === 'async' && !mods.some((m) => m.startsWith('bulk') || m.startsWith('mbarrier') || m === 'commit_group' || m === 'wait_group' || m === 'wait_all')) checkCpAsyncSize(c);
  if (!t) return;
  if (opcode === 'ld' || opcode === 'ldu') {
    checkVector(c, c.ins.operands[0]);
    checkStateSpace(c, c.ins.operands[1]);
  } else if (opcode === 'st') {
    checkVector(c, c.ins.operands[1]);
    checkStateSpace(c, c.ins.operands[0]);
  }
  const operands = c.ins.operands;
  let wants: Want[] | null | undefined;
  if (WANTS_READ_OPERANDS.has(opcode)) wants = operandWants(c, t, types);
  else {
    const byCount = (form.wants ??= []);
    wants = byCount[operands.length];
    if (wants === undefined) byCount[operands.length] = wants = operandWants(c, t, types) ?? null;
  }
  if (!wants) return;
  for (let k = 0; k < operands.length; k++) {
    const w = wants[k];
    if (w) checkOperand(c, operands[k]!, k, w);
  }
}
