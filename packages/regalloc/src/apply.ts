import { RegallocError } from './errors.js';
import type { PhysReg, RaInstr, RaResult } from './types.js';

/** How the caller turns the allocator's output into its own instructions (it owns instruction creation). */
export interface AllocationCallbacks<Ref, M> {
  /** An input instruction with its operands' physical registers (same positions as its defs/uses). */
  instr(ref: Ref | undefined, source: RaInstr<Ref>, regs: { defs: PhysReg[]; uses: PhysReg[]; partialDefs: PhysReg[]; identityCopy: boolean }): M | readonly M[] | undefined;
  /** Store `reg` to the spill slot at `slot` bytes from the frame base (STL). */
  spillStore(reg: PhysReg, slot: number, bytes: number): M | readonly M[];
  /** Load the spill slot at `slot` into `reg` (LDL). */
  reload(reg: PhysReg, slot: number, bytes: number): M | readonly M[];
  /** Recompute the rematerializable instruction `source` into `reg`. */
  remat(ref: Ref | undefined, source: RaInstr<Ref>, reg: PhysReg): M | readonly M[];
  /** Keep `reg` (a predicate) in `home` (a register of another class). Needed when the result has `save` items. */
  save?(reg: PhysReg, home: PhysReg): M | readonly M[];
  /** Bring `home` back into `reg`. */
  restore?(home: PhysReg, reg: PhysReg): M | readonly M[];
}

/** Walk an allocation result and build the caller's instructions per block (identity copies: the callback decides). */
export function applyAllocation<Ref, M>(result: RaResult<Ref>, cb: AllocationCallbacks<Ref, M>): M[][] {
  const phys = (v: number): PhysReg => {
    const vr = result.vregs[v]!;
    return { cls: vr.cls, index: result.assignment[v]!, width: vr.width };
  };
  return result.blocks.map((instrs) => {
    const out: M[] = [];
    const add = (m: M | readonly M[] | undefined): void => {
      if (m === undefined) return;
      if (Array.isArray(m)) out.push(...(m as readonly M[]));
      else out.push(m as M);
    };
    for (const ins of instrs) {
      switch (ins.kind) {
        case 'instr':
          add(cb.instr(ins.ref, ins.source, { defs: ins.defs.map(phys), uses: ins.uses.map(phys), partialDefs: ins.partialDefs.map(phys), identityCopy: ins.identityCopy }));
          break;
        case 'spill-store':
          add(cb.spillStore(phys(ins.vreg), ins.slot, ins.bytes));
          break;
        case 'reload':
          add(cb.reload(phys(ins.vreg), ins.slot, ins.bytes));
          break;
        case 'remat':
          add(cb.remat(ins.ref, ins.source, phys(ins.vreg)));
          break;
        case 'save':
          if (!cb.save) throw new RegallocError('RA_NO_CALLBACK', 'the allocation keeps predicates in other registers (save/restore) but no save callback was given');
          add(cb.save(phys(ins.vreg), phys(ins.home)));
          break;
        case 'restore':
          if (!cb.restore) throw new RegallocError('RA_NO_CALLBACK', 'the allocation keeps predicates in other registers (save/restore) but no restore callback was given');
          add(cb.restore(phys(ins.home), phys(ins.vreg)));
          break;
      }
    }
    return out;
  });
}
