#!/usr/bin/env node
// `pnpm -s sass-roundtrip [--arch sm_90,...] [--verbose]`: compile every PTX of ../shared/corpus that ptxas
// accepts for each arch, decode every word of every .text section of the cubins and re-encode it, and print one
// line per arch: `sm_90: N words, K known, R identical`. Cubins are cached in .cache/sass-roundtrip/ (keyed by
// the ptxas version, the arch and the PTX's content), so only the first run pays for ptxas. Skips cleanly (exit 0,
// a note on stderr) when ptxas or ../shared/corpus is missing.
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const corpus = path.resolve(repo, '../shared/corpus');
const ARCHS = ['sm_75', 'sm_80', 'sm_86', 'sm_89', 'sm_90', 'sm_100', 'sm_120'];

const args = process.argv.slice(2);
const verbose = args.includes('--verbose');
const k = args.indexOf('--arch');
const archs = k >= 0 ? (args[k + 1] ?? '').split(',').filter(Boolean) : ARCHS;
const jobs = Math.max(1, Number(process.env.SASS_ROUNDTRIP_JOBS ?? 2));

let ptxasVersion;
try {
  ptxasVersion = execFileSync('ptxas', ['--version'], { encoding: 'utf8' });
} catch {
  console.error('sass-roundtrip: skipped: ptxas is not on PATH');
  process.exit(0);
}
if (!existsSync(corpus)) {
  console.error(`sass-roundtrip: skipped: ${corpus} is missing`);
  process.exit(0);
}
const { pathToFileURL } = await import('node:url');
const { readCubin } = await import(pathToFileURL(path.join(repo, 'packages/cubin/dist/index.js')).href);
const { roundtripCubin, roundtripLine, registerFamilyCodecs } = await import(pathToFileURL(path.join(repo, 'apps/dis/dist/index.js')).href);
registerFamilyCodecs();

function ptxFiles(dir) {
  const out = [];
  const walk = (d) => {
    for (const e of readdirSync(d).sort()) {
      const p = path.join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (e.endsWith('.ptx')) out.push(p);
    }
  };
  walk(dir);
  return out;
}

const versionKey = createHash('sha256').update(ptxasVersion).digest('hex').slice(0, 12);
const cacheRoot = path.join(repo, '.cache', 'sass-roundtrip', versionKey);

/** Cached cubin path for (arch, ptx), compiling it when absent; undefined when ptxas rejects the PTX. */
function compile(arch, ptx) {
  const src = readFileSync(ptx);
  const key = createHash('sha256').update(src).digest('hex').slice(0, 16);
  const dir = path.join(cacheRoot, arch);
  const out = path.join(dir, `${path.relative(corpus, ptx).replaceAll(path.sep, '__')}.${key}.cubin`);
  if (existsSync(out)) return Promise.resolve(out);
  if (existsSync(out + '.rejected')) return Promise.resolve(undefined);
  mkdirSync(dir, { recursive: true });
  return new Promise((resolve) => {
    execFile('ptxas', [`-arch=${arch}`, ptx, '-o', out], { timeout: 120_000 }, (err, _stdout, stderr) => {
      if (err) {
        writeFileSync(out + '.rejected', String(stderr || err.message));
        resolve(undefined);
      } else resolve(out);
    });
  });
}

async function pool(items, n, f) {
  const results = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await f(items[i]);
      }
    }),
  );
  return results;
}

const files = ptxFiles(corpus);
for (const arch of archs) {
  const cubins = (await pool(files, jobs, (f) => compile(arch, f))).filter(Boolean);
  const total = { words: 0, known: 0, identical: 0, unknownByOpcode: new Map() };
  let failed = 0;
  for (const c of cubins) {
    try {
      const r = roundtripCubin(readCubin(readFileSync(c), { file: c }));
      total.words += r.words;
      total.known += r.known;
      total.identical += r.identical;
      for (const [op, n] of r.unknownByOpcode) total.unknownByOpcode.set(op, (total.unknownByOpcode.get(op) ?? 0) + n);
    } catch (e) {
      failed++;
      console.error(`sass-roundtrip: ${c}: ${e.message}`);
    }
  }
  console.log(`${arch}: ${roundtripLine(total)}`);
  if (verbose) {
    console.error(`  ${cubins.length} cubins (${files.length - cubins.length} PTX files rejected by ptxas), ${failed} unreadable`);
    const top = [...total.unknownByOpcode].sort((a, b) => b[1] - a[1]).slice(0, 25);
    for (const [op, n] of top) console.error(`  unknown opcode field 0x${op.toString(16)}: ${n}`);
  }
}
