#!/usr/bin/env node
// Volta+ SASS codec speed: decode (word → structured instruction) and encode (structured → word), in
// instructions per second, over real words: every instruction of the cubins under DIR (default: the
// sass-roundtrip cache, .cache/sass-roundtrip) for one arch, else the golden vectors of ../shared/golden.
// usage: node scripts/bench-sass-codec.mjs [--arch sm_90] [--dir DIR] [--seconds 3]
// Needs `pnpm build` first (reads the packages' dist/).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const imp = (p) => import(pathToFileURL(path.join(repo, p)).href);
const sass = await imp('packages/sass/dist/index.js');
const volta = await imp('targets/mercury-volta/dist/index.js');
const { readCubin } = await imp('packages/cubin/dist/index.js');

const args = process.argv.slice(2);
const opt = (k, d) => (args.indexOf(k) >= 0 ? args[args.indexOf(k) + 1] : d);
const arch = opt('--arch', 'sm_90');
const seconds = Number(opt('--seconds', '3'));
const dir = opt('--dir', path.join(repo, '.cache', 'sass-roundtrip'));

const words = [];
const addrs = [];
const walk = (d) => {
  for (const e of readdirSync(d).sort()) {
    const p = path.join(d, e);
    if (statSync(p).isDirectory()) walk(p);
    else if (e.endsWith('.cubin')) {
      try {
        const c = readCubin(new Uint8Array(readFileSync(p)));
        if (c.arch.name !== arch) continue;
        for (const f of c.functions)
          for (let o = 0; o + 16 <= f.code.length; o += 16) {
            words.push(sass.wordFromBytes(f.code, o, 128));
            addrs.push(o);
          }
      } catch {
        /* not a cubin we can read */
      }
    }
  }
};
if (existsSync(dir)) walk(dir);
let source = `${dir} (${arch} cubins)`;
if (!words.length) {
  const g = sass.findGoldenDir(repo);
  if (!g) {
    console.error('bench-sass-codec: no cubins and no ../shared/golden: nothing to measure');
    process.exit(1);
  }
  for (const f of ['sm90_pairs.tsv', 'cuasm_insrecords_sm86.tsv', 'cuasm_insrecords_sm80.tsv'])
    for (const r of sass.readGoldenTsv(path.join(g, f))) {
      words.push(sass.wordFromHex(r.code));
      addrs.push(r.addr);
    }
  source = `${g} golden vectors`;
}

const codec = volta.voltaCodec(arch);
const decoded = [];
const known = [];
for (let i = 0; i < words.length; i++) {
  const d = codec.decode(words[i], addrs[i]);
  if (!sass.isUnknown(d)) {
    decoded.push(d);
    known.push(i);
  }
}

// The machine may be shared: rates are per CPU-second of this process (process.cpuUsage), with the
// wall-clock rate beside them.
function measure(name, n, f) {
  for (let i = 0; i < Math.min(n, 20000); i++) f(i);
  let ops = 0;
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  let t;
  do {
    for (let i = 0; i < n; i++) f(i);
    ops += n;
    t = Number(process.hrtime.bigint() - t0) / 1e9;
  } while (t < seconds);
  const c = process.cpuUsage(c0);
  const cpu = (c.user + c.system) / 1e6;
  const rate = ops / cpu;
  console.log(`${name}: ${(rate / 1e6).toFixed(2)} M instructions per CPU-second (${ops} in ${cpu.toFixed(2)} CPU-s; wall ${(ops / t / 1e6).toFixed(2)} M/s over ${t.toFixed(2)} s)`);
  return rate;
}

console.log(`bench-sass-codec: ${arch}, ${words.length} words (${decoded.length} known) from ${source}`);
console.log(`machine: ${os.cpus()[0]?.model ?? 'unknown cpu'}, node ${process.version}, ${new Date().toISOString().slice(0, 10)}`);
let sink = 0;
const dec = measure('decode', words.length, (i) => {
  const d = codec.decode(words[i], addrs[i]);
  sink += d.unknown ? 1 : 0;
});
const enc = measure('encode', decoded.length, (i) => {
  try {
    sink += codec.encode(decoded[i], addrs[known[i]])[0];
  } catch {
    sink++;
  }
});
const txt = measure('print (decode + nvdisasm text)', decoded.length, (i) => {
  sink += sass.formatInstruction(decoded[i]).length;
});
if (sink === 0.5) console.log(sink);
const ok = dec >= 1e6 && enc >= 1e6;
console.log(ok ? 'target met: decode and encode >= 1 M instructions/s' : 'target NOT met (1 M instructions/s each)');
void txt;
