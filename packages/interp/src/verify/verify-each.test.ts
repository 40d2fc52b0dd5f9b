import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createToolchain, definePlugin, imm, parseOri, PtxforgeError, type PhaseContext } from '@ptxforge/kernel';
import { corePlugin } from '@ptxforge/plugin-core';
import { targetSm90Plugin } from '@ptxforge/target-sm90';
import { afterEach, describe, expect, it } from 'vitest';
import { COMPACT_STEP_DIVISOR, createVerifyEachInstrumentation } from './verify-each.js';
import { COMPACT_LAUNCH_PROFILE, generateLaunch } from './inputs.js';
import { runKernel } from '../launch.js';

const SRC = `.target sm_90
.entry @scale(
  .param .u64 out c[0x0][0x210],
  .param .u32 n c[0x0][0x218]
)
{
  .maxntid 64, 1, 1
bb0:
  %r0 = S2R SR_TID.X
  %r1 = MOV c[0x0][0x218]
  %p0 = ISETP.GE.U32.AND %r0, %r1, PT
  @%p0 EXIT
bb1:
  %r2 = IMAD %r0, 3, 1
  %r7 = IADD3 %r0, %r0, RZ
  %rd0 = IMAD.WIDE.U32 %r0, 4, RZ
  %rd1 = MOV c[0x0][0x210]
  %rd2 = IADD3 %rd1, %rd0, RZ
  STG.E.32 [%rd2], %r2
  EXIT
}`;

/** A correct phase: removes instructions whose defs nobody reads (the IADD3 into %r7). */
const goodDce = (ctx: PhaseContext): void => {
  for (const fn of ctx.module.functions) {
    for (const b of fn.blocks) {
      for (const i of [...b.instrs]) {
        if (i.info?.hasSideEffects || i.info?.mayStore || i.isControlFlow || i.defs.length === 0) continue;
        if (i.defRegs().every((r) => r.useCount === 0)) b.remove(i);
      }
    }
  }
};
/** A deliberately wrong phase: changes the constant 3 of the IMAD into 4. */
const wrongConst = (ctx: PhaseContext): void => {
  for (const fn of ctx.module.functions) {
    for (const i of fn.instructions()) {
      if (i.opcode === 'IMAD' && i.uses[1]?.kind === 'imm' && i.uses[1].value === 3n) i.setUse(1, imm(4));
    }
  }
};

/** A wrong phase that edits a field directly (no mutation API, so the IR version does not move): GE becomes LT. */
const hiddenEdit = (ctx: PhaseContext): void => {
  for (const fn of ctx.module.functions) {
    for (const i of fn.instructions()) if (i.opcode === 'ISETP') i.mods = i.mods.map((m) => (m === 'GE' ? 'LT' : m));
  }
};

const testPhases = (wrong: boolean) =>
  definePlugin(
    { name: '@ptxforge/test-phases', version: '0.1.0', api: '^1.0.0' },
    {
      phases: {
        EarlyOriSimpleLiveDead: () => ({ execute: goodDce }),
        ...(wrong ? { GeneralOptimizeEarly: () => ({ execute: wrongConst }) } : {}),
      },
    },
  );

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('--verify-each', () => {
  it('passes a correct phase and re-runs after each change', () => {
    const tc = createToolchain({ plugins: [corePlugin, targetSm90Plugin, testPhases(false)] });
    const v = createVerifyEachInstrumentation({ seed: 7 });
    const res = tc.compile(parseOri(SRC), { arch: 'sm_90', optLevel: 3, instrumentation: [v] });
    expect(v.report.mismatch).toBeUndefined();
    expect(v.report.skipped).toEqual([]);
    expect(v.report.phasesChecked).toBeGreaterThanOrEqual(1);
    expect([...res.module.functions[0]!.instructions()].some((i) => i.opcode === 'IADD3' && i.defRegs()[0]?.name === '%r7')).toBe(false);
  });

  it('catches a deliberately wrong phase and names it, with IR files', () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'verify-each-'));
    const tc = createToolchain({ plugins: [corePlugin, targetSm90Plugin, testPhases(true)] });
    const v = createVerifyEachInstrumentation({
      launch: { grid: 1, block: 8, buffers: { out: { type: 'u32', count: 8 } }, params: [{ buffer: 'out' }, 8] },
      outDir: dir,
    });
    let err: unknown;
    try {
      tc.compile(parseOri(SRC), { arch: 'sm_90', optLevel: 3, instrumentation: [v] });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PtxforgeError);
    const e = err as PtxforgeError;
    expect(e.code).toBe('VERIFY_EACH_MISMATCH');
    expect(e.message).toContain('phase 13 GeneralOptimizeEarly (@ptxforge/test-phases)');
    expect(e.message).toContain('kernel @scale');
    // Thread 0 stores 1 before (0*3+1) and 1 after; thread 1 stores 4, now 5: the first difference is element 1.
    expect(e.message).toContain('element 1): before 0x00000004 (4), after 0x00000005 (5)');
    const m = v.report.mismatch!;
    expect(m.phase.name).toBe('GeneralOptimizeEarly');
    expect(m.address).toBe(0x5_0000_0004);
    expect(existsSync(m.files!.before)).toBe(true);
    expect(readFileSync(m.files!.before, 'utf8')).toContain('IMAD %r0, 3, 1');
    expect(readFileSync(m.files!.after, 'utf8')).toContain('IMAD %r0, 4, 1');
  });

  it('checks every phase that ran: an edit that escapes the IR version is still caught', () => {
    const hidden = definePlugin(
      { name: '@ptxforge/test-hidden', version: '0.1.0', api: '^1.0.0' },
      { phases: { GeneralOptimizeEarly: () => ({ execute: hiddenEdit }) } },
    );
    const tc = createToolchain({ plugins: [corePlugin, targetSm90Plugin, hidden] });
    const v = createVerifyEachInstrumentation({
      launch: { grid: 1, block: 8, buffers: { out: { type: 'u32', count: 8 } }, params: [{ buffer: 'out' }, 4] },
    });
    expect(() => tc.compile(parseOri(SRC), { arch: 'sm_90', optLevel: 3, instrumentation: [v] })).toThrow(/phase 13 GeneralOptimizeEarly \(@ptxforge\/test-hidden\)/);
    expect(v.report.mismatch?.phase.name).toBe('GeneralOptimizeEarly');
  });

  it('counts every phase that ran as checked', () => {
    const tc = createToolchain({ plugins: [corePlugin, targetSm90Plugin, testPhases(false)] });
    const v = createVerifyEachInstrumentation({ seed: 7 });
    const res = tc.compile(parseOri(SRC), { arch: 'sm_90', optLevel: 3, instrumentation: [v] });
    const ran = res.phases.filter((p) => p.ran).length;
    expect(v.report.phasesChecked).toBe(ran);
  });

  it('skips kernels whose reference run fails, saying why', () => {
    const tc = createToolchain({ plugins: [corePlugin, targetSm90Plugin] });
    const v = createVerifyEachInstrumentation({ launch: { block: 4, params: [{ buffer: 'missing' }, 4] } });
    tc.compile(parseOri(SRC), { arch: 'sm_90', optLevel: 3, instrumentation: [v] });
    expect(v.report.skipped[0]!.kernel).toBe('scale');
    expect(v.report.skipped[0]!.reason).toContain("'missing'");
  });

  it('retries a generated launch the kernel cannot run with the compact one, and checks with that', () => {
    // the store lands at tid * n * 4096 bytes (n * 1024 words): past the default 64 KiB buffer for most n in 1..64, inside the
    // compact launch's 1 MiB for n in 1..4 and 32 threads
    const far = SRC.replace('%rd0 = IMAD.WIDE.U32 %r0, 4, RZ', '%r8 = IMAD %r0, %r1, RZ\n  %r9 = SHF.L.U32 %r8, 10, RZ\n  %rd0 = IMAD.WIDE.U32 %r9, 4, RZ').replace('ISETP.GE.U32.AND %r0, %r1, PT', 'ISETP.GE.U32.AND %r0, 64, PT');
    const m = parseOri(far);
    expect(runKernel(m, generateLaunch(m, m.functions[0]!, 7)).ok).toBe(false);
    expect(runKernel(m, generateLaunch(m, m.functions[0]!, 7, COMPACT_LAUNCH_PROFILE)).ok).toBe(true);
    const tc = createToolchain({ plugins: [corePlugin, targetSm90Plugin, testPhases(false)] });
    const v = createVerifyEachInstrumentation({ seed: 7 });
    tc.compile(parseOri(far), { arch: 'sm_90', optLevel: 3, instrumentation: [v] });
    expect(v.report.skipped).toEqual([]);
    expect(v.report.runs).toBeGreaterThanOrEqual(2);
    expect(v.report.mismatch).toBeUndefined();
    // and a wrong phase is still caught through the compact launch
    const bad = createVerifyEachInstrumentation({ seed: 7 });
    expect(() => createToolchain({ plugins: [corePlugin, targetSm90Plugin, testPhases(true)] }).compile(parseOri(far), { arch: 'sm_90', optLevel: 3, instrumentation: [bad] })).toThrow(/changed the behaviour of kernel @scale/);
  });

  it('retries compact with its own smaller budget, and not at all when no launch can help', () => {
    const tc = createToolchain({ plugins: [corePlugin, targetSm90Plugin] });
    // a loop that never ends: both launches run out of steps, the compact one at an eighth of the budget
    const spin = SRC.replace('  STG.E.32 [%rd2], %r2\n  EXIT', '  STG.E.32 [%rd2], %r2\n  BRA bb1');
    const v = createVerifyEachInstrumentation({ seed: 7, maxSteps: 80_000 });
    tc.compile(parseOri(spin), { arch: 'sm_90', optLevel: 3, instrumentation: [v] });
    expect(v.report.runs).toBe(2);
    expect(v.report.skipped[0]!.reason).toContain('budget of 80000 thread-instructions');
    expect(v.report.skipped[0]!.retry).toContain(`budget of ${80_000 / COMPACT_STEP_DIVISOR} thread-instructions`);
    // a device-side launch fails the same way with any launch: one run, no compact retry
    const launching = SRC.replace('  STG.E.32 [%rd2], %r2\n  EXIT', '  %r9 = CALL @cudaLaunchDeviceV2, %rd2, %rd1\n  EXIT');
    const w = createVerifyEachInstrumentation({ seed: 7 });
    tc.compile(parseOri(launching), { arch: 'sm_90', optLevel: 3, instrumentation: [w] });
    expect(w.report.runs).toBe(1);
    expect(w.report.skipped).toEqual([{ kernel: 'scale', reason: expect.stringContaining('device-side kernel launches') as unknown as string }]);
  });

  it('checks a kernel whose every launch trips an assertion by the assertion it trips', () => {
    const asserting = SRC.replace('  STG.E.32 [%rd2], %r2\n  EXIT', '  STG.E.32 [%rd2], %r2\n  %rd5 = MOV 0\n  CALL @__assertfail, %rd5, %rd5, %r0, %rd5, %rd5\n  EXIT');
    const good = createVerifyEachInstrumentation({ seed: 7 });
    createToolchain({ plugins: [corePlugin, targetSm90Plugin, testPhases(false)] }).compile(parseOri(asserting), { arch: 'sm_90', optLevel: 3, instrumentation: [good] });
    expect(good.report.skipped).toEqual([]);
    expect(good.report.assertions).toEqual([{ kernel: 'scale', assertion: 'device-side assertion failed: ?:0: ?: Assertion `?` failed.' }]);
    expect(good.report.mismatch).toBeUndefined();
    // a phase that drops the call changes the outcome
    const dropCall = definePlugin(
      { name: '@ptxforge/test-drop-assert', version: '0.1.0', api: '^1.0.0' },
      { phases: { GeneralOptimizeEarly: () => ({ execute: (ctx: PhaseContext) => {
        for (const fn of ctx.module.functions) for (const b of fn.blocks) for (const i of [...b.instrs]) if (i.opcode === 'CALL') b.remove(i);
      } }) } },
    );
    const bad = createVerifyEachInstrumentation({ seed: 7 });
    expect(() => createToolchain({ plugins: [corePlugin, targetSm90Plugin, dropCall] }).compile(parseOri(asserting), { arch: 'sm_90', optLevel: 3, instrumentation: [bad] })).toThrow(/tripped "device-side assertion failed: \?:0: \?: Assertion `\?` failed."; now it runs to the end/);
  });

  it('re-runs only the kernels a phase changed (a module of many kernels)', () => {
    // three kernels; the phase removes the dead IADD3 of @b only: one re-run after the three reference runs
    const three = ['a', 'b', 'c'].map((k) => SRC.replace('.target sm_90\n', '').replace('@scale', `@${k}`)).join('\n');
    const onlyB = (edit: (ctx: PhaseContext) => void) => (ctx: PhaseContext): void => {
      // the phase sees a view of the module holding @b alone
      const b = ctx.module.functions.find((f) => f.name === 'b')!;
      edit({ ...ctx, module: Object.assign(Object.create(Object.getPrototypeOf(ctx.module) as object), ctx.module, { functions: [b] }) } as PhaseContext);
    };
    const plugin = (wrong: boolean) =>
      definePlugin(
        { name: '@ptxforge/test-one-kernel', version: '0.1.0', api: '^1.0.0' },
        { phases: { GeneralOptimizeEarly: () => ({ execute: onlyB(wrong ? wrongConst : goodDce) }) } },
      );
    const good = createVerifyEachInstrumentation({ seed: 7 });
    createToolchain({ plugins: [corePlugin, targetSm90Plugin, plugin(false)] }).compile(parseOri(`.target sm_90\n${three}`), { arch: 'sm_90', optLevel: 3, instrumentation: [good] });
    expect(good.report.mismatch).toBeUndefined();
    expect(good.report.skipped).toEqual([]);
    expect(good.report.runs).toBe(3 + 1);
    const bad = createVerifyEachInstrumentation({ seed: 7 });
    expect(() =>
      createToolchain({ plugins: [corePlugin, targetSm90Plugin, plugin(true)] }).compile(parseOri(`.target sm_90\n${three}`), { arch: 'sm_90', optLevel: 3, instrumentation: [bad] }),
    ).toThrow(/phase 13 GeneralOptimizeEarly \(@ptxforge\/test-one-kernel\) changed the behaviour of kernel @b/);
    expect(bad.report.runs).toBe(3 + 1);
  });
});
