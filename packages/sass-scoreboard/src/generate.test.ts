import { existsSync, readFileSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readCubin } from '@ptxforge/cubin';
import { hazardFunctionsOf, registerFamilyCodecs } from '@ptxforge/dis';
import { checkHazards, type ControlInfo, type HazardFunction } from '@ptxforge/sass-hazards';
import { generateScoreboards, stallCycles } from './index.js';

registerFamilyCodecs();
const GOLDEN = fileURLToPath(new URL('../../../../shared/golden/cudatest.7.sm_75.cubin', import.meta.url));
const haveGolden = existsSync(GOLDEN);
const havePtxas = spawnSync('ptxas', ['--version']).status === 0;

const blank = (fn: HazardFunction): HazardFunction => ({
  ...fn,
  instrs: fn.instrs.map((i) => ({ ...i, control: { stall: 0, yield: false, wbar: null, rbar: null, waitMask: 0, reuse: 0 } as ControlInfo })),
});

function regenerate(fns: HazardFunction[], arch: string) {
  let ours = 0;
  let theirs = 0;
  for (const fn of fns) {
    theirs += stallCycles(fn.instrs.map((i) => i.control));
    // Without any control the checker must find hazards (the check can fail) ...
    const r = generateScoreboards(blank(fn), { arch });
    expect(r.unresolved, `${fn.name}: ${r.unresolved.map((h) => `${h.kind} ${h.reg} @${h.addr}: ${h.missing}`).join('; ')}`).toEqual([]);
    // ... and with ours it finds none, by an independent run.
    const withOurs = { ...fn, instrs: fn.instrs.map((ins, k) => ({ ...ins, control: r.control[k]! })) };
    expect(checkHazards(withOurs, { arch }).hazards).toEqual([]);
    ours += r.stallCycles;
  }
  console.log(`${arch}: ${fns.length} functions, stall cycles ours ${ours}, ptxas ${theirs}`);
  return { ours, theirs };
}

describe.skipIf(!haveGolden)('scoreboards for the golden sm_75 cubin (needs ../shared/golden)', () => {
  it('regenerated control has 0 hazards and at most 1.5x ptxas stall cycles', () => {
    const { fns } = hazardFunctionsOf(readCubin(new Uint8Array(readFileSync(GOLDEN))));
    const blanks = fns.map(blank);
    expect(blanks.some((f) => checkHazards(f, { arch: 'sm_75' }).hazards.length > 0)).toBe(true);
    const { ours, theirs } = regenerate(fns, 'sm_75');
    expect(ours).toBeLessThanOrEqual(1.5 * theirs);
  }, 60_000);
});

const KERNEL = `.version 8.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 in, .param .u32 n)
{
  .reg .pred %p<3>;
  .reg .b32 %r<12>;
  .reg .f32 %f<8>;
  .reg .f64 %fd<4>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mad.lo.s32 %r4, %r3, 128, %r2;
  setp.ge.u32 %p1, %r4, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd3, %rd2;
  mul.wide.u32 %rd4, %r4, 4;
  add.s64 %rd5, %rd3, %rd4;
  ld.global.f32 %f1, [%rd5];
  mul.f32 %f2, %f1, %f1;
  sqrt.rn.f32 %f3, %f2;
  cvt.f64.f32 %fd1, %f3;
  mul.f64 %fd2, %fd1, %fd1;
  cvt.rn.f32.f64 %f4, %fd2;
  cvta.to.global.u64 %rd6, %rd1;
  add.s64 %rd7, %rd6, %rd4;
  st.global.f32 [%rd7], %f4;
DONE:
  ret;
}
`;

describe.skipIf(!havePtxas)('scoreboards for ptxas cubins of a small kernel (needs ptxas)', () => {
  for (const arch of ['sm_75', 'sm_80', 'sm_86', 'sm_89', 'sm_90']) {
    it(arch, () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'sb-'));
      const ptx = path.join(dir, 'k.ptx');
      writeFileSync(ptx, KERNEL);
      execFileSync('ptxas', [`-arch=${arch}`, '-O3', ptx, '-o', path.join(dir, 'k.cubin')]);
      const { fns } = hazardFunctionsOf(readCubin(new Uint8Array(readFileSync(path.join(dir, 'k.cubin')))));
      const { ours, theirs } = regenerate(fns, arch);
      expect(ours).toBeLessThanOrEqual(1.5 * theirs);
    }, 60_000);
  }
});
