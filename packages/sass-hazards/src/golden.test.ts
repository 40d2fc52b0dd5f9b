import { describe, expect, it } from 'vitest';
import { checkHazards } from './check.js';
import { formatHazard } from './report.js';
import { haveGolden, GOLDEN_SM75, loadGoldenListing } from './testing/golden.js';

describe.skipIf(!haveGolden)('ptxas sm_75 listing (../shared/golden/cudatest.7.sm_75.tsv; skipped when absent)', () => {
  it('reports no hazards on ptxas code', () => {
    const all: string[] = [];
    for (const { fn } of loadGoldenListing(GOLDEN_SM75)) {
      const r = checkHazards(fn, { arch: 'sm_75' });
      all.push(...r.hazards.map(formatHazard));
      for (const [k, v] of r.slack) if (process.env.SLACK) console.log(fn.name, k, v.min, v.samples, [...v.hist].sort((a, b) => a[0] - b[0]).map(([a, b]) => `${a}:${b}`).join(' '));
    }
    expect(all).toEqual([]);
  });
});
