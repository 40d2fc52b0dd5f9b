import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
});
