import { PT, RZ, imm, reg, type Operand as OriOperand, type Register } from '@ptxforge/kernel';
import type { FnLowerer } from './context.js';
import { ptxType, type PtxType } from './types.js';

/**
 * SIMD video instructions with the `.add` secondary operation (PTX ISA "SIMD video instructions"):
 *
 *   vop4.dtype.atype.btype.add d, a, b, c     vop in vadd vsub vavrg vabsdiff vmin vmax; lanes = the 4 bytes
 *   vop2.dtype.atype.btype.add d, a, b, c     lanes = the 2 half-words
 *
 * d = c + the sum over the lanes of op(a_i, b_i), each lane zero- or sign-extended by atype/btype (.u32/.s32),
 * vavrg rounding up ((a + b + 1) >> 1), vabsdiff |a - b|. ptxas 13 on sm_90 writes most of them as byte
 * extractions (PRMT), per-lane IADD/VIMNMX/IABS and an IADD3 sum, which is what this lowering gives in Ori
 * (BFE per lane, the lane op, IADD3 accumulation); the all-unsigned vabsdiff4 is one `VABSDIFF4.U8.ACC` there,
 * the same value. Lane selectors (`a.b3210`, `d.h10` ...), `.sat`, and the forms without `.add` (mask merge
 * with c) are refused with a located PTX_UNSUPPORTED naming the instruction.
 */
type Handler = (c: FnLowerer) => void;

const U32 = ptxType('u32')!;
const S32 = ptxType('s32')!;

type LaneOp = 'add' | 'sub' | 'avrg' | 'absdiff' | 'min' | 'max';

function laneOp(c: FnLowerer, op: LaneOp, a: Register, b: Register, signed: boolean): Register {
  const mod = signed ? 'S32' : 'U32';
  switch (op) {
    case 'add':
      return c.tmp(1, 'IADD3', [], [reg(a), reg(b), RZ]);
    case 'sub':
      return c.tmp(1, 'IADD3', [], [reg(a), reg(b, { neg: true }), RZ]);
    case 'avrg': {
      // lanes are at most 17 bits wide: the sum cannot overflow 32 bits; arithmetic shift keeps the sign
      const s = c.tmp(1, 'IADD3', [], [reg(a), reg(b), imm(1)]);
      return c.tmp(1, 'SHR', ['S32'], [reg(s), imm(1)]);
    }
    case 'absdiff': {
      const d = c.tmp(1, 'IADD3', [], [reg(a), reg(b, { neg: true }), RZ]);
      return c.tmp(1, 'IABS', [], [reg(d)]);
    }
    case 'min':
    case 'max':
      return c.tmp(1, 'IMNMX', [mod], [reg(a), reg(b), op === 'min' ? PT : { kind: 'pt', not: true }]);
  }
}

function simdVideo(op: LaneOp, lanes: 2 | 4): Handler {
  return (c: FnLowerer) => {
    const ts = c.ins.mods.map((m) => ptxType(m)).filter((t): t is PtxType => !!t);
    const ok = ts.length === 3 && ts.every((t) => t.bits === 32 && (t.kind === 'u' || t.kind === 's'));
    // ptxas's verdicts: other types and .sat with .add are errors; the other modifiers (no .add: mask merge) are ours to refuse
    if (!ok) c.fail('PTX_SEMANTIC', `Unexpected instruction types specified for '${c.ins.opcode}'`);
    if (c.ins.mods.includes('sat') && c.ins.mods.includes('add')) c.fail('PTX_SEMANTIC', 'Illegal combination of .sat and .add modifiers');
    if (!c.ins.mods.includes('add') || c.ins.mods.some((m) => m !== 'add' && !ptxType(m))) c.unsupported(`instruction '${c.opText}'`);
    c.expectOperands(4);
    for (let k = 0; k < 4; k++) {
      const o = c.operand(k);
      if (!((o.kind === 'name' && !o.comp) || o.kind === 'int')) c.unsupported(`operand form of '${c.opText}' (lane selectors)`);
    }
    const [dt, at, bt] = ts as [PtxType, PtxType, PtxType];
    const a = c.src(c.operand(1), U32);
    const b = c.src(c.operand(2), U32);
    let acc: OriOperand = c.src(c.operand(3), dt.kind === 's' ? S32 : U32);
    // the lane op is signed when either lane is (a signed and an unsigned byte both fit in s32)
    const signed = at.kind === 's' || bt.kind === 's';
    const bits = 32 / lanes;
    for (let i = 0; i < lanes; i++) {
      const ea = c.tmp(1, 'BFE', [at.kind === 's' ? 'S32' : 'U32'], [a, imm(bits * i), imm(bits)]);
      const eb = c.tmp(1, 'BFE', [bt.kind === 's' ? 'S32' : 'U32'], [b, imm(bits * i), imm(bits)]);
      acc = reg(c.tmp(1, 'IADD3', [], [reg(laneOp(c, op, ea, eb, signed)), acc, RZ]));
    }
    const { r, finish } = c.out(c.operand(0), dt);
    c.emit('MOV', [], [reg(r)], [acc]);
    finish();
  };
}

export const VIDEO_HANDLERS: Readonly<Record<string, Handler>> = {
  vadd4: simdVideo('add', 4), vsub4: simdVideo('sub', 4), vavrg4: simdVideo('avrg', 4),
  vabsdiff4: simdVideo('absdiff', 4), vmin4: simdVideo('min', 4), vmax4: simdVideo('max', 4),
  vadd2: simdVideo('add', 2), vsub2: simdVideo('sub', 2), vavrg2: simdVideo('avrg', 2),
  vabsdiff2: simdVideo('absdiff', 2), vmin2: simdVideo('min', 2), vmax2: simdVideo('max', 2),
};
