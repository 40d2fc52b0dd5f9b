import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './run.js';

// fuzz-ptx crash 2 (issue #16) and its kin: code that folding or unrolling makes unreachable held the only
// definition of a register on some path, and a read of it remains. The pipeline gives such a register an
// UNDEF at the entry (packages/kernel/src/ir/reaching-defs.ts); every phase's IR must verify and every phase
// must keep the program's results (--verify-ir, --verify-each, -O3). Fixtures: test/fixtures/unreachable-defs.
const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.resolve(here, '../test/fixtures/unreachable-defs');
const cases = readdirSync(fixtures).sort();
const tmp = mkdtempSync(path.join(tmpdir(), 'ptxforge-unreachable-defs-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('uses whose only definition went with unreachable code (fuzz-ptx crash 2)', () => {
  it('has the fixtures', () => {
    expect(cases).toEqual(['loop-redefined', 'vote-skipped']);
  });
  for (const name of cases) {
    it(name, { timeout: 120_000 }, async () => {
      await new Promise(setImmediate);
      let stderr = '';
      const out = path.join(tmp, `${name}.cubin`);
      const code = await runCli(['-arch', 'sm_90', '-O3', '--verify-ir', '--verify-each', path.join(fixtures, name, 'kernel.ptx'), '-o', out], {
        stdout: () => {},
        stderr: (s) => (stderr += s),
        env: {},
        cwd: tmp,
      });
      expect(stderr).toBe('');
      expect(code).toBe(0);
    });
  }
});
