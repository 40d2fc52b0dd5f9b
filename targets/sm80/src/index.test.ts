import { createToolchain, definePlugin, LatencyModel, parseOri, RegisterFile, Slot17Handler } from '@ptxforge/kernel';
import { describe, expect, it } from 'vitest';
import { sm80Target, targetSm80Plugin } from './index.js';
import { PACKAGE } from './package-meta.js';

const unit = () => parseOri('.entry @k()\n{\nbb0:\n  EXIT\n}\n');

describe('@ptxforge/target-sm80', () => {
  it('serves its archs, named after its package', () => {
    const tc = createToolchain({ plugins: [targetSm80Plugin] });
    for (const a of sm80Target.archs) expect(tc.resolveTarget(a).target.id).toBe('sm80');
    expect(targetSm80Plugin.meta.name).toBe(PACKAGE.name);
    expect(targetSm80Plugin.meta.version).toBe(PACKAGE.version);
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
    const tc = createToolchain({ plugins: [targetSm80Plugin, probe] });
    for (const arch of sm80Target.archs) tc.compile(unit(), { arch });
    expect(seen).toEqual(sm80Target.archs.map(() => 'implemented 7 R'));
  });

  it('compiles a trivial kernel for sm_80', () => {
    const tc = createToolchain({ plugins: [targetSm80Plugin] });
    const r = tc.compile(unit(), { arch: 'sm_80' });
    // Without phase plugins every slot is a placeholder or an empty hook, so nothing runs.
    expect(r.phases.filter((p) => p.ran)).toEqual([]);
    expect(r.phases).toHaveLength(159);
  });
});
