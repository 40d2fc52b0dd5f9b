import type { Operand, OriModule, VarDecl } from '@ptxforge/kernel';
import { type BuildVariable, layoutModuleData } from '@ptxforge/cubin';
import { CodegenError } from './mir.js';

/**
 * Where the module's `.global` and `.const` variables live in the cubin and how the code reaches them.
 *
 * - `.global` variables: device memory (`.nv.global.init` / `.nv.global`); the code loads the 64-bit address from
 *   constant bank 4 (`LDC.64 R, c[0x4][8*slot]`, an R_CUDA_64 relocation per slot), as ptxas does.
 * - `.const` variables: constant bank 3 (`.nv.constant3`), read with `LDC c[0x3][off]`, as ptxas does, when every
 *   use is a direct `ld.const [var+imm]`. Ori spells `ld.const` and `ld.global.nc` alike (`LDG.E.CONSTANT`), so a
 *   load through a register cannot tell a bank-3 offset from a global address; a `.const` variable whose address
 *   is taken (a `mov`, an address computation, an indexed load, an initialiser naming it) is therefore placed in
 *   device memory with the globals, where both kinds of load find it. ptxas keeps such variables in bank 3 and
 *   indexes the bank (`LDC R, c[0x3][R+off]`); our choice costs a global load instead of a constant-cache one.
 */
export interface ModuleData {
  /** Constant-bank-3 offset of each `.const` variable kept in the bank. */
  bank3: Map<string, number>;
  /** Bank-4 slot of each variable in device memory that the code addresses. */
  slots: Map<string, number>;
  /** For buildCubin. */
  variables: BuildVariable[];
  addressTable: Array<{ symbol: string }>;
}

function isDirectConstLoad(opcode: string, mods: readonly string[], o: Operand): boolean {
  return o.kind === 'mem' && !o.base && opcode === 'LDG' && mods.includes('CONSTANT');
}

/** Plan the module's data: one scan over every instruction of every function. */
export function planModuleData(m: OriModule): ModuleData {
  const data = planVariables(m);
  // Functions outside the module that the code calls (vprintf, malloc, ...): their addresses take bank-4 slots
  // after the variables' (R_CUDA_64 against the undefined FUNC symbol, resolved by the driver), as ptxas does.
  const seen = new Set<string>();
  for (const f of m.functions) {
    for (const b of f.blocks) {
      for (const ins of b.instrs) {
        if (ins.opcode !== 'CALL') continue;
        const t = ins.uses[0];
        if (t?.kind !== 'sym' || seen.has(t.name)) continue;
        const callee = m.getFunction(t.name);
        if (callee && callee.blocks.length) continue;
        seen.add(t.name);
        data.slots.set(t.name, data.addressTable.length);
        data.addressTable.push({ symbol: t.name });
      }
    }
  }
  return data;
}

function planVariables(m: OriModule): ModuleData {
  const decls: VarDecl[] = [];
  const byName = new Map<string, VarDecl>();
  const consider = (v: VarDecl) => {
    if ((v.space !== 'global' && v.space !== 'const') || byName.has(v.name)) return;
    byName.set(v.name, v);
    decls.push(v);
  };
  for (const v of m.vars) consider(v);
  for (const f of m.functions) for (const v of f.vars) consider(v);
  const bank3 = new Map<string, number>();
  const slots = new Map<string, number>();
  if (!decls.length) return { bank3, slots, variables: [], addressTable: [] };

  const escaping = new Set<string>();
  const referenced = new Set<string>();
  for (const v of decls) for (const r of v.relocs ?? []) escaping.add(r.sym);
  for (const f of m.functions) {
    for (const b of f.blocks) {
      for (const ins of b.instrs) {
        for (const o of [...ins.uses, ...ins.defs]) {
          const name = o.kind === 'sym' ? o.name : o.kind === 'mem' ? o.sym : undefined;
          if (!name || !byName.has(name)) continue;
          referenced.add(name);
          if (!isDirectConstLoad(ins.opcode, ins.mods, o)) escaping.add(name);
        }
      }
    }
  }
  const inBank3 = (v: VarDecl) => v.space === 'const' && !escaping.has(v.name);
  const variables: BuildVariable[] = decls.map((v) => ({
    name: v.name,
    space: inBank3(v) ? 'const' : 'global',
    size: v.size,
    align: Math.max(1, v.align),
    // a .const variable moved to device memory keeps its (zero) contents initialised, as constant memory is
    ...(v.init ? { init: v.init } : v.space === 'const' ? { init: new Uint8Array(0) } : {}),
    ...(v.relocs?.length
      ? {
          relocations: v.relocs.map((r) => {
            const t = byName.get(r.sym);
            if (!t) throw new CodegenError('CODEGEN_NOT_IMPLEMENTED', `not implemented: the initialiser of ${v.name} holds the address of ${r.sym}, which is no .global/.const variable`);
            return { offset: r.offset, size: r.size, symbol: r.sym, ...(r.addend ? { addend: r.addend } : {}), ...(r.generic ? { generic: true } : {}) };
          }),
        }
      : {}),
  }));
  const layout = layoutModuleData(variables);
  const addressTable: Array<{ symbol: string }> = [];
  for (const v of variables) {
    if (v.space === 'const') bank3.set(v.name, layout.byName.get(v.name)!.offset);
    else if (referenced.has(v.name)) {
      slots.set(v.name, addressTable.length);
      addressTable.push({ symbol: v.name });
    }
  }
  return { bank3, slots, variables, addressTable };
}
