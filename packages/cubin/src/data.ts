// Module data of a cubin: `.global` and `.const` variables and the constant bank 4 address table, laid out as
// ptxas 13.0 lays them out (observed on its sm_90 cubins, e.g. a module with initialised/uninitialised globals,
// a `.visible` global and `.const` tables with a pointer initialiser):
// - initialised `.global` variables in `.nv.global.init` (PROGBITS, WA), uninitialised ones in `.nv.global`
//   (NOBITS), `.const` variables in `.nv.constant3` (PROGBITS, A: constant bank 3, read as `c[0x3][off]`);
// - inside each section the `.visible` variables first, then the others, each group in declaration order, every
//   variable at its own alignment; the section aligned to its largest member;
// - the code reaches a global variable through its 64-bit address in `.nv.constant4` (`LDC.64 R, c[0x4][8*i]`),
//   an R_CUDA_64 relocation per slot (`.rela.nv.constant4`);
// - initialiser addresses are relocations of the data section (`.rela.nv.constant3`, `.rela.nv.global.init`):
//   R_CUDA_64/R_CUDA_32 for an address in the variable's own space, R_CUDA_G64/G32 for a generic one. The address of
//   a variable of bank 3 in its own space is its offset in the bank: ptxas writes it as plain data, no relocation.
import { CubinError } from './errors.js';

/** A module-scope variable as the code generator hands it to `buildCubin`. */
export interface BuildVariable {
  name: string;
  /** `global` (device memory) or `const` (constant bank 3). */
  space: 'global' | 'const';
  size: number;
  align: number;
  /** Initial bytes (`.global` variables with an initialiser go to .nv.global.init). */
  init?: Uint8Array;
  /** `.visible`/`.extern` (STB_GLOBAL); default file-local. */
  visible?: boolean;
  /** Addresses stored into the initial bytes. */
  relocations?: BuildDataRelocation[];
}

/** An address inside a variable's initialiser: `size` bytes at `offset` hold `symbol`'s address + `addend`. */
export interface BuildDataRelocation {
  offset: number;
  size: 4 | 8;
  symbol: string;
  addend?: number;
  /** Generic address (PTX `generic(x)`, and what ptxas writes for `.global` pointers in `.const` data). */
  generic?: boolean;
}

export type DataSectionName = '.nv.global.init' | '.nv.global' | '.nv.constant3';

export interface PlacedVariable extends BuildVariable {
  section: DataSectionName;
  /** Byte offset inside its section (the symbol's st_value). */
  offset: number;
}

export interface ModuleDataLayout {
  variables: PlacedVariable[];
  /** Size and alignment of each data section that holds something. */
  sections: Map<DataSectionName, { size: number; align: number }>;
  /** Look-up by name. */
  byName: Map<string, PlacedVariable>;
}

function fail(message: string): never {
  throw new CubinError('CUBIN_WRITE', message);
}

export function sectionOfVariable(v: BuildVariable): DataSectionName {
  if (v.space === 'const') return '.nv.constant3';
  return v.init || v.relocations?.length ? '.nv.global.init' : '.nv.global';
}

/** Place every variable in its section (the order rule above). Deterministic; throws CUBIN_WRITE on bad input. */
export function layoutModuleData(vars: readonly BuildVariable[]): ModuleDataLayout {
  const byName = new Map<string, PlacedVariable>();
  const sections = new Map<DataSectionName, { size: number; align: number }>();
  const placed: PlacedVariable[] = [];
  for (const v of vars) {
    if (!v.name || /\0/.test(v.name)) fail(`variable name ${JSON.stringify(v.name)} is not a valid symbol name`);
    if (byName.has(v.name)) fail(`variable ${v.name} is given twice`);
    if (!Number.isInteger(v.size) || v.size < 0) fail(`variable ${v.name}: size ${v.size} is not a byte count`);
    if (!Number.isInteger(v.align) || v.align < 1 || (v.align & (v.align - 1)) !== 0) fail(`variable ${v.name}: alignment ${v.align} is not a power of two`);
    if (v.init && v.init.length > v.size) fail(`variable ${v.name}: ${v.init.length} initial bytes for ${v.size} bytes`);
    for (const r of v.relocations ?? []) {
      if (r.offset < 0 || r.offset + r.size > v.size) fail(`variable ${v.name}: relocation at ${r.offset} is outside the variable`);
    }
    byName.set(v.name, { ...v, section: sectionOfVariable(v), offset: 0 });
  }
  for (const visible of [true, false]) {
    for (const v of vars) {
      if (!!v.visible !== visible) continue;
      const p = byName.get(v.name)!;
      const s = sections.get(p.section) ?? { size: 0, align: 1 };
      p.offset = Math.ceil(s.size / v.align) * v.align;
      s.size = p.offset + v.size;
      s.align = Math.max(s.align, v.align);
      sections.set(p.section, s);
      placed.push(p);
    }
  }
  return { variables: placed, sections, byName };
}

/**
 * The bytes of a PROGBITS data section: the initialisers, with the addresses of bank-3 variables in their own
 * space (their offsets) written in; the remaining relocations come back for the section's .rela.
 */
export function dataSectionBytes(
  layout: ModuleDataLayout,
  section: DataSectionName,
): { bytes: Uint8Array; relocations: Array<{ offset: number; type: 'R_CUDA_32' | 'R_CUDA_64' | 'R_CUDA_G32' | 'R_CUDA_G64'; symbol: string; addend: number }> } {
  const s = layout.sections.get(section);
  const bytes = new Uint8Array(s?.size ?? 0);
  const dv = new DataView(bytes.buffer);
  const relocations: ReturnType<typeof dataSectionBytes>['relocations'] = [];
  for (const v of layout.variables) {
    if (v.section !== section) continue;
    if (v.init) bytes.set(v.init, v.offset);
    for (const r of v.relocations ?? []) {
      const target = layout.byName.get(r.symbol);
      if (!target) fail(`variable ${v.name}: its initialiser names ${r.symbol}, which is not a variable of the module`);
      const at = v.offset + r.offset;
      if (target.section === '.nv.constant3' && !r.generic) {
        const value = target.offset + (r.addend ?? 0);
        if (r.size === 8) dv.setBigUint64(at, BigInt(value), true);
        else dv.setUint32(at, value >>> 0, true);
        continue;
      }
      relocations.push({ offset: at, type: r.generic ? (r.size === 8 ? 'R_CUDA_G64' : 'R_CUDA_G32') : r.size === 8 ? 'R_CUDA_64' : 'R_CUDA_32', symbol: r.symbol, addend: r.addend ?? 0 });
    }
  }
  return { bytes, relocations };
}
