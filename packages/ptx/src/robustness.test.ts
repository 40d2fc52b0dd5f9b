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
