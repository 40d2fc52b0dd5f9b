import type { Instr, Operand, Register } from '@ptxforge/kernel';

function subst(o: Operand, from: Register, to: Register): Operand {
  switch (o.kind) {
    case 'reg':
      return o.reg === from ? { ...o, reg: to } : o;
    case 'mem':
      return o.base === from ? { ...o, base: to } : o;
    case 'cbank':
      return o.index === from ? { ...o, index: to } : o;
    default:
      return o;
  }
}

/** Replace every read of `from` in one instruction (operands, address bases, c-bank indexes, guard) by `to`. */
export function replaceRegUses(i: Instr, from: Register, to: Register): void {
  if (i.guard?.reg === from) i.setGuard({ reg: to, not: i.guard.not });
  if (!i.uses.some((o) => subst(o, from, to) !== o) && !i.defs.some((o) => o.kind !== 'reg' && subst(o, from, to) !== o)) return;
  i.replaceOperands({ uses: i.uses.map((o) => subst(o, from, to)), defs: i.defs.map((d) => (d.kind === 'reg' ? d : subst(d, from, to))) });
}
