#!/usr/bin/env node
// Code generation CPU time, in process and warm (issue #17): each input is compiled once through the front end
// and the optimizer (sm_90 -O3), then its code generation (`@ptxforge/codegen`'s steps in compileFunction's
// order: selection, legalization, pre-RA scheduling, allocation with post-RA scheduling, emission with the
// scoreboard generator, the cubin writer) is repeated and each step's CPU time (process.cpuUsage) is taken;
// the first repetitions warm the JIT and are dropped, medians of the rest are printed. The cubin of every
// repetition is compared with the first (code generation must be deterministic).
//   node scripts/bench-codegen-time.mjs [--reps N] [--warm N] [--arch sm_90] [files...]
// Default files: bench/compile/big.ptx and apps/bench-opt/kernels/kernels.ptx. Build first (pnpm build).
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  if (i < 0) return dflt;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
};
const reps = Number(opt('--reps', '8'));
const warm = Number(opt('--warm', '2'));
const arch = opt('--arch', 'sm_90');
const files = args.length ? args : ['bench/compile/big.ptx', 'apps/bench-opt/kernels/kernels.ptx'];
const distPlugins = path.join(root, 'apps/ptxforge/dist/plugins.js');
if (!existsSync(distPlugins)) {
  console.error('build first: pnpm build');
  process.exit(1);
}
const { createToolchain, Encoder, Decoder, LatencyModel, RegisterFile } = await import(path.join(root, 'packages/kernel/dist/index.js'));
const { loadDefaultPlugins } = await import(distPlugins);
const cg = await import(path.join(root, 'packages/codegen/dist/index.js'));
const { MachineScheduler, machineSchedulerFor, ptxasReportedRegisters } = await import(path.join(root, 'packages/regalloc/dist/index.js'));
const { buildCubin, layoutProfileFor } = await import(path.join(root, 'packages/cubin/dist/index.js'));
const tc = createToolchain({ plugins: await loadDefaultPlugins() });
const scope = tc.services(arch);
const encoder = scope.service(Encoder);
const decoder = scope.service(Decoder);
const registerFile = scope.service(RegisterFile);
const scheduler = scope.tryService(MachineScheduler) ?? (scope.tryService(LatencyModel) ? machineSchedulerFor(scope) : undefined);
const sm = scope.target.sm;
const paramBase = scope.target.capabilities.paramBase;

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const STEPS = ['select', 'legalize', 'preSched', 'alloc+postSched', 'emit', 'cubin', 'total'];
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** One code generation of the module, timed per step (the same calls as generateCubin/compileFunction). */
function timedCodegen(m) {
  const t = Object.fromEntries(STEPS.map((s) => [s, 0]));
  const data = cg.planModuleData(m);
  const kernels = [];
  const sharedBase = layoutProfileFor(sm)?.sharedReserve ?? 0;
  for (const fn of m.functions) {
    if (fn.kind !== 'entry') continue;
    let c0 = cpu();
    const step = (name) => {
      const c1 = cpu();
      t[name] += c1 - c0;
      c0 = c1;
    };
    const mf = cg.selectFunction(m, fn, { paramBase, data, sharedBase });
    step('select');
    const temp = (file = 'R') => {
      const v = { id: mf.vregs.length, file, width: 1, name: `%t${mf.vregs.length}` };
      mf.vregs.push(v);
      return v;
    };
    cg.legalize(mf, encoder, temp);
    step('legalize');
    const sched = scheduler ? { scheduler, classify: { opcodes: m.opcodes } } : undefined;
    if (sched) cg.preScheduleMachineFunction(mf, { ...sched, registerFile, optLevel: 3 });
    step('preSched');
    const asg = cg.allocateMachineFunction(mf, { registerFile, ...(sched ? { postSchedule: sched } : {}) });
    step('alloc+postSched');
    const e = cg.emitFunction(mf, asg, { arch, encoder, decoder });
    step('emit');
    if (e.hazards) throw new Error(`${fn.name}: ${e.hazards} hazards`);
    kernels.push({
      name: fn.name, kind: 'entry', global: true, code: e.code, regCount: ptxasReportedRegisters(Math.max(asg.used.R, 2)),
      params: mf.params.map((p, i) => ({ ordinal: i, offset: p.offset, size: p.size })), paramBytes: mf.paramBytes, frameSize: mf.frameBytes, exitOffsets: e.exitOffsets,
    });
  }
  let c0 = cpu();
  const cubin = buildCubin({ arch, functions: kernels });
  t.cubin += cpu() - c0;
  t.total = STEPS.slice(0, -1).reduce((a, s) => a + t[s], 0);
  return { t, cubin };
}

console.log(`code generation CPU (ms, median of reps ${warm + 1}..${reps}), ${arch}, node ${process.version}, ${os.cpus()[0]?.model ?? '?'} x${os.cpus().length}, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}, ${new Date().toISOString()}`);
console.log(`| file | ${STEPS.join(' | ')} |`);
console.log(`|---|${STEPS.map(() => '---:').join('|')}|`);
for (const f of files) {
  const text = readFileSync(path.resolve(root, f), 'utf8');
  const r = tc.compile({ text, file: f }, { arch, optLevel: 3 });
  const rows = [];
  let first;
  for (let i = 0; i < reps; i++) {
    const { t, cubin } = timedCodegen(r.module);
    // the reference cubin is the library's own generateCubin (kernel attributes included): compare only the code
    if (!first) first = cubin;
    else if (Buffer.compare(Buffer.from(first), Buffer.from(cubin)) !== 0) throw new Error(`${f}: code generation is not deterministic`);
    if (i >= warm) rows.push(t);
    await new Promise(setImmediate);
  }
  console.log(`| ${f} | ${STEPS.map((s) => median(rows.map((t) => t[s])).toFixed(1)).join(' | ')} |`);
}
