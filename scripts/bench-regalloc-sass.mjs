#!/usr/bin/env node
// Registers of the SASS path (@ptxforge/codegen, which allocates with @ptxforge/regalloc) beside ptxas -O3 on the
// corpus, sm_90 (issue 12 target: <= 1.3x, geomean). Kernels codegen rejects are counted by error code.
// Usage: pnpm turbo run build --filter=@ptxforge/codegen... --filter=@ptxforge/ptx --filter=@ptxforge/plugin-core
//        --filter=@ptxforge/target-sm90 && node scripts/bench-regalloc-sass.mjs [max files]
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import os from 'node:os';
const W = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const corpus = path.resolve(W, '../shared/corpus');
if (!fs.existsSync(corpus) || spawnSync('ptxas', ['--version']).status !== 0) {
  console.log('bench-regalloc-sass: needs ../shared/corpus and ptxas; skipped');
  process.exit(0);
}
const { createToolchain } = await import(`${W}/packages/kernel/dist/index.js`);
const core = (await import(`${W}/plugins/core/dist/index.js`)).default;
const { ptxFrontendPlugin } = await import(`${W}/packages/ptx/dist/index.js`);
const { targetSm90Plugin } = await import(`${W}/targets/sm90/dist/index.js`);
const { compileToCubin } = await import(`${W}/packages/codegen/dist/index.js`);
const tc = createToolchain({ plugins: [core, ptxFrontendPlugin, targetSm90Plugin] });
const files = [];
const walk = (d) => { for (const e of fs.readdirSync(d, { withFileTypes: true })) { const p = path.join(d, e.name); if (e.isDirectory()) walk(p); else if (p.endsWith('.ptx')) files.push(p); } };
walk(corpus);
files.sort();
const rows = []; const errs = {};
for (const f of files.slice(0, Number(process.argv[2] || 1e9))) {
  const src = fs.readFileSync(f, 'utf8');
  let r;
  try { r = compileToCubin(tc, src, { arch: 'sm_90', file: f }); } catch (e) { errs[e.code ?? 'other'] = (errs[e.code ?? 'other'] ?? 0) + 1; continue; }
  const p = spawnSync('ptxas', ['-arch=sm_90', '-O3', '-v', f, '-o', path.join(os.tmpdir(), 'bench-regalloc-sass.cubin')], { encoding: 'utf8' });
  const text = p.stdout + p.stderr; const used = new Map(); let cur;
  for (const line of text.split('\n')) { const m = /Compiling entry function '([^']+)'/.exec(line) ?? /Function properties for (\S+)/.exec(line); if (m) cur = m[1]; const u = /Used (\d+) registers/.exec(line); if (u && cur) used.set(cur, +u[1]); }
  for (const k of r.kernels) if (used.has(k.name)) rows.push({ f: path.relative(corpus, f), k: k.name, ours: k.registers, ptxas: used.get(k.name), spills: k.spillStores, instrs: k.instructions });
}
const geo = (xs) => Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);
console.log(`# registers of @ptxforge/codegen cubins (regalloc inside) vs ptxas -O3, sm_90, ${new Date().toISOString().slice(0, 10)}, node ${process.version}`);
console.log('kernels', rows.length, 'codegen errors by code', JSON.stringify(errs));
console.log('registers ours/ptxas geomean', geo(rows.map((r) => r.ours / r.ptxas)).toFixed(3), 'spilling', rows.filter((r) => r.spills).length);
for (const r of rows.sort((a, b) => b.ours / b.ptxas - a.ours / a.ptxas).slice(0, 12)) console.log(r.f, r.k, r.instrs, 'ptxas', r.ptxas, 'ours', r.ours);
