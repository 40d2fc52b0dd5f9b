import { describe, expect, it } from 'vitest';
import { EDGE_MATRIX_MAX_NODES, EdgeSet } from './allocate.js';

/** A small deterministic generator (no Math.random: reproducible failures). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0);
}

describe('EdgeSet: unordered node pairs, as a bit matrix or (beyond its size) a hash set', () => {
  for (const n of [2, 3, 33, 1000, EDGE_MATRIX_MAX_NODES, EDGE_MATRIX_MAX_NODES + 1, 100_000]) {
    it(`${n} nodes: add/has agree with a reference set in both pair orders`, () => {
      const set = new EdgeSet(n);
      const ref = new Set<string>();
      const rnd = lcg(n);
      for (let k = 0; k < 5000; k++) {
        let a = rnd() % n, b = rnd() % n;
        if (a === b) b = (b + 1) % n;
        // small graphs hit the same pairs again; big ones get the matrix's last word too
        if (k % 7 === 0) { a = n - 1; b = n - 2 - (k % Math.max(1, n - 1)); if (b < 0) b = 0; if (a === b) continue; }
        const key = a < b ? `${a},${b}` : `${b},${a}`;
        const isNew = !ref.has(key);
        expect(set.has(a, b)).toBe(!isNew);
        expect(set.add(a, b)).toBe(isNew);
        ref.add(key);
        expect(set.has(b, a)).toBe(true);
        expect(set.add(b, a)).toBe(false);
      }
      expect(set.size).toBe(ref.size);
      // pairs never added are absent
      for (let k = 0; k < 2000; k++) {
        const a = rnd() % n, b = rnd() % n;
        if (a === b) continue;
        expect(set.has(a, b)).toBe(ref.has(a < b ? `${a},${b}` : `${b},${a}`));
      }
    });
  }

  for (const n of [40, EDGE_MATRIX_MAX_NODES + 1]) {
    it(`${n} nodes: a clone has the same edges and changes independently`, () => {
      const a = new EdgeSet(n);
      a.add(1, 2);
      a.add(n - 1, 0);
      const b = a.clone();
      expect(b.size).toBe(2);
      expect(b.has(2, 1) && b.has(0, n - 1)).toBe(true);
      expect(b.add(3, 4)).toBe(true);
      expect(a.has(3, 4)).toBe(false);
      expect(a.add(5, 6)).toBe(true);
      expect(b.has(5, 6)).toBe(false);
      expect([a.size, b.size]).toEqual([3, 3]);
    });
  }
});
