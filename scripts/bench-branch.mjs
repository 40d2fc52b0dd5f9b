#!/usr/bin/env node
// Branch & switch family (issue 13) on the switch / nested-condition kernels: static and dynamic branch
// counts and divergence points (the interpreter's divergent-branch count) with the family off and on
// (sm_90 -O3), the switch strategies chosen, and the machine code: BRA/BRX in our cubin (code generation
// included) beside `ptxas -arch=sm_90 -O3`'s on the same PTX (opcode field of each 128-bit instruction: 0x947
// BRA, 0x949 BRX; both append one `BRA` to itself after the last EXIT, counted on both sides), and the
// branches each cubin executes (its SASS lifted and run in the interpreter with the same launch).
// Usage: pnpm -s bench:branch [fixtures-dir]   (build first: pnpm build)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cubinOpcodeCounts } from './lib/cubin-branches.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = process.argv[2] ?? path.join(root, 'plugins/branch/test/fixtures/switch');
const distPlugins = path.join(root, 'apps/ptxforge/dist/plugins.js');
if (!existsSync(distPlugins)) {
  console.error('build first: pnpm build');
  process.exit(1);
}
const { createToolchain } = await import(path.join(root, 'packages/kernel/dist/index.js'));
const { runKernel } = await import(path.join(root, 'packages/interp/dist/index.js'));
const { loadDefaultPlugins } = await import(distPlugins);
const { cubinOfModule } = await import(path.join(root, 'packages/codegen/dist/index.js'));
const { runCubin } = await import(path.join(root, 'packages/sass-lift/dist/index.js'));
const tc = createToolchain({ plugins: await loadDefaultPlugins() });
const tmp = mkdtempSync(path.join(os.tmpdir(), 'bench-branch-'));

/** The family's phases (isPassDisabled is a substring test): 14's handler, 15, 30, 38, 133/136. */
const FAMILY_OFF = 'DoSwitchOptFirst,OriBranchOpt,DoSwitchOptSecond,OptimizeNestedCondBranches,MergeEquivalentConditionalFlow';

function compile(ptx, file, off) {
  const r = tc.compile({ text: ptx, file }, { arch: 'sm_90', optLevel: 3, ...(off ? { disablePasses: FAMILY_OFF } : {}) });
  const fn = r.module.functions.find((f) => f.kind === 'entry');
  let branches = 0;
  let branchOnly = 0;
  for (const b of fn.blocks) {
    for (const i of b.instrs) if (i.isBranch) branches++;
    if (b.instrs.length === 1 && b.instrs[0].opcode === 'BRA' && !b.instrs[0].guard) branchOnly++;
  }
  return { module: r.module, branches, branchOnly, remarks: r.remarks };
}

function run(module, launch) {
  const r = runKernel(module, launch);
  if (r.errors.length) throw new Error(r.errors[0].message);
  return { dyn: r.counts.branches, div: r.counts.divergentBranches, out: Buffer.from(r.buffers.out.bytes).toString('hex') };
}

function ptxas(file) {
  const out = path.join(tmp, `${path.basename(path.dirname(file))}.cubin`);
  const r = spawnSync('ptxas', ['-arch=sm_90', '-O3', file, '-o', out], { encoding: 'utf8' });
  if (r.error || r.status !== 0) return undefined;
  return readFileSync(out);
}

/** Branches a cubin executes (lifted SASS in the interpreter), or why not. */
function cubinDynamic(cubin, launch, want) {
  try {
    const r = runCubin(cubin, launch).result;
    if (r.errors.length) return `n/a (${r.errors[0].message.slice(0, 40)})`;
    const out = Buffer.from(r.buffers.out.bytes).toString('hex');
    return out === want ? String(r.counts.branches) : 'n/a (lifted run differs)';
  } catch (e) {
    return `n/a (${e.code ?? 'lift'})`;
  }
}

const cpu = os.cpus()[0]?.model ?? 'unknown cpu';
console.log(`# branch & switch family, sm_90 -O3 (${cpu}, ${new Date().toISOString().slice(0, 10)})`);
console.log('| kernel | Ori branches off → on | dynamic off → on | divergent off → on | switches (strategy: cases) | cubin BRA + BRX: ours / ptxas | cubin dynamic: ours / ptxas |');
console.log('|---|---:|---:|---:|---|---:|---:|');
let sumOurs = 0;
let sumPtxas = 0;
for (const name of readdirSync(dir).sort()) {
  const file = path.join(dir, name, 'kernel.ptx');
  if (!existsSync(file)) continue;
  const ptx = readFileSync(file, 'utf8');
  const launch = JSON.parse(readFileSync(path.join(dir, name, 'launch.json'), 'utf8'));
  const off = compile(ptx, file, true);
  const on = compile(ptx, file, false);
  const a = run(off.module, launch);
  const b = run(on.module, launch);
  if (a.out !== b.out) throw new Error(`${name}: results differ with the branch family on`);
  if (on.branchOnly) throw new Error(`${name}: ${on.branchOnly} block(s) hold only an unconditional branch`);
  const sw = on.remarks
    .filter((r) => r.name === 'SwitchLowered')
    .map((r) => `${r.args.strategy}${r.args.depth ? ` d${r.args.depth}` : ''}: ${r.args.cases}`)
    .join(', ');
  const mine = cubinOfModule(tc, on.module, 'sm_90').cubin;
  const o = cubinOpcodeCounts(mine).get(launch.kernel);
  const pc = ptxas(file);
  const p = pc ? cubinOpcodeCounts(pc).get(launch.kernel) : undefined;
  const ref = p ? `${p.bra} + ${p.brx} = ${p.bra + p.brx}` : 'n/a';
  if (p) {
    sumOurs += o.bra + o.brx;
    sumPtxas += p.bra + p.brx;
  }
  const dyn = `${cubinDynamic(mine, launch, b.out)} / ${pc ? cubinDynamic(pc, launch, b.out) : 'n/a'}`;
  console.log(`| ${name} | ${off.branches} → ${on.branches} | ${a.dyn} → ${b.dyn} | ${a.div} → ${b.div} | ${sw || '–'} | ${o.bra} + ${o.brx} = ${o.bra + o.brx} / ${ref} | ${dyn} |`);
}
console.log(`| total | | | | | ${sumOurs} / ${sumPtxas} | |`);
