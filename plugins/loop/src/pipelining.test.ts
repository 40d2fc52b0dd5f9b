import { describe, expect, it } from 'vitest';
import { LatencyModel, parseOri } from '@ptxforge/kernel';
import { makeTestContext } from '@ptxforge/opt-utils';
import { LOOP_KNOBS } from './knobs.js';
import { LATENCY_CLASSES, PipeliningPhase, computeMII, latencyClass, renameIterationLocalValues } from './index.js';

const body = (lines: string) => parseOri(`.target sm_90
.entry @k(
  .param .u64 a c[0x0][0x210]
)
{
bb0:
  %r1 = MOV 0
  %rd1 = MOV c[0x0][0x210]
bb1:
${lines}  %r1 = IADD3 %r1, 1, RZ
  %p0 = ISETP.LT.S32.AND %r1, 64, PT
  @%p0 BRA bb1
bb2:
  EXIT
}
`);

describe('OriPipelining analysis', () => {
  it('ResMII: 8 FP32 ops and 3 global loads on widths ALU4 FMA4 DFMA1 MMA1 LSU2 TEX1 BRA1 give max(8/4, 3/2) = 2', () => {
    const m = body(`${'  %r5 = FADD %r6, %r7\n'.repeat(8)}${'  %r8 = LDG.E.32 [%rd1]\n'.repeat(3)}`);
    const instrs = m.functions[0]!.blocks[1]!.instrs.slice(0, 11);
    expect(computeMII(instrs, [4, 4, 1, 1, 2, 1, 1]).resMII).toBe(2);
  });
  it('RecMII: a loop-carried FFMA chain needs II >= its latency', () => {
    const m = body('  %r9 = FFMA %r9, %r9, %r9\n');
    const instrs = m.functions[0]!.blocks[1]!.instrs.filter((i) => !i.isControlFlow);
    const r = computeMII(instrs, [4, 4, 1, 1, 4, 1, 1]);
    expect(r.recMII).toBe(5);
    expect(r.mii).toBe(5);
  });
  it('classifies into the spec classes only', () => {
    const m = body('  %r9 = FFMA %r9, %r9, %r9\n  %r8 = LDG.E.32 [%rd1]\n  %r7 = I2F.F32.S32 %r1\n');
    for (const i of m.functions[0]!.blocks.flatMap((b) => b.instrs)) expect(LATENCY_CLASSES).toContain(latencyClass(i));
  });
  it('every loop gets a remark; latencies and pipe widths come from the target LatencyModel service', () => {
    // A LatencyModel double: FFMA takes 6 cycles here (4 in the spec tables), so RecMII follows the service.
    const lm: LatencyModel = {
      pipeWidths: [4, 4, 1, 1, 2, 1, 1],
      pipe: (op) => (op === 'FFMA' ? 'FMA' : op.startsWith('LD') ? 'LSU' : 'ALU'),
      fixedLatency: (op) => (op === 'FFMA' ? 6 : op.startsWith('LD') ? undefined : 4),
      variableLatency: (op) => (op.startsWith('LD') ? 'memory' : undefined),
    };
    const m = body('  %r9 = FFMA %r9, %r9, %r9\n');
    const ctx = makeTestContext(m, { knobs: LOOP_KNOBS, services: [[LatencyModel, lm]] });
    new PipeliningPhase().execute(ctx);
    expect(ctx.remarks).toEqual([expect.objectContaining({ name: 'LoopNotPipelined', block: 'bb1', args: expect.objectContaining({ ii: 6, recMII: 6 }) })]);
    // A load feeding an accumulation overlaps with the next iterations: pipelined, II below the load latency.
    const m2 = body('  %rd2 = IMAD.WIDE.U32 %r1, 4, %rd1\n  %r5 = LDG.E.32 [%rd2]\n  %r9 = FFMA %r9, %r5, %r5\n');
    const ctx2 = makeTestContext(m2, { knobs: LOOP_KNOBS, services: [[LatencyModel, lm]] });
    new PipeliningPhase().execute(ctx2);
    expect(ctx2.remarks).toEqual([expect.objectContaining({ name: 'LoopPipelined', args: expect.objectContaining({ recMII: 6 }) })]);
    expect((ctx2.remarks[0]!.args as { ii: number }).ii).toBeLessThan(32);
    const a = ctx2.remarks[0]!.args as { regPressureBefore: number; regPressureAfter: number };
    expect(a.regPressureAfter).toBeGreaterThan(a.regPressureBefore);
  });
  it('profitability gate: pipelining that raises register pressure above PipelineRRegPressureLimit, or adds more than PipelineExtraInstLimit instructions, is rejected with the reason', () => {
    const lm: LatencyModel = {
      pipeWidths: [4, 4, 1, 1, 2, 1, 1],
      pipe: (op) => (op === 'FFMA' ? 'FMA' : op.startsWith('LD') ? 'LSU' : 'ALU'),
      fixedLatency: (op) => (op === 'FFMA' ? 6 : op.startsWith('LD') ? undefined : 4),
      variableLatency: (op) => (op.startsWith('LD') ? 'memory' : undefined),
    };
    const loop = '  %rd2 = IMAD.WIDE.U32 %r1, 4, %rd1\n  %r5 = LDG.E.32 [%rd2]\n  %r9 = FFMA %r9, %r5, %r5\n';
    const run = (knobValues: Record<string, number>) => {
      const ctx = makeTestContext(body(loop), { knobs: LOOP_KNOBS, services: [[LatencyModel, lm]], knobValues });
      new PipeliningPhase().execute(ctx);
      return ctx.remarks;
    };
    // With a limit below the loop's own pressure, only a schedule that adds no register is accepted (a larger
    // II with fewer overlapping values), else the loop is rejected naming the gate.
    const regs = run({ PipelineRRegPressureLimit: 2 });
    expect(regs).toHaveLength(1);
    const ra = regs[0]!.args as { reason?: string; regPressureBefore?: number; regPressureAfter?: number };
    if (regs[0]!.name === 'LoopPipelined') expect(ra.regPressureAfter!).toBeLessThanOrEqual(ra.regPressureBefore!);
    else expect(String(ra.reason)).toMatch(/estimated register pressure \d+ after pipelining \(\d+ before\) exceeds PipelineRRegPressureLimit 2/);
    const size = run({ PipelineExtraInstLimit: 1 });
    expect(size).toEqual([expect.objectContaining({ name: 'LoopNotPipelined' })]);
    expect(String((size[0]!.args as { reason: string }).reason)).toMatch(/would add more than PipelineExtraInstLimit 1/);
    // 0 turns both gates off.
    expect(run({ PipelineRRegPressureLimit: 0, PipelineExtraInstLimit: 0 })).toEqual([expect.objectContaining({ name: 'LoopPipelined' })]);
  });
  it('renames values that die inside the iteration; loop-carried and live-out values keep their register', () => {
    const m = body('  %r5 = LDG.E.32 [%rd1]\n  %r9 = IADD3 %r9, %r5, RZ\n  %r5 = LDG.E.32 [%rd1+0x4]\n  @%p0 %r5 = IADD3 %r5, 1, RZ\n  %r9 = IADD3 %r9, %r5, RZ\n');
    const fn = m.functions[0]!;
    const orig = fn.blocks[1]!.instrs.filter((i) => !i.isControlFlow);
    const out = renameIterationLocalValues(fn, orig);
    const r5 = fn.getReg('%r5')!;
    const first = out[0]!.defRegs()[0]!;
    expect(first).not.toBe(r5);
    expect(out[1]!.useRegs()).toContain(first);
    // The last unguarded def and the guarded def after it keep %r5; %r9 (several defs, loop-carried) is split
    // only between its first and last def.
    expect(out[2]!.defRegs()[0]).toBe(r5);
    expect(out[3]!.defRegs()[0]).toBe(r5);
    expect(out[4]!.useRegs()).toContain(r5);
    expect(out[4]!.defRegs()[0]).toBe(fn.getReg('%r9'));
    expect(out[1]!.defRegs()[0]).not.toBe(fn.getReg('%r9'));
    expect(out[4]!.useRegs()).toContain(out[1]!.defRegs()[0]);
  });
});
