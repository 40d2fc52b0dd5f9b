import type { MFunction } from './mir.js';

/** Control-flow successors of each machine block (branch targets and fall-through). */
export function machineSuccessors(fn: MFunction): number[][] {
  return fn.blocks.map((b, i) => {
    const last = b.instrs[b.instrs.length - 1];
    const next = i + 1 < fn.blocks.length ? [i + 1] : [];
    if (!last) return next;
    const uncond = !last.guard;
    if (last.opcode === 'BRA') {
      const t = (last.ops[0] as { k: string; block?: number }).block!;
      return uncond ? [t] : t === i + 1 ? next : [t, ...next];
    }
    if (last.opcode === 'EXIT' || last.opcode === 'RET') return uncond ? [] : next;
    return next;
  });
}

