import { describe, expect, it } from 'vitest';
import type { Instrumentation } from '@ptxforge/kernel';
import { BENCH_KERNELS } from './kernels.js';
import { benchToolchain, compileKernel, outputsOf, run } from './measure.js';

const OPT_PLUGINS = /plugin-(live-dead|general-optimize|copy-prop|movphi|strength-reduce|predication|gvn-cse)/;

/**
 * Verify-each for the optimization families: every kernel is compiled at -O3 and, after each phase one of
 * them ran, the interpreter runs the current IR and its outputs must equal the -O0 results exactly.
 */
describe('scalar optimizations preserve results after every phase', async () => {
  const tc = await benchToolchain();
  for (const k of BENCH_KERNELS) {
    it(k.name, () => {
      const expected = outputsOf(run(compileKernel(tc, k, 0), k), k);
      const checked: string[] = [];
      const verify: Instrumentation = {
        name: 'bench-opt-verify-each',
        afterPhase(phase, module, result) {
          if (!OPT_PLUGINS.test(phase.owner) || !result.changed) return;
          const got = outputsOf(run(module as never, k), k);
          expect(got, `after phase ${phase.index} ${phase.name}`).toEqual(expected);
          checked.push(phase.name);
        },
      };
      const m3 = compileKernel(tc, k, 3, [verify]);
      expect(outputsOf(run(m3, k), k)).toEqual(expected);
      // Something was optimized (and therefore checked) in every kernel.
      expect(checked.length).toBeGreaterThan(0);
    });
  }
});
