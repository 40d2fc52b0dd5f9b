import { Instr, type Block, type Operand, type OriFunction, type Register } from '@ptxforge/kernel';

/** `d = PHI v0, bb0, v1, bb1, ...` split into (value, predecessor) pairs. */
export function phiIncoming(phi: Instr): Array<{ value: Operand; pred: Block }> {
  const out: Array<{ value: Operand; pred: Block }> = [];
  for (let k = 0; k + 1 < phi.uses.length; k += 2) {
    const l = phi.uses[k + 1]!;
    if (l.kind !== 'label') throw new Error(`PHI operand ${k + 1} is not a label`);
    out.push({ value: phi.uses[k]!, pred: l.block });
  }
  return out;
}

function copyOpcode(r: Register): string {
  return r.cls === 'R' || r.cls === 'UR' ? 'MOV' : 'COPY';
}

/**
 * Phase 23 GenerateMovPhi: every PHI becomes MovPhi copies on its incoming edges (spec: "SSA phi insertion
 * after unrolling changes the CFG": the MovPhi form is what later phases and phase 73 expect).
 * Critical edges are split so a copy never runs on another path. When the PHI's register is itself read by
 * a PHI of the same block (the swap problem), values go through a fresh temporary copied at the block start.
 * Returns the number of PHIs rewritten.
 */
export function generateMovPhis(fn: OriFunction): number {
  let n = 0;
  for (const b of [...fn.blocks]) {
    const phis = b.instrs.filter((i) => i.opcode === 'PHI');
    if (!phis.length) continue;
    const readByPhi = new Set<Register>();
    for (const p of phis) for (const { value } of phiIncoming(p)) if (value.kind === 'reg') readByPhi.add(value.reg);
    // Split critical edges first (each pred with several successors gets its own block).
    const edgeBlock = new Map<Block, Block>();
    for (const pred of [...b.preds]) edgeBlock.set(pred, pred.succs.length > 1 ? fn.splitEdge(pred, b) : pred);
    for (const phi of phis) {
      const d = phi.defs[0];
      if (d?.kind !== 'reg') throw new Error('PHI without a register def');
      const target = readByPhi.has(d.reg) || phiReadsInTerminators(d.reg, edgeBlock) ? fn.newReg(d.reg.cls, d.reg.width) : d.reg;
      for (const { value, pred } of phiIncoming(phi)) {
        const at = edgeBlock.get(pred);
        if (!at) throw new Error(`PHI names ${pred.label}, which is not a predecessor of ${b.label}`);
        at.appendBody(new Instr('MOVPHI', { defs: [{ kind: 'reg', reg: target }], uses: [value], loc: phi.loc }));
      }
      if (target !== d.reg) b.insertBefore(phi, new Instr(copyOpcode(d.reg), { defs: [d], uses: [{ kind: 'reg', reg: target }], loc: phi.loc }));
      b.remove(phi);
      n++;
    }
  }
  return n;
}

function phiReadsInTerminators(r: Register, edgeBlocks: ReadonlyMap<Block, Block>): boolean {
  for (const at of edgeBlocks.values()) for (const i of at.instrs) if (i.isControlFlow && i.useRegs().includes(r)) return true;
  return false;
}

/**
 * Phase 73 ConvertAllMovPhiToMov: destroy the SSA form before register allocation. Remaining PHIs are first
 * put in MovPhi form, then every MOVPHI becomes a plain MOV (COPY for predicate and barrier registers).
 */
export function convertMovPhisToMovs(fn: OriFunction): number {
  generateMovPhis(fn);
  let n = 0;
  for (const b of fn.blocks) {
    for (const i of [...b.instrs]) {
      if (i.opcode !== 'MOVPHI') continue;
      const d = i.defs[0];
      const op = d?.kind === 'reg' ? copyOpcode(d.reg) : 'MOV';
      b.insertBefore(i, new Instr(op, { guard: i.guard, defs: i.defs, uses: i.uses, loc: i.loc, flags: i.flags }));
      b.remove(i);
      n++;
    }
  }
  return n;
}
