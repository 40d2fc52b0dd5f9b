import type { Instr, Operand } from '@ptxforge/kernel';
import type { SassOperand } from '@ptxforge/sass';
import type { MGuard, MOperand, VMemOperand } from './mir.js';

/**
 * Selection of the Ori SYNCS forms (mbarrier objects, docs/ori-semantics.md "mbarrier objects") to sm_90's SYNCS
 * instructions, in the operand forms ptxas 13 writes (compared with `ptxas -arch=sm_90` cubins of small kernels,
 * isel-mbarrier.test.ts):
 *
 *   SYNCS.ARRIVE.TRANS64[.RED][.DROP][.A1T0|.ART0|.A0TX|.A0TR] Rd|RZ, [Ra+URZ+off], Rv|RZ
 *   SYNCS.PHASECHK.TRANS64[.TRYWAIT] P, [Ra+URZ+off], Rv
 *   SYNCS.CCTL.IV [Ra+URZ+off]
 *
 * ptxas keeps an mbarrier's address in a uniform register when it is uniform (`[UR6]`, the CTA's shared window
 * through SR_CgaCtaId); here it stays in a vector register with URZ beside it, a form the same rows hold. The
 * arrive's result is the 64-bit state before it (an aligned register pair), RZ under .RED.
 */
export interface MbarrierSelector {
  fail(why: string): never;
  emit(opcode: string, mods: string[], ops: MOperand[], ndefs: number, guard?: MGuard | null): void;
  inReg(o: MOperand): MOperand;
  part(o: Operand, part: number): MOperand;
  def(o: Operand | undefined, part?: number): MOperand;
  defWhole(o: Operand | undefined): MOperand;
  address(o: Operand, wide: boolean): MOperand;
}

const RZ: SassOperand = { k: 'reg', file: 'R', n: 255 };
const ARRIVE_MODES = new Set(['A1T0', 'ART0', 'A0TX', 'A0TR']);

function sharedAddress(sel: MbarrierSelector, o: Operand | undefined): MOperand {
  if (!o || o.kind !== 'mem') sel.fail('SYNCS without a shared-memory address');
  if (o.base && o.base.width !== 1) sel.fail('SYNCS with a 64-bit address');
  return { ...(sel.address(o, false) as VMemOperand), urz: true };
}

function value(sel: MbarrierSelector, o: Operand | undefined): MOperand {
  if (!o || o.kind === 'rz') return RZ;
  return sel.inReg(sel.part(o, 0));
}

export function selectMbarrier(sel: MbarrierSelector, ins: Instr): void {
  const mods = ins.mods;
  const a = sharedAddress(sel, ins.uses[0]);
  if (mods.includes('ARRIVE')) {
    const mode = mods.filter((m) => ARRIVE_MODES.has(m));
    if (mode.length > 1 || mods.some((m) => !ARRIVE_MODES.has(m) && !['ARRIVE', 'TRANS64', 'RED', 'DROP'].includes(m))) sel.fail(`SYNCS.${mods.join('.')}`);
    const d = ins.defs[0];
    const red = !d || d.kind !== 'reg';
    const out = ['ARRIVE', 'TRANS64', ...(red ? ['RED'] : []), ...(mods.includes('DROP') ? ['DROP'] : []), ...mode];
    return sel.emit('SYNCS', out, [red ? RZ : sel.defWhole(d), a, value(sel, ins.uses[1])], 1);
  }
  if (mods.includes('PHASECHK')) {
    const p = ins.defs[0];
    if (!p || p.kind !== 'reg') sel.fail('SYNCS.PHASECHK without a predicate result');
    return sel.emit('SYNCS', ['PHASECHK', 'TRANS64', ...(mods.includes('TRYWAIT') ? ['TRYWAIT'] : [])], [sel.def(p), a, value(sel, ins.uses[1])], 1);
  }
  if (mods.includes('CCTL') && mods.includes('IV')) return sel.emit('SYNCS', ['CCTL', 'IV'], [a], 0);
  return sel.fail(`SYNCS.${mods.join('.')}`);
}
