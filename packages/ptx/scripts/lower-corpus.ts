// Dev helper: parse + lower + verify every .ptx of the zluda and ptoxide cases; print failures.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isPtxforgeError, verifyModule } from '@ptxforge/kernel';
import { lowerPtx, parsePtx } from '../src/index.js';

const root = path.resolve(import.meta.dirname, '../../../../shared/corpus');
const files = new Set<string>();
for (const suite of ['zluda', 'ptoxide']) {
  const j = JSON.parse(readFileSync(path.join(root, suite, 'cases.json'), 'utf8')) as { cases: Array<{ ptx_file: string }> };
  for (const c of j.cases) files.add(path.join(suite, c.ptx_file));
}
let ok = 0;
const errs = new Map<string, string[]>();
for (const f of files) {
  try {
    const m = lowerPtx(parsePtx(readFileSync(path.join(root, f), 'utf8'), f), { target: { arch: 'sm_90', capabilities: { paramBase: 0x210 } } });
    const issues = verifyModule(m);
    if (issues.length) { console.log('VERIFY', f, issues.slice(0, 3)); continue; }
    ok++;
  } catch (e) {
    const msg = isPtxforgeError(e) ? e.format() : `CRASH ${f}: ${(e as Error).stack}`;
    console.log(msg);
  }
}
console.log(`lowered ${ok}/${files.size}`);
