import { PtxforgeError, verifyModule } from '@ptxforge/kernel';
import { describe, expect, it } from 'vitest';
import { parsePtx } from '../parser.js';
import { lowerPtx } from './module.js';

const SM90 = { target: { arch: 'sm_90', capabilities: { paramBase: 0x210 } } };
const kernel = (line: string): string =>
  `.version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n  .reg .b32 %r<8>;\n  ${line}\n  ret;\n}\n`;
const lower = (text: string) => lowerPtx(parsePtx(text, 'k.ptx'), SM90);

function errorOf(f: () => unknown): PtxforgeError {
  try {
    f();
  } catch (e) {
    if (e instanceof PtxforgeError) return e;
    throw e;
  }
  throw new Error('expected an error');
}

describe('SIMD video instructions (video.ts)', () => {
  it('lowers the .add forms of every vop4/vop2 with any u32/s32 type mix (ptxas accepts them)', () => {
    for (const op of ['vabsdiff4', 'vadd4', 'vsub4', 'vavrg4', 'vmin4', 'vmax4', 'vabsdiff2', 'vadd2', 'vsub2', 'vavrg2', 'vmin2', 'vmax2']) {
      for (const types of ['u32.u32.u32', 's32.s32.u32', 'u32.s32.s32']) {
        const m = lower(kernel(`${op}.${types}.add %r1, %r2, %r3, %r4;`));
        expect(verifyModule(m)).toEqual([]);
      }
    }
  });

  it('rejects what ptxas rejects, and refuses the forms it does not lower, each with a located error', () => {
    expect(errorOf(() => lower(kernel('vabsdiff4.u32.u32.u32.sat.add %r1, %r2, %r3, %r4;'))).format()).toBe(
      'k.ptx:7:3: error PTX_SEMANTIC: Illegal combination of .sat and .add modifiers',
    );
    expect(errorOf(() => lower(kernel('vabsdiff4.b32.u32.u32.add %r1, %r2, %r3, %r4;'))).format()).toBe(
      "k.ptx:7:3: error PTX_SEMANTIC: Unexpected instruction types specified for 'vabsdiff4'",
    );
    expect(errorOf(() => lower(kernel('vabsdiff4.u32.u32.u32 %r1, %r2, %r3, %r4;'))).format()).toBe(
      "k.ptx:7:3: error PTX_UNSUPPORTED: instruction 'vabsdiff4.u32.u32.u32' is not supported by the PTX front end",
    );
  });
});
