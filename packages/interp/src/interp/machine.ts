/**
 * The SIMT execution engine: runs the CTAs of a launch one after another, each CTA's warps as groups of lanes
 * that share a pc. Divergence and reconvergence (docs/ori-semantics.md, "Control and synchronization"):
 *
 * - A branch whose active lanes disagree splits the group in two and pushes a reconvergence frame for the
 *   branch block's immediate post-dominator (ipdom). A group entering the block at the top frame's rpc parks
 *   there; when every still-alive lane of the frame has arrived, the parked groups merge. This is sound without
 *   BSSY/BSYNC; BSYNC additionally waits for the lanes of its barrier register.
 * - BAR.SYNC blocks a group until the CTA's live threads (or `count`) have arrived; barriers in divergent code
 *   work as on Volta+ (per thread). When nothing can run, BSYNC waits and then reconvergence waits are given up
 *   (the threads proceed unconverged, which changes no result of a race-free program); if threads still wait
 *   at a barrier the launch fails with a barrier-deadlock error naming the barrier and a waiting thread.
 */
import { popc32 } from '@ptxforge/semantics';
import { InterpError, Trap, type InterpErrorKind } from './errors.js';
import type { GlobalMemory } from './memory.js';
import { K, RPC_NONE, RPC_RETURN, readSrc, writeLane, markWritten, type Op, type Program } from './program.js';
import { Cta, type Frame, type Group, type Warp } from './warp.js';

export interface OpcodeCount {
  /** Warp-instructions issued (one per warp and executed instruction, predicated-off lanes included). */
  warp: number;
  /** Thread-instructions: active lanes whose guard was true. */
  thread: number;
}

export interface DynamicCounts {
  warpInstructions: number;
  threadInstructions: number;
  /** Executed branch warp-instructions (BRA, BRX, JMX). */
  branches: number;
  /** Branches whose active lanes did not all go the same way. */
  divergentBranches: number;
  byOpcode: Record<string, OpcodeCount>;
  /** By basic block, keyed `function:label`. */
  byBlock: Record<string, OpcodeCount>;
  /** By CTA (CUDA block), in launch order. */
  byCta: Array<{ ctaid: [number, number, number] } & OpcodeCount>;
}

/**
 * Thread-instructions a group runs before it yields to the other warps of its CTA at a backward branch. Only a
 * group that loops this long without reaching a barrier or diverging yields, so the interleaving of ordinary code
 * is unchanged; a race-free program's results do not depend on where it yields.
 */
export const PREEMPT_STEPS = 1 << 16;

export interface MachineOptions {
  /** Thread-instruction budget of the launch (runaway loops become a step-limit error). */
  readonly maxSteps?: number;
  /** Report reads of never-written registers (default true). */
  readonly checkUndefined?: boolean;
}

export const DEFAULT_MAX_STEPS = 200_000_000;
/** Forced resumptions of mbarrier waits without any mbarrier change before the wait is reported as a deadlock. */
const MAX_FRUITLESS_WAITS = 64;

interface BarrierState {
  arrived: number;
  count: number | undefined;
  waiting: Array<{ w: Warp; g: Group; op: Op }>;
  popc: number;
  and: boolean;
  or: boolean;
}

export class Machine {
  readonly wc: Float64Array;
  readonly tc: Float64Array;
  branches = 0;
  divergent = 0;
  readonly clock = { steps: 0 };
  private readonly maxSteps: number;
  private readonly checkUndef: boolean;
  private readonly hasPhis: boolean;
  readonly byCta: DynamicCounts['byCta'] = [];
  /** Groups that used up their turn in a loop, with their warp, to run after the CTA's other warps. */
  private preempted: Array<[Warp, Group]> = [];

  constructor(
    readonly prog: Program,
    readonly global: GlobalMemory,
    opts: MachineOptions = {},
  ) {
    this.wc = new Float64Array(prog.code.length);
    this.tc = new Float64Array(prog.code.length);
    this.maxSteps = opts.maxSteps ?? DEFAULT_MAX_STEPS;
    this.checkUndef = opts.checkUndefined !== false;
    this.hasPhis = prog.code.some((o) => o.k === K.PHIS);
  }

  /** Run every CTA of the grid in order (x fastest). Throws InterpError. */
  runGrid(): void {
    const [gx, gy, gz] = this.prog.layout.grid;
    for (let z = 0; z < gz; z++) {
      for (let y = 0; y < gy; y++) {
        for (let x = 0; x < gx; x++) {
          const w0 = this.sum(this.wc);
          const t0 = this.clock.steps;
          this.runCta([x, y, z]);
          this.byCta.push({ ctaid: [x, y, z], warp: this.sum(this.wc) - w0, thread: this.clock.steps - t0 });
        }
      }
    }
  }

  private sum(a: Float64Array): number {
    let s = 0;
    for (let k = 0; k < a.length; k++) s += a[k]!;
    return s;
  }

  runCta(ctaid: [number, number, number]): void {
    const cta = new Cta(this.prog, this.global, ctaid, this.clock);
    const bars = new Map<number, BarrierState>();
    for (const w of cta.warps) {
      if (w.exists) w.runnable.push({ pc: this.prog.entryPc, mask: w.exists, frames: [], calls: [] });
    }
    for (;;) {
      for (const w of cta.warps) {
        while (w.runnable.length) this.runGroup(w, w.runnable.pop()!, bars);
      }
      // groups preempted in a long loop (a spin-wait on another warp's store) run again after every other warp had its turn
      if (this.preempted.length) {
        for (const [w, g] of this.preempted) w.runnable.push(g);
        this.preempted = [];
        continue;
      }
      let live = 0;
      for (const w of cta.warps) live += popc32(w.live);
      if (live === 0) return;
      if (this.resumeWaits(cta, false)) continue;
      if (this.releaseBarriers(bars, live)) continue;
      if (this.releaseBsync(cta, false)) continue;
      if (this.resumeWaits(cta, true)) continue;
      if (this.releaseBsync(cta, true)) continue;
      if (this.breakFrames(cta)) continue;
      this.deadlock(bars, live, ctaid);
    }
  }

  /**
   * Resume the groups that yielded after a failed mbarrier wait: those whose mbarrier changed since, or with
   * `force` (nothing else can run) all of them, since a wait may also end by a plain store or a clock. Forced
   * rounds in which no mbarrier changes are counted; after MAX_FRUITLESS_WAITS of them the wait can never end.
   */
  private resumeWaits(cta: Cta, force: boolean): boolean {
    const y = cta.yielded;
    if (!y.length) return false;
    if (force) {
      const first = y[0]!;
      if (first.epoch === cta.mbarrierEpoch && y.every((e) => e.epoch === cta.mbarrierEpoch)) {
        if (++cta.fruitlessWaits > MAX_FRUITLESS_WAITS) {
          const lane = 31 - Math.clz32(first.g.mask & -first.g.mask);
          throw this.error('barrier-deadlock', `mbarrier wait never completes: the phase it waits for has arrivals or transactions pending and no other thread can run`, this.prog.code[first.pc]!, first.w, lane);
        }
      } else cta.fruitlessWaits = 0;
      for (const e of y) e.w.runnable.push(e.g);
      y.length = 0;
      return true;
    }
    let moved = false;
    for (let k = 0; k < y.length; ) {
      const e = y[k]!;
      if (e.epoch !== cta.mbarrierEpoch) {
        e.w.runnable.push(e.g);
        y[k] = y[y.length - 1]!;
        y.pop();
        moved = true;
      } else k++;
    }
    if (moved) cta.fruitlessWaits = 0;
    return moved;
  }

  private deadlock(bars: Map<number, BarrierState>, live: number, ctaid: [number, number, number]): never {
    for (const [id, b] of bars) {
      const first = b.waiting[0];
      if (!first) continue;
      const lane = 31 - Math.clz32(first.g.mask & -first.g.mask);
      throw this.error('barrier-deadlock', `barrier ${id}: ${b.arrived} of ${b.count ?? live} threads arrived and no other thread can run`, first.op, first.w, lane);
    }
    throw new InterpError('barrier-deadlock', `CTA (${ctaid.join(',')}) has live threads but none can run`, { ctaid });
  }

  private releaseBarriers(bars: Map<number, BarrierState>, live: number): boolean {
    let released = false;
    for (const [id, b] of bars) {
      if (!b.waiting.length && b.arrived === 0) continue;
      const need = b.count ?? live;
      if (b.arrived < need) continue;
      for (const { w, g, op } of b.waiting) {
        const bar = op.bar!;
        if (bar.mode === 'RED' && bar.dst.t !== 'none') {
          const v = bar.red === 'POPC' ? BigInt(b.popc) : bar.red === 'AND' ? (b.and ? 1n : 0n) : b.or ? 1n : 0n;
          for (let l = 0; l < 32; l++) if ((g.mask >>> l) & 1) writeLane(w, bar.dst, l, bar.dst.t === 'pred' ? v !== 0n : v);
          markWritten(w, bar.dst, g.mask);
        }
        g.pc++;
        w.runnable.push(g);
      }
      bars.delete(id);
      released = true;
    }
    return released;
  }

  /** Release groups waiting at BSYNC: complete ones (merged), or with `force` all of them as they are. */
  private releaseBsync(cta: Cta, force: boolean): boolean {
    let any = false;
    for (const w of cta.warps) {
      for (const [key, e] of w.bsync) {
        const expect = e.expect & w.live;
        if (!force && (e.arrived & expect) !== expect) continue;
        w.bsync.delete(key);
        const g = this.mergeGroups(e.groups, e.pc + 1);
        const ng = this.arrive(w, g);
        if (ng) w.runnable.push(ng);
        any = true;
      }
    }
    return any;
  }

  /** Give up the innermost reconvergence waits: parked groups proceed without their frame. */
  private breakFrames(cta: Cta): boolean {
    let any = false;
    for (const w of cta.warps) {
      const seen = new Set<Frame>();
      for (const g of [...w.parked]) {
        const f = g.frames[g.frames.length - 1]!;
        if (seen.has(f)) continue;
        seen.add(f);
        f.broken = true;
        for (const p of f.parked) w.parked.delete(p);
        const parked = f.parked.splice(0);
        const merged = this.mergeGroups(parked, f.rpc);
        const ng = this.arrive(w, merged);
        if (ng) w.runnable.push(ng);
        any = true;
      }
    }
    return any;
  }

  /** Merge groups at the same pc into one: the union of their lanes with their common frame prefix. */
  private mergeGroups(groups: Group[], pc: number): Group {
    let mask = 0;
    for (const g of groups) mask |= g.mask;
    const first = groups[0]!;
    let n = first.frames.length;
    for (const g of groups) {
      let k = 0;
      while (k < n && k < g.frames.length && g.frames[k] === first.frames[k]) k++;
      n = k;
    }
    return { pc, mask, frames: first.frames.slice(0, n), calls: first.calls.slice() };
  }

  /**
   * A group enters the block at g.pc. If that is the reconvergence point of its innermost frame it parks;
   * the last arrival merges the frame's groups (and may park again at an enclosing frame). Returns the group
   * to keep running, or null when it parked.
   */
  private arrive(w: Warp, g: Group): Group | null {
    for (;;) {
      const fs = g.frames;
      const f = fs[fs.length - 1];
      if (!f || f.rpc !== g.pc) return g;
      if (f.broken) {
        fs.pop();
        continue;
      }
      f.arrived |= g.mask;
      f.parked.push(g);
      const reg = w.parked;
      reg.add(g);
      const expect = f.expect & w.live;
      if ((f.arrived & expect) !== expect) return null;
      for (const p of f.parked) reg.delete(p);
      const parked = f.parked.splice(0);
      g = this.mergeGroups(parked, f.rpc);
      g.frames.pop();
    }
  }

  /** Lanes m of group g exit: frames shrink, and frames that are now complete merge. */
  private exitLanes(w: Warp, g: Group, m: number): void {
    w.live &= ~m;
    for (const f of g.frames) f.expect &= ~m;
    for (let k = g.frames.length - 1; k >= 0; k--) {
      const f = g.frames[k]!;
      if (f.broken || !f.parked.length) continue;
      const expect = f.expect & w.live;
      if ((f.arrived & expect) !== expect) continue;
      for (const p of f.parked) w.parked.delete(p);
      const merged = this.mergeGroups(f.parked.splice(0), f.rpc);
      merged.frames.pop();
      const ng = this.arrive(w, merged);
      if (ng) w.runnable.push(ng);
    }
  }

  private setPrev(w: Warp, m: number, blockId: number): void {
    for (let l = 0; l < 32; l++) if ((m >>> l) & 1) w.prev[l] = blockId;
  }

  error(kind: InterpErrorKind, detail: string, op: Op | undefined, w: Warp, lane: number): InterpError {
    const l = lane >= 0 ? lane : 0;
    return new InterpError(kind, detail, {
      fn: op?.fn.name,
      block: op?.block.label,
      instr: op?.text,
      line: op?.instr?.loc?.line,
      ctaid: [...w.cta.ctaid] as [number, number, number],
      tid: w.tidOf(l),
    });
  }

  private undefinedRead(w: Warp, op: Op, missing: number, what: string): InterpError {
    const lane = 31 - Math.clz32(missing & -missing);
    return this.error('undefined-register', `read of ${what} that was never written`, op, w, lane);
  }

  private split(g: Group, pc: number, mask: number): Group {
    return { pc, mask, frames: g.frames.slice(), calls: g.calls.slice() };
  }

  /** Run one group until it parks, waits, exits or diverges. */
  private runGroup(w: Warp, g: Group, bars: Map<number, BarrierState>): void {
    const code = this.prog.code;
    const started = this.clock.steps;
    const others = w.cta.warps.length > 1;
    const wc = this.wc;
    const tc = this.tc;
    const clock = this.clock;
    const max = this.maxSteps;
    const checkUndef = this.checkUndef;
    let pc = g.pc;
    let mask = g.mask;
    let op: Op = code[pc]!;
    try {
      for (;;) {
        op = code[pc]!;
        let m = mask;
        if (op.guard >= 0) {
          if (checkUndef && (w.PW[op.guard]! & mask) !== mask) throw this.undefinedRead(w, op, mask & ~w.PW[op.guard]!, 'the guard predicate');
          const p = w.P[op.guard]!;
          m = op.guardNot ? mask & ~p : mask & p;
        }
        const k = op.k;
        if (k !== K.FALL) {
          wc[pc]!++;
          const c = popc32(m);
          tc[pc]! += c;
          clock.steps += c;
          if (clock.steps > max) throw this.error('step-limit', `the launch exceeded its budget of ${max} thread-instructions (runaway loop?)`, op, w, 31 - Math.clz32(m & -m));
        }
        if (k === K.ALU) {
          if (m !== 0) {
            if (checkUndef) {
              const cr = op.checkR;
              for (let j = 0; j < cr.length; j++) {
                const s = cr[j]!;
                if ((w.W[s]! & m) !== m) throw this.undefinedRead(w, op, m & ~w.W[s]!, 'a register');
              }
              const cp = op.checkP;
              for (let j = 0; j < cp.length; j++) {
                const s = cp[j]!;
                if ((w.PW[s]! & m) !== m) throw this.undefinedRead(w, op, m & ~w.PW[s]!, 'a predicate');
              }
              const sel = op.sel;
              if (sel) {
                const pa = (sel.not ? ~w.P[sel.p]! : w.P[sel.p]!) & m;
                if (sel.a >= 0 && (w.W[sel.a]! & pa) !== pa) throw this.undefinedRead(w, op, pa & ~w.W[sel.a]!, 'a register');
                const pb = m & ~pa;
                if (sel.b >= 0 && (w.W[sel.b]! & pb) !== pb) throw this.undefinedRead(w, op, pb & ~w.W[sel.b]!, 'a register');
              }
            }
            op.exec!(w, m);
            if (w.yieldNow) {
              // a failed mbarrier wait: let the other warps run first (they may be the ones to arrive)
              w.yieldNow = false;
              g.pc = pc + 1;
              g.mask = mask;
              w.cta.yielded.push({ w, g, epoch: w.cta.mbarrierEpoch, pc });
              return;
            }
          }
          pc++;
          continue;
        }
        switch (k) {
          case K.NOP:
            pc++;
            continue;
          case K.FALL:
          case K.BRA: {
            if (k === K.BRA) this.branches++;
            const taken = k === K.FALL ? mask : m;
            const rest = mask & ~taken;
            if (taken === 0) {
              pc++;
              continue;
            }
            if (rest !== 0) {
              this.divergent++;
              const rpc = op.rpc === RPC_RETURN ? (g.calls.length ? g.calls[g.calls.length - 1]!.cont : RPC_NONE) : op.rpc;
              const frames = rpc === RPC_NONE ? g.frames : [...g.frames, { rpc, expect: mask, arrived: 0, parked: [], broken: false }];
              const gn: Group = { pc: pc + 1, mask: rest, frames: frames.slice(), calls: g.calls.slice() };
              const gt: Group = { pc: op.target, mask: taken, frames: frames.slice(), calls: g.calls.slice() };
              if (this.hasPhis) this.setPrev(w, taken, op.blockId);
              w.runnable.push(gn);
              const ng = this.arrive(w, gt);
              if (ng) w.runnable.push(ng);
              return;
            }
            if (this.hasPhis) this.setPrev(w, mask, op.blockId);
            const backward = op.target <= pc;
            g.pc = op.target;
            const ng = this.arrive(w, g);
            if (ng !== g) {
              if (ng) w.runnable.push(ng);
              return;
            }
            pc = g.pc;
            mask = g.mask;
            // a group looping for PREEMPT_STEPS without blocking yields to the CTA's other warps: a spin-wait
            // (a multi-warp tile barrier polling shared memory) waits for a store only another warp makes
            if (backward && others && clock.steps - started >= PREEMPT_STEPS) {
              this.preempted.push([w, g]);
              return;
            }
            continue;
          }
          case K.BRX: {
            this.branches++;
            if (m !== mask) throw this.error('unsupported', 'a guarded BRX/JMX is not supported', op, w, 0);
            if (checkUndef && (w.W[op.slot]! & m) !== m) throw this.undefinedRead(w, op, m & ~w.W[op.slot]!, 'the branch index');
            const byTarget = new Map<number, number>();
            for (let l = 0; l < 32; l++) {
              if (!((m >>> l) & 1)) continue;
              const raw = w.R[op.slot * 32 + l]!;
              // BRX.TABLE (phase 80's form) reads a byte offset into its table of 32-bit entries.
              const idx = op.brxTable ? (raw & 3 ? -1 : raw >>> 2) : raw;
              const t = op.targets[idx];
              if (t === undefined) throw this.error('bad-branch-index', `branch index ${op.brxTable ? `(byte offset ${raw}) ` : ''}${idx} is outside the ${op.targets.length}-entry label table`, op, w, l);
              byTarget.set(t, (byTarget.get(t) ?? 0) | (1 << l));
            }
            if (this.hasPhis) this.setPrev(w, mask, op.blockId);
            if (byTarget.size === 1) {
              g.pc = byTarget.keys().next().value!;
              const ng = this.arrive(w, g);
              if (ng !== g) {
                if (ng) w.runnable.push(ng);
                return;
              }
              pc = g.pc;
              continue;
            }
            this.divergent++;
            const rpc = op.rpc === RPC_RETURN ? (g.calls.length ? g.calls[g.calls.length - 1]!.cont : RPC_NONE) : op.rpc;
            const frames = rpc === RPC_NONE ? g.frames : [...g.frames, { rpc, expect: mask, arrived: 0, parked: [], broken: false }];
            const subs = [...byTarget].map(([t, lm]) => ({ pc: t, mask: lm, frames: frames.slice(), calls: g.calls.slice() }));
            for (const s of subs.reverse()) {
              const ng = this.arrive(w, s);
              if (ng) w.runnable.push(ng);
            }
            return;
          }
          case K.EXIT: {
            if (m === 0) {
              pc++;
              continue;
            }
            this.exitLanes(w, g, m);
            mask &= ~m;
            if (mask === 0) return;
            g.mask = mask;
            pc++;
            continue;
          }
          case K.RET: {
            if (m === 0) {
              pc++;
              continue;
            }
            const cf = g.calls[g.calls.length - 1];
            if (!cf) throw this.error('unsupported', 'RET outside a call', op, w, 0);
            const call = code[cf.callPc]!.call!;
            const ret = op.ret ?? [];
            for (let l = 0; l < 32; l++) {
              if (!((m >>> l) & 1)) continue;
              for (let j = 0; j < call.results.length && j < ret.length; j++) writeLane(w, call.results[j]!, l, readSrc(w, ret[j]!, l));
            }
            for (const d of call.results) markWritten(w, d, m);
            const back: Group = { pc: cf.cont, mask: m, frames: g.frames.slice(), calls: g.calls.slice(0, -1) };
            if (m !== mask) {
              g.mask = mask & ~m;
              g.pc = pc + 1;
              w.runnable.push(g);
            }
            const ng = this.arrive(w, back);
            if (ng) w.runnable.push(ng);
            return;
          }
          case K.CALL: {
            if (m === 0) {
              pc++;
              continue;
            }
            const call = op.call!;
            if (g.calls.some((c) => code[c.callPc]!.call!.callee === call.callee)) {
              throw this.error('unsupported', `recursive call of ${call.callee.name} is not supported by the interpreter`, op, w, 0);
            }
            if (checkUndef) {
              for (const s of op.checkR) if ((w.W[s]! & m) !== m) throw this.undefinedRead(w, op, m & ~w.W[s]!, 'a call argument');
            }
            for (let l = 0; l < 32; l++) {
              if (!((m >>> l) & 1)) continue;
              for (let j = 0; j < call.params.length && j < call.args.length; j++) writeLane(w, call.params[j]!, l, readSrc(w, call.args[j]!, l));
            }
            for (const d of call.params) markWritten(w, d, m);
            if (m !== mask) {
              w.runnable.push(this.split(g, pc + 1, mask & ~m));
              mask = m;
              g.mask = m;
            }
            g.calls = [...g.calls, { cont: pc + 1, callPc: pc }];
            pc = this.prog.fnEntry.get(call.callee)!;
            g.pc = pc;
            continue;
          }
          case K.BSYNC: {
            if (m === 0) {
              pc++;
              continue;
            }
            let bm = 0;
            if (op.slot >= 0) for (let l = 0; l < 32; l++) if ((m >>> l) & 1) bm |= w.R[op.slot * 32 + l]!;
            const expect = bm & w.live;
            if ((expect & ~mask) === 0) {
              pc++;
              continue;
            }
            if (m !== mask) w.runnable.push(this.split(g, pc + 1, mask & ~m));
            g.pc = pc;
            g.mask = m;
            const key = `${pc}:${expect}`;
            let e = w.bsync.get(key);
            if (!e) w.bsync.set(key, (e = { pc, expect, arrived: 0, groups: [] }));
            e.arrived |= m;
            e.groups.push(g);
            if ((e.arrived & expect) === expect) {
              w.bsync.delete(key);
              const merged = this.mergeGroups(e.groups, pc + 1);
              const ng = this.arrive(w, merged);
              if (ng) w.runnable.push(ng);
            }
            return;
          }
          case K.BAR: {
            const bar = op.bar!;
            if (m === 0) {
              pc++;
              continue;
            }
            const id = Number(BigInt.asUintN(32, readSrc(w, bar.id, 31 - Math.clz32(m & -m)) as bigint));
            const count = bar.count ? Number(BigInt.asUintN(32, readSrc(w, bar.count, 31 - Math.clz32(m & -m)) as bigint)) : undefined;
            let b = bars.get(id);
            if (!b) bars.set(id, (b = { arrived: 0, count, waiting: [], popc: 0, and: true, or: false }));
            b.arrived += popc32(m);
            if (bar.pred) {
              for (let l = 0; l < 32; l++) {
                if (!((m >>> l) & 1)) continue;
                const v = readSrc(w, bar.pred, l) === true;
                if (v) b.popc++;
                b.and &&= v;
                b.or ||= v;
              }
            }
            if (bar.mode === 'ARV') {
              pc++;
              continue;
            }
            if (m !== mask) w.runnable.push(this.split(g, pc + 1, mask & ~m));
            g.pc = pc;
            g.mask = m;
            b.waiting.push({ w, g, op });
            return;
          }
          case K.PHIS: {
            this.runPhis(w, op, m);
            pc++;
            continue;
          }
        }
      }
    } catch (e) {
      if (e instanceof Trap) throw this.error(e.kind, e.detail, op, w, e.lane >= 0 ? e.lane : 31 - Math.clz32(mask & -mask));
      throw e;
    }
  }

  /** All PHIs of a block at once: each lane reads every source for its predecessor, then writes. */
  private runPhis(w: Warp, op: Op, m: number): void {
    const phis = op.phis!;
    const vals: Array<bigint | boolean> = [];
    const defined: boolean[] = [];
    for (let l = 0; l < 32; l++) {
      if (!((m >>> l) & 1)) continue;
      const pb = w.prev[l]!;
      vals.length = 0;
      defined.length = 0;
      for (const p of phis) {
        const s = p.byPred.get(pb);
        if (!s) throw new Trap('unsupported', `PHI has no operand for predecessor ${this.prog.blockNames[pb] ?? '(entry)'}`, l);
        vals.push(readSrc(w, s, l));
        // Definedness flows through a PHI: an undefined incoming value makes the def undefined in that lane.
        defined.push(s.t === 'reg' ? ((w.W[s.slot]! >>> l) & 1) === 1 : s.t === 'pred' && s.slot >= 0 ? ((w.PW[s.slot]! >>> l) & 1) === 1 : true);
      }
      const bit = 1 << l;
      for (let j = 0; j < phis.length; j++) {
        const d = phis[j]!.dst;
        writeLane(w, d, l, vals[j]!);
        if (d.t === 'reg') for (let q = 0; q < d.n; q++) w.W[d.slot + q] = defined[j] ? w.W[d.slot + q]! | bit : w.W[d.slot + q]! & ~bit;
        else if (d.t === 'pred') w.PW[d.slot] = defined[j] ? w.PW[d.slot]! | bit : w.PW[d.slot]! & ~bit;
      }
    }
  }

  counts(): DynamicCounts {
    const code = this.prog.code;
    const byOpcode: Record<string, OpcodeCount> = {};
    const byBlock: Record<string, OpcodeCount> = {};
    let warpInstructions = 0;
    let threadInstructions = 0;
    for (let pc = 0; pc < code.length; pc++) {
      const op = code[pc]!;
      const wv = this.wc[pc]!;
      const tv = this.tc[pc]!;
      if (wv === 0) continue;
      warpInstructions += wv;
      threadInstructions += tv;
      const name = this.prog.opcodes[op.opId]!;
      const o = (byOpcode[name] ??= { warp: 0, thread: 0 });
      o.warp += wv;
      o.thread += tv;
      const bn = this.prog.blockNames[op.blockId]!;
      const b = (byBlock[bn] ??= { warp: 0, thread: 0 });
      b.warp += wv;
      b.thread += tv;
    }
    const sortKeys = <T>(r: Record<string, T>): Record<string, T> => Object.fromEntries(Object.entries(r).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    return {
      warpInstructions,
      threadInstructions,
      branches: this.branches,
      divergentBranches: this.divergent,
      byOpcode: sortKeys(byOpcode),
      byBlock,
      byCta: this.byCta,
    };
  }
}
