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
  addressTable: Array<{ symbol: string; type?: string }>;
  /** Kernels of other objects whose address the code takes (`.extern .entry`): undefined symbols of the cubin. */
  externKernels: Set<string>;
}

function isDirectConstLoad(opcode: string, mods: readonly string[], o: Operand): boolean {
  return o.kind === 'mem' && !o.base && opcode === 'LDG' && mods.includes('CONSTANT');
}

/** Plan the module's data: one scan over every instruction of every function. */
export function planModuleData(m: OriModule): ModuleData {
  const data = planVariables(m);
  // Functions outside the module that the code calls (vprintf, malloc, ...): their addresses take bank-4 slots
  // after the variables' (R_CUDA_64 against the undefined FUNC symbol, resolved by the driver), as ptxas does.
  // The address of a kernel taken as a value (`mov.u64 %rd, kernel`, for a device-side launch) takes a slot too,
  // with R_CUDA_FUNC_DESC_64: the launch wants the kernel's function descriptor (ptxas -c writes the same
  // relocation type in its 32-bit MOV form, R_CUDA_FUNC_DESC32_LO/HI_32).
  const seen = new Set<string>();
  const varNames = new Set<string>(m.vars.map((v) => v.name));
  for (const f of m.functions) for (const v of f.vars) varNames.add(v.name);
  for (const f of m.functions) {
    for (const b of f.blocks) {
      for (const ins of b.instrs) {
        ins.uses.forEach((t, k) => {
          if (t.kind !== 'sym' || seen.has(t.name)) return;
          const callee = m.getFunction(t.name);
          if (ins.opcode === 'CALL' && k === 0) {
            if (callee && callee.blocks.length) return;
            seen.add(t.name);
            data.slots.set(t.name, data.addressTable.length);
            data.addressTable.push({ symbol: t.name });
          } else if (callee?.kind === 'entry' || (!callee && ins.opcode === 'MOV' && !varNames.has(t.name))) {
            // a kernel of this module, or (no function or variable of that name: the front end lets only
            // `.extern .entry` kernels through here) a kernel of another object, an undefined symbol
            seen.add(t.name);
            if (!callee) data.externKernels.add(t.name);
            data.slots.set(t.name, data.addressTable.length);
            data.addressTable.push({ symbol: t.name, type: 'R_CUDA_FUNC_DESC_64' });
          }
        });
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
  if (!decls.length) return { bank3, slots, variables: [], addressTable: [], externKernels: new Set() };

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
    ...(v.visible ? { visible: true } : {}),
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
  return { bank3, slots, variables, addressTable, externKernels: new Set() };
}
