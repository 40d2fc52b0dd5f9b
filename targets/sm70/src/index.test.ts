import { createToolchain, parseOri } from '@ptxforge/kernel';
import { describe, expect, it } from 'vitest';
import { sm70Target, targetSm70Plugin } from './index.js';

describe('@ptxforge/target-sm70', () => {
  it('serves its archs and reports its slot-17 handler', () => {
    const tc = createToolchain({ plugins: [targetSm70Plugin] });
    for (const a of sm70Target.archs) expect(tc.resolveTarget(a).target.id).toBe('sm70');
    expect(sm70Target.slot17.status).toBe('implemented');
    expect(sm70Target.pipeWidths).toHaveLength(7);
  });

  it('compiles a trivial kernel for sm_70', () => {
    const tc = createToolchain({ plugins: [targetSm70Plugin] });
    const m = parseOri('.entry @k()\n{\nbb0:\n  EXIT\n}\n');
    const r = tc.compile(m, { arch: 'sm_70' });
    // Without phase plugins every slot is a placeholder or an empty hook, so nothing runs.
    expect(r.phases.filter((p) => p.ran)).toEqual([]);
    expect(r.phases).toHaveLength(159);
  });
});
