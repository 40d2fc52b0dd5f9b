import { label, type Block, type Instr, type OriFunction, type PhaseContext, type Slot17Handler } from '@ptxforge/kernel';
import { KNOB_BRANCH_TARGET_SCAN_LIMIT, KNOB_SYNC_RESTRUCTURE_DISABLE } from './knobs.js';

/**
 * Slot-17 handler A (spec: sub_849110, Pascal, Volta/Turing, Hopper/Blackwell), two phases:
 *
 * 1. Sync-pattern restructuring (sub_848F40, knob 232 disables it): a convergence barrier `%b = BSSY L` whose
 *    region — the blocks reachable from the BSSY without passing its reconvergence block L — holds no
 *    divergent control flow (no guarded branch, BRX/JMX, guarded EXIT/RET or call) cannot see its threads
 *    split, so the BSSY and its BSYNCs are deleted: the simpler pattern is plain straight-line flow.
 * 2. Branch-target scan (sub_7E6090 + sub_A9D9B0): every branch label operand (BRA, and each entry of a
 *    BRX/JMX table) that names a block holding only an unconditional `BRA C` is retargeted to C, following
 *    such chains at most `BranchTargetScanLimit` steps (knob 351).
 */

export interface HandlerAStats {
  syncRemoved: number;
  retargeted: number;
}

/** Most blocks a BSSY region may span for the restructuring to look at it (a bound on the scan, ours). */
const SYNC_REGION_LIMIT = 256;

function divergent(i: Instr): boolean {
  if (i.opcode === 'BRX' || i.opcode === 'JMX' || i.info?.isCall) return true;
  return !!i.guard && !!i.info?.isControlFlow;
}

/** Whether the region of the BSSY at `s.instrs[k]` is free of divergence (false when too big to tell). */
function regionIsUniform(s: Block, k: number, l: Block): boolean {
  for (let j = k + 1; j < s.instrs.length; j++) if (divergent(s.instrs[j]!)) return false;
  const seen = new Set<Block>([s]);
  const stack: Block[] = [];
  const succsOf = (b: Block): Block[] => [...b.succs];
  for (const t of succsOf(s)) if (t !== l && !seen.has(t)) (seen.add(t), stack.push(t));
  while (stack.length) {
    if (seen.size > SYNC_REGION_LIMIT) return false;
    const b = stack.pop()!;
    for (const i of b.instrs) if (divergent(i)) return false;
    for (const t of succsOf(b)) if (t !== l && !seen.has(t)) (seen.add(t), stack.push(t));
  }
  return true;
}

export function restructureSyncPatterns(fn: OriFunction): number {
  let removed = 0;
  for (const b of [...fn.blocks]) {
    for (let k = 0; k < b.instrs.length; k++) {
      const i = b.instrs[k]!;
      if (i.opcode !== 'BSSY' || i.guard) continue;
      const d = i.defs[0];
      const l = i.uses[0];
      if (d?.kind !== 'reg' || l?.kind !== 'label' || d.reg.defs.size !== 1) continue;
      if (!regionIsUniform(b, k, l.block)) continue;
      const bar = d.reg;
      const users = [...bar.uses.keys()];
      if (users.some((u) => u.opcode !== 'BSYNC' || !u.block)) continue; // something else reads the barrier
      for (const u of users) u.block!.remove(u);
      b.remove(i);
      k--;
      removed++;
    }
  }
  return removed;
}

/** C when `b` holds only an unguarded `BRA C`. */
function forward(b: Block): Block | undefined {
  if (b.instrs.length !== 1) return undefined;
  const i = b.instrs[0]!;
  const u = i.uses[0];
  return i.opcode === 'BRA' && !i.guard && i.uses.length === 1 && u?.kind === 'label' && u.block !== b ? u.block : undefined;
}

function follow(t: Block, limit: number): Block {
  let cur = t;
  for (let n = 0; n < limit; n++) {
    const next = forward(cur);
    if (!next || next.instrs[0]?.opcode === 'PHI') break;
    cur = next;
  }
  return cur;
}

export function branchTargetScan(fn: OriFunction, limit: number): number {
  let n = 0;
  for (const b of fn.blocks) {
    for (const i of b.instrs) {
      if (!i.isBranch) continue;
      let hit = false;
      const uses = i.uses.map((u) => {
        if (u.kind === 'label') {
          const to = follow(u.block, limit);
          if (to !== u.block && to !== b) {
            hit = true;
            n++;
            return label(to);
          }
        } else if (u.kind === 'labels') {
          let any = false;
          const blocks = u.blocks.map((x) => {
            const to = follow(x, limit);
            if (to !== x) (any = true), n++;
            return to;
          });
          if (any) {
            hit = true;
            return { kind: 'labels' as const, blocks };
          }
        }
        return u;
      });
      if (hit) i.setUses(uses);
    }
  }
  return n;
}

export function runHandlerA(fn: OriFunction, ctx: PhaseContext): HandlerAStats {
  const s: HandlerAStats = { syncRemoved: 0, retargeted: 0 };
  if (ctx.target.capabilities.convergenceBarriers && !ctx.knob<boolean>(KNOB_SYNC_RESTRUCTURE_DISABLE)) s.syncRemoved = restructureSyncPatterns(fn);
  s.retargeted = branchTargetScan(fn, Math.max(0, ctx.knob<number>(KNOB_BRANCH_TARGET_SCAN_LIMIT)));
  return s;
}

export const slot17HandlerA: Slot17Handler = Object.freeze({
  name: 'A: sync-pattern restructuring + branch scan (sub_849110)',
  status: 'implemented' as const,
  run(fn: OriFunction, ctx: PhaseContext): void {
    const s = runHandlerA(fn, ctx);
    if (s.syncRemoved + s.retargeted === 0) return;
    ctx.remark({
      kind: 'passed',
      name: 'Slot17HandlerA',
      fn: fn.name,
      message: `${s.syncRemoved} convergence barriers without divergence removed, ${s.retargeted} branch targets retargeted past branch-only blocks`,
      args: { ...s },
    });
  },
});
