import type { Instr } from '@ptxforge/kernel';

/** Load modifiers that make a load observable (ordering / volatile / MMIO): such loads are never removed. */
const ORDERED_LOAD_MODS = new Set(['VOLATILE', 'STRONG', 'MMIO', 'ACQUIRE', 'RELAXED', 'SYS', 'GPU', 'CTA']);
/** Special registers whose reads are themselves observable (the interpreter's clock counter advances). */
const OBSERVABLE_SREGS = /^SR_CLOCK/;

/**
 * Whether the instruction has an effect beyond writing its register defs: memory writes, control flow,
 * calls, barriers and warp-convergent operations (opcode table: hasSideEffects / mayStore / isConvergent /
 * isControlFlow / isCall), ordered or volatile loads, clock reads, and unknown opcodes.
 */
export function hasObservableEffect(i: Instr): boolean {
  const info = i.info;
  if (!info) return true;
  if (info.hasSideEffects || info.mayStore || info.isConvergent || info.isControlFlow || info.isCall) return true;
  if (info.mayLoad && i.mods.some((m) => ORDERED_LOAD_MODS.has(m))) return true;
  for (const u of i.uses) if (u.kind === 'sreg' && OBSERVABLE_SREGS.test(u.name)) return true;
  return false;
}

/** Whether the instruction may be deleted when none of its defs is read (its only effect is its defs). */
export function isRemovableWhenDead(i: Instr): boolean {
  return !hasObservableEffect(i);
}

/**
 * Whether the instruction may be executed speculatively, i.e. with a guard added or on a path where it did not
 * run before, without changing results: no observable effect and no memory access (a load could fault).
 */
export function isSpeculatable(i: Instr): boolean {
  if (hasObservableEffect(i)) return false;
  const info = i.info!;
  if (info.mayLoad && i.opcode !== 'LDC' && i.opcode !== 'ULDC') return false;
  // Divisions are pseudo-ops whose by-zero behaviour is an interpreter choice; do not speculate them.
  if (i.opcode === 'IDIV' || i.opcode === 'IREM') return false;
  if (i.opcode === 'PHI') return false;
  return true;
}
