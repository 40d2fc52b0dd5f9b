/**
 * Interpreter throughput on loop-heavy kernels (thread-instructions per second on one core).
 * Run after a build: `pnpm --filter @ptxforge/interp bench`. Results go to docs/benchmarks.md by hand.
 */
import { parseOri } from '@ptxforge/kernel';
import { runKernel, type Launch } from '../launch.js';

const INT_LOOP = `.target sm_90
.entry @intloop(
  .param .u64 out c[0x0][0x210],
  .param .u32 n c[0x0][0x218]
)
{
bb0:
  %r0 = S2R SR_TID.X
  %r1 = S2R SR_CTAID.X
  %r2 = MOV c[0x0][0x0]
  %r3 = IMAD %r1, %r2, %r0
  %r4 = MOV c[0x0][0x218]
  %r5 = MOV 0
  %r6 = MOV %r3
bb1:
  %r6 = IMAD %r6, 1664525, 1013904223
  %r7 = LOP3.LUT %r6, 0xffff, RZ, 0xc0
  %r8 = SHR.U32 %r6, 16
  %r9 = IADD3 %r7, %r8, %r5
  %p0 = ISETP.GT.U32.AND %r9, 0x8000, PT
  %r5 = SEL %r9, %r7, %p0
  %r4 = IADD3 %r4, -1, RZ
  %p1 = ISETP.NE.U32.AND %r4, RZ, PT
  @%p1 BRA bb1
bb2:
  %rd0 = IMAD.WIDE.U32 %r3, 4, RZ
  %rd1 = MOV c[0x0][0x210]
  %rd2 = IADD3 %rd1, %rd0, RZ
  STG.E.32 [%rd2], %r5
  EXIT
}`;

const FLOAT_LOOP = `.target sm_90
.entry @floop(
  .param .u64 out c[0x0][0x210],
  .param .u32 n c[0x0][0x218]
)
{
bb0:
  %r0 = S2R SR_TID.X
  %r4 = MOV c[0x0][0x218]
  %r1 = I2F.F32.U32 %r0
  %r2 = MOV 0f3F800000
bb1:
  %r2 = FFMA %r2, 0f3F7FF000, %r1
  %r3 = FMUL %r2, 0f3A800000
  %r1 = FADD %r1, %r3
  %p0 = FSETP.GT.AND %r1, 0f47000000, PT
  @%p0 BRA bb3
bb2:
  %r4 = IADD3 %r4, -1, RZ
  %p1 = ISETP.NE.U32.AND %r4, RZ, PT
  @%p1 BRA bb1
bb3:
  %rd0 = IMAD.WIDE.U32 %r0, 4, RZ
  %rd1 = MOV c[0x0][0x210]
  %rd2 = IADD3 %rd1, %rd0, RZ
  STG.E.32 [%rd2], %r2
  EXIT
}`;

function bench(name: string, src: string, launch: Launch, reps: number): void {
  const m = parseOri(src);
  runKernel(m, launch); // warm-up (JIT)
  let best = Infinity;
  let threadInstr = 0;
  let warpInstr = 0;
  for (let k = 0; k < reps; k++) {
    const t0 = performance.now();
    const r = runKernel(m, launch);
    const ms = performance.now() - t0;
    if (!r.ok) throw new Error(r.errors[0]!.message);
    best = Math.min(best, ms);
    threadInstr = r.counts.threadInstructions;
    warpInstr = r.counts.warpInstructions;
  }
  const rate = threadInstr / (best / 1000);
  console.log(`${name.padEnd(10)} ${(threadInstr / 1e6).toFixed(1)}M thread-instr (${(warpInstr / 1e6).toFixed(2)}M warp-instr) in ${best.toFixed(0)} ms: ${(rate / 1e6).toFixed(1)}M thread-instr/s`);
}

const launch = (n: number): Launch => ({
  grid: 8,
  block: 256,
  buffers: { out: { type: 'u32', count: 2048 } },
  params: [{ buffer: 'out' }, n],
});
bench('int loop', INT_LOOP, launch(1000), 3);
bench('float loop', FLOAT_LOOP, launch(1000), 3);
