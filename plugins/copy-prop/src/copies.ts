import type { Block, Instr, OriFunction, Operand, Register } from '@ptxforge/kernel';
import { isPlainReg, isRemovableWhenDead, operandKey, sweepDeadBackward } from '@ptxforge/opt-utils';

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

/**
 * The facts "register d holds the same value as operand x" that the moves of one function can establish,
 * numbered once per function so that a fact set is a bitset over them (one word per 32 facts), and indexed by
 * the registers they mention, so that a def kills only its own facts. Two moves with the same d and the same
 * operand key (operandKey: equal keys <=> sameOperand for the operands moves carry) share one fact.
 */
class FactTable {
  /** Per fact: its destination register and its source operand. */
  readonly d: Register[] = [];
  readonly x: Operand[] = [];
  /** Fact id by destination register and source operand key. */
  private readonly byDest = new Map<Register, Map<string, number>>();
  /** Fact ids that mention a register (as d or as a register x). */
  private readonly byReg = new Map<Register, number[]>();
  /** Fact ids whose d is a register (for the "same third value" rule). */
  readonly ofDest = new Map<Register, number[]>();
  /** The fact an unguarded move establishes (-1: none), by instruction. */
  readonly gen = new Map<Instr, number>();
  /** Blocks holding a move (guarded or not): the only ones where a move can be removed. */
  readonly withMoves = new Set<Block>();

  constructor(fn: OriFunction) {
    for (const b of fn.blocks) {
      for (const i of b.instrs) {
        const m = moveOf(i);
        if (!m) continue;
        this.withMoves.add(b);
        if (!i.guard && !(m.x.kind === 'reg' && m.x.reg === m.d)) this.gen.set(i, this.intern(m.d, m.x));
      }
    }
  }
  get size(): number {
    return this.d.length;
  }
  private intern(d: Register, x: Operand): number {
    let m = this.byDest.get(d);
    if (!m) this.byDest.set(d, (m = new Map()));
    const key = operandKey(x);
    let id = m.get(key);
    if (id === undefined) {
      id = this.d.length;
      m.set(key, id);
      this.d.push(d);
      this.x.push(x);
      this.mention(d, id);
      if (x.kind === 'reg' && x.reg !== d) this.mention(x.reg, id);
      let od = this.ofDest.get(d);
      if (!od) this.ofDest.set(d, (od = []));
      od.push(id);
    }
    return id;
  }
  private mention(r: Register, id: number): void {
    let l = this.byReg.get(r);
    if (!l) this.byReg.set(r, (l = []));
    l.push(id);
  }
  /** The id of fact (d, x), or -1 when no move of the function establishes it. */
  lookup(d: Register, x: Operand): number {
    return this.byDest.get(d)?.get(operandKey(x)) ?? -1;
  }
  mentioning(r: Register): readonly number[] | undefined {
    return this.byReg.get(r);
  }
}

const has = (f: Uint32Array, id: number): boolean => id >= 0 && (f[id >>> 5]! & (1 << (id & 31))) !== 0;

/** Apply one instruction to the fact set (every def kills what it touches; an unguarded move adds a fact). */
function transfer(t: FactTable, f: Uint32Array, i: Instr): void {
  const defs = i.defRegs();
  for (let k = 0; k < defs.length; k++) {
    const ids = t.mentioning(defs[k]!);
    if (ids) for (let j = 0; j < ids.length; j++) f[ids[j]! >>> 5]! &= ~(1 << (ids[j]! & 31));
  }
  const g = t.gen.get(i);
  if (g !== undefined) f[g >>> 5]! |= 1 << (g & 31);
}

function holds(t: FactTable, f: Uint32Array, d: Register, x: Operand): boolean {
  if (has(f, t.lookup(d, x))) return true;
  if (x.kind !== 'reg') return false;
  // x already holds d (a plain register fact x = d).
  if (has(f, t.lookup(x.reg, { kind: 'reg', reg: d }))) return true;
  // d and x both equal to the same third value.
  if (x.reg === d) return false;
  const ds = t.ofDest.get(d);
  if (ds) for (const id of ds) if (has(f, id) && has(f, t.lookup(x.reg, t.x[id]!))) return true;
  return false;
}

/**
 * Phase 52 OriReplaceEquivMultiDefMov: a move `d = MOV x` where d already holds x's value on every path
 * (forward "available equalities" over the CFG: meet = intersection, any def of d or x kills the fact,
 * guarded defs included) is redundant and removed. Typical source: the copies a front end writes on every
 * edge into a join for a multi-def register. Fact sets are bitsets over the function's move facts; a def
 * clears only the facts that mention its register. Returns the number removed.
 */
export function removeEquivalentMoves(fn: OriFunction): number {
  const t = new FactTable(fn);
  if (!t.withMoves.size) return 0;
  const words = (t.size + 31) >>> 5;
  const blocks = fn.blocks;
  const entry = fn.entry;
  const out = new Map<Block, Uint32Array | undefined>();
  const inOf = (b: Block): Uint32Array => {
    const acc = new Uint32Array(words);
    if (b === entry) return acc;
    let first = true;
    for (const p of b.preds) {
      const o = out.get(p);
      if (o === undefined) continue; // not computed yet: optimistic (top)
      if (first) {
        acc.set(o);
        first = false;
      } else for (let w = 0; w < words; w++) acc[w]! &= o[w]!;
    }
    return acc;
  };
  const same = (a: Uint32Array, b: Uint32Array): boolean => {
    for (let w = 0; w < words; w++) if (a[w] !== b[w]) return false;
    return true;
  };
  let changed = true;
  while (changed) {
    changed = false;
    for (const b of blocks) {
      const f = inOf(b);
      for (const i of b.instrs) transfer(t, f, i);
      const prev = out.get(b);
      if (!prev || !same(prev, f)) {
        out.set(b, f);
        changed = true;
      }
    }
  }
  let n = 0;
  for (const b of blocks) {
    if (!t.withMoves.has(b)) continue; // nothing to remove (the walk only carries the facts within the block)
    const f = inOf(b);
    // One batch per block (removing one at a time costs the block's length each); a removed move does not
    // pass through the transfer, as before.
    n += b.removeWhere((i) => {
      const m = moveOf(i);
      if (m && (holds(t, f, m.d, m.x) || (m.x.kind === 'reg' && m.x.reg === m.d))) return true;
      transfer(t, f, i);
      return false;
    });
  }
  return n;
}

/**
 * Phase 62 OriRemoveRedundantMultiDefMov: moves into a register that is not live afterwards (bitset
 * liveness; a guarded def does not kill) are dead and removed, as are self-moves.
 */
export function removeDeadMoves(fn: OriFunction): number {
  // Only a move's destination decides (the sweep computes the liveness of those registers alone and walks only
  // the blocks holding a move).
  return sweepDeadBackward(
    fn,
    (i, liveAfter) => {
      const m = moveOf(i);
      return !!m && isRemovableWhenDead(i) && (!liveAfter.has(m.d.id) || (m.x.kind === 'reg' && m.x.reg === m.d));
    },
    (i) => (isRemovableWhenDead(i) ? moveOf(i)?.d : undefined),
  );
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
