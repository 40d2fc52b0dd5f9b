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
  max: [...INT, ...F16, ...FLT, 'u16x2', 's16x2'], abs: [...INT, ...F16, ...FLT], neg: [...INT, ...F16, ...FLT],
  mul: [...INT, ...F16, ...FLT], mad: [...INT, ...F16, ...FLT], div: [...INT, ...FLT], rem: INT,
  and: ['pred', ...BITS], or: ['pred', ...BITS], xor: ['pred', ...BITS], not: ['pred', ...BITS], cnot: BITS,
  shl: BITS, shr: [...BITS, ...INT], selp: [...BITS, ...INT, ...FLT],
  fma: [...F16, ...FLT], rcp: FLT, sqrt: FLT, rsqrt: FLT, sin: ['f32'], cos: ['f32'], lg2: ['f32'],
  ex2: ['f32', ...F16], tanh: ['f32', ...F16], popc: ['b32', 'b64'], clz: ['b32', 'b64'], brev: ['b32', 'b64'],
  bfind: ['u32', 'u64', 's32', 's64'], bfe: ['u32', 'u64', 's32', 's64'], bfi: ['b32', 'b64'], prmt: ['b32'],
  copysign: FLT, testp: FLT, cvta: ['u32', 'u64'],
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
const PRED = T('pred');

function fail(c: FnLowerer, code: string, message: string): never {
  throw new PtxforgeError(code, message, { pos: { file: c.mod.file, line: c.ins.pos.line, col: c.ins.pos.col } });
}

/** ptxas names the instruction with the modifiers that select its form (`mul.wide`, `cvta.to`). */
function ptxasName(c: FnLowerer): string {
  const { opcode, mods } = c.ins;
  if ((opcode === 'mul' || opcode === 'mad') && (mods.includes('lo') || mods.includes('hi') || mods.includes('wide'))) {
    return `${opcode}.${mods.find((m) => m === 'lo' || m === 'hi' || m === 'wide')}`;
  }
  if (opcode === 'cvta' && mods.includes('to')) return 'cvta.to';
  return opcode;
}

/** Whether a register of type r may stand where the instruction wants type t. */
export function compatible(t: PtxType, r: PtxType, mode: Mode): boolean {
  if (t.kind === 'pred' || r.kind === 'pred') return t.kind === r.kind;
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
  if (t.kind === 'b' && o.bits !== undefined && o.width === t.bits) return undefined;
  return `the float literal is not a .${t.name} value`;
}

const describeType = (r: PtxType): string => `.${r.name}`;

/** Check one operand against its expectation; vectors element by element. */
function checkOperand(c: FnLowerer, o: Operand, k: number, w: Want): void {
  if (w === 'skip') return;
  const name = ptxasName(c);
  const bad = (why: string): never => fail(c, 'PTX_ARGUMENT_MISMATCH', `Arguments mismatch for instruction '${name}': operand ${k + 1} ${why}`);
  switch (o.kind) {
    case 'int': case 'float': {
      if (w.dst) bad(`is an immediate where a destination register is needed`);
      const p = immediateProblem(o, w.t);
      if (p) bad(`(${c.describe(o)}): ${p}`);
      return;
    }
    case 'not':
      if (w.t.kind !== 'pred') bad(`'${c.describe(o)}': '!' applies to predicates`);
      return checkOperand(c, o.operand, k, w);
    case 'name': {
      const full = o.comp !== undefined ? `${o.name}.${o.comp}` : o.name;
      const s = c.lookup(o.name);
      if (!s) {
        if (isSpecialRegister(full)) {
          if (w.t.kind === 'f') fail(c, 'PTX_ARGUMENT_MISMATCH', `Special register argument not allowed for instruction '${name}' (${full} with .${w.t.name})`);
          if (w.t.kind === 'pred') bad(`(${full}) is not a predicate`);
        }
        return; // undeclared names: the handler reports them
      }
      if (s.kind === 'reg') {
        if (!compatible(w.t, s.type, w.mode)) bad(`'${full}' is a ${describeType(s.type)} register, expected ${w.t.kind === 'pred' ? 'a .pred register' : `.${w.t.name}`}`);
        return;
      }
      if (s.kind === 'var' && w.t.kind !== 'b' && w.t.kind !== 'u' && w.t.kind !== 's') bad(`(the address of '${o.name}') is not a .${w.t.name} value`);
      return;
    }
    case 'vec':
      for (const e of o.elems) if (e.kind !== 'sink') checkOperand(c, e, k, w);
      return;
    case 'pair':
      checkOperand(c, o.first, k, w);
      if (o.second.kind !== 'sink') checkOperand(c, o.second, k, w);
      return;
    default:
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
    case 'sin': case 'cos': case 'lg2': case 'ex2': case 'tanh': case 'brev':
      if (t.name.endsWith('x2') && t.bits === 32 && (opcode === 'min' || opcode === 'max') && t.kind !== 'f') return undefined;
      return all();
    case 'mul': case 'mad':
      if (mods.includes('wide') && t.kind !== 'f') {
        if (t.bits > 32) return undefined;
        return opcode === 'mul' ? [dst(wide(t)), ex(t), ex(t)] : [dst(wide(t)), ex(t), ex(t), ex(wide(t))];
      }
      return all();
    case 'shl': case 'shr':
      return [dst(t), ex(t), ex(T(`b32`))];
    case 'popc': case 'clz': case 'bfind':
      return [dst(U32), ex(t)];
    case 'bfe':
      return [dst(t), ex(t), ex(B32), ex(B32)];
    case 'bfi':
      return [dst(t), ex(t), ex(t), ex(B32), ex(B32)];
    case 'prmt':
      return [dst(B32), ex(B32), ex(B32), ex(B32)];
    case 'selp':
      return [dst(t), ex(t), ex(t), ex(PRED)];
    case 'setp':
      return [dst(PRED), ex(t), ex(t), ex(PRED)];
    case 'testp':
      return [dst(PRED), ex(t)];
    case 'cvt': {
      if (types.length !== 2) return undefined;
      return [dst(types[0]!, 'relaxed'), { t: types[1]!, mode: 'relaxed' }];
    }
    case 'cvta':
      return [dst(t), mods.includes('to') || n < 2 ? ex(t) : 'skip'];
    case 'mov': {
      if (n !== 2 || c.ins.operands.some((o) => o.kind === 'vec')) return undefined;
      return [dst(t), ex(t)];
    }
    case 'ld': case 'ldu':
      return [dst(t, 'relaxed'), 'skip', 'skip'];
    case 'st':
      return ['skip', { t, mode: 'relaxed' }, 'skip'];
    default:
      return undefined;
  }
}

/** ld/st: `.vN` and the vector operand agree in size; vector elements have one size. */
function checkVector(c: FnLowerer, o: Operand | undefined): void {
  if (!o) return;
  const v = c.ins.mods.find((m) => /^v\d+$/.test(m));
  const want = v ? Number(v.slice(1)) : 0;
  const name = ptxasName(c);
  if (o.kind === 'vec') {
    if (o.elems.length !== want) fail(c, 'PTX_VECTOR_SIZE', `Argument vector size mismatch for instruction '${name}': {${o.elems.length} elements} with ${want ? `.v${want}` : 'no vector modifier'}`);
    let bits = 0;
    for (const e of o.elems) {
      if (e.kind !== 'name') continue;
      const s = c.lookup(e.name);
      if (s?.kind !== 'reg') continue;
      if (bits && s.type.bits !== bits) fail(c, 'PTX_VECTOR_SIZE', `Incompatible elements of vector expression in '${name}': '${e.name}' is ${s.type.bits}-bit, an earlier element ${bits}-bit`);
      bits = s.type.bits;
    }
  } else if (want && o.kind !== 'sink') {
    fail(c, 'PTX_VECTOR_SIZE', `Argument vector size mismatch for instruction '${name}': .v${want} needs a {…} operand of ${want} elements`);
  }
}

/** ld/st: the address names a variable of the instruction's state space (generic reaches any). */
function checkStateSpace(c: FnLowerer, o: Operand | undefined): void {
  if (!o || o.kind !== 'addr' || o.base === undefined) return;
  const space = c.ins.mods.find((m) => m === 'global' || m === 'shared' || m === 'local' || m === 'const' || m === 'param' || m.startsWith('shared::'));
  const s = c.lookup(o.base.split('.')[0]!);
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

/** Run every check on the current instruction (`c.ins`). */
export function checkInstruction(c: FnLowerer): void {
  const { opcode, mods } = c.ins;
  const types = mods.filter(isTypeMod).map((m) => ptxType(m)!);
  const allowed = TYPES[opcode];
  const t = types[types.length - 1];
  if (allowed && t && (types.length !== 1 || !allowed.includes(t.name))) {
    fail(c, 'PTX_INSTRUCTION_TYPE', `Unexpected instruction types specified for '${opcode}' (${types.map((x) => `.${x.name}`).join('')}; it takes ${allowed.map((x) => `.${x}`).join(' ')})`);
  }
  if (opcode === 'setp' || opcode === 'set') {
    const cmp = mods.find((m) => ALL_CMP.has(m));
    const st = opcode === 'set' ? types[1] : t;
    if (cmp && st) {
      const ok = st.kind === 'f' ? FLT_CMP.has(cmp) : st.kind === 'b' ? cmp === 'eq' || cmp === 'ne' : st.kind === 'u' ? INT_CMP.has(cmp) || UNS_CMP.has(cmp) : INT_CMP.has(cmp);
      if (!ok) fail(c, 'PTX_COMPARISON', `Mismatch between instruction type and comparison qualifier (.${cmp} with .${st.name})`);
    }
  }
  if (!t) return;
  if (opcode === 'ld' || opcode === 'ldu') {
    checkVector(c, c.ins.operands[0]);
    checkStateSpace(c, c.ins.operands[1]);
  } else if (opcode === 'st') {
    checkVector(c, c.ins.operands[1]);
    checkStateSpace(c, c.ins.operands[0]);
  }
  const wants = operandWants(c, t, types);
  if (!wants) return;
  c.ins.operands.forEach((o, k) => {
    const w = wants[k];
    if (w) checkOperand(c, o, k, w);
  });
}
