import { NOT_PT, PT, replaceRegUses, type Block, type DomTree, type Instr, type Operand, type OriFunction, type Register } from '@ptxforge/kernel';
import { instrDominates, isPlainReg, useKindAt } from '@ptxforge/opt-utils';
import { lutBit } from './lut.js';
import { useOperandWidth } from './operand-width.js';

const COPY_OPCODES = new Set(['MOV', 'UMOV', 'COPY', 'MOVPHI']);

/** `d = MOV s` (or COPY / MOVPHI) with both plain registers of one class and width, unguarded. */
export function copyOf(i: Instr): { d: Register; s: Register } | undefined {
  if (!COPY_OPCODES.has(i.opcode) || i.mods.length || i.guard || i.defs.length !== 1 || i.uses.length !== 1) return undefined;
  const d = i.defs[0]!;
  const s = i.uses[0]!;
  if (d.kind !== 'reg' || !isPlainReg(s)) return undefined;
  if (d.reg.cls !== s.reg.cls || d.reg.width !== s.reg.width) return undefined;
  return { d: d.reg, s: s.reg };
}

/**
 * The reads of `d` that see the value `def` wrote, without reaching-definition analysis:
 *  - later instructions of the same block up to (and including) the next instruction that redefines `d`
 *    or `stop` (a guarded redefinition counts: the value may have changed);
 *  - when `def` is the only def of `d`, every reader that `def` dominates.
 * PHI readers are never included (a PHI reads at the end of a predecessor, not where it stands).
 */
function readersOf(def: Instr, d: Register, dom: () => DomTree, opts: { stop?: Register; localOnly?: boolean } = {}): Instr[] {
  const stop = opts.stop;
  const b = def.block!;
  const out = new Set<Instr>();
  if (d.uses.size === 0) return [];
  // The block scan can end once every non-PHI reader of d in this block has been passed: nothing after
  // that could be added (this keeps the scan from walking the rest of a long block for each copy). Counting
  // those readers walks all of d's readers, though, which is quadratic for a register with many defs and
  // readers across many blocks (a loop counter): when the rest of the block is shorter, it is scanned
  // instead (same readers found, at most min(readers, rest of block) steps).
  const instrs = b.instrs;
  const start = def.index + 1;
  let left = 0;
  if (d.uses.size <= instrs.length - start) {
    for (const u of d.uses.keys()) if (u.block === b && u.opcode !== 'PHI') left++;
  } else left = Infinity;
  for (let k = left ? start : instrs.length; k < instrs.length && left > 0; k++) {
    const u = instrs[k]!;
    if (u.opcode !== 'PHI' && d.uses.has(u)) {
      out.add(u);
      left--;
    }
    if (u.definesReg(d) || (stop && u.definesReg(stop))) break;
  }
  if (d.defs.size === 1 && !opts.localOnly) {
    for (const u of d.uses.keys()) if (u.opcode !== 'PHI' && !out.has(u) && instrDominates(dom(), def, u)) out.add(u);
  }
  return [...out];
}

/**
 * Copy propagation (spec: the GeneralOptimize bundles' "copy propagation"). For `d = MOV s`, reads of `d`
 * become reads of `s` where both certainly hold the same value:
 *  - in the same block until `d` or `s` is redefined (any def, guarded or not: a guarded def may change it);
 *  - across blocks only when `d` and `s` have a single def each, `s`'s def dominates the copy and the copy
 *    dominates the reader (then every path from `s`'s def to the reader passes the copy, so neither changed).
 */
export function propagateCopies(fn: OriFunction, dom: () => DomTree): number {
  let n = 0;
  for (const b of fn.blocks) {
    for (const mov of [...b.instrs]) {
      if (mov.block !== b) continue;
      const c = copyOf(mov);
      if (!c) continue;
      const { d, s } = c;
      if (d === s) {
        b.remove(mov);
        n++;
        continue;
      }
      const local = readersOf(mov, d, dom, { stop: s, localOnly: true });
      for (const u of local) {
        replaceRegUses(u, d, s);
        n++;
      }
      const sDefOk = s.defs.size === 1 ? instrDominates(dom(), s.def!, mov) : s.defs.size === 0 && s.isParam;
      if (d.defs.size === 1 && sDefOk && s.defs.size <= 1) {
        for (const u of readersOf(mov, d, dom)) {
          if (u === mov || !d.uses.has(u)) continue;
          replaceRegUses(u, d, s);
          n++;
        }
      }
    }
  }
  return n;
}

/**
 * A data constant a MOV can carry into its readers: immediate, RZ, a c-bank word without index register, or
 * a variable's address `@sym` (fixed for the whole launch).
 */
function isPropagatableConstant(o: Operand): boolean {
  return o.kind === 'imm' || o.kind === 'rz' || o.kind === 'sym' || (o.kind === 'cbank' && !o.index);
}

/**
 * Constant propagation: `d = MOV <imm | RZ | c[b][off] | @sym>` puts the constant straight into the reading
 * instructions (where it is read at d's width, see useOperandWidth), as ptxas does with immediates and
 * constant-bank operands. At most one c-bank operand per instruction.
 */
export function propagateConstants(fn: OriFunction, dom: () => DomTree): number {
  let n = 0;
  for (const b of fn.blocks) {
    for (const mov of [...b.instrs]) {
      if (mov.block !== b || mov.opcode !== 'MOV' || mov.mods.length || mov.guard || mov.defs.length !== 1) continue;
      const d = mov.defs[0]!;
      const k = mov.uses[0];
      if (d.kind !== 'reg' || !k || !isPropagatableConstant(k) || (d.reg.cls !== 'R' && d.reg.cls !== 'UR')) continue;
      for (const u of readersOf(mov, d.reg, dom)) n += putConstant(u, d.reg, k);
    }
  }
  return n;
}

function putConstant(u: Instr, r: Register, k: Operand): number {
  if (u.guard?.reg === r) return 0;
  let cbanks = u.uses.filter((o) => o.kind === 'cbank').length;
  let changed = 0;
  const uses = u.uses.map((o, idx) => {
    if (o.kind !== 'reg' || o.reg !== r || !isPlainReg(o)) return o;
    const kind = useKindAt(u, idx);
    if (kind !== 'r' && kind !== 's') return o;
    if (useOperandWidth(u, idx) !== r.width) return o;
    if (k.kind === 'cbank') {
      if (cbanks >= 1) return o;
      cbanks++;
    }
    changed++;
    return k;
  });
  if (changed) u.setUses(uses);
  return changed;
}

/** The constant value of a predicate def: `p[, q] = PLOP3.LUT <PT/!PT> x3, lut[, lut2]` (unguarded). */
export function constantPredicateDefs(i: Instr): Map<Register, boolean> | undefined {
  if (i.opcode !== 'PLOP3' || i.guard) return undefined;
  const ins: number[] = [];
  for (let k = 0; k < 3; k++) {
    const o = i.uses[k];
    if (o?.kind !== 'pt') return undefined;
    ins.push(o.not ? 0 : 1);
  }
  const out = new Map<Register, boolean>();
  i.defs.forEach((d, k) => {
    const lut = i.uses[3 + k];
    if (d.kind !== 'reg' || lut?.kind !== 'imm') return;
    out.set(d.reg, lutBit(Number(lut.value & 0xffn), ins[0]!, ins[1]!, ins[2]!) === 1);
  });
  return out;
}

/**
 * Predicate constant propagation: a predicate known true or false (a constant PLOP3, e.g. what
 * `ISETP.EQ PT, R0, R0` simplifies to) replaces its reads: a guard that is always true is dropped, an
 * instruction whose guard is always false is deleted, and predicate operands become PT / !PT.
 */
export function propagatePredicateConstants(fn: OriFunction, dom: () => DomTree): number {
  let n = 0;
  for (const b of fn.blocks) {
    for (const def of [...b.instrs]) {
      if (def.block !== b) continue;
      const consts = constantPredicateDefs(def);
      if (!consts) continue;
      for (const [p, value] of consts) {
        for (const u of readersOf(def, p, dom)) {
          if (!u.block) continue;
          n += putPredicate(u, p, value);
        }
      }
    }
  }
  return n;
}

function putPredicate(u: Instr, p: Register, value: boolean): number {
  let n = 0;
  const b = u.block!;
  if (u.guard?.reg === p) {
    const holds = value !== u.guard.not;
    if (!holds) {
      b.remove(u);
      return 1;
    }
    u.setGuard(undefined);
    n++;
    // An unconditional control-flow instruction must stand last: what followed it is unreachable.
    if (u.endsFlowUnconditionally) {
      let after = false;
      b.removeWhere(
        (x) => {
          if (after) return true;
          if (x === u) after = true;
          return false;
        },
        { unreachable: true },
      );
    }
  }
  let changed = false;
  const uses = u.uses.map((o, idx) => {
    if (o.kind !== 'reg' || o.reg !== p || o.neg || o.abs || useKindAt(u, idx) !== 'p') return o;
    changed = true;
    return value !== !!o.not ? PT : NOT_PT;
  });
  if (changed) {
    u.setUses(uses);
    n++;
  }
  return n;
}

export type { Block };
