import { describe, expect, it } from 'vitest';
import { parseOri, printModule, type PhaseContext, type Remark, type TargetView } from '@ptxforge/kernel';
import {
  branchTargetScan,
  classifyControlFlow,
  instructionOffsets,
  NEAR_FLAG,
  restructureSyncPatterns,
  rewriteNearBranches,
  SLOT17_KNOBS,
  slot17HandlerA,
  slot17HandlerB,
} from '../index.js';

const wrap = (body: string): string => `.target sm_90
.entry @k(
  .param .u64 out c[0x0][0x210]
)
{
${body}
}
`;

function ctxFor(text: string, knobValues: Record<string, number | boolean> = {}): PhaseContext & { remarks: Remark[] } {
  const module = parseOri(wrap(text));
  const remarks: Remark[] = [];
  const defs = new Map(SLOT17_KNOBS.map((k) => [k.name, k] as const));
  const target = { capabilities: { convergenceBarriers: true } } as unknown as TargetView;
  return {
    module,
    target,
    optLevel: 3,
    phase: { index: 14, name: 'DoSwitchOptFirst' },
    phaseParam: undefined,
    knob: <T extends boolean | number | string>(n: string): T => (n in knobValues ? knobValues[n] : defs.get(n)!.default) as T,
    analysis: () => {
      throw new Error('no analyses in this test');
    },
    invalidate: () => {},
    isPassDisabled: () => false,
    diagnostics: { report: () => {}, all: [] },
    info: () => {},
    remark: (r) => remarks.push({ ...r, phaseIndex: 14, phase: 'DoSwitchOptFirst' }),
    remarks,
  };
}

describe('slot-17 handler A (sm60, sm70, sm90+)', () => {
  const uniform = `bb0:
  %r0 = S2R SR_TID.X
  %b0 = BSSY bb2
  %r1 = IADD3 %r0, 1, RZ
  BRA bb1
bb1:
  %r1 = IMAD %r1, 3, RZ
bb2:
  BSYNC %b0
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r1
  EXIT`;

  it('removes a convergence barrier whose region cannot diverge', () => {
    const m = parseOri(wrap(uniform));
    expect(restructureSyncPatterns(m.functions[0]!)).toBe(1);
    const text = printModule(m);
    expect(text).not.toContain('BSSY');
    expect(text).not.toContain('BSYNC');
  });

  it('keeps a barrier around a divergent branch', () => {
    const m = parseOri(
      wrap(`bb0:
  %r0 = S2R SR_TID.X
  %b0 = BSSY bb2
  %p0 = ISETP.LT.AND %r0, 3, PT
  @%p0 BRA bb2
bb1:
  %r0 = MOV 7
bb2:
  BSYNC %b0
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r0
  EXIT`),
    );
    expect(restructureSyncPatterns(m.functions[0]!)).toBe(0);
    expect(printModule(m)).toContain('BSSY');
  });

  it('retargets branch operands past branch-only blocks, up to the scan limit', () => {
    const text = `bb0:
  %r0 = S2R SR_TID.X
  %p0 = ISETP.LT.AND %r0, 3, PT
  @%p0 BRA f1
  BRA f3
f1:
  BRA f2
f2:
  BRA f3
f3:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r0
  EXIT`;
    const m = parseOri(wrap(text));
    expect(branchTargetScan(m.functions[0]!, 16)).toBe(2); // bb0's branch and f1's own branch to f2
    expect(printModule(m)).toContain('@%p0 BRA f3');
    const m1 = parseOri(wrap(text));
    branchTargetScan(m1.functions[0]!, 1);
    expect(printModule(m1)).toContain('@%p0 BRA f2');
  });

  it('runs both parts through the phase context; knob 232 disables the restructuring', () => {
    const c = ctxFor(uniform);
    for (const fn of c.module.functions) slot17HandlerA.run(fn, c);
    expect(c.remarks[0]).toMatchObject({ name: 'Slot17HandlerA', args: { syncRemoved: 1 } });
    const off = ctxFor(uniform, { SyncPatternRestructureDisable: true });
    for (const fn of off.module.functions) slot17HandlerA.run(fn, off);
    expect(printModule(off.module)).toContain('BSSY');
    expect(slot17HandlerA.status).toBe('implemented');
  });
});

describe('slot-17 handler B (sm80, sm89)', () => {
  const text = `bb0:
  %r0 = S2R SR_TID.X
  %p0 = ISETP.LT.AND %r0, 3, PT
  @%p0 BRA far
near:
  %r0 = IADD3 %r0, 1, RZ
  %r0 = IADD3 %r0, 1, RZ
  %r0 = IADD3 %r0, 1, RZ
  BRA far
far:
  %rd0 = MOV c[0x0][0x210]
  STG.E.32 [%rd0], %r0
  %b0 = BSSY done
  BSYNC %b0
done:
  EXIT`;

  it('classifies control flow per the spec table', () => {
    const fn = parseOri(wrap(text)).functions[0]!;
    const off = instructionOffsets(fn);
    const t = { forward: 2, backward: 2 };
    const got = [...fn.instructions()].map((i) => `${i.opcode}:${classifyControlFlow(i, off, t).code}`);
    expect(got).toEqual(['S2R:-1', 'ISETP:-1', 'BRA:0', 'IADD3:-1', 'IADD3:-1', 'IADD3:-1', 'BRA:1', 'MOV:-1', 'STG:-1', 'BSSY:5', 'BSYNC:3', 'EXIT:8']);
  });

  it('marks branches within the distance thresholds for the short encoding', () => {
    const fn = parseOri(wrap(text)).functions[0]!;
    const r = rewriteNearBranches(fn, { forward: 2, backward: 2 });
    expect(r).toEqual({ near: 1, far: 1, changed: 1 });
    const bras = [...fn.instructions()].filter((i) => i.opcode === 'BRA');
    expect(bras.map((i) => i.flags.has(NEAR_FLAG))).toEqual([false, true]);
    // With the defaults both are near; the flag round-trips through Ori text.
    const c = ctxFor(text);
    for (const fn of c.module.functions) slot17HandlerB.run(fn, c);
    expect(c.remarks[0]).toMatchObject({ args: { near: 2, far: 0 } });
    expect(printModule(parseOri(printModule(c.module)))).toBe(printModule(c.module));
    expect(printModule(c.module)).toContain('BRA far {near}');
  });
});
