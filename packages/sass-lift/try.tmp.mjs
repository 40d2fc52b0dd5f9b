import { readFileSync } from 'node:fs';
import { runCubin, liftCubin } from './dist/index.js';
import { readCubin } from '../cubin/dist/index.js';
const [file, launchFile] = process.argv.slice(2);
const c = readCubin(readFileSync(file));
try {
  const l = liftCubin(c);
  if (process.env.SHOW) console.log(l.oriText);
  const launch = JSON.parse(readFileSync(launchFile, 'utf8'));
  const r = runCubin(c, launch);
  console.log(r.result.ok, r.result.errors.map(e=>e.message).join('\n'), Object.entries(r.result.buffers).map(([k,v])=>k+':'+Buffer.from(v.bytes).toString('hex').slice(0,64)).join(' '));
} catch (e) { console.log('ERR', e.code, e.message); }
