#!/usr/bin/env node
// Issue #16, CUDA-sample acceptance: PTX that nvcc makes from the NVIDIA cuda-samples sources, checked with the
// installed ptxas and with ptxforge. Usage (build first: `pnpm --filter '@ptxforge/cli...' build`):
//
//   pnpm -s bench:cuda-samples [--src DIR] [--jobs N] [--timeout S] [--filter SUBSTR] [--fresh] [--quiet] [--ptx-only] [--not-run]
//
// --src defaults to the environment variable CUDA_SAMPLES_DIR. For every .cu file under it (sorted by path):
//   1. `nvcc -arch=sm_90 -ptx -I<src>/Common -I<sample dir> f.cu` (again with -rdc=true when nvcc asks for
//      separate compilation, as the dynamic-parallelism samples do). Files nvcc cannot compile here (missing
//      GL/NPP/cuDNN headers, ...) and files without device code are listed as skipped with the reason. The PTX
//      (or the reason) is cached under .cache/cuda-samples/, keyed by the source's hash and the nvcc flags;
//      --fresh ignores the cache. NVIDIA's sources and their PTX are never written into the repository.
//   2. `ptxas -arch=sm_90 f.ptx` (with -c for -rdc PTX): its verdict decides whether the file counts.
//   3. For the files ptxas accepts: `ptxforge -arch sm_90 --verify-each f.ptx -o f.cubin` (the default job,
//      through to a cubin). A file passes when ptxforge exits 0 and writes the cubin; verify-each mismatches
//      stop the compilation with VERIFY_EACH_MISMATCH, so a pass is also verify-each clean. Kernels the
//      interpreter could not run before the first phase (VERIFY_EACH_SKIPPED warnings) are counted separately.
// --not-run lists every kernel verify-each could not run (file, kernel, the interpreter's reason), grouped by reason.
// --ptx-only stops after step 2 (makes and caches the PTX, counts ptxas's verdicts). Prints one verdict per file, then
//   cuda-samples: N PTX files ptxas accepts, A accepted by ptxforge and verify-each clean (P%)
// and a table of the failures grouped by error code and construct. Exits 0 (a measurement, not a gate) unless
// a tool crashes in an unexpected way; skips cleanly (exit 0, a "skipped:" line) without sources, nvcc or ptxas.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const flag = (name) => argv.includes(name);
const arg = (name, dflt) => {
  const k = argv.indexOf(name);
  return k >= 0 && argv[k + 1] !== undefined ? argv[k + 1] : dflt;
};
const src = arg('--src', process.env.CUDA_SAMPLES_DIR);
const jobs = Number(arg('--jobs', '1'));
const timeoutS = Number(arg('--timeout', '300'));
const filter = arg('--filter', '');
const fresh = flag('--fresh');
const quiet = flag('--quiet');
const ptxOnly = flag('--ptx-only');
const listNotRun = flag('--not-run');
if (!Number.isInteger(jobs) || jobs < 1 || !(timeoutS > 0)) {
  console.error('cuda-samples: usage: [--src DIR] [--jobs N] [--timeout S] [--filter SUBSTR] [--fresh] [--quiet] [--ptx-only] [--not-run]');
  process.exit(2);
}

const skip = (why) => {
  console.log(`cuda-samples: skipped: ${why}`);
  process.exit(0);
};
if (!src) skip('no sources (pass --src DIR or set CUDA_SAMPLES_DIR)');
if (!existsSync(src) || !statSync(src).isDirectory()) skip(`no sources at ${src}`);
const toolVersion = (tool) => {
  const r = spawnSync(tool, ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? (r.stdout.trim().split('\n').pop() ?? '') : undefined;
};
const nvccVersion = toolVersion('nvcc');
if (nvccVersion === undefined) skip('nvcc is not installed');
const ptxasVersion = toolVersion('ptxas');
if (ptxasVersion === undefined) skip('ptxas is not installed');
const cli = path.join(repo, 'apps/ptxforge/bin/ptxforge');
if (!existsSync(path.join(repo, 'apps/ptxforge/dist/bundle/cli.js'))) {
  console.error("cuda-samples: build first (pnpm --filter '@ptxforge/cli...' build): apps/ptxforge/dist/bundle/cli.js is missing");
  process.exit(1);
}

/** Every .cu file under dir, sorted (iterative walk). */
function cuFiles(dir) {
  const out = [];
  const stack = [dir];
  while (stack.length) {
    const d = stack.pop();
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) stack.push(p);
      else if (e.isFile() && e.name.endsWith('.cu')) out.push(p);
    }
  }
  return out.sort();
}

/** Runs a command asynchronously with a time limit; resolves { code, stdout, stderr, timedOut, seconds }. */
function run(cmd, args, limitS) {
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (b) => { if (stdout.length < 1 << 20) stdout += b; });
    child.stderr.on('data', (b) => { if (stderr.length < 1 << 20) stderr += b; });
    const timer = setTimeout(() => { timedOut = true; child.kill('SIGKILL'); }, limitS * 1000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut, seconds: Number(process.hrtime.bigint() - t0) / 1e9 });
    });
  });
}

const cacheDir = path.join(repo, '.cache/cuda-samples');
mkdirSync(cacheDir, { recursive: true });
const tmp = path.join(os.tmpdir(), `ptxforge-cuda-samples-${process.pid}`);
mkdirSync(tmp, { recursive: true });

/** The first line of a tool's error output that says what went wrong. */
function firstError(text) {
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  return lines.find((l) => /fatal error|error/i.test(l)) ?? lines[0] ?? '(no message)';
}

/** Why nvcc could not make PTX, in a few words. */
function nvccReason(stderr) {
  const missing = /fatal error: ([^:]+): No such file or directory/.exec(stderr);
  if (missing) return `missing header ${missing[1]}`;
  return firstError(stderr).replace(/^.*?\.cu\(\d+\): /, '').slice(0, 160);
}

/** nvcc → PTX, cached: { ptx } or { skipped: reason }, with rdc when nvcc needed separate compilation. */
async function makePtx(file) {
  const rel = path.relative(src, file);
  // a sample's own headers sit beside it or in an inc/ folder next to its src/ folder
  const incs = [path.join(path.dirname(file), 'inc'), path.join(path.dirname(file), '..', 'inc')].filter((d) => existsSync(d)).map((d) => `-I${d}`);
  const key = createHash('sha1').update(readFileSync(file)).update(`${nvccVersion}|sm_90|v1${incs.length ? `|${incs.map((i) => path.relative(src, i.slice(2))).join(' ')}` : ''}`).digest('hex').slice(0, 16);
  const stem = path.join(cacheDir, `${rel.replace(/[\\/]/g, '__').replace(/\.cu$/, '')}-${key}`);
  if (!fresh && existsSync(`${stem}.json`)) {
    const meta = JSON.parse(readFileSync(`${stem}.json`, 'utf8'));
    if (meta.skipped || existsSync(meta.ptx)) return meta;
  }
  const base = ['-arch=sm_90', '-ptx', `-I${path.join(src, 'Common')}`, `-I${path.dirname(file)}`, ...incs, file, '-o', `${stem}.ptx`];
  let rdc = false;
  let r = await run('nvcc', base, 600);
  if (r.code !== 0 && /separate compilation mode|relocatable device code|-rdc=true/i.test(r.stderr)) {
    rdc = true;
    r = await run('nvcc', ['-rdc=true', ...base], 600);
  }
  let meta;
  if (r.timedOut) meta = { skipped: 'nvcc timed out' };
  else if (r.code !== 0) meta = { skipped: `nvcc: ${nvccReason(r.stderr)}` };
  else {
    const ptx = readFileSync(`${stem}.ptx`, 'utf8');
    meta = /^\s*(\.visible\s+|\.weak\s+|\.extern\s+)?\.(entry|func)\b/m.test(ptx) ? { ptx: `${stem}.ptx`, rdc } : { skipped: 'no device code in the PTX (host-only, or device functions nothing calls)' };
  }
  writeFileSync(`${stem}.json`, `${JSON.stringify(meta)}\n`);
  return meta;
}

/** A failure's group: the error code plus the construct it names (instruction, directive or register). */
function groupOf(stderr, timedOut) {
  if (timedOut) return { code: 'TIMEOUT', construct: `over ${timeoutS} s`, line: `timed out after ${timeoutS} s` };
  const lines = stderr.split('\n').filter((l) => / error [A-Z][A-Z0-9_]*\b/.test(l));
  const line = lines[0] ?? (stderr.trim().split('\n').pop() ?? 'no error message');
  const m = / error ([A-Z][A-Z0-9_]*)\b:?\s*(.*)$/.exec(line);
  if (!m) return { code: 'CRASH', construct: line.slice(0, 80), line };
  const msg = m[2];
  // The construct: what a not-implemented or no-form error names, a special register, a quoted token, an
  // instruction-looking word, else the message's first words.
  const ni = /not implemented: (\S+)(?: \(([^)]*)\))?/.exec(msg);
  if (ni) return { code: m[1], construct: ni[2] ? `${ni[1]} (${ni[2]})` : ni[1], line };
  const nf = /no encodable form for (\S+)/.exec(msg);
  if (nf) return { code: m[1], construct: nf[1], line };
  const sr = /special register (%\w+)/.exec(msg);
  if (sr) return { code: m[1], construct: `special register ${sr[1]}`, line };
  const quoted = /['`"]([^'`"]{1,40})['`"]/.exec(msg);
  const insn = /\b([a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+)\b/.exec(msg);
  const construct = quoted ? quoted[1] : insn ? insn[1] : msg.replace(/%?\b[\w$.]*\d[\w$.]*\b/g, '#').split(/\s+/).slice(0, 6).join(' ');
  return { code: m[1], construct, line };
}

const files = cuFiles(src).filter((f) => !filter || path.relative(src, f).includes(filter));
const results = new Array(files.length);
let next = 0;
async function worker() {
  for (;;) {
    const k = next++;
    if (k >= files.length) return;
    const file = files[k];
    const rel = path.relative(src, file);
    const res = { rel };
    results[k] = res;
    const made = await makePtx(file);
    if (made.skipped) {
      res.verdict = 'skipped';
      res.reason = made.skipped;
    } else {
      res.rdc = made.rdc;
      const out = path.join(tmp, `${k}.cubin`);
      const pa = await run('ptxas', ['-arch=sm_90', ...(made.rdc ? ['-c'] : []), made.ptx, '-o', out], 600);
      if (pa.code !== 0) {
        res.verdict = 'ptxas-rejects';
        res.reason = firstError(pa.stderr).slice(0, 160);
      } else if (ptxOnly) {
        res.verdict = 'ptxas-accepts';
        res.reason = 'ptxforge not run (--ptx-only)';
      } else {
        const vdir = path.join(tmp, `${k}-verify`);
        const pf = await run(cli, ['-arch', 'sm_90', ...(made.rdc ? ['-c'] : []), '--verify-each', '--verify-each-dir', vdir, made.ptx, '-o', out], timeoutS);
        res.seconds = pf.seconds;
        const skippedLines = pf.stderr.split('\n').filter((l) => l.includes('VERIFY_EACH_SKIPPED'));
        res.skippedKernels = skippedLines.length;
        // why the interpreter could not run a kernel, without names, numbers and locations
        res.skipReasons = skippedLines.map((l) => l.replace(/^.*? not verified: /, '').replace(/,? at `.*$/, '').replace(/\b0x[0-9a-f]+\b|\b\d+\b/g, '#').replace(/%\w+/g, '%r').slice(0, 120));
        // each not-run kernel with the interpreter's whole message (where and which thread), for --not-run
        res.notRunKernels = skippedLines.map((l) => /VERIFY_EACH_SKIPPED: kernel (\S+) not verified: (.*)$/.exec(l)).filter(Boolean).map((m) => ({ kernel: m[1], reason: m[2] }));
        if (pf.code === 0 && !pf.timedOut && existsSync(out)) res.verdict = 'pass';
        else {
          res.verdict = 'fail';
          res.group = groupOf(pf.stderr, pf.timedOut);
        }
      }
      rmSync(out, { force: true });
    }
    if (!quiet) {
      const tail = res.verdict === 'pass' ? ` (${res.seconds.toFixed(1)} s${res.skippedKernels ? `, ${res.skippedKernels} kernel(s) not run by verify-each` : ''})`
        : res.verdict === 'fail' ? `: ${res.group.code}: ${res.group.line.replace(/^.*? error /, '').slice(0, 200)}`
        : `: ${res.reason}`;
      console.log(`${res.verdict.padEnd(13)} ${rel}${res.rdc ? ' [rdc]' : ''}${tail}`);
    }
  }
}
await Promise.all(Array.from({ length: Math.min(jobs, files.length || 1) }, worker));
rmSync(tmp, { recursive: true, force: true });

const count = (v) => results.filter((r) => r.verdict === v).length;
const accepted = count('pass') + count('fail') + count('ptxas-accepts');
const pass = count('pass');
const pct = accepted ? ((100 * pass) / accepted).toFixed(1) : '0.0';
const notRun = results.filter((r) => r.verdict === 'pass' && r.skippedKernels > 0);
console.log('');
console.log(`# ${new Date().toISOString()}, ${os.cpus()[0]?.model.trim() ?? 'cpu'} x${os.cpus().length}, node ${process.version}, load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
console.log(`# ${files.length} .cu files; nvcc ${nvccVersion}; ptxas ${ptxasVersion}`);
console.log(`# skipped (nvcc could not make PTX here, or host-only): ${count('skipped')}; ptxas rejects: ${count('ptxas-rejects')}`);
console.log(`# of the passes, ${notRun.length} file(s) have kernels verify-each could not run (VERIFY_EACH_SKIPPED)`);
console.log(`# kernels verify-each could not run: ${notRun.reduce((n, r) => n + r.skippedKernels, 0)} (--not-run lists them)`);
console.log(`cuda-samples: ${accepted} PTX files ptxas accepts, ${pass} accepted by ptxforge and verify-each clean (${pct}%)`);
const groups = new Map();
for (const r of results) {
  if (r.verdict !== 'fail') continue;
  const key = `${r.group.code}\u0000${r.group.construct}`;
  const g = groups.get(key) ?? { code: r.group.code, construct: r.group.construct, files: [] };
  g.files.push(r.rel.split(/[\\/]/).slice(-2).join('/'));
  groups.set(key, g);
}
if (groups.size) {
  console.log('');
  console.log('| error code | construct | files | examples |');
  console.log('|---|---|---:|---|');
  const sorted = [...groups.values()].sort((a, b) => b.files.length - a.files.length || a.code.localeCompare(b.code) || a.construct.localeCompare(b.construct));
  for (const g of sorted) console.log(`| ${g.code} | ${g.construct.replace(/\|/g, '\\|')} | ${g.files.length} | ${g.files.slice(0, 3).join(', ')}${g.files.length > 3 ? ', …' : ''} |`);
}
const notRunWhy = new Map();
for (const r of notRun) for (const why of new Set(r.skipReasons)) notRunWhy.set(why, (notRunWhy.get(why) ?? 0) + 1);
if (notRunWhy.size) {
  console.log('');
  console.log('kernels verify-each could not run, by reason (files):');
  for (const [why, n] of [...notRunWhy].sort((a, b) => b[1] - a[1])) console.log(`  ${String(n).padStart(3)}  ${why}`);
}
if (listNotRun && notRun.length) {
  console.log('');
  console.log('not-run kernels (file: kernel: reason), by reason:');
  const byWhy = new Map();
  for (const r of notRun) {
    r.notRunKernels.forEach((k, j) => {
      const why = r.skipReasons[j] ?? k.reason;
      const list = byWhy.get(why) ?? [];
      list.push(`${r.rel}: ${k.kernel}: ${k.reason}`);
      byWhy.set(why, list);
    });
  }
  for (const [why, list] of [...byWhy].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]))) {
    console.log(`  ${String(list.length).padStart(3)} kernel(s): ${why}`);
    for (const line of list) console.log(`        ${line}`);
  }
}
const skipReasons = new Map();
for (const r of results) if (r.verdict === 'skipped') skipReasons.set(r.reason, (skipReasons.get(r.reason) ?? 0) + 1);
if (skipReasons.size && !quiet) {
  console.log('');
  console.log('skipped by reason:');
  for (const [why, n] of [...skipReasons].sort((a, b) => b[1] - a[1])) console.log(`  ${String(n).padStart(3)}  ${why}`);
}
