import type { LatencyModel, MachineQueue } from '@ptxforge/kernel';
import type { SchedOp } from '../types.js';

/** What the schedulers ask about time: cycles from issuing `writer` until `reader` may issue and read its result. */
export interface SchedLatency {
  latency(writer: SchedOp | undefined, reader: SchedOp | undefined): number;
}

/**
 * Expected cycles of variable-latency results, per queue. The hazard tables say only that a scoreboard covers
 * them; a scheduler needs an expectation to hide them. Values: published Volta/Turing/Ampere microbenchmarks
 * (Jia et al. 2018/2019: shared ≈ 23-30, L1 hit ≈ 32, L2 ≈ 190-200 cycles; MUFU ≈ 18-23, conversions ≈ 14),
 * rounded; a global load is assumed to hit L2.
 */
export const DEFAULT_VARIABLE_LATENCY: Readonly<Record<MachineQueue, number>> = Object.freeze({
  global: 200, local: 200, shared: 28, const: 24, tex: 250, mufu: 20, conv: 14, xu: 14, s2r: 24, shfl: 28, bar: 20,
  fp64: 20, r2ur: 4, misc: 20,
});

const DEFAULT_FIXED = 4;

/**
 * The schedulers' latency function from the target's LatencyModel service: the SASS table (`operandLatency`,
 * the one the hazard checker and scoreboard generator use) for fixed-latency writers, the queue estimates
 * for variable-latency ones; targets without a machine table fall back to `fixedLatency` / the variable
 * class. Instructions without an opcode take 1 cycle.
 */
export function schedLatencyFromModel(model: LatencyModel, variable: Readonly<Partial<Record<MachineQueue, number>>> = {}): SchedLatency {
  const est = { ...DEFAULT_VARIABLE_LATENCY, ...variable };
  // Each distinct opcode+modifiers gets a small number once per SchedOp object (schedulers ask about the same
  // op objects many times: no key string per question); a pair's latency is cached under both numbers.
  const opIds = new Map<string, number>();
  const idOfOp = new WeakMap<SchedOp, number>();
  const idOf = (op: SchedOp): number => {
    let id = idOfOp.get(op);
    if (id === undefined) {
      const k = `${op.opcode}.${(op.mods ?? []).join('.')}`;
      id = opIds.get(k);
      if (id === undefined) opIds.set(k, (id = opIds.size + 1));
      idOfOp.set(op, id);
    }
    return id;
  };
  const cache = new Map<number, number>();
  return {
    latency(writer, reader) {
      if (!writer) return 1;
      // ids start at 1; 0 stands for "no reader"
      const k = idOf(writer) * 0x100000 + (reader ? idOf(reader) : 0);
      let l = cache.get(k);
      if (l !== undefined) return l;
      if (model.operandLatency && model.machineTiming) {
        const fixed = reader ? model.operandLatency(writer, reader) : undefined;
        if (fixed !== undefined) l = fixed;
        else {
          const t = model.machineTiming(writer);
          if (t.kind === 'variable' || t.kind === 'redirected') l = est[t.queue];
          else l = model.operandLatency(writer, writer) ?? DEFAULT_FIXED;
        }
      } else {
        const f = model.fixedLatency(writer.opcode);
        if (f !== undefined) l = f;
        else {
          const v = model.variableLatency(writer.opcode);
          l = v === 'memory' ? est.global : v === 'shared' ? est.shared : v === 'texture' ? est.tex : v === 'transcendental' ? est.mufu : v === 'double' ? est.fp64 : v === 'barrier' ? est.bar : est.misc;
        }
      }
      cache.set(k, l);
      return l;
    },
  };
}

/** A latency function from a plain table (tests, synthetic benchmarks): opcode → cycles, default 1. */
export function schedLatencyFromTable(table: Readonly<Record<string, number>>, fallback = 1): SchedLatency {
  return { latency: (w) => (w ? table[w.opcode] ?? fallback : 1) };
}
