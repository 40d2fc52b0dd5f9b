import type { Instr, Operand, Register } from '@ptxforge/kernel';
import type { MOperand, VFile, VReg, VRegOperand } from './mir.js';

/**
 * Selection of the warp matrix instructions (Ori HMMA / IMMA / DMMA, docs/ori-semantics.md "Warp matrix
 * multiply") to the SASS ptxas 13 writes for sm_80+ (checked on sm_90 cubins of wmma kernels):
 *
 *   HMMA.16816.F32[.BF16] Rd4, Ra4, Rb2, Rc4      f16 / bf16 inputs, f32 accumulators
 *   HMMA.1684.F32.TF32    Rd4, Ra2, Rb1, Rc4      tf32 inputs
 *   IMMA.16816.{U8|S8}.{U8|S8} Rd4, Ra2.ROW, Rb1.COL, Rc4
 *   DMMA.884              Rd4, Ra2, Rb2, Rc4      f64 (pairs)
 *
 * Ori keeps every fragment register apart; the machine instruction reads and writes aligned register tuples,
 * so the operands are gathered into tuples with MOVs (the coalescer removes them where the allocation lines
 * the fragment up, as ptxas's allocation does) and the result is moved back out.
 */
export interface MmaSelector {
  fail(why: string): never;
  newV(file: VFile, width: 1 | 2 | 4, name?: string): VReg;
  vOf(r: Register): VReg;
  emit(opcode: string, mods: string[], ops: MOperand[], ndefs: number, guard?: null): void;
  r(v: VReg, part?: number, span?: number, mods?: Partial<VRegOperand>): VRegOperand;
  part(o: Operand, part: number, opts?: { float?: boolean }): MOperand;
  def(o: Operand | undefined, part?: number): MOperand;
}

/** 32-bit words of the operands, in order (a 64-bit register gives its two halves). */
function words(sel: MmaSelector, ops: readonly Operand[]): MOperand[] {
  const out: MOperand[] = [];
  for (const o of ops) {
    const w = o.kind === 'reg' ? o.reg.width : 1;
    for (let p = 0; p < w; p++) out.push(sel.part(o, p));
  }
  return out;
}

function tuple(sel: MmaSelector, vals: MOperand[]): VRegOperand {
  const n = vals.length;
  if (n !== 1 && n !== 2 && n !== 4) sel.fail(`a register tuple of ${n}`);
  const v = sel.newV('R', n as 1 | 2 | 4);
  vals.forEach((x, k) => sel.emit('MOV', [], [sel.r(v, k), x], 1));
  return sel.r(v, 0, n);
}

/** Registers of A, B and C (32-bit words) per form. */
const WORDS: Record<string, [number, number, number]> = {
  'HMMA.16816': [4, 2, 4],
  'HMMA.1684': [2, 1, 4],
  'IMMA.16816': [2, 1, 4],
  'DMMA.884': [2, 2, 4],
};

export function selectMma(sel: MmaSelector, ins: Instr): void {
  const shape = ins.mods.find((m) => /^\d+$/.test(m));
  const key = `${ins.opcode}.${shape}`;
  const form = WORDS[key];
  if (!form) sel.fail(`${ins.opcode}${ins.mods.map((m) => `.${m}`).join('')}`);
  if (ins.opcode === 'HMMA' && !ins.mods.includes('F32')) sel.fail('HMMA with f16 accumulators');
  if (ins.opcode === 'IMMA' && ins.mods.includes('SAT')) sel.fail('IMMA.SAT');
  const src = words(sel, ins.uses);
  const [na, nb, nc] = form;
  if (src.length !== na + nb + nc) sel.fail(`${key} with ${src.length} source words`);
  const a = tuple(sel, src.slice(0, na));
  const b = tuple(sel, src.slice(na, na + nb));
  const c = tuple(sel, src.slice(na + nb));
  const d = sel.newV('R', 4);
  const mods = ins.mods.filter((m) => m !== 'ROW' && m !== 'COL');
  // IMMA's A and B print .ROW / .COL (fixed tokens of the encoding)
  if (ins.opcode === 'IMMA') sel.emit('IMMA', mods, [sel.r(d, 0, 4), { ...a, sfx: ['ROW'] }, { ...b, sfx: ['COL'] }, c], 1);
  else sel.emit(ins.opcode, mods, [sel.r(d, 0, 4), a, b, c], 1);
  let k = 0;
  for (const o of ins.defs) {
    const w = o.kind === 'reg' ? o.reg.width : 1;
    for (let p = 0; p < w; p++, k++) if (o.kind === 'reg') sel.emit('MOV', [], [sel.def(o, p), sel.r(d, k)], 1);
  }
  if (k !== 4) sel.fail(`${key} with ${k} result words`);
}
