import type { DomTree, Instr, Operand, OriFunction, Register } from '@ptxforge/kernel';
import { constBits, instrDominates, isPlainReg } from '@ptxforge/opt-utils';
import { rewriteInstr } from './rewrite.js';

/** `t = IMAD[.WIDE][.U32|.S32] a, b, <zero>`: a product without addend. */
function productOf(m: Instr, t: Register): boolean {
  if (m.opcode !== 'IMAD' || m.guard || m.defs.length !== 1 || m.uses.length !== 3) return false;
  if (!m.mods.every((x) => x === 'WIDE' || x === 'U32' || x === 'S32')) return false;
  return constBits(m.uses[2]!, 32 * t.width) === 0n;
}

/**
 * Whether register `r` read at `u` holds the value it had at `m`: no def between them in one block, or a
 * single def that dominates m while m dominates u (then no path re-runs the def without passing m).
 */
function sameValue(r: Register, m: Instr, u: Instr, dom: DomTree): boolean {
  if (r.defs.size === 0) return r.isParam;
  if (m.block === u.block) {
    const b = m.block!;
    const k0 = m.index;
    const k1 = u.index;
    if (k0 < k1 && b.instrs.slice(k0 + 1, k1).every((x) => !x.defRegs().includes(r))) return true;
  }
  if (r.defs.size !== 1) return false;
  const d = r.def!;
  return (d === m ? false : instrDominates(dom, d, m)) && instrDominates(dom, m, u);
}

/**
 * Multiply-add fusion: `t = IMAD[.WIDE] a, b, RZ` whose every reader is `d = IADD3 t, x, RZ` becomes
 * `d = IMAD[.WIDE] a, b, x` at each reader (the product is recomputed there, exactly: a*b + x modulo the
 * width) and the product instruction goes. Typical source: the 64-bit address `base + i*4` a front end
 * writes as IMAD.WIDE then IADD3. Fewer instructions whenever t has at least one reader.
 */
export function fuseMultiplyAdd(fn: OriFunction, dom: () => DomTree): number {
  let n = 0;
  for (const b of fn.blocks) {
    for (const m of [...b.instrs]) {
      // productOf only accepts IMAD: test that first, before building the def list of every instruction.
      if (m.block !== b || m.opcode !== 'IMAD') continue;
      const t = m.defRegs()[0];
      if (!t || t.defs.size !== 1 || t.cls !== 'R' || !productOf(m, t)) continue;
      const readers = [...t.uses.keys()];
      if (!readers.length) continue;
      const plan: Array<{ u: Instr; x: Operand }> = [];
      for (const u of readers) {
        if (u.opcode !== 'IADD3' || u.mods.length || u.defs.length !== 1 || u.uses.length !== 3 || t.uses.get(u) !== 1) break;
        const d = u.defs[0]!;
        if (d.kind !== 'reg' || d.reg.width !== t.width) break;
        const j = u.uses.findIndex((o) => isPlainReg(o) && o.reg === t);
        if (j < 0) break;
        const rest = u.uses.filter((_, k) => k !== j);
        const zeros = rest.filter((o) => constBits(o, 32 * t.width) === 0n);
        if (zeros.length < 1) break;
        const x = zeros.length === 2 ? rest[0]! : rest.find((o) => constBits(o, 32 * t.width) !== 0n)!;
        if (!(isPlainReg(x) || x.kind === 'imm' || x.kind === 'rz' || (x.kind === 'cbank' && !x.index))) break;
        const operandRegs = m.uses.slice(0, 2).flatMap((o) => (o.kind === 'reg' ? [o.reg] : []));
        if (!m.uses.slice(0, 2).every((o) => isPlainReg(o) || o.kind === 'imm' || o.kind === 'rz' || (o.kind === 'cbank' && !o.index))) break;
        if (!operandRegs.every((r) => sameValue(r, m, u, dom()))) break;
        if (!instrDominates(dom(), m, u)) break;
        plan.push({ u, x });
      }
      if (plan.length !== readers.length) continue;
      for (const { u, x } of plan) rewriteInstr(u, 'IMAD', m.mods, [m.uses[0]!, m.uses[1]!, x]);
      b.remove(m);
      n++;
    }
  }
  return n;
}
