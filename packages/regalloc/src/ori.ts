import { operandRegs, type Instr, type OriFunction, type Register } from '@ptxforge/kernel';
import type { RaFunction, RaInstr, VReg } from './types.js';

/** Memory space of an Ori/SASS memory opcode (schedulers: accesses of different known spaces do not conflict). */
export function memorySpaceOf(opcode: string): string {
  if (/^(LDG|STG|ATOMG|RED|REDG|LDGSTS)$/.test(opcode)) return 'global';
  if (/^(LDS|STS|ATOMS|LDSM|STSM)$/.test(opcode)) return 'shared';
  if (/^(LDL|STL)$/.test(opcode)) return 'local';
  if (/^(LDC|ULDC)$/.test(opcode)) return 'const';
  return 'generic';
}

function isPlainRegUse(i: Instr): boolean {
  const u = i.uses[0];
  return i.uses.length === 1 && u?.kind === 'reg' && !u.neg && !u.abs && !u.not;
}

/** One Ori instruction as the allocator and schedulers see it. */
export function raInstrFromOri(i: Instr): RaInstr<Instr> {
  const guarded = !!i.guard;
  const defRegs: number[] = [];
  for (const o of i.defs) for (const r of operandRegs(o)) defRegs.push(r.id);
  const uses: number[] = [];
  for (const o of i.uses) for (const r of operandRegs(o)) uses.push(r.id);
  if (i.guard) uses.push(i.guard.reg.id);
  const info = i.info; // the function's opcode table (plugins may extend it)
  const d0 = i.defs[0];
  const u0 = i.uses[0];
  const copy = !guarded && i.opcode === 'MOV' && i.defs.length === 1 && d0?.kind === 'reg' && isPlainRegUse(i) && u0?.kind === 'reg' &&
    u0.reg.cls === d0.reg.cls && u0.reg.width === d0.reg.width && !i.mods.length;
  // a constant materialisation: recomputing it costs one instruction, less than a spill store plus reloads
  const remat = !guarded && i.defs.length === 1 && d0?.kind === 'reg' && i.uses.length === 1 &&
    ((i.opcode === 'MOV' && u0?.kind === 'imm') || ((i.opcode === 'LDC' || i.opcode === 'ULDC') && u0?.kind === 'cbank' && !u0.index));
  const memory: RaInstr['memory'] = info?.category === 'atomic' ? 'atomic' : info?.mayStore ? 'store' : info?.mayLoad ? 'load' : undefined;
  const fence = !!(info?.isControlFlow || info?.isCall || info?.category === 'sync' || (info?.hasSideEffects && !info.mayLoad && !info.mayStore));
  return {
    ref: i,
    // a guarded write leaves the old value where the guard is false: the value stays live through it
    defs: guarded ? [] : defRegs,
    ...(guarded && defRegs.length ? { partialDefs: defRegs } : {}),
    uses,
    ...(copy ? { copy: true } : {}),
    ...(remat ? { rematerializable: true } : {}),
    op: { opcode: i.opcode, mods: i.mods },
    ...(memory ? { memory, memorySpace: memorySpaceOf(i.opcode) } : {}),
    ...(fence || !info ? { fence: true } : {}),
  };
}

/**
 * The abstract function of an Ori function (SASS-level opcodes, virtual registers): vreg k is the register
 * with id k (`fn.registers[k]`), blocks in layout order with their CFG successors.
 */
export function raFunctionFromOri(fn: OriFunction): { fn: RaFunction<Instr>; registers: readonly Register[] } {
  const vregs: VReg[] = fn.registers.map((r) => ({ cls: r.cls, width: r.width }));
  const index = new Map(fn.blocks.map((b, k) => [b, k]));
  const blocks = fn.blocks.map((b) => ({ succs: b.succs.map((s) => index.get(s)!), instrs: b.instrs.map(raInstrFromOri) }));
  const entryDefs = fn.registers.filter((r) => r.isParam).map((r) => r.id);
  return { fn: { vregs, blocks, entryDefs }, registers: fn.registers };
}
