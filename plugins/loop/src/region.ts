import { Instr, label, type Block, type Operand, type OriFunction } from '@ptxforge/kernel';

/**
 * Region utilities for the loop passes (minimal forms of the kernel's planned IR primitives: cloneRegion with
 * fresh labels, explicit edges). Registers are not renamed: Ori is not SSA, so sequential copies of a loop body
 * may share them.
 */

/** Make every fall-through edge out of `blocks` an explicit BRA, so the blocks may be laid out anywhere. */
export function materializeFallthroughs(fn: OriFunction, blocks: Iterable<Block>): void {
  for (const b of blocks) fn.materializeFallthrough(b);
}

/** Remap the label operands of an operand list through `map` (blocks not in the map stay). */
export function remapLabels(ops: readonly Operand[], map: ReadonlyMap<Block, Block>): Operand[] {
  return ops.map((o) => {
    if (o.kind === 'label') {
      const t = map.get(o.block);
      return t ? label(t) : o;
    }
    if (o.kind === 'labels') return { kind: 'labels', blocks: o.blocks.map((b) => map.get(b) ?? b) } as Operand;
    return o;
  });
}

/**
 * Copy `blocks` (all of whose out-edges must be explicit) with fresh labels, placed in layout after `after`.
 * Edges between blocks of the region go to the copies; edges leaving it keep their targets. Returns the map
 * original -> copy and the last copy in layout.
 */
export function cloneRegion(fn: OriFunction, blocks: readonly Block[], after: Block): { map: Map<Block, Block>; last: Block } {
  const map = new Map<Block, Block>();
  let at = after;
  // Each copy is filled as soon as it is made: placing the next block after it must not find it falling through.
  for (const b of blocks) {
    const nb = fn.createBlock({ after: at });
    for (const a of b.attrs) nb.attrs.add(a);
    for (const i of b.instrs) nb.append(new Instr(i.opcode, { guard: i.guard, mods: i.mods, defs: i.defs, uses: i.uses, loc: i.loc, flags: i.flags }));
    map.set(b, nb);
    at = nb;
  }
  for (const nb of map.values()) {
    for (const i of nb.instrs) if (i.isBranch || i.opcode === 'BSSY') {
      const uses = remapLabels(i.uses, map);
      if (uses.some((u, k) => u !== i.uses[k])) i.setUses(uses);
    }
  }
  return { map, last: at };
}

/** The block of `blocks` that comes last in layout. */
export function layoutLast(fn: OriFunction, blocks: Iterable<Block>): Block {
  // By layout position (Block.index, amortized O(1)), not a walk over every block of the function per call.
  let last: Block | undefined;
  let at = -1;
  for (const b of blocks) {
    const k = b.fn === fn ? b.index : -1;
    if (k > at) {
      at = k;
      last = b;
    }
  }
  if (!last) throw new Error('layoutLast: no block of the set is in the function');
  return last;
}

/** Drop unguarded `BRA next` at the end of the given blocks when `next` is the layout successor. */
export function dropBranchesToNext(fn: OriFunction, blocks: Iterable<Block>): void {
  for (const b of blocks) {
    const k = b.fn === fn ? b.index : -1;
    if (k < 0) continue;
    const last = b.instrs[b.instrs.length - 1];
    const next = fn.blocks[k + 1];
    if (last && next && last.opcode === 'BRA' && !last.guard && last.uses.length === 1 && last.uses[0]!.kind === 'label' && last.uses[0].block === next) {
      // Keep a lone BRA that is the block's only instruction before another branch (nothing to gain, harmless).
      b.remove(last);
    }
  }
}

/** Replace the unconditional BRA at the end of `b` (there must be one) by `BRA to`. */
export function retargetFinalBranch(b: Block, to: Block): void {
  const last = b.instrs[b.instrs.length - 1];
  if (!last || last.opcode !== 'BRA' || last.guard) throw new Error(`retargetFinalBranch: ${b.label} does not end with an unconditional BRA`);
  last.setUses([label(to)]);
}

/**
 * Give the loop with header `h` a dedicated preheader: a new block placed right before `h` in layout that all
 * edges from outside the loop enter and that falls through to `h`. Returns it (or the existing one).
 */
export function ensurePreheader(fn: OriFunction, h: Block, inLoop: ReadonlySet<Block>): Block {
  const outside = h.preds.filter((p) => !inLoop.has(p));
  if (outside.length === 1 && outside[0]!.succs.length === 1 && outside[0]!.layoutNext === h && !inLoop.has(outside[0]!)) return outside[0]!;
  const idx = h.fn === fn ? h.index : -1;
  const prev = idx > 0 ? fn.blocks[idx - 1] : undefined;
  let pre: Block;
  if (prev) {
    pre = fn.createBlock({ after: prev });
  } else {
    // The header is the entry block: the new preheader becomes the entry.
    pre = fn.createBlock();
    fn.moveBlock(pre, undefined);
  }
  for (const p of outside) fn.redirectEdge(p, h, pre);
  // A back edge from a latch laid out right before h now ends in an explicit BRA h (createBlock made it so).
  if (prev) dropBranchesToNext(fn, [prev]);
  return pre;
}
