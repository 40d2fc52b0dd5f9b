/** `fuzz-ptx`'s compile worker: builds the default toolchain once, then classifies each text it is handed. */
import { parentPort } from 'node:worker_threads';
import { createToolchain } from '@ptxforge/kernel';
import { loadDefaultPlugins } from './plugins.js';
import { ourVerdict } from './fuzz-ptx/verdict.js';

const tc = createToolchain({ plugins: await loadDefaultPlugins() });
parentPort!.on('message', (m: { id: number; text: string; arch: string }) => {
  parentPort!.postMessage({ id: m.id, verdict: ourVerdict(tc, m.text, m.arch) });
});
parentPort!.postMessage({ ready: true });
