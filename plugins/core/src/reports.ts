import type { OriFunction, PhaseContext, PhaseImpl } from '@ptxforge/kernel';

/** One line of IR size facts about a function, shared by the report phases. */
export function describeFunction(fn: OriFunction): string {
  return `${fn.instructionCount} instructions, ${fn.blocks.length} blocks, ${fn.registers.length} virtual registers`;
}

/** Report phases (9 ReportInitialRepresentation, 96 ReportBeforeScheduling): facts printed with -v. */
export class ReportPhase implements PhaseImpl {
  readonly preserves = 'all' as const;
  constructor(private readonly label: string) {}
  execute(ctx: PhaseContext): void {
    for (const fn of ctx.module.functions) ctx.info(`${this.label} ${fn.name}: ${describeFunction(fn)}`);
  }
}
