import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createToolchain, type Toolchain } from '@ptxforge/kernel';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDefaultPlugins } from '../plugins.js';
import { fuzzInput, fuzzPtxSummaryLines, runFuzzPtx } from './driver.js';
import { generatePtx } from './generate.js';
import { minimizePtx } from './minimize.js';
import { mutatePtx, tokenizeText } from './mutate.js';
import { Rng } from './rng.js';
import { compare, ourVerdict, type OurVerdict } from './verdict.js';

let tc: Toolchain;
beforeAll(async () => {
  tc = createToolchain({ plugins: await loadDefaultPlugins() });
}, 60000);

const seedText = readFileSync(path.join(import.meta.dirname, '../../../../packages/ptx/test/fixtures/kernels/hand_vector_add.ptx'), 'utf8');

describe('fuzz-ptx inputs', () => {
  it('are a pure function of (seed, index) and differ between indices', () => {
    const corpus = [{ name: 'a.ptx', text: seedText }];
    expect(fuzzInput(3, 17, corpus)).toEqual(fuzzInput(3, 17, corpus));
    const texts = new Set(Array.from({ length: 40 }, (_, k) => fuzzInput(3, k, corpus).text));
    expect(texts.size).toBeGreaterThan(30);
  });

  it('tokenizing keeps every character; mutants differ from their base', () => {
    expect(tokenizeText(seedText).join('')).toBe(seedText);
    const rng = new Rng(5);
    let changed = 0;
    for (let k = 0; k < 50; k++) if (mutatePtx(seedText, rng).text !== seedText) changed++;
    expect(changed).toBeGreaterThan(40);
  });

  it('generated kernels compile (the generator follows PTX typing)', () => {
    for (let s = 1; s <= 25; s++) expect(ourVerdict(tc, generatePtx(s))).toEqual({ kind: 'accept' });
  }, 60000);
});

describe('fuzz-ptx verdicts', () => {
  const reject = (located: boolean, unsupported = false): OurVerdict => ({ kind: 'reject', code: 'X', message: 'm', located, unsupported });
  it('compare: ptxas is the oracle; unlocated errors and stack traces are crashes', () => {
    expect(compare({ kind: 'accept' }, { kind: 'reject', message: 'e' })).toBe('false-accept');
    expect(compare(reject(true), { kind: 'reject', message: 'e' })).toBe('agree');
    expect(compare(reject(true), { kind: 'accept' })).toBe('false-reject');
    expect(compare(reject(true, true), { kind: 'accept' })).toBe('agree');
    expect(compare(reject(false), { kind: 'reject', message: 'e' })).toBe('crash');
    expect(compare({ kind: 'crash', message: 'TypeError' }, { kind: 'accept' })).toBe('crash');
    expect(compare({ kind: 'accept' }, undefined)).toBe('agree');
    expect(compare({ kind: 'accept' }, { kind: 'unknown', message: 'ptxas crashed' })).toBe('agree');
  });

  it('minimisation keeps the failure and removes the rest', async () => {
    const text = `${seedText}\n// marker line\n`;
    const still = async (t: string): Promise<boolean> => /\bret\b/.test(t) && t.includes('marker');
    const min = await minimizePtx(text, still);
    expect(await still(min)).toBe(true);
    expect(min.replace(/\s+/g, ' ').trim().length).toBeLessThan(40);
  });

  it('a run without ptxas counts only crashes and prints the contract line', async () => {
    const s = await runFuzzPtx({
      count: 30, seed: 11, corpus: [{ name: 'hand_vector_add.ptx', text: seedText }],
      compile: async (t) => ourVerdict(tc, t),
    });
    expect(s.crashes).toBe(0);
    expect(s.agree).toBe(30);
    expect(fuzzPtxSummaryLines(s)[0]).toBe('30 inputs, 30 agree, 0 false accepts, 0 false rejects, 0 crashes');
    expect(fuzzPtxSummaryLines(s)[1]).toMatch(/ptxas not found/);
  }, 60000);
});

// Minimised failures found by `fuzz-ptx --fixtures-dir`, with ptxas's verdict recorded: each is a regression test.
const fixtures = path.join(import.meta.dirname, '../../test/fixtures/fuzz-ptx');
const cases = existsSync(fixtures) ? readdirSync(fixtures).filter((d) => existsSync(path.join(fixtures, d, 'expected.json'))).sort() : [];
describe.skipIf(!cases.length)('fuzz-ptx fixtures (ptxas verdicts recorded)', () => {
  it.each(cases.length ? cases : ['(none)'])('%s', (d) => {
    const text = readFileSync(path.join(fixtures, d, 'input.ptx'), 'utf8');
    const expected = JSON.parse(readFileSync(path.join(fixtures, d, 'expected.json'), 'utf8')) as { ptxas: 'accept' | 'reject' | 'unknown' };
    const ours = ourVerdict(tc, text);
    expect(compare(ours, expected.ptxas === 'unknown' ? undefined : expected.ptxas === 'accept' ? { kind: 'accept' } : { kind: 'reject', message: '' }), JSON.stringify(ours)).toBe('agree');
  });
});
