#!/usr/bin/env node
// Register allocator scaling (issue 12): @ptxforge/regalloc on generated abstract functions of 10k, 20k and
// 50k instructions, with the full register file and under a small budget (spilling). The function is a
// chain of loops around if/else diamonds; each block defines fresh values (mixed widths 1/2/4, copies,
// constants) read within a few blocks, a few values stay live across each loop, so vregs grow with size and
// pressure stays realistic (the case that makes an N² interference matrix or dense liveness quadratic).
// Usage: pnpm --filter @ptxforge/regalloc... build && node scripts/bench-regalloc.mjs [--sizes 10000,20000,50000] [--reps 3]
import os from 'node:os';
const { allocateRegisters, verifyAllocation, schedulePreRA, schedulePostRA, schedLatencyFromTable } = await import('../packages/regalloc/dist/index.js');

const argv = process.argv.slice(2);
const arg = (n, d) => {
  const k = argv.indexOf(n);
  return k >= 0 ? argv[k + 1] : d;
};
const sizes = arg('--sizes', '10000,20000,50000').split(',').map(Number);
const reps = Number(arg('--reps', '3'));

const CLASSES = [
  { cls: 'R', count: 255, zero: 255, alignment: { 2: 2, 4: 4 } },
  { cls: 'P', count: 7, zero: 7, alignment: {} },
  { cls: 'UR', count: 63, zero: 63, alignment: { 2: 2, 4: 4 } },
];

/** Deterministic LCG. */
function rng(seed) {
  let s = seed >>> 0;
  return (n) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % n;
  };
}

function generate(nInstr) {
  const r = rng(nInstr);
  const vregs = [];
  const blocks = [];
  const newV = (cls, width) => (vregs.push({ cls, width }), vregs.length - 1);
  const recent = []; // values readable now
  const carried = [];
  for (let k = 0; k < 6; k++) carried.push(newV('R', 1));
  blocks.push({ succs: [1], instrs: carried.map((v) => ({ defs: [v], uses: [] })) });
  let count = carried.length;
  const emitBlock = (n, succs) => {
    const instrs = [];
    for (let k = 0; k < n; k++) {
      const kind = r(10);
      const uses = [];
      for (let j = 0, m = 1 + r(3); j < m && recent.length; j++) uses.push(recent[recent.length - 1 - r(Math.min(recent.length, 24))]);
      if (r(4) === 0) uses.push(carried[r(carried.length)]);
      let ins;
      if (kind === 0) {
        ins = { defs: [newV('R', 1)], uses: [], rematerializable: true };
      } else if (kind === 1 && recent.length) {
        const s = recent[recent.length - 1 - r(Math.min(recent.length, 8))];
        ins = { defs: [newV(vregs[s].cls, vregs[s].width)], uses: [s], copy: true };
      } else if (kind === 2) {
        ins = { defs: [newV('R', 2)], uses };
      } else if (kind === 3 && r(3) === 0) {
        ins = { defs: [newV('R', 4)], uses };
      } else if (kind === 4) {
        ins = { defs: [newV('P', 1)], uses: uses.filter((u) => vregs[u].cls === 'R') };
      } else {
        ins = { defs: [newV('R', 1)], uses };
      }
      ins.uses = ins.uses.filter((u) => vregs[u].cls === 'R' || ins.copy);
      if (!ins.copy && r(6) === 0) Object.assign(ins, { op: { opcode: 'LD' }, memory: 'load', memorySpace: 'global' });
      else ins.op = { opcode: 'OP' };
      instrs.push(ins);
      if (vregs[ins.defs[0]].cls === 'R') recent.push(ins.defs[0]);
      if (recent.length > 64) recent.splice(0, recent.length - 64);
    }
    // loop-carried update
    const c = r(carried.length);
    instrs.push({ defs: [carried[c]], uses: [carried[c], ...(recent.length ? [recent[recent.length - 1]] : [])] });
    count += instrs.length;
    blocks.push({ succs, instrs });
  };
  while (count < nInstr) {
    const b = blocks.length; // pre, head, then, else, join/latch, exit
    emitBlock(4, [b + 1]);
    emitBlock(6, [b + 2, b + 3]);
    const atBranch = recent.slice();
    emitBlock(5, [b + 4]);
    // the else side reads only what the branch point had (values of the then side are not defined there)
    recent.length = 0;
    recent.push(...atBranch);
    emitBlock(5, [b + 4]);
    recent.length = 0;
    recent.push(...atBranch);
    emitBlock(4, [b + 1, b + 5]);
    emitBlock(2, [b + 6]);
  }
  blocks[blocks.length - 1].succs = [];
  blocks.push({ succs: [], instrs: [{ defs: [], uses: carried }] });
  blocks[blocks.length - 2].succs = [blocks.length - 1];
  return { vregs, blocks, instrs: count + 1 };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = [];
for (const n of sizes) {
  const fn = generate(n);
  for (const [label, budget] of [['full', undefined], ['budget 24', { R: 24 }]]) {
    const opts = { classes: CLASSES, ...(budget ? { budget } : {}) };
    const times = [];
    let res;
    for (let k = 0; k < reps; k++) {
      // CPU time of this process (user + system): the shared machine's load inflates wall time unevenly
      const c0 = process.cpuUsage();
      res = allocateRegisters(fn, opts);
      const c = process.cpuUsage(c0);
      times.push((c.user + c.system) / 1000);
    }
    const bad = verifyAllocation(res, opts).length;
    // the schedulers on the same function: pre-RA on the input, post-RA on the allocation
    const lat = schedLatencyFromTable({ LD: 200, OP: 4 }, 4);
    const c0 = process.cpuUsage();
    const pre = schedulePreRA(fn, { latency: lat, pressureLimit: { R: budget?.R ?? 64 } });
    const c1 = process.cpuUsage(c0);
    const post = schedulePostRA(res, { latency: lat });
    const c2 = process.cpuUsage(c0);
    const preMs = (c1.user + c1.system) / 1000;
    const postMs = (c2.user + c2.system) / 1000 - preMs;
    rows.push({ n: fn.instrs, vregs: fn.vregs.length, label, ms: median(times), used: res.usage.R.used, s: res.stats, bad, preMs, postMs, pre: pre.stats, post: post.stats });
  }
}
console.log(`# regalloc scaling, ${new Date().toISOString().slice(0, 10)}, ${os.cpus()[0]?.model ?? '?'} x${os.cpus().length}, node ${process.version}, load ${os.loadavg()[0].toFixed(1)}, median of ${reps}, CPU ms`);
console.log('| instructions | vregs | budget | RA CPU ms | R used | edges | coalesced copies | spilled / remat vregs | spill stores / loads | rounds | violations | pre-RA sched ms | post-RA sched ms |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const x of rows) {
  console.log(`| ${x.n} | ${x.vregs} | ${x.label} | ${x.ms.toFixed(0)} | ${x.used} | ${x.s.interferenceEdges} | ${x.s.coalescedCopies}/${x.s.copies} | ${x.s.spilledVregs} / ${x.s.rematerializedVregs} | ${x.s.spillStores} / ${x.s.spillLoads} | ${x.s.rounds} | ${x.bad} | ${x.preMs.toFixed(0)} | ${x.postMs.toFixed(0)} |`);
}
