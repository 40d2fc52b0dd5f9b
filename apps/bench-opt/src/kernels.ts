import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Launch } from '@ptxforge/interp';

/** Repository root (apps/bench-opt/src or dist -> three levels up). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const KERNELS_PTX = path.join(REPO_ROOT, 'apps/bench-opt/kernels/kernels.ptx');

export interface BenchKernel {
  /** Entry name (also the row label). */
  readonly name: string;
  /** Source file (.ptx or .ori) relative to the repository root. */
  readonly file: string;
  readonly launch: Launch;
}

const range = (n: number, f: (i: number) => number): number[] => Array.from({ length: n }, (_, i) => f(i));
/** Deterministic pseudo-random integers in [-500, 500). */
const lcg = (n: number, seed: number): number[] => {
  let x = seed >>> 0;
  return range(n, () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return (x % 1000) - 500;
  });
};

const PTX = 'apps/bench-opt/kernels/kernels.ptx';

/** The bundled example and the eval-style kernels (bench/opt kernels.cu), each with a fixed launch. */
export const BENCH_KERNELS: readonly BenchKernel[] = [
  {
    name: 'vector_add',
    file: 'examples/ori/vector_add.ori',
    launch: {
      grid: 2, block: 128,
      buffers: { a: { type: 'f32', values: range(256, (i) => i * 0.5) }, b: { type: 'f32', values: range(256, (i) => 1 - i) }, c: { type: 'f32', count: 256 } },
      params: [{ buffer: 'a' }, { buffer: 'b' }, { buffer: 'c' }, { type: 'u32', value: 200 }],
      outputs: ['c'],
    },
  },
  {
    name: 'switch_op',
    file: PTX,
    launch: {
      kernel: 'switch_op', grid: 2, block: 128,
      buffers: { in: { type: 's32', values: lcg(256, 1) }, out: { type: 's32', count: 256 } },
      params: [{ buffer: 'in' }, { buffer: 'out' }, { type: 's32', value: 250 }],
      outputs: ['out'],
    },
  },
  {
    name: 'nested_cond',
    file: PTX,
    launch: {
      kernel: 'nested_cond', grid: 2, block: 128,
      buffers: { a: { type: 's32', values: lcg(256, 2) }, b: { type: 's32', values: lcg(256, 3) }, out: { type: 's32', count: 256 } },
      params: [{ buffer: 'a' }, { buffer: 'b' }, { buffer: 'out' }, { type: 's32', value: 240 }],
      outputs: ['out'],
    },
  },
  {
    name: 'loop_sum',
    file: PTX,
    launch: {
      kernel: 'loop_sum', grid: 2, block: 128,
      buffers: { a: { type: 'f32', values: range(256 * 14, (i) => (i % 17) * 0.25) }, out: { type: 'f32', count: 256 } },
      params: [{ buffer: 'a' }, { buffer: 'out' }, { type: 's32', value: 13 }, { type: 's32', value: 256 }],
      outputs: ['out'],
    },
  },
  {
    name: 'reduce_shared',
    file: PTX,
    launch: {
      kernel: 'reduce_shared', grid: 2, block: 128,
      buffers: { in: { type: 'f32', values: range(256, (i) => (i % 9) - 4) }, out: { type: 'f32', count: 2 } },
      params: [{ buffer: 'in' }, { buffer: 'out' }],
      outputs: ['out'],
    },
  },
  {
    name: 'clamp_select',
    file: PTX,
    launch: {
      kernel: 'clamp_select', grid: 2, block: 128,
      buffers: { a: { type: 'f32', values: range(256, (i) => (i - 128) / 50) }, out: { type: 'f32', count: 256 } },
      params: [{ buffer: 'a' }, { buffer: 'out' }, { type: 'f32', value: -1 }, { type: 'f32', value: 1.5 }, { type: 's32', value: 256 }],
      outputs: ['out'],
    },
  },
];

export function readSource(k: BenchKernel): { text: string; file: string } {
  const file = path.join(REPO_ROOT, k.file);
  return { text: readFileSync(file, 'utf8'), file };
}
