import { createToolchain, parseOri } from '@ptxforge/kernel';
import { describe, expect, it } from 'vitest';
import { sm80Target, targetSm80Plugin } from './index.js';

describe('@ptxforge/target-sm80', () => {
  it('serves its archs and reports its slot-17 handler', () => {
    const tc = createToolchain({ plugins: [targetSm80Plugin] });
    for (const a of sm80Target.archs) expect(tc.resolveTarget(a).target.id).toBe('sm80');
    expect(sm80Target.slot17.status).toBe('implemented');
    expect(sm80Target.pipeWidths).toHaveLength(7);
  });

  it('compiles a trivial kernel for sm_80', () => {
    const tc = createToolchain({ plugins: [targetSm80Plugin] });
    const m = parseOri('.entry @k()\n{\nbb0:\n  EXIT\n}\n');
    const r = tc.compile(m, { arch: 'sm_80' });
    // Without phase plugins every slot is a placeholder or an empty hook, so nothing runs.
    expect(r.phases.filter((p) => p.ran)).toEqual([]);
    expect(r.phases).toHaveLength(159);
  });
});
