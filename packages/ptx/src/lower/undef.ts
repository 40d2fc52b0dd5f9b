import { Instr, computeRpo, reg, solveMaybeDefined, type Operand, type OriFunction, type Register } from '@ptxforge/kernel';

/** The register an operand reads (as operandRegs), or undefined. */
function operandReg(o: Operand): Register | undefined {
  if (o.kind === 'reg') return o.reg;
  if (o.kind === 'mem') return o.base;
  if (o.kind === 'cbank') return o.index;
  return undefined;
}

/**
 * PTX lets a program read a register no instruction wrote (its value is unspecified). Ori reads of
 * never-written registers are errors, so every register that some use may reach without a definition gets
 * `UNDEF` at the function entry ("any value", ori-semantics.md Pseudo-ops). Same "maybe defined" dataflow as
 * the verifier, on bitsets.
 *
 * Three walks over the instructions read their operands in place (no list per instruction). Only a register
 * read before any write in its own block (an upward-exposed read) can be undefined at a read, and parameters
 * never are: the dataflow tracks just those candidates, densely numbered, so its bitsets are (blocks x
 * candidates) rather than (blocks x registers) -- and most functions have none at all.
 */
export function defineMaybeUndefined(fn: OriFunction): void {
  const rpo = computeRpo(fn);
  const order = rpo.order;
  const nb = order.length;
  const byId: Register[] = [];
  for (const r of fn.registers) byId[r.id] = r;
  const maxId = byId.length;
  // Pass 1: the candidates (upward-exposed reads, numbered in first-read order). The passes walk each
  // instruction's operands in place, in useRegs()/defRegs() order (no list per instruction).
  const definedIn = new Int32Array(maxId).fill(-1);
  const cand = new Int32Array(maxId).fill(-1);
  const cands: Register[] = [];
  for (let bi = 0; bi < nb; bi++) {
    const instrs = order[bi]!.instrs;
    for (let k = 0; k < instrs.length; k++) {
      const i = instrs[k]!;
      const g = i.guard;
      if (g) noteRead(g.reg, bi, definedIn, cand, cands);
      const uses = i.uses;
      for (let x = 0; x < uses.length; x++) noteRead(operandReg(uses[x]!), bi, definedIn, cand, cands);
      const defs = i.defs;
      for (let x = 0; x < defs.length; x++) if (defs[x]!.kind !== 'reg') noteRead(operandReg(defs[x]!), bi, definedIn, cand, cands);
      for (let x = 0; x < defs.length; x++) {
        const d = defs[x]!;
        if (d.kind === 'reg') definedIn[d.reg.id] = bi;
      }
    }
  }
  if (cands.length === 0) return;

  const words = (cands.length + 31) >>> 5;
  // out[b] = the candidates some path from the entry through b's end defines (gen of b, or of any predecessor's out)
  const out = new Uint32Array(nb * words);
  const preds: number[][] = new Array(nb);
  for (let bi = 0; bi < nb; bi++) {
    const instrs = order[bi]!.instrs;
    for (let k = 0; k < instrs.length; k++) {
      const defs = instrs[k]!.defs;
      for (let x = 0; x < defs.length; x++) {
        const d = defs[x]!;
        if (d.kind !== 'reg') continue;
        const c = cand[d.reg.id]!;
        if (c >= 0) out[bi * words + (c >>> 5)]! |= 1 << (c & 31);
      }
    }
    const ps: number[] = [];
    for (const p of order[bi]!.preds) {
      const pi = rpo.index.get(p);
      if (pi !== undefined) ps.push(pi);
    }
    preds[bi] = ps;
  }
  solveMaybeDefined(out, preds, words);
  const missing: Register[] = [];
  const isMissing = new Uint8Array(cands.length);
  const live = new Uint32Array(words);
  const check = (r: Register | undefined): void => {
    if (!r) return;
    const c = cand[r.id]!;
    if (c >= 0 && (live[c >>> 5]! & (1 << (c & 31))) === 0 && !isMissing[c]) {
      isMissing[c] = 1;
      missing.push(r);
    }
  };
  for (let bi = 0; bi < nb; bi++) {
    live.fill(0);
    for (const pi of preds[bi]!) for (let w = 0; w < words; w++) live[w]! |= out[pi * words + w]!;
    const instrs = order[bi]!.instrs;
    for (let k = 0; k < instrs.length; k++) {
      const i = instrs[k]!;
      if (i.guard) check(i.guard.reg);
      const uses = i.uses;
      for (let x = 0; x < uses.length; x++) check(operandReg(uses[x]!));
      const defs = i.defs;
      for (let x = 0; x < defs.length; x++) if (defs[x]!.kind !== 'reg') check(operandReg(defs[x]!));
      for (let x = 0; x < defs.length; x++) {
        const d = defs[x]!;
        if (d.kind !== 'reg') continue;
        const c = cand[d.reg.id]!;
        if (c >= 0) live[c >>> 5]! |= 1 << (c & 31);
      }
    }
  }
  missing.sort((a, b) => a.id - b.id);
  missing.forEach((r, k) => fn.entry.insertAt(k, new Instr('UNDEF', { defs: [reg(r)] })));
}

/** Pass 1 of defineMaybeUndefined: `r` is read in block `bi`; a read before any write there (and not of a parameter) makes it a candidate. */
function noteRead(r: Register | undefined, bi: number, definedIn: Int32Array, cand: Int32Array, cands: Register[]): void {
  if (!r) return;
  if (definedIn[r.id] !== bi && cand[r.id]! < 0 && !r.isParam) {
    cand[r.id] = cands.length;
    cands.push(r);
  }
}
