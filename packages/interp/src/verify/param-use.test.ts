import { parseOri } from '@ptxforge/kernel';
import { describe, expect, it } from 'vitest';
import { runKernel } from '../launch.js';
import { COMPACT_LAUNCH_PROFILE, DEFAULT_LAUNCH_PROFILE, generateLaunch, POINTER_GUARD_BYTES } from './inputs.js';
import { paramUse } from './param-use.js';

// a size_t count (param 1) bounds a loop and scales a stride; the pointer (param 0) is only ever added to
const SIZE_T = `.target sm_90
.entry @fill(
  .param .u64 out c[0x0][0x210],
  .param .u64 n c[0x0][0x218],
  .param .u64 stride c[0x0][0x220]
)
{
bb0:
  %rd0 = MOV c[0x0][0x210]
  %rd1 = MOV c[0x0][0x218]
  %rd9 = MOV c[0x0][0x220]
  %rd2 = MOV 0
  %r0 = S2R SR_TID.X
  %rd3 = IMAD.WIDE.U32 %r0, 4, RZ
  %rd4 = IADD3 %rd0, %rd3, RZ
bb1:
  %rd5 = IMAD %rd2, %rd9, RZ
  %rd6 = SHL %rd5, 2
  %rd7 = IADD3 %rd4, %rd6, RZ
  %r1 = I2I.U32.U64 %rd2
  STG.E.32 [%rd7], %r1
  %rd2 = IADD3 %rd2, 1, RZ
  %p0 = ISETP.LT.U64.AND %rd2, %rd1, PT
  @%p0 BRA bb1
bb2:
  EXIT
}`;

describe('paramUse: pointer-sized parameters as buffers or scalars', () => {
  it('a 64-bit parameter that only feeds arithmetic is a scalar; one that reaches an address is a buffer', () => {
    const m = parseOri(SIZE_T);
    expect([...paramUse(m, m.functions[0]!).scalars].sort()).toEqual([1, 2]);
    const launch = generateLaunch(m, m.functions[0]!, 3);
    const params = launch.params as unknown as Array<Record<string, unknown>>;
    expect(params[0]).toEqual({ buffer: 'param0_out', offset: POINTER_GUARD_BYTES });
    expect(params[1]).toMatchObject({ type: 'u64' });
    expect(Number(params[1]!.value)).toBeGreaterThanOrEqual(1);
    expect(Number(params[1]!.value)).toBeLessThanOrEqual(DEFAULT_LAUNCH_PROFILE.scalarMax);
    // before: n and stride were buffer addresses (~2^34) and the loop ran off every allocation
    const r = runKernel(m, launch);
    expect(r.errors).toEqual([]);
  });

  it('a pointer stored to memory or passed to a function without a body stays a buffer', () => {
    const stored = SIZE_T.replace('STG.E.32 [%rd7], %r1', 'STG.E.64 [%rd7], %rd1');
    const m1 = parseOri(stored);
    expect([...paramUse(m1, m1.functions[0]!).scalars]).toEqual([2]);
    const called = SIZE_T.replace('  EXIT\n}', '  %r9 = CALL @opaque, %rd9\n  EXIT\n}');
    const m2 = parseOri(called);
    expect([...paramUse(m2, m2.functions[0]!).scalars]).toEqual([1]);
  });

  it('follows an argument into a callee that uses it as an address', () => {
    const m = parseOri(`.target sm_90
.func @put(
  .param .u64 p %rd0
) -> (%r1)
{
bb0:
  %r1 = MOV 7
  STG.E.32 [%rd0], %r1
  RET %r1
}

.entry @k(
  .param .u64 out c[0x0][0x210],
  .param .u64 n c[0x0][0x218]
)
{
bb0:
  %rd1 = MOV c[0x0][0x210]
  %rd2 = MOV c[0x0][0x218]
  %p0 = ISETP.EQ.U64.AND %rd2, 0, PT
  @%p0 EXIT
bb1:
  %r9 = CALL @put, %rd1
  EXIT
}`);
    const k = m.functions.find((f) => f.name === 'k')!;
    expect([...paramUse(m, k).scalars]).toEqual([1]);
    expect(runKernel(m, generateLaunch(m, k, 1)).errors).toEqual([]);
  });

  it("a structure parameter's 8-byte fields used as addresses get buffers, the rest stays zero", () => {
    const m = parseOri(`.target sm_90
.entry @tiles(
  .param .b8 .align 8 state[24] c[0x0][0x210]
)
{
bb0:
  %r0 = S2R SR_TID.X
  %r1 = MOV c[0x0][0x210]
  %rd0 = MOV c[0x0][0x218]
  %rd1 = IMAD.WIDE.U32 %r0, 4, %rd0
  %r2 = IADD3 %r0, %r1, RZ
  STG.E.32 [%rd1], %r2
  %rd2 = MOV c[0x0][0x220]
  %r3 = LDG.E.32 [%rd2-0x4]
  STG.E.32 [%rd1+0x100], %r3
  EXIT
}`);
    const fn = m.functions[0]!;
    expect(paramUse(m, fn).pointerFields.get(0)).toEqual([8, 16]);
    for (const profile of [DEFAULT_LAUNCH_PROFILE, COMPACT_LAUNCH_PROFILE]) {
      const launch = generateLaunch(m, fn, 5, profile);
      expect(launch.params).toEqual([{ fields: [
        { at: 8, buffer: 'param0_state_at8', offset: POINTER_GUARD_BYTES },
        { at: 16, buffer: 'param0_state_at16', offset: POINTER_GUARD_BYTES },
      ] }]);
      // field 0 is zero (tid + 0 stored); p[-1] reads the guard before the pointer
      const r = runKernel(m, launch);
      expect(r.errors).toEqual([]);
      const out = new Uint32Array(r.buffers.param0_state_at8!.bytes.slice().buffer);
      expect(out[POINTER_GUARD_BYTES / 4 + 3]).toBe(3);
    }
  });

  it('the compact launch shapes its block by the thread ids the kernel reads', () => {
    const twoD = parseOri(SIZE_T.replace('%r0 = S2R SR_TID.X', '%r0 = S2R SR_TID.Y'));
    expect(generateLaunch(twoD, twoD.functions[0]!, 1, COMPACT_LAUNCH_PROFILE).block).toEqual([8, 4, 1]);
    expect(generateLaunch(twoD, twoD.functions[0]!, 1).block).toEqual([64, 1, 1]);
    const threeD = parseOri(SIZE_T.replace('%r0 = S2R SR_TID.X', '%r0 = S2R SR_TID.Z'));
    expect(generateLaunch(threeD, threeD.functions[0]!, 1, COMPACT_LAUNCH_PROFILE).block).toEqual([4, 4, 2]);
    const oneD = parseOri(SIZE_T);
    expect(generateLaunch(oneD, oneD.functions[0]!, 1, COMPACT_LAUNCH_PROFILE).block).toEqual([32, 1, 1]);
  });
});
