import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The ptxas release whose behaviour (phases, knobs, command line, -v lines) ptxforge follows. */
export const FOLLOWS_PTXAS = { release: '13.0', version: 'V13.0.88' } as const;

/** This app's version, from its package.json (found upwards from this file: dist/ and the bundle both work). */
export function cliVersion(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let k = 0; k < 4; k++) {
    const f = path.join(dir, 'package.json');
    if (existsSync(f)) {
      const pkg = JSON.parse(readFileSync(f, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === '@ptxforge/cli' && pkg.version) return pkg.version;
    }
    dir = path.dirname(dir);
  }
  return 'unknown';
}

/**
 * `--version` / `-V`. Tools that probe ptxas (Triton reads `release (\d+\.\d+)`) find the release line of
 * the ptxas ptxforge follows.
 */
export function versionText(): string {
  return [
    `ptxforge: an open, ptxas-compatible optimizing assembler, version ${cliVersion()}`,
    `Follows the NVIDIA (R) Ptx optimizing assembler ptxas:`,
    `Cuda compilation tools, release ${FOLLOWS_PTXAS.release}, ${FOLLOWS_PTXAS.version}`,
    '',
  ].join('\n');
}
