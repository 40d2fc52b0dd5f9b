import { readFileSync } from 'node:fs';
import { readCubin } from '../../packages/cubin/dist/index.js';
import { decodeVolta } from './dist/index.js';
import { wordFromBytes, formatInstruction, isUnknown, formatControl } from '../../packages/sass/dist/index.js';
const [arch, file, fnName] = process.argv.slice(2);
const c = readCubin(readFileSync(file));
for (const fn of c.functions) { if (fnName && fn.name !== fnName) continue; console.log('FN', fn.name);
  for (let a = 0; a + 16 <= fn.code.length; a += 16) {
    const d = decodeVolta(arch, wordFromBytes(fn.code, a), a);
    console.log(a.toString(16).padStart(4,'0'), isUnknown(d) ? 'UNKNOWN '+d.opcodeField.toString(16)+' '+d.reason : (d.control? '['+formatControl(d.control)+'] ':'') + formatInstruction(d), process.env.J ? JSON.stringify(d.operands) : '');
  }}
