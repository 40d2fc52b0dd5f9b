import {
  latencyTableFor, prepareHazardCheck,
  type ControlInfo, type Hazard, type HazardFunction, type HazardRecord, type LatencyTable, type PreparedHazardCheck,
} from '@ptxforge/sass-hazards';

/**
 * The scoreboard generator (AdvancedScoreboardsAndOpexes, phase 115): for a function of Volta+ SASS in address
 * order, choose every instruction's control information — stall count, write and read scoreboards among the six
 * barriers, wait mask — so that the hazard checker, which models the target's fixed latencies and
 * variable-latency queues, finds nothing.
 *
 * Method. 1: every variable-latency result gets a write scoreboard and every late-read source of an instruction
 * without results a read scoreboard, the six barriers handed out least recently used first (waiting on a barrier
 * waits for every operation that set it, so the oldest one is the cheapest to share). 2: the checker is the
 * oracle: each hazard it reports is repaired where it is reported — a missing wait adds that barrier to the
 * consumer's wait mask, a short stall adds the missing cycles to the instruction(s) that issue right before the
 * consumer (spilling backwards past the 15-cycle field) — until it reports none. Repairs only ever add waits and
 * cycles, so the loop ends; in practice in two or three rounds. Stall cycles therefore come from the latency table
 * where a consumer needs them, not from maximal stalls everywhere.
 */
export interface ScoreboardOptions {
  /** Selects the latency table (sm_75 .. sm_90). */
  readonly arch: string;
  /** A target's LatencyModel table instead of the built-in one for `arch`. */
  readonly table?: LatencyTable;
  /** Repair rounds before giving up (default 16). */
  readonly maxRounds?: number;
}

export interface ScoreboardResult {
  /** One control record per instruction, in order. */
  readonly control: ControlInfo[];
  readonly rounds: number;
  /** Hazards that could not be repaired (a latency longer than the instructions between writer and reader can
   * hold without inserting NOPs); empty on success. */
  readonly unresolved: Hazard[];
  /** Sum of the stall counts (each instruction at least one cycle). */
  readonly stallCycles: number;
  /** How many instructions wait on some barrier. */
  readonly waits: number;
}

const NUM_BARRIERS = 6;
const MAX_STALL = 15;

/** Sum of max(1, stall): the issue cycles a straight walk through the function costs. */
export function stallCycles(control: readonly ControlInfo[]): number {
  let n = 0;
  for (const c of control) n += Math.max(1, c.stall);
  return n;
}

/** Control-flow predecessors of every instruction (by index), from direct branch targets and fall-through. */
function predecessors(fn: HazardFunction): number[][] {
  const n = fn.instrs.length;
  const index = new Map<number, number>();
  fn.instrs.forEach((ins, i) => index.set(ins.addr, i));
  const preds: number[][] = Array.from({ length: n }, () => []);
  for (let i = 0; i < n; i++) {
    const ins = fn.instrs[i]!;
    const op = ins.opcode;
    const uncond = !ins.guard || (ins.guard.index === 7 && !ins.guard.negated);
    const ends = uncond && (op === 'BRA' || op === 'JMP' || op === 'EXIT' || op === 'RET' || op === 'BRX' || op === 'JMX' || op === 'KILL');
    if (!ends && i + 1 < n) preds[i + 1]!.push(i);
    if (op === 'BRA' || op === 'JMP') {
      const targets = ins.branchTarget !== undefined ? [ins.branchTarget] : ins.operands.filter((o) => o.kind === 'label' && o.target !== undefined).map((o) => o.target!);
      for (const t of targets) {
        const j = index.get(t);
        if (j !== undefined && !preds[j]!.includes(i)) preds[j]!.push(i);
      }
    }
    if (op === 'BRX' || op === 'JMX') {
      for (const t of fn.indirectTargets ?? []) {
        const j = index.get(t);
        if (j !== undefined && !preds[j]!.includes(i)) preds[j]!.push(i);
      }
    }
  }
  return preds;
}

/** Least-recently-assigned barrier first. */
class BarrierPool {
  private readonly lastUse = new Array<number>(NUM_BARRIERS).fill(-1);
  private clock = 0;
  take(): number {
    let best = 0;
    for (let b = 1; b < NUM_BARRIERS; b++) if (this.lastUse[b]! < this.lastUse[best]!) best = b;
    this.lastUse[best] = this.clock++;
    return best;
  }
}

function initialControl(fn: HazardFunction, decoded: PreparedHazardCheck): ControlInfo[] {
  const pool = new BarrierPool();
  return fn.instrs.map((_, i) => {
    const c: ControlInfo = { stall: 1, yield: false, wbar: null, rbar: null, waitMask: 0, reuse: 0 };
    // the checker's decoding (opTiming and instrRoles of the instruction)
    const timing = decoded.timing(i);
    if (timing.kind !== 'variable') return c;
    const roles = decoded.roles(i);
    const hasDefs = roles.defs.some((d) => !(d.reg.file === 'B'));
    if (hasDefs) c.wbar = pool.take();
    // Sources read late (memory operands, store data) must not be overwritten before they are read; with a write
    // scoreboard the checker releases them with it.
    else if (timing.lateRead && roles.uses.some((u) => u.reg.file === 'R')) c.rbar = pool.take();
    return c;
  });
}

/**
 * Add `cycles` issue cycles between the instructions that reach `i` and `i`: on each predecessor, up to the
 * 15-cycle field, the rest on the instruction before it when that one only falls through into it.
 */
function addStall(control: ControlInfo[], preds: readonly number[][], i: number, cycles: number, floor: number): boolean {
  let ok = true;
  for (const p0 of preds[i]!) {
    let p = p0;
    let left = cycles;
    while (left > 0) {
      const c = control[p]!;
      const room = MAX_STALL - Math.max(1, c.stall);
      const add = Math.min(room, left);
      if (add > 0) {
        c.stall = Math.max(1, c.stall) + add;
        left -= add;
      }
      if (left === 0) break;
      // spill onto the single straight-line predecessor, not past the writer
      const pp = preds[p]!;
      if (pp.length !== 1 || pp[0] !== p - 1 || p - 1 < floor) {
        ok = false;
        break;
      }
      p = p - 1;
    }
  }
  return ok;
}

/** Generate control information for every instruction of `fn` (its present control bits are ignored). */
export function generateScoreboards(fn: HazardFunction, opts: ScoreboardOptions): ScoreboardResult {
  const t = opts.table ?? latencyTableFor(opts.arch);
  const maxRounds = opts.maxRounds ?? 16;
  // decoded once; each round checks the current control words (no slack histogram: only hazards matter here)
  const checker = prepareHazardCheck(fn, { arch: opts.arch, table: t, slack: false });
  const control = initialControl(fn, checker);
  const preds = predecessors(fn);
  const index = new Map<number, number>();
  fn.instrs.forEach((ins, i) => index.set(ins.addr, i));
  const pool = new BarrierPool();
  let rounds = 0;
  let hazards: HazardRecord[] = [];
  const stuck = new Set<string>();
  for (; rounds < maxRounds; rounds++) {
    // the checker's compact records (what is missing as a code and numbers), in the order of its report
    hazards = checker.findHazards(control);
    if (hazards.length === 0) break;
    let repaired = false;
    // Per consumer the largest stall deficit (several writers may be short at one reader).
    const deficit = new Map<number, { cycles: number; floor: number }>();
    for (const h of hazards) {
      const i = index.get(h.addr);
      const w = index.get(h.firstAddr);
      if (i === undefined || w === undefined) continue;
      switch (h.missing) {
        case 'stall':
        case 'stall-read': {
          const need = h.b - h.a;
          const d = deficit.get(i);
          if (!d || d.cycles < need) deficit.set(i, { cycles: need, floor: w });
          break;
        }
        case 'wait': {
          const bit = 1 << h.a;
          if ((control[i]!.waitMask & bit) === 0) {
            control[i]!.waitMask |= bit;
            repaired = true;
          }
          break;
        }
        case 'write-sb-none':
        case 'write-sb-on':
          if (control[w]!.wbar === null) {
            control[w]!.wbar = pool.take();
            repaired = true;
          }
          break;
        case 'read-sb':
          if (control[w]!.rbar === null) {
            control[w]!.rbar = pool.take();
            repaired = true;
          }
          break;
        case 'reuse':
          control[i]!.reuse = 0;
          repaired = true;
          break;
      }
    }
    for (const [i, d] of deficit) {
      const key = `${i}:${d.cycles}`;
      if (addStall(control, preds, i, d.cycles, d.floor)) repaired = true;
      else if (!stuck.has(key)) {
        stuck.add(key);
        repaired = true;
      }
    }
    if (!repaired) break;
  }
  if (rounds === maxRounds) hazards = checker.findHazards(control);
  const unresolved: Hazard[] = checker.describe(hazards);
  return {
    control,
    rounds: rounds + 1,
    unresolved,
    stallCycles: stallCycles(control),
    waits: control.filter((c) => c.waitMask !== 0).length,
  };
}
