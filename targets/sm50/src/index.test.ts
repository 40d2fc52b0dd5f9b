import { createToolchain, parseOri } from '@ptxforge/kernel';
import { describe, expect, it } from 'vitest';
import { sm50Target, targetSm50Plugin } from './index.js';

describe('@ptxforge/target-sm50', () => {
  it('serves its archs and reports its slot-17 handler', () => {
    const tc = createToolchain({ plugins: [targetSm50Plugin] });
    for (const a of sm50Target.archs) expect(tc.resolveTarget(a).target.id).toBe('sm50');
    expect(sm50Target.slot17.status).toBe('noop');
    expect(sm50Target.pipeWidths).toHaveLength(7);
  });

  it('compiles a trivial kernel for sm_50', () => {
    const tc = createToolchain({ plugins: [targetSm50Plugin] });
    const m = parseOri('.entry @k()\n{\nbb0:\n  EXIT\n}\n');
    const r = tc.compile(m, { arch: 'sm_50' });
    // Without phase plugins every slot is a placeholder or an empty hook, so nothing runs.
    expect(r.phases.filter((p) => p.ran)).toEqual([]);
    expect(r.phases).toHaveLength(159);
  });
});
