import { describe, expect, it } from 'vitest';
import { parseOri, printModule } from '@ptxforge/kernel';
import { generateProgram, runKernel } from '@ptxforge/interp';
import { makeTestContext } from '@ptxforge/opt-utils';
import { LOOP_KNOBS } from './knobs.js';
import { LoopSimplificationPhase, LoopUnrollingPhase, PipeliningPhase } from './index.js';

/** Generated programs (the fuzzer's generator: nested, multi-exit, constant and variable trips) through 18, 22, 24. */
describe('phases 18, 22 and 24 on generated programs keep results', () => {
  const seeds = Array.from({ length: 120 }, (_, k) => k + 1);
  it.each(seeds)('seed %i', (seed) => {
    const g = generateProgram(seed);
    const r0 = runKernel(parseOri(g.text), g.launch);
    if (!r0.ok) return;
    const m = parseOri(g.text);
    const phases = process.env.ONLY18 ? [new LoopSimplificationPhase()] : [new LoopSimplificationPhase(), new LoopUnrollingPhase(), new PipeliningPhase()];
    for (const p of phases) p.execute(makeTestContext(m, { knobs: LOOP_KNOBS, knobValues: process.env.KNOBS ? JSON.parse(process.env.KNOBS) : {} }));
    const out = printModule(m);
    const r1 = runKernel(parseOri(out), g.launch);
    expect(r1.errors.map((e) => e.message), out).toEqual([]);
    for (const [name, b] of Object.entries(r0.buffers)) expect(Buffer.from(r1.buffers[name]!.bytes).toString('hex'), `${name}\n${g.text}\n----\n${out}`).toBe(Buffer.from(b.bytes).toString('hex'));
  });
});
