import type { RaFunction, RaInstr, RaResult } from '../types.js';

/**
 * A tiny evaluator over abstract functions, for testing allocations: each instruction writes to each register
 * of each def a hash of (instruction, def position, register k, the values read); copies move values; control
 * follows successor `step mod succs`. Running the virtual function and the allocated one must read the same
 * values at every input instruction (values derived from never-defined registers are "undefined" and skipped). Control
 * counts block visits so that dropped instructions (rematerialized definitions) do not change the path.
 */
const UNDEF = -1;

function mix(h: number, x: number): number {
  h = Math.imul(h ^ x, 0x9e3779b1) >>> 0;
  return ((h ^ (h >>> 15)) >>> 0) & 0x3fffffff;
}

function defValue(id: number, pos: number, k: number, reads: readonly number[]): number {
  let h = mix(id + 1, pos * 31 + k + 7);
  for (const r of reads) {
    if (r === UNDEF) return UNDEF;
    h = mix(h, r);
  }
  return h;
}

export interface Trace {
  /** `id:uses|partial defs` values read by each executed input instruction that reads, in order */
  readonly reads: string[];
  readonly steps: number;
}

function nextBlock(succs: readonly number[], step: number): number {
  return succs.length ? succs[(step * 7 + 3) % succs.length]! : -1;
}

/** Run `fn`; instruction ids (in traces and hashes) come from `idSource` (the function before rescheduling). */
export function runVirtual(fn: RaFunction, maxSteps: number, idSource: RaFunction = fn): Trace {
  const ids = new Map<RaInstr, number>();
  let n = 0;
  for (const b of idSource.blocks) for (const i of b.instrs) ids.set(i, n++);
  const vals: number[][] = fn.vregs.map((v) => new Array<number>(v.width).fill(UNDEF));
  const reads: string[] = [];
  let b = 0, steps = 0;
  while (b >= 0 && steps < maxSteps) {
    for (const ins of fn.blocks[b]!.instrs) {
      const r = ins.uses.flatMap((u) => vals[u]!);
      const pr = (ins.partialDefs ?? []).flatMap((u) => vals[u]!);
      const id = ids.get(ins)!;
      if (r.length || pr.length) reads.push(`${id}:${r.join(',')}|${pr.join(',')}`);
      if (ins.copy) vals[ins.defs[0]!] = vals[ins.uses[0]!]!.slice();
      else ins.defs.forEach((d, pos) => { vals[d] = vals[d]!.map((_, k) => defValue(id, pos, k, r)); });
      (ins.partialDefs ?? []).forEach((d, pos) => { vals[d]![0] = defValue(id, 100 + pos, 0, [...r, ...pr]); });
    }
    steps++;
    b = nextBlock(fn.blocks[b]!.succs, steps);
  }
  return { reads, steps };
}

export function runAllocated(fn: RaFunction, res: RaResult, maxSteps: number): Trace {
  const ids = new Map<RaInstr, number>();
  let n = 0;
  for (const b of fn.blocks) for (const i of b.instrs) ids.set(i, n++);
  const regs = new Map<string, number[]>();
  const file = (cls: string): number[] => {
    let f = regs.get(cls);
    if (!f) regs.set(cls, (f = new Array<number>(256).fill(UNDEF)));
    return f;
  };
  const mem = new Map<number, number>();
  const get = (v: number): number[] => {
    const vr = res.vregs[v]!;
    const f = file(vr.cls);
    const base = res.assignment[v]!;
    return Array.from({ length: vr.width }, (_, k) => f[base + k]!);
  };
  const set = (v: number, xs: readonly number[]): void => {
    const f = file(res.vregs[v]!.cls);
    const base = res.assignment[v]!;
    xs.forEach((x, k) => { f[base + k] = x; });
  };
  const reads: string[] = [];
  let b = 0, steps = 0;
  while (b >= 0 && steps < maxSteps) {
    for (const ins of res.blocks[b]!) {
      if (ins.kind === 'spill-store') {
        get(ins.vreg).forEach((x, k) => mem.set(ins.slot + 4 * k, x));
        continue;
      }
      if (ins.kind === 'reload') {
        set(ins.vreg, Array.from({ length: res.vregs[ins.vreg]!.width }, (_, k) => mem.get(ins.slot + 4 * k) ?? UNDEF));
        continue;
      }
      if (ins.kind === 'save') {
        set(ins.home, get(ins.vreg));
        continue;
      }
      if (ins.kind === 'restore') {
        set(ins.vreg, get(ins.home));
        continue;
      }
      if (ins.kind === 'remat') {
        const id = ids.get(ins.source)!;
        set(ins.vreg, Array.from({ length: res.vregs[ins.vreg]!.width }, (_, k) => defValue(id, 0, k, [])));
        continue;
      }
      const r = ins.uses.flatMap(get);
      const pr = ins.partialDefs.flatMap(get);
      const id = ids.get(ins.source)!;
      if (r.length || pr.length) reads.push(`${id}:${r.join(',')}|${pr.join(',')}`);
      if (ins.source.copy) set(ins.defs[0]!, get(ins.uses[0]!));
      else ins.defs.forEach((d, pos) => set(d, Array.from({ length: res.vregs[d]!.width }, (_, k) => defValue(id, pos, k, r))));
      ins.partialDefs.forEach((d, pos) => { file(res.vregs[d]!.cls)[res.assignment[d]!] = defValue(id, 100 + pos, 0, [...r, ...pr]); });
    }
    steps++;
    b = nextBlock(res.succs[b]!, steps);
  }
  return { reads, steps };
}

/**
 * Instructions whose reads differ between the two traces (an undefined virtual value matches anything).
 * Reads are compared per instruction, in the order each instruction executed, so traces of a rescheduled
 * function compare with the original's.
 */
export function traceMismatches(virt: Trace, alloc: Trace): string[] {
  const byId = (t: Trace): Map<string, string[]> => {
    const m = new Map<string, string[]>();
    for (const r of t.reads) {
      const k = r.slice(0, r.indexOf(':'));
      let l = m.get(k);
      if (!l) m.set(k, (l = []));
      l.push(r.slice(r.indexOf(':') + 1));
    }
    return m;
  };
  const a = byId(virt), b = byId(alloc);
  const bad: string[] = [];
  for (const k of new Set([...a.keys(), ...b.keys()])) {
    const xs = a.get(k) ?? [], ys = b.get(k) ?? [];
    if (xs.length !== ys.length) { bad.push(`${k}: executed ${xs.length} vs ${ys.length} times`); continue; }
    xs.forEach((x, i) => {
      const p = x.split(/[,|]/), q = ys[i]!.split(/[,|]/);
      if (p.length !== q.length || p.some((v, j) => v !== String(UNDEF) && v !== q[j])) bad.push(`${k}#${i}: ${x} vs ${ys[i]}`);
    });
  }
  return bad;
}
