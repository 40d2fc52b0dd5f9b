import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readCubin } from '@ptxforge/cubin';
import { runCubin } from '@ptxforge/sass-lift';
import { describeError, type CaseRunner, type Harness, type LaunchLike, type SuiteResult } from './harness.js';
import { runPtoxide, runZluda } from './harness.js';

export function hasPtxas(): boolean {
  try {
    execFileSync('ptxas', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * The SASS differential: the real ptxas compiles the case's PTX for `arch`, the cubin is lifted to Ori with
 * physical registers and run by the interpreter on the very launch the PTX path uses.
 */
export function sassRunner(arch: string, outDir = path.join(tmpdir(), 'ptxforge-sass-differential')): CaseRunner {
  return (h, file, launch, check) => {
    const cubinPath = path.join(outDir, arch, file.replace(/[/\\]/g, '__').replace(/\.ptx$/, '.cubin'));
    mkdirSync(path.dirname(cubinPath), { recursive: true });
    try {
      execFileSync('ptxas', [`-arch=${arch}`, '-O3', path.join(h.corpus, file), '-o', cubinPath], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 120000 });
    } catch (e) {
      const msg = ((e as { stderr?: Buffer }).stderr?.toString() ?? (e as Error).message).split('\n').find((l) => l.trim()) ?? 'failed';
      return `ptxas -arch=${arch} rejects it: ${msg.trim()}`;
    }
    try {
      const cubin = readCubin(readFileSync(cubinPath), { file: cubinPath });
      // ZLUDA's warp harness passes the output pointer twice: give the kernel as many as it has
      const r = runCubin(cubin, launch as LaunchLike);
      if (!r.result.ok) return `interpreter: ${r.result.errors.map((x) => x.message.split('\n')[0]).join('; ')}`;
      const out: Record<string, Uint8Array> = {};
      for (const [k, v] of Object.entries(r.result.buffers)) out[k] = v.bytes;
      return check(out);
    } catch (e) {
      const code = (e as { code?: string }).code;
      return `${code ?? 'error'}: ${describeError(e).split('\n')[0]}`;
    }
  };
}

/** `zluda-sass <arch>` and `ptoxide-sass <arch>` suites. */
export function runSassDifferential(h: Harness, arch: string): { zluda: SuiteResult; ptoxide: SuiteResult } {
  const hs: Harness = { ...h, runner: sassRunner(arch) };
  const { io } = runZluda(hs, { ioOnly: true });
  return { zluda: io, ptoxide: runPtoxide(hs) };
}
