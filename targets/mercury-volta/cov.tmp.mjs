import { readFileSync, readdirSync } from 'node:fs';
import { readCubin } from '../../packages/cubin/dist/index.js';
import { decodeVolta } from './dist/index.js';
import { wordFromBytes, formatInstruction, isUnknown } from '../../packages/sass/dist/index.js';
const arch = process.argv[2];
const dir = `/tmp/cub/${arch}`;
let words = 0, unk = 0; const byOp = new Map();
for (const f of readdirSync(dir)) {
  const c = readCubin(readFileSync(`${dir}/${f}`));
  for (const fn of c.functions) for (let a = 0; a + 16 <= fn.code.length; a += 16) {
    words++;
    const d = decodeVolta(arch, wordFromBytes(fn.code, a), a);
    if (isUnknown(d)) { unk++; byOp.set(d.opcodeField, (byOp.get(d.opcodeField) ?? 0) + 1); }
  }
}
console.log(arch, 'words', words, 'unknown', unk, [...byOp].sort((a,b)=>b[1]-a[1]).slice(0,30).map(([o,n])=>'0x'+o.toString(16)+':'+n).join(' '));
