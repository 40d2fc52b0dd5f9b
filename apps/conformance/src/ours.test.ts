import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { makeHarness, runZluda } from './harness.js';
import { ourCompiler } from './ours.js';
import { cubinRunner, hasPtxas, ptxasCompiler, type CubinCompiler } from './sass.js';

const corpus = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../shared/corpus');
const present = existsSync(corpus);
const ptxas = present && hasPtxas();
if (!ptxas) console.log(`cubin-runner tests with ptxas skipped: ${present ? 'no ptxas on PATH' : `${corpus} is absent`}`);

describe.skipIf(!ptxas)('cubinRunner: PTX -> a compiler\'s cubin -> lifted SASS in the interpreter', () => {
  // The plumbing of the `zluda-ours` suite, exercised with ptxas's cubins until ptxforge's own exist.
  it('passes ZLUDA io cases with ptxas as the compiler and reports a compiler\'s refusal as the reason', async () => {
    const h = await makeHarness(corpus);
    const wanted = new Set(['add', 'and', 'mul_lo', 'not']);
    const real = ptxasCompiler();
    const seen: string[] = [];
    const only: CubinCompiler = (file, text, arch) => (wanted.has(path.basename(file, '.ptx')) ? (seen.push(file), real(file, text, arch)) : 'skipped by the test');
    const { io } = runZluda({ ...h, runner: cubinRunner('sm_90', only) }, { ioOnly: true });
    expect(seen.length).toBe(wanted.size);
    expect(io.passed).toBe(wanted.size);
    expect(io.failures.every((f) => f.endsWith('skipped by the test'))).toBe(true);
    // A compiler that throws a coded error: the failure names the code.
    const throwing: CubinCompiler = () => {
      throw Object.assign(new Error('not implemented: op foo'), { code: 'CODEGEN_NOT_IMPLEMENTED' });
    };
    const r = runZluda({ ...h, runner: cubinRunner('sm_90', throwing) }, { ioOnly: true });
    expect(r.io.passed).toBe(0);
    expect(r.io.failures[0]).toMatch(/compile: CODEGEN_NOT_IMPLEMENTED: not implemented: op foo$/);
  }, 120_000);

});

describe.skipIf(!present)('cubinRunner with ptxforge\'s own compiler (the zluda-ours suite)', () => {
  it('runs ptxforge\'s own cubins: every selected case gets a verdict, and the ones it compiles are checked', async () => {
    const h = await makeHarness(corpus);
    const wanted = new Set(['add', 'and', 'mul_lo', 'not']);
    const compile = ourCompiler(h);
    const only: CubinCompiler = (file, text, arch) => (wanted.has(path.basename(file, '.ptx')) ? compile(file, text, arch) : 'skipped by the test');
    const { io } = runZluda({ ...h, runner: cubinRunner('sm_90', only) }, { ioOnly: true });
    const ours = io.failures.filter((f) => !f.endsWith('skipped by the test'));
    expect(io.passed + ours.length).toBe(wanted.size);
    // A failure names its stage (compile, interpreter, output) instead of crashing the suite.
    for (const f of ours) expect(f).toMatch(/^zluda\/\w+: (compile: [A-Z_]+: |interpreter: |output differs at byte \d+|[A-Z_]+: )/);
  }, 120_000);
});
