#!/usr/bin/env node
import { runCli } from './run.js';

// A closed pipe (`ptxforge --list-phases | head`) is not an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});

const code = await runCli(process.argv.slice(2), {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  env: process.env,
  cwd: process.env.INIT_CWD && process.env.npm_lifecycle_event === 'ptxforge' ? process.env.INIT_CWD : process.cwd(),
});
process.exitCode = code;
