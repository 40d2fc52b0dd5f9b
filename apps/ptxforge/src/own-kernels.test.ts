import { readdirSync, readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readCubin } from '@ptxforge/cubin';
import { cubinHazards as hazardsOf } from './cubin-hazards.test-util.js';
import { runCli } from './run.js';

// Issue #16 "PTX files of our own": CUDA written for this test (test/fixtures/own-kernels/<name>/kernel.cu, with the
// PTX `nvcc -arch=sm_90 -ptx` made of it committed beside it as kernel.ptx; `warp-reduce-half` and friends hold 5-9
// kernels each: templates, CUB block reduce/scan, cooperative groups, half/bf16 math, f16x2 min/max, __int128, inline
// PTX, printf, assert, textures and surfaces, virtual calls, 64-bit CAS, device malloc). Every file goes through
// `--verify-each` (every kernel run after every phase against the run before the first) to a cubin with 0 hazards.
// Each of these failed on main before the fix named in its commit: brev.b64, min/max.f16x2, sqrt.rz.f32,
// cvt.f32.bf16, atom.cas.b64.
const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
const fixtures = path.resolve(here, '../test/fixtures/own-kernels');
const kernels = readdirSync(fixtures).sort();
const tmp = mkdtempSync(path.join(tmpdir(), 'ptxforge-own-kernels-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const tick = () => new Promise<void>((r) => setTimeout(r, 0));


describe('CUDA kernels of our own: nvcc PTX -> --verify-each -> sm_90 cubin, 0 hazards', () => {
  it('has the fixtures', () => {
    expect(kernels.length).toBeGreaterThanOrEqual(6);
  });
  for (const name of kernels) {
    it(name, { timeout: 300_000 }, async () => {
      await tick();
      const ptx = path.join(fixtures, name, 'kernel.ptx');
      const cubin = path.join(tmp, `${name}.cubin`);
      let stderr = '';
      const code = await runCli([ptx, '-arch=sm_90', '-O3', '--verify-each', '--verify-each-dir', path.join(tmp, name), '-o', cubin], {
        stdout: () => undefined, stderr: (s) => (stderr += s), env: {}, cwd: repo,
      });
      await tick();
      expect(stderr.replace(/.*VERIFY_EACH_SKIPPED: kernel \S+ not verified: device-side (malloc|free) .*\n/g, '')).toBe('');
      expect(code).toBe(0);
      const bytes = readFileSync(cubin);
      const entries = (readFileSync(ptx, 'utf8').match(/^\.visible \.entry /gm) ?? []).length;
      expect(readCubin(bytes).functions.filter((f) => f.isEntry).length).toBe(entries);
      expect(hazardsOf(bytes)).toBe(0);
    });
  }
});
