#!/usr/bin/env node
/**
 * `pnpm -s fuzz-ptx --count N [--seed S]`: a PTX-level fuzzer with ptxas as the oracle (issue #16).
 * Inputs are generated kernels and mutants of corpus files; each is compiled by ptxforge (full default
 * pipeline, -O3, sm_90, in a worker with a time limit) and by the installed `ptxas -arch=sm_90`. Prints
 * `N inputs, A agree, FA false accepts, FR false rejects, C crashes`, then the failure signatures.
 * A crash is a stack trace, a hang, or an error without a code and a file:line:col. Without ptxas only
 * crashes count. `--fixtures-dir DIR` writes minimised failures as fixtures.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { Command, CommanderError } from 'commander';
import { fuzzPtxSummaryLines, runFuzzPtx, type CorpusFile } from './fuzz-ptx/driver.js';
import { PtxasOracle, type OurVerdict } from './fuzz-ptx/verdict.js';

const program = new Command('fuzz-ptx')
  .option('--count <N>', 'number of inputs', '100')
  .option('--seed <S>', 'seed of the run (input k is a function of seed and k)', '1')
  .option('--arch <sm>', 'target of both compilers', 'sm_90')
  .option('--corpus <dir>', 'PTX files to mutate (repeatable; default ../shared/corpus and the front end fixtures when present)', (v: string, p: string[]) => [...p, v], [] as string[])
  .option('--max-size <bytes>', 'skip corpus files larger than this', '40000')
  .option('--timeout-ms <ms>', 'a ptxforge compile taking longer is a hang', '10000')
  .option('--no-ptxas', 'do not run ptxas (only crashes count)')
  .option('--minimize <N>', 'minimise the first example of the N most frequent failure signatures', '10')
  .option('--fixtures-dir <dir>', 'write the minimised failures here as fixtures')
  .option('--unmutated', 'check each corpus file once, as it is (the accepting side: false rejects)')
  .option('-v, --verbose', 'print one line per failing input')
  .option('--progress <N>', 'print the running counts to stderr every N inputs (0: never)', '0')
  .exitOverride();
try {
  program.parse(process.argv.slice(2), { from: 'user' });
} catch (e) {
  if (e instanceof CommanderError) process.exit(e.exitCode);
  throw e;
}
const o = program.opts<{ count: string; seed: string; arch: string; corpus: string[]; maxSize: string; timeoutMs: string; ptxas: boolean; minimize: string; fixturesDir?: string; verbose?: boolean; unmutated?: boolean; progress: string }>();
const progressEvery = Number(o.progress);
const running = { n: 0, agree: 0, 'false-accept': 0, 'false-reject': 0, crash: 0 };
const count = Number(o.count);
const seed = Number(o.seed);
if (!Number.isInteger(count) || count < 0 || !Number.isInteger(seed)) {
  process.stderr.write('fuzz-ptx: error FUZZ_OPTION: --count and --seed take integers\n');
  process.exit(2);
}

const repo = path.resolve(import.meta.dirname, '../../..');
function listPtx(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) listPtx(p, out);
    else if (e.name.endsWith('.ptx')) out.push(p);
  }
  return out;
}
const dirs = o.corpus.length ? o.corpus : [path.join(repo, '../shared/corpus'), path.join(repo, 'packages/ptx/test/fixtures/kernels')];
const corpus: CorpusFile[] = [];
for (const d of dirs) {
  let files: string[] = [];
  try {
    files = listPtx(d);
  } catch {
    continue;
  }
  for (const f of files) if (statSync(f).size <= Number(o.maxSize)) corpus.push({ name: path.relative(d, f), text: readFileSync(f, 'utf8') });
}

/** ptxforge in a worker thread: a compile that passes the time limit is a hang (the worker is replaced). */
class CompileWorker {
  private worker!: Worker;
  private ready!: Promise<void>;
  private next = 0;
  private pending: { id: number; resolve: (v: OurVerdict) => void } | undefined;
  constructor(private readonly arch: string, private readonly timeoutMs: number) {
    this.start();
  }
  private start(): void {
    this.worker = new Worker(new URL('./fuzz-ptx-worker.js', import.meta.url));
    this.ready = new Promise((resolve, reject) => {
      this.worker.once('error', reject);
      this.worker.on('message', (m: { ready?: boolean; id?: number; verdict?: OurVerdict }) => {
        if (m.ready) return resolve();
        if (this.pending && m.id === this.pending.id) {
          const p = this.pending;
          this.pending = undefined;
          p.resolve(m.verdict!);
        }
      });
    });
    this.worker.on('error', (e) => {
      const p = this.pending;
      this.pending = undefined;
      p?.resolve({ kind: 'crash', message: `worker died: ${String(e?.stack ?? e).split('\n').slice(0, 4).join('\n')}` });
      this.worker.removeAllListeners();
      this.start();
    });
  }
  async compile(text: string): Promise<OurVerdict> {
    await this.ready;
    const id = this.next++;
    return new Promise<OurVerdict>((resolve) => {
      const timer = setTimeout(() => {
        if (this.pending?.id !== id) return;
        this.pending = undefined;
        void this.worker.terminate();
        this.worker.removeAllListeners();
        this.start();
        resolve({ kind: 'crash', hang: true, message: `no verdict within ${this.timeoutMs} ms` });
      }, this.timeoutMs);
      this.pending = { id, resolve: (v) => (clearTimeout(timer), resolve(v)) };
      this.worker.postMessage({ id, text, arch: this.arch });
    });
  }
  async close(): Promise<void> {
    await this.worker.terminate();
  }
}

const ptxasPath = o.ptxas ? PtxasOracle.find() : undefined;
const oracle = ptxasPath ? new PtxasOracle(ptxasPath, o.arch) : undefined;
const worker = new CompileWorker(o.arch, Number(o.timeoutMs));
try {
  const summary = await runFuzzPtx({
    count,
    seed,
    corpus,
    compile: (t) => worker.compile(t),
    ...(oracle ? { oracle: (t: string) => oracle.verdict(t) } : {}),
    minimize: Number(o.minimize),
    unmutated: !!o.unmutated,
    ...(o.fixturesDir ? { fixturesDir: o.fixturesDir } : {}),
    onCase: (c) => {
      running.n++;
      running[c.outcome]++;
      if (progressEvery > 0 && running.n % progressEvery === 0) {
        process.stderr.write(`after ${running.n}: ${running.agree} agree, ${running['false-accept']} false accepts, ${running['false-reject']} false rejects, ${running.crash} crashes (${new Date().toISOString().slice(11, 19)}Z)\n`);
      }
      if (o.verbose && c.outcome !== 'agree') {
        const ours = c.ours.kind === 'accept' ? 'accepted' : c.ours.kind === 'reject' ? `${c.ours.code} ${c.ours.message}` : c.ours.message.split('\n')[0];
        const theirs = c.theirs ? (c.theirs.kind === 'accept' ? 'accepted' : c.theirs.message) : '-';
        process.stdout.write(`input ${c.input.index} (${c.input.origin}): ${c.outcome}; ptxforge: ${ours}; ptxas: ${theirs}\n`);
      }
    },
  });
  for (const line of fuzzPtxSummaryLines(summary)) process.stdout.write(`${line}\n`);
  process.exitCode = summary.crashes || summary.falseAccepts || summary.falseRejects ? 1 : 0;
} finally {
  await worker.close();
  oracle?.dispose();
}
