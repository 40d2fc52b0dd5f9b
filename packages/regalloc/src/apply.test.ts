import { describe, expect, it } from 'vitest';
import { allocateRegisters } from './allocate.js';
import { applyAllocation, type AllocationCallbacks } from './apply.js';
import { SPILL_HOMES, type PhysReg, type RaClassInfo, type RaFunction, type RaInstr, type VReg } from './types.js';

const CLASSES: RaClassInfo[] = [
  { cls: 'R', count: 255, zero: 255, alignment: { 2: 2, 4: 4 } },
  { cls: 'P', count: 7, zero: 7, alignment: {} },
];
const name = (p: PhysReg): string => `${p.cls}${p.index}${(p.width ?? 1) > 1 ? `:${p.width}` : ''}`;
const text: AllocationCallbacks<string, string> = {
  instr: (ref, _s, r) => (r.identityCopy ? undefined : `${ref} ${r.defs.map(name).join(',')} <- ${[...r.uses, ...r.partialDefs].map(name).join(',')}`),
  spillStore: (reg, slot, bytes) => `STL [${slot}].${bytes} ${name(reg)}`,
  reload: (reg, slot, bytes) => `LDL ${name(reg)} [${slot}].${bytes}`,
  remat: (ref, _s, reg) => `${ref}' ${name(reg)}`,
  save: (reg, home) => `P2R ${name(home)} <- ${name(reg)}`,
  restore: (home, reg) => `R2P ${name(reg)} <- ${name(home)}`,
};
const I = (ref: string, defs: number[], uses: number[], extra: Partial<RaInstr<string>> = {}): RaInstr<string> => ({ ref, defs, uses, ...extra });

describe('applyAllocation', () => {
  it('hands the caller physical registers, spill code and recomputations, dropping identity copies', () => {
    const vregs: VReg[] = [{ cls: 'R', width: 2 }, { cls: 'R', width: 1 }, { cls: 'R', width: 1 }, { cls: 'R', width: 1 }, { cls: 'R', width: 1 }];
    const fn: RaFunction<string> = {
      vregs,
      blocks: [{
        succs: [],
        instrs: [
          I('ld', [0], []), I('k', [1], [], { rematerializable: true }), I('a', [2], []), I('cp', [3], [2], { copy: true }),
          I('b', [4], [3, 1]), I('use', [], [0, 4]), I('use2', [], [1, 3]),
        ],
      }],
    };
    const res = allocateRegisters(fn, { classes: CLASSES, budget: { R: 4 } });
    const out = applyAllocation(res, text)[0]!;
    expect(res.stats.spillStores + res.stats.rematerializedVregs).toBeGreaterThan(0); // 5 registers wanted, 4 allowed
    expect(out.some((l) => l.startsWith('cp '))).toBe(false); // coalesced: identity copy dropped
    expect(out.some((l) => l.startsWith("k' R"))).toBe(res.stats.rematerializedVregs > 0);
    expect(out.filter((l) => l.startsWith('STL')).length).toBe(res.stats.spillStores);
    expect(out.filter((l) => l.startsWith('LDL')).length).toBe(res.stats.spillLoads);
    expect(out.find((l) => l.startsWith('ld '))).toMatch(/^ld R[02468]:2 <- $/); // the pair is aligned
  });

  it('requires save/restore callbacks when predicates live in R homes', () => {
    const vregs: VReg[] = Array.from({ length: 4 }, (): VReg => ({ cls: 'P', width: 1 }));
    const fn: RaFunction<string> = { vregs, blocks: [{ succs: [], instrs: [...vregs.map((_, i) => I(`p${i}`, [i], [])), I('use', [], [0, 1]), I('use2', [], [2, 3])] }] };
    const res = allocateRegisters(fn, { classes: CLASSES, budget: { P: 2 }, spillHome: SPILL_HOMES });
    const out = applyAllocation(res, text)[0]!;
    expect(out.filter((l) => l.startsWith('P2R')).length).toBe(res.stats.registerSaves);
    expect(out.some((l) => l.startsWith('R2P'))).toBe(true);
    const { save: _s, restore: _r, ...noHomes } = text;
    expect(() => applyAllocation(res, noHomes)).toThrow(expect.objectContaining({ code: 'RA_NO_CALLBACK' }));
  });
});
