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
  const blocks = fn.blocks;
  const n = blocks.length;
  const post: Block[] = [];
  // Visited marks and the DFS stack in typed arrays indexed by layout position (valid once the CFG is
  // built, which reading `succs` ensures): no hashing and no object per block.
  const seen = new Uint8Array(n);
  if (n) {
    const entry = fn.entry;
    void entry.succs;
    // The CFG update keeps positions exact only where it looks; the arrays below need every one.
    fn._renumberBlocks();
    const stackB: Block[] = [entry];
    const stackK = new Int32Array(n);
    seen[entry._pos] = 1;
    while (stackB.length) {
      const d = stackB.length - 1;
      const b = stackB[d]!;
      const s = b.succs[stackK[d]!++];
      if (s === undefined) {
        post.push(b);
        stackB.pop();
      } else if (!seen[s._pos]) {
        seen[s._pos] = 1;
        stackK[stackB.length] = 0;
        stackB.push(s);
      }
    }
  }
  const order = post.reverse();
  const index = new Map<Block, number>();
  for (let i = 0; i < order.length; i++) index.set(order[i]!, i);
  const unreachable: Block[] = [];
  for (let k = 0; k < n; k++) if (!seen[k]) unreachable.push(blocks[k]!);
  return { order, index, unreachable };
}

export const RpoAnalysis = defineAnalysis({ name: 'rpo', dependsOn: 'cfg', compute: computeRpo });

/** Number of CFG predecessors of every block. */
export function computePredCounts(fn: OriFunction): Map<Block, number> {
  return new Map(fn.blocks.map((b) => [b, b.preds.length] as const));
}
export const PredCountAnalysis = defineAnalysis({ name: 'predCounts', dependsOn: 'cfg', compute: computePredCounts });
