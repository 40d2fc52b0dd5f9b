import { Instr, computeRpo, reg, type Block, type OriFunction, type Register } from '@ptxforge/kernel';

/**
 * PTX lets a program read a register no instruction wrote (its value is unspecified). Ori reads of
 * never-written registers are errors, so every register that some use may reach without a definition gets
 * `UNDEF` at the function entry ("any value", ori-semantics.md Pseudo-ops). Same "maybe defined" dataflow as
 * the verifier, on bitsets indexed by register id (kernels with thousands of registers and blocks).
 */
export function defineMaybeUndefined(fn: OriFunction): void {
  const rpo = computeRpo(fn);
  const regs = fn.registers;
  const words = (regs.length + 31) >>> 5;
  const set = (bits: Uint32Array, r: Register): void => {
    bits[r.id >>> 5]! |= 1 << (r.id & 31);
  };
  const has = (bits: Uint32Array, r: Register): boolean => (bits[r.id >>> 5]! & (1 << (r.id & 31))) !== 0;
  const gen = new Map<Block, Uint32Array>();
  const out = new Map<Block, Uint32Array>();
  for (const b of rpo.order) {
    const g = new Uint32Array(words);
    for (const i of b.instrs) for (const r of i.defRegs()) set(g, r);
    gen.set(b, g);
    out.set(b, g.slice());
  }
  const params = new Uint32Array(words);
  for (const r of regs) if (r.isParam) set(params, r);
  let changed = true;
  while (changed) {
    changed = false;
    for (const b of rpo.order) {
      const o = out.get(b)!;
      for (const p of b.preds) {
        const po = out.get(p);
        if (!po) continue;
        for (let w = 0; w < words; w++) {
          const v = (o[w]! | po[w]!) >>> 0;
          if (v !== o[w]) {
            o[w] = v;
            changed = true;
          }
        }
      }
    }
  }
  const missing = new Set<Register>();
  for (const b of rpo.order) {
    const live = params.slice();
    for (const p of b.preds) {
      const po = out.get(p);
      if (po) for (let w = 0; w < words; w++) live[w]! |= po[w]!;
    }
    for (const i of b.instrs) {
      for (const r of i.useRegs()) if (!has(live, r)) missing.add(r);
      for (const r of i.defRegs()) set(live, r);
    }
  }
  const sorted = [...missing].sort((a, b) => a.id - b.id);
  sorted.forEach((r, k) => fn.entry.insertAt(k, new Instr('UNDEF', { defs: [reg(r)] })));
}
