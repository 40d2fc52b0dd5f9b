import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { registerFileFor } from '@ptxforge/target-common';
import { AllocationSession, allocateRegisters } from './allocate.js';
import { classesFromRegisterFile, effectiveMaxRRegCount, gprBudgetFromMaxRRegCount, ptxasReportedRegisters } from './classes.js';
import { runAllocated, runVirtual, traceMismatches } from './testing/evaluator.js';
import { SPILL_HOMES, type RaFunction, type RaInstr, type RaOptions, type RaResult, type RegWidth, type VReg } from './types.js';
import { verifyAllocation } from './verify.js';

const CLASSES = classesFromRegisterFile(registerFileFor({ maxRegistersPerThread: 255, uniformRegisters: true, convergenceBarriers: true } as never));
const opts = (o: Partial<RaOptions> = {}): RaOptions => ({ classes: CLASSES, ...o });
const R = (width: RegWidth = 1, extra: Partial<VReg> = {}): VReg => ({ cls: 'R', width, ...extra });
const I = (defs: number[], uses: number[], extra: Partial<RaInstr> = {}): RaInstr => ({ defs, uses, ...extra });

function check(fn: RaFunction, o: RaOptions) {
  const res = allocateRegisters(fn, o);
  expect(verifyAllocation(res, o)).toEqual([]);
  const v = runVirtual(fn, 500);
  const a = runAllocated(fn, res, 500);
  expect(traceMismatches(v, a)).toEqual([]);
  return res;
}

describe('classes', () => {
  it('come from the RegisterFile service data', () => {
    const r = CLASSES.find((c) => c.cls === 'R')!;
    expect(r.count).toBe(255);
    expect(r.zero).toBe(255);
    expect(r.alignment[2]).toBe(2);
    expect(CLASSES.find((c) => c.cls === 'P')!.count).toBe(7);
  });
  it('relates ptxas register counts and --maxrregcount', () => {
    expect(ptxasReportedRegisters(6)).toBe(8);
    expect(gprBudgetFromMaxRRegCount(32)).toBe(30);
    expect(() => gprBudgetFromMaxRRegCount(2)).toThrow(/maxrregcount/);
    expect(effectiveMaxRRegCount(16, 'sm_90')).toEqual({ value: 24, warning: 'For profile sm_90 adjusting per thread register count of 16 to lower bound of 24' });
    expect(effectiveMaxRRegCount(40, 'sm_90')).toEqual({ value: 40 });
  });
});

describe('allocateRegisters', () => {
  it('reuses registers of dead values in straight-line code', () => {
    // a = ; b = ; c = a+b ; d = c+1 ; use d
    const fn: RaFunction = { vregs: [R(), R(), R(), R()], blocks: [{ succs: [], instrs: [I([0], []), I([1], []), I([2], [0, 1]), I([3], [2]), I([], [3])] }] };
    const res = check(fn, opts());
    expect(res.usage.R!.used).toBe(2);
    expect(res.stats.spillStores).toBe(0);
  });

  it('aligns pairs and quads', () => {
    const fn: RaFunction = {
      vregs: [R(1), R(2), R(1), R(4), R(2)],
      blocks: [{ succs: [], instrs: [I([0], []), I([1], []), I([2], []), I([3], [0]), I([4], [1, 2]), I([], [3, 4, 0, 2])] }],
    };
    const res = check(fn, opts());
    expect(res.assignment[1]! % 2).toBe(0);
    expect(res.assignment[3]! % 4).toBe(0);
    expect(res.assignment[4]! % 2).toBe(0);
  });

  it('coalesces copies so they become identity moves', () => {
    // a = ; b = a (copy) ; c = b (copy) ; use c ; a dead after the copy
    const fn: RaFunction = { vregs: [R(), R(), R()], blocks: [{ succs: [], instrs: [I([0], []), I([1], [0], { copy: true }), I([2], [1], { copy: true }), I([], [2])] }] };
    const res = check(fn, opts());
    expect(res.stats.coalescedCopies).toBe(2);
    expect(res.stats.identityCopies).toBe(2);
    const off = check(fn, opts({ coalesce: false }));
    expect(off.stats.coalescedCopies).toBe(0);
  });

  it('does not coalesce interfering copies', () => {
    // b = a ; a redefined while b is live
    const fn: RaFunction = { vregs: [R(), R()], blocks: [{ succs: [], instrs: [I([0], []), I([1], [0], { copy: true }), I([0], [0]), I([], [0, 1])] }] };
    const res = check(fn, opts());
    expect(res.assignment[0]).not.toBe(res.assignment[1]);
  });

  it('honours fixed registers, reserved registers and clobbers', () => {
    const fn: RaFunction = {
      vregs: [R(1, { fixed: 4 }), R(), R(), R()],
      blocks: [{ succs: [], instrs: [I([1], []), I([2], []), I([0], [1], { copy: true }), I([3], [0], { clobbers: [{ cls: 'R', index: 0, width: 4 }] }), I([], [2, 3])] }],
    };
    const o = opts({ reserved: { R: [1] } });
    const res = check(fn, o);
    expect(res.assignment[0]).toBe(4);
    expect(res.assignment[1]).toBe(4); // coalesced into the fixed register (George)
    expect(res.assignment[2]).toBeGreaterThanOrEqual(5); // live across the clobber of R0..R3, not the fixed R4
  });

  it('keeps values live around a loop', () => {
    // b0: i = ; s = ; b1: s = s + i ; i = i + 1 ; -> b1, b2 ; b2: use s
    const fn: RaFunction = {
      vregs: [R(), R(), R(), R()],
      blocks: [
        { succs: [1], instrs: [I([0], []), I([1], [])] },
        { succs: [1, 2], instrs: [I([2], []), I([1], [1, 0, 2]), I([0], [0])] },
        { succs: [], instrs: [I([], [1])] },
      ],
    };
    const res = check(fn, opts());
    expect(new Set([res.assignment[0], res.assignment[1], res.assignment[2]]).size).toBe(3);
  });

  it('spills under a budget and reports the spill code', () => {
    // 12 values live at once, budget 8
    const n = 12;
    const vregs = Array.from({ length: n + 1 }, () => R());
    const instrs = [...Array.from({ length: n }, (_, i) => I([i], [])), I([n], Array.from({ length: 2 }, (_, i) => i))];
    for (let i = 0; i < n; i++) instrs.push(I([], [i, n]));
    const fn: RaFunction = { vregs, blocks: [{ succs: [], instrs }] };
    const o = opts({ budget: { R: 8 } });
    const res = check(fn, o);
    expect(res.usage.R!.used).toBeLessThanOrEqual(8);
    expect(res.stats.spillStores).toBeGreaterThan(0);
    expect(res.stats.spillLoads).toBeGreaterThan(0);
    expect(res.stats.spillStoreBytes).toBe(4 * res.stats.spillStores);
    expect(res.stats.frameBytes).toBeGreaterThanOrEqual(4 * res.stats.spilledVregs);
  });

  it('shares validation and liveness in a session, and stops a spill-free trial at its first spill', () => {
    // 12 values live at once: colourable in 12 registers, not in 8
    const n = 12;
    const vregs = Array.from({ length: n + 1 }, () => R());
    const instrs = [...Array.from({ length: n }, (_, i) => I([i], [])), I([n], [0, 1])];
    for (let i = 0; i < n; i++) instrs.push(I([], [i, n]));
    const fn: RaFunction = { vregs, blocks: [{ succs: [], instrs }] };
    const session = new AllocationSession();
    const wide = allocateRegisters(fn, opts(), { session });
    expect(session.liveness).toBeDefined();
    // the same answers as allocations without a session
    expect(allocateRegisters(fn, opts({ budget: { R: 16 } }), { session })).toEqual(allocateRegisters(fn, opts({ budget: { R: 16 } })));
    expect(wide).toEqual(allocateRegisters(fn, opts()));
    expect(allocateRegisters(fn, opts({ budget: { R: 8 } }), { session }).stats.spillStores).toBeGreaterThan(0);
    expect(() => allocateRegisters(fn, opts({ budget: { R: 8 } }), { session, spillFree: true })).toThrow(expect.objectContaining({ code: 'RA_SPILL_NEEDED' }));
    expect(allocateRegisters(fn, opts({ budget: { R: 13 } }), { spillFree: true }).stats.spilledVregs).toBe(0);
    // a session belongs to one function
    expect(() => allocateRegisters({ ...fn }, opts(), { session })).toThrow(expect.objectContaining({ code: 'RA_BAD_INPUT' }));
  });

  it('refuses a spill-free trial that a clique of the function cannot fit before colouring, and only then', () => {
    // 13 values live together after the 13th def (12 defs, then one reading two of them, all read again later)
    const n = 12;
    const vregs = Array.from({ length: n + 1 }, () => R());
    const instrs = [...Array.from({ length: n }, (_, i) => I([i], [])), I([n], [0, 1])];
    for (let i = 0; i < n; i++) instrs.push(I([], [i, n]));
    const fn: RaFunction = { vregs, blocks: [{ succs: [], instrs }] };
    const session = new AllocationSession();
    allocateRegisters(fn, opts(), { session });
    expect(session.graph!.cliqueWidth.get('R')).toBe(13);
    expect(() => allocateRegisters(fn, opts({ budget: { R: 12 } }), { session, spillFree: true })).toThrow(/pairwise interfering/);
    expect(allocateRegisters(fn, opts({ budget: { R: 13 } }), { session, spillFree: true }).usage.R!.used).toBe(13);
    // a copy and its source live together do not interfere: they are no clique, one register holds both
    const cp: RaFunction = { vregs: [R(), R(), R(2)], blocks: [{ succs: [], instrs: [I([0], []), I([1], [0], { copy: true }), I([2], []), I([], [0, 1, 2])] }] };
    const s2 = new AllocationSession();
    allocateRegisters(cp, opts(), { session: s2 });
    expect(s2.graph!.cliqueWidth.get('R')).toBe(3);
    expect(allocateRegisters(cp, opts({ budget: { R: 4 } }), { session: s2, spillFree: true }).stats.spilledVregs).toBe(0);
  });

  it('copies the first-round interference graph in a session: the same answers when coalescing changes the copy', () => {
    // copies to coalesce (merges add edges and sum costs), pairs with alignment, and more values than a small budget
    const vregs = [...Array.from({ length: 10 }, () => R()), R(2), R(2), R()];
    const instrs: RaInstr[] = [];
    for (let i = 0; i < 5; i++) instrs.push(I([i], []));
    for (let i = 0; i < 5; i++) instrs.push(I([5 + i], [i], { copy: true }));
    instrs.push(I([10], [5, 6]), I([11], [7, 10]), I([12], [8, 9], { copy: false }));
    for (let i = 5; i < 10; i++) instrs.push(I([], [i, 11, 12]));
    const fn: RaFunction = { vregs, blocks: [{ succs: [], instrs }] };
    const session = new AllocationSession();
    for (const budget of [undefined, 12, 10, 9, 8, 7]) {
      const o = opts(budget === undefined ? {} : { budget: { R: budget } });
      const alone = (() => { try { return allocateRegisters(fn, o); } catch (e) { return (e as { code: string }).code; } })();
      const shared = (() => { try { return allocateRegisters(fn, o, { session }); } catch (e) { return (e as { code: string }).code; } })();
      expect(shared).toEqual(alone);
      expect(session.graph).toBeDefined();
    }
    expect(session.graph!.copies.length).toBe(5);
  });

  it('reuses a value reloaded a few instructions earlier instead of reloading it again', () => {
    // 10 values live across a region that reads each twice in a row, budget 6
    const n = 10;
    const vregs = Array.from({ length: n + 1 }, () => R());
    const instrs: RaInstr[] = [...Array.from({ length: n }, (_, i) => I([i], [])), I([n], [])];
    for (let i = 0; i < n; i++) instrs.push(I([n], [i, n]), I([n], [i, n]));
    instrs.push(I([], Array.from({ length: n + 1 }, (_, i) => i).slice(0, 4)));
    const fn: RaFunction = { vregs, blocks: [{ succs: [], instrs }] };
    const plain = check(fn, opts({ budget: { R: 6 }, reloadReuseWindow: 0 }));
    const reuse = check(fn, opts({ budget: { R: 6 } }));
    expect(plain.stats.spillLoads).toBeGreaterThan(0);
    expect(reuse.stats.spillLoads).toBeLessThan(plain.stats.spillLoads);
  });

  it('rematerializes constants instead of spilling them', () => {
    const n = 10;
    const vregs = Array.from({ length: n }, () => R());
    const instrs = [...Array.from({ length: n }, (_, i) => I([i], [], { rematerializable: true })), ...Array.from({ length: n }, (_, i) => I([], [i, (i + 1) % n]))];
    const o = opts({ budget: { R: 4 } });
    const res = check({ vregs, blocks: [{ succs: [], instrs }] }, o);
    expect(res.stats.rematerializedVregs).toBeGreaterThan(0);
    expect(res.stats.spillStores).toBe(0);
    expect(res.usage.R!.used).toBeLessThanOrEqual(4);
  });

  it('keeps classes apart (P and UR do not take R registers)', () => {
    const fn: RaFunction = {
      vregs: [R(), { cls: 'P', width: 1 }, { cls: 'UR', width: 2 }, R()],
      blocks: [{ succs: [], instrs: [I([0], []), I([1], [0]), I([2], []), I([3], [0, 2]), I([], [1, 3, 0])] }],
    };
    const res = check(fn, opts());
    expect(res.usage.P!.used).toBe(1);
    expect(res.usage.UR!.used).toBe(2);
    expect(res.usage.R!.used).toBe(2);
  });

  it('gives no register to a value where no definition reaches it (strict liveness); parameters are live from entry', () => {
    // b0: a = ; use a ; -> b1, b2   b1: x = (loop body, may be skipped) -> b2   b2: use x
    // x is read in b2 but undefined along b0 -> b2: it must not be live through b0, so it may share a's register
    const fn: RaFunction = {
      vregs: [R(), R(), R()],
      blocks: [
        { succs: [1, 2], instrs: [I([0], []), I([], [0])] },
        { succs: [2], instrs: [I([1], [])] },
        { succs: [], instrs: [I([], [1])] },
      ],
    };
    const res = check(fn, opts());
    expect(res.usage.R!.used).toBe(1);
    // with v2 a parameter (defined on entry) it is live through b0 and needs its own register
    const withParam: RaFunction = { ...fn, entryDefs: [2], blocks: [fn.blocks[0]!, fn.blocks[1]!, { succs: [], instrs: [I([], [1, 2])] }] };
    const r2 = check(withParam, opts());
    expect(r2.assignment[2]).not.toBe(r2.assignment[0]);
  });

  it('keeps predicates in R registers when more are live than P has', () => {
    // 9 predicates defined, then read in pairs: at most 2 P registers (budget) at a time
    const vregs: VReg[] = [...Array.from({ length: 9 }, (): VReg => ({ cls: 'P', width: 1 })), R()];
    const instrs = [I([9], []), ...Array.from({ length: 9 }, (_, i) => I([i], [9])), ...Array.from({ length: 9 }, (_, i) => I([9], [i, (i + 4) % 9, 9]))];
    const res = check({ vregs, blocks: [{ succs: [], instrs }] }, opts({ budget: { P: 3 }, spillHome: SPILL_HOMES }));
    expect(res.stats.homedVregs).toBeGreaterThan(0);
    expect(res.stats.registerSaves).toBeGreaterThan(0);
    expect(res.usage.P!.used).toBeLessThanOrEqual(3);
    expect(res.stats.spillStores).toBe(0);
  });

  it('rejects bad input with codes', () => {
    const bad = (fn: RaFunction, code: string): void => {
      try {
        allocateRegisters(fn, opts());
        throw new Error('no error');
      } catch (e) {
        expect((e as { code?: string }).code).toBe(code);
      }
    };
    bad({ vregs: [R()], blocks: [{ succs: [], instrs: [I([1], [])] }] }, 'RA_BAD_INPUT');
    bad({ vregs: [R()], blocks: [{ succs: [3], instrs: [] }] }, 'RA_BAD_INPUT');
    bad({ vregs: [R(2, { fixed: 3 })], blocks: [] }, 'RA_BAD_INPUT');
    bad({ vregs: [{ cls: 'Q' as never, width: 1 }], blocks: [] }, 'RA_UNKNOWN_CLASS');
    // 8 predicates live at once: P has 7, and without a home (opt-in) they cannot leave
    const vregs = Array.from({ length: 8 }, (): VReg => ({ cls: 'P', width: 1 }));
    const fn: RaFunction = { vregs, blocks: [{ succs: [], instrs: [...vregs.map((_, i) => I([i], [])), I([], vregs.map((_, i) => i))] }] };
    try {
      allocateRegisters(fn, opts());
      throw new Error('no error');
    } catch (e) {
      expect((e as { code?: string }).code).toBe('RA_UNCOLORABLE');
    }
  });
});

// ---- property tests on random CFGs ----------------------------------------------------------------------

const arbFunction = fc.record({
  widths: fc.array(fc.constantFrom<RegWidth | 0>(1, 1, 1, 2, 2, 4, 0), { minLength: 2, maxLength: 24 }),
  blocks: fc.array(
    fc.record({
      succs: fc.array(fc.nat(7), { maxLength: 2 }),
      instrs: fc.array(
        fc.record({ kind: fc.constantFrom('op', 'op', 'op', 'copy', 'const', 'partial'), d: fc.nat(100), u: fc.array(fc.nat(100), { maxLength: 2 }) }),
        { maxLength: 10 },
      ),
    }),
    { minLength: 1, maxLength: 8 },
  ),
  budget: fc.constantFrom(12, 16, 24, 255),
});

interface Spec {
  /** 0: a predicate */
  widths: (RegWidth | 0)[];
  blocks: { succs: number[]; instrs: { kind: string; d: number; u: number[] }[] }[];
}

function buildFunction(spec: Spec): RaFunction {
  const nV = spec.widths.length;
  const vregs: VReg[] = spec.widths.map((w) => (w === 0 ? { cls: 'P', width: 1 } : R(w)));
  const nB = spec.blocks.length;
  const blocks = spec.blocks.map((b) => ({
    succs: [...new Set(b.succs.map((s) => s % nB))],
    instrs: b.instrs.map((i): RaInstr => {
      const d = i.d % nV;
      if (i.kind === 'copy') {
        const s = i.u.map((x) => x % nV).find((x) => vregs[x]!.width === vregs[d]!.width && vregs[x]!.cls === vregs[d]!.cls && x !== d);
        if (s !== undefined) return I([d], [s], { copy: true });
      }
      if (i.kind === 'const') return I([d], [], { rematerializable: true });
      if (i.kind === 'partial' && vregs[d]!.width > 1) return I([], i.u.map((x) => x % nV), { partialDefs: [d] });
      return I([d], i.u.map((x) => x % nV));
    }),
  }));
  return { vregs, blocks };
}

describe('allocateRegisters on random CFGs', () => {
  it('always produces a valid allocation that computes the same values', () => {
    fc.assert(
      fc.property(arbFunction, (spec) => {
        const fn = buildFunction(spec);
        const o = opts({ budget: { R: spec.budget, P: 2 }, spillHome: SPILL_HOMES });
        const res = allocateRegisters(fn, o);
        expect(verifyAllocation(res, o)).toEqual([]);
        expect(traceMismatches(runVirtual(fn, 400), runAllocated(fn, res, 400))).toEqual([]);
        expect(res.usage.R?.used ?? 0).toBeLessThanOrEqual(spec.budget);
      }),
      { numRuns: 200, seed: 12 },
    );
  }, 120_000);

  it('answers spill-free trials in a session (clique bound) as without one', () => {
    const answer = (f: () => unknown): unknown => {
      try {
        return f();
      } catch (e) {
        // both say "no colouring within the budget without spilling" (what register-count tightening stops on)
        const code = (e as { code: string }).code;
        return code === 'RA_SPILL_NEEDED' || code === 'RA_UNCOLORABLE' ? 'no spill-free colouring' : code;
      }
    };
    fc.assert(
      fc.property(arbFunction, (spec) => {
        const fn = buildFunction(spec);
        const o = (R: number): RaOptions => opts({ budget: { R, P: 2 }, spillHome: SPILL_HOMES, reserved: { R: [1] } });
        const session = new AllocationSession();
        const first = answer(() => allocateRegisters(fn, o(spec.budget), { session }));
        if (typeof first === 'string') return; // no allocation to tighten
        for (let b = ((first as RaResult).usage.R?.used ?? 0) - 1; b >= 2; b--) {
          expect(answer(() => allocateRegisters(fn, o(b), { session, spillFree: true }))).toEqual(answer(() => allocateRegisters(fn, o(b), { spillFree: true })));
        }
      }),
      { numRuns: 150, seed: 5 },
    );
  }, 120_000);
});
