import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readCubin } from '@ptxforge/cubin';
import { describe, expect, it } from 'vitest';
import { LiftError, liftCubin } from './lift.js';
import { runCubin } from './run.js';

const corpus = fileURLToPath(new URL('../../../../shared/corpus/', import.meta.url));
function hasPtxas(): boolean {
  try {
    execFileSync('ptxas', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const ok = existsSync(corpus) && hasPtxas();

function compile(ptx: string, arch: string): Uint8Array {
  const dir = mkdtempSync(path.join(tmpdir(), 'sass-lift-'));
  try {
    const out = path.join(dir, 'k.cubin');
    execFileSync('ptxas', [`-arch=${arch}`, '-O3', ptx, '-o', out], { stdio: 'ignore' });
    return readFileSync(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.skipIf(!ok)('lifted ptxas cubins run in the interpreter (needs ../shared/corpus and ptxas)', () => {
  it('ptoxide add_simple on sm_90: c = a + b over 10 threads', () => {
    const bytes = compile(path.join(corpus, 'ptoxide/kernels/add_simple.ptx'), 'sm_90');
    const a = Array.from({ length: 10 }, (_, i) => i * 1.5);
    const b = Array.from({ length: 10 }, (_, i) => 100 - i);
    const r = runCubin(bytes, {
      grid: 1, block: 10,
      buffers: { a: { type: 'f32', values: a }, b: { type: 'f32', values: b }, c: { type: 'f32', count: 10 } },
      params: [{ buffer: 'a' }, { buffer: 'b' }, { buffer: 'c' }], outputs: ['c'],
    });
    expect(r.result.errors).toEqual([]);
    const c = new Float32Array(r.result.buffers.c!.bytes.buffer.slice(0));
    expect([...c]).toEqual(a.map((x, i) => Math.fround(x + b[i]!)));
    // physical registers: the 64-bit pointer loads alias the 32-bit halves
    expect(r.lifted.oriText).toMatch(/%rd\d+ = LDC\.64 c\[0x0\]\[0x210\]/);
  });

  it('add.sat / sub.sat through ISGN3 (sign-bit table predicates) saturate like the PTX', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sass-lift-sat-'));
    try {
      const ptx = path.join(dir, 'k.ptx');
      writeFileSync(ptx, `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 a)
{
 .reg .u64 %rd<4>; .reg .b32 %r<8>; .reg .u32 %t; .reg .u64 %o;
 ld.param.u64 %rd1, [a];
 mov.u32 %t, %tid.x;
 mul.wide.u32 %o, %t, 16;
 add.u64 %rd2, %rd1, %o;
 ld.global.u32 %r1, [%rd2];
 ld.global.u32 %r2, [%rd2+4];
 add.sat.s32 %r3, %r1, %r2;
 sub.sat.s32 %r4, %r1, %r2;
 st.global.u32 [%rd2+8], %r3;
 st.global.u32 [%rd2+12], %r4;
 ret;
}
`);
      const pairs: [number, number][] = [[0x7fffffff, 1], [-0x80000000, -1], [5, -7], [-0x80000000, 1], [0x7ffffff0, -0x7ffffff0], [1, 2]];
      const values: number[] = [];
      for (const [a, b] of pairs) values.push(a, b, 0, 0);
      const r = runCubin(compile(ptx, 'sm_90'), { grid: 1, block: pairs.length, buffers: { a: { type: 's32', values } }, params: [{ buffer: 'a' }], outputs: ['a'] });
      expect(r.result.errors).toEqual([]);
      expect(r.lifted.oriText).toMatch(/ISETP\.NE\.U32\.AND/);
      const got = new Int32Array(r.result.buffers.a!.bytes.buffer.slice(0));
      const sat = (x: number): number => Math.max(-0x80000000, Math.min(0x7fffffff, x));
      pairs.forEach(([a, b], i) => {
        expect(got[4 * i + 2]).toBe(sat(a + b));
        expect(got[4 * i + 3]).toBe(sat(a - b));
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('cp.async (LDGSTS.ZFILL): the fill count rides in the global offset', () => {
    const r = runCubin(compile(path.join(corpus, 'zluda/spirv_run/cp_async.ptx'), 'sm_90'), {
      grid: 1, block: 1,
      buffers: { input: { type: 'u32', count: 4 }, output: { type: 'u32', count: 4 } },
      params: [{ buffer: 'input' }, { buffer: 'output' }], outputs: ['output'],
    });
    expect(r.result.errors).toEqual([]);
    expect([...new Uint32Array(r.result.buffers.output!.bytes.buffer.slice(0))]).toEqual([1, 2, 3, 0]);
  });

  it('device calls: CALL.REL.NOINC with the return site in a register, RET.REL.NODEC through it', () => {
    const bytes = compile(path.join(corpus, 'zluda/spirv_run/call.ptx'), 'sm_90');
    const r = runCubin(bytes, {
      grid: 1, block: 1,
      buffers: { input: { type: 'u64', values: ['41'] }, output: { type: 'u64', count: 1 } },
      params: [{ buffer: 'input' }, { buffer: 'output' }], outputs: ['output'],
    });
    expect(r.result.errors).toEqual([]);
    expect(new BigUint64Array(r.result.buffers.output!.bytes.buffer.slice(0))[0]).toBe(42n);
    expect(r.lifted.oriText).toMatch(/BRX %r\d+, \(L[0-9a-f]{4}\)/);
  });

  it('a word the tables cannot lift is a coded error naming the address', () => {
    const cubin = readCubin(compile(path.join(corpus, 'ptoxide/kernels/add_simple.ptx'), 'sm_90'));
    const fn = cubin.functions.find((f) => f.isEntry)!;
    fn.code.fill(0xff, 0x10, 0x20);
    let err: unknown;
    try {
      liftCubin(cubin);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(LiftError);
    expect((err as LiftError).code).toBe('LIFT_UNDECODED');
    expect((err as Error).message).toMatch(/^\S+ 0x0010: /);
  });

  // one ZLUDA io case per lifting feature: device calls, data sections and bank 4, shared memory on sm_90,
  // packed halves with swizzles, BMSK, IDP, carries of negated operands, IMAD.HI's pair addend, MUFU.SIN
  const CASES = ['call', 'global_array', 'const', 'shared_variable', 'atom_add', 'min_f16', 'fma_f16x2', 'set_gt_f16x2', 'bfi', 'dp4a',
    'stateful_ld_st_ntid_sub', 'rem', 'sin', 'atom_add_float', 'rcp_f64'];
  for (const name of CASES) {
    it(`zluda ${name} on sm_90 gives ZLUDA's expected bytes`, () => {
      const cases = JSON.parse(readFileSync(path.join(corpus, 'zluda/cases.json'), 'utf8')) as {
        cases: Array<{ name: string; ptx_file: string; entry: string; inputs: { bytes_hex_le: string } | null; expected: { bytes_hex_le: string } }>;
      };
      const c = cases.cases.find((x) => x.name === name)!;
      const bytes = compile(path.join(corpus, 'zluda', c.ptx_file), 'sm_90');
      const r = runCubin(bytes, {
        kernel: c.entry, grid: 1, block: 1, sharedBytes: 256,
        buffers: { input: { hex: c.inputs?.bytes_hex_le ?? '' }, output: { hex: '00'.repeat(c.expected.bytes_hex_le.length / 2) } },
        params: [{ buffer: 'input' }, { buffer: 'output' }], outputs: ['output'],
      });
      expect(r.result.errors).toEqual([]);
      expect(Buffer.from(r.result.buffers.output!.bytes).toString('hex')).toBe(c.expected.bytes_hex_le);
    }, 60000);
  }

  it('switch jump tables: LDC from .nv.constant2 and BRX through EIATTR_INDIRECT_BRANCH_TARGETS (sm_80)', () => {
    const dir = fileURLToPath(new URL('../test/fixtures/brx/dense10/', import.meta.url));
    const bytes = compile(path.join(dir, 'kernel.ptx'), 'sm_80');
    const launch = JSON.parse(readFileSync(path.join(dir, 'launch.json'), 'utf8'));
    const expected = JSON.parse(readFileSync(path.join(dir, 'expect.json'), 'utf8')) as { out: string };
    const r = runCubin(bytes, launch);
    expect(r.result.errors).toEqual([]);
    expect(r.lifted.oriText).toMatch(/BRX %r\d+, \((L[0-9a-f]{4}|Lbadjump)(, (L[0-9a-f]{4}|Lbadjump))+\)/);
    expect(Buffer.from(r.result.buffers.out!.bytes).toString('hex')).toBe(expected.out);
  }, 60000);
});
