import type { PhaseContext, PhaseImpl } from '@ptxforge/kernel';

/**
 * Phase 6 SetControlFlowOpLastInBB: make every control-flow instruction the last of its block. A guarded
 * branch or exit followed by ordinary instructions is split there: the instructions after it move to a new
 * block that the first one falls through to, which is exactly the original semantics. Establishes the
 * ControlFlowLast IR property.
 */
export class SetControlFlowOpLastInBB implements PhaseImpl {
  /** Declared, not special-cased by the host: from here on the verifier checks control flow is last. */
  readonly establishes = ['ControlFlowLast'] as const;
  isNoOp(ctx: PhaseContext): boolean {
    return !ctx.module.functions.some((fn) => fn.blocks.some((b) => firstMisplaced(b.instrs) >= 0));
  }
  execute(ctx: PhaseContext): void {
    for (const fn of ctx.module.functions) {
      for (let k = 0; k < fn.blocks.length; k++) {
        const b = fn.blocks[k]!;
        const at = firstMisplaced(b.instrs);
        if (at >= 0) fn.splitBlock(b, b.instrs[at]!);
      }
    }
  }
}

/** Index of the first instruction that must start a new block (it follows a control-flow instruction). */
function firstMisplaced(instrs: ReadonlyArray<{ isControlFlow: boolean; endsFlowUnconditionally: boolean }>): number {
  let cf = false;
  for (let i = 0; i < instrs.length; i++) {
    const x = instrs[i]!;
    if (cf && !x.isControlFlow) return i;
    if (x.isControlFlow) cf = true;
  }
  return -1;
}
