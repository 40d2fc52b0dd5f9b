import { label, type Block, type Instr, type Operand, type OriFunction } from '@ptxforge/kernel';
import { analyzeBranch, newBranch } from './analyze-branch.js';

/**
 * OptimizeBranches (spec: "OptimizeBranches"): the six local transformations of OptimizeBlock, applied to every
 * block until none fires, plus the removal of blocks left without predecessors (which also drops the jump
 * tables of dead BRX/JMX blocks: in Ori a table is an operand of its branch).
 */
export interface BranchOptStats {
  emptyBlocksRemoved: number;
  sameTargetFolded: number;
  blocksMerged: number;
  redundantBranchesRemoved: number;
  conditionsReversed: number;
  tailBlocksMoved: number;
  deadBlocksRemoved: number;
}

export function newBranchOptStats(): BranchOptStats {
  return {
    emptyBlocksRemoved: 0, sameTargetFolded: 0, blocksMerged: 0, redundantBranchesRemoved: 0,
    conditionsReversed: 0, tailBlocksMoved: 0, deadBlocksRemoved: 0,
  };
}

/** Blocks named by an instruction that is not a branch (a BSSY reconvergence label): their identity is kept. */
function pinnedBlocks(fn: OriFunction): Set<Block> {
  const out = new Set<Block>();
  for (const b of fn.blocks) for (const i of b.instrs) if (!i.isBranch) for (const t of i.labelTargets()) out.add(t);
  return out;
}

/** Rewrite every label operand of `p`'s branches that names `from` to `to` (BRA targets and BRX/JMX tables). */
function retargetBranches(p: Block, from: Block, to: Block): void {
  for (const i of p.instrs) {
    if (!i.isBranch) continue;
    let hit = false;
    const uses: Operand[] = i.uses.map((u) => {
      if (u.kind === 'label' && u.block === from) {
        hit = true;
        return label(to);
      }
      if (u.kind === 'labels' && u.blocks.some((x) => x === from)) {
        hit = true;
        return { kind: 'labels', blocks: u.blocks.map((x) => (x === from ? to : x)) };
      }
      return u;
    });
    if (hit) i.setUses(uses);
  }
}

function removeControlTail(b: Block, from: number): void {
  for (const i of b.instrs.slice(from)) b.remove(i);
}

/** Remove the blocks no path from the entry reaches (iterative walk; unreachable blocks are emptied first). */
export function removeUnreachableBlocks(fn: OriFunction, pinned: ReadonlySet<Block>): number {
  if (fn.blocks.length === 0) return 0;
  const seen = new Set<Block>([fn.entry]);
  const stack: Block[] = [fn.entry];
  while (stack.length) {
    const b = stack.pop()!;
    for (const s of b.succs) if (!seen.has(s)) (seen.add(s), stack.push(s));
  }
  const dead = fn.blocks.filter((b) => !seen.has(b) && !pinned.has(b));
  if (!dead.length) return 0;
  for (const b of dead) b.removeWhere(() => true, { unreachable: true });
  // Emptied, a dead block is entered only by falling through from the block before it. In layout order, keep
  // one whose predecessor stays (a pinned block) and remove the rest in one batch.
  const doomed = new Set<Block>();
  for (const b of dead) if (b.preds.every((p) => doomed.has(p))) doomed.add(b);
  return fn.removeBlocks(doomed);
}

/**
 * One sweep of OptimizeBlock over the layout. Returns whether anything changed. `layoutIndex` is rebuilt after a
 * layout change so that every query is O(1).
 */
export function optimizeBranches(fn: OriFunction, stats: BranchOptStats): boolean {
  let changed = false;
  const pinned = pinnedBlocks(fn);
  const dead = removeUnreachableBlocks(fn, pinned);
  if (dead) {
    stats.deadBlocksRemoved += dead;
    changed = true;
  }
  let k = 0;
  while (k < fn.blocks.length) {
    const b = fn.blocks[k]!;
    const prev = k > 0 ? fn.blocks[k - 1] : undefined;
    const next = fn.blocks[k + 1];
    const r = optimizeBlock(fn, b, prev, next, k === 0, pinned, stats);
    if (r === 'removed') {
      changed = true;
      // The block is gone: look again at its layout predecessor, whose fall-through changed.
      k = Math.max(0, k - 1);
    } else if (r === 'changed') {
      changed = true; // ReoptimizeBlock: same block again
    } else k++;
  }
  return changed;
}

type BlockResult = 'unchanged' | 'changed' | 'removed';

function optimizeBlock(
  fn: OriFunction,
  b: Block,
  prev: Block | undefined,
  next: Block | undefined,
  isEntry: boolean,
  pinned: ReadonlySet<Block>,
  stats: BranchOptStats,
): BlockResult {
  // 1. Empty-block elimination: an empty block, or one holding only an unconditional branch, is bypassed.
  if (!isEntry && !pinned.has(b)) {
    const only = b.instrs.length === 1 ? b.instrs[0]! : undefined;
    const dest: Block | undefined =
      b.instrs.length === 0 ? next
      : only && only.opcode === 'BRA' && !only.guard && only.uses.length === 1 && only.uses[0]!.kind === 'label' ? only.uses[0].block
      : undefined;
    if (dest && dest !== b) {
      for (const p of [...b.preds]) if (p !== b) retargetBranches(p, b, dest);
      // The layout predecessor fell into b: it now branches to dest explicitly (rule 4 drops the branch again
      // when dest becomes its layout successor).
      if (prev && prev.fallsThrough) prev.append(newBranch(dest));
      for (const i of [...b.instrs]) b.remove(i);
      if (b.preds.length === 0) {
        fn.removeBlock(b);
        stats.emptyBlocksRemoved++;
        return 'removed';
      }
      return 'unchanged'; // something still reaches b in a way this rule cannot redirect: leave it
    }
  }
  const info = analyzeBranch(b, next);
  if (!info) return 'unchanged';
  const s = info.shape;
  if (s.kind === 'cond') {
    // 2. Both ways go to the same block: one unconditional branch (or none when it is the layout successor).
    if (s.target === s.other) {
      removeControlTail(b, info.bodyEnd);
      if (s.target !== next) b.append(newBranch(s.target));
      stats.sameTargetFolded++;
      return 'changed';
    }
    // 4. The unconditional half branches to the layout successor: drop it.
    if (s.otherBra && s.other === next) {
      b.remove(s.otherBra);
      stats.redundantBranchesRemoved++;
      return 'changed';
    }
    // 5. The conditional half goes to the layout successor: reverse it so that it falls through.
    if (s.otherBra && s.target === next) {
      removeControlTail(b, info.bodyEnd);
      b.append(newCondBranch(s.bra, s.other, !s.guard.not));
      stats.conditionsReversed++;
      return 'changed';
    }
  }
  if (s.kind === 'uncond') {
    // 4. An unconditional branch to the layout successor is redundant.
    if (s.target === next) {
      b.remove(s.bra);
      stats.redundantBranchesRemoved++;
      return 'changed';
    }
  }
  // 3. Single-predecessor merge: the only predecessor goes only here (falls through or branches): splice.
  if (!isEntry && !pinned.has(b)) {
    const preds = b.preds;
    const p = preds.length === 1 ? preds[0]! : undefined;
    if (p && p !== b) {
      const pNext = p === prev ? b : undefined; // only the layout predecessor can fall into b
      const pInfo = analyzeBranch(p, pNext);
      const ok = pInfo && ((pInfo.shape.kind === 'fallthrough' && pInfo.shape.fall === b) || (pInfo.shape.kind === 'uncond' && pInfo.shape.target === b));
      if (ok) {
        if (pInfo.shape.kind === 'uncond') p.remove(pInfo.shape.bra);
        // b's own fall-through must survive the move.
        if (b.fallsThrough && next && next !== b) fn.materializeFallthrough(b);
        const moved = [...b.instrs];
        for (const i of moved) b.remove(i);
        for (const i of moved) p.append(i);
        if (b.preds.length === 0) {
          fn.removeBlock(b);
          stats.blocksMerged++;
          return 'removed';
        }
        return 'changed';
      }
    }
  }
  // 6. Tail-block relocation: prev conditionally branches to the block after b and falls into b, which never
  // continues: move b to the end and reverse prev's condition so that prev falls through. Not when the target
  // is the last block (the spec's IsBetterFallthrough guard: two exit blocks would swap forever).
  if (s.kind === 'return' && prev && next && !isEntry && !pinned.has(b)) {
    const last = fn.blocks[fn.blocks.length - 1]!;
    const pInfo = analyzeBranch(prev, b);
    if (pInfo && pInfo.shape.kind === 'cond' && !pInfo.shape.otherBra && pInfo.shape.other === b && pInfo.shape.target === next && next !== last) {
      const ps = pInfo.shape;
      fn.moveBlock(b, last); // makes prev's fall-through into b an explicit BRA, which the rewrite replaces
      removeControlTail(prev, pInfo.bodyEnd);
      prev.append(newCondBranch(ps.bra, b, !ps.guard.not));
      stats.tailBlocksMoved++;
      return 'removed'; // b left this layout position
    }
  }
  // 7. Island relocation: prev branches unconditionally over a run of blocks (b and up to ISLAND_RUN_MAX - 1 after
  // it) to the block after the run, and no block of the run falls through (case or default bodies placed between
  // a loop's preheader and its header): moving the run to the end lets prev fall through, one branch less (rule 4
  // drops prev's branch on the revisit).
  if ((s.kind === 'uncond' || s.kind === 'return') && prev && next && !isEntry && !pinned.has(b)) {
    const pInfo = analyzeBranch(prev, b);
    if (pInfo && pInfo.shape.kind === 'uncond' && pInfo.shape.target !== b) {
      const to = pInfo.shape.target;
      const run: Block[] = [b];
      let cur: Block | undefined = next;
      while (cur && cur !== to && run.length < ISLAND_RUN_MAX && !pinned.has(cur) && cur !== fn.blocks[0]) {
        const ci = analyzeBranch(cur, cur.layoutNext);
        if (!ci || (ci.shape.kind !== 'uncond' && ci.shape.kind !== 'return')) break;
        run.push(cur);
        cur = cur.layoutNext;
      }
      const last = fn.blocks[fn.blocks.length - 1]!;
      if (cur === to && !run.includes(last)) {
        let after = last;
        for (const r of run) {
          fn.moveBlock(r, after);
          after = r;
        }
        stats.tailBlocksMoved += run.length;
        return 'removed';
      }
    }
  }
  return 'unchanged';
}

/** Longest run of branch-only-entered blocks rule 7 moves at once (bounds its forward scan). */
const ISLAND_RUN_MAX = 8;

/** A copy of conditional branch `like` (same modifiers) to `target`, with the guard's sense `not`. */
function newCondBranch(like: Instr, target: Block, not: boolean): Instr {
  const i = newBranch(target);
  i.mods = [...like.mods];
  i.setGuard({ reg: like.guard!.reg, not });
  return i;
}
