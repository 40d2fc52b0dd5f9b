import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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
 * Something that turns a case's PTX into cubin bytes for `arch`: the installed ptxas, or ptxforge's own code
 * generator. Returns the bytes, or a string saying why there are none (the case then fails with that reason).
 */
export type CubinCompiler = (ptxFile: string, ptxText: string, arch: string) => Uint8Array | string;

/** ptxas's refusal of a module whose `.target` names a newer SM than `-arch`. */
const TARGET_TOO_NEW = /SM version specified by \.target is higher/;

/**
 * The installed ptxas at -O3, writing into `outDir`. A module whose `.target` names a newer SM than `arch` (the
 * ptoxide kernels say sm_89, some ZLUDA cases sm_90) is compiled again with its `.target` set to `arch`: the
 * program is the same, and ptxas still rejects what the older SM cannot do (fp8 conversions on sm_80 stay failures).
 * `retargeted` collects the files that needed it.
 */
export function ptxasCompiler(outDir = path.join(tmpdir(), 'ptxforge-sass-differential'), retargeted?: Set<string>): CubinCompiler {
  return (file, text, arch) => {
    const cubinPath = path.join(outDir, arch, file.replace(/[/\\]/g, '__').replace(/\.ptx$/, '.cubin'));
    mkdirSync(path.dirname(cubinPath), { recursive: true });
    const run = (input: string): string | undefined => {
      try {
        execFileSync('ptxas', [`-arch=${arch}`, '-O3', input, '-o', cubinPath], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 120000 });
        return undefined;
      } catch (e) {
        const msg = ((e as { stderr?: Buffer }).stderr?.toString() ?? (e as Error).message).split('\n').find((l) => l.trim()) ?? 'failed';
        return msg.trim();
      }
    };
    let err = run(file);
    if (err && TARGET_TOO_NEW.test(err)) {
      const older = text.replace(/^(\s*\.target\s+)sm_\d+[a-z]?/m, `$1${arch}`);
      const again = cubinPath.replace(/\.cubin$/, `.${arch}.ptx`);
      writeFileSync(again, older);
      const err2 = run(again);
      if (!err2) retargeted?.add(file);
      err = err2 ? `${err2} (after setting .target ${arch}; as written: ${err})` : undefined;
    }
    if (err) return `ptxas -arch=${arch} rejects it: ${err}`;
    return readFileSync(cubinPath);
  };
}

/**
 * The SASS path of a case: `compile` makes a cubin of the case's PTX for `arch`, the cubin is lifted to Ori
 * with physical registers and run by the interpreter on the very launch the PTX path uses.
 */
export function cubinRunner(arch: string, compile: CubinCompiler): CaseRunner {
  return (h, file, launch, check) => {
    const full = path.join(h.corpus, file);
    let bytes: Uint8Array | string;
    try {
      bytes = compile(full, readFileSync(full, 'utf8'), arch);
    } catch (e) {
      const code = (e as { code?: string }).code;
      return `compile: ${code ?? 'error'}: ${describeError(e).split('\n')[0]}`;
    }
    if (typeof bytes === 'string') return bytes;
    try {
      const cubin = readCubin(bytes, { file });
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

/** The ptxas SASS differential (kept for callers of the earlier name). */
export function sassRunner(arch: string, outDir?: string, retargeted?: Set<string>): CaseRunner {
  return cubinRunner(arch, ptxasCompiler(outDir, retargeted));
}

/** ZLUDA io cases and ptoxide cases through `runner`. */
export function runCubinSuites(h: Harness, runner: CaseRunner): { zluda: SuiteResult; ptoxide: SuiteResult } {
  const hs: Harness = { ...h, runner };
  const { io } = runZluda(hs, { ioOnly: true });
  return { zluda: io, ptoxide: runPtoxide(hs) };
}

/** `zluda-sass <arch>` and `ptoxide-sass <arch>` suites. */
export function runSassDifferential(h: Harness, arch: string): { zluda: SuiteResult; ptoxide: SuiteResult; retargeted: string[] } {
  const retargeted = new Set<string>();
  return { ...runCubinSuites(h, sassRunner(arch, undefined, retargeted)), retargeted: [...retargeted].sort() };
}
