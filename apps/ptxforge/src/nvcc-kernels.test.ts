import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './run.js';

// The SASS differential beyond the corpus: small CUDA kernels of our own (test/fixtures/nvcc-kernels/<case>/
// kernel.cu, with the PTX `nvcc -arch=sm_90 -ptx` made of each, committed beside it) — reductions and scans in
// shared memory, switches, data-dependent loops, fp64, 64-bit hashing, device calls, shared atomics; and two
// hand-written PTX, predicate_spill (predicates ptxas keeps in registers with P2R; cicc never leaves them live
// across a loop, see its header) and ldmatrix_rows (LDSM.16.M88.4/.2). Each PTX runs
// on the PTX path with a generated launch (`--run --seed N --save-launch L.json`), ptxas -arch=sm_90 compiles it,
// and the cubin, lifted and run with the very same launch, must leave the same bytes in every buffer.

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.resolve(here, '../test/fixtures/nvcc-kernels');
const SEEDS = [1, 7];

function hasPtxas(): boolean {
  try {
    execFileSync('ptxas', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** '' when equal, else where two hex dumps first differ (byte offset and a few bytes of each). */
function firstDifference(got: string, want: string): string {
  if (got === want) return '';
  let i = 0;
  while (i < got.length && i < want.length && got[i] === want[i]) i++;
  const at = i - (i % 8);
  return `byte ${at / 2}: ${got.slice(at, at + 16)} vs ${want.slice(at, at + 16)} (lengths ${got.length / 2}, ${want.length / 2})`;
}

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), env: {}, cwd: here });
  return { code, stdout, stderr };
}

const ptxas = hasPtxas();
const cases = ptxas && existsSync(fixtures) ? readdirSync(fixtures).filter((d) => existsSync(path.join(fixtures, d, 'kernel.ptx'))).sort() : [];

if (!ptxas) console.log('nvcc-kernels differential skipped: no ptxas on PATH');
describe.skipIf(!ptxas)('nvcc kernels: ptxas sm_90 cubins replay the PTX path\'s launch to the same buffers', () => {
  const dir = ptxas ? mkdtempSync(path.join(tmpdir(), 'ptxforge-nvcc-kernels-')) : '';
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  it('has its fixtures', () => {
    expect(cases.length).toBeGreaterThanOrEqual(6);
  });
  for (const name of cases) {
    it(name, async () => {
      const ptx = path.join(fixtures, name, 'kernel.ptx');
      const cubin = path.join(dir, `${name}.cubin`);
      execFileSync('ptxas', ['-arch=sm_90', '-O3', ptx, '-o', cubin], { stdio: 'ignore' });
      for (const seed of SEEDS) {
        const launch = path.join(dir, `${name}.${seed}.json`);
        const a = await cli([ptx, '-arch', 'sm_90', '--run', '--seed', String(seed), '--save-launch', launch]);
        expect(a.stderr).toBe('');
        expect(a.code).toBe(0);
        const b = await cli([cubin, '--run', '--launch', launch]);
        expect(b.stderr).toBe('');
        expect(b.code).toBe(0);
        const ja = JSON.parse(a.stdout) as { buffers: Record<string, { hex: string }> };
        const jb = JSON.parse(b.stdout) as { buffers: Record<string, { hex: string }> };
        expect(Object.keys(jb.buffers)).toEqual(Object.keys(ja.buffers));
        expect(Object.keys(ja.buffers).length).toBeGreaterThan(0);
        for (const k of Object.keys(ja.buffers)) expect(firstDifference(jb.buffers[k]!.hex, ja.buffers[k]!.hex), `${name} seed ${seed} buffer ${k}`).toBe('');
      }
    }, 120000);
  }
});
