import { describe, expect, it } from 'vitest';
import { Block, Instr, OriFunction, label, reg } from './core.js';

/**
 * The CFG is kept incrementally (only the edges of changed blocks are recomputed): after any sequence of
 * edits through the mutation API it must equal a recomputation from scratch, order of successors and
 * predecessors included (passes iterate them, so the order is part of the output).
 */
function rng(seed: number): (n: number) => number {
  let s = seed >>> 0 || 1;
  return (n) => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s % n;
  };
}

const snapshot = (f: OriFunction): string[] =>
  f.blocks.map((b) => `${b.label}: succs ${b.succs.map((x) => x.label).join(',')} | preds ${b.preds.map((x) => x.label).join(',')}`);

/** The same queries after forcing a full recomputation. */
function fromScratch(f: OriFunction): string[] {
  f._cfgChanged();
  return snapshot(f);
}

function build(n: number): OriFunction {
  const f = new OriFunction('k');
  const p = f.newReg('P');
  for (let k = 0; k < n; k++) f.createBlock({ label: `b${k}` });
  const r = rng(7);
  for (let k = 0; k < n - 1; k++) {
    const b = f.blocks[k]!;
    const t = f.blocks[r(n)]!;
    const form = r(4);
    if (form === 0) b.append(new Instr('BRA', { guard: { reg: p, not: false }, uses: [label(t)] }));
    else if (form === 1) b.append(new Instr('BRA', { uses: [label(t)] }));
    else if (form === 2) b.append(new Instr('MOV', { defs: [reg(f.newReg('R'))], uses: [reg(f.newReg('R'))] }));
  }
  f.blocks[n - 1]!.append(new Instr('EXIT'));
  return f;
}

describe('incremental CFG', () => {
  it('equals a full recomputation after random edits (branches, guards, moves, splits, removals, new blocks)', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const f = build(24);
      const p = f.registers.find((x) => x.cls === 'P')!;
      const r = rng(seed * 7919);
      const pick = (): Block => f.blocks[r(f.blocks.length)]!;
      for (let step = 0; step < 120; step++) {
        const b = pick();
        switch (r(9)) {
          case 0: {
            // retarget a branch
            const br = b.instrs.find((i) => i.opcode === 'BRA');
            if (br) br.setUses([label(pick())]);
            break;
          }
          case 1: {
            // remove the control tail
            const t = b.terminator;
            if (t && t.opcode !== 'EXIT') b.remove(t);
            break;
          }
          case 2:
            if (!b.terminator) b.append(new Instr('BRA', { guard: { reg: p, not: r(2) === 1 }, uses: [label(pick())] }));
            break;
          case 3: {
            const g = b.instrs.find((i) => i.opcode === 'BRA');
            if (g) g.setGuard(g.guard ? undefined : { reg: p, not: false });
            break;
          }
          case 4:
            if (b !== f.blocks[0]) {
              const a = pick();
              f.moveBlock(b, r(3) === 0 || a === b ? undefined : a);
            }
            break;
          case 5:
            if (b.instrs.length) f.splitBlock(b, b.instrs[r(b.instrs.length)]!);
            break;
          case 6: {
            const nb = f.createBlock({ after: b });
            nb.append(new Instr('BRA', { uses: [label(pick())] }));
            break;
          }
          case 7:
            if (b !== f.blocks[0] && b.preds.length === 0) f.removeBlock(b);
            break;
          case 8: {
            const s = b.succs[0];
            if (s && s !== b) f.splitEdge(b, s);
            break;
          }
        }
        if (step % 5 === 0 || step === 119) {
          const inc = snapshot(f);
          expect(fromScratch(f), `seed ${seed} step ${step}`).toEqual(inc);
        }
      }
    }
  });

  it('a 40k-block sweep that edits one block at a time and queries between edits gives the edges of a full recomputation', () => {
    const n = 40000;
    const f = new OriFunction('k');
    for (let k = 0; k < n; k++) f.createBlock({ label: `b${k}` });
    f.blocks[n - 1]!.append(new Instr('EXIT'));
    let preds = 0;
    for (let k = 1; k < n - 1; k += 2) {
      const b = f.blocks[k]!;
      b.append(new Instr('BRA', { uses: [label(f.blocks[k + 1]!)] }));
      preds += b.preds.length + f.blocks[k + 1]!.preds.length;
    }
    expect(preds).toBe(n - 2);
    expect(snapshot(f)).toEqual(fromScratch(f));
  });

  it('keeps layout positions and edges exact when blocks come and go in bursts between queries (stale positions looked up nearby)', () => {
    for (let seed = 1; seed <= 3; seed++) {
      const f = build(600);
      const r = rng(seed * 104729);
      const pick = (): Block => f.blocks[r(f.blocks.length)]!;
      for (let round = 0; round < 16; round++) {
        // A burst of placements and removals (some longer than the nearby-lookup window) without a query.
        const burst = r(3) === 0 ? 80 : 1 + r(20);
        for (let e = 0; e < burst; e++) {
          if (r(2) === 0) {
            const nb = f.createBlock({ after: pick() });
            nb.append(new Instr('BRA', { uses: [label(pick())] }));
          } else {
            const b = pick();
            if (b !== f.blocks[0] && b.preds.length === 0) f.removeBlock(b);
          }
        }
        // Queries that read stale positions: indices, layout neighbours, edges of a few blocks.
        for (let q = 0; q < 10; q++) {
          const k = r(f.blocks.length);
          const b = f.blocks[k]!;
          expect(b.index, `seed ${seed} round ${round}`).toBe(k);
          expect(b.layoutNext).toBe(f.blocks[k + 1]);
          void b.preds;
        }
        const inc = snapshot(f);
        expect(f.blocks.map((b) => b.index)).toEqual(f.blocks.map((_, k) => k));
        expect(fromScratch(f), `seed ${seed} round ${round}`).toEqual(inc);
      }
    }
  });
});
