// Memory instructions encode a 24-bit signed address offset: larger offsets (a .local variable 16 MiB into the
// frame, `[%rd+0x1000000]`) go into the base register. Each case compiles PTX → our sm_90 cubin, checks the
// words with the hazard checker, lifts the cubin and runs it beside the PTX path in the interpreter.
import { describe, expect, it } from 'vitest';
import { createToolchain } from '@ptxforge/kernel';
import corePlugin from '@ptxforge/plugin-core';
import { ptxFrontendPlugin } from '@ptxforge/ptx';
import targetSm90Plugin from '@ptxforge/target-sm90';
import { runKernel, type Launch } from '@ptxforge/interp';
import { runCubin } from '@ptxforge/sass-lift';
import { decodeCubin } from './decoded-cubin.test-util.js';
import { compileToCubin } from './index.js';

const tc = createToolchain({ plugins: [corePlugin, ptxFrontendPlugin, targetSm90Plugin] });
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const HEAD = '.version 8.0\n.target sm_90\n.address_size 64\n';

function run(ptx: string): { texts: string[]; out: string } {
  const file = 'k.ptx';
  const launch: Launch = {
    kernel: 'k', grid: [1, 1, 1], block: [1, 1, 1],
    buffers: { input: { hex: '0102030405060708' }, output: { hex: '00'.repeat(8) } },
    params: [{ buffer: 'input' }, { buffer: 'output' }], outputs: ['output'],
  };
  const r = compileToCubin(tc, ptx, { arch: 'sm_90', file, optLevel: 3 });
  const { texts, hazards } = decodeCubin(tc, r.cubin, 'sm_90');
  expect(hazards).toBe(0);
  const ref = runKernel(tc.compile({ text: ptx, file }, { arch: 'sm_90', optLevel: 3 }).module, launch);
  expect(ref.errors ?? []).toEqual([]);
  const got = runCubin(r.cubin, launch);
  expect(got.result.errors).toEqual([]);
  expect(hex(got.result.buffers.output!.bytes)).toBe(hex(ref.buffers.output!.bytes));
  return { texts, out: hex(got.result.buffers.output!.bytes) };
}

describe('address offsets beyond the 24-bit immediate', () => {
  it('a global load at [%rd+0x1000000] adds the offset into the 64-bit base first', () => {
    const { texts, out } = run(`${HEAD}.visible .entry k(.param .u64 input, .param .u64 output) {
  .reg .u64 %rd<6>;
  .reg .b32 %r<3>;
  ld.param.u64 %rd1, [input];
  ld.param.u64 %rd2, [output];
  ld.param.u64 %rd5, [input];
  sub.s64 %rd3, %rd5, 16777216;
  ld.global.u32 %r1, [%rd3+16777220];
  st.global.u32 [%rd2], %r1;
  ret;
}
`);
    expect(out).toBe('0506070800000000');
    expect(texts.some((t) => /IADD3.*0x1000004/.test(t)), texts.join('\n')).toBe(true);
  });
  it('a .local variable 16 MiB into the frame is addressed through a register', () => {
    const { texts, out } = run(`${HEAD}.visible .entry k(.param .u64 input, .param .u64 output) {
  .reg .u64 %rd<4>;
  .reg .b32 %r<3>;
  .local .align 4 .b8 big[16777216];
  .local .align 4 .b32 small[2];
  ld.param.u64 %rd1, [input];
  ld.param.u64 %rd2, [output];
  ld.global.u32 %r1, [%rd1];
  st.local.u32 [small+4], %r1;
  st.local.u32 [big], %r1;
  ld.local.u32 %r2, [small+4];
  st.global.u32 [%rd2+4], %r2;
  ret;
}
`);
    expect(out).toBe('0000000001020304');
    expect(texts.some((t) => /STL.*\[R\d+\]/.test(t)), texts.join('\n')).toBe(true);
  });
});
