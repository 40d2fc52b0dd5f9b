import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cubinHazards as hazardsOf } from './cubin-hazards.test-util.js';
import { runCli } from './run.js';

// Issue #12 "beyond the corpus": CUDA kernels of our own (test/fixtures/cuda-kernels/<name>/kernel.cu), compiled to
// PTX with `nvcc -arch=sm_90 -ptx` when the fixtures were written (kernel.ptx, committed beside the source). Each
// goes PTX -> our sm_90 cubin (-v must print ptxas's register line); the PTX path runs with generated inputs and
// saves its launch; the cubin runs with that launch (lifted SASS) and must give the same buffers; the cubin's code,
// decoded from its bytes, must show 0 hazards.
const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
const fixtures = path.resolve(here, '../test/fixtures/cuda-kernels');
const kernels = readdirSync(fixtures).sort();
const tmp = mkdtempSync(path.join(tmpdir(), 'ptxforge-cuda-kernels-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// each CLI call runs synchronously for seconds: yield to vitest's worker RPC between them (else "Timeout calling
// onTaskUpdate" under load)
const tick = () => new Promise<void>((r) => setTimeout(r, 0));

async function cli(args: string[]) {
  await tick();
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), env: {}, cwd: repo });
  await tick();
  return { code, stdout, stderr };
}


describe('nvcc-compiled CUDA kernels: PTX -> our sm_90 cubin -> --run with the PTX path\'s launch', () => {
  it('has the fixtures', () => {
    expect(kernels).toEqual(['device-calls', 'fp64', 'hash64', 'loops', 'reduce', 'scan', 'switch', 'tiling']);
  });

  for (const name of kernels) {
    it(name, { timeout: 240_000 }, async () => {
      const ptx = path.join(fixtures, name, 'kernel.ptx');
      const cubin = path.join(tmp, `${name}.cubin`);
      const launch = path.join(tmp, `${name}.launch.json`);
      const c = await cli([ptx, '-arch=sm_90', '-O3', '-v', '-o', cubin]);
      expect(c.stderr).toMatch(/ptxas info {4}: Used \d+ registers/);
      expect(c.code).toBe(0);
      expect(hazardsOf(readFileSync(cubin))).toBe(0);
      for (const seed of ['1', '9']) {
        const a = await cli([ptx, '-arch', 'sm_90', '--run', '--seed', seed, '--save-launch', launch]);
        expect(a.code).toBe(0);
        const b = await cli([cubin, '--run', '--launch', launch]);
        expect(b.stderr).toBe('');
        expect(b.code).toBe(0);
        const ja = JSON.parse(a.stdout) as { buffers: Record<string, { hex: string }> };
        const jb = JSON.parse(b.stdout) as { buffers: Record<string, { hex: string }> };
        expect(Object.keys(jb.buffers)).toEqual(Object.keys(ja.buffers));
        for (const k of Object.keys(ja.buffers)) expect(jb.buffers[k]!.hex, `${name} seed ${seed} buffer ${k}`).toBe(ja.buffers[k]!.hex);
      }
    });
  }
});
