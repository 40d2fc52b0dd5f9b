import { Instr, computeRpo, reg, solveMaybeDefined, type OriFunction, type Register } from '@ptxforge/kernel';

/**
 * PTX lets a program read a register no instruction wrote (its value is unspecified). Ori reads of
 * never-written registers are errors, so every register that some use may reach without a definition gets
 * `UNDEF` at the function entry ("any value", ori-semantics.md Pseudo-ops). Same "maybe defined" dataflow as
 * the verifier, on bitsets.
 *
 * Each instruction's registers are read once into one flat list of ids (uses, then defs). Only a register
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
  // ev: per instruction [nUses, ...useIds, nDefs, ...defIds]; block bi's instructions are ev[start[bi]..start[bi+1])
  const ev: number[] = [];
  const start = new Int32Array(nb + 1);
  const definedIn = new Int32Array(maxId).fill(-1);
  const cand = new Int32Array(maxId).fill(-1);
  const cands: Register[] = [];
  for (let bi = 0; bi < nb; bi++) {
    start[bi] = ev.length;
    const instrs = order[bi]!.instrs;
    for (let k = 0; k < instrs.length; k++) {
      const i = instrs[k]!;
      const u = i.useRegs();
      ev.push(u.length);
      for (let x = 0; x < u.length; x++) {
        const r = u[x]!;
        ev.push(r.id);
        if (definedIn[r.id] !== bi && cand[r.id] < 0 && !r.isParam) {
          cand[r.id] = cands.length;
          cands.push(r);
        }
      }
      const d = i.defRegs();
      ev.push(d.length);
      for (let x = 0; x < d.length; x++) {
        ev.push(d[x]!.id);
        definedIn[d[x]!.id] = bi;
      }
    }
  }
  start[nb] = ev.length;
  if (cands.length === 0) return;

  const words = (cands.length + 31) >>> 5;
  // out[b] = the candidates some path from the entry through b's end defines (gen of b, or of any predecessor's out)
  const out = new Uint32Array(nb * words);
  const preds: number[][] = new Array(nb);
  for (let bi = 0; bi < nb; bi++) {
    for (let e = start[bi]!; e < start[bi + 1]!; ) {
      e += ev[e]! + 1; // uses
      const nd = ev[e++]!;
      for (let x = 0; x < nd; x++) {
        const c = cand[ev[e++]!]!;
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
  for (let bi = 0; bi < nb; bi++) {
    live.fill(0);
    for (const pi of preds[bi]!) for (let w = 0; w < words; w++) live[w]! |= out[pi * words + w]!;
    for (let e = start[bi]!; e < start[bi + 1]!; ) {
      const nu = ev[e++]!;
      for (let x = 0; x < nu; x++) {
        const id = ev[e++]!;
        const c = cand[id]!;
        if (c >= 0 && (live[c >>> 5]! & (1 << (c & 31))) === 0 && !isMissing[c]) {
          isMissing[c] = 1;
          missing.push(byId[id]!);
        }
      }
      const nd = ev[e++]!;
      for (let x = 0; x < nd; x++) {
        const c = cand[ev[e++]!]!;
        if (c >= 0) live[c >>> 5]! |= 1 << (c & 31);
      }
    }
  }
  missing.sort((a, b) => a.id - b.id);
  missing.forEach((r, k) => fn.entry.insertAt(k, new Instr('UNDEF', { defs: [reg(r)] })));
}
