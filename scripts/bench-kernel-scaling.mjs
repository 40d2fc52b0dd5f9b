#!/usr/bin/env node
// Kernel analyses on one big function: CFG edges, reverse postorder, dominators, post-dominators, natural
// loops and register liveness on a generated Ori function of 8k, 16k and 32k blocks (issue 9 acceptance:
// time grows <= 2.3x per doubling). The function is a chain of nested loops and if/else diamonds; every
// block defines fresh registers and reads values from earlier blocks, so registers grow with blocks
// (the case that makes dense per-block bitsets quadratic).
//
// Robust at millisecond sizes: one function per size is built once; after a warm-up (every analysis run on
// every size until V8 has compiled them, not timed) the sizes are measured in rounds, each round timing
// every size once with a full GC before each measurement (node --expose-gc, else none), the order of the
// sizes rotating from round to round so load drift hits all sizes alike. Reported per analysis: the median
// time per size and, per doubling, the median of the per-round ratios time(2n) / time(n) (a ratio taken
// within one round cancels most of the drift of a shared machine), plus the worst such step.
// Usage: pnpm build && node --expose-gc scripts/bench-kernel-scaling.mjs [--sizes 8000,16000,32000,64000]
//        [--rounds 15] [--warmup 3] [--min-ms 100] [--clock cpu|wall]
import os from 'node:os';
// The root package does not depend on the workspace packages: load their built dist by path (opt-utils
// resolves @ptxforge/kernel to the same files through its workspace link).
const {
  Instr, OriFunction, computeDominators, computeLoops, computePostDominators, computeRpo, imm, label, reg, RZ, PT,
} = await import('../packages/kernel/dist/index.js');
const { computeLiveness } = await import('../packages/opt-utils/dist/index.js');

const argv = process.argv.slice(2);
const arg = (n, d) => {
  const k = argv.indexOf(n);
  return k >= 0 ? argv[k + 1] : d;
};
const sizes = arg('--sizes', '8000,16000,32000,64000').split(',').map(Number);
const rounds = Number(arg('--rounds', arg('--reps', '15')));
const warmup = Number(arg('--warmup', '3'));
const gc = typeof globalThis.gc === 'function' ? globalThis.gc : () => {};
// cpu: process CPU time (user + system, process.cpuUsage) -- on a shared machine wall time mostly measures
// waiting for a core; wall: elapsed time (meaningful on a quiet machine).
const clock = arg('--clock', 'cpu');
const now = clock === 'wall' ? () => Number(process.hrtime.bigint()) / 1e6 : () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e3;
};

/** A function of about `n` blocks: units of 8 blocks (a loop around an if/else diamond, then a join). */
function generate(n) {
  const fn = new OriFunction(`scale${n}`);
  const units = Math.max(1, Math.floor(n / 8));
  const entry = fn.createBlock();
  const tid = fn.newReg('R');
  entry.append(new Instr('S2R', { defs: [reg(tid)], uses: [{ kind: 'sreg', name: 'SR_TID.X' }] }));
  let carry = fn.newReg('R');
  entry.append(new Instr('MOV', { defs: [reg(carry)], uses: [imm(0)] }));
  for (let u = 0; u < units; u++) {
    const b = Array.from({ length: 8 }, () => fn.createBlock());
    const [pre, head, cond, thenB, elseB, join, latch, exit] = b;
    const i = fn.newReg('R');
    pre.append(new Instr('MOV', { defs: [reg(i)], uses: [imm(0)] }));
    const x = fn.newReg('R');
    head.append(new Instr('IADD3', { defs: [reg(x)], uses: [reg(carry), reg(i), RZ] }));
    const p = fn.newReg('P');
    cond.append(new Instr('ISETP', { mods: ['LT', 'AND'], defs: [reg(p)], uses: [reg(x), reg(tid), PT] }));
    cond.append(new Instr('BRA', { guard: { reg: p, not: false }, uses: [label(elseB)] }));
    const y = fn.newReg('R');
    thenB.append(new Instr('IADD3', { defs: [reg(y)], uses: [reg(x), imm(u), RZ] }));
    thenB.append(new Instr('BRA', { uses: [label(join)] }));
    elseB.append(new Instr('IADD3', { defs: [reg(y)], uses: [reg(x), reg(tid), RZ] }));
    const z = fn.newReg('R');
    join.append(new Instr('IADD3', { defs: [reg(z)], uses: [reg(y), reg(carry), RZ] }));
    latch.append(new Instr('IADD3', { defs: [reg(i)], uses: [reg(i), imm(1), RZ] }));
    const q = fn.newReg('P');
    latch.append(new Instr('ISETP', { mods: ['LT', 'AND'], defs: [reg(q)], uses: [reg(i), imm(4), PT] }));
    latch.append(new Instr('BRA', { guard: { reg: q, not: false }, uses: [label(head)] }));
    const c2 = fn.newReg('R');
    exit.append(new Instr('IADD3', { defs: [reg(c2)], uses: [reg(z), reg(carry), RZ] }));
    carry = c2;
  }
  fn.createBlock().append(new Instr('EXIT'));
  return fn;
}

const PHASES = ['cfg', 'rpo', 'dominators', 'postDominators', 'loops', 'liveness'];

/**
 * Milliseconds (of `clock`) per run of every analysis on `fn`, each measured after a full GC (the CFG is
 * rebuilt from scratch each time). `inner[name]` runs are timed together and averaged, so that a sample
 * lasts long enough (--min-ms) for timer, GC and scheduling noise to stay small against it.
 */
function measure(fn, inner = {}) {
  const ms = {};
  const time = (name, f) => {
    const n = inner[name] ?? 1;
    gc();
    const t = now();
    let v;
    for (let k = 0; k < n; k++) v = f();
    ms[name] = (now() - t) / n;
    return v;
  };
  time('cfg', () => {
    fn._cfgChanged();
    fn._ensureCfg();
  });
  time('rpo', () => computeRpo(fn));
  const dom = time('dominators', () => computeDominators(fn));
  time('postDominators', () => computePostDominators(fn));
  time('loops', () => computeLoops(fn, dom));
  time('liveness', () => computeLiveness(fn));
  ms.total = PHASES.reduce((s, p) => s + ms[p], 0);
  return ms;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};

const fns = sizes.map((n) => generate(n));
const minMs = Number(arg('--min-ms', '100'));
let last = [];
for (let w = 0; w < warmup; w++) last = fns.map((fn) => measure(fn));
// Runs per sample, per size and analysis, from the last warm-up round.
const inners = last.map((ms) => Object.fromEntries(PHASES.map((p) => [p, Math.max(1, Math.ceil(minMs / Math.max(ms[p], 0.01)))])));
/** samples[size index][round] = ms per analysis */
const samples = sizes.map(() => []);
for (let r = 0; r < rounds; r++) {
  for (let j = 0; j < sizes.length; j++) {
    const k = (j + r) % sizes.length;
    samples[k].push(measure(fns[k], inners[k]));
  }
}

const ROWS = [...PHASES, 'total'];
console.log(`# kernel analyses scaling — ${new Date().toISOString()}, node ${process.version}, ${os.cpus()[0]?.model?.trim() ?? '?'} x${os.cpus().length}, load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
console.log(`# ${warmup} warm-up rounds, ${rounds} measured rounds of samples >= ${minMs} ms (an analysis repeated as often as needed) (sizes rotated per round, full GC before each measurement: ${typeof globalThis.gc === 'function' ? 'yes' : 'no, run with node --expose-gc'})`);
console.log(`# clock: ${clock === 'wall' ? 'wall time' : 'process CPU time (user + system)'}; cells: median ms; "×" columns: median over rounds of time(2n)/time(n) for that doubling; goal <= 2.3`);
const sizeCols = fns.map((fn) => `${fn.blocks.length} blocks / ${fn.registers.length} regs`);
const stepCols = sizes.slice(1).map((n, k) => `× ${sizes[k] / 1000}k→${n / 1000}k`);
console.log(['| analysis', ...sizeCols, ...stepCols, 'worst step |'].join(' | '));
console.log(`|---|${'---:|'.repeat(sizeCols.length + stepCols.length + 1)}`);
let worstAll = 0;
for (const p of ROWS) {
  const med = samples.map((ss) => median(ss.map((s) => s[p])));
  const steps = sizes.slice(1).map((_, k) => median(samples[k + 1].map((s, r) => s[p] / Math.max(samples[k][r][p], 0.01))));
  const worst = Math.max(...steps);
  if (p === 'total') worstAll = worst;
  console.log(`| ${p} | ${med.map((m) => m.toFixed(1)).join(' | ')} | ${steps.map((x) => `${x.toFixed(2)}×`).join(' | ')} | ${worst.toFixed(2)}× |`);
}
console.log(`# total: worst step ${worstAll.toFixed(2)}× per doubling (${worstAll <= 2.3 ? 'within' : 'ABOVE'} the 2.3× goal)`);
