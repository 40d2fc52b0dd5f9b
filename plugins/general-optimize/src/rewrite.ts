import { getComments, Instr, setComments, type Operand } from '@ptxforge/kernel';

/**
 * Replace `i` in its block by the same instruction (guard, defs, location, flags, comments) with another
 * opcode, modifiers and uses. Returns the new instruction.
 */
export function rewriteInstr(i: Instr, opcode: string, mods: readonly string[], uses: readonly Operand[], defs: readonly Operand[] = i.defs): Instr {
  const b = i.block!;
  const n = new Instr(opcode, { guard: i.guard, mods, defs, uses, loc: i.loc, flags: i.flags });
  const c = getComments(i);
  if (c.length) setComments(n, c);
  b.insertBefore(i, n);
  b.remove(i);
  return n;
}

/** `d = MOV x` keeping i's guard (x a data operand). */
export function rewriteToMov(i: Instr, x: Operand): Instr {
  return rewriteInstr(i, 'MOV', [], [x]);
}
