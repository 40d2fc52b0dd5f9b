import { computeRpo, Instr, type Block, type OriFunction, type PhaseContext, type PhaseImpl } from '@ptxforge/kernel';
import {
  bra,
  braTarget,
  hasPhi,
  isPlainBra,
  layoutPositions,
  nextInLayout,
  removeAt,
  removeUnreachableBlocks,
  retarget,
} from './cfg-util.js';
import { constantCompare, plainCompare } from './compare.js';
import { KNOB_BRANCH_OPT_CONVERGENCE, KNOB_BRANCH_OPT_DISABLE, KNOB_BRANCH_OPT_THREAD_DEPTH, KNOB_GENERAL_OPTIMIZATION } from './knobs.js';

/** What OriBranchOpt did to one function. */
export interface BranchOptStats {
  /** Unguarded branches to the layout successor deleted (transformation 1). */
  folded: number;
  /** Blocks deleted as unreachable (transformation 2). */
  unreachable: number;
  /** Conditional branches with a constant condition made unconditional or deleted (transformation 3). */
  constant: number;
  /** Conditional branches whose two targets were the same block (transformation 3). */
  equalTargets: number;
  /** Branch edges redirected past blocks that hold only an unconditional branch (transformation 4). */
  threaded: number;
}

export interface BranchOptOptions {
  /** Knob OriBranchOptConvergence (spec knob 464): re-examine a block after each rewrite. */
  readonly convergence: boolean;
  /** Knob OriBranchOptMaxThreadDepth: longest chain of forwarding blocks followed by one threading step. */
  readonly maxThreadDepth: number;
}

export const DEFAULT_BRANCH_OPT: BranchOptOptions = { convergence: true, maxThreadDepth: 32 };

/**
 * A forwarding block holds only an unguarded `BRA C` (or nothing and falls through to C). Returns C, or
 * undefined when `b` is not one. PHI blocks never forward (their predecessor labels matter).
 */
function forwardOf(fn: OriFunction, pos: ReadonlyMap<Block, number>, b: Block): Block | undefined {
  if (b.instrs.length === 0) return nextInLayout(fn, pos, b);
  if (b.instrs.length !== 1) return undefined;
  const i = b.instrs[0]!;
  return isPlainBra(i) && !i.guard ? braTarget(i) : undefined;
}

/** The EXIT (or value-less RET) of a block that holds nothing else. */
function exitOnly(b: Block): Instr | undefined {
  if (b.instrs.length !== 1) return undefined;
  const x = b.instrs[0]!;
  return !x.guard && (x.opcode === 'EXIT' || (x.opcode === 'RET' && x.uses.length === 0)) ? x : undefined;
}

/** Follow a chain of forwarding blocks from `t` (spec: "a depth limit prevents infinite loops"). */
function threadTarget(fn: OriFunction, pos: ReadonlyMap<Block, number>, t: Block, depth: number): Block {
  let cur = t;
  for (let d = 0; d < depth; d++) {
    const next = forwardOf(fn, pos, cur);
    if (!next || next === cur || hasPhi(next)) break;
    cur = next;
  }
  return cur;
}

/**
 * One match + rewrite on block `b` (spec: sub_753600 / sub_753B50). Returns true when something changed;
 * the caller re-examines the block while the convergence knob allows.
 */
function transformBlock(fn: OriFunction, pos: ReadonlyMap<Block, number>, b: Block, o: BranchOptOptions, s: BranchOptStats): boolean {
  const n = b.instrs.length;
  if (n === 0) return false;
  const last = b.instrs[n - 1]!;
  const hasUncond = isPlainBra(last) && !last.guard;
  const condIdx = hasUncond ? n - 2 : n - 1;
  const cond = condIdx >= 0 ? b.instrs[condIdx] : undefined;
  const isCond = isPlainBra(cond) && !!cond.guard;

  // Transformation 3a: constant condition (spec: "ISETP.EQ PT, R0, R0 ... BRA target").
  if (isCond) {
    const g = cond.guard!;
    const def = g.reg.def;
    const pc = def && def.block === b ? plainCompare(def) : undefined;
    const v = pc ? constantCompare(pc) : undefined;
    if (pc && v !== undefined) {
      if (v !== g.not) {
        cond.setGuard(undefined);
        if (hasUncond) removeAt(b, n - 1);
      } else {
        removeAt(b, condIdx);
      }
      if (g.reg.uses.size === 0 && def!.block) def!.block.remove(def!); // the tautology goes too
      s.constant++;
      return true;
    }
    // Transformation 3b: both targets are the same block.
    const fall = hasUncond ? braTarget(last) : nextInLayout(fn, pos, b);
    if (fall && braTarget(cond) === fall) {
      removeAt(b, condIdx);
      s.equalTargets++;
      return true;
    }
  }

  // Transformation 4: thread branch targets through forwarding blocks.
  if (!hasPhi(b)) {
    // A branch to a block that only exits becomes the exit itself, under the branch's guard (ptxas's
    // `@P0 EXIT` for `if (i >= n) return;`): the end of a chain of forwarding blocks, one step further.
    for (let k = Math.max(0, condIdx); k < n; k++) {
      const i = b.instrs[k]!;
      if (!isPlainBra(i)) continue;
      const t = threadTarget(fn, pos, braTarget(i), o.maxThreadDepth);
      const x = exitOnly(t);
      if (!x) continue;
      const e = new Instr(x.opcode, { mods: x.mods, uses: x.uses, loc: i.loc, ...(i.guard ? { guard: i.guard } : {}) });
      removeAt(b, k);
      b.insertAt(k, e);
      // After an unguarded exit nothing of the old tail runs.
      if (!i.guard) while (b.instrs.length > k + 1) removeAt(b, b.instrs.length - 1);
      s.threaded++;
      return true;
    }
    for (let k = Math.max(0, condIdx); k < n; k++) {
      const i = b.instrs[k]!;
      if (isPlainBra(i)) {
        const t = braTarget(i);
        const to = threadTarget(fn, pos, t, o.maxThreadDepth);
        if (to !== t && to !== b) {
          retarget(i, to);
          s.threaded++;
          return true;
        }
      } else if ((i.opcode === 'BRX' || i.opcode === 'JMX') && !i.guard) {
        const tab = i.uses[1];
        if (tab?.kind !== 'labels') continue;
        let changed = 0;
        const blocks = tab.blocks.map((t) => {
          const to = threadTarget(fn, pos, t, o.maxThreadDepth);
          if (to !== t) changed++;
          return to;
        });
        if (changed) {
          i.setUses([i.uses[0]!, { kind: 'labels', blocks }]);
          s.threaded += changed;
          return true;
        }
      }
    }
    // The fall-through edge into a forwarding block becomes an explicit branch to its destination.
    if (b.fallsThrough) {
      const f = nextInLayout(fn, pos, b);
      if (f) {
        const to = threadTarget(fn, pos, f, o.maxThreadDepth);
        if (to !== f && to !== b && forwardOf(fn, pos, f) !== undefined && f.instrs.length > 0) {
          b.append(bra(to, last));
          s.threaded++;
          return true;
        }
      }
    }
  }

  // Transformation 1: unconditional branch to the layout successor.
  if (hasUncond && braTarget(last) === nextInLayout(fn, pos, b)) {
    removeAt(b, n - 1);
    s.folded++;
    return true;
  }
  // Transformation 1 on the other edge: `@p BRA next; BRA X` is `@!p BRA X` falling through to next (nvcc
  // writes `@p bra L; bra.uni M; L:` for every if/else; the unconditional branch is the one that folds).
  if (isCond && hasUncond && braTarget(cond) === nextInLayout(fn, pos, b) && braTarget(last) !== b) {
    const g = cond.guard!;
    cond.setGuard({ reg: g.reg, not: !g.not });
    retarget(cond, braTarget(last));
    removeAt(b, n - 1);
    s.folded++;
    return true;
  }
  return false;
}

/**
 * OriBranchOpt on one function (spec: sub_7917F0): a single RPO pass with a per-block inner convergence
 * loop, then unreachable-block elimination and a CFG rebuild only when something changed. The entry block
 * is examined too: its own branches can be threaded or folded like any other (the spec skips RPO index 0
 * because nothing branches *to* it; the target-side rule, unreachable elimination, never touches it).
 */
export function optimizeBranches(fn: OriFunction, o: BranchOptOptions = DEFAULT_BRANCH_OPT): BranchOptStats {
  const s: BranchOptStats = { folded: 0, unreachable: 0, constant: 0, equalTargets: 0, threaded: 0 };
  if (fn.blocks.length === 0) return s;
  // rebuild_cfg (sub_785E20 → CFG::buildBlockMap) erases blocks nothing reaches before the traversal.
  s.unreachable += removeUnreachableBlocks(fn);
  let changed = s.unreachable > 0;
  const pos = layoutPositions(fn);
  const order = computeRpo(fn).order;
  for (const b of order) {
    for (;;) {
      if (!transformBlock(fn, pos, b, o, s)) break;
      changed = true;
      if (!o.convergence) break;
    }
  }
  if (changed) {
    s.unreachable += removeUnreachableBlocks(fn);
    // Deleting blocks makes new layout neighbours: fold the branches that now jump to the next block.
    s.folded += foldAfterRemoval(fn);
  }
  return s;
}

function foldAfterRemoval(fn: OriFunction): number {
  let n = 0;
  for (let k = 0; k + 1 < fn.blocks.length; k++) {
    const b = fn.blocks[k]!;
    const last: Instr | undefined = b.instrs[b.instrs.length - 1];
    if (!isPlainBra(last) || last.guard || braTarget(last) !== fn.blocks[k + 1]) continue;
    removeAt(b, b.instrs.length - 1);
    n++;
    // `@p BRA X; BRA next` → `@p BRA X` (fall-through); `@p BRA next` alone would now be an equal-target branch.
    const prev = b.instrs[b.instrs.length - 1];
    if (isPlainBra(prev) && prev.guard && braTarget(prev) === fn.blocks[k + 1]) {
      removeAt(b, b.instrs.length - 1);
      n++;
    }
  }
  return n;
}

export function branchOptOptions(ctx: PhaseContext): BranchOptOptions {
  return {
    convergence: ctx.knob<boolean>(KNOB_BRANCH_OPT_CONVERGENCE),
    maxThreadDepth: Math.max(1, ctx.knob<number>(KNOB_BRANCH_OPT_THREAD_DEPTH)),
  };
}

/** 15 OriBranchOpt (spec: branch/switch, "OriBranchOpt -- Branch Simplification (Phase 15)"). */
export class OriBranchOpt implements PhaseImpl {
  readonly preserves = 'none' as const;
  isNoOp(ctx: PhaseContext): boolean {
    // Gate checks of sub_7917F0: the disable knob (214) and the general-optimization knob (487).
    return ctx.knob<boolean>(KNOB_BRANCH_OPT_DISABLE) || !ctx.knob<boolean>(KNOB_GENERAL_OPTIMIZATION);
  }
  execute(ctx: PhaseContext): void {
    const o = branchOptOptions(ctx);
    for (const fn of ctx.module.functions) {
      // CFG validity (ctx+1382 bit 2): a function without blocks has no CFG to simplify.
      if (fn.blocks.length === 0) continue;
      const s = optimizeBranches(fn, o);
      const total = s.folded + s.unreachable + s.constant + s.equalTargets + s.threaded;
      if (total === 0) continue;
      ctx.remark({
        kind: 'passed',
        name: 'BranchesSimplified',
        fn: fn.name,
        message: `${s.threaded} threaded, ${s.folded} folded, ${s.constant} constant-condition, ${s.equalTargets} equal-target branches; ${s.unreachable} unreachable blocks deleted`,
        args: { ...s },
      });
    }
  }
}

