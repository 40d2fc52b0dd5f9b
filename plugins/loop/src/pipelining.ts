import { LatencyModel, LoopAnalysis, type Block, type Instr, type Loop, type OriFunction, type PhaseContext, type Register } from '@ptxforge/kernel';
import { computeLiveness } from '@ptxforge/opt-utils';
import {
  buildDdg, emitPipelined, pipelinedSize, recMIIOf, relaxExitSlice, renameIterationLocalValues, resMIIOf, scheduleAt, sequentialLength, timingFromLatencyModel,
  type Ddg, type ModuloSchedule, type PipelineTiming,
} from './modulo.js';
import { blockOverride } from './unroll.js';
import { dropBranchesToNext, ensurePreheader } from './region.js';

/**
 * Phase 24 OriPipelining: latency classes (spec: sub_91A0F0's 13 classes) for targets without a LatencyModel,
 * pipe assignment, ResMII from the target's 7-entry pipe-width table, RecMII as the smallest II that satisfies
 * every loop-carried constraint (spec: "RecMII is effectively computed as the smallest II for which all
 * recurrence constraints are satisfiable"), the feasibility filter (spec: sub_9202D0), and modulo scheduling
 * with prologue, kernel and drains (modulo.ts). Every loop gets a remark: pipelined (II, stages) or why not.
 */

/** The spec's 13 latency classes. */
export const LATENCY_CLASSES = [1, 6, 7, 8, 9, 10, 11, 12, 14, 16, 20, 26, 31] as const;
export type LatencyClass = (typeof LATENCY_CLASSES)[number];

/** Pipe indexes of the 7-entry pipe-width table (spec: ALU FMA DFMA MMA LSU TEX BRA). */
export const PIPE = { ALU: 0, FMA: 1, DFMA: 2, MMA: 3, LSU: 4, TEX: 5, BRA: 6 } as const;

/** Classify an instruction (the spec's classifier works per operand; Ori's result operand decides here). */
export function latencyClass(i: Instr): LatencyClass {
  const info = i.info;
  if (!info) return 1;
  const op = i.opcode;
  if (info.category === 'texture') return 20;
  if (op === 'LDG' || op === 'LD' || op === 'LDL') return 26;
  if (op === 'LDC' || op === 'ULDC' || op === 'LDS') return 20;
  if (info.category === 'atomic') return 12;
  if (info.mayStore) return op === 'STG' && i.mods.some((m) => m === '64' || m === '128') ? 14 : 12;
  if (info.category === 'sync' || info.category === 'control') return op === 'BAR' || op === 'MEMBAR' ? 12 : 31;
  if (op.startsWith('D') && info.category === 'float') return op === 'DMUL' || op === 'DFMA' || op === 'DADD' ? 14 : 16;
  if (op === 'HMMA' || op === 'IMMA' || op === 'HGMMA') return 16;
  if (info.category === 'convert') return 9;
  if (op === 'MUFU') return 8;
  if (op === 'IMAD' || op === 'IMUL' || op === 'SHF' || op === 'SHL' || op === 'SHR' || op === 'IDIV' || op === 'IREM') return 10;
  if (op === 'LEA') return 11;
  if (info.category === 'float') return op.startsWith('H') ? 7 : 12;
  if (info.category === 'int' || info.category === 'logic' || info.category === 'move') return 6;
  return 6;
}

/** Pipe of a latency class (spec: "latency-to-pipe mapping via vtable+904"), clamped to the 7-entry table. */
export function pipeOf(i: Instr, cls: LatencyClass): number {
  const op = i.opcode;
  if (cls === 20) return PIPE.TEX;
  if (cls === 26 || cls === 14 || (cls === 12 && (i.info?.mayLoad || i.info?.mayStore || i.info?.category === 'atomic'))) return PIPE.LSU;
  if (cls === 16) return op === 'HMMA' || op === 'IMMA' || op === 'HGMMA' ? PIPE.MMA : PIPE.DFMA;
  if (cls === 31 || (cls === 12 && i.info?.category === 'sync')) return PIPE.BRA;
  if (cls === 12 || cls === 7 || cls === 8) return PIPE.FMA;
  return PIPE.ALU;
}

/** Cycles before a result may be read (a representative latency per class; the stall cap is 32 / 64). */
export function classLatency(cls: LatencyClass): number {
  switch (cls) {
    case 1: return 1;
    case 6: return 4;
    case 7: return 5;
    case 8: return 8;
    case 9: return 6;
    case 10: return 5;
    case 11: return 5;
    case 12: return 5;
    case 14: return 8;
    case 16: return 16;
    case 20: return 24;
    case 26: return 32;
    case 31: return 1;
  }
}


/** The spec's representative pipe widths (sm_80): ALU 4, FMA 4, DFMA 1, MMA 1, LSU 2, TEX 1, BRA 1. */
export const SM80_PIPE_WIDTHS: readonly number[] = [4, 4, 1, 1, 2, 1, 1];

/** Timing from the spec's latency classes (used when the target provides no LatencyModel). */
export function specTiming(widths: readonly number[] = SM80_PIPE_WIDTHS): PipelineTiming {
  return {
    widths,
    latency: (i) => Math.max(1, classLatency(latencyClass(i))),
    pipe: (i) => Math.min(6, pipeOf(i, latencyClass(i))),
  };
}

/** The timing phase 24 uses: the target's LatencyModel service when there is one, else the spec's tables. */
export function pipelineTiming(ctx: PhaseContext): PipelineTiming {
  const lm = ctx.tryService(LatencyModel);
  return lm ? timingFromLatencyModel(lm, (i) => pipeOf(i, latencyClass(i))) : specTiming();
}

export interface MiiResult {
  readonly resMII: number;
  readonly recMII: number;
  readonly mii: number;
  /** Cycles of one unpipelined iteration (intra-iteration critical path). */
  readonly sequential: number;
}

/** MII = max(ResMII, RecMII) of a straight-line body (no control flow). */
export function computeMII(body: readonly Instr[], timing: PipelineTiming | readonly number[]): MiiResult {
  const tm = Array.isArray(timing) ? specTiming(timing as readonly number[]) : (timing as PipelineTiming);
  const ddg = buildDdg(body, tm);
  const res = resMIIOf(body, tm);
  const rec = recMIIOf(ddg.n, ddg.edges);
  return { resMII: res, recMII: rec, mii: Math.max(res, rec), sequential: sequentialLength(ddg.n, ddg.edges, body, tm) };
}

/** Most stages a pipelined loop may have (the spec is silent; register pressure and code grow with them). */
export const MAX_PIPELINE_STAGES = 4;
/** Largest II worth pipelining, as a fraction of the unpipelined iteration length. */
export const MIN_PIPELINE_GAIN = 0.8;
/** Largest pipelined form (prologue + kernel copies + drains), in instructions (spec-silent code-size limit). */
export const MAX_PIPELINED_INSTRUCTIONS = 1200;

/** A single-block loop body (or a straight chain of blocks, as partial unrolling leaves): the instructions. */
export interface LoopShape {
  readonly body: Instr[];
  readonly backBranch: Instr;
  readonly exit: Block;
}

/** The straight-line body of a loop, or why it has none (spec: "Single-block loops only"). */
export function straightLineBody(loop: Loop): LoopShape | string {
  if (loop.children.length) return 'not an innermost loop';
  if (loop.latches.length !== 1) return `${loop.latches.length} back edges`;
  const latch = loop.latches[0]!;
  // Follow the chain header -> ... -> latch: each block's only successor is the next, each has one predecessor.
  const chain: Block[] = [loop.header];
  let b = loop.header;
  while (b !== latch) {
    if (b.succs.length !== 1 || !loop.blockSet.has(b.succs[0]!)) return 'multi-block loop body (only single-block loops are pipelined)';
    b = b.succs[0]!;
    if (b.preds.length !== 1 || chain.length > loop.blocks.length) return 'multi-block loop body (only single-block loops are pipelined)';
    chain.push(b);
  }
  if (chain.length !== loop.blocks.length) return 'multi-block loop body (only single-block loops are pipelined)';
  const body: Instr[] = [];
  let backBranch: Instr | undefined;
  let exit: Block | undefined;
  for (const blk of chain) {
    const n = blk.instrs.length;
    for (let k = 0; k < n; k++) {
      const i = blk.instrs[k]!;
      if (!i.isControlFlow) {
        body.push(i);
        continue;
      }
      const targets = i.labelTargets();
      if (blk !== latch) {
        // A chain block may end with an unconditional BRA to the next one.
        if (i.opcode === 'BRA' && !i.guard && k === n - 1 && targets.length === 1 && targets[0] === blk.succs[0]) continue;
        return `control flow inside the body (${i.fullOpcode})`;
      }
      if (i.opcode === 'BRA' && i.guard && targets.length === 1 && targets[0] === loop.header && !backBranch) {
        backBranch = i;
        continue;
      }
      if (i.opcode === 'BRA' && !i.guard && backBranch && k === n - 1 && targets.length === 1 && !loop.blockSet.has(targets[0]!)) {
        exit = targets[0];
        continue;
      }
      return `control flow inside the body (${i.fullOpcode})`;
    }
  }
  if (!backBranch) return 'the latch does not end with a conditional branch back to the header';
  if (!exit) {
    const next = latch.layoutNext;
    if (!latch.fallsThrough || !next || loop.blockSet.has(next)) return 'the latch does not leave the loop';
    exit = next;
  }
  if (backBranch !== latch.instrs[latch.bodyEnd]) return 'the back branch is not the first branch of the latch';
  return { body, backBranch, exit };
}

/** Feasibility filter (spec: sub_9202D0 returns 60 = reject): why an instruction cannot be pipelined. */
export function instructionInfeasible(i: Instr, multiOutputTex: boolean): string | undefined {
  const info = i.info;
  if (!info) return `unknown opcode ${i.fullOpcode}`;
  if (info.isCall) return `call ${i.fullOpcode} in the body`;
  if (info.isConvergent) return `warp-synchronous ${i.fullOpcode} in the body`;
  if (info.category === 'sync' || info.category === 'control') return `${i.fullOpcode} is on the control/barrier pipe`;
  if (pipeOf(i, latencyClass(i)) === PIPE.BRA && latencyClass(i) === 31) return `${i.fullOpcode} is on the control/barrier pipe`;
  if (info.category === 'texture' && i.defRegs().length > 1 && !multiOutputTex) return `multi-output texture ${i.fullOpcode} (PipelineMultiOutputTex off)`;
  return undefined;
}

/** Feasibility of a whole loop: a reason, or undefined. Kept for callers that only want the filter. */
export function pipelineInfeasible(loop: Loop, multiOutputTex = false): string | undefined {
  const shape = straightLineBody(loop);
  if (typeof shape === 'string') return shape;
  for (const i of shape.body) {
    const why = instructionInfeasible(i, multiOutputTex);
    if (why) return why;
  }
  return undefined;
}

export interface PipelineStats {
  pipelined: number;
  rejected: number;
}

/** The spec's feasibility code (sub_9202D0): 60 = reject. Other reasons carry no spec code. */
export const PIPELINE_REJECT_CODE = 60;

/**
 * Register-pressure estimate of a loop body before and after pipelining (R registers, 32-bit units). The spec
 * names no register gate for phase 24 (only PipelineHoistRRegPressureLimit, for hoisting), so this is ours:
 * - before: values used but not defined in the body (live through every iteration) plus the most body-defined
 *   values live at one point of the sequential iteration;
 * - after: the same live-through values plus MaxLive of the modulo schedule: a value with lifetime L cycles
 *   has floor(L / II) or ceil(L / II) instances live at each kernel slot (the overlapped stages), which is the
 *   fewest registers modulo variable expansion can use.
 */
export function estimatePipelinePressure(body: readonly Instr[], ddg: Ddg, s: Pick<ModuloSchedule, 'ii' | 't'>): { before: number; after: number } {
  const n = body.length;
  const w = (r: Register): number => (r.cls === 'R' ? r.width : 0);
  const defined = new Set<Register>();
  for (const i of body) for (const r of i.defRegs()) defined.add(r);
  const through = new Set<Register>();
  for (const i of body) for (const r of i.useRegs()) if (!defined.has(r)) through.add(r);
  let base = 0;
  for (const r of through) base += w(r);
  // Pinned (non-expanded) registers keep one name: live across the whole iteration either way.
  for (const r of ddg.pinned) base += w(r);
  const seq = new Array<number>(n + 1).fill(0);
  const ii = s.ii;
  const slot = new Array<number>(ii + 1).fill(0);
  let whole = 0;
  for (const v of ddg.expanded.values()) {
    const width = w(v.reg);
    if (!width) continue;
    // Sequential order: [def, use] within the iteration, or around the back edge for a previous-iteration read.
    let end = v.def;
    let wraps = -1;
    for (const u of v.uses) {
      if (u.dist === 0) end = Math.max(end, u.at);
      else wraps = Math.max(wraps, u.at);
    }
    if (wraps >= 0) {
      seq[v.def]! += width;
      seq[n]! -= width;
      seq[0]! += width;
      seq[wraps + 1]! -= width;
    } else {
      seq[v.def]! += width;
      seq[end + 1]! -= width;
    }
    // Modulo schedule: lifetime from issue of the def to the last read, reads of later iterations shifted by II.
    const td = s.t[v.def]!;
    let last = td + 1;
    for (const u of v.uses) last = Math.max(last, s.t[u.at]! + u.dist * ii);
    const L = last - td;
    whole += Math.floor(L / ii) * width;
    const rem = L % ii;
    if (rem) {
      const from = td % ii;
      const to = from + rem;
      slot[from]! += width;
      if (to <= ii) slot[to]! -= width;
      else {
        slot[ii]! -= width;
        slot[0]! += width;
        slot[to - ii]! -= width;
      }
    }
  }
  let cur = 0;
  let maxSeq = 0;
  for (let k = 0; k < n; k++) maxSeq = Math.max(maxSeq, (cur += seq[k]!));
  cur = 0;
  let maxMod = 0;
  for (let c = 0; c < ii; c++) maxMod = Math.max(maxMod, (cur += slot[c]!));
  return { before: base + maxSeq, after: base + whole + maxMod };
}

/** Limits of the phase-24 profitability gate (knobs PipelineRRegPressureLimit, PipelineExtraInstLimit). */
export interface PipelineLimits {
  /** Pipelining may raise the estimated R pressure only up to max(this, the unpipelined estimate); 0: no limit. */
  readonly regPressure: number;
  /** Most instructions the pipelined form may add to the body (prologue, kernel copies, drains); 0: no limit. */
  readonly extraInstructions: number;
}

export const NO_PIPELINE_LIMITS: PipelineLimits = { regPressure: 0, extraInstructions: 0 };

/** Search II from MII upward for a schedule within the stage, size and register-pressure limits. */
export function findSchedule(body: readonly Instr[], timing: PipelineTiming, exitCmp: number, limits: PipelineLimits = NO_PIPELINE_LIMITS): { mii: MiiResult; schedule?: ModuloSchedule; why?: string; pressure?: { before: number; after: number } } {
  const ddg = buildDdg(body, timing);
  relaxExitSlice(ddg, exitCmp);
  const res = resMIIOf(body, timing);
  const rec = recMIIOf(ddg.n, ddg.edges);
  const seq = sequentialLength(ddg.n, ddg.edges, body, timing);
  const mii: MiiResult = { resMII: res, recMII: rec, mii: Math.max(res, rec), sequential: seq };
  // Profitability (spec-silent): the prologue, drains and register copies pay off only when the iteration
  // gets clearly shorter, so II must be at most MIN_PIPELINE_GAIN of the unpipelined iteration.
  const limit = Math.floor(seq * MIN_PIPELINE_GAIN);
  let why = `no II in [${mii.mii}, ${limit}] is at most ${MIN_PIPELINE_GAIN * 100}% of the ${seq}-cycle unpipelined iteration`;
  for (let ii = mii.mii; ii <= limit; ii++) {
    const s = scheduleAt(body, ddg, timing, ii, exitCmp);
    if (!s) continue;
    if (s.stages === 1) return { mii, why: `the schedule at II ${ii} has one stage: nothing to overlap` };
    if (s.stages > MAX_PIPELINE_STAGES || s.mve > MAX_PIPELINE_STAGES + 1) {
      why = `every schedule below ${seq} cycles needs more than ${MAX_PIPELINE_STAGES} stages`;
      continue;
    }
    const size = pipelinedSize(s, body.length);
    if (size > MAX_PIPELINED_INSTRUCTIONS) {
      why = `the pipelined form would exceed ${MAX_PIPELINED_INSTRUCTIONS} instructions`;
      continue;
    }
    if (limits.extraInstructions > 0 && size - body.length > limits.extraInstructions) {
      // A larger II may need fewer stages, hence less code: keep searching.
      why = `the pipelined form (~${size} instructions) would add more than PipelineExtraInstLimit ${limits.extraInstructions} to the ${body.length}-instruction body`;
      continue;
    }
    const pressure = estimatePipelinePressure(body, ddg, s);
    if (limits.regPressure > 0 && pressure.after > Math.max(limits.regPressure, pressure.before)) {
      why = `estimated register pressure ${pressure.after} after pipelining (${pressure.before} before) exceeds PipelineRRegPressureLimit ${limits.regPressure}`;
      continue;
    }
    return { mii, schedule: s, pressure };
  }
  return { mii, why };
}

function loopLine(l: Loop): number | undefined {
  for (const b of l.blocks) for (const i of b.instrs) if (i.loc) return i.loc.line;
  return undefined;
}

/** Phase 24 on one function: every loop is pipelined or gets the reason it was not. */
export function pipelineFunction(ctx: PhaseContext, fn: OriFunction): PipelineStats {
  const timing = pipelineTiming(ctx);
  const okNoUnroll = ctx.knob<number>('OkToPipelineNoUnroll') !== 0;
  const multiOutputTex = ctx.knob<number>('PipelineMultiOutputTex') !== 0;
  const loopUnroll = ctx.knob<boolean>('LoopUnroll');
  const override = ctx.knob<string>('LoopUnrollBlockOverride');
  const limits: PipelineLimits = { regPressure: ctx.knob<number>('PipelineRRegPressureLimit'), extraInstructions: ctx.knob<number>('PipelineExtraInstLimit') };
  const stats: PipelineStats = { pipelined: 0, rejected: 0 };
  const reconvergence = new Set<Block>();
  for (const b of fn.blocks) for (const i of b.instrs) if (i.opcode === 'BSSY') for (const t of i.labelTargets()) reconvergence.add(t);
  // Liveness of the original registers at loop exits (pipelining one loop does not change it at another's).
  let live = computeLiveness(fn);
  const done = new Set<Block>();
  for (;;) {
    const loops = ctx.analysis(fn, LoopAnalysis);
    const loop = loops.all.find((l) => !done.has(l.header));
    if (!loop) break;
    done.add(loop.header);
    const line = loopLine(loop);
    const base = { fn: fn.name, block: loop.header.label, ...(line !== undefined ? { line } : {}) };
    const reject = (why: string, code?: number, extra: Record<string, number> = {}): void => {
      stats.rejected++;
      ctx.remark({
        kind: 'missed', name: 'LoopNotPipelined', ...base, message: `not pipelined: ${why}`,
        args: { reason: why, ...(code !== undefined ? { code } : {}), ...extra },
      });
    };
    // Gate (spec knob OkToPipelineNoUnroll): a loop whose unrolling was suppressed is not pipelined either.
    const suppressed = loop.header.attrs.has('nounroll') ? 'PTX .pragma "nounroll"' : !loopUnroll ? 'LoopUnroll off' : blockOverride(override, loop.header) === 'skip' ? 'per-block unroll override' : undefined;
    if (suppressed && !okNoUnroll) {
      reject(`unrolling was suppressed (${suppressed}) and OkToPipelineNoUnroll is 0`);
      continue;
    }
    if (reconvergence.has(loop.header)) {
      reject('the loop header is a convergence point (BSSY target)');
      continue;
    }
    const shape = straightLineBody(loop);
    if (typeof shape === 'string') {
      reject(shape);
      continue;
    }
    let infeasible: string | undefined;
    for (const i of shape.body) if ((infeasible = instructionInfeasible(i, multiOutputTex))) break;
    if (infeasible) {
      reject(infeasible, PIPELINE_REJECT_CODE);
      continue;
    }
    const g = shape.backBranch.guard!;
    const defs = shape.body.map((i, k) => [i, k] as const).filter(([i]) => i.definesReg(g.reg));
    if (defs.length !== 1 || defs[0]![0].guard) {
      reject(`the loop condition ${g.reg.name} is not computed once per iteration by an unguarded instruction`);
      continue;
    }
    const exitCmp = defs[0]![1];
    // Values that die inside the iteration (unrolled copies reuse registers) get their own names first.
    const body = renameIterationLocalValues(fn, shape.body);
    const found = findSchedule(body, timing, exitCmp, limits);
    const m = found.mii;
    const miiArgs = { ii: m.mii, resMII: m.resMII, recMII: m.recMII, sequential: m.sequential };
    if (!found.schedule) {
      reject(`${found.why} (MII ${m.mii}: ResMII ${m.resMII}, RecMII ${m.recMII})`, undefined, miiArgs);
      continue;
    }
    const s = found.schedule;
    const pre = ensurePreheaderFor(fn, loop);
    const liveOut = new Set<Register>();
    const ddg = buildDdg(body, timing);
    // An exit made after the liveness was computed (another loop's new preheader): compute it again.
    if (!live.liveIn.has(shape.exit)) live = computeLiveness(fn);
    for (const r of ddg.expanded.keys()) if (live.isLiveIn(shape.exit, r)) liveOut.add(r);
    const made = emitPipelined(fn, { body, cont: g, exitCmp, preheader: pre, exit: shape.exit, liveOut }, ddg, s);
    fn.redirectEdge(pre, loop.header, made[0]!);
    fn.removeBlocks(loop.blocks);
    dropBranchesToNext(fn, [pre, ...made]);
    for (const b of made) done.add(b);
    ctx.invalidate(fn, 'none');
    stats.pipelined++;
    ctx.remark({
      kind: 'passed', name: 'LoopPipelined', ...base,
      message: `loop software-pipelined: II ${s.ii} (ResMII ${m.resMII}, RecMII ${m.recMII}; ${m.sequential} cycles unpipelined), ${s.stages} stages, kernel unrolled ${s.mve}x for modulo variable expansion`,
      args: { ii: s.ii, resMII: m.resMII, recMII: m.recMII, stages: s.stages, mve: s.mve, sequential: m.sequential, regPressureBefore: found.pressure!.before, regPressureAfter: found.pressure!.after },
    });
  }
  return stats;
}

function ensurePreheaderFor(fn: OriFunction, loop: Loop): Block {
  const pre = ensurePreheader(fn, loop.header, loop.blockSet);
  fn.materializeFallthrough(pre);
  return pre;
}
