import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { envForOwnNodeProcess, restoreLauncherEnv, SAVED_CA_CERTS_VAR } from './launcher-env.js';
import { prepareCompilation } from './run.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const app = path.resolve(here, '..');
const repo = path.resolve(app, '../..');
const launcher = path.join(app, 'bin/ptxforge');
const kernel = path.join(repo, 'packages/ptx/test/fixtures/kernels/hand_vector_add.ptx');
const built = existsSync(path.join(app, 'dist/bundle/cli.js'));

describe('launcher environment', () => {
  it('restoreLauncherEnv puts the saved NODE_EXTRA_CA_CERTS back and drops the saved copy', () => {
    const env: NodeJS.ProcessEnv = { [SAVED_CA_CERTS_VAR]: '/etc/corp-ca.pem', PATH: '/bin' };
    restoreLauncherEnv(env);
    expect(env).toEqual({ NODE_EXTRA_CA_CERTS: '/etc/corp-ca.pem', PATH: '/bin' });
    const untouched: NodeJS.ProcessEnv = { PATH: '/bin' };
    restoreLauncherEnv(untouched);
    expect(untouched).toEqual({ PATH: '/bin' });
  });

  it("ptxforge's own node processes start without NODE_EXTRA_CA_CERTS; nothing else changes", () => {
    expect(envForOwnNodeProcess({ NODE_EXTRA_CA_CERTS: '/x.pem', HOME: '/h', GONE: undefined })).toEqual({ HOME: '/h' });
  });

  // node 20 warns on stderr when NODE_EXTRA_CA_CERTS names a file it cannot read: the launcher's node must
  // not have read it (no warning, for the --version fast path and for a compile).
  it.skipIf(!built)('the launcher starts node without reading NODE_EXTRA_CA_CERTS', () => {
    const env = { ...process.env, NODE_EXTRA_CA_CERTS: path.join(tmpdir(), 'ptxforge-no-such-ca.pem') };
    const plain = spawnSync(process.execPath, ['-e', '0'], { env, encoding: 'utf8' });
    expect(plain.stderr).toMatch(/extra certs/i);
    const version = spawnSync('sh', [launcher, '--version'], { env, encoding: 'utf8' });
    expect(version.status).toBe(0);
    expect(version.stdout).toMatch(/ptxforge/);
    expect(version.stderr).toBe('');
    const out = path.join(mkdtempSync(path.join(tmpdir(), 'ptxforge-env-')), 'k.cubin');
    const compile = spawnSync('sh', [launcher, '-arch', 'sm_90', '--no-cache', '-o', out, kernel], { env, encoding: 'utf8' });
    expect(compile.stderr).toBe('');
    expect(compile.status).toBe(0);
    expect(readFileSync(out).subarray(0, 4)).toEqual(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
  });
});

describe('the shared command-line parser', () => {
  it('gives every parse its own options: nothing of an earlier command line leaks into the next', async () => {
    const io = { stdout: () => undefined, stderr: () => undefined, env: {}, cwd: repo };
    const first = await prepareCompilation(['-arch', 'sm_90', '-O1', '--knob', 'SchedDisable=1', '-e', 'k', kernel], io);
    const firstKnobs = [...first.settings.o.knob];
    const second = await prepareCompilation(['-arch', 'sm_90', kernel, kernel.replace('hand_vector_add', 'int64')], io);
    expect(second.settings.o.optLevel).toBe('3');
    expect(second.settings.o.knob).toEqual([]);
    expect(second.settings.o.entry).toEqual([]);
    expect(second.settings.inputs.map((x) => path.basename(x.shown))).toEqual(['hand_vector_add.ptx', 'int64.ptx']);
    // the first parse's results are untouched by the second
    expect(first.settings.o.optLevel).toBe('1');
    expect(first.settings.o.knob).toEqual(firstKnobs);
    expect(first.settings.o.entry).toEqual(['k']);
    expect(first.settings.inputs.map((x) => path.basename(x.shown))).toEqual(['hand_vector_add.ptx']);
  });
});
