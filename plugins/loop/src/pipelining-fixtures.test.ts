import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LoopSimplificationPhase, LoopUnrollingPhase, PipeliningPhase } from './index.js';
import { fixtureLaunches, runChecked } from './testing/harness.js';

interface Expect {
  pipelined: boolean;
  code?: number;
  /** A piece of the rejection reason. */
  reason?: string;
  knobs?: Record<string, boolean | number | string>;
  n: number[];
}

const DIR = fileURLToPath(new URL('../test/fixtures/pipeline/', import.meta.url));
const CASES = readdirSync(DIR).sort();


/** Phase 24 fixtures: each pipelined shape and each rejection, results compared before and after. */
describe('OriPipelining fixtures (test/fixtures/pipeline)', () => {
  it.each(CASES)('%s', (name) => {
    const text = readFileSync(`${DIR}${name}/input.ori`, 'utf8');
    const e = JSON.parse(readFileSync(`${DIR}${name}/expect.json`, 'utf8')) as Expect;
    const r = runChecked(text, [new LoopSimplificationPhase(), new PipeliningPhase()], fixtureLaunches(e.n), e.knobs ?? {});
    const rm = r.remarks.filter((x) => x.name === 'LoopPipelined' || x.name === 'LoopNotPipelined');
    expect(rm).toHaveLength(1);
    const mine = rm[0]!;
    if (e.pipelined) {
      expect(mine.name, mine.message).toBe('LoopPipelined');
      const a = mine.args as Record<string, number>;
      expect(a.stages).toBeGreaterThan(1);
      expect(a.ii).toBeGreaterThanOrEqual(Math.max(a.resMII!, a.recMII!));
      expect(a.ii).toBeLessThan(a.sequential!);
      // The kernel is a loop again: some block branches back to an earlier one.
      expect(r.text).toMatch(/@!?%p\d+ BRA/);
    } else {
      expect(mine.name).toBe('LoopNotPipelined');
      expect(mine.kind).toBe('missed');
      if (e.code !== undefined) expect(mine.args?.code, mine.message).toBe(e.code);
      if (e.reason) expect(mine.message).toContain(e.reason);
      expect(r.text).toBe(runChecked(text, [new LoopSimplificationPhase()], [], {}).text);
    }
  });

  it('after unrolling by 4, the main loop (a chain of four copies) is pipelined and results stay', () => {
    const text = readFileSync(`${DIR}sum-loads/input.ori`, 'utf8');
    const r = runChecked(text, [new LoopSimplificationPhase(), new LoopUnrollingPhase(), new PipeliningPhase()], fixtureLaunches([0, 1, 3, 4, 5, 8, 9, 17, 33]));
    const unrolled = r.remarks.find((x) => x.name === 'LoopUnrolled');
    expect(unrolled?.args?.factor).toBe(4);
    const piped = r.remarks.filter((x) => x.name === 'LoopPipelined');
    expect(piped, JSON.stringify(r.remarks.filter((x) => x.name === 'LoopNotPipelined'))).toHaveLength(1);
  });
});
