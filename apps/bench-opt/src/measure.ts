import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createToolchain, type Instrumentation, type OriModule, type Toolchain } from '@ptxforge/kernel';
import { loadDefaultPlugins } from '@ptxforge/cli';
import { runKernel, toHex, type RunResult } from '@ptxforge/interp';
import { textSectionSizes } from './elf.js';
import { readSource, REPO_ROOT, type BenchKernel } from './kernels.js';

export async function benchToolchain(): Promise<Toolchain> {
  return createToolchain({ plugins: await loadDefaultPlugins() });
}

export function compileKernel(tc: Toolchain, k: BenchKernel, optLevel: number, instrumentation: readonly Instrumentation[] = []): OriModule {
  return tc.compile(readSource(k), { arch: 'sm_90', optLevel, verifyIr: true, instrumentation }).module;
}

/** Output buffers of a run as hex (for exact comparison). */
export function outputsOf(r: RunResult, k: BenchKernel): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of k.launch.outputs ?? Object.keys(r.buffers)) out[name] = toHex(r.buffers[name]!.bytes);
  return out;
}

export function run(m: OriModule, k: BenchKernel): RunResult {
  const r = runKernel(m, k.launch);
  if (!r.ok) throw new Error(`${k.name}: interpreter error: ${r.errors.map((e) => e.message).join('; ')}`);
  return r;
}

export function staticCount(m: OriModule, name: string): number {
  const fn = m.getFunction(name);
  if (!fn) throw new Error(`no function ${name}`);
  return fn.instructionCount;
}

/** `.text.<kernel>` size / 16 of `ptxas -arch=sm_90 -O3` on a PTX file, or undefined without ptxas. */
export function ptxasStaticCounts(ptxFile: string): Map<string, number> | undefined {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-opt-'));
  try {
    const cubin = path.join(dir, 'k.cubin');
    execFileSync('ptxas', ['-arch=sm_90', '-O3', path.resolve(REPO_ROOT, ptxFile), '-o', cubin], { stdio: 'pipe' });
    const sizes = textSectionSizes(readFileSync(cubin));
    return new Map([...sizes].map(([n, s]) => [n, s / 16]));
  } catch {
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface BenchRow {
  readonly kernel: string;
  readonly staticO0: number;
  readonly staticO3: number;
  readonly ptxasO3: number | undefined;
  readonly dynamicO0: number;
  readonly dynamicO3: number;
  /** -O3 results equal -O0 results byte for byte. */
  readonly same: boolean;
}

export async function measureAll(kernels: readonly BenchKernel[]): Promise<BenchRow[]> {
  const tc = await benchToolchain();
  const ptxas = new Map<string, Map<string, number> | undefined>();
  const rows: BenchRow[] = [];
  for (const k of kernels) {
    const m0 = compileKernel(tc, k, 0);
    const m3 = compileKernel(tc, k, 3);
    const r0 = run(m0, k);
    const r3 = run(m3, k);
    if (k.file.endsWith('.ptx') && !ptxas.has(k.file)) ptxas.set(k.file, ptxasStaticCounts(k.file));
    rows.push({
      kernel: k.name,
      staticO0: staticCount(m0, k.launch.kernel ?? k.name),
      staticO3: staticCount(m3, k.launch.kernel ?? k.name),
      ptxasO3: ptxas.get(k.file)?.get(k.launch.kernel ?? k.name),
      dynamicO0: r0.counts.threadInstructions,
      dynamicO3: r3.counts.threadInstructions,
      same: JSON.stringify(outputsOf(r0, k)) === JSON.stringify(outputsOf(r3, k)),
    });
  }
  return rows;
}

export function markdownTable(rows: readonly BenchRow[]): string {
  const pct = (a: number, b: number): string => (a === 0 ? '-' : `${(((b - a) / a) * 100).toFixed(1)}%`);
  const lines = [
    '| kernel | static -O0 | static -O3 | ptxas -O3 static | dynamic -O0 | dynamic -O3 | dynamic change | -O3 output = -O0 output |',
    '|---|---:|---:|---:|---:|---:|---:|:---:|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.kernel} | ${r.staticO0} | ${r.staticO3} | ${r.ptxasO3 ?? 'n/a'} | ${r.dynamicO0} | ${r.dynamicO3} | ${pct(r.dynamicO0, r.dynamicO3)} | ${r.same ? 'yes' : 'NO'} |`,
    );
  }
  return lines.join('\n');
}
