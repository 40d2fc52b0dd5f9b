import { imm, Instr, reg, RZ, type OriFunction, type PhaseContext, type PhaseImpl } from '@ptxforge/kernel';

/**
 * 80 ExpandJmxComputation (spec: branch/switch, "Interaction with ExpandJmxComputation (Phase 80)" and
 * "Jump Table Data Structure"): the JMX pseudo left by DoSwitchOpt becomes
 *
 *     %a = LEA %idx, RZ, 0x2            // byte offset of the entry: index * 4
 *     BRX.TABLE %a, (L0, L1, ...)        // table of 32-bit entries placed inline after the BRX
 *
 * The table base is only known at final layout, so the LEA adds RZ here and BRX.TABLE reads its register as
 * a byte offset into its own table (docs/ori-semantics.md); the encoder turns each label into a signed
 * 32-bit offset relative to the table base and records the table for EIATTR_JUMPTABLE_RELOCS.
 */
export function expandJmx(fn: OriFunction): number {
  let n = 0;
  for (const b of fn.blocks) {
    for (let k = 0; k < b.instrs.length; k++) {
      const j = b.instrs[k]!;
      if (j.opcode !== 'JMX') continue;
      const [idx, table] = j.uses;
      if (!idx || !table || table.kind !== 'labels') continue;
      const a = fn.newReg('R');
      const lea = new Instr('LEA', { defs: [reg(a)], uses: [idx, RZ, imm(2, 'hex')], loc: j.loc });
      const brx = new Instr('BRX', { mods: ['TABLE'], uses: [reg(a), table], loc: j.loc, ...(j.guard ? { guard: j.guard } : {}) });
      b.remove(j);
      b.insertAt(k, lea);
      b.insertAt(k + 1, brx);
      n++;
    }
  }
  return n;
}

export class ExpandJmxComputation implements PhaseImpl {
  readonly preserves = 'cfg' as const;
  isNoOp(ctx: PhaseContext): boolean {
    for (const fn of ctx.module.functions) for (const b of fn.blocks) for (const i of b.instrs) if (i.opcode === 'JMX') return false;
    return true;
  }
  execute(ctx: PhaseContext): void {
    for (const fn of ctx.module.functions) {
      const n = expandJmx(fn);
      if (n) ctx.remark({ kind: 'passed', name: 'JumpTableExpanded', fn: fn.name, message: `${n} JMX expanded to LEA + BRX.TABLE`, args: { tables: n } });
    }
  }
}
