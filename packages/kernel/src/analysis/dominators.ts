import type { Block, OriFunction } from '../ir/core.js';
import { computeRpo } from './cfg.js';
import { defineAnalysis } from './manager.js';

/** A dominator (or post-dominator) tree. */
export class DomTree {
  readonly children = new Map<Block, Block[]>();
  private readonly pre = new Map<Block, number>();
  private readonly post = new Map<Block, number>();

  constructor(
    /** Immediate dominator of each block in the tree; the root maps to undefined. */
    readonly idom: ReadonlyMap<Block, Block | undefined>,
    readonly roots: readonly Block[],
  ) {
    for (const [b, d] of idom) {
      if (!this.children.has(b)) this.children.set(b, []);
      if (d) {
        const c = this.children.get(d) ?? [];
        c.push(b);
        this.children.set(d, c);
      }
    }
    let t = 0;
    const walk = (root: Block): void => {
      const stack: Array<{ b: Block; k: number }> = [{ b: root, k: 0 }];
      this.pre.set(root, t++);
      while (stack.length) {
        const top = stack[stack.length - 1]!;
        const c = this.children.get(top.b)![top.k++];
        if (!c) {
          this.post.set(top.b, t++);
          stack.pop();
        } else {
          this.pre.set(c, t++);
          stack.push({ b: c, k: 0 });
        }
      }
    };
    for (const r of roots) walk(r);
  }
  /** Whether `a` dominates `b` (reflexive). Blocks outside the tree dominate nothing. */
  dominates(a: Block, b: Block): boolean {
    const pa = this.pre.get(a);
    const pb = this.pre.get(b);
    if (pa === undefined || pb === undefined) return false;
    return pa <= pb && this.post.get(b)! <= this.post.get(a)!;
  }
  strictlyDominates(a: Block, b: Block): boolean {
    return a !== b && this.dominates(a, b);
  }
  contains(b: Block): boolean {
    return this.idom.has(b);
  }
}

/** Cooper-Harvey-Kennedy iterative dominators over `order` (RPO), with `preds` giving the predecessors. */
function chk(order: readonly Block[], roots: readonly Block[], preds: (b: Block) => readonly Block[]): Map<Block, Block | undefined> {
  const index = new Map(order.map((b, i) => [b, i] as const));
  const idom = new Map<Block, Block>();
  for (const r of roots) idom.set(r, r);
  const intersect = (a: Block, b: Block): Block => {
    while (a !== b) {
      while (index.get(a)! > index.get(b)!) a = idom.get(a)!;
      while (index.get(b)! > index.get(a)!) b = idom.get(b)!;
    }
    return a;
  };
  const rootSet = new Set(roots);
  let changed = true;
  while (changed) {
    changed = false;
    for (const b of order) {
      if (rootSet.has(b)) continue;
      let nd: Block | undefined;
      for (const p of preds(b)) {
        if (!idom.has(p)) continue;
        nd = nd ? intersect(p, nd) : p;
      }
      if (nd && idom.get(b) !== nd) {
        idom.set(b, nd);
        changed = true;
      }
    }
  }
  const out = new Map<Block, Block | undefined>();
  for (const [b, d] of idom) out.set(b, rootSet.has(b) ? undefined : d);
  return out;
}

/** Dominator tree of the blocks reachable from the entry. */
export function computeDominators(fn: OriFunction): DomTree {
  const { order } = computeRpo(fn);
  if (!order.length) return new DomTree(new Map(), []);
  return new DomTree(chk(order, [fn.entry], (b) => b.preds), [fn.entry]);
}

/**
 * Post-dominator tree. Exit blocks (no successors) are the roots; with several exits they all hang below a
 * virtual exit, which here means: a block's ipdom is undefined when only the virtual exit post-dominates it.
 * A block with a guarded EXIT/RET (`@p EXIT` inside a loop, as OriBranchOpt makes of a branch to an exit block)
 * also has an edge to the virtual exit: without it a loop whose only way out is such an instruction could not
 * reach an exit, and no branch in it would have an ipdom (the interpreter would never reconverge its diamonds).
 * Blocks that cannot reach an exit (infinite loops) are not in the tree.
 */
export function computePostDominators(fn: OriFunction): DomTree {
  const guardedExit = (b: Block): boolean => b.succs.length > 0 && b.instrs.some((i) => (i.opcode === 'EXIT' || i.opcode === 'RET') && i.guard !== undefined);
  const exits = fn.blocks.filter((b) => b.succs.length === 0 || guardedExit(b));
  // Reverse CFG postorder from all exits gives the RPO of the reversed graph.
  const post: Block[] = [];
  const seen = new Set<Block>();
  for (const e of exits) {
    if (seen.has(e)) continue;
    seen.add(e);
    const stack: Array<{ b: Block; k: number }> = [{ b: e, k: 0 }];
    while (stack.length) {
      const top = stack[stack.length - 1]!;
      const p = top.b.preds[top.k++];
      if (!p) {
        post.push(top.b);
        stack.pop();
      } else if (!seen.has(p)) {
        seen.add(p);
        stack.push({ b: p, k: 0 });
      }
    }
  }
  const order = post.reverse();
  if (exits.length <= 1 && exits.every((b) => b.succs.length === 0)) return new DomTree(chk(order, exits, (b) => b.succs), exits);
  // Several exits (or a guarded exit): run CHK with a virtual root that all exits hang under, then drop it.
  const virt = { label: '<exit>' } as unknown as Block;
  const toExit = new Set(exits);
  const succs = (b: Block): readonly Block[] => (b.succs.length === 0 ? [virt] : toExit.has(b) ? [...b.succs, virt] : b.succs);
  const id = chk([virt, ...order], [virt], (b) => (b === virt ? [] : succs(b)));
  const out = new Map<Block, Block | undefined>();
  for (const [b, d] of id) if (b !== virt) out.set(b, d === virt ? undefined : d);
  return new DomTree(out, [...out].filter(([, d]) => d === undefined).map(([b]) => b));
}

export const DominatorAnalysis = defineAnalysis({ name: 'dominators', dependsOn: 'cfg', compute: computeDominators });
export const PostDominatorAnalysis = defineAnalysis({ name: 'postDominators', dependsOn: 'cfg', compute: computePostDominators });
