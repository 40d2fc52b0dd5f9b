import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readCubin } from '@ptxforge/cubin';
import { describe, expect, it } from 'vitest';
import { prepareHazardCheck, type Hazard, type HazardRecord } from './check.js';
import { cubinHazardFunctions } from './corpus.js';
import type { ControlInfo, HazardFunction } from './types.js';

const FIXTURES = fileURLToPath(new URL('../test/fixtures/hazards/', import.meta.url));
const cubins = readdirSync(FIXTURES).filter((d) => existsSync(`${FIXTURES}${d}/kernel.cubin`)).sort();

/** Control words that protect nothing: every result read early, no scoreboards, no waits. */
const bare = (fn: HazardFunction): ControlInfo[] => fn.instrs.map(() => ({ stall: 1, yield: false, wbar: null, rbar: null, waitMask: 0, reuse: 0 }));
/** Scoreboards set but never waited on, stalls kept: the wait and late-read kinds. */
const noWaits = (fn: HazardFunction): ControlInfo[] => fn.instrs.map((i) => ({ ...i.control, waitMask: 0 }));
const noReadBarriers = (fn: HazardFunction): ControlInfo[] => fn.instrs.map((i) => ({ ...i.control, rbar: null, wbar: null }));

/** What each record code's description starts with (the scoreboard generator repairs by the code). */
const PREFIX: Record<HazardRecord['missing'], RegExp> = {
  'stall-read': /^stall: \d+ of \d+ cycles \(\w+ result read as \w+\)$/,
  stall: /^stall: \d+ of \d+ cycles$/,
  wait: /^wait on SB\d$/,
  'write-sb-none': /^write scoreboard: \w+ is variable-latency and sets none$/,
  'write-sb-on': /^write scoreboard on \w+$/,
  'read-sb': /^read scoreboard on \w+ \(source read up to \d+ cycles after issue, overwritten after \d+\)$/,
  reuse: /^reuse flag on a register this instruction overwrites$/,
};

describe('findHazards: compact records in check order, described as check describes them', () => {
  for (const name of cubins) {
    it(name, () => {
      const cubin = readCubin(readFileSync(`${FIXTURES}${name}/kernel.cubin`), { file: 'kernel.cubin' });
      let seen = 0;
      for (const { fn } of cubinHazardFunctions(cubin)) {
        const prepared = prepareHazardCheck(fn, { arch: cubin.arch.name, slack: false });
        for (const control of [bare(fn), noWaits(fn), noReadBarriers(fn), fn.instrs.map((i) => i.control)]) {
          const records = prepared.findHazards(control);
          const hazards = prepared.check(control).hazards;
          expect(prepared.describe(records)).toEqual(hazards);
          // check's order: address, then register name and kind in code-point order (stable for ties)
          const cmp = (a: Hazard, b: Hazard): number => a.addr - b.addr || (a.reg < b.reg ? -1 : a.reg > b.reg ? 1 : 0) || (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0);
          for (let k = 1; k < hazards.length; k++) expect(cmp(hazards[k - 1]!, hazards[k]!)).toBeLessThanOrEqual(0);
          records.forEach((r, k) => {
            expect(hazards[k]!.missing).toMatch(PREFIX[r.missing]);
            expect(r.addr).toBe(fn.instrs[r.second]!.addr);
            expect(r.firstAddr).toBe(fn.instrs[r.first]!.addr);
            if (r.missing === 'stall' || r.missing === 'stall-read') expect(r.b).toBeGreaterThan(r.a);
          });
          seen += records.length;
        }
      }
      // the bare control words leave hazards to find in every kernel
      expect(seen).toBeGreaterThan(0);
    });
  }
});
