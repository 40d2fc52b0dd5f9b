import type { Instr, OriFunction } from '@ptxforge/kernel';
import { analyzeBranch } from './analyze-branch.js';
import { instrsIdentical } from './tail-merge.js';

/**
 * HoistCommonCode (spec: "HoistCommonCode"): for a block with exactly two successors, each reached only from
 * it, identical leading instructions of both successors move into the block, before its branch.
 * Not hoisted: control flow, convergent instructions (the active mask before the branch is wider than on either
 * side, so SHFL/VOTE/BAR would see other lanes), and an instruction that writes a register the branch reads.
 */
export function hoistCommonCode(fn: OriFunction): number {
  let hoisted = 0;
  const bs = fn.blocks;
  for (let k = 0; k < bs.length; k++) {
    const b = bs[k]!;
    const info = analyzeBranch(b, bs[k + 1]);
    if (!info || info.shape.kind !== 'cond') continue;
    const t = info.shape.target;
    const f = info.shape.other;
    // The entry block is also entered from outside the function: it is never a hoisting source.
    if (t === f || t === b || f === b || t === fn.entry || f === fn.entry) continue;
    if (t.preds.length !== 1 || f.preds.length !== 1) continue;
    const branchReads = new Set(info.block.instrs.slice(info.bodyEnd).flatMap((i) => i.useRegs()));
    while (t.instrs.length && f.instrs.length) {
      const x = t.instrs[0]!;
      const y = f.instrs[0]!;
      if (!hoistable(x) || !instrsIdentical(x, y)) break;
      if (x.defRegs().some((r) => branchReads.has(r))) break;
      t.remove(x);
      f.remove(y);
      b.insertAt(b.bodyEnd, x);
      hoisted++;
    }
  }
  return hoisted;
}

function hoistable(i: Instr): boolean {
  const info = i.info;
  if (!info) return false;
  return !i.isControlFlow && !info.isConvergent && info.category !== 'sync' && !info.isCall;
}
