/**
 * Entry of the V8 start-up snapshot (`node --snapshot-blob dist/snapshot/ptxforge.blob ptxforge ARGS`,
 * made by snapshot.mjs after the bundle). Everything this imports -- the kernel, tsyringe, commander, the
 * front end and every first-party plugin -- is loaded and initialised when the snapshot is built, so a
 * run starts from a deserialised heap instead of parsing and evaluating ~1 MB of JavaScript.
 * bin/ptxforge chooses it when the blob was built by the same node binary, else the ESM bundle.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import { runCli, type CliIO } from './run.js';
import { serveBatch, setBatchWorkerLauncher, type BatchTask, type BatchWorkerHandle } from './batch.js';
import { defaultImporter, loadDefaultPlugins, moduleNotFound, setDefaultImporter } from './plugins.js';
import { envForOwnNodeProcess, restoreLauncherEnv } from './launcher-env.js';

/** The arch the snapshot is warmed up for (the latest target; Triton and nvcc-style builds ask for it most). */
const WARMUP_ARCH = 'sm_90';

// Evaluate the lazily loaded plugin modules now, at snapshot build time (node drains the event loop
// before it takes the snapshot), then warm the heap up (below).
void loadDefaultPlugins().then(() => warmUp(process.env.PTXFORGE_SNAPSHOT_WARMUP ?? ''));

/**
 * Compile the warm-up kernels (snapshot.mjs names them: nvcc-made PTX of the CLI's test fixtures) to cubins
 * for the arch a run most likely asks for, and throw the results away. What a first compile pays once --
 * V8 compiling each function's bytecode, the codec compiling the table rows of the instruction forms it
 * meets, the latency and register tables built on first use -- is then part of the snapshot's heap, so a
 * one-file run starts warm (a small kernel's CPU time fell by about a third). Every one of these caches is
 * keyed on its own input, so later compiles give byte-identical output with or without the warm-up. A file
 * that fails only loses its warm-up; the build says so.
 */
async function warmUp(list: string): Promise<void> {
  const io = { stdout: () => undefined, stderr: () => undefined, env: {}, cwd: process.cwd(), isTTY: false };
  // Through the command line itself, as a run calls it (option parsing, settings, output writing and the -v
  // lines run warm too): every kernel to a cubin, every other one with -v, and the first also to Ori text.
  const out = path.join(tmpdir(), `ptxforge-snapshot-warmup-${process.pid}`);
  const files = list.split(path.delimiter).filter(Boolean);
  for (const [i, file] of files.entries()) {
    const runs = [['-arch', WARMUP_ARCH, '-O3', '--no-cache', ...(i % 2 ? ['-v'] : []), '-o', `${out}.cubin`, file]];
    if (i === 0) runs.push(['-arch', WARMUP_ARCH, '--no-cache', '--emit', 'ori', '-o', `${out}.ori`, file]);
    for (const argv of runs) {
      let err = '';
      const code = await runCli(argv, { ...io, stderr: (s: string) => void (err += s) });
      if (code !== 0) process.stderr.write(`snapshot: warm-up compile of ${file} failed (${err.split('\n')[0]}); the snapshot is built without it\n`);
    }
  }
  for (const ext of ['.cubin', '.ori']) rmSync(`${out}${ext}`, { force: true });
}
/** argv[2] of a batch worker process (never a ptxforge option: those start with one dash or two letters). */
const BATCH_WORKER_ARG = '--ptxforge-internal-batch-worker';

/**
 * Batch workers as processes started from this snapshot: each starts warm (plugins loaded, code compiled)
 * where a worker thread would load and compile the ESM bundle again (about a second of CPU per worker).
 * The command line, cwd and environment go over the IPC channel; tasks and results as with threads.
 */
function snapshotWorker(blob: string, bundleUrl: string, argv: readonly string[], io: CliIO): BatchWorkerHandle {
  // child_process is loaded only here, at run time (node warns about it in snapshot builder scripts)
  const { spawn } = createRequire(bundleUrl)('node:child_process') as typeof import('node:child_process');
  // the V8 flags this process started with (before --snapshot-blob): the blob loads only with the flags it was built with
  const k = process.execArgv.indexOf('--snapshot-blob');
  const v8Flags = k > 0 ? process.execArgv.slice(0, k) : [];
  const child: ChildProcess = spawn(process.execPath, [...v8Flags, '--snapshot-blob', blob, 'ptxforge', BATCH_WORKER_ARG], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    cwd: io.cwd,
    env: envForOwnNodeProcess(io.env),
  });
  let stopped = false;
  const errors: Array<(e: Error) => void> = [];
  child.send({ argv: [...argv], cwd: io.cwd, env: io.env });
  child.on('error', (e) => errors.forEach((f) => f(e)));
  child.on('exit', (code, signal) => {
    if (!stopped) errors.forEach((f) => f(new Error(`batch worker process ended early (${signal ?? `exit ${code}`})`)));
  });
  return {
    send: (t) => void child.send(t),
    stop: () => {
      stopped = true;
      child.disconnect();
    },
    onMessage: (f) => void child.on('message', f),
    onError: (f) => void errors.push(f),
    onExit: (f) => void child.on('exit', () => f()),
  };
}

/** A batch worker process's side (see snapshotWorker): the first message is the command line. */
function serveBatchProcess(): void {
  process.once('message', (init: { argv: string[]; cwd: string; env: Record<string, string | undefined> }) => {
    serveBatch(init.argv, init.cwd, init.env, {
      post: (m) => void process.send!(m),
      onTask: (f) => void process.on('message', (t: BatchTask) => f(t)),
    }).catch((e: unknown) => {
      process.stderr.write(`ptxforge: batch worker: ${(e as Error).message}\n`);
      process.exit(1);
    });
  });
}

/** Entries of a folder (undefined when it cannot be read), listed once per process. */
const folderEntries = new Map<string, ReadonlySet<string> | undefined>();
function entriesOf(dir: string): ReadonlySet<string> | undefined {
  if (!folderEntries.has(dir)) {
    let names: ReadonlySet<string> | undefined;
    try {
      names = new Set(readdirSync(dir));
    } catch {
      names = undefined;
    }
    folderEntries.set(dir, names);
  }
  return folderEntries.get(dir);
}

/** The node_modules folders Node's package lookup visits from `dir`, nearest first (computed once per dir). */
const lookupFolders = new Map<string, readonly string[]>();
function nodeModulesAbove(dir: string): readonly string[] {
  let out = lookupFolders.get(dir);
  if (!out) {
    const found: string[] = [];
    for (let d = dir; ; d = path.dirname(d)) {
      if (path.basename(d) !== 'node_modules') found.push(path.join(d, 'node_modules'));
      if (path.dirname(d) === d) break;
    }
    lookupFolders.set(dir, (out = found));
  }
  return out;
}

/**
 * Whether package `spec` is in a node_modules folder at or above `dir` (Node's package lookup). The
 * folders are found once and each node_modules (scope) folder is listed once, so a run asks the file
 * system about the ~13 plugin packages with a few listings and one existsSync per package found.
 */
function isInstalled(dir: string, spec: string): boolean {
  const slash = spec.indexOf('/');
  const scope = spec.startsWith('@') && slash > 0 ? spec.slice(0, slash) : '';
  const name = scope ? spec.slice(slash + 1) : spec;
  for (const nm of nodeModulesAbove(dir)) {
    const where = scope ? `${nm}${path.sep}${scope}` : nm;
    if (entriesOf(where)?.has(name) && existsSync(`${where}${path.sep}${name}${path.sep}package.json`)) return true;
  }
  return false;
}

v8.startupSnapshot.setDeserializeMainFunction(() => {
  restoreLauncherEnv();
  // Where this snapshot lives decides where the ESM bundle (batch workers, package.json) is.
  const k = process.execArgv.indexOf('--snapshot-blob');
  const blob = k >= 0 ? process.execArgv[k + 1]! : '';
  const bundleFile = path.resolve(path.dirname(blob), '..', 'bundle', 'cli.js');
  // The URL only when something asks for it (node's URL code is not warm at start; most runs never need it).
  let url: string | undefined;
  const bundleUrl = (): string => (url ??= pathToFileURL(bundleFile).href);
  Object.defineProperty(globalThis, '__ptxforgeModuleUrl', { get: bundleUrl, configurable: true });
  // The heap holds every plugin package that was installed when the snapshot was built; use one only
  // while it is still installed where the CLI is, found as the ESM bundle's import() would find it
  // (node_modules folders upwards from the bundle; NODE_PATH does not count), so removing a target
  // package has the same effect with and without the snapshot.
  const bundleDir = path.dirname(bundleFile);
  setDefaultImporter((spec) => (isInstalled(bundleDir, spec) ? defaultImporter(spec) : Promise.reject(moduleNotFound(spec, bundleUrl()))));
  setBatchWorkerLauncher((argv, io) => snapshotWorker(blob, bundleUrl(), argv, io));
  if (process.argv[2] === BATCH_WORKER_ARG) return serveBatchProcess();
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
  // argv: [node, 'ptxforge', ...args] (the launcher passes a name first: node reads a bare leading
  // option as its own).
  void runCli(process.argv.slice(2), {
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    env: process.env,
    cwd: process.env.INIT_CWD && process.env.npm_lifecycle_event === 'ptxforge' ? process.env.INIT_CWD : process.cwd(),
    isTTY: !!process.stderr.isTTY,
  }).then((code) => {
    process.exitCode = code;
  });
});
