import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseOri, printModule } from '@ptxforge/kernel';
import { generateProgram, runKernel } from '@ptxforge/interp';
import { makeTestContext } from '@ptxforge/opt-utils';
import { LOOP_KNOBS } from './knobs.js';
import { LoopFusionPhase, LoopSimplificationPhase, LoopUnrollingPhase } from './index.js';
import { fixtureLaunches, runChecked } from './testing/harness.js';

interface Expect {
  fused: boolean;
  /** Fusions expected (default 1 when fused). */
  count?: number;
  reason?: string;
  knobs?: Record<string, boolean | number | string>;
  n: number[];
}

const DIR = fileURLToPath(new URL('../test/fixtures/fusion/', import.meta.url));
const CASES = readdirSync(DIR).sort();


/** Phase 59 fixtures: each fusion criterion, results compared before and after. */
describe('OriLoopFusion fixtures (test/fixtures/fusion)', () => {
  it.each(CASES)('%s', (name) => {
    const text = readFileSync(`${DIR}${name}/input.ori`, 'utf8');
    const e = JSON.parse(readFileSync(`${DIR}${name}/expect.json`, 'utf8')) as Expect;
    const r = runChecked(text, [new LoopSimplificationPhase(), new LoopFusionPhase()], fixtureLaunches(e.n), e.knobs ?? { PerformLoopFusion: 1 });
    const fused = r.remarks.filter((x) => x.name === 'LoopFused');
    const missed = r.remarks.filter((x) => x.name === 'LoopNotFused');
    const loopsBefore = (text.match(/@%p\d+ BRA/g) ?? []).length;
    const loopsAfter = (r.text.match(/@%p\d+ BRA/g) ?? []).length;
    if (e.fused) {
      expect(fused, JSON.stringify(missed)).toHaveLength(e.count ?? 1);
      expect(loopsAfter).toBe(loopsBefore - (e.count ?? 1));
    } else {
      expect(fused).toHaveLength(0);
      expect(loopsAfter).toBe(loopsBefore);
      if (e.reason) {
        expect(missed).toHaveLength(1);
        expect(missed[0]!.message).toContain(e.reason);
      } else expect(missed).toHaveLength(0);
    }
  });
});

describe('phases 18, 59 and 22 on generated programs (adjacent loops) keep results with PerformLoopFusion=1', () => {
  const seeds = Array.from({ length: 60 }, (_, k) => k + 1);
  it.each(seeds)('seed %i', (seed) => {
    const g = generateProgram(seed);
    const r0 = runKernel(parseOri(g.text), g.launch);
    if (!r0.ok) return;
    const m = parseOri(g.text);
    for (const p of [new LoopSimplificationPhase(), new LoopFusionPhase(), new LoopUnrollingPhase()]) {
      p.execute(makeTestContext(m, { knobs: LOOP_KNOBS, knobValues: { PerformLoopFusion: 1 } }));
    }
    const out = printModule(m);
    const r1 = runKernel(parseOri(out), g.launch);
    expect(r1.errors.map((x) => x.message), out).toEqual([]);
    for (const [name, b] of Object.entries(r0.buffers)) expect(Buffer.from(r1.buffers[name]!.bytes).toString('hex'), `${name}\n${g.text}\n----\n${out}`).toBe(Buffer.from(b.bytes).toString('hex'));
  });
});
