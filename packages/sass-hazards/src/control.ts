import type { ControlInfo } from './types.js';

/**
 * Volta+ control bits live in the high 64-bit word at bits 41..63 (instruction bits 105..127):
 * stall 41..44, yield 45 (inverted), write barrier 46..48 (7 = none), read barrier 49..51,
 * wait mask 52..57, reuse 58..61 (../shared/golden/README.md, "Layout facts").
 */
export function decodeControl(hi: bigint): ControlInfo {
  const c = Number((hi >> 41n) & 0x7fffffn);
  const wbar = (c >> 5) & 7;
  const rbar = (c >> 8) & 7;
  return {
    stall: c & 0xf,
    yield: ((c >> 4) & 1) === 0,
    wbar: wbar === 7 ? null : wbar,
    rbar: rbar === 7 ? null : rbar,
    waitMask: (c >> 11) & 0x3f,
    reuse: (c >> 17) & 0xf,
  };
}

/** Writes `ctl` into the control bits of `hi`, keeping every other bit. */
export function encodeControl(hi: bigint, ctl: ControlInfo): bigint {
  const c =
    (ctl.stall & 0xf) |
    ((ctl.yield ? 0 : 1) << 4) |
    ((ctl.wbar ?? 7) << 5) |
    ((ctl.rbar ?? 7) << 8) |
    ((ctl.waitMask & 0x3f) << 11) |
    ((ctl.reuse & 0xf) << 17);
  return (hi & ~(0x7fffffn << 41n)) | (BigInt(c) << 41n);
}

/** CuAssembler's spelling `B0-2---:R-:W1:Y:S04` (wait mask, read barrier, write barrier, yield, stall). */
export function formatControl(c: ControlInfo): string {
  let wait = 'B';
  for (let k = 0; k < 6; k++) wait += c.waitMask & (1 << k) ? String(k) : '-';
  const r = c.rbar === null ? '-' : String(c.rbar);
  const w = c.wbar === null ? '-' : String(c.wbar);
  return `${wait}:R${r}:W${w}:${c.yield ? 'Y' : '-'}:S${String(c.stall).padStart(2, '0')}`;
}

/** Parses the CuAssembler control string back (used by listings and fixtures). */
export function parseControl(s: string): ControlInfo {
  const m = /^B([0-5-]{6}):R([0-5-]):W([0-5-]):([Y-]):S(\d\d)$/.exec(s.trim());
  if (!m) throw new Error(`bad control string '${s}'`);
  let waitMask = 0;
  for (let k = 0; k < 6; k++) if (m[1]![k] !== '-') waitMask |= 1 << k;
  return {
    stall: Number(m[5]),
    yield: m[4] === 'Y',
    wbar: m[3] === '-' ? null : Number(m[3]),
    rbar: m[2] === '-' ? null : Number(m[2]),
    waitMask,
    reuse: 0,
  };
}
