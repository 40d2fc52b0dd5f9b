import { mkdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { PtxforgeError, type Toolchain } from '@ptxforge/kernel';
import { compileOne, outputOf, prepareCompilation, reportError, type CliIO, type CliSettings, type InputSpec } from './run.js';

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
    await runWorkers(argv, jobs, outs, largestFirst(s.inputs), io, report);
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

/** What a batch worker says: ready for a task, or one input's result. */
export type BatchWorkerMessage = BatchResult | { ready: true };

/** One batch worker as the main thread sees it (a worker thread, or a process started from the snapshot). */
export interface BatchWorkerHandle {
  send(task: BatchTask): void;
  /** No more tasks: let the worker end. */
  stop(): void;
  onMessage(f: (m: BatchWorkerMessage) => void): void;
  onError(f: (e: Error) => void): void;
  onExit(f: () => void): void;
}

/** Starts one worker that runs `serveBatch` for the command line `argv`. */
export type BatchWorkerLauncher = (argv: readonly string[], io: CliIO) => BatchWorkerHandle;

/** The default: a worker thread running the ESM bundle's batch-worker.js (it builds its own toolchain once). */
const threadLauncher: BatchWorkerLauncher = (argv, io) => {
  const worker = new Worker(new URL('./batch-worker.js', import.meta.url), { workerData: { argv: [...argv], cwd: io.cwd, env: io.env } });
  return {
    send: (t) => worker.postMessage(t),
    stop: () => void worker.terminate(),
    onMessage: (f) => void worker.on('message', f),
    onError: (f) => void worker.on('error', f),
    onExit: (f) => void worker.on('exit', f),
  };
};
let launcher: BatchWorkerLauncher = threadLauncher;

/**
 * Replace how batch workers start. A run from the V8 snapshot starts worker processes from the same
 * snapshot (warm: its heap holds the loaded plugins and compiled code), where a worker thread would load the
 * ESM bundle and compile its code again.
 */
export function setBatchWorkerLauncher(l: BatchWorkerLauncher): void {
  launcher = l;
}

/**
 * A worker's side: build the toolchain for `argv` once, say ready, then compile each input it is handed
 * and send its result back.
 */
export async function serveBatch(
  argv: readonly string[],
  cwd: string,
  env: Record<string, string | undefined>,
  port: { post(m: BatchWorkerMessage): void; onTask(f: (t: BatchTask) => void): void },
): Promise<void> {
  const io: CliIO = { stdout: () => undefined, stderr: () => undefined, env, cwd, isTTY: false };
  const { tc, settings } = await prepareCompilation(argv, io);
  port.onTask((t) => port.post(compileCaptured(tc, settings, settings.inputs[t.index]!, io, t.index, t.out)));
  port.post({ ready: true });
}

/**
 * The order inputs are handed to workers: largest first (by bytes; ties in input order). Compile time grows
 * with size, so a big file started last would run alone while the other workers sit idle (longest
 * processing time first: the makespan stays within 4/3 of the best possible).
 */
export function largestFirst(inputs: readonly InputSpec[]): number[] {
  const size = inputs.map((inp) => {
    if (inp.text !== undefined) return inp.text.length;
    try {
      return statSync(inp.file!).size;
    } catch {
      return 0; // reported when the worker reads it
    }
  });
  return inputs.map((_, k) => k).sort((a, b) => size[b]! - size[a]! || a - b);
}

function runWorkers(
  argv: readonly string[], jobs: number, outs: ReadonlyArray<string | undefined>, order: readonly number[], io: CliIO, report: (r: BatchResult) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let next = 0;
    let running = jobs;
    for (let w = 0; w < jobs; w++) {
      const worker = launcher(argv, io);
      const feed = (): void => {
        if (next < order.length) {
          const index = order[next]!;
          const task: BatchTask = { index, out: outs[index] };
          next++;
          worker.send(task);
        } else {
          worker.stop();
        }
      };
      worker.onMessage((m) => {
        if ('ready' in m) return feed();
        report(m);
        feed();
      });
      worker.onError((e) => reject(e));
      worker.onExit(() => {
        if (--running === 0) resolve();
      });
    }
  });
}
