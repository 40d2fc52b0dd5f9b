#!/usr/bin/env node
// `node scripts/compare-nvdisasm.mjs [DIR] [--verbose]`: compare ptxforge-dis with NVIDIA's tools on the cubins a
// GPU session disassembled. DIR (default ../nvdisasm-truth) holds one folder per arch with, for each cubin
// `cubins/<name>.cubin`, the listings `<name>.full.sass` (nvdisasm), `<name>.cuobjdump.sass` (cuobjdump -sass;
// used when there is no .full.sass) and `<name>.elf.txt` (cuobjdump -elf). Prints per arch:
//   sm_90: T of N instructions print nvdisasm's text (X%), M missing; A of B .nv.info attributes agree
// The listings are NVIDIA output: read here, never committed.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const verbose = args.includes('--verbose');
const dir = path.resolve(args.find((a) => !a.startsWith('--')) ?? path.join(repo, '../nvdisasm-truth'));
const { readCubin } = await import(pathToFileURL(path.join(repo, 'packages/cubin/dist/index.js')).href);
const dis = await import(pathToFileURL(path.join(repo, 'apps/dis/dist/index.js')).href);
dis.registerFamilyCodecs();

const archDirs = existsSync(dir) ? readdirSync(dir).filter((d) => /^sm_\d+/.test(d) && statSync(path.join(dir, d)).isDirectory()) : [];
if (!archDirs.length) {
  console.error(`compare-nvdisasm: no listings under ${dir} (a GPU session makes them); nothing compared`);
  process.exit(0);
}
for (const arch of archDirs.sort()) {
  const d = path.join(dir, arch);
  const cubinDir = path.join(d, 'cubins');
  const cubins = existsSync(cubinDir) ? readdirSync(cubinDir).filter((f) => f.endsWith('.cubin')).sort() : [];
  const text = { instructions: 0, identical: 0, missing: 0, byOpcode: new Map(), diffs: [] };
  const attrs = { attributes: 0, sameName: 0, sameValue: 0, diffs: [] };
  let files = 0;
  for (const f of cubins) {
    const base = f.replace(/\.cubin$/, '');
    const sass = [`${base}.full.sass`, `${base}.cuobjdump.sass`].map((x) => path.join(d, x)).find(existsSync);
    const elf = path.join(d, `${base}.elf.txt`);
    let cubin;
    try {
      cubin = readCubin(readFileSync(path.join(cubinDir, f)), { file: f });
    } catch (e) {
      console.error(`${arch}/${f}: ${e.message}`);
      continue;
    }
    files++;
    if (sass) {
      const r = dis.compareText(cubin, dis.parseListing(readFileSync(sass, 'utf8')), { maxDiffs: 5 });
      text.instructions += r.instructions;
      text.identical += r.identical;
      text.missing += r.missing;
      for (const [k, v] of r.byOpcode) text.byOpcode.set(k, (text.byOpcode.get(k) ?? 0) + v);
      for (const x of r.diffs) if (text.diffs.length < 40) text.diffs.push(`${f} ${x.fn} /*${x.addr.toString(16).padStart(4, '0')}*/ ours: ${x.ours} | nvdisasm: ${x.theirs}`);
    }
    if (existsSync(elf)) {
      const r = dis.compareAttributes(cubin, dis.parseElfAttributes(readFileSync(elf, 'utf8')), 5);
      attrs.attributes += r.attributes;
      attrs.sameName += r.sameName;
      attrs.sameValue += r.sameValue;
      for (const x of r.diffs) if (attrs.diffs.length < 40) attrs.diffs.push(`${f} ${x}`);
    }
  }
  const pct = (a, b) => (b ? ((100 * a) / b).toFixed(2) : '0.00');
  console.log(
    `${arch}: ${files} cubins; ${text.identical} of ${text.instructions} instructions print nvdisasm's text (${pct(text.identical, text.instructions)}%), ${text.missing} missing; ` +
      `${attrs.sameValue} of ${attrs.attributes} .nv.info attributes agree (${attrs.sameName} by name)`,
  );
  if (verbose) {
    for (const [op, n] of [...text.byOpcode].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`  mismatches ${op}: ${n}`);
    for (const x of text.diffs) console.log(`  ${x}`);
    for (const x of attrs.diffs) console.log(`  ${x}`);
  }
}
