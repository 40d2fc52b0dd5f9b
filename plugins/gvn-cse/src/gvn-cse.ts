import type { Block, DomTree, Instr, Operand, OriFunction, Register } from '@ptxforge/kernel';
import { hasObservableEffect, operandKey } from '@ptxforge/opt-utils';

/** Integer opcodes whose first two operands commute (low-bit results; no .X carry chains, no .HI/.WIDE asymmetry). */
const COMMUTATIVE = new Set(['IADD3', 'IMAD', 'IMUL', 'IMNMX']);

/**
 * Whether `i` is a candidate expression: pure (no observable effect), not a non-constant memory read, not a
 * copy (copy propagation owns those), unguarded, every def a register with a single def (itself).
 */
function candidate(i: Instr): boolean {
  if (i.guard || hasObservableEffect(i) || !i.info) return false;
  if (i.info.mayLoad && !(i.opcode === 'LDC' || i.opcode === 'ULDC')) return false;
  if (['PHI', 'MOVPHI', 'MOV', 'UMOV', 'COPY', 'UNDEF'].includes(i.opcode)) return false;
  if (!i.defs.length) return false;
  for (const d of i.defs) if (d.kind !== 'reg' || d.reg.defs.size !== 1) return false;
  return true;
}

/**
 * Value number of an operand: registers whose value is fixed wherever they are read in the dominated region
 * (a single def, or a parameter with none) are numbered by identity; multi-def registers make the
 * expression ineligible.
 */
function operandVN(o: Operand): string | undefined {
  const regs: Register[] = o.kind === 'reg' ? [o.reg] : o.kind === 'mem' && o.base ? [o.base] : o.kind === 'cbank' && o.index ? [o.index] : [];
  for (const r of regs) if (!(r.defs.size === 1 || (r.defs.size === 0 && r.isParam))) return undefined;
  return operandKey(o);
}

function expressionKey(i: Instr): string | undefined {
  const ops: string[] = [];
  for (const o of i.uses) {
    const k = operandVN(o);
    if (k === undefined) return undefined;
    ops.push(k);
  }
  if (COMMUTATIVE.has(i.opcode) && !i.mods.some((m) => m === 'X' || m === 'HI' || m === 'WIDE') && ops.length >= 2) {
    const [a, b] = [ops[0]!, ops[1]!].sort();
    ops[0] = a;
    ops[1] = b;
  }
  const shape = i.defs.map((d) => (d.kind === 'reg' ? `${d.reg.cls}${d.reg.width}` : d.kind)).join(',');
  return `${i.opcode}.${i.mods.join('.')}(${shape})${ops.join(',')}`;
}

/**
 * Phase 49 GvnCse. Walks the dominator tree with a scoped table of available expressions; an expression
 * computed again in a dominated position is replaced by the earlier result (its uses are renamed and it is
 * removed). Sound under Ori's multi-def rules because only single-def operands take part: with the first
 * computation dominating the second and every operand's only def dominating the first, both see the same
 * operand values (see docs in general-optimize copy propagation for the path argument).
 * Returns the number of instructions removed.
 */
export function gvnCse(fn: OriFunction, dom: DomTree): number {
  let n = 0;
  const table = new Map<string, Instr>();
  // Instruction positions within their blocks, for "does the duplicate dominate this read" in O(1);
  // numbered once per block (removals keep the relative order of the rest).
  const pos = new Map<Instr, number>();
  const number = (b: Block): void => {
    b.instrs.forEach((i, k) => pos.set(i, k));
  };
  const dominatesInstr = (a: Instr, b: Instr): boolean => {
    if (a.block === b.block) {
      if (!pos.has(a) || !pos.has(b)) number(a.block!);
      return pos.get(a)! < pos.get(b)!;
    }
    return dom.strictlyDominates(a.block!, b.block!);
  };
  const visit = (b: Block): string[] => {
    const added: string[] = [];
    number(b);
    for (const i of [...b.instrs]) {
      if (!candidate(i)) continue;
      const key = expressionKey(i);
      if (key === undefined) continue;
      const prev = table.get(key);
      if (prev && prev.block) {
        const olds = i.defRegs();
        const news = prev.defRegs();
        // Every read of the duplicate must be dominated by the duplicate (so it reads this value).
        if (olds.every((r) => [...r.uses.keys()].every((u) => u.opcode !== 'PHI' && dominatesInstr(i, u)))) {
          olds.forEach((r, k) => fn.replaceAllUses(r, news[k]!));
          b.remove(i);
          n++;
          continue;
        }
      }
      if (!prev) {
        table.set(key, i);
        added.push(key);
      }
    }
    return added;
  };
  if (!fn.blocks.length || !dom.contains(fn.entry)) return n;
  // Pre-order walk of the dominator tree with an explicit stack (the tree is as deep as the function is
  // long for chains of diamonds): a block's expressions leave the table when its subtree is done.
  const stack: Array<{ added: string[]; children: readonly Block[]; k: number }> = [];
  const enter = (b: Block): void => {
    stack.push({ added: visit(b), children: dom.children.get(b) ?? [], k: 0 });
  };
  enter(fn.entry);
  while (stack.length) {
    const top = stack[stack.length - 1]!;
    if (top.k < top.children.length) {
      enter(top.children[top.k++]!);
      continue;
    }
    for (const k of top.added) table.delete(k);
    stack.pop();
  }
  return n;
}
