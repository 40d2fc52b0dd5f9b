/** A batch-mode worker thread: builds the toolchain once, then compiles the inputs it is handed. */
import { parentPort, workerData } from 'node:worker_threads';
import { prepareCompilation, type CliIO } from './run.js';
import { compileCaptured, type BatchTask } from './batch.js';

const { argv, cwd, env } = workerData as { argv: string[]; cwd: string; env: Record<string, string | undefined> };
const io: CliIO = { stdout: () => undefined, stderr: () => undefined, env, cwd, isTTY: false };
const { tc, settings } = await prepareCompilation(argv, io);
parentPort!.on('message', (t: BatchTask) => {
  parentPort!.postMessage(compileCaptured(tc, settings, settings.inputs[t.index]!, io, t.index, t.out));
});
parentPort!.postMessage({ ready: true });
