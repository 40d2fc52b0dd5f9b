import { createToolchain, definePlugin, LatencyModel, parseOri, RegisterFile, Slot17Handler } from '@ptxforge/kernel';
import { describe, expect, it } from 'vitest';
import { sm30Target, targetSm30Plugin } from './index.js';
import { PACKAGE } from './package-meta.js';

const unit = () => parseOri('.entry @k()\n{\nbb0:\n  EXIT\n}\n');

describe('@ptxforge/target-sm30', () => {
  it('serves its archs, named after its package', () => {
    const tc = createToolchain({ plugins: [targetSm30Plugin] });
    for (const a of sm30Target.archs) expect(tc.resolveTarget(a).target.id).toBe('sm30');
    expect(targetSm30Plugin.meta.name).toBe(PACKAGE.name);
    expect(targetSm30Plugin.meta.version).toBe(PACKAGE.version);
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
    const tc = createToolchain({ plugins: [targetSm30Plugin, probe] });
    for (const arch of sm30Target.archs) tc.compile(unit(), { arch });
    expect(seen).toEqual(sm30Target.archs.map(() => 'noop 7 R'));
  });

  it('compiles a trivial kernel for sm_30', () => {
    const tc = createToolchain({ plugins: [targetSm30Plugin] });
    const r = tc.compile(unit(), { arch: 'sm_30' });
    // Without phase plugins every slot is a placeholder or an empty hook, so nothing runs.
    expect(r.phases.filter((p) => p.ran)).toEqual([]);
    expect(r.phases).toHaveLength(159);
  });
});
