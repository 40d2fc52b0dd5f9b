/**
 * Entry of the V8 start-up snapshot (`node --snapshot-blob dist/snapshot/ptxforge.blob ptxforge ARGS`,
 * made by snapshot.mjs after the bundle). Everything this imports -- the kernel, tsyringe, commander, the
 * front end and every first-party plugin -- is loaded and initialised when the snapshot is built, so a
 * run starts from a deserialised heap instead of parsing and evaluating ~1 MB of JavaScript.
 * bin/ptxforge chooses it when the blob was built by the same node binary, else the ESM bundle.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import { runCli } from './run.js';
import { loadDefaultPlugins } from './plugins.js';

// Evaluate the lazily loaded plugin modules now, at snapshot build time (node drains the event loop
// before it takes the snapshot).
void loadDefaultPlugins();

v8.startupSnapshot.setDeserializeMainFunction(() => {
  // Where this snapshot lives decides where the ESM bundle (batch workers, package.json) is.
  const k = process.execArgv.indexOf('--snapshot-blob');
  const blob = k >= 0 ? process.execArgv[k + 1]! : '';
  (globalThis as { __ptxforgeModuleUrl?: string }).__ptxforgeModuleUrl = pathToFileURL(path.join(path.dirname(blob), '..', 'bundle', 'cli.js')).href;
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
