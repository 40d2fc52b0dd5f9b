import type { Instr, Loop, Register } from '@ptxforge/kernel';

/** Registers with at most this many definitions are filtered directly; others go through the loop's index. */
const FEW_DEFS = 16;

/**
 * The definitions of registers inside one loop, for one analysis of it. A register reused all over a big function
 * (a loop counter every loop of the function redefines, an accumulator) has thousands of defs: filtering them per
 * loop made the loop passes (phases 21, 22) O(loops x defs). Such a register is looked up in an index of the loop's own instructions,
 * built once (O(loop size)); a register with few defs is filtered directly. Make one per analysis and a new one
 * after changing the loop's instructions: the index is not updated.
 */
export class LoopDefs {
  private index: Map<Register, Instr[]> | undefined;
  constructor(readonly loop: Loop) {}
  /** The instructions of the loop that define `r` (each once). */
  of(r: Register): readonly Instr[] {
    if (r.defs.size <= FEW_DEFS) {
      const out: Instr[] = [];
      for (const d of r.defs) if (d.block && this.loop.blockSet.has(d.block)) out.push(d);
      return out;
    }
    if (!this.index) {
      this.index = new Map();
      for (const b of this.loop.blocks) {
        for (const i of b.instrs) {
          for (const x of i.defRegs()) {
            let l = this.index.get(x);
            if (!l) this.index.set(x, (l = []));
            if (l[l.length - 1] !== i) l.push(i);
          }
        }
      }
    }
    return this.index.get(r) ?? [];
  }
  has(r: Register): boolean {
    return this.of(r).length > 0;
  }
  /** The one definition of `r` outside the loop, when it has exactly one there. */
  singleOutside(r: Register): Instr | undefined {
    if (r.defs.size - this.of(r).length !== 1) return undefined;
    for (const d of r.defs) if (!d.block || !this.loop.blockSet.has(d.block)) return d;
    return undefined;
  }
}
