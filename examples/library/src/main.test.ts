import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
// The example imports the built packages (as a user's program would): it needs `pnpm build` first.
const built = existsSync(path.join(repo, 'packages/preset-default/dist/index.js')) && existsSync(path.join(repo, 'packages/kernel/dist/index.js'));

describe.skipIf(!built)('README library example (node examples/library/main.mjs from the repository root)', () => {
  it('runs as written: PTX through the default preset plus its own sm_90 hook', () => {
    const r = spawnSync(process.execPath, ['examples/library/main.mjs'], { cwd: repo, encoding: 'utf8', timeout: 120000 });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^my-hook: scale reaches the scheduler with \d+ instructions$/m);
    const ran = Number(/^(\d+) phases ran; \d+ instructions in scale$/m.exec(r.stdout)?.[1]);
    expect(ran).toBeGreaterThan(20);
    expect(r.stdout).toMatch(/^All Phases Summary :: /m);
  });
});
if (!built) console.warn('README library example skipped: run `pnpm build` first (the example imports the built packages)');
