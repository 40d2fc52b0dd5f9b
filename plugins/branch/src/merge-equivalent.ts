import { Instr, label, printOperand, type Block, type OriFunction, type PhaseContext, type PhaseImpl } from '@ptxforge/kernel';
import { hasPhi, labelsReferencedOutsideBranches, layoutPositions, nextInLayout, removeUnreachableBlocks } from './cfg-util.js';
import { optimizeBranches, type BranchOptStats } from './branch-opt.js';
import { KNOB_MERGE_EQUIVALENT_MAX_ROUNDS } from './knobs.js';

/**
 * 133 MergeEquivalentConditionalFlow / 136 LateMergeEquivalentConditionalFlow (spec: branch/switch,
 * "Interaction with MergeEquivalentConditionalFlow (Phases 133, 136)"): blocks with identical instruction
 * sequences that branch to the same targets are merged into one (the first in layout); their predecessors are
 * redirected to it. A conditional branch whose two targets became one block is then a plain branch, and
 * branch-only blocks and branches to the next block go, with OriBranchOpt's rules. Rounds repeat while they
 * merge something (merging can make predecessors equal in turn), up to the knob's limit.
 *
 * Equality is exact: same opcodes, modifiers, guards and operands (the same virtual registers), and for a
 * block that falls through, the same layout successor. The entry block, empty blocks, blocks with PHIs or
 * feeding PHIs, and BSSY reconvergence blocks are never merged.
 */

function instrKey(i: Instr): string {
  let s = i.guard ? `@${i.guard.not ? '!' : ''}${i.guard.reg.name} ` : '';
  s += i.defs.map(printOperand).join(',');
  s += `=${i.fullOpcode} `;
  s += i.uses.map(printOperand).join(',');
  return s;
}

export interface MergeStats {
  merged: number;
  cleanup: BranchOptStats;
}

function redirectInto(fn: OriFunction, pos: ReadonlyMap<Block, number>, p: Block, from: Block, to: Block): void {
  for (const i of p.instrs) {
    if (!i.isBranch) continue;
    let hit = false;
    const uses = i.uses.map((u) => {
      if (u.kind === 'label' && u.block === from) {
        hit = true;
        return label(to);
      }
      if (u.kind === 'labels' && u.blocks.some((x) => x === from)) {
        hit = true;
        return { kind: 'labels' as const, blocks: u.blocks.map((x) => (x === from ? to : x)) };
      }
      return u;
    });
    if (hit) i.setUses(uses);
  }
  if (p.fallsThrough && nextInLayout(fn, pos, p) === from) p.append(new Instr('BRA', { uses: [label(to)], loc: p.instrs[p.instrs.length - 1]?.loc }));
}

export function mergeEquivalentBlocks(fn: OriFunction, maxRounds = 8): MergeStats {
  const stats: MergeStats = { merged: 0, cleanup: { folded: 0, unreachable: 0, constant: 0, equalTargets: 0, threaded: 0 } };
  if (fn.blocks.length < 2) return stats;
  for (let round = 0; round < maxRounds; round++) {
    const pos = layoutPositions(fn);
    const keep = labelsReferencedOutsideBranches(fn);
    const groups = new Map<string, Block>();
    const merges: Array<[Block, Block]> = [];
    for (const b of fn.blocks) {
      if (b === fn.entry || b.instrs.length === 0 || keep.has(b) || hasPhi(b)) continue;
      if (b.succs.some(hasPhi)) continue;
      let key = b.instrs.map(instrKey).join(';');
      if (b.fallsThrough) {
        const n = nextInLayout(fn, pos, b);
        if (!n) continue;
        key += `;>${n.label}`;
      }
      const first = groups.get(key);
      if (!first) groups.set(key, b);
      else merges.push([b, first]);
    }
    if (!merges.length) break;
    for (const [dup, into] of merges) {
      for (const p of [...dup.preds]) redirectInto(fn, pos, p, dup, into);
      stats.merged++;
    }
    removeUnreachableBlocks(fn);
  }
  if (stats.merged) stats.cleanup = optimizeBranches(fn);
  return stats;
}

export class MergeEquivalentConditionalFlow implements PhaseImpl {
  readonly preserves = 'none' as const;
  constructor(readonly late = false) {}
  execute(ctx: PhaseContext): void {
    const rounds = Math.max(1, ctx.knob<number>(KNOB_MERGE_EQUIVALENT_MAX_ROUNDS));
    for (const fn of ctx.module.functions) {
      const s = mergeEquivalentBlocks(fn, rounds);
      if (!s.merged) continue;
      const c = s.cleanup;
      ctx.remark({
        kind: 'passed',
        name: 'EquivalentBlocksMerged',
        fn: fn.name,
        message: `${s.merged} blocks merged into an identical block; then ${c.equalTargets} equal-target, ${c.threaded} threaded, ${c.folded} folded branches, ${c.unreachable} blocks deleted`,
        args: { merged: s.merged, ...c },
      });
    }
  }
}
