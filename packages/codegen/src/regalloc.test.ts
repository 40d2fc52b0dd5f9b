import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createToolchain, Decoder, Encoder, RegisterFile } from '@ptxforge/kernel';
import corePlugin from '@ptxforge/plugin-core';
import { ptxFrontendPlugin } from '@ptxforge/ptx';
import targetSm90Plugin from '@ptxforge/target-sm90';
import { layoutProfileFor } from '@ptxforge/cubin';
import { runKernel, type Launch } from '@ptxforge/interp';
import { runCubin } from '@ptxforge/sass-lift';
import { allocateMachineFunction, compileToCubin, legalize, planModuleData, selectFunction, type VReg } from './index.js';

const tc = createToolchain({ plugins: [corePlugin, ptxFrontendPlugin, targetSm90Plugin] });
const scope = tc.services('sm_90');
const fixture = (name: string): string =>
  fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '../test/fixtures/regalloc', name, 'kernel.ptx'), 'utf8');

/** Highest R register + 1 of the kernel's allocation, with or without the tightening re-colourings. */
function usedR(ptx: string, tighten: boolean): number {
  const m = tc.compile({ text: ptx, file: 'k.ptx' }, { arch: 'sm_90', optLevel: 3 }).module;
  const fn = m.functions.find((f) => f.kind === 'entry')!;
  const mf = selectFunction(m, fn, { paramBase: scope.target.capabilities.paramBase, data: planModuleData(m), sharedBase: layoutProfileFor(90)?.sharedReserve ?? 0 });
  legalize(mf, scope.service(Encoder), (file = 'R') => {
    const v: VReg = { id: mf.vregs.length, file, width: 1, name: `%t${mf.vregs.length}` };
    mf.vregs.push(v);
    return v;
  });
  return allocateMachineFunction(mf, { registerFile: scope.service(RegisterFile), tighten }).used.R;
}

describe('register count tightening (re-colouring under a smaller R budget while nothing spills)', () => {
  it('lowers the highest R register of the block reduction (nvcc PTX) and the kernel still computes the same', () => {
    const ptx = fixture('reduce');
    const loose = usedR(ptx, false);
    const tight = usedR(ptx, true);
    expect(tight).toBeLessThan(loose);
    const n = 2 * 2 * 128;
    const input = Buffer.alloc(4 * n);
    for (let i = 0; i < n; i++) input.writeUInt32LE((i * 2654435761) >>> 0, 4 * i);
    const launch: Launch = {
      kernel: 'reduce', grid: [2, 1, 1], block: [128, 1, 1],
      buffers: { input: { hex: input.toString('hex') }, output: { hex: '00'.repeat(16) } },
      params: [{ buffer: 'input' }, { buffer: 'output' }, { type: 'u32', value: 7 }], outputs: ['output'],
    };
    const r = compileToCubin(tc, ptx, { arch: 'sm_90', file: 'k.ptx' });
    expect(r.kernels[0]!.hazards).toBe(0);
    expect(r.kernels[0]!.spillStores).toBe(0);
    const ref = runKernel(tc.compile({ text: ptx, file: 'k.ptx' }, { arch: 'sm_90', optLevel: 3 }).module, launch);
    expect(ref.ok).toBe(true);
    const got = runCubin(r.cubin, launch);
    expect(got.result.errors).toEqual([]);
    expect(Buffer.from(got.result.buffers.output!.bytes).toString('hex')).toBe(Buffer.from(ref.buffers.output!.bytes).toString('hex'));
  });

  it('never spills to get there: under --maxrregcount the count stays within the budget', () => {
    const ptx = fixture('reduce');
    const r = compileToCubin(tc, ptx, { arch: 'sm_90', file: 'k.ptx', maxrregcount: 16 });
    expect(r.kernels[0]!.registers).toBeLessThanOrEqual(16);
  });
});

describe('the default register budget (no --maxrregcount)', () => {
  it('keeps the reported count within 255: 300 values live at once spill past R252 instead of reaching R254', () => {
    // 300 loads summed in reverse order: all 300 are live after the loads (the cubin cannot say 257 registers)
    const n = 300;
    const loads = Array.from({ length: n }, (_, i) => `  ld.global.u32 %r${i + 10}, [%rd1+${4 * i}];`).join('\n');
    const sums = Array.from({ length: n }, (_, i) => `  xor.b32 %r2, %r2, %r${n + 9 - i};\n  shf.l.wrap.b32 %r2, %r2, %r2, 3;`).join('\n');
    const ptx = `.version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 input, .param .u64 output) {
  .reg .u64 %rd<4>;
  .reg .b32 %r<${n + 16}>;
  ld.param.u64 %rd1, [input];
  ld.param.u64 %rd2, [output];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
${loads}
  mov.u32 %r2, 0;
${sums}
  st.global.u32 [%rd2], %r2;
  ret;
}`;
    const r = compileToCubin(tc, ptx, { arch: 'sm_90', file: 'k.ptx' });
    expect(r.kernels[0]!.registers).toBeLessThanOrEqual(255);
    expect(r.kernels[0]!.spillStores).toBeGreaterThan(0);
    expect(r.kernels[0]!.hazards).toBe(0);
    const input = Buffer.alloc(4 * n);
    for (let i = 0; i < n; i++) input.writeUInt32LE((i * 2654435761) >>> 0, 4 * i);
    const launch: Launch = {
      kernel: 'k', grid: [1, 1, 1], block: [2, 1, 1],
      buffers: { input: { hex: input.toString('hex') }, output: { hex: '00'.repeat(4) } },
      params: [{ buffer: 'input' }, { buffer: 'output' }], outputs: ['output'],
    };
    const ref = runKernel(tc.compile({ text: ptx, file: 'k.ptx' }, { arch: 'sm_90', optLevel: 3 }).module, launch);
    expect(ref.ok).toBe(true);
    const got = runCubin(r.cubin, launch);
    expect(got.result.errors).toEqual([]);
    expect(Buffer.from(got.result.buffers.output!.bytes).toString('hex')).toBe(Buffer.from(ref.buffers.output!.bytes).toString('hex'));
  });
});
