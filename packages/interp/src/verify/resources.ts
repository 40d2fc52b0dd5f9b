/**
 * Which kernel parameters are texture or surface handles: the handle operand of every TEX/TLD4/TXQ/SULD/SUST/SUQ
 * traced back through MOV/COPY/LDC to a parameter's constant-bank word. Generated launches (verify-each) give
 * those parameters an object instead of a buffer, so the reference run resolves them.
 */
import type { Instr, Operand, OriFunction, Register } from '@ptxforge/kernel';

export type ResourceUse =
  | { kind: 'texture'; geometry: string; result: string }
  | { kind: 'surface'; geometry: string; elementBytes: number };

const TEXTURE_OPS = new Set(['TEX', 'TLD4', 'TXQ']);
const SURFACE_OPS = new Set(['SULD', 'SUST', 'SUQ']);
const GEOMETRIES = ['1D', '2D', '3D', 'ARRAY_1D', 'ARRAY_2D', 'CUBE', 'ARRAY_CUBE'];
const SIZES: Record<string, number> = { B8: 1, B16: 2, B32: 4, B64: 8 };
/** How many copies a handle may go through before its parameter is found. */
const MAX_CHAIN = 8;

function typeSize(t: string): number {
  const m = /(\d+)$/.exec(t);
  const bits = m ? Number(m[1]) : 32;
  return Math.max(1, bits / 8);
}

/** Constant-bank 0 offset of each parameter (as the launch places them from 0x210 when not given). */
export function paramOffsets(fn: OriFunction): Map<number, number> {
  const out = new Map<number, number>();
  let next = 0x210;
  fn.params.forEach((p, k) => {
    const size = typeSize(p.type.toLowerCase()) * Math.max(1, p.count);
    const align = p.align ?? typeSize(p.type.toLowerCase());
    const off = p.cbank ? p.cbank.offset : Math.ceil(next / align) * align;
    next = off + size;
    if (!p.cbank || p.cbank.bank === 0) out.set(off, k);
  });
  return out;
}

export function resourceParams(fn: OriFunction): Map<number, ResourceUse> {
  const out = new Map<number, ResourceUse>();
  const uses: Instr[] = [];
  const defs = new Map<Register, Instr | null>();
  for (const b of fn.blocks) {
    for (const i of b.instrs) {
      for (const d of i.defs) if (d.kind === 'reg') defs.set(d.reg, defs.has(d.reg) ? null : i);
      if ((TEXTURE_OPS.has(i.opcode) || SURFACE_OPS.has(i.opcode)) && i.uses.length) uses.push(i);
    }
  }
  if (!uses.length) return out;
  const offsets = paramOffsets(fn);
  const paramOf = (o: Operand): number | undefined => {
    let cur: Operand = o;
    for (let step = 0; step < MAX_CHAIN; step++) {
      if (cur.kind === 'cbank') return cur.bank === 0 && !cur.index ? offsets.get(cur.offset) : undefined;
      if (cur.kind !== 'reg') return undefined;
      const d = defs.get(cur.reg);
      if (!d || !['MOV', 'COPY', 'LDC', 'ULDC', 'MOVPHI'].includes(d.opcode) || d.uses.length !== 1) return undefined;
      cur = d.uses[0]!;
    }
    return undefined;
  };
  for (const i of uses) {
    const k = paramOf(i.uses[0]!);
    if (k === undefined || out.has(k)) continue;
    const geometry = i.mods.find((m) => GEOMETRIES.includes(m)) ?? '2D';
    if (TEXTURE_OPS.has(i.opcode)) {
      const types = i.mods.filter((m) => m === 'F32' || m === 'S32' || m === 'U32');
      out.set(k, { kind: 'texture', geometry, result: types[0] ?? 'F32' });
    } else {
      out.set(k, { kind: 'surface', geometry, elementBytes: 4 });
    }
  }
  // surfaces: elements as wide as the widest access of the parameter (vector width x element size)
  for (const i of uses) {
    if (!SURFACE_OPS.has(i.opcode) || i.opcode === 'SUQ') continue;
    const k = paramOf(i.uses[0]!);
    const r = k === undefined ? undefined : out.get(k);
    if (!r || r.kind !== 'surface') continue;
    const size = SIZES[i.mods.find((m) => m in SIZES) ?? 'B32'] ?? 4;
    const n = i.opcode === 'SULD' ? i.defs.length : i.uses.length - 1 - coordCount(r.geometry);
    r.elementBytes = Math.max(r.elementBytes, Math.min(16, size * Math.max(1, n)));
  }
  return out;
}

function coordCount(g: string): number {
  return g === '1D' ? 1 : g === '2D' || g === 'ARRAY_1D' ? 2 : 3;
}
