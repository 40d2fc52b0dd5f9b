import { operandVRegs, type MFunction, type MInstr, type VReg } from './mir.js';

/** Control-flow successors of each machine block (branch targets and fall-through). */
export function machineSuccessors(fn: MFunction): number[][] {
  return fn.blocks.map((b, i) => {
    const last = b.instrs[b.instrs.length - 1];
    const next = i + 1 < fn.blocks.length ? [i + 1] : [];
    if (!last) return next;
    const uncond = !last.guard;
    if (last.opcode === 'BRA') {
      const t = (last.ops[0] as { k: string; block?: number }).block!;
      return uncond ? [t] : t === i + 1 ? next : [t, ...next];
    }
    if (last.opcode === 'EXIT' || last.opcode === 'RET') return uncond ? [] : next;
    return next;
  });
}

export interface InstrAccess {
  /** Virtual registers read (guard, sources, address bases). */
  uses: VReg[];
  /** Virtual registers written, with the mask of 32-bit components written. */
  defs: Array<{ v: VReg; mask: number }>;
}

export function accessOf(mi: MInstr): InstrAccess {
  const uses: VReg[] = [];
  const defs: Array<{ v: VReg; mask: number }> = [];
  if (mi.guard) uses.push(mi.guard.v);
  mi.ops.forEach((o, i) => {
    for (const r of operandVRegs(o)) {
      if (i < mi.ndefs && (o as { k: string }).k === 'vreg') defs.push({ v: r.v, mask: ((1 << r.span) - 1) << r.part });
      else uses.push(r.v);
    }
  });
  return { uses, defs };
}

/**
 * Live-in sets per block (virtual register ids), by the usual backward dataflow. A definition kills a register
 * only once every 32-bit component of it has been written below the point without an intervening read, and only
 * when the instruction is unguarded (a predicated write may leave the old value).
 */
export function liveIn(fn: MFunction, succs: number[][]): Array<Set<number>> {
  const n = fn.blocks.length;
  const access = fn.blocks.map((b) => b.instrs.map(accessOf));
  const gen: Array<Set<number>> = [];
  const kill: Array<Set<number>> = [];
  for (let i = 0; i < n; i++) {
    const g = new Set<number>();
    const k = new Set<number>();
    const written = new Map<number, number>();
    const instrs = fn.blocks[i]!.instrs;
    for (let j = instrs.length - 1; j >= 0; j--) {
      const a = access[i]![j]!;
      if (!instrs[j]!.guard) {
        for (const d of a.defs) {
          const m = (written.get(d.v.id) ?? 0) | d.mask;
          written.set(d.v.id, m);
          if (m === (1 << d.v.width) - 1) {
            g.delete(d.v.id);
            k.add(d.v.id);
          }
        }
      }
      for (const u of a.uses) {
        g.add(u.id);
        written.delete(u.id);
      }
    }
    // a register read in the block before being fully written is not killed by it
    for (const id of g) k.delete(id);
    gen.push(g);
    kill.push(k);
  }
  const ins: Array<Set<number>> = gen.map((g) => new Set(g));
  const preds: number[][] = Array.from({ length: n }, () => []);
  succs.forEach((ss, i) => ss.forEach((s) => preds[s]!.push(i)));
  const work: number[] = [];
  const queued = new Uint8Array(n);
  for (let i = n - 1; i >= 0; i--) {
    work.push(i);
    queued[i] = 1;
  }
  while (work.length) {
    const i = work.pop()!;
    queued[i] = 0;
    const out = new Set<number>();
    for (const s of succs[i]!) for (const id of ins[s]!) out.add(id);
    const inSet = ins[i]!;
    let grew = false;
    for (const id of out) {
      if (kill[i]!.has(id) || inSet.has(id)) continue;
      inSet.add(id);
      grew = true;
    }
    if (grew) for (const p of preds[i]!) if (!queued[p]) {
      queued[p] = 1;
      work.push(p);
    }
  }
  return ins;
}
