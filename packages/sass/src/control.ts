import { setBits, type Word } from './bits.js';

/**
 * Scheduling control of one instruction (Volta+ bits 105..125; Maxwell/Pascal keep the same fields in a
 * separate control word). `yield` is the hardware bit: 0 lets the warp scheduler switch (printed `Y`).
 */
export interface ControlInfo {
  /** Stall cycles 0..15. */
  stall: number;
  /** Raw yield bit (0 = yield, printed `Y`). */
  yieldBit: number;
  /** Scoreboard set on completion of a variable-latency write, 0..5; 7 = none. */
  writeBarrier: number;
  /** Scoreboard set when the sources have been read, 0..5; 7 = none. */
  readBarrier: number;
  /** Scoreboards waited on before issue (bit i = SB i). */
  waitMask: number;
  /** Operand reuse-cache flags (bit k = source slot k); printed as `.reuse` on the operands a row maps. */
  reuse: number;
}

export const NO_CONTROL: Readonly<ControlInfo> = Object.freeze({
  stall: 0,
  yieldBit: 0,
  writeBarrier: 0,
  readBarrier: 0,
  waitMask: 0,
  reuse: 0,
});

/** Bit positions of the control fields inside a 128-bit Volta+ word. */
export const VOLTA_CONTROL = { stall: 105, yieldBit: 109, writeBarrier: 110, readBarrier: 113, waitMask: 116, reuse: 122 } as const;

export function readVoltaControl(w: Word): ControlInfo {
  const hi = w[3]!; // bits 96..127 hold every control field
  return {
    stall: (hi >>> 9) & 15,
    yieldBit: (hi >>> 13) & 1,
    writeBarrier: (hi >>> 14) & 7,
    readBarrier: (hi >>> 17) & 7,
    waitMask: (hi >>> 20) & 63,
    reuse: (hi >>> 26) & 15,
  };
}

export function writeVoltaControl(w: Word, c: ControlInfo): void {
  // bits 105..125 all live in limb 3 (96..127): one read-modify-write
  const f =
    ((c.stall & 15) << 9) |
    ((c.yieldBit & 1) << 13) |
    ((c.writeBarrier & 7) << 14) |
    ((c.readBarrier & 7) << 17) |
    ((c.waitMask & 63) << 20) |
    ((c.reuse & 15) << 26);
  w[3] = ((w[3]! & ~0x3ffffe00) | f) >>> 0;
}

/** CuAssembler notation without brackets: `B0-2---:R-:W2:Y:S04`. */
export function formatControl(c: ControlInfo): string {
  let b = 'B';
  for (let i = 0; i < 6; i++) b += c.waitMask & (1 << i) ? String(i) : '-';
  const bar = (x: number): string => (x === 7 ? '-' : String(x));
  return `${b}:R${bar(c.readBarrier)}:W${bar(c.writeBarrier)}:${c.yieldBit ? '-' : 'Y'}:S${String(c.stall).padStart(2, '0')}`;
}

export class ControlSyntaxError extends Error {
  readonly code = 'SASS_CONTROL_SYNTAX';
}

const CONTROL_RE = /^B([0-5-]{6}):R([0-7-]):W([0-7-]):([Y-]):S(\d{1,2})$/;

/** Parses `B------:R-:W2:Y:S04` (brackets optional). */
export function parseControl(text: string): ControlInfo {
  const t = text.trim().replace(/^\[/, '').replace(/\]$/, '');
  const m = CONTROL_RE.exec(t);
  if (!m) throw new ControlSyntaxError(`SASS_CONTROL_SYNTAX: bad control string '${text}' (expected B------:R-:W-:Y:S00)`);
  let waitMask = 0;
  for (let i = 0; i < 6; i++) {
    const ch = m[1]![i]!;
    if (ch === '-') continue;
    if (ch !== String(i)) throw new ControlSyntaxError(`SASS_CONTROL_SYNTAX: wait mask position ${i} must be '${i}' or '-' in '${text}'`);
    waitMask |= 1 << i;
  }
  const bar = (s: string): number => (s === '-' ? 7 : Number(s));
  const stall = Number(m[5]);
  if (stall > 15) throw new ControlSyntaxError(`SASS_CONTROL_SYNTAX: stall ${stall} out of range 0..15 in '${text}'`);
  return { stall, yieldBit: m[4] === 'Y' ? 0 : 1, writeBarrier: bar(m[3]!), readBarrier: bar(m[2]!), waitMask, reuse: 0 };
}
