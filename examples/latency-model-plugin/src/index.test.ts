import { createToolchain, definePlugin, LatencyModel, parseOri, type PluginDefinition } from '@ptxforge/kernel';
import { corePlugin } from '@ptxforge/plugin-core';
import { targetSm80Plugin } from '@ptxforge/target-sm80';
import { targetSm90Plugin } from '@ptxforge/target-sm90';
import { describe, expect, it } from 'vitest';
import { measuredLatencyPlugin } from './index.js';

const src = `.entry @k()
{
bb0:
  %r0 = S2R SR_TID.X
  %r1 = IMAD %r0, %r0, %r0
  %r2 = IADD3 %r1, %r0, RZ
  %rd0 = MOV 0x1000
  STG.E.32 [%rd0], %r2
  EXIT
}
`;
/** A probe phase that reports which IMAD latency the selected arch's LatencyModel gives. */
const probe = definePlugin({ name: 'probe', version: '1.0.0', api: '^1.0.0' }, {
  phases: { OriRemoveNopCode: () => ({ execute: (ctx) => ctx.info(`IMAD=${ctx.service(LatencyModel).fixedLatency('IMAD')}`) }) },
});

function run(plugins: PluginDefinition<any>[], arch: string) { // eslint-disable-line @typescript-eslint/no-explicit-any
  return createToolchain({ plugins }).compile(parseOri(src), { arch });
}

describe('example: measured LatencyModel and an sm_90-only hook', () => {
  it('replaces target-sm90 LatencyModel for sm_90 whatever the plugin order, and reports before scheduling', () => {
    for (const plugins of [
      [corePlugin, targetSm90Plugin, measuredLatencyPlugin, probe],
      [measuredLatencyPlugin, probe, corePlugin, targetSm90Plugin],
    ]) {
      const r = run(plugins, 'sm_90');
      expect(r.info).toContain('IMAD=5');
      // S2R (variable) -> IMAD 5 -> IADD3 4: the fixed chain is 9 cycles; S2R, STG and EXIT are variable-latency.
      expect(r.info.filter((l) => l.startsWith('latency-model'))).toEqual(['latency-model: k: 9 cycles of fixed-latency chains, 3 variable-latency instructions']);
      expect(r.remarks.map((x) => `${x.phase}:${x.name}:${x.args?.cycles}`)).toEqual(['AdvancedPhasePreSched:LatencyEstimate:9']);
    }
    // Without the example, the target's generation model answers 4.
    expect(run([corePlugin, targetSm90Plugin, probe], 'sm_90').info).toContain('IMAD=4');
  });

  it('leaves other archs alone: no hook, their own target model', () => {
    const r = run([corePlugin, targetSm80Plugin, targetSm90Plugin, measuredLatencyPlugin, probe], 'sm_80');
    expect(r.info.filter((l) => !l.startsWith('Report'))).toEqual(['IMAD=4']);
    expect(r.remarks).toEqual([]);
  });
});
