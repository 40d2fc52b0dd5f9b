/**
 * Three-input lookup tables of LOP3.LUT / PLOP3.LUT (docs/ori-semantics.md): output bit for inputs a, b, c is
 * (lut >> ((a << 2) | (b << 1) | c)) & 1.
 */
export function lutBit(lut: number, a: number, b: number, c: number): number {
  return (lut >> ((a << 2) | (b << 1) | c)) & 1;
}

/** The table with known inputs (0 or 1; undefined = free) substituted in, still as a 3-input table. */
export function specializeLut(lut: number, known: ReadonlyArray<0 | 1 | undefined>): number {
  let out = 0;
  for (let idx = 0; idx < 8; idx++) {
    const a = known[0] ?? (idx >> 2) & 1;
    const b = known[1] ?? (idx >> 1) & 1;
    const c = known[2] ?? idx & 1;
    if (lutBit(lut, a, b, c)) out |= 1 << idx;
  }
  return out;
}

export type LutShape = { kind: 'const'; value: 0 | 1 } | { kind: 'input'; index: 0 | 1 | 2; negated: boolean };

/** Identity / complement tables of inputs a, b, c. */
const INPUT_LUTS: ReadonlyArray<readonly [number, 0 | 1 | 2, boolean]> = [
  [0xf0, 0, false],
  [0xcc, 1, false],
  [0xaa, 2, false],
  [0x0f, 0, true],
  [0x33, 1, true],
  [0x55, 2, true],
];

/** Recognize a table that is a constant or one input (possibly complemented). */
export function lutShape(lut: number): LutShape | undefined {
  const t = lut & 0xff;
  if (t === 0) return { kind: 'const', value: 0 };
  if (t === 0xff) return { kind: 'const', value: 1 };
  for (const [l, index, negated] of INPUT_LUTS) if (t === l) return { kind: 'input', index, negated };
  return undefined;
}
