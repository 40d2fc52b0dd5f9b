import { imm, Instr, label, PT, reg, type Block, type OriFunction, type PhaseContext, type PhaseImpl, type Register, type RemarkInput } from '@ptxforge/kernel';
import { computeLiveness, type Liveness } from '@ptxforge/opt-utils';
import { condTail, foldBranchesToLayoutNext, hasPhi, layoutPositions, lineOf, removeUnreachableBlocks, type CondTail } from './cfg-util.js';
import { KNOB_NESTED_COND_MAX_ROUNDS } from './knobs.js';

/**
 * 38 OptimizeNestedCondBranches (spec: branch/switch, "OptimizeNestedCondBranches -- Nested Conditional
 * Flattening (Phase 38)"). Two conditional branches in a row — block A branches on a, its not-taken successor
 * B holds only predicate-setting compares and branches on b — become one branch on a PLOP3 of both:
 *
 *   A: @a BRA T        B: @b BRA T; (falls to F)          →  A: ...B's compares; c = PLOP3.LUT a, b, PT, 0xFC; @c BRA T  (F)
 *   A: @a BRA T        B: @b BRA U; (falls to T)          →  A: ...; c = PLOP3.LUT a, b, PT, 0x0C; @c BRA U  (T)
 *
 * LUT inputs are a = 0xF0, b = 0xCC (the spec's table: AND 0xC0, OR 0xFC, XOR 0x3C, NAND 0x3F, NOR 0x03);
 * negated guards flip their input's table (`@!a` is 0x0F), so `if (a && b)` written as two `@!x BRA skip`
 * tests gives `!a | !b` = 0x3F. Mixed chains compose in rounds: each round of the fixed-point loop collapses
 * one level, and a combined predicate is just another input to the next round — never a 4-input LUT,
 * because the combined PLOP3 is referenced, not re-expanded (spec: "no already-folded setp").
 *
 * Stages 1 and 2 of the spec (liveness-driven operand pruning, kill-set marking) exist to make the safety
 * check precise; here they are one backward liveness computation for the whole phase, kept up to date
 * incrementally: a combination leaves every block's live-in set as it was (B's reads were already live into
 * A, B's writes are dead outside B), and A's live-out becomes the union of its new successors' live-ins,
 * which an overlay answers. The spec's global fixed point (one level per round) is a worklist here: a block
 * that absorbed its successor is examined again at once, so the phase is linear in the function plus the
 * combinations (no re-scan of the whole function per level).
 *
 * Eligibility (spec: sub_A07940 and "Safety Constraints"): B has A as its only predecessor; B's instructions
 * are unguarded, without side effects, memory access or calls, no convergence barriers, none of the excluded
 * opcodes BMOV/LEA/PLOP3/VOTE (so an already-combined predicate is never re-expanded), compares combined with
 * PT; at most NESTED_MAX_HOISTED of them (they now run on A's taken path too); nothing B defines is live out of
 * B or into A's taken target except B's own branch predicate; no target block holds PHIs. The phase stops when
 * the worklist is empty, when the function is a single block, or after the round limit's worth of combinations
 * per block.
 */

const COMPARE_OPCODES: ReadonlySet<string> = new Set(['ISETP', 'FSETP', 'DSETP']);
/** The spec's excluded opcodes (BMOV, LEA, PLOP3, VOTE) and what must never move (PHIs, sync). */
const EXCLUDED_OPCODES: ReadonlySet<string> = new Set(['BMOV', 'LEA', 'PLOP3', 'VOTE', 'PHI', 'BSSY', 'BSYNC', 'WARPSYNC']);
/** Most instructions of B hoisted into A (they execute on A's taken path too, where they did not before). */
export const NESTED_MAX_HOISTED = 8;
const IN_A = 0xf0;
const IN_B = 0xcc;

export interface NestedCombination {
  readonly fn: string;
  readonly block: string;
  readonly line: number | undefined;
  readonly lut: number;
  readonly form: 'or' | 'and-not';
}

function eligibleBody(b: Block, tb: CondTail): Instr[] | undefined {
  const end = b.instrs.length - (tb.uncond ? 2 : 1);
  if (end > NESTED_MAX_HOISTED) return undefined;
  const body = b.instrs.slice(0, end);
  for (const i of body) {
    const info = i.info;
    if (!info || i.guard || info.hasSideEffects || info.isConvergent || info.isControlFlow || info.isCall || info.mayLoad || info.mayStore) return undefined;
    if (EXCLUDED_OPCODES.has(i.opcode)) return undefined;
    if (COMPARE_OPCODES.has(i.opcode)) {
      // A compare that folds in another predicate (`..., P3` instead of PT) is an already-combined condition.
      const comb = i.uses[i.uses.length - 1];
      if (comb?.kind !== 'pt' || comb.not) return undefined;
    }
    for (const d of i.defs) if (d.kind !== 'reg') return undefined;
  }
  return body;
}

/** Liveness kept current across combinations: A's live-out is its new successors' live-in (see above). */
class LiveView {
  private readonly outOf = new Map<Block, readonly Block[]>();
  constructor(private readonly lv: Liveness) {}
  isLiveIn(b: Block, r: Register): boolean {
    return this.lv.isLiveIn(b, r);
  }
  isLiveOut(b: Block, r: Register): boolean {
    const succ = this.outOf.get(b);
    if (!succ) return this.lv.isLiveOut(b, r);
    for (const s of succ) if (this.lv.isLiveIn(s, r)) return true;
    return false;
  }
  combined(a: Block, succs: readonly Block[]): void {
    this.outOf.set(a, succs);
  }
}

function tryCombine(fn: OriFunction, pos: ReadonlyMap<Block, number>, a: Block, lv: LiveView, gone: ReadonlySet<Block>): NestedCombination | undefined {
  if (gone.has(a)) return undefined;
  const ta = condTail(fn, pos, a);
  if (!ta) return undefined;
  const b = ta.fall;
  if (b === a || b === fn.entry || gone.has(b) || hasPhi(b)) return undefined;
  // A is B's only predecessor (emptied blocks still in the layout fall through but are not predecessors).
  let preds = 0;
  for (const p of b.preds) if (!gone.has(p)) preds++;
  if (preds !== 1) return undefined;
  const tb = condTail(fn, pos, b);
  if (!tb || tb.pred === ta.pred) return undefined;
  let form: 'or' | 'and-not';
  if (tb.taken === ta.taken && tb.fall !== ta.taken) form = 'or';
  else if (tb.fall === ta.taken && tb.taken !== ta.taken) form = 'and-not';
  else return undefined;
  const targets = [ta.taken, tb.taken, tb.fall];
  for (const t of targets) if (hasPhi(t) || gone.has(t) || t === b) return undefined;
  const body = eligibleBody(b, tb);
  if (!body) return undefined;
  // B's predicate must be defined in B (an input computed elsewhere may differ on A's taken path: fine, but
  // then it is not "nested"), and nothing B defines may matter where B did not run before.
  const pb = tb.pred;
  if (!pb.def || pb.def.block !== b) return undefined;
  for (const i of body) {
    for (const d of i.defs) {
      if (d.kind !== 'reg') return undefined;
      if (d.reg === ta.pred) return undefined;
      if (lv.isLiveIn(ta.taken, d.reg)) return undefined;
      if (d.reg !== pb && lv.isLiveOut(b, d.reg)) return undefined;
    }
  }
  // LUT of the condition under which the combined branch is taken.
  const tta = ta.not ? ~IN_A & 0xff : IN_A;
  const ttb = tb.not ? ~IN_B & 0xff : IN_B;
  const lut = form === 'or' ? tta | ttb : ~tta & ttb & 0xff;
  const takenTo = form === 'or' ? ta.taken : tb.taken;
  const fallTo = form === 'or' ? tb.fall : ta.taken;
  const loc = ta.branch.loc;
  // Rewrite A: drop its tail, append B's compares, the PLOP3 and the new tail.
  a.remove(ta.branch);
  if (ta.uncond) a.remove(ta.uncond);
  b.remove(tb.branch);
  if (tb.uncond) b.remove(tb.uncond);
  for (const i of body) {
    b.remove(i);
    a.append(i);
  }
  const pc = fn.newReg('P');
  a.append(new Instr('PLOP3', { mods: ['LUT'], defs: [reg(pc)], uses: [reg(ta.pred), reg(pb), PT, imm(lut, 'hex'), imm(0, 'hex')], loc }));
  a.append(new Instr('BRA', { guard: { reg: pc, not: false }, uses: [label(takenTo)], loc }));
  a.append(new Instr('BRA', { uses: [label(fallTo)], loc }));
  // B is now empty and unreachable; A's live-out is that of its new successors.
  lv.combined(a, [takenTo, fallTo]);
  return { fn: fn.name, block: a.label, line: lineOf(ta.branch), lut, form };
}

/**
 * The fixed point of sub_A0F020 over one function as a worklist: every block is examined in layout order, and a
 * block that absorbed its successor is examined again right away (its new fall-through may be the next level).
 * `maxRounds` bounds the levels combined into one block.
 */
export function optimizeNestedConds(fn: OriFunction, maxRounds = 64): NestedCombination[] {
  const out: NestedCombination[] = [];
  if (fn.blocks.length <= 1) return out; // a single block has nothing nested (spec: sub_7DDB50(ctx) != 1)
  const lv = new LiveView(computeLiveness(fn));
  const pos = layoutPositions(fn);
  // Blocks emptied by a combination stay in the layout (and in `pos`) until the cleanup at the end.
  const gone = new Set<Block>();
  for (const a of [...fn.blocks]) {
    for (let level = 0; level < maxRounds; level++) {
      const b = condTail(fn, pos, a)?.fall;
      const c = tryCombine(fn, pos, a, lv, gone);
      if (!c) break;
      if (b) gone.add(b);
      out.push(c);
    }
  }
  if (out.length) {
    removeUnreachableBlocks(fn);
    foldBranchesToLayoutNext(fn);
  }
  return out;
}

export function nestedRemark(c: NestedCombination): RemarkInput {
  const lut = `0x${c.lut.toString(16).padStart(2, '0').toUpperCase()}`;
  return {
    kind: 'passed',
    name: 'NestedConditionCombined',
    fn: c.fn,
    block: c.block,
    ...(c.line !== undefined ? { line: c.line } : {}),
    message: `two nested conditional branches combined into one PLOP3.LUT ${lut} (${c.form === 'or' ? 'same taken target' : 'inner branch skips back to the outer target'})`,
    args: { lut, form: c.form },
  };
}

export class OptimizeNestedCondBranches implements PhaseImpl {
  readonly preserves = 'none' as const;
  execute(ctx: PhaseContext): void {
    const rounds = Math.max(1, ctx.knob<number>(KNOB_NESTED_COND_MAX_ROUNDS));
    for (const fn of ctx.module.functions) for (const c of optimizeNestedConds(fn, rounds)) ctx.remark(nestedRemark(c));
  }
}
