import { parseOri } from '@ptxforge/kernel';
import { describe, expect, it } from 'vitest';
import { runKernel } from '../launch.js';
import { applyArrive, decodeMbarrier, encodeMbarrier, mbarrierInitWord, phaseCompleted } from './mbarrier.js';

describe('the mbarrier word (docs/ori-semantics.md "mbarrier objects")', () => {
  it('init is ptxas\'s word; arrivals and transactions complete a phase only together', () => {
    const w0 = mbarrierInitWord(3);
    expect(w0).toBe((BigInt(0x100000 - 3) << 43n) | (BigInt(0x100000 - 3) << 1n));
    expect(decodeMbarrier(w0)).toEqual({ phase: 0, pending: 3, expected: 3, tx: 0 });
    let w = applyArrive(w0, { arrive: 0, drop: false, tx: 100 }) as bigint;
    w = applyArrive(w, { arrive: 3, drop: false, tx: 0 }) as bigint;
    // all arrivals in, 100 bytes outstanding: not complete
    expect(decodeMbarrier(w)).toEqual({ phase: 0, pending: 0, expected: 3, tx: 100 });
    expect(phaseCompleted(w, 0)).toBe(false);
    w = applyArrive(w, { arrive: 0, drop: false, tx: -100 }) as bigint;
    expect(decodeMbarrier(w)).toEqual({ phase: 1, pending: 3, expected: 3, tx: 0 });
    expect(phaseCompleted(w, 0)).toBe(true);
    expect(phaseCompleted(w, 1)).toBe(false);
    // negative tx-counts round-trip (complete_tx before expect_tx)
    expect(decodeMbarrier(encodeMbarrier({ phase: 1, pending: 5, expected: 7, tx: -64 }))).toEqual({ phase: 1, pending: 5, expected: 7, tx: -64 });
  });

  it('undefined uses are reported: too many arrivals, tx-count out of range, dropping below zero', () => {
    const w = mbarrierInitWord(2);
    expect(applyArrive(w, { arrive: 3, drop: false, tx: 0 })).toMatch(/3 arrival\(s\) on a phase with 2 pending/);
    expect(applyArrive(w, { arrive: 0, drop: false, tx: 1 << 20 })).toMatch(/tx-count/);
    expect(applyArrive(w, { arrive: 3, drop: true, tx: 0 })).toMatch(/arrive_drop/);
  });
});

const kernel = (body: string): ReturnType<typeof parseOri> => parseOri(`.target sm_90
.entry @k(
  .param .u64 out c[0x0][0x210]
)
{
bb0:
  %r0 = S2R SR_TID.X
${body}
  EXIT
}`);

describe('waiting on an mbarrier in the interpreter', () => {
  it('a wait nobody can end is a barrier deadlock, not a run to the step budget', () => {
    // the phase needs 64 arrivals, the 32 threads give one each, then spin on try_wait
    const m = kernel(`  %rd1 = MOV 0x7ffe0000001fff80
  %r1 = MOV 0
  %p0 = ISETP.EQ.U32.AND %r0, 0, PT
  @%p0 STS.64 [0x0], %rd1
  BAR.SYNC 0
  %rd2 = SYNCS.ARRIVE.TRANS64.A1T0 [%r1+0x0], RZ
  %r2 = SHR.U64 %rd2, 32
bb1:
  %p1 = SYNCS.PHASECHK.TRANS64.TRYWAIT [%r1+0x0], %r2
  @!%p1 BRA bb1
bb2:`);
    const r = runKernel(m, { kernel: 'k', block: [32], buffers: { out: { type: 'u32', count: 4 } }, params: [{ buffer: 'out' }], sharedBytes: 16 });
    expect(r.errors.map((e) => e.code)).toEqual(['INTERP_BARRIER_DEADLOCK']);
    expect(r.errors[0]!.message).toMatch(/mbarrier wait never completes/);
  });

  it('more arrivals than pending trap with INTERP_MBARRIER', () => {
    const m = kernel(`  %rd1 = MOV 0x7ffe0000001fff80
  %r1 = MOV 0
  %p0 = ISETP.EQ.U32.AND %r0, 0, PT
  @%p0 STS.64 [0x0], %rd1
  BAR.SYNC 0
  %r2 = MOV 100
  %rd2 = SYNCS.ARRIVE.TRANS64.ART0 [%r1+0x0], %r2`);
    const r = runKernel(m, { kernel: 'k', block: [32], buffers: { out: { type: 'u32', count: 4 } }, params: [{ buffer: 'out' }], sharedBytes: 16 });
    expect(r.errors.map((e) => e.code)).toContain('INTERP_MBARRIER');
  });
});
