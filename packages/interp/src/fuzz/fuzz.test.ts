import { assertValidModule, definePlugin, imm, parseOri } from '@ptxforge/kernel';
import { corePlugin } from '@ptxforge/plugin-core';
import { targetSm90Plugin } from '@ptxforge/target-sm90';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runKernel } from '../launch.js';
import { fuzzSummaryLines, runFuzz } from './fuzz.js';
import { generateProgram } from './generate.js';

describe('random program generator', () => {
  it('is deterministic per seed', () => {
    expect(generateProgram(17).text).toBe(generateProgram(17).text);
    expect(generateProgram(17).text).not.toBe(generateProgram(18).text);
  });

  it('generates valid programs that run without interpreter errors', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (seed) => {
        const g = generateProgram(seed);
        const m = parseOri(g.text);
        assertValidModule(m);
        const r = runKernel(m, g.launch);
        expect(r.errors.map((e) => e.message)).toEqual([]);
        expect(r.counts.threadInstructions).toBeGreaterThan(0);
      }),
      { numRuns: 60, seed: 1 },
    );
  });

  it('covers every construct the issue lists over a few hundred seeds', () => {
    const seen = new Set<string>();
    for (let s = 1; s <= 300; s++) for (const f of generateProgram(s).features) seen.add(f);
    for (const f of ['if', 'nested-if', 'and', 'or', 'loop-const', 'loop-var', 'nested-loop', 'adjacent-loops', 'loop-invariant',
      'switch-dense', 'switch-dense-default', 'switch-sparse', 'switch-sparse-default', 'shared-barrier', 'mixed', 'div',
      'loop-memory', 'loop-register-stride']) {
      expect(seen, f).toContain(f);
    }
  });
});

describe('fuzz (small count; `pnpm -s fuzz --count N` runs more)', () => {
  it('passes the pipeline with verify-each', () => {
    const s = runFuzz({ count: 25, seed: 1000, plugins: [corePlugin, targetSm90Plugin] });
    expect(s.failed).toEqual([]);
    expect(fuzzSummaryLines(s)).toEqual(['25 passed, 0 failed']);
  });
});

describe('fuzz knobs', () => {
  it('hands --knob settings to every compilation (an unknown knob fails each case, naming it)', () => {
    const s = runFuzz({ count: 2, seed: 1, plugins: [corePlugin, targetSm90Plugin], knobs: [{ name: 'NoSuchKnobForFuzz', value: '1' }] });
    expect(s.failed).toHaveLength(2);
    expect(s.failed[0]!.message).toContain('NoSuchKnobForFuzz');
  });
});

describe('fuzz detects a wrong phase', () => {
  it('reports the seeds and names the phase', () => {
    // Off-by-one in every "+ 1" (loop increments): a miscompilation verify-each must catch.
    const wrong = definePlugin(
      { name: '@ptxforge/test-wrong', version: '0.1.0', api: '^1.0.0' },
      {
        phases: {
          GeneralOptimizeEarly: () => ({
            execute(ctx) {
              for (const fn of ctx.module.functions) {
                for (const i of fn.instructions()) if (i.opcode === 'IADD3' && i.uses[1]?.kind === 'imm' && i.uses[1].value === 1n) i.setUse(1, imm(2));
              }
            },
          }),
        },
      },
    );
    const s = runFuzz({ count: 6, seed: 1, plugins: [corePlugin, targetSm90Plugin, wrong] });
    expect(s.failed.length).toBeGreaterThan(0);
    expect(s.failed[0]!.message).toContain('VERIFY_EACH_MISMATCH: phase 13 GeneralOptimizeEarly (@ptxforge/test-wrong)');
    expect(fuzzSummaryLines(s)[1]).toMatch(/^failing seeds: \d+/);
  });
});
