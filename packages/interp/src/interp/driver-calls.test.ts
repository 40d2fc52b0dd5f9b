import { describe, expect, it } from 'vitest';
import { parseOri } from '@ptxforge/kernel';
import { runKernel } from '../launch.js';
import { formatDevicePrintf } from './driver-calls.js';

/** An argument buffer as CUDA lays it out: each value at the next multiple of its size. */
function buffer(values: Array<['i32' | 'i64' | 'f64' | 'ptr', number | bigint]>): (off: number, size: number) => bigint {
  const bytes = new Uint8Array(256);
  const dv = new DataView(bytes.buffer);
  let off = 0;
  for (const [t, v] of values) {
    const size = t === 'i32' ? 4 : 8;
    off = Math.ceil(off / size) * size;
    if (t === 'i32') dv.setInt32(off, Number(v), true);
    else if (t === 'f64') dv.setFloat64(off, Number(v), true);
    else dv.setBigUint64(off, BigInt.asUintN(64, BigInt(v)), true);
    off += size;
  }
  return (o, size) => (size === 8 ? dv.getBigUint64(o, true) : size === 4 ? BigInt(dv.getUint32(o, true)) : BigInt(dv.getUint8(o)));
}

const fmt = (f: string, values: Array<['i32' | 'i64' | 'f64' | 'ptr', number | bigint]>, strings: Record<number, string> = {}) =>
  formatDevicePrintf(f, buffer(values), (a) => strings[a] ?? '?');

describe('device printf formatting (vprintf semantics)', () => {
  it('integers: signedness, widths, flags, precision, length modifiers', () => {
    expect(fmt('%d|%5d|%-5d|%05d|%+d|% d', [['i32', -42], ['i32', 42], ['i32', 42], ['i32', -42], ['i32', 7], ['i32', 7]]).text).toBe('-42|   42|42   |-0042|+7| 7');
    expect(fmt('%u %x %X %#x %o %#o', [['i32', -1], ['i32', 255], ['i32', 255], ['i32', 255], ['i32', 8], ['i32', 8]]).text).toBe('4294967295 ff FF 0xff 10 010');
    expect(fmt('%lld %llu %lx %ld', [['i64', -9000000000n], ['i64', -1n], ['i64', 0x123456789an], ['i64', 5n]]).text).toBe('-9000000000 18446744073709551615 123456789a 5');
    expect(fmt('%.3d %.0d| %hd %hhu', [['i32', 7], ['i32', 0], ['i32', 0x12345], ['i32', 0x1ff]]).text).toBe('007 | 9029 255');
    expect(fmt('%*d|%-*d|', [['i32', 4], ['i32', 1], ['i32', 3], ['i32', 2]]).text).toBe('   1|2  |');
  });

  it('floating point (passed as double): %f %e %g %a, inf and nan', () => {
    expect(fmt('%f %.2f %8.3f %-8.1f|', [['f64', 1.5], ['f64', -2.375], ['f64', 3.14159], ['f64', 2.25]]).text).toBe('1.500000 -2.38    3.142 2.2     |');
    // exact ties round to even as glibc does (the host formats device printf); 1e22 keeps all its digits
    expect(fmt('%.0f %.0f %.1e %.0f', [['f64', 0.5], ['f64', 1.5], ['f64', 1.25], ['f64', 1e22]]).text).toBe('0 2 1.2e+00 10000000000000000000000');
    expect(fmt('%e %.2E %g %g %g %G', [['f64', 12345.678], ['f64', 0.000123], ['f64', 100000], ['f64', 1e6], ['f64', 0.0001], ['f64', 1e-5]]).text)
      .toBe('1.234568e+04 1.23E-04 100000 1e+06 0.0001 1E-05');
    expect(fmt('%g %#g %.3g', [['f64', 0.5], ['f64', 1], ['f64', 2.0 / 3]]).text).toBe('0.5 1.00000 0.667');
    expect(fmt('%a %.1a %a', [['f64', 1], ['f64', 1.75], ['f64', 0]]).text).toBe('0x1p+0 0x1.cp+0 0x0p+0');
    expect(fmt('%f %f %5.1f', [['f64', Infinity], ['f64', -Infinity], ['f64', NaN]]).text).toBe('inf -inf   nan');
  });

  it('strings, chars, pointers, %%, and the argument count', () => {
    const r = fmt('[%s|%.2s|%6s|%c|%p|%%]', [['ptr', 0x100], ['ptr', 0x100], ['ptr', 0], ['i32', 65], ['ptr', 0xbeef]], { 0x100: 'hello' });
    expect(r.text).toBe('[hello|he|(null)|A|0xbeef|%]');
    expect(r.args).toBe(5);
    expect(fmt('no arguments\n', []).args).toBe(0);
  });

  it('runs in a launch: one printed line per thread, lanes in order; the result is the argument count', () => {
    // vprintf(fmt, buf) with buf holding %tid.x at [0] and a double at [8]; the return value stored per thread
    const m = parseOri(`.target sm_90
.global .align 1 .b8 @fmt[16] = hex"7425642025342e316620257325630a00"
.global .align 1 .b8 @word[3] = hex"6f6b00"
.entry @k(
  .param .u64 out c[0x0][0x210]
)
{
  .local .align 8 .b8 @buf[32]
bb0:
  %r1 = S2R SR_TID.X
  %rd2 = S2R SR_LWINBASE
  %rd3 = IADD3 %rd2, @buf, RZ
  %r4 = I2I.U32.U64 @buf
  STL.32 [%r4], %r1
  %rd5 = MOV 0x3ff8000000000000
  STL.64 [%r4+0x8], %rd5
  %rd6 = MOV @word
  STL.64 [%r4+0x10], %rd6
  %r7 = MOV 0x21
  STL.32 [%r4+0x18], %r7
  %rd8 = MOV @fmt
  %r9 = CALL @vprintf, %rd8, %rd3
  %rd10 = IMAD.WIDE.U32 %r1, 4, c[0x0][0x210]
  STG.E.32 [%rd10], %r9
  EXIT
}
`, { file: 'k.ori' });
    const r = runKernel(m, { block: [3, 1, 1], buffers: { out: { type: 's32', count: 3 } }, params: [{ buffer: 'out' }] });
    expect(r.errors).toEqual([]);
    expect(r.printed).toEqual(['t0  1.5 ok!\n', 't1  1.5 ok!\n', 't2  1.5 ok!\n']);
    expect(Array.from(new Int32Array(r.buffers.out!.bytes.buffer, r.buffers.out!.bytes.byteOffset, 3))).toEqual([4, 4, 4]);
  });
});

describe('functions outside one kernel launch: refused with the reason', () => {
  const launchOf = (callee: string, extra = '') => parseOri(`.target sm_90
.entry @k(
  .param .u64 out c[0x0][0x210]
)
{
bb0:
  %rd1 = MOV ${extra || '0x10'}
  %r2 = CALL @${callee}, %rd1
  EXIT
}
`, { file: 'k.ori' });
  it('the device runtime (__cudaCDP2*) and conditional graph nodes', () => {
    const run = (callee: string) => runKernel(launchOf(callee), { kernel: 'k', grid: [1, 1, 1], block: [1, 1, 1], params: [{ type: 'u64', value: '0' }] });
    expect(run('__cudaCDP2GetLastError').errors[0]?.message).toMatch(/CUDA device runtime cannot run in the interpreter \(call of __cudaCDP2GetLastError\)/);
    expect(run('cudaGraphSetConditional').errors[0]?.message).toMatch(/conditional nodes of the CUDA graph/);
    expect(run('__cudaCDP2LaunchDeviceV2').errors[0]?.message).toMatch(/device-side kernel launches/);
  });
  it('a kernel address (MOV @kernel) is an opaque descriptor, the same in every run', () => {
    const m = parseOri(`.target sm_90
.entry @k(
  .param .u64 out c[0x0][0x210]
)
{
bb0:
  %rd1 = MOV @k
  %rd2 = MOV c[0x0][0x210]
  STG.E.64 [%rd2], %rd1
  EXIT
}
`, { file: 'k.ori' });
    const run = () => runKernel(m, { kernel: 'k', grid: [1, 1, 1], block: [1, 1, 1], buffers: { out: { type: 'u64', count: 1 } }, params: [{ buffer: 'out' }], outputs: ['out'] });
    const a = run();
    expect(a.errors).toEqual([]);
    const v = new DataView(a.buffers.out!.bytes.buffer, a.buffers.out!.bytes.byteOffset).getBigUint64(0, true);
    expect(v).not.toBe(0n);
    expect(v % 16n).toBe(0n);
    expect(Buffer.from(run().buffers.out!.bytes).toString('hex')).toBe(Buffer.from(a.buffers.out!.bytes).toString('hex'));
  });
});
