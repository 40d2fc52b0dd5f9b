#!/usr/bin/env node
/**
 * `node scripts/device/make-cases.mjs [--compiler ours|ptxas] [--arch sm_90] [--out DIR]`: the ZLUDA io cases
 * of ../shared/corpus as cubins plus a manifest (DIR/manifest.json) that scripts/device/run-cubins.py runs on a
 * GPU with the CUDA driver API. `ours` compiles with ptxforge's code generator (@ptxforge/codegen's
 * compileToCubin), `ptxas` with the installed ptxas (the reference the harness itself is checked with).
 * Cases the compiler refuses are listed in the manifest with the reason and count as failures on the device.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : dflt;
};
const compiler = opt('--compiler', 'ours');
const arch = opt('--arch', 'sm_90');
const out = path.resolve(opt('--out', path.join(repo, '.cache/device-cases', `${compiler}-${arch}`)));
const corpus = path.resolve(repo, '../shared/corpus');
if (!existsSync(corpus)) {
  console.error(`make-cases: ${corpus} is missing`);
  process.exit(2);
}
const { readCubin, attributeInfo, decodeAttribute } = await import(path.join(repo, 'packages/cubin/dist/index.js'));

let compile;
if (compiler === 'ptxas') {
  compile = (file, _text, cubinPath) => {
    execFileSync('ptxas', [`-arch=${arch}`, '-O3', file, '-o', cubinPath], { stdio: ['ignore', 'ignore', 'pipe'] });
    return readFileSync(cubinPath);
  };
} else if (compiler === 'ours') {
  let codegen;
  try {
    codegen = await import(path.join(repo, 'packages/codegen/dist/index.js'));
  } catch {
    console.error('make-cases: error NO_BACKEND: packages/codegen is not built (the code-generation backend); use --compiler ptxas or build it');
    process.exit(2);
  }
  const { createToolchain } = await import(path.join(repo, 'packages/kernel/dist/index.js'));
  const { loadDefaultPlugins } = await import(path.join(repo, 'apps/ptxforge/dist/plugins.js'));
  const tc = createToolchain({ plugins: await loadDefaultPlugins() });
  compile = (file, text) => codegen.compileToCubin(tc, text, { arch, optLevel: 3, file }).cubin;
} else {
  console.error(`make-cases: --compiler must be ours or ptxas, not ${compiler}`);
  process.exit(2);
}

mkdirSync(out, { recursive: true });
const cases = JSON.parse(readFileSync(path.join(corpus, 'zluda/cases.json'), 'utf8')).cases;
const manifest = { compiler, arch, cases: [] };
for (const c of cases) {
  if (c.disabled || c.kind !== 'io' || !c.expected) continue;
  const file = path.join(corpus, 'zluda', c.ptx_file);
  const cubinPath = path.join(out, `${c.name}.cubin`);
  const entry = { name: c.name, kernel: c.entry, input: c.inputs?.bytes_hex_le ?? '', expected: c.expected.bytes_hex_le, sharedBytes: 256 };
  try {
    const bytes = compile(file, readFileSync(file, 'utf8'), cubinPath);
    writeFileSync(cubinPath, bytes);
    const fn = readCubin(bytes).functions.find((f) => f.name === c.entry);
    if (!fn) throw new Error(`no kernel ${c.entry} in the cubin`);
    let params = 0;
    for (const r of fn.attributes) {
      if (attributeInfo(r.code).name !== 'EIATTR_KPARAM_INFO') continue;
      const v = decodeAttribute(r);
      if (v.kind === 'kparam') params += v.params.length;
    }
    manifest.cases.push({ ...entry, cubin: path.basename(cubinPath), params });
  } catch (e) {
    manifest.cases.push({ ...entry, error: `${e.code ?? 'error'}: ${String(e.stderr ?? e.message).split('\n')[0]}` });
  }
}
writeFileSync(path.join(out, 'manifest.json'), `${JSON.stringify(manifest, null, 1)}\n`);
const bad = manifest.cases.filter((c) => c.error).length;
console.log(`make-cases: ${manifest.cases.length} io cases, ${manifest.cases.length - bad} cubins, ${bad} refused -> ${out}/manifest.json`);
