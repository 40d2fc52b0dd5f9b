import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Launch } from '@ptxforge/interp';
import { LoopSimplificationPhase, LoopUnrollingPhase } from './index.js';
import { runChecked } from './testing/harness.js';

interface Expect {
  kind?: 'full' | 'partial';
  factor?: number;
  code?: number;
  block?: string;
  knobs?: Record<string, boolean | number | string>;
  n: number[];
  m?: number[];
}

const DIR = fileURLToPath(new URL('../test/fixtures/unroll/', import.meta.url));
const CASES = readdirSync(DIR).sort();

function launches(e: Expect): Launch[] {
  const out: Launch[] = [];
  for (const n of e.n)
    for (const m of e.m ?? [0])
      out.push({ grid: [1, 1, 1], block: [4, 1, 1], buffers: { out: { type: 'u32', count: 4 }, in: { type: 'u32', count: 4 } }, params: { out: { buffer: 'out' }, in: { buffer: 'in' }, n, m } });
  return out;
}

/** One fixture per decision path of phase 22 (each rejection code, each unroll shape), run before and after. */
describe('OriLoopUnrolling fixtures (test/fixtures/unroll)', () => {
  it.each(CASES)('%s', (name) => {
    const text = readFileSync(`${DIR}${name}/input.ori`, 'utf8');
    const e = JSON.parse(readFileSync(`${DIR}${name}/expect.json`, 'utf8')) as Expect;
    const r = runChecked(text, [new LoopSimplificationPhase(), new LoopUnrollingPhase()], launches(e), e.knobs ?? {});
    const rm = r.remarks.filter((x) => x.name === 'LoopUnrolled' || x.name === 'LoopNotUnrolled');
    const mine = rm.find((x) => x.block === (e.block ?? 'bb1'));
    expect(mine, JSON.stringify(rm)).toBeDefined();
    if (e.code !== undefined) {
      expect(mine!.name).toBe('LoopNotUnrolled');
      expect(mine!.args?.code, mine!.message).toBe(e.code);
      expect(mine!.kind).toBe('missed');
    } else {
      expect(mine!.name, mine!.message).toBe('LoopUnrolled');
      expect(mine!.args?.factor).toBe(e.factor);
      expect(mine!.args?.full).toBe(e.kind === 'full');
    }
    // Every loop of the input got exactly one decision, and the statistics line counts them.
    const partial = rm.filter((x) => x.args?.partial === true).length;
    const rejected = rm.filter((x) => x.kind === 'missed').length;
    expect(r.infos).toContain(`# [partially unrolled loops=${partial}] [non-unrolled loops=${rejected}]`);
  });

  it('a constant-trip-8 loop is fully unrolled: no back edge is left and 8 copies run', () => {
    const text = readFileSync(`${DIR}full-trip8/input.ori`, 'utf8');
    const r = runChecked(text, [new LoopSimplificationPhase(), new LoopUnrollingPhase()], launches({ n: [0] }));
    expect(r.text).not.toMatch(/BRA bb1\b/);
    expect((r.text.match(/IMAD %r9, 3, %r1/g) ?? []).length).toBe(8);
  });

  it('an unknown-trip loop unrolled by 4 runs fewer instructions for n = 100', () => {
    const text = readFileSync(`${DIR}unknown-lt/input.ori`, 'utf8');
    const r = runChecked(text, [new LoopSimplificationPhase(), new LoopUnrollingPhase()], launches({ n: [100] }));
    expect(r.after).toBeLessThan(r.before);
  });
});
