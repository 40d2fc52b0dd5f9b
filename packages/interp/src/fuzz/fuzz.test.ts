import { assertValidModule, definePlugin, imm, parseOri } from '@ptxforge/kernel';
import { corePlugin } from '@ptxforge/plugin-core';
import { targetSm90Plugin } from '@ptxforge/target-sm90';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runKernel } from '../launch.js';
import { type FuzzSummary, fuzzSummaryLines, runFuzz } from './fuzz.js';
import { FUZZ_FEATURES, generateProgram } from './generate.js';

/**
 * Long synchronous loops starve vitest's worker RPC on a loaded machine ("Timeout calling onTaskUpdate"):
 * these tests give the event loop a turn between seeds.
 */
const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** runFuzz seed by seed (the same seeds and verdicts), yielding between seeds. */
async function runFuzzYielding(opts: Parameters<typeof runFuzz>[0]): Promise<FuzzSummary> {
  const first = opts.seed ?? 1;
  let passed = 0;
  const failed: FuzzSummary['failed'][number][] = [];
  for (let k = 0; k < opts.count; k++) {
    await yieldToEventLoop();
    const s = runFuzz({ ...opts, count: 1, seed: first + k });
    passed += s.passed;
    failed.push(...s.failed);
  }
  return { passed, failed };
}

describe('random program generator', () => {
  it('is deterministic per seed', () => {
    expect(generateProgram(17).text).toBe(generateProgram(17).text);
    expect(generateProgram(17).text).not.toBe(generateProgram(18).text);
  });

  it('generates valid programs that run without interpreter errors', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 2 ** 31 - 1 }), async (seed) => {
        await yieldToEventLoop();
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

describe('generator features (off by default; each on its own and all together)', () => {
  it('leaves the programs of existing seeds unchanged when no feature is asked for', () => {
    for (const seed of [1, 17, 99]) expect(generateProgram(seed, { features: [] }).text).toBe(generateProgram(seed).text);
  });

  it.each(FUZZ_FEATURES.map((f) => [f]))('%s: appears within 50 seeds, and its programs are valid and run cleanly', async (f) => {
    const want = f === 'memory' ? 'memory-in-cf' : f;
    let seen = 0;
    for (let seed = 1; seed <= 50; seed++) {
      await yieldToEventLoop();
      const g = generateProgram(seed, { features: [f] });
      if (!g.features.has(want)) continue;
      seen++;
      const m = parseOri(g.text);
      assertValidModule(m);
      const r = runKernel(m, g.launch);
      expect(r.errors.map((e) => e.message), `seed ${seed}`).toEqual([]);
    }
    expect(seen).toBeGreaterThan(1);
  }, 120_000);

  it('all features together pass the pipeline with verify-each', async () => {
    const s = await runFuzzYielding({ count: 12, seed: 500, plugins: [corePlugin, targetSm90Plugin], features: FUZZ_FEATURES });
    expect(s.failed).toEqual([]);
  }, 300_000);
});

describe('fuzz (small count; `pnpm -s fuzz --count N` runs more)', () => {
  it('passes the pipeline with verify-each', async () => {
    const s = await runFuzzYielding({ count: 25, seed: 1000, plugins: [corePlugin, targetSm90Plugin] });
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

describe('fuzz --through-sass plumbing', () => {
  const plugins = [corePlugin, targetSm90Plugin];
  // The hook the CLI gives is "compile to a cubin, run the lifted SASS"; here it runs the program text again,
  // which must agree, and a corrupted copy, which must be caught.
  const rerun = (text: string, file: string, launch: Parameters<typeof runKernel>[1]) => {
    const r = runKernel(parseOri(text, { file }), launch);
    const out: Record<string, Uint8Array> = {};
    for (const [k, v] of Object.entries(r.buffers)) out[k] = v.bytes;
    return out;
  };
  it('passes when the cubin path gives the same buffers', () => {
    const s = runFuzz({ count: 5, seed: 40, plugins, throughSass: rerun });
    expect(fuzzSummaryLines(s)).toEqual(['5 passed, 0 failed']);
  });
  it('fails a seed whose cubin path differs or cannot compile, saying why', () => {
    const flipped = runFuzz({
      count: 3,
      seed: 40,
      plugins,
      throughSass: (t, f, l) => {
        const out = rerun(t, f, l);
        const name = (l.outputs ?? Object.keys(out))[0]!;
        out[name] = Uint8Array.from(out[name]!, (b, i) => (i === 0 ? b ^ 1 : b));
        return out;
      },
    });
    expect(flipped.failed.length).toBe(3);
    expect(flipped.failed[0]!.message).toMatch(/^through SASS: buffer \S+ differs at byte 0: expected 0x[0-9a-f]+, got 0x[0-9a-f]+$/);
    const refused = runFuzz({ count: 1, seed: 40, plugins, throughSass: () => 'CODEGEN_NOT_IMPLEMENTED: op X' });
    expect(refused.failed[0]!.message).toBe('through SASS: CODEGEN_NOT_IMPLEMENTED: op X');
  });
});
