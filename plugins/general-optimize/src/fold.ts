import { imm, PT, type Instr, type OriFunction } from '@ptxforge/kernel';
import { evaluateInstr } from '@ptxforge/semantics';
import { immOf } from '@ptxforge/opt-utils';
import { rewriteInstr, rewriteToMov } from './rewrite.js';

/** Already in constant form (folding them again would loop) or approximate on hardware (MUFU). */
const NOT_FOLDED = new Set(['MOV', 'UMOV', 'COPY', 'MOVPHI', 'MUFU', 'PLOP3']);

/**
 * Constant folding: an unguarded pure instruction whose uses are all constants (immediates, RZ, PT) is
 * evaluated with the opcode semantics the interpreter executes (`evaluateInstr` of @ptxforge/semantics, exact integer and
 * IEEE float rules, the same code the interpreter executes) and replaced by `MOV <result>` for a data def,
 * or by a constant `PLOP3.LUT PT, PT, PT, lut...` for predicate defs.
 */
export function foldInstr(i: Instr): boolean {
  if (NOT_FOLDED.has(i.opcode) || i.guard || !i.defs.length) return false;
  if (!i.uses.every((o) => o.kind === 'imm' || o.kind === 'rz' || o.kind === 'pt')) return false;
  if (!i.defs.every((d) => d.kind === 'reg')) return false;
  const regs = i.defRegs();
  const preds = regs.every((r) => r.cls === 'P' || r.cls === 'UP');
  const data = regs.length === 1 && (regs[0]!.cls === 'R' || regs[0]!.cls === 'UR') && regs[0]!.width <= 2;
  if (!preds && !data) return false;
  const vals = evaluateInstr(i);
  if (!vals || vals.length !== regs.length) return false;
  if (data) {
    const v = vals[0];
    if (typeof v !== 'bigint') return false;
    const bits = 32 * regs[0]!.width;
    const isFloat = i.info?.category === 'float';
    rewriteToMov(i, immOf(v, bits, isFloat ? (bits === 32 ? 'f32' : 'f64') : 'int'));
    return true;
  }
  if (!vals.every((v) => typeof v === 'boolean')) return false;
  rewriteInstr(i, 'PLOP3', ['LUT'], [PT, PT, PT, ...vals.map((v) => imm(v ? 0xff : 0, 'hex'))]);
  return true;
}

export function foldConstants(fn: OriFunction): number {
  let n = 0;
  for (const b of fn.blocks) for (const i of [...b.instrs]) if (i.block === b && foldInstr(i)) n++;
  return n;
}
