import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { largestFirst } from './batch.js';

describe('batch scheduling', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ptxforge-batch-order-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  it('hands out the largest inputs first, ties in input order', () => {
    const file = (name: string, bytes: number): { shown: string; file: string; outName: string } => {
      const f = path.join(dir, name);
      writeFileSync(f, 'x'.repeat(bytes));
      return { shown: name, file: f, outName: name };
    };
    const inputs = [
      file('a.ptx', 10), file('b.ptx', 300), { shown: 'input-as-string-1.ptx', text: 'y'.repeat(50), outName: 's' },
      file('c.ptx', 10), { shown: 'missing.ptx', file: path.join(dir, 'missing.ptx'), outName: 'm' }, file('d.ptx', 1000),
    ];
    expect(largestFirst(inputs)).toEqual([5, 1, 2, 0, 3, 4]);
  });
});
