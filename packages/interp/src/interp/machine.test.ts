import { parseOri } from '@ptxforge/kernel';
import { describe, expect, it } from 'vitest';
import { readElement, runKernel, type Launch, type RunResult } from '../launch.js';

function run(body: string, launch: Launch, params = '.param .u64 out c[0x0][0x210]', extra = ''): RunResult {
  const m = parseOri(`.target sm_90
${extra}
.entry @k(
  ${params}
)
{
${body}
}`);
  return runKernel(m, launch);
}

function values(r: RunResult, name: string): Array<number | string> {
  const b = r.buffers[name]!;
  const n = b.bytes.length / 4;
  return Array.from({ length: n }, (_, i) => readElement(b.bytes, b.type, i));
}

/** out[tid] = %r9 epilogue (address computed from the thread id in %r0). */
const STORE = `
  %rd0 = IMAD.WIDE.U32 %r0, 4, RZ
  %rd1 = MOV c[0x0][0x210]
  %rd2 = IADD3 %rd1, %rd0, RZ
  STG.E.32 [%rd2], %r9
  EXIT`;

describe('control flow and divergence', () => {
  it('if/else diverges and reconverges at the post-dominator', () => {
    const r = run(`
bb0:
  %r0 = S2R SR_TID.X
  %p0 = ISETP.LT.U32.AND %r0, 10, PT
  @%p0 BRA bb2
bb1:
  %r9 = IADD3 %r0, 100, RZ
  BRA bb3
bb2:
  %r9 = IMAD %r0, 2, RZ
bb3:
  %r8 = IADD3 %r9, 1, RZ
  %r9 = MOV %r8
${STORE}`, { block: 32, buffers: { out: { type: 'u32', count: 32 } }, params: [{ buffer: 'out' }] });
    expect(r.errors).toEqual([]);
    expect(values(r, 'out')).toEqual(Array.from({ length: 32 }, (_, i) => (i < 10 ? 2 * i : i + 100) + 1));
    expect(r.counts.branches).toBe(2); // the divergent BRA, then the BRA of the else side
    expect(r.counts.divergentBranches).toBe(1);
    // bb3 runs once per warp after reconvergence: 2 instructions + the store epilogue (5).
    expect(r.counts.byBlock['k:bb3']).toEqual({ warp: 7, thread: 7 * 32 });
    expect(r.counts.byOpcode['IADD3']).toEqual({ warp: 3, thread: 22 + 32 + 32 });
  });

  it('loops with per-thread trip counts', () => {
    // out[tid] = sum_{i < tid} i
    const r = run(`
bb0:
  %r0 = S2R SR_TID.X
  %r1 = MOV 0
  %r9 = MOV 0
bb1:
  %p0 = ISETP.GE.U32.AND %r1, %r0, PT
  @%p0 BRA bb3
bb2:
  %r9 = IADD3 %r9, %r1, RZ
  %r1 = IADD3 %r1, 1, RZ
  BRA bb1
bb3:
${STORE}`, { block: 40, buffers: { out: { type: 'u32', count: 40 } }, params: [{ buffer: 'out' }] });
    expect(r.errors).toEqual([]);
    expect(values(r, 'out')).toEqual(Array.from({ length: 40 }, (_, i) => (i * (i - 1)) / 2 + 0));
    expect(r.counts.divergentBranches).toBeGreaterThan(0);
    expect(r.counts.warpInstructions).toBeLessThan(r.counts.threadInstructions);
  });

  it('PHI selects by the predecessor of each lane', () => {
    const r = run(`
bb0:
  %r0 = S2R SR_TID.X
  %r1 = LOP3.LUT %r0, 1, RZ, 0xc0
  %p0 = ISETP.EQ.U32.AND %r1, 0, PT
  @%p0 BRA bb2
bb1:
  %r2 = MOV 7
  BRA bb3
bb2:
  %r3 = MOV 9
bb3:
  %r9 = PHI %r2, bb1, %r3, bb2
${STORE}`, { block: 8, buffers: { out: { type: 'u32', count: 8 } }, params: [{ buffer: 'out' }] });
    expect(r.errors).toEqual([]);
    expect(values(r, 'out')).toEqual([9, 7, 9, 7, 9, 7, 9, 7]);
  });

  it('BRX jumps through a label table per lane', () => {
    const r = run(`
bb0:
  %r0 = S2R SR_TID.X
  %r1 = LOP3.LUT %r0, 3, RZ, 0xc0
  BRX %r1, (bb1, bb2, bb3, bb1)
bb1:
  %r9 = MOV 10
  BRA bb4
bb2:
  %r9 = MOV 20
  BRA bb4
bb3:
  %r9 = MOV 30
bb4:
${STORE}`, { block: 8, buffers: { out: { type: 'u32', count: 8 } }, params: [{ buffer: 'out' }] });
    expect(r.errors).toEqual([]);
    expect(values(r, 'out')).toEqual([10, 20, 30, 10, 10, 20, 30, 10]);
    expect(r.counts.divergentBranches).toBe(1);
  });

  it('CALL with divergence inside the callee', () => {
    const m = parseOri(`.target sm_90
.func @f(
  .param .u32 a %r0
) -> (%r1)
{
bb0:
  %p0 = ISETP.LT.U32.AND %r0, 3, PT
  @%p0 BRA bb2
bb1:
  %r1 = IADD3 %r0, 1000, RZ
  RET %r1
bb2:
  %r1 = IMAD %r0, %r0, RZ
  RET %r1
}

.entry @k(
  .param .u64 out c[0x0][0x210]
)
{
bb0:
  %r0 = S2R SR_TID.X
  %r9 = CALL @f, %r0
${STORE}
}`);
    const r = runKernel(m, { block: 6, buffers: { out: { type: 'u32', count: 6 } }, params: [{ buffer: 'out' }] });
    expect(r.errors).toEqual([]);
    expect(values(r, 'out')).toEqual([0, 1, 4, 1003, 1004, 1005]);
  });

  it('a warp spinning on a flag another warp of its CTA sets yields to it (PREEMPT_STEPS)', () => {
    const r = run(`
bb0:
  %r0 = S2R SR_TID.X
  %rd0 = MOV c[0x0][0x210]
  %p0 = ISETP.GE.U32.AND %r0, 32, PT
  @%p0 BRA bb3
bb1:
  %r1 = LDG.E.32 [%rd0]
  %p1 = ISETP.EQ.U32.AND %r1, 0, PT
  @%p1 BRA bb1
bb2:
  STG.E.32 [%rd0+0x4], %r1
  EXIT
bb3:
  %r2 = MOV 5
  STG.E.32 [%rd0], %r2
  EXIT`, { block: 64, buffers: { out: { type: 'u32', count: 2 } }, params: [{ buffer: 'out' }], maxSteps: 1_000_000 });
    expect(r.errors).toEqual([]);
    expect(values(r, 'out')).toEqual([5, 5]);
    // with one warp the spin has nobody to wait for: the budget ends it
    const alone = run(`
bb0:
  %rd0 = MOV c[0x0][0x210]
bb1:
  %r1 = LDG.E.32 [%rd0]
  %p1 = ISETP.EQ.U32.AND %r1, 0, PT
  @%p1 BRA bb1
bb2:
  EXIT`, { block: 32, buffers: { out: { type: 'u32', count: 2 } }, params: [{ buffer: 'out' }], maxSteps: 1_000_000 });
    expect(alone.errors[0]!.kind).toBe('step-limit');
  });

  it('a diamond in a loop left only by `@p EXIT` reconverges before a full-warp shuffle', () => {
    // lanes with an odd tid take bb2; all meet at bb3 for SHFL (every lane must take part), then leave by @p EXIT
    const r = run(`
bb0:
  %r0 = S2R SR_TID.X
  %r9 = MOV 0
  %r5 = MOV 0
bb1:
  %r6 = LOP3.LUT %r0, 1, RZ, 0xc0
  %p0 = ISETP.EQ.AND %r6, RZ, PT
  @%p0 BRA bb3
bb2:
  %r9 = IADD3 %r9, 100, RZ
bb3:
  %r1, %p2 = SHFL.DOWN %r9, 1, 0x1f
  %r9 = IADD3 %r9, %r1, RZ
  %r5 = IADD3 %r5, 1, RZ
  %p1 = ISETP.GE.AND %r5, 2, PT
  @%p1 BRA bb5
bb4:
  BRA bb1
bb5:
  %rd0 = IMAD.WIDE.U32 %r0, 4, RZ
  %rd1 = MOV c[0x0][0x210]
  %rd2 = IADD3 %rd1, %rd0, RZ
  STG.E.32 [%rd2], %r9
  EXIT`, { block: 32, buffers: { out: { type: 'u32', count: 32 } }, params: [{ buffer: 'out' }] });
    expect(r.errors).toEqual([]);
    const exitForm = run(`
bb0:
  %r0 = S2R SR_TID.X
  %r9 = MOV 0
  %r5 = MOV 0
  %rd0 = IMAD.WIDE.U32 %r0, 4, RZ
  %rd1 = MOV c[0x0][0x210]
  %rd2 = IADD3 %rd1, %rd0, RZ
bb1:
  %r6 = LOP3.LUT %r0, 1, RZ, 0xc0
  %p0 = ISETP.EQ.AND %r6, RZ, PT
  @%p0 BRA bb3
bb2:
  %r9 = IADD3 %r9, 100, RZ
bb3:
  %r1, %p2 = SHFL.DOWN %r9, 1, 0x1f
  %r9 = IADD3 %r9, %r1, RZ
  %r5 = IADD3 %r5, 1, RZ
  STG.E.32 [%rd2], %r9
  %p1 = ISETP.GE.AND %r5, 2, PT
  @%p1 EXIT
bb4:
  BRA bb1`, { block: 32, buffers: { out: { type: 'u32', count: 32 } }, params: [{ buffer: 'out' }] });
    expect(exitForm.errors).toEqual([]);
    expect(values(exitForm, 'out')).toEqual(values(r, 'out'));
  });

  it('BSSY/BSYNC reconverge explicitly', () => {
    const r = run(`
bb0:
  %r0 = S2R SR_TID.X
  %b0 = BSSY bb3
  %p0 = ISETP.LT.U32.AND %r0, 4, PT
  @%p0 BRA bb2
bb1:
  %r9 = MOV 1
  BRA bb3
bb2:
  %r9 = MOV 2
bb3:
  BSYNC %b0
  %r2 = VOTE.ANY PT
  %r9 = IADD3 %r9, %r2, RZ
${STORE}`, { block: 8, buffers: { out: { type: 'u32', count: 8 } }, params: [{ buffer: 'out' }] });
    expect(r.errors).toEqual([]);
    expect(values(r, 'out')).toEqual([2, 2, 2, 2, 1, 1, 1, 1].map((x) => x + 0xff));
  });
});

describe('memory, barriers and warp operations', () => {
  it('shared memory with a barrier reverses a block', () => {
    const r = run(`
bb0:
  %r0 = S2R SR_TID.X
  %r1 = IMAD %r0, 4, RZ
  %r2 = IADD3 %r0, 1000, RZ
  STS.32 [%r1+@tile], %r2
  BAR.SYNC 0
  %r3 = IADD3 -%r0, 63, RZ
  %r4 = IMAD %r3, 4, RZ
  %r9 = LDS.32 [%r4+@tile]
${STORE}`, { block: 64, buffers: { out: { type: 'u32', count: 64 } }, params: [{ buffer: 'out' }] }, undefined, '.shared .align 4 .b8 @tile[256]');
    expect(r.errors).toEqual([]);
    expect(values(r, 'out')).toEqual(Array.from({ length: 64 }, (_, i) => 1063 - i));
  });

  it('generic addresses reach shared and local windows', () => {
    const r = run(`
  .local .align 4 .b8 @buf[16]
bb0:
  %r0 = S2R SR_TID.X
  %rd5 = S2R SR_SWINBASE
  %r1 = IMAD %r0, 4, RZ
  %rd6 = IMAD.WIDE.U32 %r0, 4, %rd5
  ST.E.32 [%rd6+@tile], %r0
  %r2 = LDS.32 [%r1+@tile]
  STL.32 [@buf+0x4], %r2
  %rd7 = S2R SR_LWINBASE
  %r3 = LD.E.32 [%rd7+@buf+0x4]
  %r9 = IADD3 %r3, %r3, RZ
${STORE}`, { block: 4, buffers: { out: { type: 'u32', count: 4 } }, params: [{ buffer: 'out' }] }, undefined, '.shared .align 4 .b8 @tile[64]');
    expect(r.errors).toEqual([]);
    expect(values(r, 'out')).toEqual([0, 2, 4, 6]);
  });

  it('fills address relocations of initializers in global memory and in constant bank 3', () => {
    // out[k] = (value stored by the relocation) - (the address computed in the kernel): all zero.
    const r = run(`
bb0:
  %rd1 = MOV c[0x0][0x210]
  %rd2 = MOV @p
  %rd3 = LDG.E.64 [%rd2]
  %rd4 = MOV @x
  %rd5 = IADD3 %rd3, -%rd4, RZ
  STG.E.64 [%rd1], %rd5
  %rd6 = LDC.64 c[0x3][0x10]
  %rd7 = MOV @y
  %rd8 = IADD3 %rd6, -%rd7, -0x10
  STG.E.64 [%rd1+0x8], %rd8
  %rd9 = LDG.E.64 [%rd2+0x10]
  %rd10 = S2R SR_SWINBASE
  %rd11 = MOV @tile
  %rd12 = IADD3 %rd10, %rd11, 0x4
  %rd13 = IADD3 %rd9, -%rd12, RZ
  STG.E.64 [%rd1+0x10], %rd13
  %r0 = LDG.E.32 [%rd2+0x18]
  %r1 = MOV @y
  %r2 = IADD3 %r0, -%r1, RZ
  %r3 = LDG.E.32 [%rd2+0x1c]
  STG.E.32 [%rd1+0x18], %r2
  STG.E.32 [%rd1+0x1c], %r3
  EXIT`, { buffers: { out: { type: 'u32', count: 8, fill: 1 } }, params: [{ buffer: 'out' }] }, undefined, [
      '.const .align 8 .b8 @x[8] = hex"0100000000000000"',
      '.global .align 8 .b8 @y[32]',
      '.shared .align 8 .b8 @tile[64]',
      '.const .align 8 .b8 @p[32] = hex"ffffffffffffffff0000000000000000000000000000000000000000aabbccdd" relocs(0x0 .b64 @x, 0x8 .b64 generic(@y)+0x10, 0x10 .b64 generic(@tile)+0x4, 0x18 .b32 @y)',
    ].join('\n'));
    expect(r.errors).toEqual([]);
    // the last word keeps its initializer bytes: relocations replace only the bytes they cover
    expect(values(r, 'out')).toEqual([0, 0, 0, 0, 0, 0, 0, 0xddccbbaa]);
  });

  it('atomics across the grid', () => {
    const r = run(`
bb0:
  %r0 = S2R SR_TID.X
  %rd1 = MOV c[0x0][0x210]
  %r1 = ATOMG.E.ADD.U32 [%rd1], 1
  %r2 = ATOMG.E.MAX.S32 [%rd1+0x4], %r0
  ATOMG.E.ADD.F32 [%rd1+0x8], 0f3F000000
  %r3 = ATOMG.E.CAS.U32 [%rd1+0xc], RZ, 5
  EXIT`, { grid: 3, block: 50, buffers: { out: { type: 'u32', count: 4 } }, params: [{ buffer: 'out' }] });
    expect(r.errors).toEqual([]);
    expect(values(r, 'out')).toEqual([150, 49, 0x42960000, 5]); // 150 * 0.5 = 75.0f
  });

  it('warp shuffle reduction and vote', () => {
    const r = run(`
bb0:
  %r0 = S2R SR_TID.X
  %r9 = MOV %r0
  %r1 = SHFL.BFLY %r9, 16, 0x1f
  %r9 = IADD3 %r9, %r1, RZ
  %r1 = SHFL.BFLY %r9, 8, 0x1f
  %r9 = IADD3 %r9, %r1, RZ
  %r1 = SHFL.BFLY %r9, 4, 0x1f
  %r9 = IADD3 %r9, %r1, RZ
  %r1 = SHFL.BFLY %r9, 2, 0x1f
  %r9 = IADD3 %r9, %r1, RZ
  %r1 = SHFL.BFLY %r9, 1, 0x1f
  %r9 = IADD3 %r9, %r1, RZ
  %p0 = ISETP.LT.U32.AND %r0, 3, PT
  %r2 = VOTE.ANY %p0
  %r3 = REDUX.SUM %r0
  %r9 = IADD3 %r9, %r2, %r3
${STORE}`, { block: 32, buffers: { out: { type: 'u32', count: 32 } }, params: [{ buffer: 'out' }] });
    expect(r.errors).toEqual([]);
    expect(values(r, 'out')).toEqual(Array(32).fill(496 + 7 + 496));
  });

  it('shuffle uses only b[4:0] of a dynamic lane/delta (PTX shfl.sync)', () => {
    // delta 33 acts as 1: lane l reads lane l+1; lane 31 is out of range and keeps its own value.
    const r = run(`
bb0:
  %r0 = S2R SR_TID.X
  %r1 = MOV 33
  %r2, %p0 = SHFL.DOWN %r0, %r1, 0x1f
${STORE.replace('%r9', '%r2')}`, { block: 32, buffers: { out: { type: 'u32', count: 32 } }, params: [{ buffer: 'out' }] });
    expect(r.errors).toEqual([]);
    expect(values(r, 'out')).toEqual([...Array(31).keys()].map((l) => l + 1).concat([31]));
  });

  it('a shuffle from a lane that does not execute it gives an undefined value (no stale register)', () => {
    // Lanes 0..15 shuffle down by 16 under membermask 0xffff: their sources, lanes 16..31, took the other
    // path and hold a stale %r1 (the reduce7 pattern of the CUDA reduction sample). Using that result is
    // an undefined read, not a value that would depend on register assignment.
    const body = (use: string) => `
bb0:
  %r0 = S2R SR_TID.X
  %r1 = IADD3 %r0, 100, RZ
  %r9 = MOV %r0
  %p0 = ISETP.GE.U32.AND %r0, 16, PT
  @%p0 BRA bb2
bb1:
  %r2, %p1 = SHFL.DOWN %r1, 16, 0x1f, 0xffff
  %r3, %p2 = SHFL.DOWN %r1, 1, 0x1f, 0xffff
  ${use}
bb2:
${STORE}`;
    const launch: Launch = { block: 32, buffers: { out: { type: 'u32', count: 32 } }, params: [{ buffer: 'out' }] };
    const bad = run(body('%r9 = IADD3 %r9, %r2, RZ'), launch);
    expect(bad.ok).toBe(false);
    expect(bad.errors[0]!.code).toBe('INTERP_UNDEFINED_REGISTER');
    expect(bad.errors[0]!.site.instr).toBe('%r9 = IADD3 %r9, %r2, RZ');
    // A result that is never read is fine, and sources that do execute the shuffle stay defined
    // (lane 15 reads lane 16, which does not: only then is the value undefined).
    const okBody = body('%p3 = ISETP.LT.U32.AND %r0, 15, PT\n  @%p3 %r9 = IADD3 %r3, RZ, RZ');
    const good = run(okBody, launch);
    expect(good.errors).toEqual([]);
    expect(values(good, 'out')).toEqual([...Array(32).keys()].map((l) => (l < 15 ? l + 101 : l)));
  });
});

describe('undefined reads through SEL', () => {
  // OriDoPredication turns `if (p) x = load; y = p ? x : 0` into a predicated load and a SEL that reads x in
  // every lane; lanes that select the other operand do not use x, so only the selected operand must be written.
  const launch: Launch = { block: 32, buffers: { out: { type: 'u32', count: 32 } }, params: [{ buffer: 'out' }] };
  const body = (sel: string) => `
bb0:
  %r0 = S2R SR_TID.X
  %p0 = ISETP.LT.U32.AND %r0, 10, PT
  @%p0 %r1 = IADD3 %r0, 100, RZ
  ${sel}
${STORE}`;
  it('a SEL reads the operand each lane selects, and only that one', () => {
    const good = run(body('%r9 = SEL %r1, 7, %p0'), launch);
    expect(good.errors).toEqual([]);
    expect(values(good, 'out')).toEqual([...Array(32).keys()].map((l) => (l < 10 ? l + 100 : 7)));
    const flipped = run(body('%r9 = SEL 7, %r1, !%p0'), launch);
    expect(flipped.errors).toEqual([]);
    expect(values(flipped, 'out')).toEqual(values(good, 'out'));
  });
  it('selecting an operand that was never written in that lane is still an undefined read', () => {
    const bad = run(body('%r9 = SEL 7, %r1, %p0'), launch);
    expect(bad.ok).toBe(false);
    expect(bad.errors[0]!.code).toBe('INTERP_UNDEFINED_REGISTER');
    expect(bad.errors[0]!.site.tid).toEqual([10, 0, 0]);
  });
});

describe('reported errors', () => {
  const launch: Launch = { block: 4, buffers: { out: { type: 'u32', count: 4 } }, params: [{ buffer: 'out' }] };
  it('out-of-bounds global access names the instruction and thread', () => {
    const r = run(`
bb0:
  %r0 = S2R SR_TID.X
  %r1 = IMAD %r0, 4, 12
  %rd0 = IMAD.WIDE.U32 %r1, 1, RZ
  %rd1 = MOV c[0x0][0x210]
  %rd2 = IADD3 %rd1, %rd0, RZ
  STG.E.32 [%rd2], %r0
  EXIT`, launch);
    expect(r.ok).toBe(false);
    expect(r.errors[0]!.code).toBe('INTERP_OUT_OF_BOUNDS');
    expect(r.errors[0]!.message).toContain('STG.E.32 [%rd2], %r0');
    expect(r.errors[0]!.site.tid).toEqual([1, 0, 0]);
    // Lane 0 stored before lane 1 failed.
    expect(values(r, 'out')[3]).toBe(0);
  });
  it('misaligned access', () => {
    const r = run(`
bb0:
  %rd1 = MOV c[0x0][0x210]
  %r0 = LDG.E.32 [%rd1+0x2]
  EXIT`, launch);
    expect(r.errors[0]!.code).toBe('INTERP_MISALIGNED');
  });
  it('read of a never-written register', () => {
    const r = run(`
bb0:
  %r0 = S2R SR_TID.X
  %p0 = ISETP.EQ.U32.AND %r0, 2, PT
  @%p0 BRA bb2
bb1:
  %r5 = MOV 1
bb2:
  %r6 = IADD3 %r5, 1, RZ
  EXIT`, launch);
    expect(r.errors[0]!.code).toBe('INTERP_UNDEFINED_REGISTER');
    expect(r.errors[0]!.site.tid).toEqual([2, 0, 0]);
    expect(r.errors[0]!.site.instr).toBe('%r6 = IADD3 %r5, 1, RZ');
  });
  it('runaway loop hits the step budget', () => {
    const r = run(`
bb0:
  %r0 = MOV 0
bb1:
  %r0 = IADD3 %r0, 1, RZ
  BRA bb1`, { ...launch, maxSteps: 10000 });
    expect(r.errors[0]!.code).toBe('INTERP_STEP_LIMIT');
  });
  it('barrier deadlock', () => {
    const r = run(`
bb0:
  %r0 = S2R SR_TID.X
  %p0 = ISETP.LT.U32.AND %r0, 32, PT
  @%p0 BRA bb2
bb1:
  BAR.SYNC 1
  EXIT
bb2:
  BAR.SYNC 0
  EXIT`, { block: 64, buffers: { out: { count: 4 } }, params: [{ buffer: 'out' }] });
    expect(r.errors[0]!.code).toBe('INTERP_BARRIER_DEADLOCK');
    expect(r.errors[0]!.message).toContain('BAR.SYNC');
  });
  it('bad launch', () => {
    const r = run('bb0:\n  EXIT', { block: 4, params: [{ buffer: 'nope' }] });
    expect(r.errors[0]!.code).toBe('INTERP_BAD_LAUNCH');
    expect(r.errors[0]!.message).toContain("'nope'");
  });
});
