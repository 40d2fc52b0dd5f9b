import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PtxforgeError, type CompileOptions } from '@ptxforge/kernel';
import { createVerifyEachInstrumentation } from '@ptxforge/interp';
import { REPO_ROOT } from './kernels.js';
import { benchToolchain } from './measure.js';

const CORPUS = path.resolve(REPO_ROOT, '../shared/corpus');
const DIRS = ['zluda', 'ptoxide', 'ptx-ir'].map((d) => path.join(CORPUS, d));

function ptxFiles(): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const f of readdirSync(d).sort()) {
      const p = path.join(d, f);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith('.ptx') && statSync(p).size < 300_000) out.push(p);
    }
  };
  for (const d of DIRS) if (existsSync(d)) walk(d);
  return out;
}

/** Configurations that make each family do the work (the first GeneralOptimize bundle otherwise does most). */
const CONFIGS: ReadonlyArray<{ name: string; options: Partial<CompileOptions> }> = [
  { name: '-O3', options: {} },
  { name: '-O3 without GeneralOptimize bundles', options: { disablePasses: 'GeneralOptimizeEarly,GeneralOptimize,GeneralOptimizeMid,GeneralOptimizeMid2,GeneralOptimizeLate,GeneralOptimizeLate2' } },
  { name: 'only the move, DCE, GVN, strength-reduction and predication phases', options: { namedPhases: 'OriStrengthReduce,GvnCse,OriReplaceEquivMultiDefMov,OriRemoveRedundantMultiDefMov,OriBackCopyPropagate,OriDoPredication,OriPerformLiveDeadFirst', knobs: { OriPredicationMaxArmInstrs: 50 } } },
];

/**
 * The shared PTX corpus through the optimization phases under the interpreter's --verify-each (generated
 * inputs): no phase may change what any kernel writes. Front-end rejections are not this package's concern
 * and are only counted.
 */
describe.skipIf(!existsSync(CORPUS))('corpus under verify-each', async () => {
  const tc = await benchToolchain();
  const files = ptxFiles();
  for (const c of CONFIGS) {
    it(c.name, async () => {
      let compiled = 0;
      for (const f of files) {
        // Yield between files: a minute-long synchronous loop starves vitest's worker RPC ("Timeout calling
        // onTaskUpdate"), which fails the run even though every assertion passed.
        await new Promise((r) => setImmediate(r));
        const ve = createVerifyEachInstrumentation({ seed: 3, maxSteps: 2_000_000 });
        try {
          tc.compile({ text: readFileSync(f, 'utf8'), file: f }, { arch: 'sm_90', optLevel: 3, verifyIr: true, instrumentation: [ve], ...c.options });
          compiled++;
        } catch (e) {
          const code = e instanceof PtxforgeError ? e.code : '';
          if (code === 'VERIFY_EACH_MISMATCH' || code === 'PHASE_FAILED' || code === 'ORI_VERIFY') throw new Error(`${path.relative(CORPUS, f)}: ${(e as Error).message}`);
        }
      }
      expect(compiled).toBeGreaterThan(100);
    }, 120_000);
  }
});
if (!existsSync(CORPUS)) console.warn(`corpus-verify-each: ${CORPUS} is absent; skipped`);
