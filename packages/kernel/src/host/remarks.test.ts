import { describe, expect, it } from 'vitest';
import { parseOri } from '../ir/parse.js';
import type { PhaseContext } from '../pipeline/protocol.js';
import { definePlugin } from '../plugin.js';
import type { TargetDescriptor } from '../target.js';
import { createToolchain } from './toolchain.js';

const target: TargetDescriptor = {
  id: 'smremark',
  family: 'Test',
  archs: ['sm_90'],
  capabilities: {
    uniformRegisters: true, convergenceBarriers: true, threeInputAlu: true, packedHalf: true, warpgroupMma: true,
    paramBase: 0x210, maxRegistersPerThread: 255, maxSharedPerBlock: 227 * 1024,
  },
};

describe('optimization remarks', () => {
  it('collects remarks with the emitting phase, in phase order', () => {
    const emit = (name: string) => (ctx: PhaseContext) =>
      ctx.remark({ kind: 'passed', name, fn: ctx.module.functions[0]!.name, block: 'bb0', line: 7, message: `${name} did it`, args: { n: 1 } });
    const plugin = definePlugin({ name: 'remarker', version: '1.0.0', api: '^1.0.0' }, () => ({
      phases: { OriLoopUnrolling: () => ({ execute: emit('B') }), OriBranchOpt: () => ({ execute: emit('A') }) },
    }));
    const targetPlugin = definePlugin({ name: 't', version: '1.0.0', api: '^1.0.0' }, { targets: [target] });
    const tc = createToolchain({ plugins: [targetPlugin, plugin] });
    const r = tc.compile(parseOri('.entry @k()\n{\nbb0:\n  EXIT\n}\n'), { arch: 'sm_90', optLevel: 3 });
    expect(r.remarks.map((x) => [x.phaseIndex, x.phase, x.name])).toEqual([
      [15, 'OriBranchOpt', 'A'],
      [22, 'OriLoopUnrolling', 'B'],
    ]);
    expect(r.remarks[0]).toMatchObject({ kind: 'passed', fn: 'k', block: 'bb0', line: 7, args: { n: 1 } });
  });
});
