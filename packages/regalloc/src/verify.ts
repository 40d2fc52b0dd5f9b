import { computeBlockLiveness, restrictToDefined } from './liveness.js';
import type { PhysReg, RaOptions, RaOutInstr, RaResult, RegClass } from './types.js';

export interface AllocationViolation {
  readonly block: number;
  /** Index in the output block; -1 for per-vreg problems. */
  readonly index: number;
  readonly message: string;
}

interface Ops {
  defs: readonly number[];
  uses: readonly number[];
  partialDefs: readonly number[];
  copySrc: number;
  clobbers: readonly PhysReg[];
}

function opsOf(ins: RaOutInstr): Ops {
  switch (ins.kind) {
    case 'instr':
      return { defs: ins.defs, uses: ins.uses, partialDefs: ins.partialDefs, copySrc: ins.source.copy ? ins.uses[0]! : -1, clobbers: ins.source.clobbers ?? [] };
    case 'spill-store':
      return { defs: [], uses: [ins.vreg], partialDefs: [], copySrc: -1, clobbers: [] };
    case 'save':
      return { defs: [ins.home], uses: [ins.vreg], partialDefs: [], copySrc: -1, clobbers: [] };
    case 'restore':
      return { defs: [ins.vreg], uses: [ins.home], partialDefs: [], copySrc: -1, clobbers: [] };
    default:
      return { defs: [ins.vreg], uses: [], partialDefs: [], copySrc: -1, clobbers: [] };
  }
}

/**
 * Check an allocation independently of the allocator: every vreg that occurs has an aligned register inside
 * the class budget that is not reserved, fixed vregs got their register, and no definition overwrites a
 * register holding another live value (a copy may share its source's register), nor does a clobber.
 * Liveness is strict (see `restrictToDefined`): a value no definition reaches holds nothing to protect.
 * Returns the violations (empty: valid).
 */
export function verifyAllocation(result: RaResult, opts: RaOptions): AllocationViolation[] {
  const out: AllocationViolation[] = [];
  const { vregs, assignment } = result;
  const info = new Map(opts.classes.map((c) => [c.cls, c]));
  const occurring = new Uint8Array(vregs.length);
  const fnView = result.blocks.map((instrs) => instrs.map(opsOf));
  for (const instrs of fnView) for (const o of instrs) for (const l of [o.defs, o.uses, o.partialDefs]) for (const v of l) occurring[v] = 1;
  for (let v = 0; v < vregs.length; v++) {
    if (!occurring[v]) continue;
    const vr = vregs[v]!;
    const c = info.get(vr.cls)!;
    const r = assignment[v]!;
    const bad = (m: string): void => void out.push({ block: -1, index: -1, message: `vreg ${v} (${vr.cls}${r}, width ${vr.width}): ${m}` });
    if (r < 0) { bad('no register'); continue; }
    if (vr.fixed !== undefined) {
      if (r !== vr.fixed) bad(`fixed to ${vr.fixed}`);
      continue;
    }
    const limit = Math.min(c.count, opts.budget?.[vr.cls] ?? c.count);
    if (r + vr.width > limit) bad(`beyond the ${limit}-register limit`);
    if (r % (c.alignment[vr.width] ?? 1) !== 0) bad('misaligned');
    const reserved = new Set(opts.reserved?.[vr.cls] ?? []);
    if (c.zero !== undefined) reserved.add(c.zero);
    for (let k = 0; k < vr.width; k++) if (reserved.has(r + k)) bad(`uses reserved register ${r + k}`);
  }
  const input = { numVregs: vregs.length, blocks: result.blocks.map((_, b) => ({ succs: result.succs[b]!, instrs: fnView[b]! })) };
  const lv = restrictToDefined(input, computeBlockLiveness(input), result.entryDefs);
  for (let b = 0; b < fnView.length; b++) {
    const occ = new Map<RegClass, Set<number>[]>();
    const slots = (cls: RegClass): Set<number>[] => {
      let a = occ.get(cls);
      if (!a) occ.set(cls, (a = Array.from({ length: 256 }, () => new Set<number>())));
      return a;
    };
    const place = (v: number, on: boolean): void => {
      const r = assignment[v]!;
      if (r < 0) return;
      const a = slots(vregs[v]!.cls);
      for (let k = 0; k < vregs[v]!.width; k++) if (on) a[r + k]!.add(v); else a[r + k]!.delete(v);
    };
    for (const v of lv.liveOut[b]!) place(v, true);
    const instrs = fnView[b]!;
    for (let i = instrs.length - 1; i >= 0; i--) {
      const o = instrs[i]!;
      for (const p of o.clobbers) {
        const a = slots(p.cls);
        for (let k = 0; k < (p.width ?? 1); k++) for (const x of a[p.index + k]!) out.push({ block: b, index: i, message: `clobber of ${p.cls}${p.index + k} hits live vreg ${x}` });
      }
      for (const d of [...o.defs, ...o.partialDefs]) {
        const r = assignment[d]!;
        if (r < 0) continue;
        const a = slots(vregs[d]!.cls);
        for (let k = 0; k < vregs[d]!.width; k++) {
          for (const x of a[r + k]!) if (x !== d && x !== o.copySrc) out.push({ block: b, index: i, message: `def of vreg ${d} overwrites ${vregs[d]!.cls}${r + k} holding live vreg ${x}` });
        }
      }
      for (const d of o.defs) place(d, false);
      for (const u of [...o.uses, ...o.partialDefs]) place(u, true);
    }
  }
  return out;
}

