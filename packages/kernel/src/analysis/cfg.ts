import type { Block, OriFunction } from '../ir/core.js';
import { defineAnalysis } from './manager.js';

export interface RpoInfo {
  /** Blocks reachable from the entry, in reverse postorder. */
  readonly order: readonly Block[];
  /** RPO number of each reachable block. */
  readonly index: ReadonlyMap<Block, number>;
  /** Blocks not reachable from the entry. */
  readonly unreachable: readonly Block[];
}

/** Reverse postorder of the CFG from the entry (iterative DFS, successors in their listed order). */
export function computeRpo(fn: OriFunction): RpoInfo {
  const post: Block[] = [];
  const seen = new Set<Block>();
  if (fn.blocks.length) {
    const stack: Array<{ b: Block; k: number }> = [{ b: fn.entry, k: 0 }];
    seen.add(fn.entry);
    while (stack.length) {
      const top = stack[stack.length - 1]!;
      const s = top.b.succs[top.k++];
      if (s === undefined) {
        post.push(top.b);
        stack.pop();
      } else if (!seen.has(s)) {
        seen.add(s);
        stack.push({ b: s, k: 0 });
      }
    }
  }
  const order = post.reverse();
  const index = new Map(order.map((b, i) => [b, i] as const));
  return { order, index, unreachable: fn.blocks.filter((b) => !seen.has(b)) };
}

export const RpoAnalysis = defineAnalysis({ name: 'rpo', dependsOn: 'cfg', compute: computeRpo });

/** Number of CFG predecessors of every block. */
export function computePredCounts(fn: OriFunction): Map<Block, number> {
  return new Map(fn.blocks.map((b) => [b, b.preds.length] as const));
}
export const PredCountAnalysis = defineAnalysis({ name: 'predCounts', dependsOn: 'cfg', compute: computePredCounts });
