import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ptoxideRuns, zludaRun, type PtoxideCase, type ZludaCase } from './corpus.js';
import { bufferBytes } from './launch.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const corpus = path.resolve(repoRoot, '../shared/corpus');
const have = existsSync(path.join(corpus, 'zluda/cases.json'));
if (!have) console.warn(`skipping corpus launch tests: ${corpus} is absent`);

describe.skipIf(!have)('corpus cases as launches', () => {
  it('every ZLUDA io/warp case becomes a launch with its expected output', () => {
    const cases = (JSON.parse(readFileSync(path.join(corpus, 'zluda/cases.json'), 'utf8')) as { cases: ZludaCase[] }).cases;
    const runs = cases.map((c) => zludaRun(c)).filter((r) => r !== undefined);
    expect(runs.length).toBe(cases.filter((c) => (c.kind === 'io' || c.kind === 'warp') && c.expected).length);
    const ldSt = zludaRun(cases.find((c) => c.name === 'ld_st')!)!;
    expect(ldSt.launch.params).toEqual([{ buffer: 'in' }, { buffer: 'out' }]);
    expect([...bufferBytes('in', ldSt.launch.buffers!.in!)]).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
    expect([...ldSt.expected.out!]).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
    for (const r of runs) expect(bufferBytes('out', r.launch.buffers!.out!).length).toBe(r.expected.out!.length);
  });
  it('ptoxide cases expand their instances, sizes and fill generators', () => {
    const cases = (JSON.parse(readFileSync(path.join(corpus, 'ptoxide/cases.json'), 'utf8')) as { cases: PtoxideCase[] }).cases;
    const gemm = ptoxideRuns(cases.find((c) => c.name === 'gemm')!);
    const small = gemm[1]!; // m=3, k=2, n=1
    expect(small.launch.grid).toEqual([3, 1, 1]);
    expect(small.launch.params!).toEqual([{ buffer: 'a' }, { buffer: 'b' }, { buffer: 'c' }, { type: 'u64', value: 3 }, { type: 'u64', value: 2 }, { type: 'u64', value: 1 }]);
    expect(bufferBytes('a', (small.launch.buffers as Record<string, never>).a).length).toBe(24);
    expect(new Float32Array(small.expected.c!.buffer.slice(0))).toEqual(new Float32Array([2, 2, 2]));
    const add = ptoxideRuns(cases.find((c) => c.name === 'add')!)[0]!;
    expect(new Float32Array(add.expected.c!.buffer.slice(0))[999]).toBe(3);
  });
});
