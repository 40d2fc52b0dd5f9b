import { describe, expect, it } from 'vitest';
import { CORE_OPCODES, createToolchain, Decoder, Encoder, RegisterFile } from '@ptxforge/kernel';
import corePlugin from '@ptxforge/plugin-core';
import { ptxFrontendPlugin } from '@ptxforge/ptx';
import targetSm90Plugin from '@ptxforge/target-sm90';
import { machineSchedulerFor } from '@ptxforge/regalloc';
import { runKernel, type Launch } from '@ptxforge/interp';
import { runCubin } from '@ptxforge/sass-lift';
import { compileFunction, compileToCubin, generateCubin, schedInfo, type CodegenOptions, type MInstr, type VReg } from './index.js';

const tc = createToolchain({ plugins: [corePlugin, ptxFrontendPlugin, targetSm90Plugin] });
const scope = tc.services('sm_90');
const baseOpts: CodegenOptions = {
  arch: 'sm_90', sm: 90, paramBase: scope.target.capabilities.paramBase, encoder: scope.service(Encoder), decoder: scope.service(Decoder),
  registerFile: scope.service(RegisterFile),
};
const scheduler = machineSchedulerFor(scope);
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe('scheduler classification of machine instructions (schedInfo)', () => {
  const v: VReg = { id: 0, file: 'R', width: 1, name: '%r0' };
  const vr = { k: 'vreg' as const, v, part: 0, span: 1 };
  const mem = { k: 'vmem' as const, base: v, wide: false, off: 0 };
  const mi = (opcode: string, mods: string[], ops: MInstr['ops'], ndefs: number): MInstr => ({ opcode, mods, ops, ndefs });
  const info = (m: MInstr) => schedInfo(m, { opcodes: CORE_OPCODES });
  it.each([
    ['IADD3 is a plain computation', mi('IADD3', [], [vr, vr, vr, vr], 1), {}],
    ['LDS is a shared load', mi('LDS', [], [vr, mem], 1), { memory: 'load', memorySpace: 'shared' }],
    ['STG is a global store', mi('STG', ['E'], [mem, vr], 0), { memory: 'store', memorySpace: 'global' }],
    ['ATOMS is a shared atomic', mi('ATOMS', ['ADD'], [vr, mem, vr], 1), { memory: 'atomic', memorySpace: 'shared' }],
    ['a strong (volatile) load is a fence', mi('LDG', ['E', 'STRONG', 'GPU'], [vr, mem], 1), { memory: 'load', memorySpace: 'global', fence: true }],
    ['BAR is a fence', mi('BAR', ['SYNC'], [{ k: 'int', v: 0 }], 0), { fence: true }],
    ['MEMBAR is a fence', mi('MEMBAR', ['SC', 'GPU'], [], 0), { fence: true }],
    ['BRA is a fence', mi('BRA', [], [{ k: 'label', block: 1 }], 0), { fence: true }],
    ['EXIT is a fence', mi('EXIT', [], [], 0), { fence: true }],
    ['reading the clock is a fence', mi('S2R', [], [vr, { k: 'name', name: 'SR_CLOCKLO' }], 1), { fence: true }],
    ['reading the thread id is not', mi('S2R', [], [vr, { k: 'name', name: 'SR_TID.X' }], 1), {}],
    ['writing a physical register is a fence', mi('MOV', [], [{ k: 'reg', file: 'R', n: 1 }, vr], 1), { fence: true }],
    ['an opcode the table does not know is a fence', mi('FOO', [], [vr], 1), { fence: true }],
  ])('%s', (_name, m, want) => {
    const got = info(m);
    expect(got.op).toEqual({ opcode: m.opcode, mods: m.mods });
    expect({ memory: got.memory, memorySpace: got.memorySpace, fence: got.fence }).toEqual({ memory: undefined, memorySpace: undefined, fence: undefined, ...want });
  });
});

// Eight independent global loads, a dependent chain on each, shared memory exchanged between two warps across
// a barrier, and a shared atomic: the schedulers may hoist the loads but must keep every access of a space in
// order, everything on its side of the barrier, and the result equal to the PTX path's.
const PTX = `.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b) {
  .shared .align 4 .b32 tile[64];
  .shared .align 4 .b32 count[1];
  .reg .u32 %r<40>;
  .reg .u64 %rd<8>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 32;
  add.u64 %rd4, %rd1, %rd3;
  ld.global.u32 %r2, [%rd4];
  mul.lo.u32 %r10, %r2, 3;
  ld.global.u32 %r3, [%rd4+4];
  xor.b32 %r11, %r3, %r10;
  ld.global.u32 %r4, [%rd4+8];
  add.u32 %r12, %r4, %r11;
  ld.global.u32 %r5, [%rd4+12];
  mul.lo.u32 %r13, %r5, %r12;
  ld.global.u32 %r6, [%rd4+16];
  add.u32 %r14, %r6, %r13;
  ld.global.u32 %r7, [%rd4+20];
  xor.b32 %r15, %r7, %r14;
  ld.global.u32 %r8, [%rd4+24];
  add.u32 %r16, %r8, %r15;
  ld.global.u32 %r9, [%rd4+28];
  mul.lo.u32 %r17, %r9, %r16;
  shl.b32 %r20, %r1, 2;
  mov.u32 %r21, tile;
  add.u32 %r22, %r21, %r20;
  st.shared.u32 [%r22], %r17;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 st.shared.u32 [count], 0;
  bar.sync 0;
  atom.shared.add.u32 %r23, [count], 1;
  xor.b32 %r24, %r1, 32;
  shl.b32 %r24, %r24, 2;
  add.u32 %r24, %r21, %r24;
  ld.shared.u32 %r25, [%r24];
  st.shared.u32 [%r22], %r25;
  ld.shared.u32 %r26, [%r22];
  add.u32 %r27, %r26, %r17;
  mul.wide.u32 %rd5, %r1, 4;
  add.u64 %rd6, %rd2, %rd5;
  st.global.u32 [%rd6], %r27;
  bar.sync 0;
  ld.shared.u32 %r28, [count];
  st.global.u32 [%rd6+256], %r28;
  ret;
}`;

const launch = (): Launch => {
  const input = new Uint8Array(64 * 32);
  for (let i = 0; i < input.length; i++) input[i] = (i * 37 + 11) & 0xff;
  return {
    kernel: 'k', grid: [1, 1, 1], block: [64, 1, 1], sharedBytes: 260,
    buffers: { input: { hex: hex(input) }, output: { hex: '00'.repeat(512) } }, params: [{ buffer: 'input' }, { buffer: 'output' }], outputs: ['output'],
  };
};

describe('AdvancedPhasePreSched (97) and PostSchedule (110) in code generation', () => {
  const module = tc.compile({ text: PTX, file: 'k.ptx' }, { arch: 'sm_90', optLevel: 3 }).module;

  it('reorders for latency at -O3 and the lifted cubin still computes what the PTX path does', () => {
    const r = compileToCubin(tc, PTX, { arch: 'sm_90', file: 'k.ptx' });
    const k = r.kernels[0]!;
    expect(k.hazards).toBe(0);
    expect(k.preSchedule!.reordered).toBeGreaterThan(0);
    expect(k.preSchedule!.cyclesAfter).toBeLessThan(k.preSchedule!.cyclesBefore);
    expect(k.postSchedule!.cyclesAfter).toBeLessThanOrEqual(k.postSchedule!.cyclesBefore);
    const ref = runKernel(module, launch());
    expect(ref.ok).toBe(true);
    const got = runCubin(r.cubin, launch());
    expect(got.result.errors).toEqual([]);
    expect(hex(got.result.buffers.output!.bytes)).toBe(hex(ref.buffers.output!.bytes));
  });

  it('needs fewer stall cycles than selection order, at no more registers than the bound allows', () => {
    const plain = generateCubin(module, { ...baseOpts }).kernels[0]!;
    const sched = generateCubin(module, { ...baseOpts, scheduler, optLevel: 3 }).kernels[0]!;
    expect(plain.preSchedule).toBeUndefined();
    expect(sched.stallCycles).toBeLessThan(plain.stallCycles);
    expect(sched.registers).toBeLessThanOrEqual(Math.max(plain.registers, 32 + 2));
  });

  it('keeps every memory access on its side of the barriers and each space in order', () => {
    const { mf } = compileFunction(module, 'k', { ...baseOpts, scheduler, optLevel: 3 });
    const seq = mf.blocks.flatMap((b) => b.instrs.map((mi) => `${mi.opcode}${mi.guard ? '?' : ''}`)).filter((o) => /^(BAR|LDS|STS|ATOMS|STG|STG\?|STS\?)/.test(o));
    expect(seq).toEqual(['STS', 'STS?', 'BAR', 'ATOMS', 'LDS', 'STS', 'LDS', 'STG', 'BAR', 'LDS', 'STG']);
  });

  it('schedules for pressure at -O2 and not at all at -O0', () => {
    const o2 = generateCubin(module, { ...baseOpts, scheduler, optLevel: 2 }).kernels[0]!;
    const o3 = generateCubin(module, { ...baseOpts, scheduler, optLevel: 3 }).kernels[0]!;
    const o0 = generateCubin(module, { ...baseOpts, scheduler, optLevel: 0 }).kernels[0]!;
    expect(o2.preSchedule!.maxPressureAfter).toBeLessThanOrEqual(o2.preSchedule!.maxPressureBefore);
    expect(o2.preSchedule!.maxPressureAfter).toBeLessThanOrEqual(o3.preSchedule!.maxPressureAfter);
    expect(o0.preSchedule).toBeUndefined();
    expect(o0.postSchedule).toBeUndefined();
  });

  it('is deterministic', () => {
    expect(hex(compileToCubin(tc, PTX, { arch: 'sm_90' }).cubin)).toBe(hex(compileToCubin(tc, PTX, { arch: 'sm_90' }).cubin));
  });
});
