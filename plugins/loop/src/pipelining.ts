import { LoopAnalysis, type Instr, type Loop, type OriFunction, type PhaseContext } from '@ptxforge/kernel';

/**
 * Phase 24 OriPipelining, the analysis half: latency classes (spec: sub_91A0F0's 13 classes), pipe assignment,
 * ResMII from the target's 7-entry pipe-width table, RecMII as the smallest II that satisfies every
 * loop-carried constraint (spec: "RecMII is effectively computed as the smallest II for which all recurrence
 * constraints are satisfiable"), and the feasibility filter (spec: sub_9202D0). The modulo-scheduled loop
 * transformation (prolog/kernel/epilog emission) is NOT implemented: every loop gets a remark saying why it
 * was not pipelined, with its MII.
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

export interface MiiResult {
  readonly resMII: number;
  readonly recMII: number;
  readonly mii: number;
  /** Stages a schedule at MII would need: ceil(critical path / MII). */
  readonly stages: number;
}

/** ResMII = ceil(max over pipes of count / width) (spec: ComputeResMII, uniform cost 1.0 per instruction). */
export function resMII(body: readonly Instr[], pipeWidths: readonly number[]): number {
  const counts = new Array<number>(7).fill(0);
  for (const i of body) counts[Math.min(6, pipeOf(i, latencyClass(i)))]! += 1;
  let m = 0;
  counts.forEach((c, p) => (m = Math.max(m, c / (pipeWidths[p] ?? 1))));
  return Math.max(1, Math.ceil(m));
}

interface Edge { from: number; to: number; lat: number; dist: number }

/** Register dependences of a single-block body: intra-iteration (distance 0) and loop-carried (distance 1). */
export function dependenceEdges(body: readonly Instr[]): Edge[] {
  const edges: Edge[] = [];
  const lastDef = new Map<unknown, number>();
  const firstUse = new Map<unknown, number[]>();
  body.forEach((i, k) => {
    for (const r of i.useRegs()) {
      const d = lastDef.get(r);
      if (d !== undefined) edges.push({ from: d, to: k, lat: classLatency(latencyClass(body[d]!)), dist: 0 });
      else {
        const l = firstUse.get(r) ?? [];
        l.push(k);
        firstUse.set(r, l);
      }
    }
    for (const r of i.defRegs()) lastDef.set(r, k);
  });
  // Reads before the block's def of a register see the previous iteration's last def.
  for (const [r, uses] of firstUse) {
    const d = lastDef.get(r);
    if (d === undefined) continue;
    for (const u of uses) edges.push({ from: d, to: u, lat: classLatency(latencyClass(body[d]!)), dist: 1 });
  }
  return edges;
}

/** Whether II satisfies every constraint t(to) >= t(from) + lat - II*dist (no positive cycle; Bellman-Ford). */
function feasibleII(n: number, edges: readonly Edge[], ii: number): boolean {
  const t = new Array<number>(n).fill(0);
  for (let round = 0; round <= n; round++) {
    let changed = false;
    for (const e of edges) {
      const v = t[e.from]! + e.lat - ii * e.dist;
      if (v > t[e.to]!) {
        t[e.to] = v;
        changed = true;
      }
    }
    if (!changed) return true;
  }
  return false;
}

export function recMII(body: readonly Instr[]): number {
  const edges = dependenceEdges(body);
  if (!edges.some((e) => e.dist > 0)) return 1;
  let hi = 1;
  for (const e of edges) hi += e.lat;
  let lo = 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (feasibleII(body.length, edges, mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

export function computeMII(body: readonly Instr[], pipeWidths: readonly number[]): MiiResult {
  const res = resMII(body, pipeWidths);
  const rec = recMII(body);
  const mii = Math.max(res, rec);
  // Critical path of one iteration (intra-iteration edges) gives the number of II-long stages.
  const edges = dependenceEdges(body).filter((e) => e.dist === 0);
  const start = new Array<number>(body.length).fill(0);
  for (const e of edges.sort((a, b) => a.to - b.to)) start[e.to] = Math.max(start[e.to]!, start[e.from]! + e.lat);
  let len = 1;
  body.forEach((i, k) => (len = Math.max(len, start[k]! + classLatency(latencyClass(i)))));
  return { resMII: res, recMII: rec, mii, stages: Math.max(1, Math.ceil(len / mii)) };
}

/** Feasibility filter: why a loop cannot be modulo scheduled, or undefined (spec: sub_9202D0 and the gates). */
export function pipelineInfeasible(loop: Loop): string | undefined {
  if (loop.blocks.length !== 1) return 'multi-block loop body (only single-block loops are pipelined)';
  for (const i of loop.header.instrs) {
    if (i.isControlFlow && i !== loop.header.instrs[loop.header.instrs.length - 1]) return `control flow inside the body (${i.fullOpcode})`;
    const cls = latencyClass(i);
    if (!i.isControlFlow && pipeOf(i, cls) === PIPE.BRA) return `${i.fullOpcode} is on the control/barrier pipe`;
    if (i.info?.isConvergent) return `warp-synchronous ${i.fullOpcode} in the body`;
  }
  return undefined;
}

export function pipelineFunction(ctx: PhaseContext, fn: OriFunction): number {
  const loops = ctx.analysis(fn, LoopAnalysis);
  let n = 0;
  for (const loop of loops.all) {
    n++;
    const line = loop.header.instrs.find((i) => i.loc)?.loc?.line;
    const why = pipelineInfeasible(loop);
    const base = { fn: fn.name, block: loop.header.label, ...(line !== undefined ? { line } : {}) };
    if (why) {
      ctx.remark({ kind: 'missed', name: 'LoopNotPipelined', ...base, message: `not pipelined: ${why}`, args: { reason: why } });
      continue;
    }
    const body = loop.header.instrs.filter((i) => !i.isControlFlow);
    const m = computeMII(body, ctx.target.pipeWidths);
    ctx.remark({
      kind: 'missed', name: 'LoopNotPipelined', ...base,
      message: `not pipelined: modulo-schedule emission is not implemented (II would be ${m.mii}: ResMII ${m.resMII}, RecMII ${m.recMII}; ${m.stages} stages)`,
      args: { reason: 'not implemented', ii: m.mii, resMII: m.resMII, recMII: m.recMII, stages: m.stages },
    });
  }
  return n;
}
