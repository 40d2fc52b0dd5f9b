import { DominatorAnalysis, LoopAnalysis, type Block, type DomTree, type Instr, type Loop, type OriFunction, type PhaseContext, type Register } from '@ptxforge/kernel';
import { LivenessAnalysis, isSpeculatable, type Liveness } from '@ptxforge/opt-utils';
import { ensurePreheader } from '@ptxforge/plugin-loop';

/** The four instances (spec: "Why Four Instances?"): phase name -> pass_id. */
export const LICM_PASS_ID: Readonly<Record<string, 0 | 1 | 2 | 3>> = {
  OriHoistInvariantsEarly: 0,
  OriHoistInvariantsLate: 1,
  OriHoistInvariantsLate2: 2,
  OriHoistInvariantsLate3: 3,
};

export interface LicmKnobs {
  readonly hoistBudget: number;
  readonly loopInvBudget: number;
  readonly conservativeScale: number;
  readonly policy: number;
  readonly disableNested: boolean;
  readonly setBased: boolean;
}

export function readLicmKnobs(ctx: PhaseContext): LicmKnobs {
  return {
    hoistBudget: ctx.knob<number>('HoistBudget'),
    loopInvBudget: ctx.knob<number>('HoistLoopInvBudget'),
    conservativeScale: ctx.knob<number>('HoistConservativeScale'),
    policy: ctx.knob<number>('HoistLate'),
    disableNested: ctx.knob<boolean>('DisableNestedHoist'),
    setBased: ctx.knob<boolean>('UseNewLoopInvariantRoutineForHoisting'),
  };
}

/**
 * Stage 1 budget (spec: ComputeHoistBudget in sub_8FF2D0): HoistBudget, replaced for simple (single-depth)
 * loops by the CBO budget (HoistLoopInvBudget: 22 for pass_id 0, 100 later) or 200/300 for hoist_mode >= 2,
 * times 100 for Late3, split among back-edge blocks (hoist_mode 3), divided by HoistConservativeScale for
 * inner loops. 0 means unlimited.
 */
export function hoistBudget(k: LicmKnobs, passId: number, o: { simple: boolean; hoistMode: number; numPreds: number; inner: boolean }): number {
  let budget = k.hoistBudget;
  const cbo = k.loopInvBudget > 0 ? k.loopInvBudget : passId === 0 ? 22 : 100;
  if (o.simple) budget = o.hoistMode < 2 ? cbo : passId > 0 ? 300 : 200;
  if (passId === 3) budget *= 100;
  if (o.hoistMode === 3 && o.numPreds > 0) budget /= o.numPreds;
  if (o.inner) budget /= k.conservativeScale > 0 ? k.conservativeScale : 10;
  return budget;
}

/** Per-block policy (knob HoistLate, spec knob 381): 0 always, 1 inner loops only, 3 never. */
export function policyAllows(policy: number, loop: Loop): boolean {
  if (policy === 3) return false;
  if (policy === 1) return loop.children.length === 0;
  return true;
}

/** Instructions with a scoreboard (variable-latency) result: loads, MUFU, conversions, wide multiplies. */
function longLatency(i: Instr): boolean {
  const c = i.info?.category;
  return !!i.info?.mayLoad || c === 'convert' || i.opcode === 'MUFU' || i.opcode.startsWith('D') || i.opcode === 'IMAD' && i.hasMod('WIDE');
}

/**
 * Stage 5 (spec: IsProfitable sub_8F8CB0): score = 1 per invariant plus real_weight (5) per scoreboard def;
 * penalty 2 per long-latency invariant; denominator = the instructions scanned (pass_id 0) or
 * body/3 + header with real instructions weighing 30 (sub_8F8BC0); profitable when
 * score * budget / (real_weight * denominator) >= penalty. Budget 0 (unlimited) counts as always profitable.
 */
export function isProfitable(passId: number, loop: Loop, candidates: readonly Instr[], budget: number): boolean {
  if (!candidates.length) return false;
  if (budget <= 0) return true;
  const realWeight = 5;
  let score = 0;
  let penalty = 0;
  for (const i of candidates) {
    score += 1;
    if (longLatency(i)) {
      score += realWeight;
      penalty += 2;
    }
  }
  let denominator: number;
  if (passId === 0) {
    denominator = 0;
    for (const b of loop.blocks) denominator += b.instrs.length;
  } else {
    const header = loop.header.instrs.length * 30;
    let body = 0;
    for (const b of loop.blocks) if (b !== loop.header) body += b.instrs.length * 30;
    denominator = Math.floor(body / 3) + header;
  }
  return denominator !== 0 && (score * budget) / (realWeight * denominator) >= penalty;
}

function definedInLoop(r: Register, loop: Loop): number {
  let n = 0;
  for (const d of r.defs) if (d.block && loop.blockSet.has(d.block)) n++;
  return n;
}

/**
 * Stages 2-4 (invariance marking, transitive propagation): the loop's instructions that may move to the
 * preheader, in an order that keeps their dependences. An instruction qualifies when it is speculatable
 * (no memory effect, no load but LDC, not control flow), unguarded, writes one register that nothing else in
 * the loop writes and whose every in-loop read it dominates, reads only registers not written in the loop or
 * written by already-invariant instructions, and either runs before every exit or writes a register that is
 * dead at every exit. The default routine is one pass over the blocks in order (transitive through earlier
 * invariants); UseNewLoopInvariantRoutineForHoisting iterates to a fixpoint (spec: sub_768BF0).
 */
export function findInvariants(loop: Loop, dom: DomTree, live: Liveness, setBased: boolean): Instr[] {
  const invariantRegs = new Set<Register>();
  const chosen: Instr[] = [];
  const chosenSet = new Set<Instr>();
  const exitTargets = new Set<Block>();
  const exitFroms = new Set<Block>();
  for (const e of loop.exits) {
    exitTargets.add(e.to);
    exitFroms.add(e.from);
  }
  const sourceInvariant = (r: Register): boolean => definedInLoop(r, loop) === 0 || invariantRegs.has(r);
  const qualifies = (i: Instr): boolean => {
    if (chosenSet.has(i) || i.guard || !isSpeculatable(i) || i.isControlFlow) return false;
    const defs = i.defRegs();
    if (defs.length !== 1 || i.defs.length !== 1) return false;
    const r = defs[0]!;
    if (r.cls === 'B') return false;
    for (const u of i.useRegs()) if (u === r || !sourceInvariant(u)) return false;
    if (definedInLoop(r, loop) !== 1) return false;
    // Every in-loop read of r must see this def (dominated by it, later in its block).
    for (const user of r.uses.keys()) {
      const ub = user.block;
      if (!ub || !loop.blockSet.has(ub)) continue;
      if (ub === i.block) {
        if (ub.instrs.indexOf(user) <= ub.instrs.indexOf(i)) return false;
      } else if (!dom.dominates(i.block!, ub)) return false;
    }
    let beforeEveryExit = true;
    for (const f of exitFroms) if (!dom.dominates(i.block!, f)) beforeEveryExit = false;
    if (!beforeEveryExit) for (const t of exitTargets) if (live.isLiveIn(t, r)) return false;
    return true;
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (const b of loop.blocks) {
      for (const i of b.instrs) {
        if (!qualifies(i)) continue;
        chosen.push(i);
        chosenSet.add(i);
        invariantRegs.add(i.defRegs()[0]!);
        changed = true;
      }
    }
    if (!setBased) break;
  }
  return chosen;
}

export interface LicmResult {
  readonly loops: number;
  readonly hoisted: number;
}

function loopLine(l: Loop): number | undefined {
  for (const b of l.blocks) for (const i of b.instrs) if (i.loc) return i.loc.line;
  return undefined;
}

/** One OriHoistInvariants instance on a function (spec: HoistInvariantsCore sub_8FF780), innermost loops first. */
export function hoistInvariants(ctx: PhaseContext, fn: OriFunction, passId: number, k: LicmKnobs): LicmResult {
  let hoistedTotal = 0;
  let loopsChanged = 0;
  const done = new Set<Block>();
  for (;;) {
    const loops = ctx.analysis(fn, LoopAnalysis);
    let loop: Loop | undefined;
    for (let j = loops.all.length - 1; j >= 0; j--) {
      const l = loops.all[j]!;
      if (!done.has(l.header)) {
        loop = l;
        break;
      }
    }
    if (!loop) break;
    done.add(loop.header);
    // Nested hoisting (out of an outer loop whose inner loops had their turn) unless DisableNestedHoist.
    if (loop.children.length && k.disableNested) continue;
    if (!policyAllows(k.policy, loop)) continue;
    // Spec boundary analysis (sub_74D720): loops with barriers or indirect jumps are skipped.
    let blocked = false;
    for (const b of loop.blocks) for (const i of b.instrs) if (i.opcode === 'BAR' || i.opcode === 'BRX' || i.opcode === 'JMX') blocked = true;
    if (blocked) continue;
    const dom = ctx.analysis(fn, DominatorAnalysis);
    const live = ctx.analysis(fn, LivenessAnalysis);
    let cands = findInvariants(loop, dom, live, k.setBased);
    if (!cands.length) continue;
    const budget = hoistBudget(k, passId, { simple: loop.children.length === 0, hoistMode: 0, numPreds: loop.latches.length, inner: false });
    const line = loopLine(loop);
    if (!isProfitable(passId, loop, cands, budget)) {
      ctx.remark({ kind: 'missed', name: 'InvariantsNotHoisted', fn: fn.name, block: loop.header.label, ...(line !== undefined ? { line } : {}), message: `${cands.length} loop-invariant instructions not hoisted: not profitable (pass_id ${passId})`, args: { candidates: cands.length, passId } });
      continue;
    }
    if (budget > 0 && cands.length > budget) cands = cands.slice(0, Math.floor(budget));
    if (!cands.length) continue;
    const header = loop.header;
    const pre = ensurePreheader(fn, header, loop.blockSet);
    // The preheader's own branch must not read what moves in above it.
    const term = pre.terminator;
    if (term) {
      const moved = new Set(cands.map((i) => i.defRegs()[0]!));
      if (term.useRegs().some((r) => moved.has(r))) continue;
    }
    for (const i of cands) {
      i.block!.remove(i);
      pre.appendBody(i);
    }
    hoistedTotal += cands.length;
    loopsChanged++;
    ctx.remark({
      kind: 'passed', name: 'InvariantsHoisted', fn: fn.name, block: header.label, ...(line !== undefined ? { line } : {}),
      message: `${cands.length} loop-invariant instruction${cands.length === 1 ? '' : 's'} hoisted to the preheader by ${ctx.phase.name} (pass_id ${passId})`,
      args: { count: cands.length, passId, instance: ctx.phase.name, budget },
    });
    ctx.invalidate(fn, 'none');
  }
  return { loops: loopsChanged, hoisted: hoistedTotal };
}
