import { computeRpo, type RpoInfo } from '../analysis/cfg.js';
import { solveMaybeDefined } from '../analysis/maybe-defined.js';
import { Instr, reg, type Block, type OriFunction, type Register } from './core.js';

/**
 * The IR invariant "every use is reached by a definition on some path" (verify.ts; ori-semantics.md: a read
 * of a register no path wrote is `UNDEF`, which the front end makes explicit) can be broken by deleting
 * unreachable code, which is not wrong in itself: when a constant branch is folded, the block it skipped
 * becomes unreachable, and a register whose only definition on some path stood there is now read with no
 * definition reaching it (PTX: its value is unspecified). This gives every such register an `UNDEF` at the
 * function entry, as the front end's defineMaybeUndefined does for the input.
 *
 * Candidates are only the registers written in blocks that are now unreachable and those whose definitions
 * were deleted as unreachable (OriFunction.takeUnreachableDefs), which still have uses. The "maybe defined"
 * dataflow runs on bitsets of (reachable blocks x candidates); a use is checked through the register's
 * def/use sets, not by scanning instructions, so a call that finds nothing costs O(blocks + edges).
 * Returns the registers that got an UNDEF (by id).
 */
export function restoreReachingDefs(fn: OriFunction, rpo: RpoInfo = computeRpo(fn)): Register[] {
  const pending = fn.takeUnreachableDefs() ?? new Set<Register>();
  for (const b of rpo.unreachable) {
    for (const i of b.instrs) for (const d of i.defs) if (d.kind === 'reg') pending.add(d.reg);
  }
  if (pending.size === 0) return [];
  const cands: Register[] = [];
  for (const r of pending) {
    if (r.isParam || r.isPhysical || !hasReachableUse(r, rpo)) continue;
    cands.push(r);
  }
  if (!cands.length) return [];
  cands.sort((a, b) => a.id - b.id);

  const nb = rpo.order.length;
  const words = (cands.length + 31) >>> 5;
  // out[b]: candidates some path from the entry through the end of b defines
  const out = new Uint32Array(nb * words);
  cands.forEach((r, c) => {
    for (const d of r.defs) {
      const bi = d.block ? rpo.index.get(d.block) : undefined;
      if (bi !== undefined) out[bi * words + (c >>> 5)]! |= 1 << (c & 31);
    }
  });
  const preds: number[][] = rpo.order.map((b) => {
    const ps: number[] = [];
    for (const p of b.preds) {
      const pi = rpo.index.get(p);
      if (pi !== undefined) ps.push(pi);
    }
    return ps;
  });
  solveMaybeDefined(out, preds, words);

  const missing: Register[] = [];
  cands.forEach((r, c) => {
    const bit = 1 << (c & 31);
    const w = c >>> 5;
    // Position of the first definition of r in each block (built once per register when a use needs it).
    let firstDef: Map<Block, number> | undefined;
    for (const u of r.uses.keys()) {
      const b = u.block;
      const bi = b ? rpo.index.get(b) : undefined;
      if (b === undefined || bi === undefined) continue;
      let reached = false;
      for (const pi of preds[bi]!) {
        if (out[pi * words + w]! & bit) {
          reached = true;
          break;
        }
      }
      if (reached) continue;
      if (!firstDef) {
        firstDef = new Map();
        for (const d of r.defs) {
          if (!d.block) continue;
          const k = d.index;
          const f = firstDef.get(d.block);
          if (f === undefined || k < f) firstDef.set(d.block, k);
        }
      }
      // A definition earlier in the use's own block (an instruction reads its operands before it writes).
      const f = firstDef.get(b);
      if (f !== undefined && f < u.index) continue;
      missing.push(r);
      return;
    }
  });
  missing.forEach((r, k) => fn.entry.insertAt(k, new Instr('UNDEF', { defs: [reg(r)] })));
  return missing;
}

function hasReachableUse(r: Register, rpo: RpoInfo): boolean {
  for (const u of r.uses.keys()) if (u.block && rpo.index.has(u.block)) return true;
  return false;
}
