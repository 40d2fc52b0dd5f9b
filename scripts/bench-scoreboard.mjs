#!/usr/bin/env node
// `pnpm -s bench:scoreboard [--arch sm_90,...]`: the scoreboard generator on ptxas's own code. For every PTX of
// ../shared/corpus that ptxas accepts, per arch: decode the cubin, throw its control bits away, generate ours
// (@ptxforge/sass-scoreboard), and check both with the hazard checker. Prints per arch: functions, instructions,
// hazards in ptxas's code and in ours, stall cycles (sum of stall counts) of both and their ratio, instructions
// that wait, and generation speed. Cubins are shared with `pnpm -s sass-roundtrip` (.cache/sass-roundtrip/).
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ptxasCorpus } from './lib/ptxas-corpus.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ARCHS = ['sm_75', 'sm_80', 'sm_86', 'sm_89', 'sm_90'];

const args = process.argv.slice(2);
const verbose = args.includes('--verbose');
const k = args.indexOf('--arch');
const archs = k >= 0 ? (args[k + 1] ?? '').split(',').filter(Boolean) : ARCHS;

const { cubinsFor } = ptxasCorpus(repo, 'bench:scoreboard');
const { pathToFileURL } = await import('node:url');
const { readCubin } = await import(pathToFileURL(path.join(repo, 'packages/cubin/dist/index.js')).href);
const { hazardFunctionsOf, registerFamilyCodecs } = await import(pathToFileURL(path.join(repo, 'apps/dis/dist/index.js')).href);
const { checkHazards } = await import(pathToFileURL(path.join(repo, 'packages/sass-hazards/dist/index.js')).href);
const { generateScoreboards, stallCycles } = await import(pathToFileURL(path.join(repo, 'packages/sass-scoreboard/dist/index.js')).href);
registerFamilyCodecs();

const blank = { stall: 0, yield: false, wbar: null, rbar: null, waitMask: 0, reuse: 0 };
console.log(`# bench:scoreboard, ${new Date().toISOString()}, ${os.cpus()[0]?.model ?? '?'} x${os.cpus().length}, node ${process.version}, load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
console.log('| arch | functions | instructions | ptxas hazards | our hazards | stall cycles ptxas | ours | ours/ptxas | waits ptxas | ours | generation |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const arch of archs) {
  const cubins = await cubinsFor(arch);
  const t = { fns: 0, instrs: 0, theirHaz: 0, ourHaz: 0, theirStall: 0, ourStall: 0, theirWaits: 0, ourWaits: 0, ms: 0, failed: 0 };
  const worst = [];
  for (const c of cubins) {
    let fns;
    try {
      fns = hazardFunctionsOf(readCubin(readFileSync(c), { file: c })).fns;
    } catch (e) {
      t.failed++;
      continue;
    }
    for (const fn of fns) {
      t.fns++;
      t.instrs += fn.instrs.length;
      t.theirHaz += checkHazards(fn, { arch }).hazards.length;
      t.theirStall += stallCycles(fn.instrs.map((i) => i.control));
      t.theirWaits += fn.instrs.filter((i) => i.control.waitMask !== 0).length;
      const t0 = performance.now();
      const r = generateScoreboards({ ...fn, instrs: fn.instrs.map((i) => ({ ...i, control: { ...blank } })) }, { arch });
      t.ms += performance.now() - t0;
      t.ourHaz += r.unresolved.length;
      t.ourStall += r.stallCycles;
      t.ourWaits += r.waits;
      if (r.unresolved.length) worst.push(`${path.basename(c)} ${fn.name}: ${r.unresolved[0].kind} ${r.unresolved[0].reg} @0x${r.unresolved[0].addr.toString(16)} ${r.unresolved[0].missing}`);
    }
  }
  const rate = t.ms > 0 ? `${Math.round(t.instrs / (t.ms / 1000) / 1000)}k instr/s` : '-';
  console.log(`| ${arch} | ${t.fns} | ${t.instrs} | ${t.theirHaz} | ${t.ourHaz} | ${t.theirStall} | ${t.ourStall} | ${(t.ourStall / t.theirStall).toFixed(2)} | ${t.theirWaits} | ${t.ourWaits} | ${rate} |`);
  for (const w of worst.slice(0, 5)) console.error(`  ${arch} unresolved: ${w}`);
  if (t.failed) console.error(`  ${arch}: ${t.failed} cubins not decodable`);
}
