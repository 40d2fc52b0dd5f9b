import { describe, expect, it } from 'vitest';
import { createToolchain, definePlugin, parseOri } from '@ptxforge/kernel';
import { targetSm90Plugin } from '@ptxforge/target-sm90';
import { raFunctionFromOri } from './ori.js';
import { MachineRegisterAllocator, MachineScheduler, regallocPlugin } from './plugin.js';

const TEXT = `
.entry @k()
{
bb0:
  %r0 = S2R SR_TID.X
  %r1 = IMAD %r0, %r0, RZ
  %rd0 = IMAD.WIDE %r1, 4, RZ
  %r2 = LDG.E [%rd0]
  %r3 = IADD3 %r2, %r1, RZ
  STG.E [%rd0], %r3
  EXIT
}
`;

describe('regallocPlugin', () => {
  it('serves the allocator and schedulers of the selected arch through the compilation', () => {
    const seen: string[] = [];
    const probe = definePlugin({ name: 'probe', version: '1.0.0', api: '^1.0.0' }, {
      hooks: {
        AdvancedPhaseAllocReg: (ctx) => {
          {
            const ra = ctx.service(MachineRegisterAllocator);
            const sched = ctx.service(MachineScheduler);
            for (const fn of ctx.module.functions) {
              const pre = sched.preRA(raFunctionFromOri(fn).fn);
              const res = ra.allocate(pre.fn, { reserved: { R: [1] } });
              const post = sched.postRA(res);
              seen.push(`${ctx.target.arch} R=${res.usage.R?.used} classes=${ra.classes.map((c) => `${c.cls}${c.count}`).join(',')} violations=${ra.verify(post.result, { reserved: { R: [1] } }).length}`);
              seen.push(`LDG->IADD3 ${sched.latency.latency({ opcode: 'LDG' }, { opcode: 'IADD3' })} IMAD->IADD3 ${sched.latency.latency({ opcode: 'IMAD' }, { opcode: 'IADD3' })}`);
            }
          }
        },
      },
    });
    createToolchain({ plugins: [targetSm90Plugin, regallocPlugin, probe] }).compile(parseOri(TEXT), { arch: 'sm_90' });
    expect(seen).toHaveLength(2);
    expect(seen[0]).toMatch(/^sm_90 R=\d+ classes=R255,P7,UR63,UP7,B16 violations=0$/);
    expect(seen[1]).toMatch(/^LDG->IADD3 200 IMAD->IADD3 [1-9]$/);
  });
});
