import { Instr, label, reg, PT, imm, PIPE_NAMES, type Block, type LatencyModel, type Operand, type OriFunction, type Register } from '@ptxforge/kernel';
import { hasObservableEffect } from '@ptxforge/opt-utils';

/**
 * The modulo scheduler and code generator of phase 24 OriPipelining (spec: ptxas-loop-passes.txt, "Phase 24 --
 * OriPipelining", Phases 1-3 of the algorithm and the post-RA variant's placement rule).
 *
 *  - DDG: one node per body instruction; edges carry (latency, distance). Flow edges get the producer's latency
 *    from the target's LatencyModel; anti, output and memory-order edges 1 cycle, so that every edge orders two
 *    instances strictly in time and emitting instances by time keeps every dependence.
 *  - Registers with one unguarded def in the body are renamed by modulo variable expansion (K copies, the
 *    kernel unrolled K times); the others stay "pinned" and carry the full flow/anti/output chain.
 *  - II search from MII = max(ResMII, RecMII) upward (spec: "If no valid placement exists at the current II, II
 *    is incremented and the MRT is rebuilt"), placement against a modulo reservation table sized by the
 *    target's 7-entry pipe-width table.
 *  - The exit test must be in stage 0, because the kernel's branch decides whether the next iteration starts.
 *  - Code: prologue rows with an exit test each, K kernel rows, one drain per exit point (the rows that
 *    complete the iterations in flight), copies into the original registers for live-out values.
 */

/** Latencies and pipes the scheduler uses, read from the target (LatencyModel) or the spec's class tables. */
export interface PipelineTiming {
  readonly widths: readonly number[];
  /** Cycles before a dependent instruction may read the result (at least 1). */
  latency(i: Instr): number;
  /** Index into the 7-entry pipe-width table. */
  pipe(i: Instr): number;
  /** Cycles from `writer` until `reader` may read its result, where the target knows the pair (else latency). */
  edgeLatency?(writer: Instr, reader: Instr): number | undefined;
}

/**
 * Cycles assumed for variable-latency results (waited for by scoreboard): representative waits below the
 * spec's stall caps (sub_91E900: 32 cycles, 64 on the long-latency pipe). The spec gives classes, not cycles.
 */
export const VARIABLE_LATENCY_CYCLES: Readonly<Record<string, number>> = {
  memory: 32, texture: 32, shared: 20, transcendental: 16, double: 16, barrier: 1, misc: 12,
};

export function timingFromLatencyModel(lm: LatencyModel, fallbackPipe: (i: Instr) => number): PipelineTiming {
  const pipeIndex = new Map<string, number>(PIPE_NAMES.map((n, k) => [n, k] as const));
  return {
    widths: lm.pipeWidths,
    latency(i) {
      const f = lm.fixedLatency(i.opcode);
      if (f !== undefined) return Math.max(1, f);
      const v = lm.variableLatency(i.opcode);
      return Math.max(1, v ? VARIABLE_LATENCY_CYCLES[v] ?? 12 : 1);
    },
    // The machine table's writer/reader-class latency where the target has one (fixed-latency results only).
    ...(lm.operandLatency ? { edgeLatency: (w: Instr, r: Instr) => lm.operandLatency!({ opcode: w.opcode, mods: w.mods }, { opcode: r.opcode, mods: r.mods }) } : {}),
    pipe(i) {
      const p = lm.pipe(i.opcode);
      // No column in the table (MUFU's XU, pseudo-ops): the spec's class-to-pipe map, clamped to 7 entries.
      return p !== undefined ? pipeIndex.get(p)! : Math.min(6, fallbackPipe(i));
    },
  };
}

export interface DepEdge {
  readonly from: number;
  readonly to: number;
  lat: number;
  readonly dist: number;
  readonly kind: 'flow' | 'anti' | 'output' | 'mem';
}

/** How a register defined in the body is handled. */
export interface ExpandedReg {
  readonly reg: Register;
  /** The one (unguarded) defining instruction. */
  readonly def: number;
  /** Reads: instruction index and iteration distance (0: reads this iteration's value, 1: the previous one). */
  readonly uses: Array<{ at: number; dist: number }>;
}

export interface Ddg {
  readonly n: number;
  readonly edges: DepEdge[];
  readonly preds: DepEdge[][];
  readonly expanded: Map<Register, ExpandedReg>;
  readonly pinned: Set<Register>;
}

interface Access {
  readonly at: number;
  readonly read: boolean;
  readonly write: boolean;
}

/** Registers MVE may copy: 32/64-bit GPRs (MOV) and predicates (PLOP3). */
export function copyableRegister(r: Register): boolean {
  return (r.cls === 'R' && (r.width === 1 || r.width === 2)) || (r.cls === 'P' && r.width === 1);
}

/** A copy instruction `dst = src` for a copyable register class. */
export function copyInstr(dst: Register, src: Register): Instr {
  if (dst.cls === 'P') return new Instr('PLOP3', { mods: ['LUT'], defs: [reg(dst)], uses: [reg(src), PT, PT, imm(0xf0), imm(0)] });
  return new Instr('MOV', { defs: [reg(dst)], uses: [reg(src)] });
}

/**
 * Add the edges of one ordered resource (a pinned register, or memory): flow from the reaching write, anti to
 * the next write, output between consecutive writes; wrap-around edges carry distance 1.
 */
function chainEdges(acc: readonly Access[], flowLat: (w: number, r: number) => number, kind: 'pin' | 'mem', out: DepEdge[]): void {
  const writes = acc.filter((a) => a.write).map((a) => a.at);
  if (!writes.length) return;
  let wi = 0; // writes[wi-1] is the last write strictly before the current access
  for (const a of acc) {
    while (wi < writes.length && writes[wi]! < a.at) wi++;
    if (a.read) {
      const prevW = wi > 0 ? { at: writes[wi - 1]!, dist: 0 } : { at: writes[writes.length - 1]!, dist: 1 };
      out.push({ from: prevW.at, to: a.at, lat: flowLat(prevW.at, a.at), dist: prevW.dist, kind: kind === 'mem' ? 'mem' : 'flow' });
      // Next write strictly after this access (an instruction that reads and writes reads first).
      let nj = wi;
      while (nj < writes.length && writes[nj]! <= a.at) nj++;
      const nextW = nj < writes.length ? { at: writes[nj]!, dist: 0 } : { at: writes[0]!, dist: 1 };
      if (!(nextW.at === a.at && nextW.dist === 1 && a.write)) out.push({ from: a.at, to: nextW.at, lat: 1, dist: nextW.dist, kind: kind === 'mem' ? 'mem' : 'anti' });
    }
  }
  for (let k = 0; k + 1 < writes.length; k++) out.push({ from: writes[k]!, to: writes[k + 1]!, lat: 1, dist: 0, kind: kind === 'mem' ? 'mem' : 'output' });
  if (writes.length > 1) out.push({ from: writes[writes.length - 1]!, to: writes[0]!, lat: 1, dist: 1, kind: kind === 'mem' ? 'mem' : 'output' });
}

/** Whether an instruction reads memory only (loads may pass each other; stores and effects are ordered). */
function memoryAccess(i: Instr): { read: boolean; write: boolean } | undefined {
  const info = i.info;
  const effect = hasObservableEffect(i) && !i.isControlFlow;
  if (effect || info?.mayStore || info?.category === 'atomic') return { read: true, write: true };
  // Read-only data (ld.global.nc / constant space: LDG.CONSTANT, LDC) is never written while the kernel runs,
  // so such loads need no order against stores.
  if (i.opcode === 'LDC' || i.opcode === 'ULDC' || i.mods.includes('CONSTANT')) return undefined;
  if (info?.mayLoad) return { read: true, write: false };
  return undefined;
}

/** Build the DDG of a straight-line loop body (no control flow). */
export function buildDdg(body: readonly Instr[], timing: PipelineTiming): Ddg {
  const n = body.length;
  const acc = new Map<Register, Access[]>();
  const memAcc: Access[] = [];
  body.forEach((i, k) => {
    const reads = new Set(i.useRegs());
    const writes = new Set(i.defRegs());
    // A guarded def keeps the old value when the guard is false: it reads the register too.
    if (i.guard) for (const w of writes) reads.add(w);
    const touched = new Set<Register>([...reads, ...writes]);
    for (const r of touched) {
      let l = acc.get(r);
      if (!l) acc.set(r, (l = []));
      l.push({ at: k, read: reads.has(r), write: writes.has(r) });
    }
    const m = memoryAccess(i);
    if (m) memAcc.push({ at: k, ...m });
  });
  const edges: DepEdge[] = [];
  const expanded = new Map<Register, ExpandedReg>();
  const pinned = new Set<Register>();
  const lat = (k: number): number => timing.latency(body[k]!);
  const flowLat = (w: number, r: number): number => Math.max(1, timing.edgeLatency?.(body[w]!, body[r]!) ?? lat(w));
  for (const [r, l] of acc) {
    const writes = l.filter((a) => a.write);
    if (!writes.length) continue; // loop-invariant
    const w0 = writes[0]!;
    const single = writes.length === 1 && !body[w0.at]!.guard && body[w0.at]!.defRegs().filter((d) => d === r).length === 1;
    if (single && copyableRegister(r)) {
      const uses = l.filter((a) => a.read).map((a) => ({ at: a.at, dist: w0.at < a.at ? 0 : 1 }));
      expanded.set(r, { reg: r, def: w0.at, uses });
      for (const u of uses) edges.push({ from: w0.at, to: u.at, lat: flowLat(w0.at, u.at), dist: u.dist, kind: 'flow' });
    } else {
      pinned.add(r);
      chainEdges(l, flowLat, 'pin', edges);
    }
  }
  chainEdges(memAcc, () => 1, 'mem', edges);
  const preds: DepEdge[][] = Array.from({ length: n }, () => []);
  for (const e of edges) preds[e.to]!.push(e);
  return { n, edges, preds, expanded, pinned };
}

/** ResMII = ceil(max over pipes of count / width) (spec: ComputeResMII, uniform cost 1.0 per instruction). */
export function resMIIOf(body: readonly Instr[], timing: PipelineTiming): number {
  const counts = new Array<number>(7).fill(0);
  for (const i of body) counts[Math.min(6, timing.pipe(i))]! += 1;
  let m = 0;
  counts.forEach((c, p) => (m = Math.max(m, c / (timing.widths[p] ?? 1))));
  return Math.max(1, Math.ceil(m));
}

/** Whether II satisfies every constraint t(to) >= t(from) + lat - II*dist (no positive cycle; Bellman-Ford). */
export function satisfiesRecurrences(n: number, edges: readonly DepEdge[], ii: number): boolean {
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

/** RecMII: the smallest II satisfying all loop-carried constraints (spec: RecMII "effectively computed as"). */
export function recMIIOf(n: number, edges: readonly DepEdge[]): number {
  if (!edges.some((e) => e.dist > 0)) return 1;
  let hi = 1;
  for (const e of edges) hi += e.lat;
  let lo = 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (satisfiesRecurrences(n, edges, mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Cycles one iteration takes unpipelined: the critical path of the intra-iteration edges. */
export function sequentialLength(n: number, edges: readonly DepEdge[], body: readonly Instr[], timing: PipelineTiming): number {
  const start = new Array<number>(n).fill(0);
  const fwd = edges.filter((e) => e.dist === 0).sort((a, b) => a.to - b.to || a.from - b.from);
  for (const e of fwd) start[e.to] = Math.max(start[e.to]!, start[e.from]! + e.lat);
  let len = 1;
  for (let k = 0; k < n; k++) len = Math.max(len, start[k]! + timing.latency(body[k]!));
  return len;
}

export interface ModuloSchedule {
  readonly ii: number;
  /** Issue cycle of each body instruction within its iteration (stage = floor(t / II)). */
  readonly t: readonly number[];
  readonly stages: number;
  /** Kernel copies for modulo variable expansion. */
  readonly mve: number;
}

/**
 * Place the body at a given II (spec: the placement rule of sub_8B9390: earliest slot = pred.time + L - D*II,
 * then a free slot in the modulo reservation table), or undefined when some constraint fails at this II.
 */
export function scheduleAt(body: readonly Instr[], ddg: Ddg, timing: PipelineTiming, ii: number, exitCmp: number): ModuloSchedule | undefined {
  const n = body.length;
  const t = new Array<number | undefined>(n).fill(undefined);
  const mrt = new Array<number>(ii * 7).fill(0);
  for (let x = 0; x < n; x++) {
    let est = 0;
    for (const e of ddg.preds[x]!) {
      const tf = t[e.from];
      if (tf !== undefined) est = Math.max(est, tf + e.lat - e.dist * ii);
    }
    const p = Math.min(6, timing.pipe(body[x]!));
    const width = Math.max(1, timing.widths[p] ?? 1);
    let placed = false;
    for (let s = est; s < est + ii; s++) {
      const slot = (s % ii) * 7 + p;
      if (mrt[slot]! < width) {
        mrt[slot]!++;
        t[x] = s;
        placed = true;
        break;
      }
    }
    if (!placed) return undefined;
  }
  const tt = t as number[];
  for (const e of ddg.edges) if (tt[e.to]! + e.dist * ii < tt[e.from]! + e.lat) return undefined;
  if (tt[exitCmp]! >= ii) return undefined;
  let last = 0;
  for (const v of tt) last = Math.max(last, v);
  const stages = Math.floor(last / ii) + 1;
  // MVE: a value must not be overwritten by the def K iterations later before its last read.
  let mve = 1;
  for (const x of ddg.expanded.values()) {
    for (const u of x.uses) {
      const k = u.at === x.def ? u.dist : Math.floor((u.dist * ii + tt[u.at]! - tt[x.def]!) / ii) + 1;
      mve = Math.max(mve, k);
    }
  }
  return { ii, t: tt, stages, mve };
}

/** The dist-0 backward slice of the exit compare: order-only (latency 1) edges so the test fits stage 0. */
export function relaxExitSlice(ddg: Ddg, exitCmp: number): void {
  const inSlice = new Array<boolean>(ddg.n).fill(false);
  inSlice[exitCmp] = true;
  for (let x = exitCmp; x >= 0; x--) {
    if (!inSlice[x]) continue;
    for (const e of ddg.preds[x]!) if (e.dist === 0) inSlice[e.from] = true;
  }
  for (const e of ddg.edges) if (e.dist === 0 && inSlice[e.to]) e.lat = 1;
}

// ---- code generation ----------------------------------------------------------------------------------

export interface PipelineShape {
  readonly body: readonly Instr[];
  /** Guard of the back branch: the loop continues when it holds. */
  readonly cont: { readonly reg: Register; readonly not: boolean };
  readonly exitCmp: number;
  readonly preheader: Block;
  readonly exit: Block;
  /** Registers live into the exit block (values the code after the loop reads). */
  readonly liveOut: ReadonlySet<Register>;
}

/** Instructions the pipelined form will have (prologue + kernel + drains + copies), for the size limit. */
export function pipelinedSize(s: ModuloSchedule, n: number): number {
  const S = s.stages;
  // Prologue row r holds stages 0..r: about (r+1)/S of the body; each drain about half the body per row.
  const prologue = Math.ceil((n * (S - 1) * S) / (2 * S));
  const kernel = n * s.mve;
  const drains = (S - 1 + s.mve) * Math.ceil((n * (S - 1)) / 2);
  return prologue + kernel + drains;
}

/**
 * Replace the loop by its software-pipelined form. The body's instances (x, i) are emitted in time order
 * T = i*II + t(x): row q holds stage s of iteration q - s. Returns the new blocks.
 */
export function emitPipelined(fn: OriFunction, shape: PipelineShape, ddg: Ddg, s: ModuloSchedule): Block[] {
  const { body, preheader: pre, exit } = shape;
  const n = body.length;
  const S = s.stages;
  const K = s.mve;
  const ii = s.ii;
  const stage = s.t.map((v) => Math.floor(v / ii));
  const cyc = s.t.map((v) => v % ii);
  // Row order: by cycle in the row, then by body position (instances at the same cycle are independent).
  const rowOrder = Array.from({ length: n }, (_, k) => k).sort((a, b) => cyc[a]! - cyc[b]! || a - b);
  // Copies: copy 0 is the register itself.
  const copies = new Map<Register, Register[]>();
  for (const r of ddg.expanded.keys()) {
    const cs = [r];
    for (let j = 1; j < K; j++) cs.push(fn.newReg(r.cls, r.width));
    copies.set(r, cs);
  }
  const mod = (i: number): number => ((i % K) + K) % K;
  const copyOf = (r: Register, iter: number): Register => copies.get(r)?.[mod(iter)] ?? r;
  const defPos = new Map<Register, number>();
  for (const [r, x] of ddg.expanded) defPos.set(r, x.def);

  const instance = (x: number, iter: number): Instr => {
    const i = body[x]!;
    const readCopy = (r: Register): Register => {
      const d = defPos.get(r);
      if (d === undefined) return r;
      return copyOf(r, iter - (d < x ? 0 : 1));
    };
    const mapUse = (o: Operand): Operand => {
      if (o.kind === 'reg') return { ...o, reg: readCopy(o.reg) };
      if (o.kind === 'mem' && o.base) return { ...o, base: readCopy(o.base) };
      if (o.kind === 'cbank' && o.index) return { ...o, index: readCopy(o.index) };
      return o;
    };
    const defs = i.defs.map((o) => (o.kind === 'reg' && copies.has(o.reg) ? { ...o, reg: copyOf(o.reg, iter) } : mapUse(o)));
    const guard = i.guard ? { reg: readCopy(i.guard.reg), not: i.guard.not } : undefined;
    return new Instr(i.opcode, { guard, mods: i.mods, defs, uses: i.uses.map(mapUse), loc: i.loc, flags: i.flags });
  };
  /** Instances of row q, restricted to iterations in [lo, hi]. */
  const row = (q: number, lo: number, hi: number): Instr[] => {
    const out: Instr[] = [];
    for (const x of rowOrder) {
      const it = q - stage[x]!;
      if (it >= lo && it <= hi) out.push(instance(x, it));
    }
    return out;
  };
  const loc = body[shape.exitCmp]!.loc;
  const contGuard = (iter: number) => ({ reg: copyOf(shape.cont.reg, iter), not: shape.cont.not });
  const exitGuard = (iter: number) => ({ reg: copyOf(shape.cont.reg, iter), not: !shape.cont.not });

  // Blocks in layout order, each created with a placeholder terminator (so that placing the next one after it
  // finds no fall-through to make explicit) and filled below.
  const made: Block[] = [];
  let at = pre;
  const newBlock = (): Block => {
    const b = fn.createBlock({ after: at });
    b.append(new Instr('BRA', { uses: [label(exit)], loc }));
    made.push(b);
    at = b;
    return b;
  };
  const prologue: Block[] = [];
  for (let r = 0; r < S - 1; r++) prologue.push(newBlock());
  const kernel: Block[] = [];
  for (let k = 0; k < K; k++) kernel.push(newBlock());
  // Drains: kernel exits (the last kernel copy's first, so it can fall through), then prologue exits.
  const kernelDrain: Block[] = new Array<Block>(K);
  for (let k = K - 1; k >= 0; k--) kernelDrain[k] = newBlock();
  const prologueDrain: Block[] = [];
  for (let r = 0; r < S - 1; r++) prologueDrain.push(newBlock());

  const fill = (b: Block, instrs: readonly Instr[]): void => {
    const term = b.instrs[b.instrs.length - 1]!;
    for (const i of instrs) b.insertBefore(term, i);
  };
  const setTerm = (b: Block, to: Block, exitTo?: { guard: { reg: Register; not: boolean }; to: Block }): void => {
    const term = b.instrs[b.instrs.length - 1]!;
    if (exitTo) b.insertBefore(term, new Instr('BRA', { guard: exitTo.guard, uses: [label(exitTo.to)], loc }));
    term.setUses([label(to)]);
  };

  // Preheader: iteration 0's reads of the previous iteration's value read copy K-1.
  if (K > 1) {
    for (const [r, cs] of copies) if (ddg.expanded.get(r)!.uses.some((u) => u.dist > 0)) pre.appendBody(copyInstr(cs[K - 1]!, r));
  }
  // Prologue rows 0..S-2: after row r, iteration r's exit test decides whether iteration r+1 starts.
  for (let r = 0; r < S - 1; r++) {
    fill(prologue[r]!, row(r, 0, r));
    setTerm(prologue[r]!, r + 1 < S - 1 ? prologue[r + 1]! : kernel[0]!, { guard: exitGuard(r), to: prologueDrain[r]! });
  }
  // Kernel copy k runs rows q = S-1+k (mod K); every stage's iteration exists there.
  for (let k = 0; k < K; k++) {
    const q = S - 1 + k;
    fill(kernel[k]!, row(q, q - (S - 1), q));
    if (k + 1 < K) setTerm(kernel[k]!, kernel[k + 1]!, { guard: exitGuard(q), to: kernelDrain[k]! });
    else {
      // Last copy: continue to copy 0, else fall into its drain.
      const term = kernel[k]!.instrs[kernel[k]!.instrs.length - 1]!;
      kernel[k]!.insertBefore(term, new Instr('BRA', { guard: contGuard(q), uses: [label(kernel[0]!)], loc }));
      term.setUses([label(kernelDrain[k]!)]);
    }
  }
  // A drain after the exit at row R (last iteration L = R) runs rows R+1 .. R+S-1 for iterations <= L.
  const drain = (b: Block, R: number): void => {
    const out: Instr[] = [];
    for (let q = R + 1; q <= R + S - 1; q++) out.push(...row(q, 0, R));
    // Values read after the loop: the last iteration's copy into the original register.
    for (const [r, cs] of copies) {
      if (!shape.liveOut.has(r)) continue;
      const c = cs[mod(R)]!;
      if (c !== r) out.push(copyInstr(r, c));
    }
    for (const i of out) i.loc ??= loc;
    fill(b, out);
  };
  for (let k = 0; k < K; k++) drain(kernelDrain[k]!, S - 1 + k);
  for (let r = 0; r < S - 1; r++) drain(prologueDrain[r]!, r);
  return made;
}

/**
 * Rename the values of a straight-line body that die inside the iteration (unrolled copies reuse the same
 * registers). A register with several unguarded defs is split at each of them: the segments between the first
 * and the last unguarded def get fresh registers (guarded defs and reads in a segment follow its name), the
 * segment before the first def and the one from the last def on keep the register, so loop-carried and
 * live-out values are untouched. Returns the body with renamed detached copies where something changed.
 */
export function renameIterationLocalValues(fn: OriFunction, body: readonly Instr[]): Instr[] {
  const unguardedDefs = new Map<Register, number[]>();
  body.forEach((i, k) => {
    if (i.guard) return;
    for (const r of new Set(i.defRegs())) {
      let l = unguardedDefs.get(r);
      if (!l) unguardedDefs.set(r, (l = []));
      l.push(k);
    }
  });
  // Registers to split, with their segment boundaries (positions of unguarded defs).
  const split = new Map<Register, number[]>();
  for (const [r, defs] of unguardedDefs) if (defs.length > 1 && copyableRegister(r)) split.set(r, defs);
  if (!split.size) return [...body];
  const current = new Map<Register, Register>(); // name in effect for reads at this point
  const seg = new Map<Register, number>(); // index of the next unguarded def not yet passed
  for (const r of split.keys()) seg.set(r, 0);
  const out: Instr[] = [];
  body.forEach((i, k) => {
    let changed = false;
    const rd = (r: Register): Register => {
      const n = current.get(r) ?? r;
      if (n !== r) changed = true;
      return n;
    };
    const mapUse = (o: Operand): Operand => {
      if (o.kind === 'reg') return { ...o, reg: rd(o.reg) };
      if (o.kind === 'mem' && o.base) return { ...o, base: rd(o.base) };
      if (o.kind === 'cbank' && o.index) return { ...o, index: rd(o.index) };
      return o;
    };
    const uses = i.uses.map(mapUse);
    const guard = i.guard ? { reg: rd(i.guard.reg), not: i.guard.not } : undefined;
    // Advance the segments of registers this instruction defines unguarded, then name its defs.
    if (!i.guard) {
      for (const r of new Set(i.defRegs())) {
        const defs = split.get(r);
        if (!defs) continue;
        const s = seg.get(r)!;
        // This is def number s (defs[s] === k); the last one keeps the register.
        seg.set(r, s + 1);
        if (s + 1 < defs.length) current.set(r, fn.newReg(r.cls, r.width));
        else current.delete(r);
      }
    }
    const defs = i.defs.map((o) => {
      if (o.kind !== 'reg') return mapUse(o);
      const n = current.get(o.reg);
      if (n && n !== o.reg) {
        changed = true;
        return { ...o, reg: n };
      }
      return o;
    });
    out.push(changed ? new Instr(i.opcode, { guard, mods: i.mods, defs, uses, loc: i.loc, flags: i.flags }) : i);
  });
  return out;
}
