import { createToolchain, definePlugin, LatencyModel, parseOri, RegisterFile, Slot17Handler, type TargetCapabilities } from '@ptxforge/kernel';
import { describe, expect, it } from 'vitest';
import {
  AMPERE_LATENCIES, createLatencyModel, defineTarget, HOPPER_LATENCIES, machineLatencyTableFor, PIPE_WIDTHS_FAST_FP64, PIPE_WIDTHS_SM80,
  registerFileFor, slot17HandlerA, slot17HandlerB, slot17NoOp, TURING_LATENCIES,
} from './index.js';

const caps = (uniform: boolean, barriers: boolean): TargetCapabilities => ({
  uniformRegisters: uniform, convergenceBarriers: barriers, threeInputAlu: true, packedHalf: true, warpgroupMma: false,
  paramBase: 0x160, maxRegistersPerThread: 255, maxSharedPerBlock: 48 * 1024,
});

describe('shared SM backend pieces', () => {
  it('slot-17 handlers say what they are', () => {
    expect(slot17NoOp.status).toBe('noop');
    expect([slot17HandlerA.status, slot17HandlerB.status]).toEqual(['implemented', 'implemented']);
    expect(slot17HandlerA.name).toContain('sub_849110');
    expect(slot17HandlerB.name).toContain('sub_729160');
  });
  it('pipe widths follow the spec table for sm_80', () => {
    expect(PIPE_WIDTHS_SM80).toEqual([4, 4, 1, 1, 2, 1, 1]);
    expect(PIPE_WIDTHS_FAST_FP64[2]).toBe(2);
  });
  it('the latency model classifies opcodes by pipe and latency kind', () => {
    const m = createLatencyModel(PIPE_WIDTHS_FAST_FP64, { alu: 4, fma: 4, dfma: 8, mma: 'variable' });
    expect([m.pipe('IADD3'), m.fixedLatency('IADD3'), m.variableLatency('IADD3')]).toEqual(['ALU', 4, undefined]);
    expect([m.pipe('FFMA'), m.pipe('IMAD'), m.fixedLatency('DFMA')]).toEqual(['FMA', 'FMA', 8]);
    expect([m.pipe('LDG'), m.fixedLatency('LDG'), m.variableLatency('LDG')]).toEqual(['LSU', undefined, 'memory']);
    expect(m.variableLatency('LDS')).toBe('shared');
    expect([m.pipe('MUFU'), m.variableLatency('MUFU')]).toEqual([undefined, 'transcendental']);
    expect(m.pipe('BRA')).toBe('BRA/SMEM');
    const slow = createLatencyModel(PIPE_WIDTHS_SM80, { alu: 6, fma: 6, dfma: 'variable', mma: 'variable' });
    expect([slow.fixedLatency('DFMA'), slow.variableLatency('DFMA')]).toEqual([undefined, 'double']);
  });
  it('register files follow the capabilities', () => {
    expect(registerFileFor(caps(false, false)).classes.map((c) => c.name)).toEqual(['GPR', 'PRED']);
    const rf = registerFileFor(caps(true, true));
    expect(rf.classes.map((c) => `${c.prefix}:${c.count}`)).toEqual(['R:255', 'P:7', 'UR:63', 'UP:7', 'B:16']);
    expect(rf.classes[0]!.alignment).toEqual({ 2: 2, 4: 4 });
  });
  it('defineTarget makes a plugin that provides the services for exactly its archs', () => {
    const t = defineTarget({
      package: { name: '@test/target-x', version: '1.2.3' }, description: 'test', id: 'x', family: 'X', archs: ['sm_70', 'sm_75'],
      capabilities: (arch) => caps(arch === 'sm_75', true), pipeWidths: PIPE_WIDTHS_SM80,
      latencies: { alu: 4, fma: 4, dfma: 'variable', mma: 'variable' }, slot17: slot17HandlerA,
    });
    expect(t.plugin.meta).toMatchObject({ name: '@test/target-x', version: '1.2.3' });
    const seen: string[] = [];
    const probe = definePlugin({ name: 'probe', version: '1.0.0', api: '^1.0.0' }, {
      phases: {
        FinalInspectionPass: () => ({
          execute: (ctx) => void seen.push(`${ctx.target.arch} ${ctx.service(RegisterFile).classes.length} ${ctx.service(LatencyModel).pipeWidths.join('')} ${ctx.service(Slot17Handler).status}`),
        }),
      },
    });
    const tc = createToolchain({ plugins: [t.plugin, probe] });
    for (const arch of ['sm_70', 'sm_75']) tc.compile(parseOri('.entry @k()\n{\nbb0:\n  EXIT\n}\n'), { arch });
    expect(seen).toEqual(['sm_70 3 4411211 implemented', 'sm_75 5 4411211 implemented']);
  });
});

describe('SASS latency tables served by the LatencyModel', () => {
  it('a target serves its arch\'s machine table, and no table for archs it has none for', () => {
    const t = defineTarget({
      package: { name: '@test/target-y', version: '1.0.0' }, description: 'test', id: 'y', family: 'Y', archs: ['sm_70', 'sm_75'],
      capabilities: caps(true, true), pipeWidths: PIPE_WIDTHS_SM80,
      latencies: { alu: 6, fma: 6, dfma: 'variable', mma: 'variable' }, slot17: slot17HandlerA, machineLatencies: [TURING_LATENCIES],
    });
    const seen: Array<[string, string | undefined, number | undefined]> = [];
    const probe = definePlugin({ name: 'probe', version: '1.0.0', api: '^1.0.0' }, {
      phases: {
        FinalInspectionPass: () => ({
          execute: (ctx) => {
            const m = ctx.service(LatencyModel);
            seen.push([ctx.target.arch, m.machine?.name, m.fixedLatency('IADD3')]);
          },
        }),
      },
    });
    const tc = createToolchain({ plugins: [t.plugin, probe] });
    for (const arch of ['sm_70', 'sm_75']) tc.compile(parseOri('.entry @k()\n{\nbb0:\n  EXIT\n}\n'), { arch });
    // sm_75 reads the table (ALU latency 4 from it, not the coarse 6 of `latencies`); sm_70 has no table
    expect(seen).toEqual([['sm_70', undefined, 6], ['sm_75', 'turing', 4]]);
  });
  it('operand latencies come from the table by writer and reader class', () => {
    const m = createLatencyModel(PIPE_WIDTHS_SM80, { alu: 4, fma: 4, dfma: 'variable', mma: 'variable' }, AMPERE_LATENCIES);
    expect(m.operandLatency!({ opcode: 'IADD3' }, { opcode: 'IADD3' })).toBe(4);
    expect(m.operandLatency!({ opcode: 'IADD3' }, { opcode: 'FFMA' })).toBe(5);
    expect(m.operandLatency!({ opcode: 'IMAD', mods: ['WIDE'] }, { opcode: 'IMAD', mods: ['WIDE'] })).toBe(6);
    expect(m.operandLatency!({ opcode: 'DFMA' }, { opcode: 'DADD' })).toBe(6);
    expect(m.operandLatency!({ opcode: 'LDG', mods: ['E'] }, { opcode: 'IADD3' })).toBeUndefined();
    expect(m.machineTiming!({ opcode: 'MUFU', mods: ['RCP'] })).toMatchObject({ kind: 'variable', queue: 'xu' });
    expect(machineLatencyTableFor('sm_86')).toBe(AMPERE_LATENCIES);
    expect(machineLatencyTableFor('90')).toBe(HOPPER_LATENCIES);
    expect(machineLatencyTableFor('sm_70')).toBeUndefined();
  });
});
