import { Instr, computeRpo, reg, type Block, type OriFunction, type Register } from '@ptxforge/kernel';

/**
 * PTX lets a program read a register no instruction wrote (its value is unspecified). Ori reads of
 * never-written registers are errors, so every register that some use may reach without a definition gets
 * `UNDEF` at the function entry ("any value", ori-semantics.md Pseudo-ops). Same dataflow as the verifier.
 */
export function defineMaybeUndefined(fn: OriFunction): void {
  const rpo = computeRpo(fn);
  const out = new Map<Block, Set<Register>>();
  for (const b of rpo.order) out.set(b, new Set());
  const params = fn.registers.filter((r) => r.isParam);
  let changed = true;
  while (changed) {
    changed = false;
    for (const b of rpo.order) {
      const o = out.get(b)!;
      const before = o.size;
      for (const p of b.preds) for (const r of out.get(p) ?? []) o.add(r);
      for (const i of b.instrs) for (const r of i.defRegs()) o.add(r);
      if (o.size !== before) changed = true;
    }
  }
  const missing = new Set<Register>();
  for (const b of rpo.order) {
    const live = new Set<Register>(params);
    for (const p of b.preds) for (const r of out.get(p) ?? []) live.add(r);
    for (const i of b.instrs) {
      for (const r of i.useRegs()) if (!live.has(r)) missing.add(r);
      for (const r of i.defRegs()) live.add(r);
    }
  }
  const entry = fn.entry;
  const sorted = [...missing].sort((a, b) => a.id - b.id);
  sorted.forEach((r, k) => entry.insertAt(k, new Instr('UNDEF', { defs: [reg(r)] })));
}
