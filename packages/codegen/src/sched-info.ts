import type { OpcodeTable } from '@ptxforge/kernel';
import { memorySpaceOf, type RaInstr } from '@ptxforge/regalloc';
import type { MInstr } from './mir.js';

/**
 * What the list schedulers (AdvancedPhasePreSched 97, PostSchedule 110) must know of a machine instruction
 * beyond its registers, read from the toolchain's opcode table (the one the Ori function was built with, so
 * plugin opcodes are classified by their own entries): its memory effect and space, and whether it is a
 * fence nothing may cross. Everything the table does not describe as a plain computation is a fence.
 */
export interface SchedClassifier {
  readonly opcodes: OpcodeTable;
}

/** Memory modifiers that order an access against others (volatile, strong, acquire/release): fences. */
const ORDERED_MODS: ReadonlySet<string> = new Set(['STRONG', 'VOLATILE', 'MMIO', 'SC', 'ACQUIRE', 'RELEASE', 'ACQ_REL']);

/** Special registers whose value depends on when the read issues. */
const TIME_SREG = /^SR_(CLOCK|GLOBALTIMER)/;

/** Physical registers an instruction may name without ordering anything: RZ and PT are constants. */
function isConstantReg(o: { file: string; n: number }): boolean {
  return (o.file === 'R' && o.n === 255) || (o.file === 'P' && o.n === 7) || (o.file === 'UR' && o.n === 63) || (o.file === 'UP' && o.n === 7);
}

export function schedInfo(mi: MInstr, classify: SchedClassifier): Pick<RaInstr, 'op' | 'memory' | 'memorySpace' | 'fence'> {
  const op = { opcode: mi.opcode, mods: mi.mods };
  const info = classify.opcodes.get(mi.opcode);
  if (!info) return { op, fence: true };
  const memory: RaInstr['memory'] = info.category === 'atomic' ? 'atomic' : info.mayStore ? 'store' : info.mayLoad ? 'load' : undefined;
  let fence = !!(info.isControlFlow || info.isCall || info.endsFlow || info.isBranch || info.category === 'sync' || info.category === 'control' ||
    (info.hasSideEffects && !memory));
  if (memory) for (const m of mi.mods) if (ORDERED_MODS.has(m)) fence = true;
  for (let i = 0; i < mi.ops.length && !fence; i++) {
    const o = mi.ops[i]! as { k: string; name?: string; file?: string; n?: number };
    if (o.k === 'name' && TIME_SREG.test(o.name ?? '')) fence = true;
    // a physical register written here (other than RZ/PT) is invisible to the dependence graph: keep order
    else if (i < mi.ndefs && o.k === 'reg' && !isConstantReg(o as { file: string; n: number })) fence = true;
  }
  return { op, ...(memory ? { memory, memorySpace: memorySpaceOf(mi.opcode) } : {}), ...(fence ? { fence: true } : {}) };
}

