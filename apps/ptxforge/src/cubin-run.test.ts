import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from './run.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
const ptx = path.resolve(repo, '../shared/corpus/ptoxide/kernels/add_simple.ptx');
function hasPtxas(): boolean {
  try {
    execFileSync('ptxas', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

async function cli(args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), env: {}, cwd: repo });
  return { code, stdout, stderr };
}

describe.skipIf(!existsSync(ptx) || !hasPtxas())('--run on a cubin replays the PTX path\'s launch (needs ../shared/corpus and ptxas)', () => {
  it('same buffers as --run on the PTX with the saved launch', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ptxforge-cubin-run-'));
    try {
      const launch = path.join(dir, 'l.json');
      const cubin = path.join(dir, 'k.cubin');
      execFileSync('ptxas', ['-arch=sm_90', '-O3', ptx, '-o', cubin], { stdio: 'ignore' });
      const a = await cli([ptx, '-arch', 'sm_90', '--run', '--seed', '4', '--save-launch', launch]);
      expect(a.code).toBe(0);
      const b = await cli([cubin, '--run', '--launch', launch]);
      expect(b.stderr).toBe('');
      expect(b.code).toBe(0);
      const ja = JSON.parse(a.stdout) as { buffers: Record<string, { hex: string }> };
      const jb = JSON.parse(b.stdout) as { buffers: Record<string, { hex: string }> };
      expect(Object.keys(jb.buffers)).toEqual(Object.keys(ja.buffers));
      for (const k of Object.keys(ja.buffers)) expect(jb.buffers[k]!.hex).toBe(ja.buffers[k]!.hex);
      expect(JSON.parse(readFileSync(launch, 'utf8')).kernel).toBe('_Z10add_simplePfS_S_');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
