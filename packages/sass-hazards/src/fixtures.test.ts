import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readCubin } from '@ptxforge/cubin';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkHazards, prepareHazardCheck } from './check.js';
import { cubinHazardFunctions } from './corpus.js';
import { formatHazard } from './report.js';
import { GOLDEN_DIR, haveGolden, loadGoldenListing } from './testing/golden.js';
import type { ControlInfo, HazardFunction } from './types.js';

const FIXTURES = fileURLToPath(new URL('../test/fixtures/hazards/', import.meta.url));

/**
 * One weakened field of one real ptxas word: a control field (`field`), or the immediate operand `operand` of
 * the instruction (a DEPBAR count). `source` is a golden listing (`golden/...`) or a cubin in the fixture folder.
 */
interface Mutation {
  source: string;
  arch: string;
  function: string;
  addr: string;
  field?: keyof ControlInfo;
  operand?: number;
  value: number | null;
  expect: { kind: string; reg: string; addr: string };
}

function mutate(fn: HazardFunction, addr: number, m: Mutation): HazardFunction {
  return {
    ...fn,
    instrs: fn.instrs.map((ins) => {
      if (ins.addr !== addr) return ins;
      if (m.field) return { ...ins, control: { ...ins.control, [m.field]: m.value } };
      const operands = ins.operands.map((o, i) => (i === m.operand ? { ...o, value: m.value ?? undefined, text: `0x${(m.value ?? 0).toString(16)}` } : o));
      return { ...ins, operands };
    }),
  };
}

const cases = readdirSync(FIXTURES).sort();
const fromCubin = (name: string): boolean => existsSync(`${FIXTURES}${name}/kernel.cubin`);

function loadFunction(name: string, m: Mutation): HazardFunction {
  if (fromCubin(name)) {
    const cubin = readCubin(readFileSync(`${FIXTURES}${name}/${m.source}`), { file: m.source });
    expect(cubin.arch.name).toBe(m.arch);
    const f = cubinHazardFunctions(cubin).find((x) => x.fn.name === m.function)!;
    expect(f.undecoded).toEqual([]);
    return f.fn;
  }
  return loadGoldenListing(`${GOLDEN_DIR}${m.source.replace(/^golden\//, '')}`).find((f) => f.fn.name === m.function)!.fn;
}

describe('weakened control fields of real ptxas words are detected (golden listings: needs ../shared/golden)', () => {
  for (const name of cases) {
    it.skipIf(!fromCubin(name) && !haveGolden)(name, () => {
      const m = JSON.parse(readFileSync(`${FIXTURES}${name}/mutation.json`, 'utf8')) as Mutation;
      const fn = loadFunction(name, m);
      const addr = Number.parseInt(m.addr, 16);
      const before = fn.instrs.find((i) => i.addr === addr)!;
      // the fixture really weakens the word
      if (m.field) expect(before.control[m.field]).not.toEqual(m.value);
      else expect(before.operands[m.operand!]!.value).not.toEqual(m.value);
      expect(checkHazards(fn, { arch: m.arch }).hazards).toEqual([]);
      const r = checkHazards(mutate(fn, addr, m), { arch: m.arch });
      const lines = r.hazards.map(formatHazard);
      const hit = r.hazards.find((h) => h.kind === m.expect.kind && h.reg === m.expect.reg && h.addr === Number.parseInt(m.expect.addr, 16));
      expect(hit, lines.join('\n')).toBeDefined();
      // decoded once, checked against both sets of control words: the same hazards (without the slack histogram)
      const field = m.field;
      if (field) {
        const prepared = prepareHazardCheck(fn, { arch: m.arch, slack: false });
        expect(prepared.check(fn.instrs.map((i) => i.control)).hazards).toEqual([]);
        const weakened = prepared.check(fn.instrs.map((i) => (i.addr === addr ? { ...i.control, [field]: m.value } : i.control)));
        expect(weakened.hazards).toEqual(r.hazards);
        expect(weakened.slack.size).toBe(0);
      } else {
        // an operand (a DEPBAR count) is part of the prepared program, not of the control words
        const prepared = prepareHazardCheck(mutate(fn, addr, m), { arch: m.arch, slack: false });
        expect(prepared.check(fn.instrs.map((i) => i.control)).hazards).toEqual(r.hazards);
      }
    });
  }
});
