import { expect } from 'vitest';
import { assertValidModule, parseOri, printModule, type PhaseImpl, type Remark } from '@ptxforge/kernel';
import { runKernel, type Launch } from '@ptxforge/interp';
import { makeTestContext } from '@ptxforge/opt-utils';
import { LOOP_KNOBS } from '../knobs.js';

export interface PhaseRun {
  readonly text: string;
  readonly remarks: Remark[];
  readonly infos: string[];
  readonly before: number;
  readonly after: number;
}

/**
 * Run phases on Ori text and, for each launch, run the kernel before and after and compare every buffer
 * (and the dynamic thread-instruction counts returned for the last launch).
 */
export function runChecked(text: string, phases: readonly PhaseImpl[], launches: readonly Launch[], knobValues: Record<string, boolean | number | string> = {}): PhaseRun {
  const m1 = parseOri(text);
  assertValidModule(m1, 'input');
  const remarks: Remark[] = [];
  const infos: string[] = [];
  for (const p of phases) {
    const ctx = makeTestContext(m1, { knobs: LOOP_KNOBS, knobValues });
    p.execute(ctx);
    remarks.push(...ctx.remarks);
    infos.push(...ctx.infos);
    assertValidModule(m1, 'after the phase');
  }
  const out = printModule(m1);
  let before = 0;
  let after = 0;
  for (const launch of launches) {
    const r0 = runKernel(parseOri(text), launch);
    expect(r0.errors.map((e) => e.message)).toEqual([]);
    const r1 = runKernel(parseOri(out), launch);
    expect(r1.errors.map((e) => e.message), out).toEqual([]);
    for (const [name, b] of Object.entries(r0.buffers)) {
      expect(Buffer.from(r1.buffers[name]!.bytes).toString('hex'), `${name} with ${JSON.stringify(launch.params ?? {})}\n${out}`).toBe(Buffer.from(b.bytes).toString('hex'));
    }
    before = r0.counts.threadInstructions;
    after = r1.counts.threadInstructions;
  }
  return { text: out, remarks, infos, before, after };
}

/**
 * The launches the loop fixture folders share: one per trip count `n`, 4 threads, an `in` buffer of 64
 * pseudo-random u32 and a 256-word `out` buffer.
 */
export function fixtureLaunches(ns: readonly number[]): Launch[] {
  const init = Array.from({ length: 64 }, (_, k) => (k * 37 + 11) % 97);
  return ns.map((n) => ({
    grid: [1, 1, 1], block: [4, 1, 1],
    buffers: { out: { type: 'u32', count: 256 }, in: { type: 'u32', values: init } },
    params: { out: { buffer: 'out' }, in: { buffer: 'in' }, n, m: 0 },
  }));
}
