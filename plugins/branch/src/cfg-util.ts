import { Instr, label, type Block, type OriFunction, type Register } from '@ptxforge/kernel';

/**
 * Small CFG helpers shared by the branch family. Layout positions are kept in a map built once per use
 * (Block.index / layoutNext scan the block list), so every helper here is linear in what it touches.
 */

/** Layout position of every block. */
export function layoutPositions(fn: OriFunction): Map<Block, number> {
  const m = new Map<Block, number>();
  fn.blocks.forEach((b, i) => m.set(b, i));
  return m;
}

/** The layout successor of `b` given a position map. */
export function nextInLayout(fn: OriFunction, pos: ReadonlyMap<Block, number>, b: Block): Block | undefined {
  const k = pos.get(b);
  return k === undefined ? undefined : fn.blocks[k + 1];
}

/** An unguarded-or-guarded `BRA label` (the type is branded so that a false result still narrows to Instr). */
export function isPlainBra(i: Instr | undefined): i is Instr & { readonly __plainBra: true } {
  return !!i && i.opcode === 'BRA' && i.uses.length === 1 && i.uses[0]!.kind === 'label';
}
export function braTarget(i: Instr): Block {
  const u = i.uses[0]!;
  if (u.kind !== 'label') throw new Error('braTarget: not a label branch');
  return u.block;
}

/**
 * The two-way tail of a block: `[@p|@!p] BRA taken` then either an unguarded `BRA fall` or a fall-through
 * into the layout successor. Undefined for anything else (EXIT, BRX, several guarded branches ...).
 */
export interface CondTail {
  readonly branch: Instr;
  readonly pred: Register;
  readonly not: boolean;
  readonly taken: Block;
  /** Unguarded BRA after the conditional one, when the not-taken edge is explicit. */
  readonly uncond: Instr | undefined;
  readonly fall: Block;
}

export function condTail(fn: OriFunction, pos: ReadonlyMap<Block, number>, b: Block): CondTail | undefined {
  const n = b.instrs.length;
  if (n === 0) return undefined;
  let last = b.instrs[n - 1]!;
  let uncond: Instr | undefined;
  let k = n - 1;
  if (isPlainBra(last) && !last.guard) {
    uncond = last;
    k--;
    if (k < 0) return undefined;
    last = b.instrs[k]!;
  }
  if (!isPlainBra(last) || !last.guard) return undefined;
  if (k > 0 && b.instrs[k - 1]!.isControlFlow) return undefined;
  const fall = uncond ? braTarget(uncond) : nextInLayout(fn, pos, b);
  if (!fall) return undefined;
  return { branch: last, pred: last.guard.reg, not: last.guard.not, taken: braTarget(last), uncond, fall };
}

/** Whether a block holds PHIs (edges into it must keep their predecessor labels). */
export function hasPhi(b: Block): boolean {
  return b.instrs[0]?.opcode === 'PHI';
}

/** Blocks named by label operands of non-branch instructions (BSSY reconvergence points): never deleted. */
export function labelsReferencedOutsideBranches(fn: OriFunction): Set<Block> {
  const out = new Set<Block>();
  for (const b of fn.blocks)
    for (const i of b.instrs) {
      if (i.isBranch) continue;
      for (const t of i.labelTargets()) out.add(t);
    }
  return out;
}

/**
 * Delete every block not reachable from the entry (spec: OriBranchOpt "Unreachable block elimination"; the
 * cascade through single-predecessor successors is what a reachability sweep gives in one linear pass).
 * Blocks named by BSSY and blocks feeding a PHI are kept. Returns the number of blocks deleted.
 */
export function removeUnreachableBlocks(fn: OriFunction): number {
  if (fn.blocks.length === 0) return 0;
  const seen = new Set<Block>([fn.entry]);
  const stack: Block[] = [fn.entry];
  while (stack.length) {
    const b = stack.pop()!;
    for (const s of b.succs)
      if (!seen.has(s)) {
        seen.add(s);
        stack.push(s);
      }
  }
  if (seen.size === fn.blocks.length) return 0;
  const keep = labelsReferencedOutsideBranches(fn);
  // A dead block that is a predecessor of a PHI block stays (its label is a PHI operand).
  for (const b of fn.blocks) {
    if (seen.has(b) || keep.has(b)) continue;
    for (const s of b.succs) if (hasPhi(s)) keep.add(b);
  }
  // Whatever a kept block reaches stays too (removeBlocks needs every predecessor of a removed block gone).
  const work = fn.blocks.filter((b) => !seen.has(b) && keep.has(b));
  for (const b of work) seen.add(b);
  while (work.length) {
    const b = work.pop()!;
    for (const s of b.succs)
      if (!seen.has(s)) {
        seen.add(s);
        work.push(s);
      }
  }
  const dead = fn.blocks.filter((b) => !seen.has(b));
  if (!dead.length) return 0;
  fn.removeBlocks(dead);
  return dead.length;
}

/** Remove an instruction known to be at position `k` of its block (no indexOf). */
export function removeAt(b: Block, k: number): void {
  b.removeAt(k);
}

/** Replace the label of a plain BRA. */
export function retarget(i: Instr, to: Block): void {
  i.setUses([label(to)]);
}

/** `BRA to`, with the source line of `like` when given. */
export function bra(to: Block, like?: Instr): Instr {
  return new Instr('BRA', { uses: [label(to)], loc: like?.loc });
}

/**
 * Delete unguarded `BRA X` where X is the layout successor (spec: OriBranchOpt "Unconditional branch
 * folding"). One linear pass; returns the number of branches deleted.
 */
export function foldBranchesToLayoutNext(fn: OriFunction): number {
  let n = 0;
  for (let k = 0; k + 1 < fn.blocks.length; k++) {
    const b = fn.blocks[k]!;
    const last = b.instrs[b.instrs.length - 1];
    if (isPlainBra(last) && !last.guard && braTarget(last) === fn.blocks[k + 1]) {
      removeAt(b, b.instrs.length - 1);
      n++;
    }
  }
  return n;
}

/** Static count of branch instructions (BRA, BRX, JMX) of a function. */
export function countBranches(fn: OriFunction): number {
  let n = 0;
  for (const b of fn.blocks) for (const i of b.instrs) if (i.isBranch) n++;
  return n;
}

/** Source line of the first instruction with one in a block (remarks). */
export function lineOf(i: Instr | undefined): number | undefined {
  return i?.loc?.line;
}
