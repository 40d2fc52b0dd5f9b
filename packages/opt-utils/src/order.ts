import type { DomTree, Instr } from '@ptxforge/kernel';

/** Whether instruction `a` executes before `b` on every path reaching `b` (a dominates b; a !== b). */
export function instrDominates(dom: DomTree, a: Instr, b: Instr): boolean {
  if (a === b || !a.block || !b.block) return false;
  if (a.block === b.block) return a.comesBefore(b);
  return dom.strictlyDominates(a.block, b.block);
}
