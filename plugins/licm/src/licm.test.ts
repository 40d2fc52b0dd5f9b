import { describe, expect, it } from 'vitest';
import { assertValidModule, parseOri, printModule } from '@ptxforge/kernel';
import { generateProgram, runKernel, type Launch } from '@ptxforge/interp';
import { makeTestContext } from '@ptxforge/opt-utils';
import { LICM_KNOBS } from './knobs.js';
import { HoistInvariantsPhase, hoistBudget, readLicmKnobs } from './index.js';

const TEXT = `.target sm_90
.entry @k(
  .param .u64 out c[0x0][0x210],
  .param .u32 n c[0x0][0x220],
  .param .u32 m c[0x0][0x224]
)
{
bb0:
  %r0 = S2R SR_TID.X
  %r9 = MOV 1
  %r1 = MOV 0
bb1:
  %r5 = IMAD c[0x0][0x224], 3, 7
  %r6 = SHL %r5, 2
  %r9 = IMAD %r9, %r6, %r1
  %r1 = IADD3 %r1, 1, RZ
  %p0 = ISETP.LT.S32.AND %r1, c[0x0][0x220], PT
  @%p0 BRA bb1
bb2:
  %rd0 = IMAD.WIDE.U32 %r0, 4, c[0x0][0x210]
  STG.E.32 [%rd0], %r9
  EXIT
}
`;

function run(text: string, phase: HoistInvariantsPhase, launches: Launch[], knobValues: Record<string, number | boolean> = {}) {
  const m = parseOri(text);
  const ctx = makeTestContext(m, { knobs: LICM_KNOBS, knobValues, phaseName: ['OriHoistInvariantsEarly', 'OriHoistInvariantsLate', 'OriHoistInvariantsLate2', 'OriHoistInvariantsLate3'][phase.passId] });
  phase.execute(ctx);
  assertValidModule(m, 'after LICM');
  const out = printModule(m);
  for (const l of launches) {
    const r0 = runKernel(parseOri(text), l);
    const r1 = runKernel(parseOri(out), l);
    expect(r1.errors.map((e) => e.message)).toEqual([]);
    for (const [name, b] of Object.entries(r0.buffers)) expect(Buffer.from(r1.buffers[name]!.bytes).toString('hex'), out).toBe(Buffer.from(b.bytes).toString('hex'));
  }
  return { out, remarks: ctx.remarks };
}

const launch = (n: number, m: number): Launch => ({ grid: [1, 1, 1], block: [2, 1, 1], buffers: { out: { type: 'u32', count: 2 } }, params: { out: { buffer: 'out' }, n, m } });

describe('OriHoistInvariants', () => {
  it('phase 35 (pass_id 0) hoists the invariant expression chain into a new preheader', () => {
    const { out, remarks } = run(TEXT, new HoistInvariantsPhase(0), [launch(5, 2), launch(0, 9), launch(1, -4)]);
    const pre = out.slice(out.indexOf('%r1 = MOV 0'), out.indexOf('bb1:'));
    expect(pre).toContain('IMAD c[0x0][0x224], 3, 7');
    expect(pre).toContain('SHL %r5, 2');
    expect(remarks).toEqual([expect.objectContaining({ kind: 'passed', name: 'InvariantsHoisted', block: 'bb1', args: expect.objectContaining({ count: 2, passId: 0, instance: 'OriHoistInvariantsEarly' }) })]);
  });
  it('policy 3 (never) and the master switch keep the loop as it is', () => {
    expect(run(TEXT, new HoistInvariantsPhase(1), [], { HoistLate: 3 }).remarks).toEqual([]);
    const m = parseOri(TEXT);
    expect(new HoistInvariantsPhase(0).isNoOp(makeTestContext(m, { knobs: LICM_KNOBS, knobValues: { HoistInvariants: false } }))).toBe(true);
  });
  it('the set-based routine (UseNewLoopInvariantRoutineForHoisting) finds the same chain', () => {
    const { remarks } = run(TEXT, new HoistInvariantsPhase(2), [launch(3, 1)], { UseNewLoopInvariantRoutineForHoisting: true });
    expect(remarks[0]?.args?.count).toBe(2);
  });
  it('budgets follow the spec: 10 base, 22/100 simple, 200/300 for hoist_mode >= 2, x100 Late3, /10 inner', () => {
    const k = readLicmKnobs(makeTestContext(parseOri(TEXT), { knobs: LICM_KNOBS }));
    expect(hoistBudget(k, 0, { simple: false, hoistMode: 0, numPreds: 1, inner: false })).toBe(10);
    expect(hoistBudget(k, 0, { simple: true, hoistMode: 0, numPreds: 1, inner: false })).toBe(22);
    expect(hoistBudget(k, 1, { simple: true, hoistMode: 0, numPreds: 1, inner: false })).toBe(100);
    expect(hoistBudget(k, 0, { simple: true, hoistMode: 2, numPreds: 1, inner: false })).toBe(200);
    expect(hoistBudget(k, 2, { simple: true, hoistMode: 2, numPreds: 1, inner: false })).toBe(300);
    expect(hoistBudget(k, 3, { simple: true, hoistMode: 0, numPreds: 1, inner: false })).toBe(10000);
    expect(hoistBudget(k, 1, { simple: true, hoistMode: 3, numPreds: 2, inner: true })).toBe(15);
  });
  it.each(Array.from({ length: 80 }, (_, k) => k + 1))('generated program %i keeps its results through all four instances', (seed) => {
    const g = generateProgram(seed);
    if (!runKernel(parseOri(g.text), g.launch).ok) return;
    const m = parseOri(g.text);
    for (const id of [0, 1, 2, 3] as const) new HoistInvariantsPhase(id).execute(makeTestContext(m, { knobs: LICM_KNOBS }));
    assertValidModule(m, 'after LICM');
    const out = printModule(m);
    const r0 = runKernel(parseOri(g.text), g.launch);
    const r1 = runKernel(parseOri(out), g.launch);
    expect(r1.errors.map((e) => e.message)).toEqual([]);
    for (const [name, b] of Object.entries(r0.buffers)) expect(Buffer.from(r1.buffers[name]!.bytes).toString('hex'), `${g.text}\n---\n${out}`).toBe(Buffer.from(b.bytes).toString('hex'));
  });
});
