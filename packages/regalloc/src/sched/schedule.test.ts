import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLatencyModel, HOPPER_LATENCIES, PIPE_WIDTHS_SM80 } from '@ptxforge/target-common';
import { allocateRegisters } from '../allocate.js';
import type { RaClassInfo, RaFunction, RaInstr, RegWidth, VReg } from '../types.js';
import { computeBlockLiveness, restrictToDefined } from '../liveness.js';
import { runAllocated, runVirtual, traceMismatches } from '../testing/evaluator.js';
import { verifyAllocation } from '../verify.js';
import { DEFAULT_VARIABLE_LATENCY, schedLatencyFromModel, schedLatencyFromTable } from './latency.js';
import { buildDag, listSchedule, criticalHeights, type SchedNode } from './list.js';
import { blockPressure, schedulePostRA, schedulePreRA } from './schedule.js';

const CLASSES: RaClassInfo[] = [
  { cls: 'R', count: 255, zero: 255, alignment: { 2: 2, 4: 4 } },
  { cls: 'P', count: 7, zero: 7, alignment: {} },
];
const LAT = schedLatencyFromTable({ LDG: 200, LDS: 28, IMAD: 4, IADD3: 4, FFMA: 4, MOV: 4 });
const R = (width: RegWidth = 1): VReg => ({ cls: 'R', width });
const I = (opcode: string, defs: number[], uses: number[], extra: Partial<RaInstr> = {}): RaInstr => ({ op: { opcode }, defs, uses, ...extra });

/** Brute force: every pair that must stay ordered (shared resource with a write, conflicting memory, fences) is. */
function orderViolations(nodes: readonly SchedNode[], order: readonly number[]): string[] {
  const pos = new Int32Array(nodes.length);
  order.forEach((n, p) => { pos[n] = p; });
  const bad: string[] = [];
  const space = (n: SchedNode): string => n.memorySpace ?? 'generic';
  for (let i = 0; i < nodes.length; i++) {
    for (let j = i + 1; j < nodes.length; j++) {
      const a = nodes[i]!, b = nodes[j]!;
      const raw = a.writes.some((k) => b.reads.includes(k));
      const war = a.reads.some((k) => b.writes.includes(k));
      const waw = a.writes.some((k) => b.writes.includes(k));
      const mem = !!a.memory && !!b.memory && (a.memory !== 'load' || b.memory !== 'load') &&
        (space(a) === 'generic' || space(b) === 'generic' || space(a) === space(b));
      const fence = !!a.fence || !!b.fence;
      if ((raw || war || waw || mem || fence) && pos[i]! > pos[j]!) bad.push(`${i} must precede ${j} (${raw ? 'RAW ' : ''}${war ? 'WAR ' : ''}${waw ? 'WAW ' : ''}${mem ? 'memory ' : ''}${fence ? 'fence' : ''})`);
    }
  }
  return bad;
}

describe('latency from the target LatencyModel', () => {
  const model = createLatencyModel(PIPE_WIDTHS_SM80, { alu: 4, fma: 4, dfma: 8, mma: 16 }, HOPPER_LATENCIES);
  const lat = schedLatencyFromModel(model);
  it('uses the hazard tables for fixed-latency writers', () => {
    expect(lat.latency({ opcode: 'IADD3' }, { opcode: 'IADD3' })).toBe(model.operandLatency!({ opcode: 'IADD3' }, { opcode: 'IADD3' }));
    expect(lat.latency({ opcode: 'IMAD', mods: ['WIDE'] }, { opcode: 'IADD3' })).toBe(model.operandLatency!({ opcode: 'IMAD', mods: ['WIDE'] }, { opcode: 'IADD3' }));
  });
  it('estimates variable-latency results per queue', () => {
    expect(lat.latency({ opcode: 'LDG' }, { opcode: 'IADD3' })).toBe(DEFAULT_VARIABLE_LATENCY.global);
    expect(lat.latency({ opcode: 'LDS' }, { opcode: 'IADD3' })).toBe(DEFAULT_VARIABLE_LATENCY.shared);
    expect(schedLatencyFromModel(model, { global: 400 }).latency({ opcode: 'LDG' }, { opcode: 'FFMA' })).toBe(400);
  });
});

describe('schedulePreRA', () => {
  it('hides a load latency behind independent work', () => {
    // x = LDG ; y = x + 1 ; then 6 independent ALU ops
    const vregs = Array.from({ length: 10 }, () => R());
    const instrs = [I('LDG', [0], [9], { memory: 'load', memorySpace: 'global' }), I('IADD3', [1], [0]), ...Array.from({ length: 6 }, (_, k) => I('IADD3', [2 + k], [9])), I('MOV', [], [1, 2, 3, 4, 5, 6, 7], { fence: true })];
    const fn: RaFunction = { vregs, blocks: [{ succs: [], instrs }] };
    const { fn: out, stats } = schedulePreRA(fn, { latency: LAT });
    expect(stats.cyclesAfter).toBeLessThan(stats.cyclesBefore);
    const order = out.blocks[0]!.instrs.map((i) => instrs.indexOf(i));
    expect(order[0]).toBe(0); // the load first
    expect(order.indexOf(1)).toBeGreaterThan(order.indexOf(2)); // its use after independent work
    expect(order[order.length - 1]).toBe(8); // the fence stays last
  });

  it('reduces pressure in pressure mode and respects the bound in latency mode', () => {
    // 8 loads then 8 uses: interleaving load/use halves the pressure
    const vregs = Array.from({ length: 17 }, () => R());
    const instrs: RaInstr[] = [];
    for (let k = 0; k < 8; k++) instrs.push(I('LDS', [k], [16], { memory: 'load', memorySpace: 'shared' }));
    for (let k = 0; k < 8; k++) instrs.push(I('IADD3', [], [k, 16], { memory: 'store', memorySpace: 'global' }));
    const fn: RaFunction = { vregs, blocks: [{ succs: [], instrs }] };
    const p = schedulePreRA(fn, { latency: LAT, mode: 'pressure' });
    expect(p.stats.maxPressureAfter).toBeLessThan(p.stats.maxPressureBefore);
    const l = schedulePreRA(fn, { latency: LAT, mode: 'latency', pressureLimit: { R: 4 } });
    expect(l.stats.maxPressureAfter).toBeLessThanOrEqual(Math.max(4, l.stats.maxPressureBefore));
  });
});

// ---- properties ------------------------------------------------------------------------------------------

const arbBlock = fc.array(
  fc.record({
    reads: fc.array(fc.nat(11), { maxLength: 3 }),
    writes: fc.array(fc.nat(11), { maxLength: 2 }),
    memory: fc.constantFrom(undefined, undefined, 'load', 'store', 'atomic'),
    space: fc.constantFrom(undefined, 'global', 'shared', 'generic'),
    fence: fc.boolean().map((b) => b && Math.random() < 0.3),
    op: fc.constantFrom('LDG', 'LDS', 'IMAD', 'IADD3', 'MOV'),
  }),
  { maxLength: 40 },
);

describe('list scheduling properties', () => {
  it('keeps every RAW/WAR/WAW, memory and fence order', () => {
    fc.assert(
      fc.property(arbBlock, fc.nat(3), (spec, win) => {
        const nodes: SchedNode[] = spec.map((s) => ({ reads: s.reads, writes: s.writes, memory: s.memory as SchedNode['memory'], memorySpace: s.space, fence: s.fence, op: { opcode: s.op } }));
        const dag = buildDag(nodes, LAT);
        const h = criticalHeights(dag);
        // adversarial chooser: prefers the latest node in the original order
        const order = listSchedule(dag, h, (a, b) => a.node > b.node, () => {}, 1 + win * 8);
        expect(order.slice().sort((x, y) => x - y)).toEqual(nodes.map((_, i) => i));
        expect(orderViolations(nodes, order)).toEqual([]);
      }),
      { numRuns: 300, seed: 5 },
    );
  }, 60_000);

  const arbFn = fc.record({
    widths: fc.array(fc.constantFrom<RegWidth>(1, 1, 2, 4), { minLength: 2, maxLength: 20 }),
    blocks: fc.array(
      fc.record({
        succs: fc.array(fc.nat(5), { maxLength: 2 }),
        instrs: fc.array(fc.record({ d: fc.nat(100), u: fc.array(fc.nat(100), { maxLength: 2 }), op: fc.constantFrom('LDG', 'IMAD', 'IADD3'), fence: fc.nat(9) }), { maxLength: 12 }),
      }),
      { minLength: 1, maxLength: 5 },
    ),
    limit: fc.constantFrom(4, 8, 16),
    mode: fc.constantFrom<'pressure' | 'latency'>('pressure', 'latency'),
  });

  it('pre-RA + allocation + post-RA computes the same values, within the pressure bound', () => {
    fc.assert(
      fc.property(arbFn, (spec) => {
        const nV = spec.widths.length;
        const fn: RaFunction = {
          vregs: spec.widths.map((w) => R(w)),
          blocks: spec.blocks.map((b) => ({
            succs: [...new Set(b.succs.map((s) => s % spec.blocks.length))],
            instrs: b.instrs.map((i) => I(i.op, [i.d % nV], i.u.map((x) => x % nV), { fence: i.fence === 0 })),
          })),
        };
        const pre = schedulePreRA(fn, { latency: LAT, pressureLimit: { R: spec.limit }, mode: spec.mode });
        const lv = restrictToDefined({ numVregs: nV, blocks: fn.blocks }, computeBlockLiveness({ numVregs: nV, blocks: fn.blocks }));
        pre.fn.blocks.forEach((blk, b) => {
          const orig = fn.blocks[b]!.instrs;
          const before = blockPressure(fn, orig, orig.map((_, i) => i), lv.liveIn[b]!, lv.liveOut[b]!)[0]!;
          const after = blockPressure(pre.fn, blk.instrs, blk.instrs.map((_, i) => i), lv.liveIn[b]!, lv.liveOut[b]!)[0]!;
          expect(after).toBeLessThanOrEqual(Math.max(spec.limit, before));
        });
        const virt = runVirtual(fn, 200);
        expect(traceMismatches(virt, runVirtual(pre.fn, 200, fn))).toEqual([]);
        const opts = { classes: CLASSES, budget: { R: 16 } };
        const res = allocateRegisters(pre.fn, opts);
        const post = schedulePostRA(res, { latency: LAT });
        expect(verifyAllocation(post.result, opts)).toEqual([]);
        expect(traceMismatches(virt, runAllocated(fn, post.result, 200))).toEqual([]);
      }),
      { numRuns: 200, seed: 9 },
    );
  }, 120_000);
});
