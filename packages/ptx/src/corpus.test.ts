import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { isPtxforgeError } from '@ptxforge/kernel';
import { describe, expect, it } from 'vitest';
import { parsePtx } from './parser.js';

// The shared PTX corpus lives beside the repository (../shared/corpus); skip cleanly without it.
const repoRoot = path.resolve(import.meta.dirname, '../../..');
const corpus = path.resolve(repoRoot, '../shared/corpus');
const present = existsSync(corpus);
if (!present) console.log(`corpus tests skipped: ${corpus} is absent`);

function ptxFiles(d: string, out: string[] = []): string[] {
  for (const e of readdirSync(d).sort()) {
    const p = path.join(d, e);
    if (statSync(p).isDirectory()) ptxFiles(p, out);
    else if (e.endsWith('.ptx')) out.push(p);
  }
  return out;
}

describe.skipIf(!present)('PTX corpus', () => {
  it('parses every file or rejects it with a located error (0 crashes)', () => {
    let accepted = 0;
    const crashed: string[] = [];
    for (const f of ptxFiles(corpus)) {
      const rel = path.relative(corpus, f);
      try {
        parsePtx(readFileSync(f, 'utf8'), rel);
        accepted++;
      } catch (e) {
        if (!isPtxforgeError(e) || !e.pos || e.pos.file !== rel || !(e.pos.line > 0)) crashed.push(`${rel}: ${String(e)}`);
      }
    }
    expect(crashed).toEqual([]);
    // Everything but ZLUDA's internal pass dumps (not PTX), its spirv_fail cases and noreturn.ptx (`.noreturn`
    // on an .entry) is accepted; ptxas 13.0.88 refuses each of those 14 files with a syntax error too.
    expect(accepted).toBeGreaterThanOrEqual(299);
  });
});
