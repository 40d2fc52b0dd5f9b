import {
  Instr,
  RZ,
  type Block,
  type DomTree,
  type Loop,
  type LoopInfo,
  type Operand,
  type OriFunction,
  type Register,
} from '@ptxforge/kernel';
import { computeLiveness, constBits, immOf, instrDominates, isPlainReg, LoopDefs, type Liveness } from '@ptxforge/opt-utils';

const INT_MAX = 0x7fffffffn;

/** Loop step of a basic induction variable: a constant (32-bit pattern) or a loop-invariant operand. */
type Step = { kind: 'const'; value: bigint } | { kind: 'inv'; op: Operand };

/** `i = IADD3 i, K, RZ` (any operand order), unguarded: the in-loop update of a basic induction variable. */
export interface BasicIv {
  readonly reg: Register;
  readonly inc: Instr;
  readonly step: Step;
}

/**
 * A derived induction expression `t = scale*i + inv` computed by one instruction:
 * `mad32` (IMAD/IMUL/SHL/LEA/IADD3, exact modulo 2^32), `wideS`/`wideU` (`IMAD.WIDE[.U32] i, C, base`:
 * a 64-bit result from the sign/zero-extended 32-bit i, exact only while i does not wrap).
 */
export interface Derived {
  readonly instr: Instr;
  readonly t: Register;
  readonly form: 'mad32' | 'wideS' | 'wideU';
  /** The constant multiplier as a 32-bit pattern (signed for wideS and mad32, unsigned for wideU). */
  readonly scale: bigint;
}

/** Whether operand `o` has the same value everywhere in the loop (no in-loop def of a register it reads). */
export function invariantIn(o: Operand, loop: Loop, defs: LoopDefs = new LoopDefs(loop)): boolean {
  if (o.kind === 'imm' || o.kind === 'rz') return true;
  if (o.kind === 'cbank') return !o.index;
  if (o.kind !== 'reg') return false;
  return !defs.has(o.reg);
}

/**
 * Whether every register `o` reads is certainly written when control leaves the preheader: a `.func`
 * parameter or an unguarded def outside the loop that dominates the preheader's end. The new preheader
 * instructions read these registers even on entries where the original loop would not (an interpreter
 * error for a never-written register).
 */
function definedAtPreheader(o: Operand, loop: Loop, dom: DomTree): boolean {
  if (o.kind === 'imm' || o.kind === 'rz') return true;
  if (o.kind === 'cbank') return !o.index;
  if (o.kind !== 'reg') return false;
  if (o.reg.isParam) return true;
  const pre = loop.preheader!;
  // Stops at the first such def (no copy of a def set that may hold thousands of defs of a reused register).
  for (const d of o.reg.defs) if (!d.guard && !loop.blockSet.has(d.block!) && (d.block === pre || dom.dominates(d.block!, pre))) return true;
  return false;
}

function stepOf(inc: Instr, i: Register, loop: Loop): Step | undefined {
  if (inc.opcode !== 'IADD3' || inc.guard || inc.mods.length || inc.defs.length !== 1 || inc.uses.length !== 3) return undefined;
  let self = 0;
  let k = 0n;
  const regs: Operand[] = [];
  for (const o of inc.uses) {
    if (isPlainReg(o) && o.reg === i) self++;
    else {
      const v = constBits(o, 32);
      if (v !== undefined) k += v;
      else if ((isPlainReg(o) || o.kind === 'cbank') && invariantIn(o, loop) && !(o.kind === 'reg' && o.reg === i)) regs.push(o);
      else return undefined;
    }
  }
  if (self !== 1) return undefined;
  if (!regs.length) return { kind: 'const', value: BigInt.asUintN(32, k) };
  if (regs.length === 1 && k === 0n) return { kind: 'inv', op: regs[0]! };
  return undefined;
}

/** Basic induction variables of the loop: 32-bit registers whose only in-loop def is `i = i + K`. */
export function findBasicIvs(loop: Loop, defs: LoopDefs = new LoopDefs(loop)): BasicIv[] {
  const out: BasicIv[] = [];
  const seen = new Set<Register>();
  for (const b of loop.blocks) {
    for (const inc of b.instrs) {
      const i = inc.defs.length === 1 && inc.defs[0]!.kind === 'reg' ? inc.defs[0]!.reg : undefined;
      if (!i || i.cls !== 'R' || i.width !== 1 || seen.has(i)) continue;
      seen.add(i);
      if (defs.of(i).some((d) => d !== inc)) continue;
      const step = stepOf(inc, i, loop);
      if (step) out.push({ reg: i, inc, step });
    }
  }
  return out;
}

/** `t = f(i)` for the recognized forms; undefined when `d` is not a derived induction expression of `i`. */
export function derivedOf(d: Instr, i: Register, loop: Loop, defs: LoopDefs = new LoopDefs(loop)): Derived | undefined {
  if (d.guard || d.defs.length !== 1 || d.defs[0]!.kind !== 'reg') return undefined;
  const t = d.defs[0]!.reg;
  if (t.cls !== 'R' || t === i) return undefined;
  const isI = (o: Operand | undefined): boolean => !!o && isPlainReg(o) && o.reg === i;
  const readsI = (o: Operand | undefined): boolean => !!o && o.kind === 'reg' && o.reg === i;
  const [a, b, c] = d.uses;
  const inv = (o: Operand | undefined): boolean => !!o && !readsI(o) && invariantIn(o, loop, defs);
  // scale operand: an immediate; the other multiplicand is exactly i
  const mulPair = (): bigint | undefined => {
    if (isI(a) && b && !readsI(b)) return constBits(b, 32);
    if (isI(b) && a && !readsI(a)) return constBits(a, 32);
    return undefined;
  };
  if (d.opcode === 'IMAD' && d.uses.length === 3 && inv(c)) {
    const wide = d.mods.includes('WIDE');
    const rest = d.mods.filter((m) => m !== 'WIDE');
    const s = mulPair();
    if (s === undefined) return undefined;
    if (wide && t.width === 2 && (rest.length === 0 || (rest.length === 1 && rest[0] === 'S32'))) return { instr: d, t, form: 'wideS', scale: s };
    if (wide && t.width === 2 && rest.length === 1 && rest[0] === 'U32') return { instr: d, t, form: 'wideU', scale: s };
    if (!wide && t.width === 1 && d.mods.every((m) => m === 'U32' || m === 'S32')) return { instr: d, t, form: 'mad32', scale: s };
    return undefined;
  }
  if (t.width !== 1) return undefined;
  if (d.opcode === 'IMUL' && d.uses.length === 2 && d.mods.every((m) => m === 'U32' || m === 'S32')) {
    const s = mulPair();
    return s === undefined ? undefined : { instr: d, t, form: 'mad32', scale: s };
  }
  if (d.opcode === 'SHL' && d.uses.length === 2 && !d.mods.length && isI(a) && b) {
    const s = constBits(b, 32);
    if (s !== undefined && s < 32n) return { instr: d, t, form: 'mad32', scale: BigInt.asUintN(32, 1n << s) };
  }
  // LEA a, b, s = (a << s) + b (no .HI/.X forms).
  if (d.opcode === 'LEA' && d.uses.length === 3 && !d.mods.length && isI(a) && inv(b) && c) {
    const s = constBits(c, 32);
    if (s !== undefined && s < 32n) return { instr: d, t, form: 'mad32', scale: BigInt.asUintN(32, 1n << s) };
  }
  // IADD3 i, x, y with x, y invariant (no carry defs, no .X): scale 1.
  if (d.opcode === 'IADD3' && d.uses.length === 3 && !d.mods.length) {
    const k = d.uses.findIndex(isI);
    if (k >= 0 && d.uses.every((o, j) => j === k || inv(o))) return { instr: d, t, form: 'mad32', scale: 1n };
  }
  return undefined;
}

/**
 * Instructions executed after `from` (exclusive) on some path inside the loop before `stop` runs again,
 * and the exit edges taken on such paths. Used to find reads of a derived value after the induction
 * variable moved on without the derived instruction running again.
 */
function reachAfter(from: Instr, stop: Instr, loop: Loop): { instrs: Set<Instr>; exits: Set<Block> } {
  const instrs = new Set<Instr>();
  const exits = new Set<Block>();
  const seenBlocks = new Set<Block>();
  const work: Array<[Block, number]> = [[from.block!, from.index + 1]];
  while (work.length) {
    const [b, start] = work.pop()!;
    let stopped = false;
    for (let k = start; k < b.instrs.length; k++) {
      const ins = b.instrs[k]!;
      if (ins === stop) {
        stopped = true;
        break;
      }
      instrs.add(ins);
    }
    if (stopped) continue;
    for (const s of b.succs) {
      if (!loop.blockSet.has(s)) exits.add(s);
      else if (!seenBlocks.has(s)) {
        seenBlocks.add(s);
        work.push([s, 0]);
      }
    }
  }
  return { instrs, exits };
}

/** The last def of `r` before `at` in `at`'s block (the def `at` reads when it is local). */
function localDefBefore(r: Register, at: Instr): Instr | undefined {
  const b = at.block!;
  for (let k = at.index - 1; k >= 0; k--) if (b.instrs[k]!.defRegs().includes(r)) return b.instrs[k];
  return undefined;
}

/** A compare `p = ISETP.<cmp>[.S32|.U32].AND x, y, PT` as (cmp, signed, x, y). */
function compareOf(p: Instr): { cmp: string; signed: boolean; x: Operand; y: Operand } | undefined {
  if (p.opcode !== 'ISETP' || p.guard || p.defs.length !== 1 || p.uses.length !== 3) return undefined;
  const [x, y, c] = p.uses as [Operand, Operand, Operand];
  if (c.kind !== 'pt' || c.not) return undefined;
  const cmp = p.mods.find((m) => ['EQ', 'NE', 'LT', 'LE', 'GT', 'GE'].includes(m));
  if (!cmp || !p.mods.includes('AND')) return undefined;
  if (p.mods.some((m) => m !== cmp && m !== 'AND' && m !== 'S32' && m !== 'U32')) return undefined;
  return { cmp, signed: !p.mods.includes('U32'), x, y };
}

const NEGATE: Record<string, string> = { EQ: 'NE', NE: 'EQ', LT: 'GE', GE: 'LT', GT: 'LE', LE: 'GT' };
const SWAP: Record<string, string> = { EQ: 'EQ', NE: 'NE', LT: 'GT', GT: 'LT', LE: 'GE', GE: 'LE' };

const sameOp = (a: Operand, b: Operand): boolean =>
  (a.kind === 'reg' && b.kind === 'reg' && a.reg === b.reg && !a.neg && !b.neg && !a.abs && !b.abs && !a.not && !b.not) ||
  (a.kind === 'cbank' && b.kind === 'cbank' && !a.index && !b.index && a.bank === b.bank && a.offset === b.offset);

/**
 * Whether control reaching the preheader implies `c0 < n` (signed): n is an immediate above c0, or a
 * conditional branch on the single-predecessor chain above the preheader tests n against a constant
 * (nvcc's rotated-loop guard `setp.lt.s32 %p, n, 1; @%p bra skip`) and n is not redefined after it.
 */
function entryImpliesBelow(c0: bigint, n: Operand, loop: Loop): boolean {
  const nv = constBits(n, 32);
  if (nv !== undefined) return BigInt.asIntN(32, nv) > c0;
  const changedIn = (b: Block, from: number): boolean =>
    n.kind === 'reg' && b.instrs.slice(from).some((ins) => ins.defRegs().includes(n.reg));
  let cur = loop.preheader!;
  if (changedIn(cur, 0)) return false;
  for (let depth = 0; depth < 8 && cur.preds.length === 1; depth++) {
    const p = cur.preds[0]!;
    const br = p.terminator;
    if (br && br.opcode === 'BRA' && br.guard && p.succs.length === 2) {
      const target = br.uses[0]?.kind === 'label' ? br.uses[0].block : undefined;
      const taken = target === cur;
      const setp = localDefBefore(br.guard.reg, br);
      const cmp = setp && compareOf(setp);
      if (cmp && cmp.signed && !changedIn(p, setp!.index + 1)) {
        // truth of the compare on the edge p -> cur
        const holds = taken !== !!br.guard.not;
        let op = holds ? cmp.cmp : NEGATE[cmp.cmp]!;
        let k: bigint | undefined;
        if (sameOp(cmp.x, n)) k = constBits(cmp.y, 32);
        else if (sameOp(cmp.y, n)) {
          k = constBits(cmp.x, 32);
          op = SWAP[op]!;
        }
        if (k !== undefined) {
          const ks = BigInt.asIntN(32, k);
          if ((op === 'GT' && ks >= c0) || (op === 'GE' && ks > c0) || (op === 'EQ' && ks > c0)) return true;
        }
      }
    }
    if (changedIn(p, 0) && !(br && br.guard)) return false;
    cur = p;
  }
  return false;
}

/**
 * A counted loop `i = c0; do { ...; i = i + 1; } while (i < n)` (signed, n loop-invariant, c0 < n on
 * entry): every value of i in the loop lies in [c0, n] without wrapping, so `sext(i)` (and `zext(i)` when
 * c0 >= 0) grows by exactly 1 per update and the latch test `i < n` equals `i != n`.
 */
interface CountedLoop {
  readonly test: Instr;
  readonly n: Operand;
  readonly c0: bigint;
}

function countedLoop(iv: BasicIv, loop: Loop, dom: DomTree, defs: LoopDefs): CountedLoop | undefined {
  if (iv.step.kind !== 'const' || iv.step.value !== 1n || loop.latches.length !== 1) return undefined;
  const latch = loop.latches[0]!;
  // The latch runs once per iteration and its test is the only way back to the header.
  if (iv.inc.block !== latch || latch.succs.length !== 2 || latch.succs.some((s) => s !== loop.header && loop.blockSet.has(s))) return undefined;
  const br = latch.terminator;
  if (!br || br.opcode !== 'BRA' || !br.guard || br.guard.not || br.uses[0]?.kind !== 'label' || br.uses[0].block !== loop.header) return undefined;
  const test = localDefBefore(br.guard.reg, br);
  if (!test || test.index < iv.inc.index) return undefined;
  const cmp = compareOf(test);
  if (!cmp || !cmp.signed || cmp.cmp !== 'LT' || !isPlainReg(cmp.x) || cmp.x.reg !== iv.reg || !invariantIn(cmp.y, loop, defs)) return undefined;
  // The initial value: every def outside the loop is the same `MOV c0`.
  let c0: bigint | undefined;
  for (const d of iv.reg.defs) {
    if (d === iv.inc) continue;
    if (d.opcode !== 'MOV' || d.guard || d.uses.length !== 1) return undefined;
    const v = constBits(d.uses[0]!, 32);
    if (v === undefined || (c0 !== undefined && BigInt.asIntN(32, v) !== c0)) return undefined;
    c0 = BigInt.asIntN(32, v);
  }
  if (c0 === undefined || c0 >= INT_MAX || !entryImpliesBelow(c0, cmp.y, loop)) return undefined;
  // i == c0 on entry: some `MOV c0` dominates the preheader and lies in every loop around this one, so no
  // path from this loop back into its preheader avoids it.
  const pre = loop.preheader!;
  let resets = false;
  for (const d of iv.reg.defs) {
    if (d === iv.inc || (d.block !== pre && !dom.dominates(d.block!, pre))) continue;
    let inAll = true;
    for (let p = loop.parent; p && inAll; p = p.parent) if (!p.blockSet.has(d.block!)) inAll = false;
    if (inAll) {
      resets = true;
      break;
    }
  }
  if (!resets) return undefined;
  return { test, n: cmp.y, c0 };
}

/** Whether `t = f(i)` is one-to-one over all 32-bit i (so `i != n` iff `f(i) != f(n)`). */
function injective(d: Derived): boolean {
  if (d.form === 'mad32') return (d.scale & 1n) === 1n;
  return d.scale !== 0n;
}

/**
 * The derived value may be kept up to date by adding instead of recomputing: t's only in-loop def is d,
 * every in-loop read of t is dominated by d and reads t before i moves on without d running again, and
 * wherever t is read after the loop d has run in the exiting iteration before i moved on.
 */
function reducible(d: Derived, iv: BasicIv, loop: Loop, dom: DomTree, lv: Liveness, defs: LoopDefs): boolean {
  const t = d.t;
  if (defs.of(t).some((x) => x !== d.instr)) return false;
  const dirty = reachAfter(iv.inc, d.instr, loop);
  for (const u of t.uses.keys()) {
    if (!loop.blockSet.has(u.block!)) continue;
    if (u.opcode === 'PHI' || u === iv.inc || !instrDominates(dom, d.instr, u) || dirty.instrs.has(u)) return false;
  }
  for (const e of loop.exits) {
    if (!lv.isLiveIn(e.to, t)) continue;
    if (!dom.dominates(d.instr.block!, e.from) || dirty.exits.has(e.to)) return false;
  }
  return true;
}

/**
 * Phase 21 OriStrengthReduce (spec: loop passes, "induction variable strength reduction" before
 * unrolling, on canonical loops from phase 18). For a loop with a preheader and a basic induction
 * variable `i` (32-bit, one unguarded in-loop def `i = i + K`, K constant or loop-invariant):
 *
 * - each derived expression `t = C*i + inv` (IMAD/IMUL/SHL/LEA/IADD3, modulo 2^32; or
 *   `IMAD.WIDE[.U32] i, C, base`, 64-bit, only in a counted loop where i provably never wraps) becomes
 *   its own induction register: `t = C*i + inv` in the preheader and `t = t + C*K` right after i's
 *   update, so `t == f(i)` holds everywhere in the loop and the in-loop multiply is deleted;
 * - the exit test on i moves onto one of them (linear-function test replacement): `i != n` becomes
 *   `t != f(n)` when f is one-to-one, and the counted loop's `i < n` becomes `t != f(n)`;
 * - all of this only when i's update then dies (i has no other in-loop reader and is dead after the
 *   loop), so each iteration saves one instruction and no iteration gets longer.
 */
export function strengthReduceLoop(fn: OriFunction, loop: Loop, dom: DomTree, live: () => Liveness): number {
  const pre = loop.preheader;
  if (!pre) return 0;
  let n = 0;
  // In-loop definitions, indexed once per state of the loop: a rewrite below changes them (new index after it).
  let defs = new LoopDefs(loop);
  for (const iv of findBasicIvs(loop, defs)) {
    if (!iv.inc.block || !definedAtPreheader({ kind: 'reg', reg: iv.reg }, loop, dom)) continue;
    if (iv.step.kind === 'inv' && !definedAtPreheader(iv.step.op, loop, dom)) continue;
    const lv = live();
    if (loop.exits.some((e) => lv.isLiveIn(e.to, iv.reg))) continue;
    const counted = countedLoop(iv, loop, dom, defs);
    const judge = (u: Instr): Derived | undefined => {
      const d = derivedOf(u, iv.reg, loop, defs);
      const ok =
        d &&
        (d.form === 'mad32' || (counted && iv.step.kind === 'const' && (d.form === 'wideS' || counted.c0 >= 0n))) &&
        (d.form === 'mad32' || iv.step.kind === 'const') &&
        d.instr.uses.every((o) => o.kind !== 'reg' || o.reg === iv.reg || definedAtPreheader(o, loop, dom)) &&
        reducible(d, iv, loop, dom, lv, defs);
      return ok ? d : undefined;
    };
    // The in-loop readers of i, judged once. A counter register every loop of a big function reuses has
    // thousands of readers: then they are found by scanning the loop, and the register's reader table (whose
    // order the rewrite follows) is walked only when the rewrite happens.
    const verdicts = new Map<Instr, Derived | undefined>();
    let loopSize = 0;
    for (const b of loop.blocks) loopSize += b.instrs.length;
    if (iv.reg.uses.size <= loopSize) {
      for (const u of iv.reg.uses.keys()) if (loop.blockSet.has(u.block!) && u !== iv.inc) verdicts.set(u, judge(u));
    } else {
      for (const b of loop.blocks) for (const u of b.instrs) if (u !== iv.inc && iv.reg.uses.has(u)) verdicts.set(u, judge(u));
    }
    let nDerived = 0;
    for (const d of verdicts.values()) if (d) nDerived++;
    if (!nDerived || verdicts.size - nDerived > 1) continue;
    const derived: Derived[] = [];
    const rest: Instr[] = [];
    for (const u of iv.reg.uses.keys()) {
      if (!verdicts.has(u)) continue;
      const d = verdicts.get(u);
      if (d) derived.push(d);
      else rest.push(u);
    }
    // The remaining reader must be the exit test, rewritten onto an injective derived value.
    let lftr: { test: Instr; key: Derived; bound: Operand; cmp: string } | undefined;
    if (rest.length === 1) {
      const test = rest[0]!;
      const cmp = compareOf(test);
      if (!cmp) continue;
      const iFirst = isPlainReg(cmp.x) && cmp.x.reg === iv.reg;
      const bound = iFirst ? cmp.y : cmp.x;
      const other = iFirst ? cmp.x : cmp.y;
      if (!isPlainReg(other) || other.reg !== iv.reg || (bound.kind === 'reg' && bound.reg === iv.reg)) continue;
      if (!invariantIn(bound, loop, defs) || !definedAtPreheader(bound, loop, dom)) continue;
      let newCmp: string | undefined;
      if (cmp.cmp === 'EQ' || cmp.cmp === 'NE') newCmp = cmp.cmp;
      else if (counted && counted.test === test) newCmp = 'NE';
      if (!newCmp) continue;
      const key = derived.find(injective);
      if (!key) continue;
      lftr = { test, key, bound, cmp: newCmp };
    }
    const stepConst = iv.step.kind === 'const' ? iv.step.value : undefined;
    // Rewrite: each derived value starts in the preheader and moves with i.
    let after = iv.inc;
    for (const d of derived) {
      pre.appendBody(new Instr(d.instr.opcode, { mods: d.instr.mods, defs: d.instr.defs, uses: d.instr.uses, loc: d.instr.loc }));
      const bits = d.form === 'mad32' ? 32 : 64;
      let bump: Operand;
      if (stepConst !== undefined) {
        // wide forms: the step is +1 in a counted loop; the scale is sign- or zero-extended like i.
        const scale = d.form === 'wideU' ? d.scale : BigInt.asIntN(32, d.scale);
        const k = d.form === 'mad32' ? stepConst : BigInt.asIntN(32, stepConst);
        bump = immOf(BigInt.asUintN(bits, scale * k), bits);
      } else if (d.scale === 1n) bump = (iv.step as { op: Operand }).op;
      else {
        const r = fn.newReg('R', 1);
        pre.appendBody(new Instr('IMAD', { defs: [{ kind: 'reg', reg: r }], uses: [(iv.step as { op: Operand }).op, immOf(d.scale, 32), RZ], loc: iv.inc.loc }));
        bump = { kind: 'reg', reg: r };
      }
      after = iv.inc.block!.insertAfter(after, new Instr('IADD3', { defs: d.instr.defs, uses: [{ kind: 'reg', reg: d.t }, bump, RZ], loc: iv.inc.loc }));
      d.instr.block!.remove(d.instr);
    }
    if (lftr) {
      // Bound in the preheader: f(n), computed by the key's own instruction with n in place of i.
      const k = lftr.key;
      const bn = fn.newReg('R', k.form === 'mad32' ? 1 : 2);
      const at = k.instr.uses.findIndex((o) => isPlainReg(o) && o.reg === iv.reg);
      const uses = k.instr.uses.map((o, j) => (j === at ? lftr!.bound : o));
      pre.appendBody(new Instr(k.instr.opcode, { mods: k.instr.mods, defs: [{ kind: 'reg', reg: bn }], uses, loc: lftr.test.loc }));
      const test = lftr.test;
      const setp = new Instr('ISETP', {
        mods: [lftr.cmp, k.form === 'mad32' ? 'U32' : 'U64', 'AND'],
        defs: test.defs,
        uses: [{ kind: 'reg', reg: k.t }, { kind: 'reg', reg: bn }, test.uses[2]!],
        loc: test.loc,
      });
      test.block!.insertBefore(test, setp);
      test.block!.remove(test);
    }
    // i now feeds only its own update and is dead at every exit: the update is dead.
    iv.inc.block!.remove(iv.inc);
    defs = new LoopDefs(loop);
    n++;
  }
  return n;
}

export function strengthReduce(fn: OriFunction, loops: LoopInfo, dom: DomTree): number {
  let n = 0;
  let lv: Liveness | undefined;
  let version = -1;
  const live = (): Liveness => {
    if (!lv || version !== fn.irVersion) {
      lv = computeLiveness(fn);
      version = fn.irVersion;
    }
    return lv;
  };
  // Innermost loops first: they run most often.
  for (const loop of [...loops.all].reverse()) n += strengthReduceLoop(fn, loop, dom, live);
  return n;
}
