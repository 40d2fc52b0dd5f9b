import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from './run.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');

async function cli(args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), env: {}, cwd: repo });
  return { code, stdout, stderr };
}

describe('interpreter flags', () => {
  it('--run --launch prints outputs and dynamic counts as JSON', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ptxforge-run-'));
    try {
      const r = await cli(['examples/ori/vector_add.ori', '-arch', 'sm_90', '--run', '--launch', 'examples/launch/vector_add.json', '--verify-each', '--run-raw', dir]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const j = JSON.parse(r.stdout) as { ok: boolean; buffers: Record<string, { values: number[] }>; counts: { threadInstructions: number; byOpcode: Record<string, { thread: number }> } };
      expect(j.ok).toBe(true);
      expect(j.buffers.c!.values.slice(0, 10)).toEqual([1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 1.5, 1.5]);
      expect(j.counts.byOpcode.FADD!.thread).toBe(100);
      expect(readdirSync(dir)).toEqual(['c.bin']);
      expect(readFileSync(path.join(dir, 'c.bin')).length).toBe(400);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--run --seed --save-launch writes a launch that replays to the same buffers', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ptxforge-save-launch-'));
    try {
      const saved = path.join(dir, 'l.json');
      const a = await cli(['examples/ori/vector_add.ori', '-arch', 'sm_90', '--run', '--seed', '7', '--save-launch', saved]);
      expect(a.code).toBe(0);
      const launch = JSON.parse(readFileSync(saved, 'utf8')) as { kernel: string; grid: number[]; block: number[]; buffers: Record<string, { hex: string }>; params: unknown[] };
      expect(launch.kernel).toBe('vector_add');
      expect(Object.values(launch.buffers).every((b) => /^[0-9a-f]+$/.test(b.hex))).toBe(true);
      expect(launch.params.length).toBe(4);
      const b = await cli(['examples/ori/vector_add.ori', '-arch', 'sm_90', '--run', '--launch', saved]);
      expect(b.code).toBe(0);
      const ja = JSON.parse(a.stdout) as { buffers: unknown };
      const jb = JSON.parse(b.stdout) as { buffers: unknown };
      expect(jb.buffers).toEqual(ja.buffers);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--verify-each with generated inputs (--seed)', async () => {
    const r = await cli(['examples/ori/vector_add.ori', '-arch', 'sm_90', '--verify-each', '--seed', '5', '-v']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/verify-each: \d+ phases checked, \d+ runs/);
  });

  it('a bad launch file is a coded error', async () => {
    const r = await cli(['examples/ori/vector_add.ori', '-arch', 'sm_90', '--run', '--launch', 'package.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error INTERP_BAD_LAUNCH');
  });
});
