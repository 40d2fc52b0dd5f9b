import type { Block, Instr, OriFunction, Operand, Register } from '@ptxforge/kernel';
import { isPlainReg, isRemovableWhenDead, operandKey, sameOperand, sweepDeadBackward } from '@ptxforge/opt-utils';

const MOVES = new Set(['MOV', 'UMOV', 'COPY', 'MOVPHI']);

/** `d = MOV x` with a register d and a plain register or constant x (guard allowed). */
function moveOf(i: Instr): { d: Register; x: Operand } | undefined {
  if (!MOVES.has(i.opcode) || i.mods.length || i.defs.length !== 1 || i.uses.length !== 1) return undefined;
  const d = i.defs[0]!;
  const x = i.uses[0]!;
  if (d.kind !== 'reg') return undefined;
  if (isPlainReg(x)) return x.reg.cls === d.reg.cls && x.reg.width === d.reg.width ? { d: d.reg, x } : undefined;
  if ((x.kind === 'imm' || x.kind === 'rz' || (x.kind === 'cbank' && !x.index)) && (d.reg.cls === 'R' || d.reg.cls === 'UR')) return { d: d.reg, x };
  return undefined;
}

/** Facts "register d holds the same value as operand x", keyed `d.id|key(x)`. */
type Facts = Map<string, { d: Register; x: Operand }>;

function factKey(d: Register, x: Operand): string {
  return `${d.id}|${operandKey(x)}`;
}
function mentions(f: { d: Register; x: Operand }, r: Register): boolean {
  return f.d === r || (f.x.kind === 'reg' && f.x.reg === r);
}
function intersect(a: Facts, b: Facts): Facts {
  const out: Facts = new Map();
  for (const [k, v] of a) if (b.has(k)) out.set(k, v);
  return out;
}

/** Apply one instruction to the fact set (every def kills what it touches; an unguarded move adds a fact). */
function transfer(facts: Facts, i: Instr): void {
  for (const r of i.defRegs()) for (const [k, f] of facts) if (mentions(f, r)) facts.delete(k);
  const m = moveOf(i);
  if (m && !i.guard && !(m.x.kind === 'reg' && m.x.reg === m.d)) facts.set(factKey(m.d, m.x), m);
}

function holds(facts: Facts, d: Register, x: Operand): boolean {
  if (facts.has(factKey(d, x))) return true;
  if (x.kind === 'reg') for (const f of facts.values()) if (f.x.kind === 'reg' && f.d === x.reg && f.x.reg === d) return true;
  // d and x both equal to the same third value.
  for (const f of facts.values()) if (f.d === d && [...facts.values()].some((g) => g !== f && sameOperand(g.x, f.x) && x.kind === 'reg' && g.d === x.reg)) return true;
  return false;
}

/**
 * Phase 52 OriReplaceEquivMultiDefMov: a move `d = MOV x` where d already holds x's value on every path
 * (forward "available equalities" over the CFG: meet = intersection, any def of d or x kills the fact,
 * guarded defs included) is redundant and removed. Typical source: the copies a front end writes on every
 * edge into a join for a multi-def register. Returns the number removed.
 */
export function removeEquivalentMoves(fn: OriFunction): number {
  const blocks = fn.blocks;
  const out = new Map<Block, Facts | undefined>(blocks.map((b) => [b, undefined]));
  const inOf = (b: Block): Facts => {
    if (b === fn.entry) return new Map();
    let acc: Facts | undefined;
    for (const p of b.preds) {
      const o = out.get(p);
      if (o === undefined) continue; // not computed yet: optimistic (top)
      acc = acc ? intersect(acc, o) : new Map(o);
    }
    return acc ?? new Map();
  };
  let changed = true;
  while (changed) {
    changed = false;
    for (const b of blocks) {
      const f = inOf(b);
      for (const i of b.instrs) transfer(f, i);
      const prev = out.get(b);
      if (!prev || prev.size !== f.size || [...f.keys()].some((k) => !prev.has(k))) {
        out.set(b, f);
        changed = true;
      }
    }
  }
  let n = 0;
  for (const b of blocks) {
    const f = inOf(b);
    for (const i of [...b.instrs]) {
      const m = moveOf(i);
      if (m && (holds(f, m.d, m.x) || (m.x.kind === 'reg' && m.x.reg === m.d))) {
        b.remove(i);
        n++;
        continue;
      }
      transfer(f, i);
    }
  }
  return n;
}

/**
 * Phase 62 OriRemoveRedundantMultiDefMov: moves into a register that is not live afterwards (bitset
 * liveness; a guarded def does not kill) are dead and removed, as are self-moves.
 */
export function removeDeadMoves(fn: OriFunction): number {
  return sweepDeadBackward(fn, (i, liveAfter) => {
    const m = moveOf(i);
    return !!m && isRemovableWhenDead(i) && (!liveAfter.has(m.d.id) || (m.x.kind === 'reg' && m.x.reg === m.d));
  });
}

/**
 * Phase 83 OriBackCopyPropagate: `t = OP ...; ...; d = MOV t` where t is written only by OP and read only
 * by the move becomes `d = OP ...` (the move disappears). Both unguarded, in one block, d neither read nor
 * written between them, same class and width.
 */
export function backPropagateCopies(fn: OriFunction): number {
  let n = 0;
  for (const b of fn.blocks) {
    for (const mov of [...b.instrs]) {
      if (mov.block !== b || mov.guard) continue;
      const m = moveOf(mov);
      if (!m || m.x.kind !== 'reg') continue;
      const t = m.x.reg;
      const d = m.d;
      if (t === d || t.defs.size !== 1 || t.uses.size !== 1 || t.useCount !== 1 || t.isParam) continue;
      const op = t.def!;
      if (op.block !== b || op.guard || op.opcode === 'PHI' || !op.info || op.info.isCall) continue;
      if (op.useRegs().includes(t)) continue;
      const k0 = op.index;
      const k1 = mov.index;
      if (k0 > k1) continue;
      let clean = true;
      for (let k = k0 + 1; k < k1 && clean; k++) {
        const x = b.instrs[k]!;
        if (x.defRegs().includes(d) || x.useRegs().includes(d)) clean = false;
      }
      if (!clean || op.defRegs().includes(d)) continue;
      op.setDefs(op.defs.map((o) => (o.kind === 'reg' && o.reg === t ? { ...o, reg: d } : o)));
      b.remove(mov);
      n++;
    }
  }
  return n;
}
