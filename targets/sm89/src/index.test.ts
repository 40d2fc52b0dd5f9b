import { createToolchain, parseOri } from '@ptxforge/kernel';
import { describe, expect, it } from 'vitest';
import { sm89Target, targetSm89Plugin } from './index.js';

describe('@ptxforge/target-sm89', () => {
  it('serves its archs and reports its slot-17 handler', () => {
    const tc = createToolchain({ plugins: [targetSm89Plugin] });
    for (const a of sm89Target.archs) expect(tc.resolveTarget(a).target.id).toBe('sm89');
    expect(sm89Target.slot17.status).toBe('implemented');
    expect(sm89Target.pipeWidths).toHaveLength(7);
  });

  it('compiles a trivial kernel for sm_89', () => {
    const tc = createToolchain({ plugins: [targetSm89Plugin] });
    const m = parseOri('.entry @k()\n{\nbb0:\n  EXIT\n}\n');
    const r = tc.compile(m, { arch: 'sm_89' });
    // Without phase plugins every slot is a placeholder or an empty hook, so nothing runs.
    expect(r.phases.filter((p) => p.ran)).toEqual([]);
    expect(r.phases).toHaveLength(159);
  });
});
