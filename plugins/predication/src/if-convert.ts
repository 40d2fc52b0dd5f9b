import { Instr, label, type Block, type Guard, type OriFunction } from '@ptxforge/kernel';
import { isPlainReg } from '@ptxforge/opt-utils';

export interface PredicationOptions {
  /** Most instructions (without the terminating branch) an arm may have. */
  readonly maxArmInstrs: number;
  /** Allow a conversion that makes some thread execute more instructions than its branchy path did. */
  readonly allowLongerPaths: boolean;
  /** Turn opposite-guard moves into one SEL. */
  readonly formSel: boolean;
  /**
   * How a thread's cost is counted: 'thread' counts instructions whose guard holds for it (the
   * interpreter's thread-instruction count), 'issue' also counts predicated-off ones (issue slots).
   */
  readonly costModel: 'thread' | 'issue';
  /** Also predicate small exit arms into their branch (predicateExitArmAt); default on. */
  readonly exitArms?: boolean;
}

/**
 * Whether no thread executes more instructions after the conversion than before, for both outcomes of the
 * branch condition g (taken: the branch and arm X run; not taken: arm Y runs).
 */
function costOk(list: readonly Instr[], arms: readonly Arm[], x: Block, g: Guard, needBra: number, model: 'thread' | 'issue'): boolean {
  for (const taken of [true, false]) {
    let before = taken || model === 'issue' ? 1 : 0; // the conditional BRA
    for (const arm of arms) if ((arm.block === x) === taken) before += arm.body.length + (arm.branches ? 1 : 0);
    let after = needBra;
    for (const i of list) {
      const runs = !i.guard || (i.guard.reg === g.reg && (i.guard.not === g.not) === taken);
      if (runs || model === 'issue') after++;
    }
    if (after > before) return false;
  }
  return true;
}

/** Opcodes that must not be guarded or executed on a path where they did not run (warp/CTA sync, calls). */
function canGuard(i: Instr, g: Guard): boolean {
  const info = i.info;
  if (!info || i.guard || info.isControlFlow || info.isCall || info.isConvergent) return false;
  if (i.opcode === 'PHI' || i.opcode === 'BSSY' || i.opcode === 'BSYNC') return false;
  // The condition must stay the same for every converted instruction.
  if (i.defRegs().includes(g.reg)) return false;
  return true;
}

/** A BRA without modifiers other than `.U` (uniform: a scheduling hint, same meaning). */
function plainBranchMods(i: Instr): boolean {
  return i.mods.every((m) => m === 'U');
}

interface Arm {
  readonly block: Block;
  readonly body: readonly Instr[];
  /** The arm ends with an explicit `BRA join` (costs one instruction on its path). */
  readonly branches: boolean;
  readonly join: Block;
}

/** An arm: only predecessor `a`, one successor, body then at most an unconditional BRA. */
function armOf(b: Block, a: Block, g: Guard, max: number, cfg: RoundCfg): Arm | undefined {
  if (b === a) return undefined;
  const preds = cfg.preds(b);
  const succs = cfg.succs(b);
  if (preds.size !== 1 || !preds.has(a) || succs.length !== 1) return undefined;
  const join = succs[0]!;
  const last = b.instrs[b.instrs.length - 1];
  const branches = !!last && last.isControlFlow;
  if (branches && !(last.opcode === 'BRA' && !last.guard && plainBranchMods(last))) return undefined;
  const body = branches ? b.instrs.slice(0, -1) : b.instrs.slice();
  if (body.length > max || !body.every((i) => canGuard(i, g))) return undefined;
  return { block: b, body, branches, join };
}

function guarded(i: Instr, g: Guard): Instr {
  return new Instr(i.opcode, { guard: g, mods: i.mods, defs: i.defs, uses: i.uses, loc: i.loc, flags: i.flags });
}

/**
 * `@!g d = MOV a` ... `@g d = MOV b` (opposite guards, same data register, nothing in between touching d, a
 * or b) becomes `d = SEL b, a, g` at the second position.
 */
function formSels(list: Instr[]): Instr[] {
  const out = [...list];
  for (let j = 0; j < out.length; j++) {
    const y = out[j]!;
    if (y.opcode !== 'MOV' || !y.guard || y.mods.length || y.defs[0]?.kind !== 'reg' || y.defs[0].reg.cls !== 'R') continue;
    const d = y.defs[0].reg;
    for (let i = j - 1; i >= 0; i--) {
      const x = out[i]!;
      const touches = (k: Instr, r: ReturnType<Instr['defRegs']>[number]): boolean => k.defRegs().includes(r) || k.useRegs().includes(r);
      if (x.opcode === 'MOV' && x.guard && x.guard.reg === y.guard.reg && x.guard.not !== y.guard.not && !x.mods.length && x.defs[0]?.kind === 'reg' && x.defs[0].reg === d) {
        const a = x.uses[0]!;
        const b = y.uses[0]!;
        const regsOf = [a, b].flatMap((o) => (isPlainReg(o) ? [o.reg] : o.kind === 'imm' || o.kind === 'rz' || o.kind === 'cbank' ? [] : [undefined]));
        if (regsOf.includes(undefined)) break;
        const between = out.slice(i + 1, j);
        if (between.some((k) => touches(k, d) || regsOf.some((r) => k.defRegs().includes(r!)))) break;
        const sel = new Instr('SEL', { defs: [{ kind: 'reg', reg: d }], uses: [b, a, { kind: 'reg', reg: y.guard.reg, ...(y.guard.not ? { not: true } : {}) }], loc: y.loc });
        out[j] = sel;
        out.splice(i, 1);
        j--;
        break;
      }
      if (touches(x, d)) break;
    }
  }
  return out;
}

/**
 * The state of one round of conversions: the CFG (edges and layout) as the conversions leave it, label
 * references, and the emptied arm blocks. Keeping the CFG here instead of asking the function after every
 * conversion (a full CFG rebuild each time) keeps a round linear in the function size; the emptied arms
 * leave the layout in one removeBlocks at the end of the round.
 */
export class RoundCfg {
  private readonly pred = new Map<Block, Set<Block>>();
  private readonly succ = new Map<Block, Block[]>();
  private readonly next = new Map<Block, Block | undefined>();
  private readonly prev = new Map<Block, Block | undefined>();
  readonly refs: LabelRefs;
  readonly dead = new Set<Block>();
  /** Converted blocks whose trailing `BRA join` may go once the dead arms leave the layout. */
  readonly converted: Array<{ a: Block; bra: Instr; join: Block }> = [];

  constructor(readonly fn: OriFunction) {
    const bl = fn.blocks;
    for (let k = 0; k < bl.length; k++) {
      const b = bl[k]!;
      this.succ.set(b, [...b.succs]);
      this.pred.set(b, new Set(b.preds));
      this.next.set(b, bl[k + 1]);
      this.prev.set(b, bl[k - 1]);
    }
    this.refs = new LabelRefs(fn);
  }
  preds(b: Block): ReadonlySet<Block> {
    return this.pred.get(b) ?? new Set();
  }
  succs(b: Block): readonly Block[] {
    return this.succ.get(b) ?? [];
  }
  layoutNext(b: Block): Block | undefined {
    return this.next.get(b);
  }
  /** `a` now continues only to `join`. */
  setOnlySucc(a: Block, join: Block): void {
    for (const s of this.succs(a)) if (s !== join) this.pred.get(s)?.delete(a);
    this.succ.set(a, [join]);
    this.pred.get(join)?.add(a);
  }
  /** The edge a -> from now goes to `to` (one branch retargeted; `a` may still reach `from` otherwise). */
  retargetEdge(a: Block, from: Block, to: Block, stillReachesFrom: boolean): void {
    const succs = this.succs(a).filter((s) => s !== from || stillReachesFrom);
    if (!succs.includes(to)) succs.push(to);
    this.succ.set(a, succs);
    if (!stillReachesFrom) this.pred.get(from)?.delete(a);
    this.pred.get(to)?.add(a);
  }
  /** Take an (emptied) block out of the CFG and the layout; it is removed from the function at the end. */
  kill(b: Block): void {
    for (const s of this.succs(b)) this.pred.get(s)?.delete(b);
    const p = this.prev.get(b);
    const n = this.next.get(b);
    if (p) this.next.set(p, n);
    if (n) this.prev.set(n, p);
    this.succ.delete(b);
    this.pred.delete(b);
    this.dead.add(b);
  }
  /** Remove the dead arms, then the `BRA join` of converted blocks that now fall through to their join. */
  finish(): void {
    if (this.dead.size) this.fn.removeBlocks(this.dead);
    for (const { a, bra, join } of this.converted) {
      if (bra.block === a && a.instrs[a.instrs.length - 1] === bra && this.layoutNext(a) === join) {
        this.refs.remove(bra);
        a.remove(bra);
      }
    }
    this.dead.clear();
    this.converted.length = 0;
  }
}

/**
 * If-convert at block `a` ending in `@g BRA X` with fall-through Y: a diamond (X and Y both arms with the
 * same join), or a triangle (one arm whose join is the other successor). The arms' bodies move into `a`
 * under `!g` (Y) and `g` (X), the branch goes, and `a` continues to the join. With a `round` the function's
 * blocks are removed when the round finishes; without one, at once.
 */
export function ifConvertAt(fn: OriFunction, a: Block, o: PredicationOptions, round?: RoundCfg): boolean {
  if (!round) {
    const r = new RoundCfg(fn);
    const done = ifConvertAt(fn, a, o, r);
    r.finish();
    return done;
  }
  const cfg = round;
  const refs = round.refs;
  const term = a.instrs[a.instrs.length - 1];
  if (!term || term.opcode !== 'BRA' || !term.guard || !plainBranchMods(term) || term.uses[0]?.kind !== 'label') return false;
  if (a.instrs.slice(0, -1).some((i) => i.isControlFlow)) return false;
  const x = term.uses[0].block;
  const y = cfg.layoutNext(a);
  if (!y || x === y || x === a || y === a || cfg.dead.has(x)) return false;
  const g: Guard = term.guard;
  const notG: Guard = { reg: g.reg, not: !g.not };
  const armX = armOf(x, a, g, o.maxArmInstrs, cfg);
  const armY = armOf(y, a, g, o.maxArmInstrs, cfg);
  let arms: Arm[];
  let join: Block;
  if (armX && armY && armX.join === armY.join) {
    arms = [armY, armX];
    join = armX.join;
  } else if (armY && armY.join === x) {
    arms = [armY];
    join = x;
  } else if (armX && armX.join === y) {
    arms = [armX];
    join = y;
  } else return false;
  if (join === a) return false;
  // Blocks named by labels elsewhere (BSSY reconvergence points, jump tables) must stay.
  const armBlocks = new Set(arms.map((r) => r.block));
  for (const arm of arms) if (refs.count(arm.block) > (arm.block === x ? 1 : 0)) return false;

  let list: Instr[] = [];
  for (const arm of arms) for (const i of arm.body) list.push(guarded(i, arm.block === x ? g : notG));
  if (o.formSel) list = formSels(list);

  // Cost per thread: the branchy paths against the straight-line code (plus a BRA if the join is not next).
  let after: Block | undefined = cfg.layoutNext(a);
  while (after && armBlocks.has(after)) after = cfg.layoutNext(after);
  const needBra = after !== join ? 1 : 0;
  if (!o.allowLongerPaths && !costOk(list, arms, x, g, needBra, o.costModel)) return false;

  refs.remove(term);
  a.remove(term);
  for (const i of list) a.append(i);
  const bra = a.append(new Instr('BRA', { uses: [label(join)] }));
  refs.add(bra);
  for (const arm of arms) {
    for (const i of [...arm.block.instrs]) {
      refs.remove(i);
      arm.block.remove(i);
    }
    cfg.kill(arm.block);
  }
  cfg.setOnlySucc(a, join);
  cfg.converted.push({ a, bra, join });
  return true;
}

/**
 * Predicate an exit arm into its branch: `A: @g BRA X` where X is reached only from that branch and holds a
 * few instructions and then `BRA J` (or falls through to J) becomes `A: @g <X's body>; @g BRA J`, and X goes.
 * This is what ptxas does to small case bodies of a switch tree (`@!P0 VIADD R7, R0, 0x1; @!P0 BRA join`):
 * one branch less on the taken path and statically, and nothing more for a thread that does not branch
 * (its guarded-off instructions are issue slots only, hence the 'issue' cost model refuses it unless longer
 * paths are allowed). When A's other edge goes to J too, the branch goes as well.
 */
export function predicateExitArmAt(fn: OriFunction, a: Block, o: PredicationOptions, round: RoundCfg): boolean {
  const cfg = round;
  const refs = round.refs;
  const n = a.instrs.length;
  const last = a.instrs[n - 1];
  if (!last) return false;
  const lastIsUncond = last.opcode === 'BRA' && !last.guard && plainBranchMods(last) && last.uses[0]?.kind === 'label';
  const k = lastIsUncond ? n - 2 : n - 1;
  const term = a.instrs[k];
  if (!term || term.opcode !== 'BRA' || !term.guard || !plainBranchMods(term) || term.uses[0]?.kind !== 'label') return false;
  for (let j = 0; j < k; j++) if (a.instrs[j]!.isControlFlow) return false;
  const x = term.uses[0].block;
  const g: Guard = term.guard;
  if (x === a || x === fn.entry || cfg.dead.has(x) || refs.count(x) !== 1) return false;
  const preds = cfg.preds(x);
  if (preds.size !== 1 || !preds.has(a)) return false;
  const succs = cfg.succs(x);
  if (succs.length !== 1) return false;
  const join = succs[0]!;
  if (join === x || join.instrs[0]?.opcode === 'PHI') return false;
  const xl = x.instrs[x.instrs.length - 1];
  const branches = !!xl && xl.isControlFlow;
  if (branches && !(xl.opcode === 'BRA' && !xl.guard && plainBranchMods(xl))) return false;
  if (!branches && cfg.layoutNext(x) !== join) return false;
  const body = branches ? x.instrs.slice(0, -1) : x.instrs.slice();
  if (body.length > o.maxArmInstrs || !body.every((i) => canGuard(i, g))) return false;
  // A thread that does not branch issues the guarded-off body: longer in issue slots.
  if (o.costModel === 'issue' && body.length > 0 && !o.allowLongerPaths) return false;
  const other = lastIsUncond ? (last.uses[0] as { block: Block }).block : cfg.layoutNext(a);
  let at = k;
  for (const i of body) {
    x.remove(i);
    a.insertAt(at++, guarded(i, g));
  }
  refs.remove(term);
  if (other === join) {
    a.remove(term);
  } else {
    term.setUses([label(join)]);
    refs.add(term);
  }
  for (const i of [...x.instrs]) {
    refs.remove(i);
    x.remove(i);
  }
  cfg.retargetEdge(a, x, join, false);
  cfg.kill(x);
  return true;
}

/**
 * How many instructions name each block as a label operand (branch targets, BSSY reconvergence points, jump
 * tables), kept up to date by the conversion: "is this arm named from elsewhere" without scanning the
 * function for every candidate.
 */
export class LabelRefs {
  private readonly n = new Map<Block, number>();
  constructor(fn: OriFunction) {
    for (const b of fn.blocks) for (const i of b.instrs) this.add(i);
  }
  add(i: Instr): void {
    for (const t of i.labelTargets()) this.n.set(t, (this.n.get(t) ?? 0) + 1);
  }
  remove(i: Instr): void {
    for (const t of i.labelTargets()) this.n.set(t, (this.n.get(t) ?? 0) - 1);
  }
  count(b: Block): number {
    return this.n.get(b) ?? 0;
  }
}

/** Convert every eligible region, repeating until nothing changes (nested regions collapse inside out). */
export function ifConvert(fn: OriFunction, o: PredicationOptions): number {
  let n = 0;
  let again = true;
  while (again) {
    again = false;
    const round = new RoundCfg(fn);
    for (const a of [...fn.blocks]) {
      if (!a.placed || round.dead.has(a)) continue;
      if (ifConvertAt(fn, a, o, round) || (o.exitArms !== false && predicateExitArmAt(fn, a, o, round))) {
        n++;
        again = true;
      }
    }
    round.finish();
  }
  return n;
}
