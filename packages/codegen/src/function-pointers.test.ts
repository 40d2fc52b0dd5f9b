import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createToolchain } from '@ptxforge/kernel';
import corePlugin from '@ptxforge/plugin-core';
import { ptxFrontendPlugin } from '@ptxforge/ptx';
import targetSm90Plugin from '@ptxforge/target-sm90';
import { readCubin } from '@ptxforge/cubin';
import { runKernel, type Launch } from '@ptxforge/interp';
import { runCubin } from '@ptxforge/sass-lift';
import { decodeCubin } from './decoded-cubin.test-util.js';
import { compileToCubin } from './index.js';

// Function addresses and indirect calls (the PTX front end's function-address.ts / indirect-call.ts), and
// relocatable (-c) output with the device runtime's functions. Kernels are ours (test/fixtures/function-pointers/
// <case>/kernel.cu and test/fixtures/relocatable/<case>/kernel.cu, PTX by nvcc 13.0 -arch=sm_90 -ptx, -rdc=true
// for the relocatable one). Each kernel runs as PTX in the interpreter and as our cubin lifted back: same buffers.

const tc = createToolchain({ plugins: [corePlugin, ptxFrontendPlugin, targetSm90Plugin] });
const fixture = (group: string, name: string): string =>
  readFileSync(fileURLToPath(new URL(`../test/fixtures/${group}/${name}/kernel.ptx`, import.meta.url)), 'utf8');
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

function hazardsInCubin(bytes: Uint8Array): number {
  return decodeCubin(tc, bytes).hazards;
}

function bothWays(ptx: string, launch: Launch, optLevel = 3) {
  const r = compileToCubin(tc, ptx, { arch: 'sm_90', file: 'k.ptx', optLevel });
  expect(hazardsInCubin(r.cubin)).toBe(0);
  const ref = runKernel(tc.compile({ text: ptx, file: 'k.ptx' }, { arch: 'sm_90', optLevel }).module, launch);
  const got = runCubin(r.cubin, launch).result;
  expect(got.errors.map((e) => e.code)).toEqual(ref.errors.map((e) => e.code));
  for (const name of launch.outputs ?? []) expect(hex(got.buffers[name]!.bytes)).toBe(hex(ref.buffers[name]!.bytes));
  return { r, ref, got };
}

const N = 32;
const ints = (f: (k: number) => number): number[] => Array.from({ length: N }, (_, k) => f(k));

describe('function addresses and indirect calls (whole program, sm_90)', () => {
  it('a table of function addresses in an initialized global, called per thread (divergent targets)', async () => {
    const launch: Launch = {
      kernel: 'pick', grid: [1, 1, 1], block: [N, 1, 1],
      buffers: {
        sel: { type: 's32', values: ints((k) => (k * 7) % 5) }, a: { type: 's32', values: ints((k) => 3 * k - 40) },
        out: { type: 's32', count: N }, addrs: { type: 'u64', count: 3 },
      },
      params: [{ buffer: 'sel' }, { buffer: 'a' }, { buffer: 'out' }, { buffer: 'addrs' }], outputs: ['out', 'addrs'],
    };
    for (const o of [0, 3]) {
      await tick();
      const { ref } = bothWays(fixture('function-pointers', 'table'), launch, o);
      expect(ref.errors).toEqual([]);
      const out = Array.from(new Int32Array(ref.buffers.out!.bytes.buffer, ref.buffers.out!.bytes.byteOffset, N));
      const ops = [(x: number, y: number) => x + y, (x: number, y: number) => x - y, (x: number, y: number) => Math.imul(x, y)];
      expect(out).toEqual(ints((k) => ops[((k * 7) % 5) % 3]!(3 * k - 40, k + 1)));
      // the addresses: distinct, non-zero, the same in the table and in pMul (mul2)
      const a = new BigUint64Array(ref.buffers.addrs!.bytes.buffer.slice(ref.buffers.addrs!.bytes.byteOffset, ref.buffers.addrs!.bytes.byteOffset + 24));
      expect(a[0]).not.toBe(0n);
      expect(a[1]).not.toBe(a[0]);
    }
  });

  it('function addresses passed as kernel parameters; an address of no function stops the thread', async () => {
    const ptx = fixture('function-pointers', 'table');
    // add2 is the first address-taken function (8), mul2 the third (24)
    const launch = (f: number): Launch => ({
      kernel: 'viaParam', grid: [1, 1, 1], block: [N, 1, 1],
      buffers: { a: { type: 's32', values: ints((k) => k - 9) }, out: { type: 'f32', values: ints(() => -1) } },
      params: [{ type: 'u64', value: String(f) }, { type: 'u64', value: '24' }, { buffer: 'a' }, { buffer: 'out' }], outputs: ['out'],
    });
    await tick();
    const { ref } = bothWays(ptx, launch(8));
    const out = Array.from(new Float32Array(ref.buffers.out!.bytes.buffer, ref.buffers.out!.bytes.byteOffset, N));
    // g = mul2 on the float's bits: the callee reads the argument registers as it was written (sizes match)
    expect(out.every((x) => x !== -1)).toBe(true);
    await tick();
    // 12 is no function's address: every thread is killed before writing
    const bad = bothWays(ptx, launch(12)).ref;
    expect(Array.from(new Float32Array(bad.buffers.out!.bytes.buffer, bad.buffers.out!.bytes.byteOffset, N))).toEqual(ints(() => -1));
  });

  it('virtual functions: vtables of function addresses, objects built in local memory', async () => {
    const launch: Launch = {
      kernel: 'shapes', grid: [1, 1, 1], block: [N, 1, 1],
      buffers: { in: { type: 's32', values: ints((k) => k * 3 + 1) }, out: { type: 's32', count: 2 * N } },
      params: [{ buffer: 'in' }, { buffer: 'out' }], outputs: ['out'],
    };
    for (const o of [0, 3]) {
      await tick();
      const { ref } = bothWays(fixture('function-pointers', 'virtual'), launch, o);
      expect(ref.errors).toEqual([]);
      const out = Array.from(new Int32Array(ref.buffers.out!.bytes.buffer, ref.buffers.out!.bytes.byteOffset, 2 * N));
      const want = ints((k) => k * 3 + 1).flatMap((v, t) => (v & 1 ? [v * (t + 1), 4] : [Math.trunc((v * (t + 2)) / 2), 3]));
      expect(out).toEqual(want);
    }
  });

  it('deterministic: the same cubin twice', () => {
    const ptx = fixture('function-pointers', 'virtual');
    expect(hex(compileToCubin(tc, ptx, { arch: 'sm_90' }).cubin)).toBe(hex(compileToCubin(tc, ptx, { arch: 'sm_90' }).cubin));
  });
});

describe('relocatable output (-c) with device-runtime calls and kernel addresses (sm_90)', () => {
  const ptx = fixture('relocatable', 'device-launch');

  it('without -c the device runtime is unresolved, as ptxas says', () => {
    expect(() => tc.compile({ text: ptx, file: 'k.ptx' }, { arch: 'sm_90' })).toThrow(/PTX_UNRESOLVED_FUNCTION|Unresolved extern function/);
  });

  it('an ET_REL object: externs and the other object\'s kernel undefined, kernel addresses as R_CUDA_FUNC_DESC_64', () => {
    const r = compileToCubin(tc, ptx, { arch: 'sm_90', file: 'k.ptx', relocatable: true });
    const cubin = readCubin(r.cubin);
    expect(cubin.header.type).toBe(1); // ET_REL
    expect(cubin.segments).toEqual([]);
    for (const name of ['__cudaCDP2GetParameterBufferV2', '__cudaCDP2LaunchDeviceV2', '__cudaCDP2GetLastError', '_Z9elsewherePi']) {
      expect(cubin.symbols.find((s) => s.name === name)).toMatchObject({ shndx: 0, type: 2, bind: 1 });
    }
    const c4 = cubin.sections.find((s) => s.name === '.nv.constant4')!;
    const desc = cubin.relocations.filter((x) => x.target === c4.index && x.typeName === 'R_CUDA_FUNC_DESC_64').map((x) => x.symbolName).sort();
    expect(desc).toEqual(['_Z5childPii', '_Z9elsewherePi']);
    expect(hazardsInCubin(r.cubin)).toBe(0);
  });

  it('the interpreter refuses the device-side launch with its reason, the lifted cubin the same; the child runs', async () => {
    const r = compileToCubin(tc, ptx, { arch: 'sm_90', file: 'k.ptx', relocatable: true });
    const m = tc.compile({ text: ptx, file: 'k.ptx' }, { arch: 'sm_90', relocatable: true }).module;
    const parent: Launch = { kernel: '_Z6parentPii', grid: [1, 1, 1], block: [4, 1, 1], buffers: { out: { type: 's32', count: 8 } }, params: [{ buffer: 'out' }, 4], outputs: ['out'] };
    const ref = runKernel(m, parent);
    expect(ref.errors[0]?.message).toMatch(/device-side kernel launches/);
    expect(runCubin(r.cubin, parent).result.errors.map((e) => e.code)).toEqual(ref.errors.map((e) => e.code));
    await tick();
    const child: Launch = { kernel: '_Z5childPii', grid: [1, 1, 1], block: [8, 1, 1], buffers: { out: { type: 's32', count: 8 } }, params: [{ buffer: 'out' }, 100], outputs: ['out'] };
    const a = runKernel(m, child);
    const b = runCubin(r.cubin, child).result;
    expect(hex(b.buffers.out!.bytes)).toBe(hex(a.buffers.out!.bytes));
  });

  it('.visible variables are STB_GLOBAL symbols, others local (ptxas, with and without -c)', () => {
    const rel = readCubin(compileToCubin(tc, ptx, { arch: 'sm_90', file: 'k.ptx', relocatable: true }).cubin);
    expect(rel.symbols.find((s) => s.name === 'launches')).toMatchObject({ bind: 1, type: 1 });
    const small = `.version 9.0\n.target sm_90\n.address_size 64\n.visible .global .align 4 .u32 gv;\n.global .align 4 .u32 lv;\n.visible .entry k()\n{\n.reg .b32 %r<3>;\nld.global.u32 %r1, [gv];\nld.global.u32 %r2, [lv];\nadd.s32 %r1, %r1, %r2;\nst.global.u32 [gv], %r1;\nret;\n}\n`;
    for (const relocatable of [false, true]) {
      const c = readCubin(compileToCubin(tc, small, { arch: 'sm_90', file: 'v.ptx', relocatable }).cubin);
      expect(c.symbols.find((s) => s.name === 'gv')).toMatchObject({ bind: 1, type: 1, value: 0 });
      expect(c.symbols.find((s) => s.name === 'lv')).toMatchObject({ bind: 0, type: 1, value: 4 });
    }
  });

  it('nvlink links it with the device runtime; only the other object\'s kernel stays unresolved', (ctx) => {
    try {
      execFileSync('nvlink', ['--version'], { stdio: 'ignore' });
    } catch {
      ctx.skip(); // nvlink (CUDA toolkit) is not installed here
    }
    const dir = mkdtempSync(path.join(tmpdir(), 'ptxforge-rel-'));
    try {
      const obj = path.join(dir, 'k.cubin');
      writeFileSync(obj, compileToCubin(tc, ptx, { arch: 'sm_90', file: 'k.ptx', relocatable: true }).cubin);
      let err = '';
      try {
        execFileSync('nvlink', ['-arch=sm_90', obj, '-L/usr/local/cuda/lib64', '-lcudadevrt', '-o', path.join(dir, 'out.cubin')], { stdio: 'pipe' });
      } catch (e) {
        err = String((e as { stderr?: Buffer }).stderr ?? e);
      }
      expect(err).toMatch(/Undefined reference to '_Z9elsewherePi'/);
      expect(err).not.toMatch(/cudaCDP2|_Z5childPii/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
