// Dev helper: parse every .ptx under ../shared/corpus and report accepted / rejected / crashed.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { isPtxforgeError } from '@ptxforge/kernel';
import { parsePtx } from '../src/index.js';

const root = path.resolve(import.meta.dirname, '../../../../shared/corpus');
const files: string[] = [];
const walk = (d: string): void => {
  for (const e of readdirSync(d).sort()) {
    const p = path.join(d, e);
    if (statSync(p).isDirectory()) walk(p);
    else if (e.endsWith('.ptx')) files.push(p);
  }
};
walk(root);
let ok = 0, rej = 0, crash = 0;
for (const f of files) {
  try {
    parsePtx(readFileSync(f, 'utf8'), path.relative(root, f));
    ok++;
  } catch (e) {
    if (isPtxforgeError(e)) { rej++; console.log(e.format()); }
    else { crash++; console.log('CRASH', f, e); }
  }
}
console.log(`parse: ${ok} accepted, ${rej} rejected, ${crash} crashed`);
