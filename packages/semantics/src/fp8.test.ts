import { describe, expect, it } from 'vitest';
import { F16, F32, F64, f32ToBits, f64ToBits } from './bits.js';
import { E4M3, E5M2, fp8Decode, fromFp8, toFp8 } from './fp8.js';
import { evaluatePure } from './pure.js';

const f = (x: number): bigint => BigInt(f32ToBits(x));
const e4 = (x: number, sat = true): bigint => toFp8(f(x), F32, E4M3, 'RN', sat);
const e5 = (x: number, sat = true): bigint => toFp8(f(x), F32, E5M2, 'RN', sat);

describe('fp8 E4M3', () => {
  it('encodes normals, subnormals, zeros exactly', () => {
    expect(e4(1)).toBe(0x38n);
    expect(e4(-1)).toBe(0xb8n);
    expect(e4(0.40625)).toBe(0x2dn); // ZLUDA cvt_rn_satfinite_e4m3x2_f32
    expect(e4(12.899999618530273)).toBe(0x55n);
    expect(e4(448)).toBe(0x7en);
    expect(e4(2 ** -6)).toBe(0x08n); // smallest normal
    expect(e4(2 ** -9)).toBe(0x01n); // smallest subnormal
    expect(e4(7 * 2 ** -9)).toBe(0x07n); // largest subnormal
    expect(e4(0)).toBe(0x00n);
    expect(e4(-0)).toBe(0x80n);
  });
  it('rounds to nearest even, including into and out of subnormals', () => {
    expect(e4(1.0625)).toBe(0x38n); // halfway 1 / 1.125: even (1)
    expect(e4(1.1875)).toBe(0x3an); // halfway 1.125 / 1.25: even (1.25)
    expect(e4(1.0626)).toBe(0x39n);
    expect(e4(2 ** -10)).toBe(0x00n); // half the smallest subnormal: ties to even 0
    expect(e4(-(2 ** -10))).toBe(0x80n); // sign of zero kept
    expect(e4(3 * 2 ** -10)).toBe(0x02n); // 1.5 ulp: ties to even 2
    expect(e4(2 ** -10 + 2 ** -20)).toBe(0x01n);
    expect(e4(15 * 2 ** -10)).toBe(0x08n); // rounds up from the largest subnormal to the smallest normal
    expect(e4(2 ** -200)).toBe(0x00n);
  });
  it('satfinite clamps to +-448; without it overflow is NaN; NaN is 0x7f', () => {
    expect(e4(464)).toBe(0x7en); // halfway 448 / (480): ties to even 448, in range
    expect(e4(464, false)).toBe(0x7en);
    expect(e4(465)).toBe(0x7en);
    expect(e4(465, false)).toBe(0x7fn);
    expect(e4(-1e6)).toBe(0xfen);
    expect(e4(-1e6, false)).toBe(0x7fn);
    expect(e4(Infinity)).toBe(0x7en);
    expect(e4(-Infinity)).toBe(0xfen);
    expect(e4(NaN)).toBe(0x7fn);
    expect(toFp8(0xffc00001n, F32, E4M3, 'RN', true)).toBe(0x7fn);
  });
  it('decodes every byte exactly and round-trips', () => {
    for (let b = 0; b < 256; b++) {
      const x = fp8Decode(BigInt(b), E4M3);
      if ((b & 0x7f) === 0x7f) {
        expect(x).toBeNaN();
        continue;
      }
      expect(toFp8(f64ToBits(x), F64, E4M3, 'RN', false)).toBe(BigInt(b));
    }
    expect(fp8Decode(0x7en, E4M3)).toBe(448);
    expect(fp8Decode(0x01n, E4M3)).toBe(2 ** -9);
  });
  it('widens to f16 exactly (ZLUDA cvt_rn_f16x2_e4m3x2)', () => {
    expect(fromFp8(0x55n, E4M3, F16)).toBe(0x4a80n); // 13
    expect(fromFp8(0x2dn, E4M3, F16)).toBe(0x3680n); // 0.40625
    expect(fromFp8(0x01n, E4M3, F16)).toBe(0x1800n); // 2^-9 (a normal f16)
    expect(fromFp8(0x80n, E4M3, F16)).toBe(0x8000n);
    expect(fromFp8(0xffn, E4M3, F16)).toBe(0x7fffn);
    expect(fromFp8(0xfen, E4M3, F32)).toBe(f(-448));
  });
});

describe('fp8 E5M2', () => {
  it('encodes, rounds and saturates', () => {
    expect(e5(1)).toBe(0x3cn);
    expect(e5(0.375)).toBe(0x36n); // ZLUDA cvt_rn_satfinite_e5m2x2_f32
    expect(e5(-5256.60009765625)).toBe(0xedn); // -5120
    expect(e5(57344)).toBe(0x7bn);
    expect(e5(61440)).toBe(0x7bn); // halfway 57344 / inf: ties to even (max), in range
    expect(e5(61441, false)).toBe(0x7cn); // overflow to infinity
    expect(e5(-61441, false)).toBe(0xfcn);
    expect(e5(61441)).toBe(0x7bn);
    expect(e5(Infinity)).toBe(0x7bn);
    expect(e5(Infinity, false)).toBe(0x7cn);
    expect(e5(-Infinity)).toBe(0xfbn);
    expect(e5(NaN)).toBe(0x7fn);
    expect(e5(2 ** -16)).toBe(0x01n);
    expect(e5(2 ** -17)).toBe(0x00n);
    expect(e5(-(2 ** -17) * 1.5)).toBe(0x81n);
    expect(toFp8(0x3c00n, F16, E5M2, 'RN', true)).toBe(0x3cn); // f16 source
    expect(toFp8(0x3c80n, F16, E5M2, 'RN', true)).toBe(0x3cn); // 1.125: ties to even 1
    expect(toFp8(0x3c81n, F16, E5M2, 'RN', true)).toBe(0x3dn);
  });
  it('widens to f16 as the high byte (ZLUDA cvt_rn_f16x2_e5m2x2)', () => {
    for (let b = 0; b < 256; b++) {
      const h = fromFp8(BigInt(b), E5M2, F16);
      if ((b & 0x7c) === 0x7c && b & 3) expect(h).toBe(0x7fffn);
      else expect(h).toBe(BigInt(b << 8));
    }
  });
  it('FTZ flushes an f32 denormal input', () => {
    expect(toFp8(0x80000001n, F32, E4M3, 'RN', true, true)).toBe(0x80n);
  });
});

describe('F2F with fp8 types through evaluatePure', () => {
  const ev = (op: string, v: bigint): bigint | undefined => {
    const [opcode, ...mods] = op.split('.');
    return evaluatePure({ opcode: opcode!, mods, defWidths: [32] }, [v])?.[0] as bigint | undefined;
  };
  it('converts to and from fp8, reading sub-word sources from the low bits', () => {
    expect(ev('F2F.E4M3.F32.SATFINITE', f(12.9))).toBe(0x55n);
    expect(ev('F2F.E5M2.F32.SATFINITE', f(-5256.6))).toBe(0xedn);
    expect(ev('F2F.E4M3.F16.SATFINITE', 0xdead3c00n)).toBe(0x38n);
    expect(ev('F2F.F16.E4M3', 0x1234ab55n)).toBe(0x4a80n);
    expect(ev('F2F.F32.E5M2', 0xffffff3cn)).toBe(f(1));
    expect(ev('F2F.E4M3.E5M2', 0x3cn)).toBeUndefined();
    expect(ev('F2I.S32.E4M3', 0x38n)).toBeUndefined();
  });
});
