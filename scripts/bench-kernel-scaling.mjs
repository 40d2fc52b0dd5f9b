#!/usr/bin/env node
// Kernel analyses on one big function: CFG edges, reverse postorder, dominators, post-dominators, natural
// loops and register liveness on a generated Ori function of 8k, 16k and 32k blocks (issue 9 acceptance:
// time grows <= 2.3x per doubling). The function is a chain of nested loops and if/else diamonds; every
// block defines fresh registers and reads values from earlier blocks, so registers grow with blocks
// (the case that makes dense per-block bitsets quadratic).
// Usage: pnpm build && node scripts/bench-kernel-scaling.mjs [--sizes 8000,16000,32000] [--reps 3]
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
const sizes = arg('--sizes', '8000,16000,32000').split(',').map(Number);
const reps = Number(arg('--reps', '3'));

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

const time = (f) => {
  const t = process.hrtime.bigint();
  const v = f();
  return [Number(process.hrtime.bigint() - t) / 1e6, v];
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const PHASES = ['cfg', 'rpo', 'dominators', 'postDominators', 'loops', 'liveness'];
const results = [];
for (const n of sizes) {
  const per = Object.fromEntries(PHASES.map((p) => [p, []]));
  let blocks = 0;
  let regs = 0;
  for (let r = 0; r < reps; r++) {
    const fn = generate(n);
    blocks = fn.blocks.length;
    regs = fn.registers.length;
    fn._cfgChanged();
    per.cfg.push(time(() => fn._ensureCfg())[0]);
    per.rpo.push(time(() => computeRpo(fn))[0]);
    const [td, dom] = time(() => computeDominators(fn));
    per.dominators.push(td);
    per.postDominators.push(time(() => computePostDominators(fn))[0]);
    per.loops.push(time(() => computeLoops(fn, dom))[0]);
    per.liveness.push(time(() => computeLiveness(fn))[0]);
  }
  results.push({ n, blocks, regs, ms: Object.fromEntries(PHASES.map((p) => [p, median(per[p])])) });
}

console.log(`# kernel analyses scaling — ${new Date().toISOString().slice(0, 10)}, node ${process.version}, ${os.cpus()[0]?.model ?? '?'} x${os.cpus().length}, load ${os.loadavg()[0].toFixed(1)}`);
console.log(`# median of ${reps} runs, milliseconds; growth = time(size) / time(previous size), goal <= 2.3`);
console.log(['| analysis', ...results.map((r) => `${r.blocks} blocks / ${r.regs} regs`), 'worst growth |'].join(' | '));
console.log(`|${'---|'.repeat(results.length + 2)}`);
let worstAll = 0;
for (const p of [...PHASES, 'total']) {
  const ms = results.map((r) => (p === 'total' ? PHASES.reduce((s, q) => s + r.ms[q], 0) : r.ms[p]));
  let worst = 0;
  for (let k = 1; k < ms.length; k++) worst = Math.max(worst, ms[k] / Math.max(ms[k - 1], 0.05));
  if (p === 'total') worstAll = worst;
  console.log(`| ${p} | ${ms.map((m) => m.toFixed(1)).join(' | ')} | ${worst.toFixed(2)}x |`);
}
console.log(`# total worst growth per doubling: ${worstAll.toFixed(2)}x (${worstAll <= 2.3 ? 'within' : 'ABOVE'} the 2.3x goal)`);
