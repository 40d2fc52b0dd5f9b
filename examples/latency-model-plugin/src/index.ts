import { definePlugin, LatencyModel, provide, type LatencyModel as LatencyModelT, type OriFunction } from '@ptxforge/kernel';
import { createLatencyModel, PIPE_WIDTHS_FAST_FP64 } from '@ptxforge/target-common';
import { PACKAGE } from './package-meta.js';

/**
 * Measured fixed latencies (cycles until a dependent instruction may read the result) for sm_90 that
 * differ from the generation defaults of @ptxforge/target-sm90 (4 cycles for ALU and FMA-pipe work). The
 * figures are illustrative microbenchmark-style values: IMAD.WIDE writes a pair and is read a cycle later,
 * the 64-bit shifts and the FP64 pipe take longer on the parts measured.
 */
export const MEASURED_SM90: Readonly<Record<string, number>> = Object.freeze({
  IMAD: 5,
  SHF: 5,
  DADD: 9,
  DMUL: 9,
  DFMA: 9,
});

export interface MeasuredLatencyOptions {
  /** Archs to serve (default sm_90 and sm_90a: what @ptxforge/target-sm90 serves). */
  readonly archs?: readonly string[];
  /** Per-opcode fixed latencies that override the generation defaults (default MEASURED_SM90). */
  readonly latencies?: Readonly<Record<string, number>>;
}

/** The generation model of target-sm90 with per-opcode overrides (pipes and variable latencies unchanged). */
export function measuredLatencyModel(latencies: Readonly<Record<string, number>>): LatencyModelT {
  const base = createLatencyModel(PIPE_WIDTHS_FAST_FP64, { alu: 4, fma: 4, dfma: 8, mma: 'variable' });
  return Object.freeze({
    pipeWidths: base.pipeWidths,
    pipe: (op: string) => base.pipe(op),
    fixedLatency: (op: string) => latencies[op] ?? base.fixedLatency(op),
    variableLatency: (op: string) => (op in latencies ? undefined : base.variableLatency(op)),
  });
}

/** Cycles of the longest chain of fixed-latency dependences inside each block, summed over the blocks. */
export function latencyEstimate(fn: OriFunction, model: LatencyModelT): { cycles: number; variable: number } {
  let cycles = 0;
  let variable = 0;
  for (const b of fn.blocks) {
    const ready = new Map<unknown, number>();
    let longest = 0;
    for (const i of b.instrs) {
      let start = 0;
      for (const r of i.useRegs()) start = Math.max(start, ready.get(r) ?? 0);
      const lat = model.fixedLatency(i.opcode);
      if (lat === undefined && model.variableLatency(i.opcode)) variable++;
      const done = start + (lat ?? 0);
      for (const r of i.defRegs()) ready.set(r, done);
      longest = Math.max(longest, done);
    }
    cycles += longest;
  }
  return { cycles, variable };
}

/**
 * A third-party plugin in two parts:
 * - a LatencyModel service for sm_90 that `replaces` the one @ptxforge/target-sm90 provides (by package
 *   name, so the order the plugins are given in does not matter; other archs keep their target's model);
 * - an AdvancedPhasePreSched hook limited to the same archs that reports, per function, the latency
 *   estimate the model gives (a remark `LatencyEstimate`, and a -v line).
 */
export const measuredLatencyPlugin = definePlugin<MeasuredLatencyOptions | undefined>(
  { ...PACKAGE, api: '^1.0.0', description: 'measured sm_90 latencies (replaces target-sm90 LatencyModel) and a latency report before scheduling' },
  (options) => {
    const archs = options?.archs ?? ['sm_90', 'sm_90a'];
    return {
      services: [provide(LatencyModel, { archs, replaces: '@ptxforge/target-sm90', useValue: measuredLatencyModel(options?.latencies ?? MEASURED_SM90) })],
      hooks: {
        AdvancedPhasePreSched: {
          archs,
          order: 'post',
          handler(ctx) {
            const model = ctx.service(LatencyModel);
            for (const fn of ctx.module.functions) {
              const e = latencyEstimate(fn, model);
              ctx.info(`latency-model: ${fn.name}: ${e.cycles} cycles of fixed-latency chains, ${e.variable} variable-latency instructions`);
              ctx.remark({ kind: 'analysis', name: 'LatencyEstimate', fn: fn.name, message: `${e.cycles} cycles`, args: { cycles: e.cycles, variable: e.variable } });
            }
          },
        },
      },
    };
  },
);

export default measuredLatencyPlugin;
