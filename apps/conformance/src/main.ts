#!/usr/bin/env node
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { corpusDir, makeHarness, runParse, runPtoxide, runZluda } from './harness.js';
import { ourCompiler } from './ours.js';
import { cubinRunner, hasPtxas, runCubinSuites, runSassDifferential } from './sass.js';

/**
 * `pnpm -s conformance`: one line per suite (`zluda: N passed, M failed`, `ptoxide: ...`,
 * `parse: N accepted, M rejected, K crashed`; `sass` adds the ptxas-cubin differential, `ours` the
 * `zluda-ours sm_90: N passed, M failed` line of ptxforge's own cubins), then the names of the failures. Exit code 1 when a suite
 * misses its acceptance bar (>= 95% of ZLUDA io cases, every ptoxide case, 0 parse crashes).
 */
export async function main(argv: readonly string[], out: (s: string) => void = (s) => process.stdout.write(s)): Promise<number> {
  const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
  const corpus = corpusDir(repoRoot);
  if (!corpus) {
    out(`conformance: skipped, ${path.resolve(repoRoot, '../shared/corpus')} is absent\n`);
    return 0;
  }
  // `--arch=sm_90` limits the SASS differential to one arch, `--case=TEXT` every suite to cases whose name contains TEXT
  const option = (name: string): string | undefined => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const archs = option('arch')?.split(',') ?? ['sm_90', 'sm_80'];
  const caseFilter = option('case');
  const only = new Set(argv.filter((a) => !a.startsWith('-')));
  const want = (s: string): boolean => only.size === 0 || only.has(s);
  const failures: string[] = [];
  let ok = true;
  if (want('zluda') || want('ptoxide')) {
    const h = { ...(await makeHarness(corpus)), caseFilter };
    if (want('zluda')) {
      const { io, warp } = runZluda(h);
      out(`zluda: ${io.passed + warp.passed} passed, ${io.failed + warp.failed} failed (io ${io.passed}/${io.passed + io.failed}, warp ${warp.passed}/${warp.passed + warp.failed})\n`);
      failures.push(...io.failures, ...warp.failures);
      if (io.passed < 0.95 * (io.passed + io.failed)) ok = false;
    }
    if (want('ptoxide')) {
      const p = runPtoxide(h);
      out(`ptoxide: ${p.passed} passed, ${p.failed} failed\n`);
      failures.push(...p.failures);
      if (p.failed) ok = false;
    }
  }
  if (want('sass')) {
    const h = { ...(await makeHarness(corpus)), caseFilter };
    if (!hasPtxas()) out('zluda-sass: skipped, no ptxas on PATH\n');
    else {
      for (const arch of archs) {
        const r = runSassDifferential(h, arch);
        // cases ptxas does not compile for the arch (a newer .target, an illegal vector size) are failures too,
        // counted separately so the share of what ptxas compiles is visible
        const rejected = (fs: readonly string[]): string => {
          const n = fs.filter((f) => / ptxas -arch=\S+ rejects it: /.test(f)).length;
          return n ? ` (${n} rejected by ptxas -arch=${arch})` : '';
        };
        out(`zluda-sass ${arch}: ${r.zluda.passed} passed, ${r.zluda.failed} failed${rejected(r.zluda.failures)}\n`);
        out(`ptoxide-sass ${arch}: ${r.ptoxide.passed} passed, ${r.ptoxide.failed} failed${rejected(r.ptoxide.failures)}\n`);
        if (r.retargeted.length) out(`  (${r.retargeted.length} compiled for ${arch} with their .target lowered from a newer SM)\n`);
        failures.push(...r.zluda.failures.map((f) => `${arch} ${f}`), ...r.ptoxide.failures.map((f) => `${arch} ${f}`));
      }
    }
  }
  if (want('ours')) {
    // PTX -> ptxforge's own cubin -> lifted SASS in the interpreter -> expected bytes.
    const h = { ...(await makeHarness(corpus)), caseFilter };
    const r = runCubinSuites(h, cubinRunner('sm_90', ourCompiler(h)));
    out(`zluda-ours sm_90: ${r.zluda.passed} passed, ${r.zluda.failed} failed\n`);
    out(`ptoxide-ours sm_90: ${r.ptoxide.passed} passed, ${r.ptoxide.failed} failed\n`);
    failures.push(...r.zluda.failures.map((f) => `ours sm_90 ${f}`), ...r.ptoxide.failures.map((f) => `ours sm_90 ${f}`));
    if (r.zluda.passed < 0.95 * (r.zluda.passed + r.zluda.failed) || r.ptoxide.failed) ok = false;
  }
  if (want('parse')) {
    const p = runParse(corpus);
    out(`parse: ${p.accepted} accepted, ${p.rejected.length} rejected, ${p.crashed.length} crashed\n`);
    failures.push(...p.crashed.map((c) => `parse crash: ${c}`));
    if (argv.includes('--verbose')) failures.push(...p.rejected.map((r) => `parse rejected: ${r}`));
    if (p.crashed.length) ok = false;
  }
  for (const f of failures) out(`  ${f}\n`);
  return ok ? 0 : 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
