import { RZ, imm, mem, reg, type Operand as OriOperand, type Register } from '@ptxforge/kernel';
import type { Operand } from '../ast.js';
import type { FnLowerer } from './context.js';
import { isTypeMod, ptxType, type PtxType } from './types.js';

/**
 * Warp-level matrix instructions (`mma`, `ldmatrix`). The f16/bf16 `mma.m16n8k16` is one Ori HMMA.16816 (its
 * fragments are the tensor cores' operand layout; packages/interp mma.ts). The others are per-thread code: every element a lane needs
 * from another lane's fragment comes through SHFL.IDX, then the products are ordinary FFMA/IMAD and the
 * loads ordinary LD/LDS. The fragment layouts are the PTX ISA's ("Matrix Fragments for mma.m16n8k16",
 * "... mma.m16n8k32", "ldmatrix"): with groupID = laneid >> 2 and tig = laneid & 3,
 *  - A (16 x K, row-major): register r holds row groupID + 8 * (r & 1), columns kbase + tig * E .. + E-1 with
 *    kbase = K/2 * (r >> 1) and E elements per 32-bit register (2 f16/bf16, 4 s8/u8);
 *  - B (K x 8, column-major): register r holds column groupID, rows K/2 * r + tig * E .. + E-1;
 *  - C and D (16 x 8): element i is row groupID + 8 * (i >> 1), column tig * 2 + (i & 1).
 * So the lane holding A[row][k] is (row % 8) * 4 + (k % (K/2)) / E, and the one holding B[k][col] is
 * col * 4 + (k % (K/2)) / E. Sums are exact for the integer-valued data tests use; the hardware's
 * accumulation order for non-exact f32 sums is not specified by the ISA (we add k in increasing order).
 */

const B32 = ptxType('b32')!;
const F32 = ptxType('f32')!;
const S32 = ptxType('s32')!;
const LUT_AND = 0xc0;

function vecRegs(c: FnLowerer, o: Operand, n: number, t: PtxType, what: string): OriOperand[] {
  if (o.kind !== 'vec' || o.elems.length !== n) c.fail('PTX_SEMANTIC', `${c.opText}: ${what} must be a vector of ${n} registers`);
  return o.elems.map((e) => c.src(e, t));
}

/** laneid, laneid & ~3 (groupID * 4) and laneid & 3 (threadID_in_group). */
function laneParts(c: FnLowerer): { lane: Register; grp4: Register; tig: Register } {
  const lane = c.tmp(1, 'S2R', [], [{ kind: 'sreg', name: 'SR_LANEID' }]);
  const grp4 = c.tmp(1, 'LOP3', ['LUT'], [reg(lane), imm(0x1c), RZ, imm(LUT_AND)]);
  const tig = c.tmp(1, 'LOP3', ['LUT'], [reg(lane), imm(3), RZ, imm(LUT_AND)]);
  return { lane, grp4, tig };
}

function shflIdx(c: FnLowerer, v: OriOperand, srcLane: Register): Register {
  return c.tmp(1, 'SHFL', ['IDX'], [v, reg(srcLane), imm(0x1f)]);
}

/** `mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32` and `...m16n8k32.row.col.s32.{s8,u8}.{s8,u8}.s32`. */
export function lowerMma(c: FnLowerer): void {
  c.expectOperands(4);
  const { mods } = c.ins;
  const shape = mods.find((m) => /^m\d+n\d+k\d+$/.test(m));
  const ts = mods.filter(isTypeMod);
  const form = `${shape}.${ts.join('.')}`;
  if (!mods.includes('row') || !mods.includes('col')) c.unsupported(`${c.opText} (only the .row.col layout)`);
  for (const m of mods) if (m === 'satfinite') c.unsupported(`${c.opText} (.satfinite)`);
  const floatForm = /^m16n8k16\.f32\.(f16|bf16)\.(f16|bf16)\.f32$/.exec(form);
  const intForm = /^m16n8k32\.s32\.([su]8)\.([su]8)\.s32$/.exec(form);
  if (!floatForm && !intForm) c.unsupported(`${c.opText} (mma shape/types ${form})`);
  if (floatForm && floatForm[1] !== floatForm[2]) c.unsupported(`${c.opText} (mixed input types)`);
  const accT = floatForm ? F32 : S32;
  const d = (c.operand(0).kind === 'vec' ? (c.operand(0) as { elems: Operand[] }).elems : []).map((e) => c.dst(e));
  if (d.length !== 4) c.fail('PTX_SEMANTIC', `${c.opText}: the destination must be a vector of 4 registers`);
  const a = vecRegs(c, c.operand(1), 4, B32, 'A');
  const b = vecRegs(c, c.operand(2), 2, B32, 'B');
  const acc = vecRegs(c, c.operand(3), 4, accT, 'C');
  if (floatForm) {
    // the m16n8k16 fragments are HMMA.16816's operand layout (what ptxas emits: one HMMA, see wmma.ts)
    const out = d.map(() => c.newRegFor(F32));
    c.emit('HMMA', floatForm[1] === 'bf16' ? ['16816', 'F32', 'BF16'] : ['16816', 'F32'], out.map((x) => reg(x)), [...a, ...b, ...acc]);
    out.forEach((x, i) => c.emit('MOV', [], [reg(d[i]!)], [reg(x)]));
    return;
  }
  const { grp4, tig } = laneParts(c);
  // Fetch A for both row halves h and every 32-bit column group q (8 of them), B for both columns j.
  const aFrag: Register[][] = [[], []];
  const bFrag: Register[][] = [[], []];
  for (let q = 0; q < 8; q++) {
    const srcA = c.tmp(1, 'IADD3', [], [reg(grp4), imm(q % 4), RZ]);
    for (let h = 0; h < 2; h++) aFrag[h]![q] = shflIdx(c, a[h + 2 * (q >> 2)]!, srcA);
    for (let j = 0; j < 2; j++) {
      const srcB = c.tmp(1, 'IMAD', [], [reg(tig), imm(8), imm(j * 4 + (q % 4))]);
      bFrag[j]![q] = shflIdx(c, b[q >> 2]!, srcB);
    }
  }
  // Split each 32-bit group into its elements, widened (f32 values; sign/zero-extended integers).
  const split = (v: Register, signed: boolean): Register[] => {
    if (floatForm) {
      if (floatForm[1] === 'bf16') {
        return [c.tmp(1, 'SHL', [], [reg(v), imm(16)]), c.tmp(1, 'LOP3', ['LUT'], [reg(v), imm(0xffff0000n, 'hex'), RZ, imm(LUT_AND)])];
      }
      return [c.tmp(1, 'F2F', ['F32', 'F16'], [reg(v)]), c.tmp(1, 'F2F', ['F32', 'F16'], [reg(c.tmp(1, 'SHR', ['U32'], [reg(v), imm(16)]))])];
    }
    return [0, 1, 2, 3].map((k) => c.tmp(1, 'BFE', [signed ? 'S32' : 'U32'], [reg(v), imm(8 * k), imm(8)]));
  };
  const aSigned = intForm?.[1] === 's8';
  const bSigned = intForm?.[2] === 's8';
  const aEl = aFrag.map((row) => row.map((v) => split(v, aSigned)));
  const bEl = bFrag.map((col) => col.map((v) => split(v, bSigned)));
  for (let i = 0; i < 4; i++) {
    const h = i >> 1;
    const j = i & 1;
    let sum: OriOperand = acc[i]!;
    for (let q = 0; q < 8; q++) {
      const as = aEl[h]![q]!;
      const bs = bEl[j]![q]!;
      for (let e = 0; e < as.length; e++) sum = reg(c.tmp(1, floatForm ? 'FFMA' : 'IMAD', [], [reg(as[e]!), reg(bs[e]!), sum]));
    }
    c.emit('MOV', [], [reg(d[i]!)], [sum]);
  }
}

/**
 * `ldmatrix.sync.aligned.m8n8.{x1,x2,x4}[.trans][.shared{::cta}].b16`: threads 8j..8j+7 give the row addresses
 * of matrix j; without .trans lane l receives row l/4, elements 2(l%4) and 2(l%4)+1 of each matrix; with
 * .trans, elements (2(l%4), l/4) and (2(l%4)+1, l/4).
 */
export function lowerLdmatrix(c: FnLowerer): void {
  c.expectOperands(2);
  const { mods } = c.ins;
  if (!mods.includes('m8n8') || !mods.includes('b16')) c.unsupported(`${c.opText} (only .m8n8 with .b16)`);
  const num = mods.includes('x4') ? 4 : mods.includes('x2') ? 2 : 1;
  const shared = mods.some((m) => m === 'shared' || m === 'shared::cta');
  if (mods.some((m) => m === 'shared::cluster')) c.unsupported(`${c.opText} (.shared::cluster)`);
  const trans = mods.includes('trans');
  const dst = c.operand(0);
  const regs = dst.kind === 'vec' ? dst.elems : [dst];
  if (regs.length !== num) c.fail('PTX_SEMANTIC', `${c.opText}: .x${num} needs ${num} destination registers, found ${regs.length}`);
  const addrOp = c.operand(1);
  if (addrOp.kind !== 'addr' || addrOp.base === undefined) c.unsupported(`${c.opText} (address must be [register+offset])`);
  const base = c.lookup(addrOp.base.split('.')[0]!);
  if (base?.kind !== 'reg') c.unsupported(`${c.opText} (address must be a register)`);
  const ar = c.regOf({ kind: 'name', name: addrOp.base });
  const wide = ar.width === 2;
  const off = Number(addrOp.offset);
  const { lane, tig } = laneParts(c);
  const row = c.tmp(1, 'SHR', ['U32'], [reg(lane), imm(2)]);
  // The 64-bit address travels as two 32-bit halves.
  const lo = wide ? c.tmp(1, 'I2I', ['U32', 'U64'], [reg(ar)]) : ar;
  const hi = wide ? c.tmp(1, 'I2I', ['U32', 'U64'], [reg(c.tmp(2, 'SHR', ['U64'], [reg(ar), imm(32)]))]) : undefined;
  const fetch = (srcLane: Register, byteOff: Register | number): Register => {
    const l = shflIdx(c, reg(lo), srcLane);
    let addr: Register = l;
    if (hi) {
      const h = shflIdx(c, reg(hi), srcLane);
      const l64 = c.tmp(2, 'I2I', ['U64', 'U32'], [reg(l)]);
      const h64 = c.tmp(2, 'SHL', [], [reg(c.tmp(2, 'I2I', ['U64', 'U32'], [reg(h)])), imm(32)]);
      addr = c.tmp(2, 'LOP3', ['LUT'], [reg(h64), reg(l64), RZ, imm(0xfc)]);
    }
    const a = c.tmp(addr.width, 'IADD3', [], [reg(addr), typeof byteOff === 'number' ? imm(byteOff) : reg(byteOff), RZ]);
    return a;
  };
  const load = (a: Register, bits: 16 | 32): Register => {
    const size = bits === 32 ? '32' : 'U16';
    if (shared) return c.tmp(1, 'LDS', [size], [mem(wide ? c.tmp(1, 'I2I', ['U32', 'U64'], [reg(a)]) : a, off)]);
    return c.tmp(1, 'LD', ['E', size], [mem(a.width === 2 ? a : c.tmp(2, 'I2I', ['U64', 'U32'], [reg(a)]), off)]);
  };
  regs.forEach((e, j) => {
    if (e.kind === 'sink') return;
    const d = c.dst(e);
    if (!trans) {
      const src = c.tmp(1, 'IADD3', [], [reg(row), imm(8 * j), RZ]);
      const byteOff = c.tmp(1, 'SHL', [], [reg(tig), imm(2)]);
      c.emit('MOV', [], [reg(d)], [reg(load(fetch(src, byteOff), 32))]);
      return;
    }
    const colOff = c.tmp(1, 'SHL', [], [reg(row), imm(1)]);
    const halves = [0, 1].map((k) => {
      const src = c.tmp(1, 'IMAD', [], [reg(tig), imm(2), imm(8 * j + k)]);
      return load(fetch(src, colOff), 16);
    });
    c.emit('PRMT', [], [reg(d)], [reg(halves[0]!), imm(0x5410, 'hex'), reg(halves[1]!)]);
  });
}
