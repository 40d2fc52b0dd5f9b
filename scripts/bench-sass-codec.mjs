#!/usr/bin/env node
// Volta+ SASS codec speed: decode (word → structured instruction) and encode (structured → word), in
// instructions per CPU-second, over real words: every instruction of the ptxas cubins under DIR (default: the
// sass-roundtrip cache, .cache/sass-roundtrip, filled by `pnpm -s sass-roundtrip`) for one arch, else the
// golden vectors of ../shared/golden.
// usage: node scripts/bench-sass-codec.mjs [--arch sm_90] [--dir DIR] [--rounds 9] [--warmup 2] [--warmup-cpu 1.5] [--record]
//   --record  adds the run's row to the codec table of docs/benchmarks.md (machine, load, date, medians).
// Needs `pnpm build` first (reads the packages' dist/).
//
// Method. Every measured round is one pass over all words (or all encodable instructions); its rate is
// instructions per CPU-second of this process (process.cpuUsage: user + system, GC threads included), so time
// the process spends waiting for a core on a shared machine does not count, but the slowdown of a contended
// core does. Warm-up passes (not measured) let the JIT settle first; the reported figure is the median round,
// with the slowest and fastest round beside it. Warm-up is at least --warmup passes and --warmup-cpu
// CPU-seconds: TurboFan compiles the big encode function on a background thread for ~0.3–0.9 CPU-s under
// load, and that thread's time would otherwise land in the first measured rounds. Three decode/encode workloads, in this order:
//   decode (stream)        each result is consumed (known/unknown, opcode) and dropped: scanners, round trips;
//   decode (per function)  each function's instructions are kept until the next function (ptxforge-dis);
//   encode                 the known words' decoded instructions, held in memory, encoded again.
// Order matters and is fixed: V8 pretenures allocation sites whose objects survive, so once a process holds
// many decoded instructions (the encode set is ~44k of them) later decodes allocate in the old space and pay
// full GCs; the per-function row shows what keeping results costs.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
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
const rounds = Math.max(1, Number(opt('--rounds', '9')));
const warmup = Math.max(0, Number(opt('--warmup', '2')));
const warmupCpu = Math.max(0, Number(opt('--warmup-cpu', '1.5')));
const dir = opt('--dir', path.join(repo, '.cache', 'sass-roundtrip'));
const record = args.includes('--record');

// Words, grouped by function (fnStart[k] = index of the first word of function k).
const words = [];
const addrs = [];
const fnStart = [];
const walk = (d) => {
  for (const e of readdirSync(d).sort()) {
    const p = path.join(d, e);
    if (statSync(p).isDirectory()) walk(p);
    else if (e.endsWith('.cubin')) {
      let c;
      try {
        c = readCubin(new Uint8Array(readFileSync(p)));
      } catch {
        continue; // not a cubin we can read
      }
      if (c.arch.name !== arch) continue;
      for (const f of c.functions) {
        fnStart.push(words.length);
        for (let o = 0; o + 16 <= f.code.length; o += 16) {
          words.push(sass.wordFromBytes(f.code, o, 128));
          addrs.push(o);
        }
      }
    }
  }
};
if (existsSync(dir)) walk(dir);
let source = `${path.relative(repo, dir) || dir} (${arch} cubins of ptxas)`;
if (!words.length) {
  const g = sass.findGoldenDir(repo);
  if (!g) {
    console.error('bench-sass-codec: no cubins (run `pnpm -s sass-roundtrip` first) and no ../shared/golden: nothing to measure');
    process.exit(1);
  }
  for (const f of ['sm90_pairs.tsv', 'cuasm_insrecords_sm86.tsv', 'cuasm_insrecords_sm80.tsv']) {
    fnStart.push(words.length);
    for (const r of sass.readGoldenTsv(path.join(g, f))) {
      words.push(sass.wordFromHex(r.code));
      addrs.push(r.addr);
    }
  }
  source = 'golden vectors of ../shared/golden';
}
fnStart.push(words.length);

const codec = volta.voltaCodec(arch);
const loadBefore = os.loadavg();

/** Runs `pass` (one pass over n instructions) warmup times, then `rounds` measured times. */
function measure(name, n, pass) {
  const w0 = process.cpuUsage();
  for (let i = 0; ; i++) {
    const w = process.cpuUsage(w0);
    if (i >= warmup && (w.user + w.system) / 1e6 >= warmupCpu) break;
    pass();
  }
  const rates = [];
  const wall = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    const c0 = process.cpuUsage();
    pass();
    const c = process.cpuUsage(c0);
    const t = Number(process.hrtime.bigint() - t0) / 1e9;
    rates.push(n / ((c.user + c.system) / 1e6 || 1e-6));
    wall.push(n / t);
  }
  rates.sort((a, b) => a - b);
  wall.sort((a, b) => a - b);
  const med = (a) => (a.length % 2 ? a[a.length >> 1] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2);
  const r = { median: med(rates), min: rates[0], max: rates[rates.length - 1], wall: med(wall) };
  const m = (x) => (x / 1e6).toFixed(2);
  console.log(`${name}: median ${m(r.median)} M instructions per CPU-second (rounds ${m(r.min)}–${m(r.max)}; wall-clock median ${m(r.wall)} M/s) over ${n} instructions x ${rounds} rounds`);
  return r;
}

// Reference workload, to compare machines and loads: one small object and one 16-byte typed array per step.
function reference() {
  let sink = 0;
  const c0 = process.cpuUsage();
  for (let i = 0; i < 2e6; i++) {
    const w = new Uint32Array(4);
    w[i & 3] = i;
    const o = { a: w[0], b: i };
    sink += o.a + o.b;
  }
  const c = process.cpuUsage(c0);
  return { ns: ((c.user + c.system) * 1e3) / 2e6, sink };
}

const when = new Date().toISOString().slice(0, 16) + 'Z';
const machine = `${os.cpus()[0]?.model?.trim() ?? 'unknown cpu'} (${os.cpus().length} cores), node ${process.version}`;
console.log(`bench-sass-codec: ${arch}, ${words.length} words in ${fnStart.length - 1} functions from ${source}`);
console.log(`machine: ${machine}, ${when}, load average ${loadBefore.map((x) => x.toFixed(1)).join(' ')}; warm-up ≥ ${warmup} passes and ≥ ${warmupCpu} CPU-s, then ${rounds} measured rounds each`);
const ref = reference();
console.log(`reference step (one small object + one Uint32Array(4)): ${ref.ns.toFixed(0)} ns of CPU`);
let sink = ref.sink;

// decode, results dropped
let knownCount = 0;
const dec = measure('decode (stream)', words.length, () => {
  let known = 0;
  for (let i = 0; i < words.length; i++) {
    const d = codec.decode(words[i], addrs[i]);
    if (d.unknown) sink += d.opcodeField;
    else {
      known++;
      sink += d.opcode.length;
    }
  }
  knownCount = known;
});

// decode, each function's instructions kept until the next function
let held = [];
const decFn = measure('decode (per function)', words.length, () => {
  for (let k = 0; k + 1 < fnStart.length; k++) {
    const out = new Array(fnStart[k + 1] - fnStart[k]);
    for (let i = fnStart[k], j = 0; i < fnStart[k + 1]; i++, j++) out[j] = codec.decode(words[i], addrs[i]);
    held = out;
  }
  sink += held.length;
});
held = [];

// encode: the known words' instructions that the tables also encode (a handful throw SASS_NO_FORM)
const encIns = [];
const encAddr = [];
let notEncodable = 0;
for (let i = 0; i < words.length; i++) {
  const d = codec.decode(words[i], addrs[i]);
  if (sass.isUnknown(d)) continue;
  try {
    codec.encode(d, addrs[i]);
    encIns.push(d);
    encAddr.push(addrs[i]);
  } catch {
    notEncodable++;
  }
}
console.log(`encode set: ${encIns.length} of ${knownCount} known words (${notEncodable} throw SASS_NO_FORM)`);
const enc = measure('encode', encIns.length, () => {
  for (let j = 0; j < encIns.length; j++) sink += codec.encode(encIns[j], encAddr[j])[0];
});
const txt = measure('print (nvdisasm text of decoded instructions)', encIns.length, () => {
  for (let j = 0; j < encIns.length; j++) sink += sass.formatInstruction(encIns[j]).length;
});
if (sink === 0.5) console.log(sink);
const loadAfter = os.loadavg();
console.log(`load average after: ${loadAfter.map((x) => x.toFixed(1)).join(' ')}`);
const ok = dec.median >= 1e6 && enc.median >= 1e6;
console.log(ok ? 'target met: decode and encode medians >= 1 M instructions per CPU-second' : 'target NOT met (1 M instructions per CPU-second each, median round)');

if (record) {
  const doc = path.join(repo, 'docs', 'benchmarks.md');
  const marker = '<!-- bench-sass-codec rows -->';
  const text = readFileSync(doc, 'utf8');
  const k = text.indexOf(marker);
  if (k < 0) {
    console.error(`bench-sass-codec: ${marker} not found in docs/benchmarks.md; row not recorded`);
    process.exit(1);
  }
  const m = (r) => `**${(r.median / 1e6).toFixed(2)}** (${(r.min / 1e6).toFixed(2)}–${(r.max / 1e6).toFixed(2)})`;
  const row = `| ${when} | ${machine} | ${loadBefore[0].toFixed(1)} → ${loadAfter[0].toFixed(1)} | ${ref.ns.toFixed(0)} ns | ${arch}, ${words.length} words (${knownCount} known, ${encIns.length} encode) | ${m(dec)} | ${m(decFn)} | ${m(enc)} | ${(txt.median / 1e6).toFixed(2)} |\n`;
  // rows go after the table that follows the marker (header + separator + earlier rows)
  let end = text.indexOf('\n', k) + 1;
  while (end < text.length && text[end] === '|') end = text.indexOf('\n', end) + 1;
  writeFileSync(doc, text.slice(0, end) + row + text.slice(end));
  console.log('recorded in docs/benchmarks.md');
}
