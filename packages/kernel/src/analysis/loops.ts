import type { Block, OriFunction } from '../ir/core.js';
import { computeRpo } from './cfg.js';
import { computeDominators, DominatorAnalysis, type DomTree } from './dominators.js';
import { defineAnalysis } from './manager.js';

/** A natural loop: a header that dominates the sources (latches) of its back edges. */
export interface Loop {
  readonly header: Block;
  /** Blocks of the loop, header first, then in RPO. Includes the blocks of nested loops. */
  readonly blocks: readonly Block[];
  readonly blockSet: ReadonlySet<Block>;
  /** Sources of back edges into the header. */
  readonly latches: readonly Block[];
  readonly parent: Loop | undefined;
  readonly children: readonly Loop[];
  /** 1 for an outermost loop. */
  readonly depth: number;
  /** The unique predecessor outside the loop whose only successor is the header, if there is one. */
  readonly preheader: Block | undefined;
  /** Edges leaving the loop. */
  readonly exits: ReadonlyArray<{ from: Block; to: Block }>;
}

export interface LoopInfo {
  /** Outermost loops in header RPO order. */
  readonly topLevel: readonly Loop[];
  /** All loops, outer before inner. */
  readonly all: readonly Loop[];
  /** Innermost loop containing a block. */
  loopOf(b: Block): Loop | undefined;
  /** Loop nesting depth of a block (0 outside loops). */
  depth(b: Block): number;
  /** Back edges found (tail -> header where header dominates tail). */
  readonly backEdges: ReadonlyArray<{ from: Block; to: Block }>;
  /** Retreating edges whose target does not dominate the source (irreducible control flow). */
  readonly irreducibleEdges: ReadonlyArray<{ from: Block; to: Block }>;
}

interface MutLoop {
  header: Block;
  blocks: Block[];
  blockSet: Set<Block>;
  latches: Block[];
  parent: MutLoop | undefined;
  children: MutLoop[];
  depth: number;
  preheader: Block | undefined;
  exits: Array<{ from: Block; to: Block }>;
}

export function computeLoops(fn: OriFunction, dom: DomTree = computeDominators(fn)): LoopInfo {
  const rpo = computeRpo(fn);
  const backEdges: Array<{ from: Block; to: Block }> = [];
  const irreducibleEdges: Array<{ from: Block; to: Block }> = [];
  const latchesOf = new Map<Block, Block[]>();
  for (const b of rpo.order) {
    for (const s of b.succs) {
      if (!rpo.index.has(s) || rpo.index.get(s)! > rpo.index.get(b)!) continue;
      if (dom.dominates(s, b)) {
        backEdges.push({ from: b, to: s });
        const l = latchesOf.get(s) ?? [];
        l.push(b);
        latchesOf.set(s, l);
      } else irreducibleEdges.push({ from: b, to: s });
    }
  }
  const loops: MutLoop[] = [];
  for (const header of rpo.order) {
    const latches = latchesOf.get(header);
    if (!latches) continue;
    const set = new Set<Block>([header]);
    const work = [...latches];
    while (work.length) {
      const b = work.pop()!;
      if (set.has(b)) continue;
      set.add(b);
      for (const p of b.preds) if (rpo.index.has(p)) work.push(p);
    }
    // Header first, then RPO: sort the loop's own blocks (never filter the whole RPO per loop: that is
    // O(loops x blocks)).
    const blocks = [...set].sort((a, b) => rpo.index.get(a)! - rpo.index.get(b)!);
    loops.push({ header, blocks, blockSet: set, latches, parent: undefined, children: [], depth: 0, preheader: undefined, exits: [] });
  }
  // Nesting: the parent is the smallest other loop containing the header. Visiting loops from the largest
  // down and recording, per block, the last (so smallest) loop seen containing it finds it in
  // O(sum of loop sizes) instead of comparing every pair of loops. Ties keep the RPO order of headers.
  const bySize = loops.map((l, k) => ({ l, k })).sort((a, b) => b.l.blocks.length - a.l.blocks.length || a.k - b.k).map((x) => x.l);
  const smallest = new Map<Block, MutLoop>();
  for (const l of bySize) {
    const p = smallest.get(l.header);
    if (p && p.blocks.length > l.blocks.length) {
      l.parent = p;
      p.children.push(l);
    }
    for (const b of l.blocks) smallest.set(b, l);
  }
  // Depth by walking parents iteratively (outer loops come first in bySize, so their depth is known).
  for (const l of bySize) l.depth = l.parent ? l.parent.depth + 1 : 1;
  const headerRpo = (l: MutLoop): number => rpo.index.get(l.header)!;
  for (const l of loops) if (l.children.length > 1) l.children.sort((a, b) => headerRpo(a) - headerRpo(b));
  for (const l of loops) {
    const outside = l.header.preds.filter((p) => !l.blockSet.has(p));
    if (outside.length === 1 && outside[0]!.succs.length === 1) l.preheader = outside[0];
    for (const b of l.blocks) for (const s of b.succs) if (!l.blockSet.has(s)) l.exits.push({ from: b, to: s });
  }
  const innermost = new Map<Block, MutLoop>();
  for (const l of [...loops].sort((a, b) => a.depth - b.depth)) for (const b of l.blocks) innermost.set(b, l);
  const all = [...loops].sort((a, b) => a.depth - b.depth || rpo.index.get(a.header)! - rpo.index.get(b.header)!);
  return {
    topLevel: all.filter((l) => !l.parent),
    all,
    loopOf: (b) => innermost.get(b),
    depth: (b) => innermost.get(b)?.depth ?? 0,
    backEdges,
    irreducibleEdges,
  };
}

export const LoopAnalysis = defineAnalysis({
  name: 'loops',
  dependsOn: 'cfg',
  compute: (fn, am) => computeLoops(fn, am.get(fn, DominatorAnalysis)),
});
