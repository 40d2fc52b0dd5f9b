import {
  DominatorAnalysis,
  Instr,
  LoopAnalysis,
  PT,
  RZ,
  imm,
  label,
  reg,
  type Block,
  type DomTree,
  type Loop,
  type LoopInfo,
  type Operand,
  type OriFunction,
  type PhaseContext,
} from '@ptxforge/kernel';
import { analyzeCountedLoop, type CountedLoop, type Rejection } from './iv.js';
import { cloneRegion, dropBranchesToNext, ensurePreheader, layoutLast, materializeFallthroughs, retargetFinalBranch } from './region.js';

/** Knob values of phase 22 (spec: sub_1389AF0's context fields), read once per run. */
export interface UnrollKnobs {
  readonly loopUnroll: boolean;
  readonly factor: number;
  readonly blockOverride: string;
  readonly budget: number;
  readonly fullInstLimit: number;
  readonly flexableFullLimit: number;
  readonly smallLoopLimit: number;
  readonly unknownCount: number;
  readonly unknownInstLimit: number;
  readonly nonInnermost: boolean;
  readonly multiBlock: boolean;
  readonly variableBounds: boolean;
  readonly unknownMultiBlock: boolean;
  readonly numInstTex: number;
  readonly disableOverflowCheck: boolean;
  readonly makeSingleEntry: boolean;
  /** Beyond the spec (ptxas's measured rule, see measuredFullUnroll): 0 turns it off. */
  readonly fullSizeTimesIterLimit: number;
  readonly fullMaxSize: number;
}

export function readUnrollKnobs(ctx: PhaseContext): UnrollKnobs {
  return {
    loopUnroll: ctx.knob<boolean>('LoopUnroll'),
    factor: ctx.knob<number>('LoopUnrollFactor'),
    blockOverride: ctx.knob<string>('LoopUnrollBlockOverride'),
    budget: ctx.knob<number>('UnrollBudget'),
    fullInstLimit: ctx.knob<number>('UnrollFullInstLimit'),
    flexableFullLimit: ctx.knob<number>('UnrollFlexableFullLimit'),
    smallLoopLimit: ctx.knob<number>('UnrollSmallLoopLimit'),
    unknownCount: ctx.knob<number>('UnrollUnknownCount'),
    unknownInstLimit: ctx.knob<number>('UnrollUnknownInstLimit'),
    nonInnermost: ctx.knob<boolean>('LoopUnrollNonInnermost'),
    multiBlock: ctx.knob<boolean>('UnrollMultiBlockLoops'),
    variableBounds: ctx.knob<boolean>('UnrollVariableBounds'),
    unknownMultiBlock: ctx.knob<boolean>('LoopUnrollUnknownMultiBlock'),
    numInstTex: ctx.knob<number>('LoopUnrollNumInstTex'),
    disableOverflowCheck: ctx.knob<boolean>('DisablePartialUnrollOverflowCheck'),
    makeSingleEntry: ctx.knob<boolean>('LoopMakeSingleEntry'),
    fullSizeTimesIterLimit: ctx.knob<number>('UnrollFullSizeTimesIterLimit'),
    fullMaxSize: ctx.knob<number>('UnrollFullMaxSize'),
  };
}

/** The body scan (spec: ScanLoopBody sub_138E3E0's 68-byte record, the fields we can compute on Ori). */
export interface BodyInfo {
  readonly size: number;
  readonly foldableLdc: number;
  readonly tex: number;
  readonly calls: number;
  readonly mem: number;
  readonly convergent: number;
  readonly branches: number;
  readonly innerNounroll: number;
  /** Loop-control defs full unrolling kills: the back branch, its compare, a pure counter's increment. */
  readonly killedDefs: number;
  /** Spec's adjusted cost: call_weight + size - foldable_ldc - killed_defs - nounroll_penalty. */
  readonly remaining: number;
}

/** Penalty scale for inner nounroll blocks (spec: knob 898, unnamed; default 0.5). */
const NOUNROLL_PENALTY_SCALE = 0.5;
/** Weight of an inlinable call in the body cost (spec: call_weight 9 per single-block call). */
const CALL_WEIGHT = 9;

/**
 * The spec's killed_def_count, read as the loop-control instructions that unrolling makes dead: the back
 * branch, the compare feeding only it, and the IV increment when the IV is read only by itself and that compare
 * (a pure trip counter). The spec names the field, not its rule; this is our reading.
 */
export function killedLoopControl(cl: CountedLoop | undefined): number {
  if (!cl) return 0;
  // With a side condition every copy keeps its conditional exit; only the IV compare folds away.
  if (cl.sideCondition) return 1;
  let n = 1;
  const p = cl.backBranch.guard!.reg;
  // Read by the back branch alone (p.useCount === 1, without summing the uses of a predicate every loop reuses).
  let pOnlyBranch = false;
  if (p.uses.size === 1) for (const c of p.uses.values()) pOnlyBranch = c === 1;
  if (pOnlyBranch) n++;
  // Whether the IV has a reader other than its increment and the compare: by counting, not by visiting every
  // reader of a counter register the whole function reuses.
  const iv = cl.iv;
  const known = (iv.uses.has(cl.inc) ? 1 : 0) + (cl.cmpInstr !== cl.inc && iv.uses.has(cl.cmpInstr) ? 1 : 0);
  const ivOther = iv.uses.size > known;
  if (pOnlyBranch && !ivOther && cl.iv.defs.size <= 2) n++;
  return n;
}

export function scanBody(loop: Loop, cl?: CountedLoop): BodyInfo {
  let size = 0, foldableLdc = 0, tex = 0, calls = 0, mem = 0, convergent = 0, branches = 0, innerNounroll = 0;
  for (const b of loop.blocks) {
    if (b !== loop.header && b.attrs.has('nounroll')) innerNounroll++;
    for (const i of b.instrs) {
      size++;
      const info = i.info;
      if (i.opcode === 'LDC' && i.uses[0]?.kind === 'cbank' && !i.uses[0].index) foldableLdc++;
      if (info?.category === 'texture') tex++;
      if (info?.isCall) calls++;
      if (info?.mayLoad || info?.mayStore) mem++;
      if (info?.isConvergent) convergent++;
      if (i.isBranch) branches++;
    }
  }
  const killedDefs = killedLoopControl(cl);
  const remaining = calls * CALL_WEIGHT + size - foldableLdc - killedDefs - Math.trunc(NOUNROLL_PENALTY_SCALE * innerNounroll);
  return { size, foldableLdc, tex, calls, mem, convergent, branches, innerNounroll, killedDefs, remaining };
}

export type UnrollDecision =
  | { readonly kind: 'full'; readonly trip: number }
  | { readonly kind: 'partial'; readonly factor: number }
  | Rejection;

/** The spec's reason strings by code (sub_7F5D20), as printed in remarks. */
export const REJECTION_REASON: Readonly<Record<number, string>> = {
  7: 'Not unrolled: body too large relative to texture savings',
  11: 'Not unrolled: nounroll pragma, convergence constraint or per-block knob',
  12: 'Not unrolled: no unroll factor fits the budget',
  13: 'Not unrolled: loop exit is not a conditional branch',
  14: 'Not unrolled: unsupported induction variable',
  15: 'Not unrolled: induction variable is not an integer',
  16: 'Not unrolled: trip count bound extraction failed',
  17: 'Not unrolled: irregular loop',
  18: 'Not unrolled: IV initial value or limit register degenerate',
  19: 'Not unrolled: IV stride sign inconsistent',
  24: 'Not unrolled: budget exceeded after all factor reductions',
};

/** Per-block override string (spec: knob 427): '-N-' skip, '+N+' force, '-' skip all, '+' force all. */
export function blockOverride(s: string, b: Block): 'skip' | 'force' | undefined {
  if (!s) return undefined;
  const ids = [b.label, String(b.index)];
  if (s === '-' || ids.some((id) => s.includes(`-${id}-`))) return 'skip';
  if (s === '+' || ids.some((id) => s.includes(`+${id}+`))) return 'force';
  return undefined;
}

/**
 * Factor selection for one analysed loop (spec: Steps J-L of sub_1390B30). Known trip counts fully unroll
 * when trip * cost stays under UnrollFullInstLimit (the "200 / trip_count > body_cost" gate; bodies at or under
 * UnrollSmallLoopLimit get UnrollFlexableFullLimit more room); otherwise, and for unknown trip counts, the
 * factor is UnrollUnknownCount, or 2 when the body is at least the texture budget (min(5*tex+22, 100) or
 * LoopUnrollNumInstTex), halved until factor * cost fits UnrollBudget.
 */
export function chooseFactor(cl: CountedLoop, body: BodyInfo, k: UnrollKnobs, force: boolean, innermost: boolean, innerTrips = 1): UnrollDecision {
  const d = chooseFactorOf(cl, body, k, force, innermost, innerTrips);
  if (cl.sideCondition && !('code' in d) && d.kind !== 'full') {
    return { code: 16, reason: 'trip count bound extraction failed: the loop also leaves on another condition (only a full unroll keeps every exit)' };
  }
  if (cl.float && !('code' in d) && d.kind !== 'full') {
    return { code: 15, reason: `the IV ${cl.iv.name} is a floating-point value: only a constant trip count (full unroll) is supported` };
  }
  // The remainder computation of a partial unroll is 32-bit; a 64-bit counter is only fully unrolled.
  if (cl.bits === 64 && !('code' in d) && d.kind !== 'full') {
    return { code: 15, reason: `the IV ${cl.iv.name} is a 64-bit counter: only a constant trip count (full unroll) is supported` };
  }
  return d;
}

/**
 * ptxas 13.0.88 fully unrolls constant-trip loops far beyond the spec's `200 / trip > cost` gate (a 7-instruction
 * body up to trip ~250, a 2-instruction body up to ~800). Measured with plugins/loop/scripts/ptxas-unroll-
 * experiments.mjs (a load and B dependent FFMAs per iteration, the largest fully unrolled trip bisected; table in
 * docs/loops.md): T_max * (B + 2) * (B + 5) stays within 21,900..23,900 for B = 2..32, where B + 5 is the loop
 * body with its control (load, B FFMAs, address add, counter add, compare, branch: our `size`) and B + 2 its
 * cost once the control folds away (our `remaining`). Nested constant loops follow the same law with the
 * product of the trip counts and the innermost body (8x8 over a 16-FFMA body unrolls, 64x4 over 8 does not).
 * We read it as "unrolled size times the size of one innermost iteration stays under a limit": trip * cost
 * times size / (trip product of the loops already fully unrolled inside this one) <= UnrollFullSizeTimesIterLimit,
 * with the unrolled size also capped by UnrollFullMaxSize. Both knobs are ours (not in the spec), set from the
 * measurements so that we never keep a loop ptxas removes; 0 turns the rule off and leaves the spec's gate alone.
 * ptxas unrolls somewhat less in large functions (with 400 more instructions outside the loop, B = 8: trip 176
 * -> 120); we do not model that, so there we unroll more than ptxas, never less. Register pressure: a fully
 * unrolled body has no loop-carried values left, and the pre-RA scheduler (pressure-aware) decides how far the
 * copies overlap.
 */
export function measuredFullUnroll(trip: number, body: BodyInfo, innerTrips: number, k: UnrollKnobs): boolean {
  if (k.fullSizeTimesIterLimit <= 0) return false;
  const unrolled = trip * Math.max(1, body.remaining);
  if (k.fullMaxSize > 0 && unrolled > k.fullMaxSize) return false;
  return unrolled * (body.size / Math.max(1, innerTrips)) <= k.fullSizeTimesIterLimit;
}

function chooseFactorOf(cl: CountedLoop, body: BodyInfo, k: UnrollKnobs, force: boolean, innermost: boolean, innerTrips: number): UnrollDecision {
  const cost = Math.max(1, body.remaining);
  const trip = cl.tripCount;
  if (!innermost && !k.nonInnermost && !force && 10 * body.tex < body.remaining) {
    return { code: 7, reason: `non-innermost loop (LoopUnrollNonInnermost off) and 10*tex ${10 * body.tex} < cost ${body.remaining}` };
  }
  if (k.factor > 0 || force) {
    const f = k.factor > 0 ? k.factor : k.unknownCount;
    if (f < 2) return { code: 12, reason: `LoopUnrollFactor ${f} selects no unrolling` };
    if (trip !== undefined && f >= trip) return { kind: 'full', trip };
    if (body.convergent) return { code: 11, reason: 'convergence constraint: warp-synchronous instructions in a loop without a constant trip count' };
    return { kind: 'partial', factor: f };
  }
  if (trip !== undefined) {
    const limit = cost <= k.smallLoopLimit ? k.fullInstLimit * (1 + k.flexableFullLimit) : k.fullInstLimit;
    // Spec: "200 / trip_count > body_cost" (a real-valued ratio here).
    if (trip === 1 || limit / trip > cost) return { kind: 'full', trip };
    if (!force && measuredFullUnroll(trip, body, innerTrips, k)) return { kind: 'full', trip };
  } else if (!k.variableBounds) {
    return { code: 16, reason: 'trip count unknown and UnrollVariableBounds is off' };
  }
  if (body.convergent) return { code: 11, reason: 'convergence constraint: warp-synchronous instructions; only constant-trip full unrolling keeps them converged' };
  if (trip === undefined && k.unknownInstLimit > 0 && cost > k.unknownInstLimit) {
    return { code: 24, reason: `body cost ${cost} exceeds UnrollUnknownInstLimit ${k.unknownInstLimit}` };
  }
  const texBudget = k.numInstTex > 0 ? k.numInstTex : Math.min(5 * body.tex + 22, 100);
  let f = body.tex > 0 && body.remaining <= 49 ? k.unknownCount : texBudget <= body.remaining ? 2 : k.unknownCount;
  if (trip !== undefined) while (f > 1 && f >= trip) f >>= 1;
  while (f >= 2 && f * cost > k.budget) f >>= 1;
  if (f < 2) {
    return trip !== undefined
      ? { code: 12, reason: `trip count ${trip} with body cost ${cost}: too large to unroll fully (UnrollFullInstLimit ${k.fullInstLimit}) and no partial factor fits UnrollBudget ${k.budget}` }
      : { code: 24, reason: `body cost ${cost}: no factor >= 2 fits UnrollBudget ${k.budget}` };
  }
  if (Math.abs(cl.step) !== 1) return { code: 17, reason: `stride verification failed for a partial unroll: step ${cl.step} is not +-1` };
  return { kind: 'partial', factor: f };
}

/**
 * Full unroll: `trip` copies of the loop region in sequence, the back branch removed from each, the last one
 * leaving to the exit (spec: EvaluateAndEmitFullUnroll sub_1383620, for the constant-trip case where every
 * per-iteration bound check folds).
 */
export function fullUnroll(fn: OriFunction, loop: Loop, cl: CountedLoop, trip: number): Block[] {
  const blocks = loop.blocks;
  materializeFallthroughs(fn, blocks);
  let after = layoutLast(fn, blocks);
  const copies: Array<Map<Block, Block>> = [new Map(blocks.map((b) => [b, b] as const))];
  for (let j = 1; j < trip; j++) {
    const { map, last } = cloneRegion(fn, blocks, after);
    copies.push(map);
    after = last;
  }
  const touched: Block[] = [];
  for (let j = 0; j < trip; j++) {
    const latch = copies[j]!.get(cl.latch)!;
    const back = latch.instrs[latch.instrs.length - 2]!;
    if (cl.sideCondition && j + 1 < trip) {
      // `@p BRA header; BRA exit` with p = (IV compare, true before the last copy) AND q: on to the next copy
      // while q holds, else leave.
      back.setUses([label(copies[j + 1]!.get(cl.header)!)]);
    } else {
      // The latch is `... @p BRA header; BRA exit` now: drop the back branch, go on to the next copy (the last
      // copy leaves: its IV compare fails).
      latch.remove(back);
      if (j + 1 < trip) retargetFinalBranch(latch, copies[j + 1]!.get(cl.header)!);
    }
    for (const b of copies[j]!.values()) touched.push(b);
  }
  dropBranchesToNext(fn, touched);
  return touched;
}

/**
 * Partial unroll by `factor` with the remainder as a power-of-two epilogue (spec: Step P and Phase 4 of
 * sub_1383620: levels = floor(log2(factor-1)), each level a compare+branch block and 2^k body copies).
 *
 * The preheader computes `rem`, the number of iterations the loop will run (at least 1: the body is entered);
 * with stride +-1 it is exact in 32-bit arithmetic, including the first compare's wrap, except for the one case
 * where the original loop would run 2^32 times. The main loop runs `factor` copies while rem >= factor; the
 * epilogue runs the rest by its binary digits, so no loop remains for the remainder.
 */
export function partialUnroll(fn: OriFunction, loop: Loop, cl: CountedLoop, factor: number): Block[] {
  const blocks = loop.blocks;
  const pre = ensurePreheader(fn, cl.header, loop.blockSet);
  materializeFallthroughs(fn, [...blocks, pre]);
  const loc = cl.cmpInstr.loc;
  const emit = (b: Block, opcode: string, init: ConstructorParameters<typeof Instr>[1]): Instr => b.appendBody(new Instr(opcode, { ...init, loc }));
  // --- rem in the preheader -------------------------------------------------------------------------------
  const rem = fn.newReg('R');
  const ty = cl.signed ? 'S32' : 'U32';
  const up = cl.step > 0;
  let w: Operand = reg(cl.iv);
  if (cl.delta) {
    const wr = fn.newReg('R');
    emit(pre, 'IADD3', { defs: [reg(wr)], uses: [reg(cl.iv), imm(cl.step), RZ] });
    w = reg(wr);
  }
  let bound = cl.bound;
  if (!up && bound.kind !== 'imm' && bound.kind !== 'reg') {
    const br = fn.newReg('R');
    emit(pre, 'MOV', { defs: [reg(br)], uses: [bound] });
    bound = reg(br);
  }
  const inclusive = cl.cmp === 'LE' || cl.cmp === 'GE';
  const plus = imm(inclusive ? 2 : 1);
  // rem = (up ? n - w : w - n) + 1 (+1 more for an inclusive bound)
  const neg = (o: Operand): Operand => (o.kind === 'reg' ? reg(o.reg, { neg: true }) : o.kind === 'imm' ? imm(BigInt.asIntN(32, -o.value)) : o);
  emit(pre, 'IADD3', { defs: [reg(rem)], uses: up ? [bound, neg(w), plus] : [w, neg(bound), plus] });
  if (cl.cmp !== 'NE') {
    // No further iteration after the first when the first compare already fails: rem = 1.
    const q = fn.newReg('P');
    emit(pre, 'ISETP', { mods: [cl.cmp, ty, 'AND'], defs: [reg(q)], uses: [w, bound, PT] });
    emit(pre, 'MOV', { guard: { reg: q, not: true }, defs: [reg(rem)], uses: [imm(1)] });
  }
  const levels = 31 - Math.clz32(factor - 1);
  // --- main loop copies -----------------------------------------------------------------------------------
  let after = layoutLast(fn, blocks);
  const copies: Array<Map<Block, Block>> = [new Map(blocks.map((b) => [b, b] as const))];
  for (let j = 1; j < factor; j++) {
    const { map, last } = cloneRegion(fn, blocks, after);
    copies.push(map);
    after = last;
  }
  // --- epilogue: per level a test block then 2^k copies ----------------------------------------------------
  const epi: Array<{ test: Block; copies: Array<Map<Block, Block>> }> = [];
  for (let k = levels; k >= 0; k--) {
    const test = fn.createBlock({ after });
    // Filled now (targets set below) so that placing the copies after it does not add a fall-through BRA.
    const q = fn.newReg('P');
    test.append(new Instr('ISETP', { mods: ['GE', 'U32', 'AND'], defs: [reg(q)], uses: [reg(rem), imm(1 << k), PT], loc }));
    test.append(new Instr('BRA', { guard: { reg: q, not: true }, uses: [label(cl.exit)], loc }));
    test.append(new Instr('BRA', { uses: [label(cl.exit)], loc }));
    after = test;
    const cs: Array<Map<Block, Block>> = [];
    for (let j = 0; j < 1 << k; j++) {
      const { map, last } = cloneRegion(fn, blocks, after);
      cs.push(map);
      after = last;
    }
    epi.push({ test, copies: cs });
  }
  const touched: Block[] = [pre];
  const chain = (cs: Array<Map<Block, Block>>, then: Block, tail?: (latch: Block) => void): void => {
    cs.forEach((m, j) => {
      const latch = m.get(cl.latch)!;
      latch.remove(latch.instrs[latch.instrs.length - 2]!);
      if (j + 1 < cs.length) retargetFinalBranch(latch, cs[j + 1]!.get(cl.header)!);
      else {
        tail?.(latch);
        retargetFinalBranch(latch, then);
      }
      for (const b of m.values()) touched.push(b);
    });
  };
  const firstEpi = epi[0]!.test;
  // preheader: @!(rem >= factor) BRA epilogue; falls (BRA) into the first copy
  const pm = fn.newReg('P');
  emit(pre, 'ISETP', { mods: ['GE', 'U32', 'AND'], defs: [reg(pm)], uses: [reg(rem), imm(factor), PT] });
  const preBra = pre.instrs[pre.instrs.length - 1]!;
  pre.insertBefore(preBra, new Instr('BRA', { guard: { reg: pm, not: true }, uses: [label(firstEpi)], loc }));
  chain(copies, firstEpi, (latch) => {
    emit(latch, 'IADD3', { defs: [reg(rem)], uses: [reg(rem), imm(-factor), RZ] });
    const pb = fn.newReg('P');
    emit(latch, 'ISETP', { mods: ['GE', 'U32', 'AND'], defs: [reg(pb)], uses: [reg(rem), imm(factor), PT] });
    const fin = latch.instrs[latch.instrs.length - 1]!;
    latch.insertBefore(fin, new Instr('BRA', { guard: { reg: pb, not: false }, uses: [label(cl.header)], loc }));
  });
  epi.forEach(({ test, copies: cs }, idx) => {
    const k = levels - idx;
    const next = idx + 1 < epi.length ? epi[idx + 1]!.test : cl.exit;
    const n = test.instrs.length;
    test.instrs[n - 2]!.setUses([label(next)]);
    test.instrs[n - 1]!.setUses([label(cs[0]!.get(cl.header)!)]);
    touched.push(test);
    chain(cs, next, k > 0 && idx + 1 < epi.length ? (latch) => emit(latch, 'IADD3', { defs: [reg(rem)], uses: [reg(rem), imm(-(1 << k)), RZ] }) : undefined);
  });
  dropBranchesToNext(fn, touched);
  return touched;
}

export interface UnrollStats {
  full: number;
  partial: number;
  rejected: number;
}

function loopLine(l: Loop): number | undefined {
  for (const b of l.blocks) for (const i of b.instrs) if (i.loc) return i.loc.line;
  return undefined;
}

/** Phase 22 on one function: innermost loops first, one decision and one remark per loop. */
export function unrollFunction(ctx: PhaseContext, fn: OriFunction, k: UnrollKnobs): UnrollStats {
  const stats: UnrollStats = { full: 0, partial: 0, rejected: 0 };
  const done = new Set<Block>();
  // Blocks made by a full unroll: the trip product they stand for (the measured rule's innermost iteration).
  const unrolledTrips = new Map<Block, number>();
  // Loop nest and dominators kept across a transformation when they provably still hold for every loop left
  // to decide (see keepsAnalyses); recomputing them after each of many sibling loops was O(loops x blocks).
  let kept: { loops: LoopInfo; dom: DomTree } | undefined;
  // Where the search for the next loop resumes in `loops.all`, and the headers of that nest (see below).
  let cursor = -1;
  let headers: Set<Block> | undefined;
  let forLoops: LoopInfo | undefined;
  for (;;) {
    const loops = kept?.loops ?? ctx.analysis(fn, LoopAnalysis);
    const dom = kept?.dom ?? ctx.analysis(fn, DominatorAnalysis);
    if (loops !== forLoops) {
      forLoops = loops;
      cursor = loops.all.length - 1;
      headers = new Set(loops.all.map((l) => l.header));
    }
    // Innermost first: deepest loops, then later headers in layout (spec: reverse RPO). `loops.all` has children
    // after their parents, so the last loop not yet decided has every child decided: it is the next one. With
    // the same nest, `done` only grows, so the search resumes where it stopped (O(loops) per nest, not per loop).
    let loop: Loop | undefined;
    for (; cursor >= 0; cursor--) {
      const l = loops.all[cursor]!;
      if (done.has(l.header)) continue;
      loop = l;
      break;
    }
    if (!loop) break;
    done.add(loop.header);
    const header = loop.header;
    const line = loopLine(loop);
    const reject = (r: Rejection): void => {
      stats.rejected++;
      ctx.remark({
        kind: 'missed', name: 'LoopNotUnrolled', fn: fn.name, block: header.label, ...(line !== undefined ? { line } : {}),
        message: `${REJECTION_REASON[r.code] ?? 'Not unrolled'} (code ${r.code}): ${r.reason}`,
        args: { code: r.code, reason: r.reason },
      });
    };
    const ov = blockOverride(k.blockOverride, header);
    if (ov === 'skip') {
      reject({ code: 11, reason: `per-block override string '${k.blockOverride}' skips ${header.label}` });
      continue;
    }
    const cl = analyzeCountedLoop(loop, dom);
    if ('code' in cl && cl.code === 13) {
      reject(cl);
      continue;
    }
    if (header.attrs.has('nounroll') && ov !== 'force') {
      reject({ code: 11, reason: 'PTX .pragma "nounroll" on the loop' });
      continue;
    }
    if (!k.loopUnroll && ov !== 'force') {
      reject({ code: 11, reason: 'LoopUnroll is off' });
      continue;
    }
    if ('code' in cl) {
      reject(cl);
      continue;
    }
    const body = scanBody(loop, cl);
    // Step J, the non-innermost filter, comes before the shape checks (spec: sub_1390B30).
    if (loop.children.length > 0 && !k.nonInnermost && ov !== 'force' && 10 * body.tex < body.remaining) {
      reject({ code: 7, reason: `non-innermost loop (LoopUnrollNonInnermost off) and 10*tex ${10 * body.tex} < cost ${body.remaining}` });
      continue;
    }
    const multiBlock = loop.blocks.length > 1;
    if (multiBlock && !k.multiBlock) {
      reject({ code: 12, reason: 'multi-block loop body and UnrollMultiBlockLoops is off' });
      continue;
    }
    if (multiBlock && cl.tripCount === undefined && !k.unknownMultiBlock && ov !== 'force') {
      reject({ code: 12, reason: 'multi-block loop with an unknown trip count and LoopUnrollUnknownMultiBlock is off' });
      continue;
    }
    // Blocks the transformation touches are done, except headers of loops still to decide (the preheader it
    // reuses may be an enclosing loop's header). Asked per touched block rather than collected per loop.
    const nestHeaders = headers!;
    const pending = { has: (b: Block): boolean => nestHeaders.has(b) && !done.has(b) };
    let innerTrips = 1;
    for (const b of loop.blocks) innerTrips = Math.max(innerTrips, unrolledTrips.get(b) ?? 1);
    const d = chooseFactor(cl, body, k, ov === 'force', loop.children.length === 0, innerTrips);
    if ('code' in d) {
      reject(d);
      continue;
    }
    const keep = keepsAnalyses(loops, loop, cl, d.kind === 'full');
    if (d.kind === 'full') {
      const made = fullUnroll(fn, loop, cl, d.trip);
      for (const b of made) {
        if (!pending.has(b)) done.add(b);
        unrolledTrips.set(b, d.trip * innerTrips);
      }
      stats.full++;
      ctx.remark({
        kind: 'passed', name: 'LoopUnrolled', fn: fn.name, block: header.label, ...(line !== undefined ? { line } : {}),
        message: `loop fully unrolled: trip count ${d.trip}${cl.sideCondition ? ', every copy keeps the early exit' : ''}`,
        args: { factor: d.trip, full: true, partial: false, remainder: 'none', tripCount: d.trip, bodyCost: body.remaining },
      });
    } else {
      const made = partialUnroll(fn, loop, cl, d.factor);
      for (const b of made) if (!pending.has(b)) done.add(b);
      stats.partial++;
      const levels = 31 - Math.clz32(d.factor - 1);
      ctx.remark({
        kind: 'passed', name: 'LoopUnrolled', fn: fn.name, block: header.label, ...(line !== undefined ? { line } : {}),
        message: `loop partially unrolled by ${d.factor} with a ${levels + 1}-level power-of-two remainder epilogue${cl.tripCount !== undefined ? ` (trip count ${cl.tripCount})` : ' (trip count unknown)'}`,
        args: { factor: d.factor, full: false, partial: true, remainder: 'epilogue', epilogueLevels: levels + 1, bodyCost: body.remaining, ...(cl.tripCount !== undefined ? { tripCount: cl.tripCount } : {}) },
      });
    }
    ctx.invalidate(fn, 'none');
    kept = keep ? { loops, dom } : undefined;
  }
  return stats;
}

/**
 * Whether the loop nest and dominator tree computed before unrolling `loop` still give the same answers for
 * every loop decided after it, so that they need not be recomputed. Holds when:
 *  - `loop` is outermost and the CFG has no irreducible edge. Loops are decided innermost first and, per
 *    depth, later headers first, so every loop still to decide is outermost with a header earlier in RPO.
 *    In a reducible CFG no block earlier in RPO than an outermost loop's header, outside that loop, is
 *    reachable from it (the first edge of such a path that drops below the header in RPO would be a back
 *    edge whose natural loop encloses the header). So the blocks, predecessors, exits and preheaders of
 *    those loops, their relative RPO order (the DFS order of blocks not reachable from the changed region is
 *    unchanged), and dominance between blocks not reachable from `loop` stay as they were; a block that is
 *    reachable from `loop` (or new) dominates none of their blocks, before and after.
 *  - the transformation changes no edge of a block outside the loop's region, except new edges from the
 *    preheader into new blocks: a full unroll only adds blocks after the loop and branches inside them; a
 *    partial unroll does too when it reuses the loop's preheader (ensurePreheader makes a new one,
 *    redirecting outside edges, only when there is none laid out right before the header).
 */
function keepsAnalyses(loops: LoopInfo, loop: Loop, cl: CountedLoop, full: boolean): boolean {
  if (loop.parent || loops.irreducibleEdges.length) return false;
  if (full) return true;
  const pre = loop.preheader;
  return cl.header === loop.header && pre !== undefined && pre.layoutNext === loop.header;
}

