import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { PtxforgeError, verifyModule } from '@ptxforge/kernel';
import { describe, expect, it } from 'vitest';
import { lowerPtx } from './lower/module.js';
import { parsePtx } from './parser.js';

const dir = path.join(import.meta.dirname, '../test/fixtures/kernels');
const seeds = ['hand_vector_add.ptx', 'hand_calls.ptx', 'reduce.ptx', 'int64.ptx'].map((f) => readFileSync(path.join(dir, f), 'utf8'));
const SM90 = { target: { arch: 'sm_90', capabilities: { paramBase: 0x210 } } };

/** Parse and lower; the only acceptable failure is a located PtxforgeError, and what lowers must verify. */
function frontEnd(text: string): void {
  let m;
  try {
    m = lowerPtx(parsePtx(text, 'f.ptx'), SM90);
  } catch (e) {
    if (!(e instanceof PtxforgeError)) throw e;
    expect(e.pos?.file).toBe('f.ptx');
    expect(e.pos!.line).toBeGreaterThan(0);
    expect(e.pos!.col).toBeGreaterThan(0);
    return;
  }
  expect(verifyModule(m)).toEqual([]);
}

describe('front end robustness', () => {
  it('mutated real kernels (deleted, duplicated, swapped spans) give a located error or lower', () => {
    fc.assert(
      fc.property(fc.constantFrom(...seeds), fc.nat(), fc.nat(), fc.integer({ min: 1, max: 40 }), fc.constantFrom('delete', 'dup', 'insert'), fc.string({ maxLength: 6 }), (src, a, b, len, op, junk) => {
        const i = a % src.length;
        const j = b % src.length;
        const text = op === 'delete' ? src.slice(0, i) + src.slice(i + len)
          : op === 'dup' ? src.slice(0, i) + src.slice(j, j + len) + src.slice(i)
            : src.slice(0, i) + junk + src.slice(i);
        frontEnd(text);
      }),
      { numRuns: 400, seed: 42 },
    );
  });

  it('arbitrary text gives a located error, never a crash', () => {
    fc.assert(fc.property(fc.string({ maxLength: 200 }), (s) => frontEnd(`.version 8.0\n.target sm_90\n${s}`)), { numRuns: 300, seed: 7 });
  });
});

/** Lower, expecting a located error; returns it. */
function rejected(text: string, opts = SM90): PtxforgeError {
  try {
    lowerPtx(parsePtx(text, 'f.ptx'), opts);
  } catch (e) {
    if (!(e instanceof PtxforgeError)) throw e;
    expect(e.pos?.file).toBe('f.ptx');
    expect(e.pos!.line).toBeGreaterThan(0);
    return e;
  }
  throw new Error('expected a located error');
}
const HEAD = '.version 8.0\n.target sm_90\n.address_size 64\n';
const entry = (body: string, params = '.param .u64 p'): string => `${HEAD}.visible .entry k(${params})\n{\n${body}\n}\n`;

describe('issue 16: hostile inputs at the sizes that failed', () => {
  it('row 1: `.reg .b32 %r<100000000>` costs only the registers that are used', () => {
    const m = lowerPtx(parsePtx(entry('.reg .b32 %r<100000000>;\n.reg .b64 %rd<2>;\nld.param.u64 %rd1, [p];\nmov.u32 %r99999999, 7;\nst.global.u32 [%rd1], %r99999999;\nret;'), 'f.ptx'), SM90);
    expect(verifyModule(m)).toEqual([]);
    expect(m.functions[0]!.registers.length).toBeLessThan(10);
    expect(rejected(entry('.reg .b32 %r<10>;\nmov.u32 %r10, 1;\nret;')).message).toContain("'%r10' is not declared");
    expect(rejected(entry('.reg .b32 %r<10>;\n.reg .b32 %r3;\nret;')).message).toContain('declared twice');
  });

  it('row 3: 3000 nested parentheses evaluate; 5000 nested scopes and deep initializers are located errors', () => {
    const m = lowerPtx(parsePtx(`${HEAD}.global .u32 g = ${'('.repeat(3000)}-1+2*3${')'.repeat(3000)};\n.visible .entry k() { ret; }\n`, 'f.ptx'), SM90);
    expect(Buffer.from(m.vars[0]!.init!).readInt32LE(0)).toBe(5);
    const deep = (n: number): string => entry(`${'{\n'.repeat(n)}ret;\n${'}\n'.repeat(n)}`, '');
    expect(verifyModule(lowerPtx(parsePtx(deep(1600), 'f.ptx'), SM90))).toEqual([]);
    const e = rejected(deep(5000));
    expect(e.code).toBe('PTX_NESTING_TOO_DEEP');
    expect(e.pos!.line).toBe(6 + 1664);
    expect(rejected(`${HEAD}.global .u32 g = ${'('.repeat(20000)}1${')'.repeat(20000)};\n`).code).toBe('PTX_NESTING_TOO_DEEP');
    expect(rejected(`${HEAD}.global .u32 g[1] = ${'{'.repeat(20000)}1${'}'.repeat(20000)};\n`).code).toBe('PTX_NESTING_TOO_DEEP');
    expect(rejected(entry(`.reg .b32 %r<2>;\nmov.b32 %r1, ${'!'.repeat(20000)}%r0;\nret;`)).code).toBe('PTX_NESTING_TOO_DEEP');
    expect(rejected(entry(`.reg .b32 %r<2>;\nmov.b32 %r1, ${'{'.repeat(20000)}`)).code).toBe('PTX_NESTING_TOO_DEEP');
  });

  it('row 6: a data register as the second destination of setp is a located error', () => {
    const e = rejected(entry('.reg .b32 %r<4>;\n.reg .pred %p<2>;\nsetp.eq.u32 %p1|%r2, %r1, 0;\nret;'));
    expect(e.code).toBe('PTX_ARGUMENT_MISMATCH');
    expect(e.pos).toMatchObject({ line: 8, col: 1 });
    expect(e.message).toContain('.pred');
  });

  it('row 7: a file truncated anywhere inside a function is a syntax error', () => {
    const src = entry('.reg .b32 %r<4>;\n.reg .b64 %rd<2>;\nld.param.u64 %rd1, [p];\nld.global.u32 %r1, [%rd1];\nadd.s32 %r2, %r1, 1;\nst.global.u32 [%rd1], %r2;\nret;');
    const bodyEnd = src.lastIndexOf('}');
    const at = src.indexOf('.visible');
    for (let cut = at + 1; cut < bodyEnd; cut++) {
      let e: PtxforgeError;
      try {
        e = rejected(src.slice(0, cut));
      } catch (x) {
        throw new Error(`cut at ${cut}: ${JSON.stringify(src.slice(cut - 20, cut))}: ${(x as Error).message}`);
      }
      expect(e.code).toBe('PTX_SYNTAX');
    }
    expect(rejected(`${HEAD}.visible .entry k`).code).toBe('PTX_SYNTAX');
  });

  it('row 8: .address_size 32 is a located fatal error; a missing .address_size is 64-bit (as ptxas 13)', () => {
    const e = rejected('.version 8.0\n.target sm_90\n.address_size 32\n.visible .entry k() { ret; }\n');
    expect(e.code).toBe('PTX_ADDRESS_SIZE_32');
    expect(e.message).toContain('32-bit compilation is no longer supported');
    expect(e.pos).toMatchObject({ line: 3, col: 15 });
    expect(verifyModule(lowerPtx(parsePtx('.version 8.0\n.target sm_90\n.visible .entry k() { ret; }\n', 'f.ptx'), SM90))).toEqual([]);
  });

  it('row 9: constants wider than 64 bits are "Constant overflow" wherever they stand (where ptxas says so)', () => {
    // ptxas 13.0.88 rejects these three; it wraps 0x1FFFFFFFFFFFFFFFF and 36893488147419103231 (below).
    const big = ['0x8000000000000000F', '99999999999999999999', '0xFFFFFFFFFFFFFFFFFF'];
    for (const v of big) {
      for (const text of [
        entry(`.reg .b64 %rd<3>;\nmov.u64 %rd2, ${v};\nret;`),
        entry(`.reg .b64 %rd<3>;\nld.global.u64 %rd2, [%rd1+${v}];\nret;`),
        `${HEAD}.global .u64 g = ${v};\n`,
        `${HEAD}.global .u64 g = (1 + ${v});\n`,
      ]) {
        const e = rejected(text);
        expect(e.code).toBe('PTX_CONSTANT_OVERFLOW');
        expect(e.message).toContain('Constant overflow');
      }
    }
    // The largest 64-bit values are fine; arithmetic wraps at 64 bits instead of growing without bound.
    const m = lowerPtx(parsePtx(`${HEAD}.global .u64 g = 0xFFFFFFFFFFFFFFFF;\n.global .u64 h = (1 << 4000000000) + 18446744073709551615 * 4;\n`, 'f.ptx'), SM90);
    expect(Buffer.from(m.vars[0]!.init!).readBigUInt64LE(0)).toBe(0xffffffffffffffffn);
    expect(Buffer.from(m.vars[1]!.init!).readBigUInt64LE(0)).toBe(BigInt.asUintN(64, (1n << (4000000000n & 63n)) - 4n));
    // ptxas's 64-bit accumulator wraps when no digit arrives with its top bit set: it takes these.
    const w = lowerPtx(parsePtx(`${HEAD}.global .u64 a = 0x1FFFFFFFFFFFFFFFF;\n.global .u64 b = 36893488147419103231;\n`, 'f.ptx'), SM90);
    expect(Buffer.from(w.vars[0]!.init!).readBigUInt64LE(0)).toBe(0xffffffffffffffffn);
    expect(Buffer.from(w.vars[1]!.init!).readBigUInt64LE(0)).toBe(BigInt.asUintN(64, 36893488147419103231n));
  });

  it('.file and .loc numbers: above 32 bits is "Constant overflow", but 2^63 and up (negative in 64 bits) pass, as in ptxas', () => {
    const withFile = (n: string, loc = '1') => `${HEAD}.file ${n} "a.cu"\n.visible .entry k() {\n.loc ${n} ${loc} 1\nret;\n}\n`;
    for (const n of ['4294967296', '9223372036854775807']) expect(rejected(withFile(n)).code).toBe('PTX_CONSTANT_OVERFLOW');
    expect(rejected(withFile('1', '4294967296')).code).toBe('PTX_CONSTANT_OVERFLOW');
    // ptxas 13.0.88 accepts these (fuzz-ptx false reject, 2026-11-28: a mutated `.file` index)
    for (const n of ['4294967295', '9223372036854775808', '18446744069414584321', '18446744073709551615']) {
      expect(() => lowerPtx(parsePtx(withFile(n), 'f.ptx'), SM90)).not.toThrow();
    }
    expect(() => lowerPtx(parsePtx(withFile('1', '18446744073709551615'), 'f.ptx'), SM90)).not.toThrow();
  });

  it('row 10: empty files and missing header directives are rejected like ptxas', () => {
    expect(rejected('').code).toBe('PTX_MISSING_DIRECTIVE');
    expect(rejected('// nothing\n').message).toContain('Missing .version directive');
    expect(rejected('.target sm_90\n.visible .entry k() { ret; }\n').message).toContain('Missing .version directive');
    expect(rejected('.version 8.0\n.address_size 64\n.visible .entry k() { ret; }\n').message).toContain('Missing .target directive');
    expect(rejected(`${HEAD}.visible .entry k() { ret; }\n.address_size 64\n`).code).toBe('PTX_SYNTAX');
    expect(rejected(`${HEAD}.visible .entry k() { ret; }\n.version 8.0\n`).code).toBe('PTX_SYNTAX');
  });

  it('row 11: .version too old for .target, .target above -arch, unknown targets and versions', () => {
    const k = (v: string, t: string): string => `.version ${v}\n.target ${t}\n.address_size 64\n.visible .entry k() { ret; }\n`;
    let e = rejected(k('7.0', 'sm_90'));
    expect(e.code).toBe('PTX_VERSION_TARGET');
    expect(e.message).toContain('PTX .version 7.0 does not support .target sm_90');
    expect(e.pos).toMatchObject({ line: 2, col: 9 });
    e = rejected(k('8.0', 'sm_90'), { target: { arch: 'sm_80', capabilities: { paramBase: 0x160 } } });
    expect(e.code).toBe('PTX_TARGET_ARCH');
    expect(rejected(k('8.0', 'sm_90a')).code).toBe('PTX_TARGET_ARCH');
    expect(rejected(k('8.0', 'sm_91')).code).toBe('PTX_TARGET_UNSUPPORTED');
    expect(rejected(k('9.9', 'sm_90')).code).toBe('PTX_UNSUPPORTED_VERSION');
    for (const [v, t] of [['7.8', 'sm_90'], ['6.3', 'sm_75'], ['8.0', 'sm_80'], ['8.0', 'compute_90'], ['8.0', 'sm_90, texmode_independent']]) {
      expect(verifyModule(lowerPtx(parsePtx(k(v!, t!), 'f.ptx'), SM90))).toEqual([]);
    }
  });
});
