/**
 * The corpus cubins of the installed ptxas, shared by `pnpm -s sass-roundtrip` and `pnpm -s bench:scoreboard`:
 * every PTX of ../shared/corpus compiled per arch, cached in .cache/sass-roundtrip/ (keyed by the ptxas version,
 * the arch and the PTX's content), so only the first run pays for ptxas. Exits the process cleanly (0, a note on
 * stderr naming the tool) when ptxas or the corpus is missing.
 */
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

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


/** Cached cubin path for (arch, ptx), compiling it when absent; undefined when ptxas rejects the PTX. */
function compile(cacheRoot, corpus, arch, ptx) {
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

/**
 * `{ files, cubinsFor(arch) }`: the corpus PTX files and, per arch, the cached cubin paths of those ptxas accepts
 * (compiled on `jobs` processes, env SASS_ROUNDTRIP_JOBS, default 2).
 */
export function ptxasCorpus(repo, tool) {
  const corpus = path.resolve(repo, '../shared/corpus');
  let ptxasVersion;
  try {
    ptxasVersion = execFileSync('ptxas', ['--version'], { encoding: 'utf8' });
  } catch {
    console.error(`${tool}: skipped: ptxas is not on PATH`);
    process.exit(0);
  }
  if (!existsSync(corpus)) {
    console.error(`${tool}: skipped: ${corpus} is missing`);
    process.exit(0);
  }
  const versionKey = createHash('sha256').update(ptxasVersion).digest('hex').slice(0, 12);
  const cacheRoot = path.join(repo, '.cache', 'sass-roundtrip', versionKey);
  const jobs = Math.max(1, Number(process.env.SASS_ROUNDTRIP_JOBS ?? 2));
  const files = ptxFiles(corpus);
  const cubinsFor = async (arch) => (await pool(files, jobs, (f) => compile(cacheRoot, corpus, arch, f))).filter(Boolean);
  return { files, cubinsFor };
}
