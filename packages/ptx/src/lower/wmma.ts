import { RZ, imm, mem, reg, type MemOperand, type Operand as OriOperand, type Register } from '@ptxforge/kernel';
import type { Operand } from '../ast.js';
import type { FnLowerer } from './context.js';
import { isTypeMod, ptxType, type PtxType } from './types.js';

/**
 * `wmma.load`, `wmma.store` and `wmma.mma` lowered as ptxas 13 lowers them for sm_80+ (read off its sm_90 cubins
 * for the same PTX, see wmma.test.ts): the fragments are the tensor-core operand layouts of the HMMA / IMMA /
 * DMMA instructions (packages/interp mma.ts), each lane loads and stores its own elements with ordinary loads
 * and stores, and one wmma.mma is 2 (f16, bf16, u8/s8: one per 8-column half of D), 4 (tf32 m16n16k8: halves of
 * D times halves of k) or 1 (f64) matrix instructions. With g = laneid >> 2, t = laneid & 3, fragment register i
 * of the PTX operand holds:
 *
 *   m16n16k16 f16 A (8 regs, 2 halves each): regs i and i+4 are the same, j = i % 4: row g + 8(j&1), col 2t + e + 8(j>>1)
 *   m16n16k16 f16 B (8 regs): j = i % 4: k 2t + e + 8(j&1), col g + 8(j>>1)
 *   m16n16k16 bf16 A / B (4 regs): as f16 without the copies
 *   m16n16k16 u8/s8 A (2 regs, 4 bytes each): row g + 8i, col 4t + e;  B: k 4t + e, col g + 8i
 *   m16n16k8 tf32 A (4 regs): row g + 8(i&1), col t + 4(i>>1);  B: k t + 4(i&1), col g + 8(i>>1)
 *   m16n16 C / D f32 or s32 (8 regs): p = i >> 1: row g + 8(p&1), col 2t + (i&1) + 8(p>>1)
 *   m8n8k4 f64 A (1 reg): row g, col t;  B: k t, col g;  C / D (2 regs): row g, col 2t + i
 *
 * The layout (.row/.col) and the stride (in elements; the matrix's own width when absent) only say where an
 * element is in memory: the fragment is the same, so wmma.mma's layout qualifiers do not change the products.
 * A fragment register whose elements are adjacent in memory is one 32-bit load (ptxas: LDS/LDG of the word);
 * otherwise its elements are loaded one by one and packed (ptxas transposes such words with MOVM for f16; the
 * values are the same). f16 accumulators, .satfinite and the m32n8k16 / m8n32k16 / sub-byte / b1 shapes are
 * reported as unsupported, naming the form.
 */

interface Frag {
  /** PTX registers of the fragment. */
  readonly regs: number;
  /** Distinct registers (f16 A/B fragments hold each one twice). */
  readonly distinct: number;
  /** Elements per register and their size in bytes. */
  readonly per: number;
  readonly bytes: number;
  /** Matrix coordinates (first index, second index) of element e of register i: lane parts (g or t*scale) plus constants. */
  readonly at: (i: number, e: number) => { p: LanePart; dp: number; q: LanePart; dq: number };
  /** The matrix's height and width (stride default: the width for .row, the height for .col). */
  readonly dims: [number, number];
}
type LanePart = 'g' | 't' | 't2' | 't4';

const FRAGS: Record<string, Frag> = {
  // A: (row, k); B: (k, col); C: (row, col)
  'm16n16k16.a.f16': { regs: 8, distinct: 4, per: 2, bytes: 2, dims: [16, 16], at: (i, e) => ({ p: 'g', dp: 8 * (i & 1), q: 't2', dq: e + 8 * ((i >> 1) & 1) }) },
  'm16n16k16.b.f16': { regs: 8, distinct: 4, per: 2, bytes: 2, dims: [16, 16], at: (i, e) => ({ p: 't2', dp: e + 8 * (i & 1), q: 'g', dq: 8 * ((i >> 1) & 1) }) },
  'm16n16k16.a.bf16': { regs: 4, distinct: 4, per: 2, bytes: 2, dims: [16, 16], at: (i, e) => ({ p: 'g', dp: 8 * (i & 1), q: 't2', dq: e + 8 * (i >> 1) }) },
  'm16n16k16.b.bf16': { regs: 4, distinct: 4, per: 2, bytes: 2, dims: [16, 16], at: (i, e) => ({ p: 't2', dp: e + 8 * (i & 1), q: 'g', dq: 8 * (i >> 1) }) },
  'm16n16k16.a.u8': { regs: 2, distinct: 2, per: 4, bytes: 1, dims: [16, 16], at: (i, e) => ({ p: 'g', dp: 8 * i, q: 't4', dq: e }) },
  'm16n16k16.b.u8': { regs: 2, distinct: 2, per: 4, bytes: 1, dims: [16, 16], at: (i, e) => ({ p: 't4', dp: e, q: 'g', dq: 8 * i }) },
  'm16n16k8.a.tf32': { regs: 4, distinct: 4, per: 1, bytes: 4, dims: [16, 8], at: (i) => ({ p: 'g', dp: 8 * (i & 1), q: 't', dq: 4 * (i >> 1) }) },
  'm16n16k8.b.tf32': { regs: 4, distinct: 4, per: 1, bytes: 4, dims: [8, 16], at: (i) => ({ p: 't', dp: 4 * (i & 1), q: 'g', dq: 8 * (i >> 1) }) },
  'm16n16.c.32': { regs: 8, distinct: 8, per: 1, bytes: 4, dims: [16, 16], at: (i) => ({ p: 'g', dp: 8 * ((i >> 1) & 1), q: 't2', dq: (i & 1) + 8 * (i >> 2) }) },
  'm8n8k4.a.f64': { regs: 1, distinct: 1, per: 1, bytes: 8, dims: [8, 4], at: () => ({ p: 'g', dp: 0, q: 't', dq: 0 }) },
  'm8n8k4.b.f64': { regs: 1, distinct: 1, per: 1, bytes: 8, dims: [4, 8], at: () => ({ p: 't', dp: 0, q: 'g', dq: 0 }) },
  'm8n8k4.c.f64': { regs: 2, distinct: 2, per: 1, bytes: 8, dims: [8, 8], at: (i) => ({ p: 'g', dp: 0, q: 't2', dq: i }) },
};

const B32 = ptxType('b32')!;
const U32 = ptxType('u32')!;
const LUT_AND = 0xc0;
const LUT_OR = 0xfc;
const SHAPES = new Set(['m16n16k16', 'm16n16k8', 'm8n8k4', 'm32n8k16', 'm8n32k16', 'm8n8k32', 'm8n8k128']);

function shapeOf(c: FnLowerer): string {
  const s = c.ins.mods.find((m) => SHAPES.has(m));
  if (!s) c.fail('PTX_SEMANTIC', `${c.opText}: missing the matrix shape`);
  return s;
}

/** The fragment table entry of a load/store, or an unsupported error naming the form. */
function fragOf(c: FnLowerer, which: 'a' | 'b' | 'c', shape: string, t: PtxType): Frag {
  let key: string;
  if (which === 'c') key = shape === 'm8n8k4' && t.name === 'f64' ? 'm8n8k4.c.f64' : (shape === 'm16n16k16' || shape === 'm16n16k8') && (t.name === 'f32' || t.name === 's32') ? 'm16n16.c.32' : '';
  else key = `${shape}.${which}.${t.name === 's8' ? 'u8' : t.name}`;
  const f = FRAGS[key];
  if (!f) c.unsupported(`${c.opText} (wmma fragment ${shape} .${which} .${t.name})`);
  return f;
}

function fragRegs(c: FnLowerer, o: Operand, n: number, what: string): Operand[] {
  if (o.kind !== 'vec' || o.elems.length !== n) c.fail('PTX_SEMANTIC', `${c.opText}: ${what} must be a vector of ${n} registers`);
  return o.elems;
}

const SPACE_MODS = ['global', 'shared', 'shared::cta'];
function spaceOf(c: FnLowerer): string {
  const s = c.ins.mods.find((m) => SPACE_MODS.includes(m) || m.startsWith('shared::') || m === 'local' || m === 'const' || m === 'param');
  if (s === undefined) return '';
  if (s === 'global') return 'global';
  if (s === 'shared' || s === 'shared::cta') return 'shared';
  return c.unsupported(`${c.opText} (state space .${s})`);
}

interface LaneRegs {
  g: Register;
  t: Register;
  t2: Register;
  t4: Register;
}

function laneRegs(c: FnLowerer): LaneRegs {
  const lane = c.tmp(1, 'S2R', [], [{ kind: 'sreg', name: 'SR_LANEID' }]);
  const g = c.tmp(1, 'SHR', ['U32'], [reg(lane), imm(2)]);
  const t = c.tmp(1, 'LOP3', ['LUT'], [reg(lane), imm(3), RZ, imm(LUT_AND)]);
  const t2 = c.tmp(1, 'SHL', [], [reg(t), imm(1)]);
  const t4 = c.tmp(1, 'SHL', [], [reg(t), imm(2)]);
  return { g, t, t2, t4 };
}

/**
 * Per-element addresses of a fragment: `[base + ((p * ldm + q) or (q * ldm + p)) * bytes + off]` in the
 * instruction's state space (32-bit window offsets for .shared, 64-bit addresses otherwise).
 */
class FragAddress {
  private readonly base: Register;
  private readonly off: number;
  private readonly wide: boolean;
  private readonly lane: LaneRegs;
  private readonly ldm: OriOperand;

  constructor(private readonly c: FnLowerer, addr: Operand, private readonly space: string, private readonly row: boolean, stride: Operand | undefined, frag: Frag) {
    const m: MemOperand = c.address(addr, space);
    this.wide = space !== 'shared';
    const w = this.wide ? 2 : 1;
    if (m.base) this.base = m.base;
    else if (m.sym) this.base = c.tmp(w, 'MOV', [], [{ kind: 'sym', name: m.sym }]);
    else this.base = c.tmp(w, 'MOV', [], [imm(0)]);
    this.off = m.offset;
    this.lane = laneRegs(c);
    this.ldm = stride ? c.src(stride, U32) : imm(row ? frag.dims[1] : frag.dims[0]);
  }

  /** Lane-dependent part of the addresses, per (p part, q part) pair: base + (p * ldm + q) * bytes (or q * ldm + p). */
  private readonly laneAddr = new Map<string, Register>();

  /**
   * Address of the element at (lane part p + dp, lane part q + dq): the lane's address for (p, q), computed once,
   * plus (dp * ldm + dq) * bytes (or dq * ldm + dp), an immediate offset when the stride is one (as ptxas's
   * `[R+0x100]`), else one IMAD and an add.
   */
  element(p: LanePart, dp: number, q: LanePart, dq: number, bytes: number): MemOperand {
    const c = this.c;
    const key = `${p}.${q}.${bytes}`;
    let laneAddr = this.laneAddr.get(key);
    if (!laneAddr) {
      const [outer, inner] = this.row ? [this.lane[p], this.lane[q]] : [this.lane[q], this.lane[p]];
      const idx = c.tmp(1, 'IMAD', [], [reg(outer), this.ldm, reg(inner)]);
      const byteOff = c.tmp(1, 'IMAD', [], [reg(idx), imm(bytes), RZ]);
      const wideOff = this.wide ? c.tmp(2, 'I2I', ['U64', 'U32'], [reg(byteOff)]) : byteOff;
      laneAddr = c.tmp(this.wide ? 2 : 1, 'IADD3', [], [reg(this.base), reg(wideOff), RZ]);
      this.laneAddr.set(key, laneAddr);
    }
    const [dOuter, dInner] = this.row ? [dp, dq] : [dq, dp];
    if (dOuter === 0 || this.ldm.kind === 'imm') {
      const ldm = this.ldm.kind === 'imm' ? Number(this.ldm.value) : 0;
      return mem(laneAddr, this.off + (dOuter * ldm + dInner) * bytes);
    }
    const extra = c.tmp(1, 'IMAD', [], [this.ldm, imm(dOuter * bytes), imm(dInner * bytes)]);
    const wideExtra = this.wide ? c.tmp(2, 'I2I', ['U64', 'U32'], [reg(extra)]) : extra;
    return mem(c.tmp(this.wide ? 2 : 1, 'IADD3', [], [reg(laneAddr), reg(wideExtra), RZ]), this.off);
  }

  /** True when element e+1 of a register follows element e in memory (the register is one contiguous word). */
  contiguous(frag: Frag): boolean {
    if (frag.per === 1) return true;
    const a = frag.at(0, 0);
    const b = frag.at(0, 1);
    // elements of one register differ in the second index (A, C) or the first (B); memory's inner index is
    // the second for .row and the first for .col
    return this.row ? a.dq !== b.dq && a.q === b.q : a.dp !== b.dp && a.p === b.p;
  }

  load(size: string): { op: string; mods: string[] } {
    const op = this.space === 'shared' ? 'LDS' : this.space === 'global' ? 'LDG' : 'LD';
    return { op, mods: this.space === 'shared' ? [size] : ['E', size] };
  }
  store(size: string): { op: string; mods: string[] } {
    const op = this.space === 'shared' ? 'STS' : this.space === 'global' ? 'STG' : 'ST';
    return { op, mods: this.space === 'shared' ? [size] : ['E', size] };
  }
}

const SIZE: Record<number, string> = { 1: 'U8', 2: 'U16', 4: '32', 8: '64' };

function layoutOf(c: FnLowerer): boolean {
  const row = c.ins.mods.includes('row');
  const col = c.ins.mods.includes('col');
  if (row === col) c.fail('PTX_SEMANTIC', `${c.opText}: exactly one of .row and .col is required`);
  return row;
}

function lowerWmmaLoad(c: FnLowerer): void {
  const { mods } = c.ins;
  const which = mods.find((m) => m === 'a' || m === 'b' || m === 'c') as 'a' | 'b' | 'c' | undefined;
  if (!which) c.fail('PTX_SEMANTIC', `${c.opText}: expected .a, .b or .c`);
  c.expectOperands(2, 3);
  const shape = shapeOf(c);
  const t = ptxType(mods.filter(isTypeMod).at(-1) ?? '');
  if (!t) c.fail('PTX_SEMANTIC', `${c.opText}: missing the element type`);
  const frag = fragOf(c, which, shape, t);
  const dsts = fragRegs(c, c.operand(0), frag.regs, 'the fragment');
  const space = spaceOf(c);
  const fa = new FragAddress(c, c.operand(1), space, layoutOf(c), c.ins.operands.length === 3 ? c.operand(2) : undefined, frag);
  const contiguous = fa.contiguous(frag);
  const first: Register[] = [];
  for (let i = 0; i < frag.distinct; i++) {
    const d = c.dst(dsts[i]!);
    first.push(d);
    const { p, dp, q, dq } = frag.at(i, 0);
    if (contiguous) {
      const { op, mods: lm } = fa.load(SIZE[frag.per * frag.bytes]!);
      c.emit(op, lm, [reg(d)], [fa.element(p, dp, q, dq, frag.bytes)]);
      continue;
    }
    // elements one by one, packed into the 32-bit register (element e at bits e * 8 * bytes)
    const { op, mods: lm } = fa.load(SIZE[frag.bytes]!);
    let word: Register | undefined;
    for (let e = 0; e < frag.per; e++) {
      const x = frag.at(i, e);
      const v = c.tmp(1, op, lm, [fa.element(x.p, x.dp, x.q, x.dq, frag.bytes)]);
      const shifted = e === 0 ? v : c.tmp(1, 'SHL', [], [reg(v), imm(e * 8 * frag.bytes)]);
      word = word ? c.tmp(1, 'LOP3', ['LUT'], [reg(word), reg(shifted), RZ, imm(LUT_OR)]) : shifted;
    }
    c.emit('MOV', [], [reg(d)], [reg(word!)]);
  }
  // f16 A/B fragments: registers 4..7 repeat 0..3 (what ptxas's loads leave in them)
  for (let i = frag.distinct; i < frag.regs; i++) c.emit('MOV', [], [reg(c.dst(dsts[i]!))], [reg(first[i % frag.distinct]!)]);
}

function lowerWmmaStore(c: FnLowerer): void {
  const { mods } = c.ins;
  if (!mods.includes('d')) c.fail('PTX_SEMANTIC', `${c.opText}: expected .d`);
  c.expectOperands(2, 3);
  const shape = shapeOf(c);
  const t = ptxType(mods.filter(isTypeMod).at(-1) ?? '');
  if (!t) c.fail('PTX_SEMANTIC', `${c.opText}: missing the element type`);
  const frag = fragOf(c, 'c', shape, t);
  const srcs = fragRegs(c, c.operand(1), frag.regs, 'the fragment').map((e) => c.src(e, t));
  const fa = new FragAddress(c, c.operand(0), spaceOf(c), layoutOf(c), c.ins.operands.length === 3 ? c.operand(2) : undefined, frag);
  const { op, mods: sm } = fa.store(SIZE[frag.bytes]!);
  srcs.forEach((v, i) => {
    const { p, dp, q, dq } = frag.at(i, 0);
    c.emit(op, sm, [], [fa.element(p, dp, q, dq, frag.bytes), v]);
  });
}

/** The accumulator type, input type and instruction of a wmma.mma form. */
function mmaForm(c: FnLowerer, shape: string): { op: 'HMMA' | 'IMMA' | 'DMMA'; mods: string[]; na: number; nb: number; nc: number; acc: PtxType; input: string } {
  const ts = c.ins.mods.filter(isTypeMod);
  const form = `${shape}.${ts.join('.')}`;
  if (c.ins.mods.includes('satfinite')) c.unsupported(`${c.opText} (.satfinite)`);
  // f16 inputs: .dtype.ctype only; the others spell .dtype.atype.btype.ctype
  let m: RegExpExecArray | null;
  if ((m = /^m16n16k16\.(f16|f32)\.(f16|f32)$/.exec(form))) {
    if (m[1] !== 'f32' || m[2] !== 'f32') c.unsupported(`${c.opText} (f16 accumulators)`);
    return { op: 'HMMA', mods: ['16816', 'F32'], na: 8, nb: 8, nc: 8, acc: ptxType('f32')!, input: 'f16' };
  }
  if (form === 'm16n16k16.f32.bf16.bf16.f32') return { op: 'HMMA', mods: ['16816', 'F32', 'BF16'], na: 4, nb: 4, nc: 8, acc: ptxType('f32')!, input: 'bf16' };
  if (form === 'm16n16k8.f32.tf32.tf32.f32') return { op: 'HMMA', mods: ['1684', 'F32', 'TF32'], na: 4, nb: 4, nc: 8, acc: ptxType('f32')!, input: 'tf32' };
  if ((m = /^m16n16k16\.s32\.([su]8)\.([su]8)\.s32$/.exec(form))) {
    return { op: 'IMMA', mods: ['16816', m[1]!.toUpperCase(), m[2]!.toUpperCase()], na: 2, nb: 2, nc: 8, acc: ptxType('s32')!, input: 'int' };
  }
  if (form === 'm8n8k4.f64.f64.f64.f64') return { op: 'DMMA', mods: ['884'], na: 1, nb: 1, nc: 2, acc: ptxType('f64')!, input: 'f64' };
  return c.unsupported(`${c.opText} (wmma.mma form ${form})`);
}

function lowerWmmaMma(c: FnLowerer): void {
  c.expectOperands(4);
  const shape = shapeOf(c);
  const f = mmaForm(c, shape);
  const inT = f.input === 'f64' ? f.acc : B32;
  const d = fragRegs(c, c.operand(0), f.nc, 'D').map((e) => c.dst(e));
  const a = fragRegs(c, c.operand(1), f.na, 'A').map((e) => c.src(e, inT));
  const b = fragRegs(c, c.operand(2), f.nb, 'B').map((e) => c.src(e, inT));
  const acc = fragRegs(c, c.operand(3), f.nc, 'C').map((e) => c.src(e, f.acc));
  if (f.op === 'DMMA') {
    c.emit('DMMA', f.mods, d.map((x) => reg(x)), [a[0]!, b[0]!, acc[0]!, acc[1]!]);
    return;
  }
  // D is computed into fresh registers first: D may share registers with A, B or C
  const out: Register[] = d.map(() => c.newRegFor(f.acc));
  const half = (lo: number): OriOperand[] => out.slice(lo, lo + 4).map((x) => reg(x));
  if (f.op === 'IMMA') {
    for (let h = 0; h < 2; h++) c.emit('IMMA', f.mods, half(4 * h), [a[0]!, a[1]!, b[h]!, ...acc.slice(4 * h, 4 * h + 4)]);
  } else if (f.input === 'tf32') {
    // two k halves per 8-column half of D: A regs 0,1 / 2,3 and B regs 0,1 (columns 0..7) / 2,3 (8..15)
    for (let h = 0; h < 2; h++) {
      c.emit('HMMA', f.mods, half(4 * h), [a[0]!, a[1]!, b[2 * h]!, ...acc.slice(4 * h, 4 * h + 4)]);
      c.emit('HMMA', f.mods, half(4 * h), [a[2]!, a[3]!, b[2 * h + 1]!, ...half(4 * h)]);
    }
  } else {
    // f16/bf16: A regs 0..3; B regs 0,1 for columns 0..7 and 2,3 for 8..15
    for (let h = 0; h < 2; h++) c.emit('HMMA', f.mods, half(4 * h), [a[0]!, a[1]!, a[2]!, a[3]!, b[2 * h]!, b[2 * h + 1]!, ...acc.slice(4 * h, 4 * h + 4)]);
  }
  out.forEach((x, i) => c.emit('MOV', [], [reg(d[i]!)], [reg(x)]));
}

/** Register type of a fragment element operand, when it names a register. */
function regType(c: FnLowerer, o: Operand): PtxType | undefined {
  if (o.kind !== 'name') return undefined;
  const s = c.lookup(o.name);
  return s?.kind === 'reg' ? s.type : undefined;
}

/**
 * What ptxas 13 rejects in wmma's form (checked with `ptxas -arch=sm_90`): a missing .aligned or layout, a state
 * space other than .global/.shared (or none), a stride that is not a 32-bit integer, f32 registers for the
 * packed A/B fragments, .satfinite with float types.
 */
function checkWmma(c: FnLowerer, kind: string): void {
  const { mods } = c.ins;
  const name = `wmma.${kind}${kind === 'mma' ? '' : `.${mods[1] ?? ''}`}`;
  if (!mods.includes('aligned')) c.fail('PTX_SEMANTIC', `.aligned modifier required for instruction '${name}'`);
  if (kind === 'mma') {
    const lay = mods.filter((m) => m === 'row' || m === 'col');
    if (lay.length < 2) c.fail('PTX_SEMANTIC', `'.${lay.length ? 'blayout' : 'alayout'}' modifier required for instruction '${name}'`);
    if (mods.includes('satfinite') && !mods.some((m) => m === 's8' || m === 'u8' || m === 's4' || m === 'u4' || m === 'b1')) {
      c.fail('PTX_SEMANTIC', `Instruction ''wmma.mma' with floating point type' with '.satfinite' is not supported starting from PTX ISA version 6.5`);
    }
    // A and B of the non-f64 forms are packed 32-bit registers, never f32
    for (const k of [1, 2]) {
      const o = c.operand(k);
      if (o.kind === 'vec' && o.elems.some((e) => regType(c, e)?.name === 'f32')) c.fail('PTX_SEMANTIC', `Arguments mismatch for instruction '${name}'`);
    }
    return;
  }
  if (!mods.includes('row') && !mods.includes('col')) c.fail('PTX_SEMANTIC', `layout modifier required for instruction '${name}'`);
  if (mods.some((m) => m === 'local' || m === 'const' || m === 'param' || m.startsWith('param::') || m === 'shared::cluster')) c.fail('PTX_SEMANTIC', `State space incorrect for instruction '${name}'`);
  const stride = c.ins.operands[2];
  if (stride) {
    const t = regType(c, stride);
    if (t && (t.bits !== 32 || t.kind === 'f')) c.fail('PTX_SEMANTIC', `Arguments mismatch for instruction '${name}'`);
  }
  const frag = c.operand(kind === 'store' ? 1 : 0);
  const t = ptxType(mods.filter(isTypeMod).at(-1) ?? '');
  if (kind === 'load' && (mods[1] === 'a' || mods[1] === 'b') && t && t.name !== 'f64' && frag.kind === 'vec' && frag.elems.some((e) => regType(c, e)?.name === 'f32')) {
    c.fail('PTX_SEMANTIC', `Arguments mismatch for instruction '${name}'`);
  }
}

export function lowerWmma(c: FnLowerer): void {
  const kind = c.ins.mods[0];
  if (kind === 'load' || kind === 'store' || kind === 'mma') checkWmma(c, kind);
  if (kind === 'load') return lowerWmmaLoad(c);
  if (kind === 'store') return lowerWmmaStore(c);
  if (kind === 'mma') return lowerWmmaMma(c);
  return c.unsupported(`instruction '${c.opText}'`);
}

/**
 * `cvt.rna.tf32.f32 d, a` (the tf32 wmma operands): a finite value rounds to 10 mantissa bits, halves away from
 * zero, by adding 0x1000 to its bits (a carry into the exponent is the rounding up; the largest values become
 * infinity); infinities and NaNs keep their bits; the low 13 bits are cleared. ptxas 13's sequence for sm_90:
 * FSETP.GEU.AND P0, PT, |a|, +INF; @!P0 IADD a + 0x1000; LOP3 & 0xffffe000. The other roundings and
 * .satfinite/.relu are unsupported (named).
 */
export function lowerCvtTf32(c: FnLowerer): void {
  const { mods } = c.ins;
  const ts = mods.filter(isTypeMod);
  if (ts.join('.') !== 'tf32.f32' || !mods.includes('rna') || mods.some((m) => m === 'satfinite' || m === 'relu')) c.unsupported(`${c.opText} (only cvt.rna.tf32.f32)`);
  c.expectOperands(2);
  const F32 = ptxType('f32')!;
  const a = c.src(c.operand(1), F32);
  if (a.kind !== 'reg') {
    // a constant: the same arithmetic on its bits
    const bits = a.kind === 'imm' ? Number(a.value & 0xffffffffn) : undefined;
    if (bits === undefined) c.unsupported(`${c.opText} (operand)`);
    const finite = (bits & 0x7f800000) !== 0x7f800000;
    const r = ((finite ? bits + 0x1000 : bits) & 0xffffe000) >>> 0;
    c.emit('MOV', [], [reg(c.dst(c.operand(0)))], [imm(r, 'hex')]);
    return;
  }
  const nonFinite = c.tmpP('FSETP', ['GEU', 'AND'], [{ ...a, abs: true }, imm(0x7f800000n, 'f32'), { kind: 'pt' }]);
  const up = c.tmp(1, 'IADD3', [], [a, imm(0x1000), RZ]);
  const sel = c.tmp(1, 'SEL', [], [a, reg(up), reg(nonFinite)]);
  c.emit('LOP3', ['LUT'], [reg(c.dst(c.operand(0)))], [reg(sel), imm(0xffffe000n, 'hex'), RZ, imm(LUT_AND)]);
}
