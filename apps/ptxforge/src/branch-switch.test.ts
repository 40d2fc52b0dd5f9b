import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { createToolchain, type CompileResult, type Toolchain } from '@ptxforge/kernel';
import { createVerifyEachInstrumentation, runKernel, type Launch } from '@ptxforge/interp';
import { cubinOfModule } from '@ptxforge/codegen';
import { runCubin } from '@ptxforge/sass-lift';
import { decodeVoltaSection } from '@ptxforge/mercury-volta';
import { loadDefaultPlugins } from './plugins.js';
// @ts-expect-error plain ESM helper shared with scripts/bench-branch.mjs (no type declarations)
import { cubinBranchShape, cubinOpcodeCounts } from '../../../scripts/lib/cubin-branches.mjs';

/**
 * Acceptance of the branch & switch family (issue 13) on PTX that nvcc made from our CUDA kernels
 * (plugins/branch/test/fixtures/switch): -O3 for sm_90 with --verify-each, then the shape ptxas reaches, counted
 * in the machine code of both: our cubin (code generation included) against ptxas -O3's, BRA + BRX each (the
 * one `BRA self` both append after the last EXIT included on both sides).
 */
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const dir = path.join(repo, 'plugins/branch/test/fixtures/switch');
const hasPtxas = spawnSync('ptxas', ['--version']).status === 0;

let tc: Toolchain;
beforeAll(async () => {
  tc = createToolchain({ plugins: await loadDefaultPlugins() });
});

function compile(name: string): { r: CompileResult; launch: Launch; file: string } {
  const file = path.join(dir, name, 'kernel.ptx');
  const launch = JSON.parse(readFileSync(path.join(dir, name, 'launch.json'), 'utf8')) as Launch;
  const verify = createVerifyEachInstrumentation({ launch });
  const r = tc.compile({ text: readFileSync(file, 'utf8'), file }, { arch: 'sm_90', optLevel: 3, instrumentation: [verify] });
  expect(verify.report.mismatch?.message).toBeUndefined();
  expect(verify.report.phasesChecked).toBeGreaterThan(0);
  return { r, launch, file };
}

function shape(r: CompileResult) {
  const fn = r.module.functions.find((f) => f.kind === 'entry')!;
  let branches = 0;
  let brx = 0;
  let branchOnly = 0;
  for (const b of fn.blocks) {
    for (const i of b.instrs) {
      if (i.isBranch) branches++;
      if (i.opcode === 'BRX') brx++;
    }
    if (b.instrs.length === 1 && b.instrs[0]!.opcode === 'BRA' && !b.instrs[0]!.guard) branchOnly++;
  }
  return { branches, brx, branchOnly, switches: r.remarks.filter((x) => x.name === 'SwitchLowered') };
}

const kernels = existsSync(dir) ? readdirSync(dir).filter((n) => existsSync(path.join(dir, n, 'kernel.ptx'))) : [];

describe('branch & switch family on nvcc switches (sm_90 -O3)', () => {
  it('has the fixture kernels', () => {
    expect(kernels).toEqual(expect.arrayContaining(['dense10', 'sparse8', 'small3', 'fsm', 'nested']));
  });

  it('dense 10-case switch: one BRX behind a bounds check', () => {
    const { r } = compile('dense10');
    const s = shape(r);
    expect(s.brx).toBe(1);
    expect(s.switches).toHaveLength(1);
    expect(s.switches[0]!.args).toMatchObject({ strategy: 'jump-table', cases: 10, min: 0, max: 9 });
    expect(s.switches[0]!.line).toBeGreaterThan(0);
  });

  it('sparse 8-case switch: a search tree of depth <= 4', () => {
    const s = shape(compile('sparse8').r);
    expect(s.switches[0]!.args).toMatchObject({ strategy: 'bst', cases: 8 });
    expect(Number(s.switches[0]!.args!.depth)).toBeLessThanOrEqual(4);
    expect(s.brx).toBe(0);
  });

  it('3-case switch stays a cascade', () => {
    const s = shape(compile('small3').r);
    expect(s.switches[0]!.args).toMatchObject({ strategy: 'cascade', cases: 3 });
    expect(s.brx).toBe(0);
  });

  it('the state machine in a loop keeps its results and gets a jump table', () => {
    const { r, launch } = compile('fsm');
    expect(shape(r).brx).toBeGreaterThan(0);
    expect(runKernel(r.module, launch).errors).toEqual([]);
  });

  it.each(kernels)('%s: no block holding only an unconditional branch', (name) => {
    expect(shape(compile(name).r).branchOnly).toBe(0);
  });

  type Shape = { bra: number; brx: number; branchOnly: number; braToNext: number };
  const decode = (code: Uint8Array) => decodeVoltaSection('sm_90', code);

  it.each(kernels)('%s: our cubin computes what the PTX does, with no branch-only block and no BRA to the next instruction', (name) => {
    const { r, launch, file } = compile(name);
    const cubin = cubinOfModule(tc, r.module, 'sm_90').cubin;
    const ours = (cubinBranchShape(cubin, decode) as Map<string, Shape>).get(launch.kernel!)!;
    expect(ours.branchOnly).toBe(0);
    expect(ours.braToNext).toBe(0);
    // The reference: the PTX as written, unoptimized.
    const ref = tc.compile({ text: readFileSync(file, 'utf8'), file }, { arch: 'sm_90', optLevel: 0 });
    const want = runKernel(ref.module, launch);
    const got = runCubin(cubin, launch).result;
    expect(got.errors).toEqual([]);
    expect(Buffer.from(got.buffers.out!.bytes).toString('hex')).toBe(Buffer.from(want.buffers.out!.bytes).toString('hex'));
  });

  describe.skipIf(!hasPtxas)('against ptxas -O3 (skipped when ptxas is not on PATH)', () => {
    const tmp = hasPtxas ? mkdtempSync(path.join(os.tmpdir(), 'branch-switch-')) : '';
    it.each(kernels)('%s: no more branches than ptxas in the cubin, and a BRX where ptxas has one', (name) => {
      const { r, launch, file } = compile(name);
      const out = path.join(tmp, `${name}.cubin`);
      expect(spawnSync('ptxas', ['-arch=sm_90', '-O3', file, '-o', out]).status).toBe(0);
      const p = (cubinOpcodeCounts(readFileSync(out)) as Map<string, { bra: number; brx: number }>).get(launch.kernel!)!;
      const ours = (cubinBranchShape(cubinOfModule(tc, r.module, 'sm_90').cubin, decode) as Map<string, Shape>).get(launch.kernel!)!;
      expect(ours.bra + ours.brx, `ours ${ours.bra} BRA + ${ours.brx} BRX, ptxas ${p.bra} + ${p.brx}`).toBeLessThanOrEqual(p.bra + p.brx);
      if (p.brx > 0) expect(ours.brx).toBeGreaterThan(0);
    });
  });
});
