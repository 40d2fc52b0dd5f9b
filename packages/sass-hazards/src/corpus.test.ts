import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkCubinFile, compileWithPtxas, hasPtxas, ptxFilesUnder } from './corpus.js';
import { formatHazard } from './report.js';

const corpus = fileURLToPath(new URL('../../../../shared/corpus/', import.meta.url));
const ok = existsSync(corpus) && hasPtxas();

describe.skipIf(!ok)('ptxas cubins of the corpus have no hazards (needs ../shared/corpus and ptxas; skipped when absent)', () => {
  // every ptoxide kernel and every fourth ZLUDA kernel (the whole corpus: `pnpm --filter @ptxforge/sass-hazards check-corpus`)
  // a skipped describe still runs its body: list the files only when the corpus is there
  const files = ok
    ? [
        ...ptxFilesUnder(path.join(corpus, 'ptoxide')),
        ...ptxFilesUnder(path.join(corpus, 'zluda', 'spirv_run')).filter((_, i) => i % 4 === 0),
      ]
    : [];
  const out = path.join(tmpdir(), 'ptxforge-hazard-test-cubins');
  for (const arch of ['sm_75', 'sm_80', 'sm_86', 'sm_89', 'sm_90']) {
    it(arch, async () => {
      let checked = 0;
      const lines: string[] = [];
      for (const f of files) {
        // yield between files: ptxas runs synchronously, and a long blocked worker makes vitest report
        // "Timeout calling onTaskUpdate" on a loaded machine
        await new Promise((resolve) => setImmediate(resolve));
        const cubin = compileWithPtxas(f, arch, path.join(out, arch, path.relative(corpus, f).replace(/[/\\]/g, '__') + '.cubin'));
        if (!cubin) continue;
        const r = checkCubinFile(cubin);
        for (const fr of r.functions) {
          checked += fr.instructions;
          lines.push(...fr.result.hazards.map((h) => `${path.basename(f)}: ${formatHazard(h)}`));
        }
      }
      expect(checked).toBeGreaterThan(400);
      expect(lines).toEqual([]);
    });
  }
});
