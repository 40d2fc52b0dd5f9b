import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { computeLoops, createToolchain, type CompileResult, type OriModule, type Toolchain } from '@ptxforge/kernel';
import { createVerifyEachInstrumentation, runKernel, type Launch } from '@ptxforge/interp';
import { loadDefaultPlugins } from './plugins.js';
// @ts-expect-error plain ESM helper shared with scripts/bench-loops.mjs (no type declarations)
import { cubinLoopCounts } from '../../../scripts/lib/cubin-branches.mjs';

/**
 * Acceptance of the loop family (issue 14) on PTX that nvcc made at -Xcicc -O1 from our CUDA kernels
 * (plugins/loop/test/fixtures/cuda/*.cu), one kernel at a time, -O0 and -O3 for sm_90: every
 * loop gets an unrolling decision remark, -O3 computes the same buffers as -O0 in the interpreter, and (with
 * ptxas installed) keeps no more loops than `ptxas -O3` leaves in its cubin. `--verify-each` (every phase
 * checked by the interpreter) runs on a few kernels that exercise the unroller's paths: it costs a run per phase.
 */
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const dir = path.join(repo, 'plugins/loop/test/fixtures/cuda');
const FILES = ['loops.ptx', 'more-loops.ptx', 'new-loops.ptx', 'patterns.ptx'];
/** Kernels checked with --verify-each: full unroll, partial unrolls with remainder, nested full unroll, an early-exit full unroll, f32 and 64-bit IVs. */
const VERIFY_EACH: ReadonlyArray<readonly [file: string, kernel: string]> = [
  ['loops.ptx', 'const8'],
  ['loops.ptx', 'dot_unknown'],
  ['loops.ptx', 'countdown'],
  ['new-loops.ptx', 'tile8x8'],
  ['new-loops.ptx', 'collatz_steps'],
  ['patterns.ptx', 'float_iv'],
  ['patterns.ptx', 'ptr_end'],
];
const hasPtxas = spawnSync('ptxas', ['--version']).status === 0;

let tc: Toolchain;
let decodeSection: ((code: Uint8Array) => unknown[]) | undefined;
beforeAll(async () => {
  tc = createToolchain({ plugins: await loadDefaultPlugins() });
  // Through a variable: the CLI does not depend on the codec package; vitest loads its source.
  const codec = path.join(repo, 'targets/mercury-volta/src/index.ts');
  const mv = (await import(codec)) as { decodeVoltaSection(arch: string, b: Uint8Array): unknown[] };
  decodeSection = (code) => mv.decodeVoltaSection('sm_90', code);
}, 120_000);

function launchFor(kernel: string): Launch {
  return {
    kernel, grid: [1, 1, 1], block: [32, 1, 1],
    buffers: { out: { type: 'f32', count: 4096 }, in: { type: 'f32', count: 4096, fill: 0.5 } },
    params: [{ buffer: 'out' }, { buffer: 'in' }, 7],
  };
}

function loopsOf(m: OriModule, kernel: string): number {
  const fn = m.functions.find((f) => f.name === kernel)!;
  return computeLoops(fn).all.length;
}

function kernelsOf(text: string): string[] {
  return [...text.matchAll(/\.visible \.entry (\w+)\(/g)].map((m) => m[1]!);
}

/**
 * The PTX module with only `kernel` among its entries (device functions and module variables stay): nvcc
 * writes each entry from its `.visible .entry name(` line to a `}` line at column 0. Compiling one kernel at a
 * time keeps each synchronous step short (vitest's worker RPC times out when blocked for a minute).
 */
function onlyEntry(text: string, kernel: string): string {
  const out: string[] = [];
  let skipping = false;
  for (const line of text.split('\n')) {
    const m = /^\.visible \.entry (\w+)\(/.exec(line);
    if (m) skipping = m[1] !== kernel;
    if (!skipping) out.push(line);
    else if (line === '}') skipping = false;
  }
  return out.join('\n');
}

function outBuffer(m: OriModule, kernel: string): Uint8Array {
  const r = runKernel(m, launchFor(kernel));
  expect(r.ok, `${kernel}: ${r.errors.map((e) => e.message).join('; ')}`).toBe(true);
  return r.buffers.out!.bytes;
}

describe.each(FILES)('loop family on %s (-O3, sm_90)', (file) => {
  const ptxPath = path.join(dir, file);
  const text = readFileSync(ptxPath, 'utf8');
  let ptxasLoops: Map<string, { loops: number }> | undefined;
  beforeAll(() => {
    if (hasPtxas) {
      const out = path.join(mkdtempSync(path.join(os.tmpdir(), 'loop-family-')), `${file}.cubin`);
      expect(spawnSync('ptxas', ['-arch=sm_90', '-O3', ptxPath, '-o', out]).status).toBe(0);
      ptxasLoops = cubinLoopCounts(readFileSync(out), decodeSection!) as Map<string, { loops: number }>;
    }
  }, 300_000);
  it.each(kernelsOf(text))('%s: a decision remark per loop, same results as -O0, no more loops than ptxas -O3', async (kernel) => {
    const one = onlyEntry(text, kernel);
    const o0: CompileResult = tc.compile({ text: one, file: ptxPath }, { arch: 'sm_90', optLevel: 0 });
    await new Promise((r) => setImmediate(r));
    const o3: CompileResult = tc.compile({ text: one, file: ptxPath }, { arch: 'sm_90', optLevel: 3 });
    await new Promise((r) => setImmediate(r));
    const before = loopsOf(o0.module, kernel);
    const decisions = o3.remarks.filter((x) => x.fn === kernel && (x.name === 'LoopUnrolled' || x.name === 'LoopNotUnrolled'));
    expect(decisions.length).toBeGreaterThanOrEqual(before);
    for (const d of decisions) expect(d.line, `${kernel}: remark without a PTX line`).toBeGreaterThan(0);
    expect(outBuffer(o3.module, kernel)).toEqual(outBuffer(o0.module, kernel));
    const after = loopsOf(o3.module, kernel);
    if (!ptxasLoops) return;
    const px = ptxasLoops.get(kernel)!;
    expect(after, `${kernel}: ours ${after}, ptxas ${px.loops}`).toBeLessThanOrEqual(px.loops);
  }, 120_000);
});

describe('loop family with --verify-each (-O3, sm_90)', () => {
  it.each(VERIFY_EACH)('%s %s: every phase keeps the results', (file, kernel) => {
    const ptxPath = path.join(dir, file);
    const text = onlyEntry(readFileSync(ptxPath, 'utf8'), kernel);
    const verify = createVerifyEachInstrumentation({ launch: launchFor(kernel) });
    const r = tc.compile({ text, file: ptxPath }, { arch: 'sm_90', optLevel: 3, instrumentation: [verify] });
    expect(verify.report.mismatch?.message).toBeUndefined();
    expect(verify.report.phasesChecked).toBeGreaterThan(0);
    expect(r.remarks.some((x) => x.fn === kernel && x.name === 'LoopUnrolled')).toBe(true);
  }, 300_000);
});
