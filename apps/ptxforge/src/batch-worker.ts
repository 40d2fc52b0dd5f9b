/** A batch-mode worker thread: builds the toolchain once, then compiles the inputs it is handed. */
import { parentPort, workerData } from 'node:worker_threads';
import { serveBatch, type BatchTask } from './batch.js';

const { argv, cwd, env } = workerData as { argv: string[]; cwd: string; env: Record<string, string | undefined> };
await serveBatch(argv, cwd, env, {
  post: (m) => parentPort!.postMessage(m),
  onTask: (f) => void parentPort!.on('message', (t: BatchTask) => f(t)),
});
