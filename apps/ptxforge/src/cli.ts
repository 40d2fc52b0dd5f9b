#!/usr/bin/env node
import { restoreLauncherEnv } from './launcher-env.js';

// A closed pipe (`ptxforge --list-phases | head`) is not an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});

// bin/ptxforge started node without NODE_EXTRA_CA_CERTS: give it back to process.env.
restoreLauncherEnv();

const argv = process.argv.slice(2);
// Fast path: `--version` loads nothing but this file and the version module (no kernel, no plugins).
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  const { versionText } = await import('./version.js');
  process.stdout.write(versionText());
} else {
  const { runCli } = await import('./run.js');
  const code = await runCli(argv, {
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    env: process.env,
    cwd: process.env.INIT_CWD && process.env.npm_lifecycle_event === 'ptxforge' ? process.env.INIT_CWD : process.cwd(),
    isTTY: !!process.stderr.isTTY,
  });
  process.exitCode = code;
}
