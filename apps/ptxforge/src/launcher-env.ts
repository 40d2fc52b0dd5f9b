/**
 * bin/ptxforge starts node without NODE_EXTRA_CA_CERTS: ptxforge opens no TLS connection, yet node 20 reads
 * and parses every certificate that variable names before any JavaScript runs (about half of the
 * instructions of `node -e 0` on a machine with a corporate CA bundle). The launcher keeps the value in
 * PTXFORGE_NODE_EXTRA_CA_CERTS; the entry points put it back into process.env, so the environment plugins
 * and the processes ptxforge starts see is the one the user gave. (A plugin that opens TLS connections
 * itself does not get the extra certificates: node reads them only at start-up.)
 */
export const SAVED_CA_CERTS_VAR = 'PTXFORGE_NODE_EXTRA_CA_CERTS';

/** Undo the launcher's environment change (see above) in this process's process.env. */
export function restoreLauncherEnv(env: NodeJS.ProcessEnv = process.env): void {
  const saved = env[SAVED_CA_CERTS_VAR];
  if (saved === undefined) return;
  env.NODE_EXTRA_CA_CERTS = saved;
  delete env[SAVED_CA_CERTS_VAR];
}

/**
 * The environment for a node process ptxforge starts for its own work (batch workers started from the
 * snapshot): without NODE_EXTRA_CA_CERTS, for the same reason; the worker gets the user's environment,
 * the variable included, over its IPC channel.
 */
export function envForOwnNodeProcess(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && k !== 'NODE_EXTRA_CA_CERTS') out[k] = v;
  return out;
}
