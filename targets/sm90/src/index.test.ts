import { createToolchain, definePlugin, LatencyModel, parseOri, RegisterFile, Slot17Handler } from '@ptxforge/kernel';
import { describe, expect, it } from 'vitest';
import { sm90Target, targetSm90Plugin } from './index.js';
import { PACKAGE } from './package-meta.js';

const unit = () => parseOri('.entry @k()\n{\nbb0:\n  EXIT\n}\n');

describe('@ptxforge/target-sm90', () => {
  it('serves its archs, named after its package', () => {
    const tc = createToolchain({ plugins: [targetSm90Plugin] });
    for (const a of sm90Target.archs) expect(tc.resolveTarget(a).target.id).toBe('sm90');
    expect(targetSm90Plugin.meta.name).toBe(PACKAGE.name);
    expect(targetSm90Plugin.meta.version).toBe(PACKAGE.version);
  });

  it('provides its slot-17 handler, latency model and register file for each of its archs', () => {
    const seen: string[] = [];
    const probe = definePlugin({ name: 'probe', version: '1.0.0', api: '^1.0.0' }, {
      phases: {
        FinalInspectionPass: () => ({
          execute: (ctx) =>
            void seen.push(`${ctx.service(Slot17Handler).status} ${ctx.service(LatencyModel).pipeWidths.length} ${ctx.service(RegisterFile).classes[0]!.prefix}`),
        }),
      },
    });
    const tc = createToolchain({ plugins: [targetSm90Plugin, probe] });
    for (const arch of sm90Target.archs) tc.compile(unit(), { arch });
    expect(seen).toEqual(sm90Target.archs.map(() => 'implemented 7 R'));
  });

  it('compiles a trivial kernel for sm_90', () => {
    const tc = createToolchain({ plugins: [targetSm90Plugin] });
    const r = tc.compile(unit(), { arch: 'sm_90' });
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
