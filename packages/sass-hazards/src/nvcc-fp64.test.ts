import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { HOPPER as HOPPER_LATENCIES, AMPERE as AMPERE_LATENCIES, rawLatency } from './index.js';
import { checkCubinFile, compileWithPtxas, hasPtxas } from './corpus.js';
import { formatHazard } from './report.js';

// The nvcc kernel fp64_math (apps/ptxforge/test/fixtures/nvcc-kernels): ptxas 13.0's sm_90 code spaces
// DSETP → SEL/FSEL of its predicate by 6 and 8 cycles, below the 10 of fp64 register results read as alu.
const ptx = fileURLToPath(new URL('../../../apps/ptxforge/test/fixtures/nvcc-kernels/fp64_math/kernel.ptx', import.meta.url));
const ok = existsSync(ptx) && hasPtxas();

describe('fp64 compare predicates have their own latency row', () => {
  it('Hopper: DSETP predicate → alu 6, fp64 register → alu stays 10', () => {
    expect(rawLatency(HOPPER_LATENCIES, 'fp64pred', 'alu')).toBe(6);
    expect(rawLatency(HOPPER_LATENCIES, 'fp64', 'alu')).toBe(10);
    expect(rawLatency(AMPERE_LATENCIES, 'fp64pred', 'alu')).toBe(rawLatency(AMPERE_LATENCIES, 'fp64', 'alu'));
  });
});

if (!ok) console.log('fp64_math hazard check skipped: no ptxas on PATH or fixture absent');
describe.skipIf(!ok)('ptxas cubins of the nvcc kernel fp64_math have no hazards (needs ptxas)', () => {
  const dir = ok ? mkdtempSync(path.join(tmpdir(), 'ptxforge-fp64-math-')) : '';
  for (const arch of ['sm_75', 'sm_80', 'sm_86', 'sm_89', 'sm_90']) {
    it(arch, () => {
      const src = path.join(dir, `kernel.${arch}.ptx`);
      writeFileSync(src, readFileSync(ptx, 'utf8').replace(/^\.target sm_\d+/m, `.target ${arch}`));
      const cubin = compileWithPtxas(src, arch, path.join(dir, `fp64_math.${arch}.cubin`));
      expect(cubin).toBeDefined();
      const r = checkCubinFile(cubin!);
      const lines: string[] = [];
      let predReads = 0;
      for (const fr of r.functions) {
        lines.push(...fr.result.hazards.map((h) => formatHazard(h)));
        for (const [k, v] of fr.result.slack) if (k.endsWith(':fp64pred->alu')) for (const [, c] of v.hist) predReads += c;
      }
      expect(r.undecoded).toEqual([]);
      expect(lines).toEqual([]);
      // sm_90: the four DSETP → SEL/FSEL reads ptxas covers by stall counts alone
      if (arch === 'sm_90') expect(predReads).toBe(4);
    });
  }
});
