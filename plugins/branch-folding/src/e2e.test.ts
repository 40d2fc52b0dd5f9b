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

describe('BranchFolding end to end (PTX fixtures, verify-each)', () => {
  for (const name of readdirSync(FIXTURES)) {
    const file = path.join(FIXTURES, name, 'input.ptx');
    it(`${name}: one copy of the common tail, results unchanged`, () => {
      const text = readFileSync(file, 'utf8');
      const on = compile(text, file);
      const off = compile(text, file, { 'enable-tail-merge': 'false' });
      const count = (t: string) => (t.match(/STG/g) ?? []).length;
      expect(count(printModule(off.r.module))).toBe(2);
      expect(count(printModule(on.r.module))).toBe(1);
      expect(on.verify.report.phasesChecked).toBeGreaterThan(0);
      expect(on.r.remarks.some((x) => x.name === 'TailMerged' && x.line !== undefined)).toBe(true);
    });
  }
});
