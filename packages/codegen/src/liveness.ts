import { CodegenError, type MFunction } from './mir.js';

/** Control-flow successors of each machine block (branch targets and fall-through). */
export function machineSuccessors(fn: MFunction): number[][] {
  return fn.blocks.map((b, i) => {
    // a branch ends its block (selection splits blocks after branches): one inside would hide an edge
    for (let k = 0; k + 1 < b.instrs.length; k++) {
      if (b.instrs[k]!.opcode === 'BRA' || b.instrs[k]!.opcode === 'BRX') throw new CodegenError('CODEGEN_BAD_INPUT', `${fn.name}: block ${b.label} has a branch before its last instruction`);
    }
    const last = b.instrs[b.instrs.length - 1];
    const next = i + 1 < fn.blocks.length ? [i + 1] : [];
    if (!last) return next;
    const uncond = !last.guard;
    if (last.opcode === 'BRA') {
      const t = (last.ops[0] as { k: string; block?: number }).block!;
      return uncond ? [t] : t === i + 1 ? next : [t, ...next];
    }
    if (last.opcode === 'BRX') {
      // an indirect branch through a jump table (never guarded): its distinct targets
      const t = (last.ops.find((o) => (o as { k: string }).k === 'jtable') as { table: number } | undefined)?.table;
      const table = t === undefined ? undefined : fn.jumpTables[t];
      if (!table) throw new CodegenError('CODEGEN_BAD_INPUT', `${fn.name}: BRX in block ${b.label} without a jump table`);
      return [...new Set(table.targets)];
    }
    if (last.opcode === 'EXIT' || last.opcode === 'RET') return uncond ? [] : next;
    return next;
  });
}

