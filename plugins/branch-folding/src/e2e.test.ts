import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createToolchain, printModule } from '@ptxforge/kernel';
import { createVerifyEachInstrumentation } from '@ptxforge/interp';
import { corePlugin } from '@ptxforge/plugin-core';
import { movPhiPlugin } from '@ptxforge/plugin-movphi';
import { ptxFrontendPlugin } from '@ptxforge/ptx';
import { targetSm90Plugin } from '@ptxforge/target-sm90';
import { branchFoldingPlugin } from './index.js';

const FIXTURES = path.resolve(__dirname, '../test/fixtures/e2e');

/** PTX → Ori at -O3 through a toolchain with BranchFolding, checked by --verify-each after every phase. */
function compile(text: string, file: string, knobs: Record<string, string> = {}) {
  const tc = createToolchain({ plugins: [corePlugin, ptxFrontendPlugin, targetSm90Plugin, movPhiPlugin, branchFoldingPlugin] });
  const verify = createVerifyEachInstrumentation({ seed: 1 });
  const r = tc.compile({ text, file }, { arch: 'sm_90', optLevel: 3, knobs, instrumentation: [verify] });
  return { r, verify };
}

interface Expect {
  /** Opcode whose copies are counted (for example STG: one per copy of the tail). */
  readonly opcode: string;
  readonly withTailMerge: number;
  readonly without: number;
  /** Only check that the function got smaller. */
  readonly shrinks?: boolean;
}

const instrCount = (m: ReturnType<typeof compile>['r']['module']): number => m.functions.reduce((n, f) => n + f.instructionCount, 0);

describe('BranchFolding end to end (PTX fixtures, verify-each)', () => {
  for (const name of readdirSync(FIXTURES)) {
    const dir = path.join(FIXTURES, name);
    const file = path.join(dir, 'input.ptx');
    const want = JSON.parse(readFileSync(path.join(dir, 'expect.json'), 'utf8')) as Expect;
    it(`${name}: tails merged as expected, results unchanged after every phase`, () => {
      const text = readFileSync(file, 'utf8');
      const on = compile(text, file);
      const off = compile(text, file, { 'enable-tail-merge': 'false' });
      const count = (t: string) => (t.match(new RegExp(`\\b${want.opcode}\\b`, 'g')) ?? []).length;
      // A mismatch would have thrown VERIFY_EACH_MISMATCH out of compile().
      expect(on.verify.report.mismatch).toBeUndefined();
      if (want.shrinks) {
        expect(instrCount(on.r.module)).toBeLessThan(instrCount(off.r.module));
      } else {
        expect(count(printModule(off.r.module))).toBe(want.without);
        expect(count(printModule(on.r.module))).toBe(want.withTailMerge);
      }
      if (want.withTailMerge !== want.without) {
        expect(on.r.remarks.some((x) => x.name === 'TailMerged' && x.line !== undefined)).toBe(true);
        expect(on.verify.report.phasesChecked).toBeGreaterThan(0);
      }
    });
  }
});
