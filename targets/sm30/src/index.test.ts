import { createToolchain, parseOri } from '@ptxforge/kernel';
import { describe, expect, it } from 'vitest';
import { sm30Target, targetSm30Plugin } from './index.js';

describe('@ptxforge/target-sm30', () => {
  it('serves its archs and reports its slot-17 handler', () => {
    const tc = createToolchain({ plugins: [targetSm30Plugin] });
    for (const a of sm30Target.archs) expect(tc.resolveTarget(a).target.id).toBe('sm30');
    expect(sm30Target.slot17.status).toBe('noop');
    expect(sm30Target.pipeWidths).toHaveLength(7);
  });

  it('compiles a trivial kernel for sm_30', () => {
    const tc = createToolchain({ plugins: [targetSm30Plugin] });
    const m = parseOri('.entry @k()\n{\nbb0:\n  EXIT\n}\n');
    const r = tc.compile(m, { arch: 'sm_30' });
    // Without phase plugins every slot is a placeholder or an empty hook, so nothing runs.
    expect(r.phases.filter((p) => p.ran)).toEqual([]);
    expect(r.phases).toHaveLength(159);
  });
});
