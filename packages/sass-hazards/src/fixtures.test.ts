import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkHazards, prepareHazardCheck } from './check.js';
import { formatHazard } from './report.js';
import { GOLDEN_DIR, haveGolden, loadGoldenListing } from './testing/golden.js';
import type { ControlInfo, HazardFunction } from './types.js';

const FIXTURES = fileURLToPath(new URL('../test/fixtures/hazards/', import.meta.url));

interface Mutation {
  source: string;
  arch: string;
  function: string;
  addr: string;
  field: keyof ControlInfo;
  value: number | null;
  expect: { kind: string; reg: string; addr: string };
}

function mutate(fn: HazardFunction, addr: number, field: keyof ControlInfo, value: number | null): HazardFunction {
  return {
    ...fn,
    instrs: fn.instrs.map((ins) => (ins.addr === addr ? { ...ins, control: { ...ins.control, [field]: value } } : ins)),
  };
}

const cases = readdirSync(FIXTURES).sort();

describe.skipIf(!haveGolden)('weakened control fields of real ptxas words are detected (needs ../shared/golden)', () => {
  for (const name of cases) {
    it(name, () => {
      const m = JSON.parse(readFileSync(`${FIXTURES}${name}/mutation.json`, 'utf8')) as Mutation;
      const path = `${GOLDEN_DIR}${m.source.replace(/^golden\//, '')}`;
      const fn = loadGoldenListing(path).find((f) => f.fn.name === m.function)!.fn;
      const addr = Number.parseInt(m.addr, 16);
      const before = fn.instrs.find((i) => i.addr === addr)!;
      // the fixture really weakens the word
      expect(before.control[m.field]).not.toEqual(m.value);
      expect(checkHazards(fn, { arch: m.arch }).hazards).toEqual([]);
      const r = checkHazards(mutate(fn, addr, m.field, m.value), { arch: m.arch });
      const lines = r.hazards.map(formatHazard);
      const hit = r.hazards.find((h) => h.kind === m.expect.kind && h.reg === m.expect.reg && h.addr === Number.parseInt(m.expect.addr, 16));
      expect(hit, lines.join('\n')).toBeDefined();
      // decoded once, checked against both sets of control words: the same hazards (without the slack histogram)
      const prepared = prepareHazardCheck(fn, { arch: m.arch, slack: false });
      expect(prepared.check(fn.instrs.map((i) => i.control)).hazards).toEqual([]);
      const weakened = prepared.check(fn.instrs.map((i) => (i.addr === addr ? { ...i.control, [m.field]: m.value } : i.control)));
      expect(weakened.hazards).toEqual(r.hazards);
      expect(weakened.slack.size).toBe(0);
    });
  }
});
