import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { buildCubin, buildInputOfCubin, compareCubins, CubinError, decodeAttribute, formatAttribute, readCubin, SHT, STB } from './index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = path.join(here, '../test/fixtures/build/kernels.ptx');

// Three instructions of Volta-family code: an EXIT (0x94d) with PT guard, a self-branch and a NOP. The control
// bits do not matter to the builder.
function code(...ops: number[]): Uint8Array {
  const out = new Uint8Array(16 * ops.length);
  ops.forEach((op, i) => {
    out[16 * i] = op & 0xff;
    out[16 * i + 1] = ((op >>> 8) & 0x0f) | 0x70;
  });
  return out;
}

describe('buildCubin', () => {
  it('builds a kernel whose facts read back (sm_90 layout)', () => {
    const bytes = buildCubin({
      arch: 'sm_90',
      functions: [
        {
          name: 'k',
          kind: 'entry',
          global: true,
          code: code(0x94d, 0x947, 0x918, 0x918),
          regCount: 12,
          params: [
            { ordinal: 0, offset: 0, size: 8 },
            { ordinal: 1, offset: 8, size: 4 },
          ],
          sharedBytes: 256,
          localBytes: 16,
          exitOffsets: [0],
          barriers: 1,
          reqntid: [128, 1, 1],
        },
      ],
    });
    const c = readCubin(bytes);
    expect(c.arch.name).toBe('sm_90');
    const f = c.functions[0]!;
    expect(f).toMatchObject({ name: 'k', isEntry: true, registerCount: 12 });
    expect(f.symbol!.bind).toBe(STB.GLOBAL);
    expect(f.shared!.size).toBe(256 + 0x400); // sm_90 reserves the first 1 KB of shared memory
    expect(f.local!.size).toBe(16);
    expect(f.constant0!.size).toBe(0x210 + 12);
    const text = f.attributes.map((r) => formatAttribute(r, (i) => c.symbols[i]?.name));
    expect(text).toContain('EIATTR_PARAM_CBANK: .nv.constant0.k offset 0x210 size 0xc');
    expect(text).toContain('EIATTR_EXIT_INSTR_OFFSETS: 0x0');
    expect(text).toContain('EIATTR_NUM_BARRIERS: 0x1');
    expect(text).toContain('EIATTR_REQNTID: 128 1 1');
    const kp = f.attributes.map(decodeAttribute).flatMap((v) => (v.kind === 'kparam' ? v.params : []));
    expect(kp.map((p) => [p.ordinal, p.offset, p.size])).toEqual([
      [1, 8, 4],
      [0, 0, 8],
    ]);
    // Every section is laid out at its alignment, and the code segment covers the text.
    for (const s of c.sections) if (s.addralign > 1 && s.type !== SHT.NOBITS) expect(s.offset % s.addralign).toBe(0);
    expect(c.segments.some((g) => g.flags === 5 && g.offset === f.text.offset && g.filesz === 64)).toBe(true);
    // Deterministic.
    expect(Buffer.from(buildCubin(buildInputOfCubin(c))).equals(Buffer.from(bytes))).toBe(true);
  });

  it('writes the Turing/Ampere layout (register count in sh_info, REL .debug_frame)', () => {
    const c = readCubin(buildCubin({ arch: 'sm_80', functions: [{ name: 'k', kind: 'entry', global: false, code: code(0x94d), regCount: 8, exitOffsets: [0] }] }));
    expect(c.functions[0]!.text.info >>> 24).toBe(8);
    expect(c.sections.some((s) => s.name === '.rel.debug_frame' && s.type === SHT.REL)).toBe(true);
    expect(c.functions[0]!.symbol!.bind).toBe(STB.LOCAL);
  });

  it('rejects what it cannot lay out, with CUBIN_WRITE', () => {
    const bad = (f: object, arch: string | number = 'sm_90') => () =>
      buildCubin({ arch, functions: [{ name: 'k', kind: 'entry', global: true, code: code(0x94d), regCount: 8, exitOffsets: [0], ...f }] });
    expect(bad({ code: new Uint8Array(8) })).toThrow(CubinError);
    expect(bad({ exitOffsets: [32] })).toThrow(/exit offset 0x20/);
    expect(bad({ regCount: 300 })).toThrow(/out of 0..255/);
    expect(bad({}, 'sm_52')).toThrow(/no cubin layout for sm_52/);
    expect(bad({}, 'compute_90')).toThrow(/not an sm_NN target/);
    expect(() => buildCubin({ arch: 'sm_90', functions: [] })).toThrow(/at least one function/);
  });
});

let ptxas = false;
try {
  execFileSync('ptxas', ['--version'], { stdio: 'ignore' });
  ptxas = true;
} catch {
  console.log('buildCubin vs ptxas tests skipped: ptxas is not on PATH');
}

describe.skipIf(!ptxas)('buildCubin reproduces ptxas cubins from their facts', () => {
  const dir = ptxas ? mkdtempSync(path.join(tmpdir(), 'cubin-build-')) : '';
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  for (const arch of ['sm_90', 'sm_80', 'sm_75']) {
    it(`${arch}: byte-identical rebuild of test/fixtures/build/kernels.ptx`, () => {
      const out = path.join(dir, `${arch}.cubin`);
      execFileSync('ptxas', [`-arch=${arch}`, fixture, '-o', out], { stdio: 'ignore' });
      const theirs = readCubin(readFileSync(out));
      const ours = readCubin(buildCubin(buildInputOfCubin(theirs)));
      expect(compareCubins(theirs, ours)).toEqual([]);
      expect(Buffer.from(ours.bytes).equals(Buffer.from(theirs.bytes))).toBe(true);
    }, 60_000);
  }
});
