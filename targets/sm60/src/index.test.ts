import { createToolchain, parseOri } from '@ptxforge/kernel';
import { describe, expect, it } from 'vitest';
import { sm60Target, targetSm60Plugin } from './index.js';

describe('@ptxforge/target-sm60', () => {
  it('serves its archs and reports its slot-17 handler', () => {
    const tc = createToolchain({ plugins: [targetSm60Plugin] });
    for (const a of sm60Target.archs) expect(tc.resolveTarget(a).target.id).toBe('sm60');
    expect(sm60Target.slot17.status).toBe('implemented');
    expect(sm60Target.pipeWidths).toHaveLength(7);
  });

  it('compiles a trivial kernel for sm_60', () => {
    const tc = createToolchain({ plugins: [targetSm60Plugin] });
    const m = parseOri('.entry @k()\n{\nbb0:\n  EXIT\n}\n');
    const r = tc.compile(m, { arch: 'sm_60' });
    // Without phase plugins every slot is a placeholder or an empty hook, so nothing runs.
    expect(r.phases.filter((p) => p.ran)).toEqual([]);
    expect(r.phases).toHaveLength(159);
  });
});
