#!/usr/bin/env node
// `pnpm -s bench:codegen [--max N] [--table] [--filter substr] [--in-process] [--dir D]`: our sm_90 cubins (@ptxforge/codegen) beside
// ptxas -O3 sm_90 on every corpus PTX both accept (issue 12 targets, geomean ours/ptxas: registers <= 1.3x,
// static instructions <= 1.5x, stall cycles <= 1.5x). Both cubins are decoded the same way (apps/dis's
// hazardFunctionsOf): static instructions = the function body before ptxas's trailing self-branch; stall cycles
// = sum of max(1, stall) of the body's control words; hazards = the checker on our cubin's bytes. Registers and
// spills: ptxas's `-v` lines, ours from the codegen statistics (the same rule). Our code is the default
// toolchain's (@ptxforge/preset-default, what the CLI runs). Compile time per file: the `ptxforge` CLI process
// (apps/ptxforge/bin/ptxforge; with --in-process or without a built CLI: compileToCubin in this process) and
// the ptxas process, wall time, taken alternately; the summary gives the median of the paired ratios. Kernels codegen rejects are counted by error code.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

const W = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const corpus = path.resolve(W, '../shared/corpus');
if (!fs.existsSync(corpus) || spawnSync('ptxas', ['--version']).status !== 0) {
  console.log('bench-codegen: needs ../shared/corpus and ptxas; skipped');
  process.exit(0);
}
const args = process.argv.slice(2);
const opt = (name) => {
  const k = args.indexOf(name);
  return k >= 0 ? args[k + 1] : undefined;
};
const max = Number(opt('--max') ?? 1e9);
const filter = opt('--filter');
const table = args.includes('--table');
const imp = (p) => import(pathToFileURL(path.join(W, p)).href);
const { createDefaultToolchain } = await imp('packages/preset-default/dist/index.js');
const { compileToCubin } = await imp('packages/codegen/dist/index.js');
const { readCubin } = await imp('packages/cubin/dist/index.js');
const { hazardFunctionsOf, registerFamilyCodecs } = await imp('apps/dis/dist/index.js');
const { checkHazards } = await imp('packages/sass-hazards/dist/index.js');
registerFamilyCodecs();
// the toolchain the CLI ships (every first-party plugin), as `ptxforge -arch=sm_90 -O3` compiles
const tc = createDefaultToolchain();
const cli = path.join(W, 'apps/ptxforge/bin/ptxforge');
const useProcess = !args.includes('--in-process') && fs.existsSync(path.join(W, 'apps/ptxforge/dist/bundle/cli.js'));

const files = [];
const walk = (d) => {
  for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = path.join(d, e.name);
    if (e.isDirectory()) walk(p);
    else if (p.endsWith('.ptx') && (!filter || p.includes(filter))) files.push(p);
  }
};
// --dir D: the PTX files under D instead of the corpus (e.g. apps/ptxforge/test/fixtures/cuda-kernels)
const dir = opt('--dir');
walk(dir ? path.resolve(dir) : corpus);

/** Per function of a cubin: body instructions, stall cycles, hazards. */
function measure(bytes, file) {
  const out = new Map();
  for (const fn of hazardFunctionsOf(readCubin(bytes, { file })).fns) {
    let end = fn.instrs.length;
    for (let i = fn.instrs.length - 1; i >= 0; i--) {
      const ins = fn.instrs[i];
      if (ins.opcode === 'NOP') continue;
      if (ins.opcode === 'BRA' && ins.branchTarget === ins.addr) end = i;
      break;
    }
    let stall = 0;
    for (let i = 0; i < end; i++) stall += Math.max(1, fn.instrs[i].control.stall);
    out.set(fn.name, { instrs: end, stall, hazards: checkHazards(fn, { arch: 'sm_90' }).hazards.length });
  }
  return out;
}

function ptxasVerbose(text) {
  const m = new Map();
  let cur;
  for (const line of text.split('\n')) {
    const f = /Compiling entry function '([^']+)'/.exec(line) ?? /Function properties for (\S+)/.exec(line);
    if (f) {
      cur = f[1];
      if (!m.has(cur)) m.set(cur, { registers: 0, spillStores: 0, spillLoads: 0 });
    }
    const s = /(\d+) bytes spill stores, (\d+) bytes spill loads/.exec(line);
    if (s && cur) Object.assign(m.get(cur), { spillStores: +s[1], spillLoads: +s[2] });
    const u = /Used (\d+) registers/.exec(line);
    if (u && cur) m.get(cur).registers = +u[1];
  }
  return m;
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-codegen-'));
const rows = [];
const errs = {};
const timeRatios = [];
let hazards = 0;
const sched = { preBefore: 0, preAfter: 0, postBefore: 0, postAfter: 0, reordered: 0, reverted: 0 };
for (const f of files.slice(0, max)) {
  const src = fs.readFileSync(f, 'utf8');
  const rel = path.relative(dir ? path.resolve(dir) : corpus, f);
  // alternate which side runs first so that cache warmth and load drift favour neither
  const runOurs = () => {
    const t0 = performance.now();
    let r;
    try {
      r = { r: compileToCubin(tc, src, { arch: 'sm_90', file: f }), ms: performance.now() - t0 };
    } catch (e) {
      return { err: e.code ?? 'other', ms: performance.now() - t0 };
    }
    if (useProcess) {
      // the whole process, as a user runs it: start-up, front end, pipeline, code generation, cubin written
      const t1 = performance.now();
      const p = spawnSync(cli, ['-arch=sm_90', '-O3', f, '-o', path.join(tmp, 'o.cubin')], { encoding: 'utf8' });
      r.ms = performance.now() - t1;
      if (p.status !== 0) return { err: 'CLI_FAILED', ms: r.ms };
    }
    return r;
  };
  const out = path.join(tmp, 'p.cubin');
  const runPtxas = () => {
    const t0 = performance.now();
    const p = spawnSync('ptxas', ['-arch=sm_90', '-O3', '-v', f, '-o', out], { encoding: 'utf8' });
    return { p, ms: performance.now() - t0 };
  };
  let ours, theirs;
  if (rows.length % 2) {
    theirs = runPtxas();
    ours = runOurs();
  } else {
    ours = runOurs();
    theirs = runPtxas();
  }
  if (theirs.p.status !== 0) continue;
  if (ours.err) {
    errs[ours.err] = (errs[ours.err] ?? 0) + 1;
    continue;
  }
  timeRatios.push(ours.ms / theirs.ms);
  const pv = ptxasVerbose(theirs.p.stdout + theirs.p.stderr);
  const pm = measure(fs.readFileSync(out), out);
  const om = measure(ours.r.cubin, rel);
  for (const k of ours.r.kernels) {
    const p = pv.get(k.name), pc = pm.get(k.name), oc = om.get(k.name);
    if (!p || !pc || !oc || !pc.instrs) continue;
    hazards += oc.hazards;
    if (k.preSchedule) {
      sched.preBefore += k.preSchedule.cyclesBefore;
      sched.preAfter += k.preSchedule.cyclesAfter;
      sched.reordered += k.preSchedule.reordered;
      sched.reverted += k.preSchedule.reverted;
    }
    if (k.postSchedule) {
      sched.postBefore += k.postSchedule.cyclesBefore;
      sched.postAfter += k.postSchedule.cyclesAfter;
    }
    rows.push({
      file: rel, kernel: k.name, oursMs: ours.ms, ptxasMs: theirs.ms,
      ours: { instrs: oc.instrs, registers: k.registers, spills: k.spillStores + k.spillLoads, stall: oc.stall },
      ptxas: { instrs: pc.instrs, registers: p.registers, spills: p.spillStores + p.spillLoads, stall: pc.stall },
    });
  }
}
fs.rmSync(tmp, { recursive: true, force: true });

const geo = (xs) => Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};
const ratio = (key) => geo(rows.map((r) => r.ours[key] / r.ptxas[key]));
const cpu = os.cpus()[0]?.model ?? '?';
console.log(`# bench:codegen, sm_90, ${new Date().toISOString().slice(0, 16)}Z, ${cpu} x${os.cpus().length}, node ${process.version}, load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
console.log(`kernels ${rows.length} (files both compile: ${timeRatios.length}); codegen errors by code ${JSON.stringify(errs)}; hazards in our cubins ${hazards}`);
console.log(`geomean ours/ptxas: instructions ${ratio('instrs').toFixed(3)} (target <= 1.5), registers ${ratio('registers').toFixed(3)} (<= 1.3), stall cycles ${ratio('stall').toFixed(3)} (<= 1.5)`);
console.log(`spilling kernels: ours ${rows.filter((r) => r.ours.spills).length}, ptxas ${rows.filter((r) => r.ptxas.spills).length}; compile time ours/ptxas per file: median ${median(timeRatios).toFixed(2)}x (${useProcess ? 'both whole processes' : 'ours in-process, ptxas a process'}, alternating)`);
console.log(`schedulers (estimated cycles, single-issue model): pre-RA ${sched.preBefore} -> ${sched.preAfter} (blocks reordered ${sched.reordered}, kept ${sched.reverted}), post-RA ${sched.postBefore} -> ${sched.postAfter}`);
const sum = (side, key) => rows.reduce((s, r) => s + r[side][key], 0);
console.log(`totals: instructions ${sum('ours', 'instrs')} vs ${sum('ptxas', 'instrs')}, stall cycles ${sum('ours', 'stall')} vs ${sum('ptxas', 'stall')}`);
if (table) {
  console.log('\n| file | kernel | instrs ours | ptxas | regs ours | ptxas | spills ours | ptxas | stall ours | ptxas | ms ours | ptxas |');
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    console.log(`| ${r.file} | ${r.kernel} | ${r.ours.instrs} | ${r.ptxas.instrs} | ${r.ours.registers} | ${r.ptxas.registers} | ${r.ours.spills} | ${r.ptxas.spills} | ${r.ours.stall} | ${r.ptxas.stall} | ${r.oursMs.toFixed(0)} | ${r.ptxasMs.toFixed(0)} |`);
  }
} else {
  console.log('\nlargest kernels (by ptxas instructions):');
  console.log('| kernel | instrs ours / ptxas | registers ours / ptxas | stall cycles ours / ptxas |');
  console.log('|---|---:|---:|---:|');
  for (const r of [...rows].sort((a, b) => b.ptxas.instrs - a.ptxas.instrs || (a.file < b.file ? -1 : 1)).slice(0, 10)) {
    console.log(`| ${r.file} ${r.kernel} | ${r.ours.instrs} / ${r.ptxas.instrs} | ${r.ours.registers} / ${r.ptxas.registers} | ${r.ours.stall} / ${r.ptxas.stall} |`);
  }
  console.log('\nworst stall-cycle ratios:');
  for (const r of [...rows].sort((a, b) => b.ours.stall / b.ptxas.stall - a.ours.stall / a.ptxas.stall).slice(0, 12)) {
    console.log(`  ${r.file} ${r.kernel}: stall ${r.ours.stall}/${r.ptxas.stall}, instrs ${r.ours.instrs}/${r.ptxas.instrs}, regs ${r.ours.registers}/${r.ptxas.registers}`);
  }
}
