import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createToolchain, Decoder } from '@ptxforge/kernel';
import corePlugin from '@ptxforge/plugin-core';
import { ptxFrontendPlugin } from '@ptxforge/ptx';
import targetSm90Plugin from '@ptxforge/target-sm90';
import { attributeCode, decodeAttribute, readCubin } from '@ptxforge/cubin';
import { runKernel, type Launch } from '@ptxforge/interp';
import { runCubin } from '@ptxforge/sass-lift';
import { checkHazards, hazardInstrFromSass } from '@ptxforge/sass-hazards';
import { formatInstruction, wordFromBytes, type SassInstruction } from '@ptxforge/sass';
import { compileToCubin } from './index.js';

// ABI calls of driver functions (abi-call.ts): vprintf, __assertfail, malloc/free. Kernels are ours
// (test/fixtures/abi-calls/<case>/kernel.cu, PTX by `nvcc -arch=sm_90 -ptx`, CUDA 13.0). Each runs as PTX in the
// interpreter and as our cubin lifted back (the lifter poisons the registers the callee may overwrite), with
// the same buffers and the same printf lines. The CUDA driver would check the same on a GPU (none here).

const tc = createToolchain({ plugins: [corePlugin, ptxFrontendPlugin, targetSm90Plugin] });
const fixture = (name: string): string => readFileSync(fileURLToPath(new URL(`../test/fixtures/abi-calls/${name}/kernel.ptx`, import.meta.url)), 'utf8');
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
/** Let vitest's worker talk to its host between long synchronous steps. */
const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

function hazardsInCubin(bytes: Uint8Array): number {
  const cubin = readCubin(bytes);
  const dec = tc.services('sm_90').service(Decoder);
  let n = 0;
  for (const f of cubin.functions) {
    const instrs = [];
    for (let a = 0; a + 16 <= f.code.length; a += 16) {
      const w = wordFromBytes(f.code, a);
      instrs.push(hazardInstrFromSass(a, dec.decode(f.code, a) as SassInstruction, (BigInt(w[3]!) << 32n) | BigInt(w[2]!)));
    }
    n += checkHazards({ name: f.name, instrs }, { arch: 'sm_90' }).hazards.length;
  }
  return n;
}

function listing(bytes: Uint8Array, fn: string): string[] {
  const cubin = readCubin(bytes);
  const f = cubin.functions.find((x) => x.name === fn)!;
  const dec = tc.services('sm_90').service(Decoder);
  const out: string[] = [];
  for (let a = 0; a < f.code.length; a += 16) out.push(formatInstruction(dec.decode(f.code, a) as SassInstruction));
  return out;
}

/** The PTX path and our cubin lifted back: same outputs, same printf lines, same errors. */
function bothWays(ptx: string, launch: Launch, optLevel = 3) {
  const r = compileToCubin(tc, ptx, { arch: 'sm_90', file: 'k.ptx', optLevel });
  expect(r.kernels.every((k) => k.hazards === 0)).toBe(true);
  expect(hazardsInCubin(r.cubin)).toBe(0);
  const ref = runKernel(tc.compile({ text: ptx, file: 'k.ptx' }, { arch: 'sm_90', optLevel }).module, launch);
  const got = runCubin(r.cubin, launch).result;
  expect(got.errors.map((e) => e.code)).toEqual(ref.errors.map((e) => e.code));
  for (const name of launch.outputs ?? []) expect(hex(got.buffers[name]!.bytes)).toBe(hex(ref.buffers[name]!.bytes));
  expect(got.printed ?? []).toEqual(ref.printed ?? []);
  return { r, ref, got };
}

describe('ABI calls of driver functions (sm_90)', () => {
  it('vprintf: the format and argument buffer, printed per thread as the PTX path prints', async () => {
    const launch: Launch = {
      kernel: '_Z4showPKifx', grid: [1, 1, 1], block: [4, 1, 1],
      buffers: { input: { type: 's32', values: [5, -17, 255, 1000] } },
      params: [{ buffer: 'input' }, { type: 'f32', value: 0.5 }, { type: 's64', value: '-9000000000' }],
    };
    for (const o of [0, 3]) {
      await tick();
      const { ref } = bothWays(fixture('printf'), launch, o);
      expect(ref.printed).toEqual([
        't00 in=5 x=2.500 big=-9000000000 even a|5    |+7.142857e-01\n',
        't01 in=-17 x=-8.500 big=-8999999999 odd b|ffffffef|-2.428571e+00\n',
        't02 in=255 x=127.500 big=-8999999998 even c|ff   |+3.642857e+01\n',
        't03 in=1000 x=500.000 big=-8999999997 odd d|3e8  |+1.428571e+02\n',
      ]);
    }
  });

  it('the cubin holds the call as ptxas writes it: bank-4 slot, LEPC R20, CALL.ABS.NOINC, EXTERNS, SYSCALL_OFFSETS', () => {
    const r = compileToCubin(tc, fixture('printf'), { arch: 'sm_90', file: 'k.ptx' });
    const cubin = readCubin(r.cubin);
    const sym = cubin.symbols.find((s) => s.name === 'vprintf')!;
    expect(sym).toMatchObject({ shndx: 0, type: 2, bind: 1 });
    const c4 = cubin.sections.find((s) => s.name === '.nv.constant4')!;
    expect(cubin.relocations.some((x) => x.target === c4.index && x.symbolName === 'vprintf' && x.typeName === 'R_CUDA_64')).toBe(true);
    const f = cubin.functions[0]!;
    const attrs = f.attributes.map((a) => decodeAttribute(a));
    const text = listing(r.cubin, f.name);
    const call = text.findIndex((t) => t.startsWith('CALL.ABS.NOINC'));
    expect(call).toBeGreaterThan(0);
    expect(text[call - 1]).toBe('LEPC R20, 0x10 ;');
    const sys = f.attributes.find((a) => a.code === attributeCode('SYSCALL_OFFSETS'));
    expect(sys && new DataView(sys.payload.buffer, sys.payload.byteOffset).getUint32(0, true)).toBe(call * 16);
    expect(f.attributes.some((a) => a.code === attributeCode('EXTERNS'))).toBe(true);
    expect(attrs.length).toBeGreaterThan(0);
    expect(r.kernels[0]!.registers).toBeGreaterThanOrEqual(24);
    // .nv.callgraph: the (kernel, vprintf) edge
    const cg = cubin.sections.find((s) => s.name === '.nv.callgraph')!;
    const words = Array.from({ length: cg.size / 4 }, (_, i) => new DataView(cg.data.buffer, cg.data.byteOffset).getInt32(4 * i, true));
    const kernelSym = cubin.symbols.findIndex((s) => s.name === f.name);
    expect(words).toEqual([0, -1, kernelSym, sym.index, 0, -2, 0, -3, 0, -4]);
  });

  it('values live across the call stay in registers the callee preserves (the lifter poisons the others)', async () => {
    const n = 8;
    const launch: Launch = {
      kernel: '_Z4livePKiPii', grid: [1, 1, 1], block: [n, 1, 1],
      buffers: { input: { type: 's32', values: Array.from({ length: 12 * n }, (_, k) => (k * 37) % 101 - 50) }, output: { type: 's32', count: n } },
      params: [{ buffer: 'input' }, { buffer: 'output' }, n], outputs: ['output'],
    };
    for (const o of [1, 3]) {
      await tick();
      const { ref } = bothWays(fixture('printf-live'), launch, o);
      expect(ref.printed?.length).toBe(n);
    }
    await tick();
    // and under a tight register budget (values spilled around the call)
    const tight = compileToCubin(tc, fixture('printf-live'), { arch: 'sm_90', file: 'k.ptx', maxrregcount: 24 });
    const ref = runKernel(tc.compile({ text: fixture('printf-live'), file: 'k.ptx' }, { arch: 'sm_90' }).module, launch);
    const got = runCubin(tight.cubin, launch).result;
    expect(got.errors).toEqual([]);
    expect(hex(got.buffers.output!.bytes)).toBe(hex(ref.buffers.output!.bytes));
  });

  it('__assertfail: passes silently when the condition holds, traps with the message in both paths when not', async () => {
    const ok: Launch = {
      kernel: '_Z5checkPKiPi', grid: [1, 1, 1], block: [4, 1, 1],
      buffers: { input: { type: 's32', values: [1, 2, 3, 99] }, output: { type: 's32', count: 4 } },
      params: [{ buffer: 'input' }, { buffer: 'output' }], outputs: ['output'],
    };
    const a = bothWays(fixture('assert'), ok);
    expect(a.ref.ok).toBe(true);
    await tick();
    const bad: Launch = { ...ok, buffers: { input: { type: 's32', values: [1, 200, 3, 4] }, output: { type: 's32', count: 4 } } };
    const b = bothWays(fixture('assert'), bad);
    expect(b.ref.errors[0]!.code).toBe('INTERP_ASSERTION');
    expect(b.ref.errors[0]!.message).toContain('Assertion `in[i] < 100` failed.');
    expect(b.got.errors[0]!.message).toContain('Assertion `in[i] < 100` failed.');
  });

  it('malloc/free: compiled as ABI calls; the interpreter runs them on a bump-allocated device heap', () => {
    const r = compileToCubin(tc, fixture('malloc'), { arch: 'sm_90', file: 'k.ptx' });
    expect(r.kernels.every((k) => k.hazards === 0)).toBe(true);
    expect(hazardsInCubin(r.cubin)).toBe(0);
    const cubin = readCubin(r.cubin);
    for (const name of ['malloc', 'free']) expect(cubin.symbols.find((s) => s.name === name)).toMatchObject({ shndx: 0, type: 2 });
    for (const f of cubin.functions) expect(listing(r.cubin, f.name).some((t) => t.startsWith('CALL.ABS.NOINC'))).toBe(true);
    const launch: Launch = { kernel: '_Z5allocPPi', block: [2, 1, 1], buffers: { slots: { type: 'u64', count: 2 } }, params: [{ buffer: 'slots' }] };
    const ref = runKernel(tc.compile({ text: fixture('malloc'), file: 'k.ptx' }, { arch: 'sm_90' }).module, launch);
    expect(ref.errors).toEqual([]);
    // one 16-byte block per thread, in lane order, 16-byte aligned: the same addresses from the cubin
    const slots = new BigUint64Array(ref.buffers.slots!.bytes.slice().buffer);
    expect(slots[0]! % 16n).toBe(0n);
    expect(slots[1]! - slots[0]!).toBe(16n);
    const got = runCubin(r.cubin, launch).result;
    expect(got.errors).toEqual([]);
    expect(hex(got.buffers.slots!.bytes)).toBe(hex(ref.buffers.slots!.bytes));
    const freed = runKernel(tc.compile({ text: fixture('malloc'), file: 'k.ptx' }, { arch: 'sm_90' }).module, { ...launch, kernel: '_Z7releasePPi' });
    expect(freed.errors).toEqual([]);
  });

  it('is deterministic', () => {
    const a = compileToCubin(tc, fixture('printf-live'), { arch: 'sm_90', file: 'k.ptx' }).cubin;
    const b = compileToCubin(tc, fixture('printf-live'), { arch: 'sm_90', file: 'k.ptx' }).cubin;
    expect(hex(a)).toBe(hex(b));
  });
});
