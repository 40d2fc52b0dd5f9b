import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { PtxforgeError, type Toolchain } from '@ptxforge/kernel';
import { compileOne, outputOf, reportError, type CliIO, type CliSettings, type InputSpec } from './run.js';

/** One finished input, as a worker reports it. */
export interface BatchResult {
  readonly index: number;
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Message from the main thread to a worker: compile input `index` into `out`. */
export interface BatchTask {
  readonly index: number;
  readonly out: string | undefined;
}

/**
 * Where each input's output goes in --output-dir: the input's name with the output extension; inputs
 * found by walking a directory keep their relative folders, so equal base names do not collide.
 */
export function batchOutputs(s: CliSettings, cwd: string): Array<string | undefined> {
  const dir = s.o.outputDir ? path.resolve(cwd, s.o.outputDir) : undefined;
  const kind = outputOf(s.o, dir ? `${dir}/x.cubin` : undefined);
  if (kind === 'none') return s.inputs.map(() => undefined);
  if (!dir) throw new PtxforgeError('CLI_USAGE', `batch mode writes one output per input: give --output-dir DIR (with --emit ${kind})`);
  const ext = kind === 'ori' ? '.ori' : '.cubin';
  const seen = new Map<string, string>();
  return s.inputs.map((inp) => {
    const out = path.join(dir, `${inp.outName}${ext}`);
    const prev = seen.get(out);
    if (prev) throw new PtxforgeError('CLI_USAGE', `inputs ${prev} and ${inp.shown} would both write ${path.relative(cwd, out)}`);
    seen.set(out, inp.shown);
    return out;
  });
}

/** A one-line progress bar on a terminal: `[#####.....] 12/31 files, 1 failed`. */
class ProgressBar {
  private shown = false;
  constructor(private readonly total: number, private readonly write: (s: string) => void, private readonly enabled: boolean) {}
  update(done: number, failed: number): void {
    if (!this.enabled) return;
    const width = 30;
    const fill = Math.round((width * done) / Math.max(1, this.total));
    this.write(`\r[${'#'.repeat(fill)}${'.'.repeat(width - fill)}] ${done}/${this.total} files${failed ? `, ${failed} failed` : ''}`);
    this.shown = true;
  }
  /** Clear the bar line before other output. */
  clear(): void {
    if (this.enabled && this.shown) this.write('\r\x1b[K');
  }
}

/**
 * Batch mode: many inputs in one process. With more than one job the inputs are handed out one at a time
 * to N worker threads (each builds its own toolchain once), so a slow file never holds back the others.
 * Each input's messages are printed together when it finishes; an error stops only that input; the exit
 * code is non-zero when any input failed. Output order of messages follows completion; files are
 * deterministic (one per input, named after it).
 */
export async function runBatch(argv: readonly string[], tc: Toolchain, s: CliSettings, io: CliIO): Promise<number> {
  const outs = batchOutputs(s, io.cwd);
  for (const o of outs) if (o) mkdirSync(path.dirname(o), { recursive: true });
  const requested = Number(s.o.jobs ?? s.o.splitCompile ?? 0) || os.availableParallelism?.() || os.cpus().length;
  const jobs = Math.max(1, Math.min(requested, s.inputs.length));
  const bar = new ProgressBar(s.inputs.length, io.stderr, !!io.isTTY && !s.o.verbose);
  let failed = 0;
  let done = 0;
  const report = (r: BatchResult): void => {
    bar.clear();
    if (r.stdout) io.stdout(r.stdout);
    if (r.stderr) io.stderr(r.stderr);
    done++;
    if (r.code !== 0) failed++;
    bar.update(done, failed);
  };
  if (jobs === 1) {
    s.inputs.forEach((inp, k) => report(compileCaptured(tc, s, inp, io, k, outs[k])));
  } else {
    await runWorkers(argv, jobs, outs, io, report);
  }
  bar.clear();
  if (s.o.verbose || failed) io.stderr(`ptxforge: ${s.inputs.length} inputs, ${s.inputs.length - failed} compiled, ${failed} failed\n`);
  return failed ? 1 : 0;
}

/** Compile one input with its output captured (so messages of parallel inputs never interleave). */
export function compileCaptured(tc: Toolchain, s: CliSettings, inp: InputSpec, io: CliIO, index: number, out: string | undefined): BatchResult {
  let stdout = '';
  let stderr = '';
  const cap: CliIO = { ...io, stdout: (x) => (stdout += x), stderr: (x) => (stderr += x), isTTY: false };
  let code: number;
  try {
    code = compileOne(tc, { ...s, warnings: index === 0 ? s.warnings : [] }, inp, cap, out);
  } catch (e) {
    // Located errors name the file already; others get it in front.
    code = reportError(e, { ...cap, stderr: (x) => (stderr += x.includes(inp.shown) ? x : `${inp.shown}: ${x}`) });
  }
  return { index, code, stdout, stderr };
}

function runWorkers(argv: readonly string[], jobs: number, outs: ReadonlyArray<string | undefined>, io: CliIO, report: (r: BatchResult) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let next = 0;
    let running = jobs;
    const url = new URL('./batch-worker.js', import.meta.url);
    for (let w = 0; w < jobs; w++) {
      const worker = new Worker(url, { workerData: { argv: [...argv], cwd: io.cwd, env: io.env } });
      const feed = (): void => {
        if (next < outs.length) {
          const task: BatchTask = { index: next, out: outs[next] };
          next++;
          worker.postMessage(task);
        } else {
          void worker.terminate();
        }
      };
      worker.on('message', (m: BatchResult | { ready: true }) => {
        if ('ready' in m) return feed();
        report(m);
        feed();
      });
      worker.on('error', (e) => reject(e));
      worker.on('exit', () => {
        if (--running === 0) resolve();
      });
    }
  });
}
