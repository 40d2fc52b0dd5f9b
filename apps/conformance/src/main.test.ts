import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from './main.js';

const corpus = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../shared/corpus');
const present = existsSync(corpus);
if (!present) console.log(`conformance tests skipped: ${corpus} is absent`);

describe.skipIf(!present)('pnpm -s conformance', () => {
  it('prints the parse suite line with 0 crashes', async () => {
    let out = '';
    const code = await main(['parse'], (s) => (out += s));
    expect(code).toBe(0);
    expect(out).toMatch(/^parse: \d+ accepted, \d+ rejected, 0 crashed\n$/);
  });

  it('passes every ptoxide case at -O0 and -O3 (with --verify-each)', async () => {
    let out = '';
    const code = await main(['ptoxide'], (s) => (out += s));
    expect(out).toBe('ptoxide: 6 passed, 0 failed\n');
    expect(code).toBe(0);
  }, 300_000);
});
