import { createToolchain, parseOri } from '@ptxforge/kernel';
import { describe, expect, it } from 'vitest';
import { sm90Target, targetSm90Plugin } from './index.js';

describe('@ptxforge/target-sm90', () => {
  it('serves its archs and reports its slot-17 handler', () => {
    const tc = createToolchain({ plugins: [targetSm90Plugin] });
    for (const a of sm90Target.archs) expect(tc.resolveTarget(a).target.id).toBe('sm90');
    expect(sm90Target.slot17.status).toBe('implemented');
    expect(sm90Target.pipeWidths).toHaveLength(7);
  });

  it('compiles a trivial kernel for sm_90', () => {
    const tc = createToolchain({ plugins: [targetSm90Plugin] });
    const m = parseOri('.entry @k()\n{\nbb0:\n  EXIT\n}\n');
    const r = tc.compile(m, { arch: 'sm_90' });
    // Without phase plugins every slot is a placeholder or an empty hook, so nothing runs.
    expect(r.phases.filter((p) => p.ran)).toEqual([]);
    expect(r.phases).toHaveLength(159);
  });
});

describe('@ptxforge/target-sm90 SASS codec', () => {
  it('encodes and decodes sm_90 words through the Volta+ table', async () => {
    const { sm90SassCodec } = await import('./index.js');
    const { parseInstruction, formatInstruction, isUnknown } = await import('@ptxforge/sass');
    const codec = sm90SassCodec('sm_90');
    const w = codec.encode(parseInstruction('EXIT ;'));
    const d = codec.decode(w);
    expect(isUnknown(d)).toBe(false);
    expect(formatInstruction(d as never)).toBe('EXIT ;');
    expect(() => sm90SassCodec('sm_80')).toThrow(/SASS_ARCH/);
  });
});
