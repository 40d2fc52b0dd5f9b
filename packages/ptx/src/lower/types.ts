import type { RegClass, RegWidth } from '@ptxforge/kernel';

/** A PTX fundamental type: its bit width and kind (unsigned, signed, untyped bits, float, predicate). */
export interface PtxType {
  readonly name: string;
  readonly bits: number;
  readonly kind: 'u' | 's' | 'b' | 'f' | 'pred';
}

const TYPES = new Map<string, PtxType>();
for (const [name, bits, kind] of [
  ['u8', 8, 'u'], ['u16', 16, 'u'], ['u32', 32, 'u'], ['u64', 64, 'u'],
  ['s8', 8, 's'], ['s16', 16, 's'], ['s32', 32, 's'], ['s64', 64, 's'],
  ['b8', 8, 'b'], ['b16', 16, 'b'], ['b32', 32, 'b'], ['b64', 64, 'b'], ['b128', 128, 'b'],
  ['f16', 16, 'f'], ['bf16', 16, 'f'], ['f16x2', 32, 'f'], ['bf16x2', 32, 'f'], ['f32', 32, 'f'], ['f64', 64, 'f'],
  ['tf32', 32, 'f'], ['pred', 1, 'pred'],
] as const) {
  TYPES.set(name, { name, bits, kind });
}

export function ptxType(name: string): PtxType | undefined {
  return TYPES.get(name);
}
export function isTypeMod(m: string): boolean {
  return TYPES.has(m);
}

/** Ori register class and width holding a value of this type (sub-word values live in 32-bit registers). */
export function regShape(t: PtxType): { readonly cls: RegClass; readonly width: RegWidth } {
  if (t.kind === 'pred') return SHAPE_P;
  if (t.bits <= 32) return SHAPE_R1;
  if (t.bits === 64) return SHAPE_R2;
  return SHAPE_R4;
}
// shared results (regShape runs per operand and register)
const SHAPE_P = Object.freeze({ cls: 'P', width: 1 } as const);
const SHAPE_R1 = Object.freeze({ cls: 'R', width: 1 } as const);
const SHAPE_R2 = Object.freeze({ cls: 'R', width: 2 } as const);
const SHAPE_R4 = Object.freeze({ cls: 'R', width: 4 } as const);

export function byteSize(t: PtxType): number {
  return t.kind === 'pred' ? 1 : Math.max(1, t.bits / 8);
}

/** Ori integer type modifier for a PTX integer type of 32/64 bits (`b` reads as unsigned). */
export function intMod(t: PtxType): string {
  const bits = t.bits <= 32 ? 32 : 64;
  return `${t.kind === 's' ? 'S' : 'U'}${bits}`;
}
/** Ori type modifier for conversions, keeping sub-word widths (`U16`, `S8`, `F16`, `BF16` ...). */
export function convMod(t: PtxType): string {
  if (t.kind === 'f') return t.name === 'bf16' ? 'BF16' : `F${t.bits}`;
  return `${t.kind === 's' ? 'S' : 'U'}${t.bits}`;
}
