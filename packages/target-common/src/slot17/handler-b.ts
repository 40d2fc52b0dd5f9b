import type { Instr, OriFunction, PhaseContext, Slot17Handler } from '@ptxforge/kernel';
import { KNOB_NEAR_BRANCH_BACKWARD, KNOB_NEAR_BRANCH_FORWARD } from './knobs.js';

/**
 * Slot-17 handler B (spec: sub_729160, Ampere and Ada): a per-instruction control-flow classifier, then the
 * rewriting of near branches to the short encoding those architectures have.
 *
 * Categories follow the spec's table. The spec gives the return values 3 (simple control flow), 4 (BRX),
 * 6 (specific control flow) and -1 (unhandled); the others come from helper functions it does not show, so
 * their numbers here are ours: CALL 2, BSSY 5, RET 7, EXIT/JMX 8, and BRA returns its distance class
 * (1 near, 0 far). Ori has no CAL/BRK/CONT; BSYNC and WARPSYNC are its simple control flow.
 */
export type ControlFlowCategory = 'call' | 'sync-push' | 'simple' | 'branch' | 'return' | 'indexed' | 'jump-exit' | 'other';

export interface Classification {
  readonly category: ControlFlowCategory;
  readonly code: number;
}

export const NEAR_FLAG = 'near';

export interface NearThresholds {
  readonly forward: number;
  readonly backward: number;
}

/** Instruction offset of every instruction and block start in layout order (the distance metric's unit). */
export function instructionOffsets(fn: OriFunction): { instr: Map<Instr, number>; block: Map<OriFunction['blocks'][number], number> } {
  const instr = new Map<Instr, number>();
  const block = new Map<OriFunction['blocks'][number], number>();
  let n = 0;
  for (const b of fn.blocks) {
    block.set(b, n);
    for (const i of b.instrs) instr.set(i, n++);
  }
  return { instr, block };
}

/** Signed distance in instructions from the instruction after `i` to its label target. */
export function branchDistance(i: Instr, off: ReturnType<typeof instructionOffsets>): number | undefined {
  const u = i.uses[0];
  if (u?.kind !== 'label') return undefined;
  const from = off.instr.get(i);
  const to = off.block.get(u.block);
  return from === undefined || to === undefined ? undefined : to - (from + 1);
}

export function isNear(d: number, t: NearThresholds): boolean {
  return d >= 0 ? d <= t.forward : -d <= t.backward;
}

export function classifyControlFlow(i: Instr, off: ReturnType<typeof instructionOffsets>, t: NearThresholds): Classification {
  switch (i.opcode) {
    case 'CALL':
      return { category: 'call', code: 2 };
    case 'BSSY':
      return { category: 'sync-push', code: 5 };
    case 'BSYNC':
    case 'WARPSYNC':
      return { category: 'simple', code: 3 };
    case 'BRA': {
      const d = branchDistance(i, off);
      return { category: 'branch', code: d !== undefined && isNear(d, t) ? 1 : 0 };
    }
    case 'RET':
      return { category: 'return', code: 7 };
    case 'BRX':
      return { category: 'indexed', code: 4 };
    case 'JMX':
    case 'EXIT':
      return { category: 'jump-exit', code: 8 };
    default:
      return { category: 'other', code: -1 };
  }
}

/** Mark (or unmark) every BRA with the short-encoding flag; returns how many flags changed. */
export function rewriteNearBranches(fn: OriFunction, t: NearThresholds): { near: number; far: number; changed: number } {
  const off = instructionOffsets(fn);
  const r = { near: 0, far: 0, changed: 0 };
  for (const b of fn.blocks) {
    for (const i of b.instrs) {
      const c = classifyControlFlow(i, off, t);
      if (c.category !== 'branch' || i.uses[0]?.kind !== 'label') continue;
      const had = i.flags.has(NEAR_FLAG);
      if (c.code === 1) {
        r.near++;
        if (!had) (i.flags.add(NEAR_FLAG), r.changed++);
      } else {
        r.far++;
        if (had) (i.flags.delete(NEAR_FLAG), r.changed++);
      }
    }
  }
  return r;
}

export function nearThresholds(ctx: PhaseContext): NearThresholds {
  return { forward: Math.max(0, ctx.knob<number>(KNOB_NEAR_BRANCH_FORWARD)), backward: Math.max(0, ctx.knob<number>(KNOB_NEAR_BRANCH_BACKWARD)) };
}

export const slot17HandlerB: Slot17Handler = Object.freeze({
  name: 'B: per-instruction branch-distance rewriter (sub_729160)',
  status: 'implemented' as const,
  run(fn: OriFunction, ctx: PhaseContext): void {
    const t = nearThresholds(ctx);
    const r = rewriteNearBranches(fn, t);
    if (r.near + r.far === 0) return;
    ctx.remark({
      kind: 'analysis',
      name: 'Slot17HandlerB',
      fn: fn.name,
      message: `${r.near} branches within ${t.forward}/${t.backward} instructions take the short encoding, ${r.far} stay long`,
      args: { ...r },
    });
  },
});
