// Output-equality check for speed work: compiles a fixed set of PTX files (the repo's bench and fixture
// kernels and every n-th small corpus file) with the built CLI (apps/ptxforge/bin/ptxforge) to cubins and
// to Ori text, and either saves the outputs (and each file's exit status and stderr) as a baseline or
// compares them byte for byte with a saved one.
//   node scripts/same-output.mjs --save /tmp/base        (before a change, on main's build)
//   node scripts/same-output.mjs --compare /tmp/base     (after it; exit 1 and the differing files when any)
// Options: --arch sm_90 (default), --corpus-every N (default 2: every second corpus file under 40 KB),
// --no-corpus, --corpus DIR (default ../shared/corpus, used when present), --bundle (run the ESM bundle instead of the
// launcher's V8 snapshot).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const save = opt('--save');
const compare = opt('--compare');
if (!save === !compare) {
  console.error('usage: node scripts/same-output.mjs --save DIR | --compare DIR [--arch sm_90] [--corpus-every N] [--no-corpus]');
  process.exit(2);
}
const arch = opt('--arch', 'sm_90');
const every = Number(opt('--corpus-every', '2'));

function walk(dir, out = []) {
  for (const e of readdirSync(dir).sort()) {
    const p = path.join(dir, e);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (e.endsWith('.ptx')) out.push(p);
  }
  return out;
}
const files = [];
for (const d of ['bench/compile', 'packages/ptx/test/fixtures/kernels', 'apps/bench-opt/kernels', 'apps/ptxforge/test/fixtures/cuda-kernels']) {
  if (existsSync(path.join(repo, d))) files.push(...walk(path.join(repo, d)));
}
// --corpus DIR (or PTXFORGE_CORPUS) names the corpus elsewhere (a worktree has no ../shared beside it)
const corpus = path.resolve(opt('--corpus', process.env.PTXFORGE_CORPUS ?? path.join(repo, '../shared/corpus')));
if (!args.includes('--no-corpus') && existsSync(corpus)) {
  const small = walk(corpus).filter((f) => statSync(f).size < 40_000);
  files.push(...small.filter((_, i) => i % every === 0));
}

// One flat input folder (batch output names come from the path relative to it).
const work = path.join(os.tmpdir(), `same-output-${process.pid}`);
const input = path.join(work, 'in');
rmSync(work, { recursive: true, force: true });
mkdirSync(input, { recursive: true });
for (const f of files) copyFileSync(f, path.join(input, path.relative(path.dirname(repo), f).replaceAll(path.sep, '__').replace(/^\.\.__/, '')));

// --bundle: run the ESM bundle (no V8 snapshot, nothing warm), e.g. to check the snapshot against it
const cli = args.includes('--bundle') ? process.execPath : path.join(repo, 'apps/ptxforge/bin/ptxforge');
const cliArgs = args.includes('--bundle') ? [path.join(repo, 'apps/ptxforge/dist/bundle/cli.js')] : [];
const out = save ?? path.join(work, 'out');
mkdirSync(out, { recursive: true });
for (const emit of ['cubin', 'ori']) {
  const dir = path.join(out, emit);
  rmSync(dir, { recursive: true, force: true });
  const r = spawnSync(cli, [...cliArgs, '-arch', arch, '-O3', '--no-cache', '--jobs', '1', '--emit', emit, '--output-dir', dir, input], { encoding: 'utf8', maxBuffer: 1 << 28 });
  // Per-file error lines differ only by the temporary input path; keep them relative.
  writeFileSync(path.join(out, `${emit}.status`), `exit ${r.status}\n${(r.stderr ?? '').replaceAll(input + path.sep, '')}`);
}
console.log(`${files.length} inputs, arch ${arch}`);
if (save) {
  console.log(`saved to ${save}`);
} else {
  const diffs = [];
  const list = (d) => (existsSync(d) ? walk2(d) : []);
  function walk2(d, base = d, acc = []) {
    for (const e of readdirSync(d).sort()) {
      const p = path.join(d, e);
      if (statSync(p).isDirectory()) walk2(p, base, acc);
      else acc.push(path.relative(base, p));
    }
    return acc;
  }
  const a = new Set(list(compare));
  const b = new Set(list(out));
  let same = 0;
  for (const f of new Set([...a, ...b])) {
    if (!a.has(f) || !b.has(f)) diffs.push(`${f}: only in ${a.has(f) ? 'baseline' : 'new'}`);
    else if (!readFileSync(path.join(compare, f)).equals(readFileSync(path.join(out, f)))) diffs.push(`${f}: differs`);
    else same++;
  }
  console.log(`${same} output files identical, ${diffs.length} differ`);
  for (const d of diffs) console.log(`  ${d}`);
  if (diffs.length) {
    console.log(`new outputs kept in ${out}`);
    process.exit(1);
  }
}
rmSync(input, { recursive: true, force: true });
if (!save) rmSync(work, { recursive: true, force: true });
