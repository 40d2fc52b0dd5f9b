import { DominatorAnalysis, LoopAnalysis, type Block, type DomTree, type Instr, type Loop, type Operand, type OriFunction, type PhaseContext, type Register } from '@ptxforge/kernel';
import { constBits, hasObservableEffect, isPlainReg, operandKey, sameOperand } from '@ptxforge/opt-utils';
import { analyzeCountedLoop, type CountedLoop } from './iv.js';
import { dropBranchesToNext } from './region.js';

/**
 * Phase 59 OriLoopFusion (spec: ptxas-loop-passes.txt, "Phase 59 -- OriLoopFusion"). Off unless
 * PerformLoopFusion is nonzero; LoopMakeSingleEntry (knob 487) is the secondary gate. Two adjacent loops
 * L1; L2 fuse when (spec "Fusion Criteria"):
 *  1. same trip count: both counted with equal constant trips, or IVs in lockstep (same start, step, compare,
 *     bound) so that they run the same number of times (NormalizeIVBounds);
 *  2. no violated dependence (BuildDefUseSets / CheckDependencies): no register written by one loop is read
 *     or written by the other; memory ops conflict only at the same address in the same iteration (the same
 *     affine address of the lockstep IV), loads of read-only data never conflict;
 *  3. compatible structure (VerifyStructure): both single-block bodies, L2 reached only through L1's exit;
 *  4. the fused body within PerformLoopFusionBudget (when set);
 *  5. no barrier, fence or other memory/side effect between the loops;
 *  6. well dominated: the code between the loops runs exactly once after L1 and moves above it.
 * The fused loop runs L1's body then L2's body (its IV update and compare too: both IVs advance in lockstep)
 * under L1's exit test (ApplyFusion: L2's instructions move into L1's block, L2's block goes away).
 */

export interface FusionStats {
  fused: number;
  rejected: number;
}

interface Candidate {
  readonly l1: Loop;
  readonly l2: Loop;
  /** Blocks strictly between L1's latch and L2's header (L1's exit ... L2's preheader). */
  readonly between: Block[];
}

/** The adjacent loop after `l1`, or why there is none worth a remark (undefined: no loop follows at all). */
function adjacentAfter(l1: Loop, headers: ReadonlyMap<Block, Loop>): Candidate | string | undefined {
  const latch = l1.latches.length === 1 ? l1.latches[0]! : undefined;
  if (!latch) return undefined;
  const exits = latch.succs.filter((s) => !l1.blockSet.has(s));
  if (exits.length !== 1 || l1.exits.length !== 1) return undefined;
  const between: Block[] = [];
  let cur = exits[0]!;
  for (let steps = 0; ; steps++) {
    if (headers.has(cur)) {
      if (!between.length) return 'no preheader between the loops (phase 18 did not run)';
      return { l1, l2: headers.get(cur)!, between };
    }
    // Straight-line code reached only from the previous block.
    if (cur.preds.length !== 1 || cur.succs.length !== 1 || steps > 64) return undefined;
    between.push(cur);
    cur = cur.succs[0]!;
  }
}

function singleBlock(l: Loop): boolean {
  return l.blocks.length === 1 && l.children.length === 0;
}

/** The operand a loop's IV starts from: the unique def outside the loop, a `MOV x`. */
function ivStart(cl: CountedLoop, loop: Loop): Operand | undefined {
  const outside = [...cl.iv.defs].filter((d) => !d.block || !loop.blockSet.has(d.block));
  if (outside.length !== 1) return undefined;
  const d = outside[0]!;
  if (d.guard || d.opcode !== 'MOV' || d.uses.length !== 1) return undefined;
  return d.uses[0];
}

function definedIn(r: Register, blocks: ReadonlySet<Block>): boolean {
  for (const d of r.defs) if (d.block && blocks.has(d.block)) return true;
  return false;
}

/**
 * Whether two operands hold the same value at both loops: equal constants, the same index-free constant-bank
 * word, or (when `region` is given) the same register with a single def in the function outside the region
 * (the loops and the code between them lie on one straight path, so that def cannot run again in between).
 */
function sameValue(a: Operand, b: Operand, region?: ReadonlySet<Block>): boolean {
  const x = constBits(a, 32);
  if (x !== undefined) return x === constBits(b, 32);
  if (!sameOperand(a, b)) return false;
  if (a.kind === 'cbank') return !a.index;
  if (a.kind === 'reg' && region) return a.reg.defs.size === 1 && !definedIn(a.reg, region);
  return false;
}

interface MemRef {
  readonly write: boolean;
  /** Affine address in the lockstep IV: `scale|base|offset|iv-version`, or undefined when unknown. */
  readonly key: string | undefined;
}

/** Memory accesses of a single-block body with their affine address keys (relative to the loop's IV). */
function memoryRefs(body: readonly Instr[], cl: CountedLoop, region: ReadonlySet<Block>): MemRef[] | string {
  const incAt = body.indexOf(cl.inc);
  const pos = new Map<Instr, number>(body.map((i, k) => [i, k] as const));
  const out: MemRef[] = [];
  for (const i of body) {
    const info = i.info;
    if (!info) return `unknown opcode ${i.fullOpcode}`;
    const readOnly = i.opcode === 'LDC' || i.opcode === 'ULDC' || i.mods.includes('CONSTANT');
    const write = !!(info.mayStore || info.category === 'atomic' || (hasObservableEffect(i) && !i.isControlFlow));
    if (!write && (!info.mayLoad || readOnly)) continue;
    if (info.isConvergent || info.category === 'sync' || info.isCall) return `${i.fullOpcode} in a loop body`;
    const m = i.uses.find((u) => u.kind === 'mem') ?? i.defs.find((u) => u.kind === 'mem');
    let key: string | undefined;
    if (m && m.kind === 'mem' && m.base && !m.sym) {
      const defs = [...m.base.defs].filter((d) => d.block && region.has(d.block));
      const d = defs.length === 1 ? defs[0]! : undefined;
      const at = d ? pos.get(d) : undefined;
      // base = IMAD.WIDE[.U32] iv, K, X with X invariant: address = X + K*iv + offset.
      if (d && at !== undefined && at < pos.get(i)! && !d.guard && d.opcode === 'IMAD' && d.mods.includes('WIDE') && d.uses.length === 3) {
        const [a, k, x] = d.uses as [Operand, Operand, Operand];
        const kv = constBits(k, 32);
        const xInv = x.kind === 'cbank' ? !x.index : isPlainReg(x) && !definedIn(x.reg, region);
        if (isPlainReg(a) && a.reg === cl.iv && kv !== undefined && xInv) {
          key = `${d.mods.join('.')}|${kv}|${operandKey(x)}|${m.offset}|${at > incAt ? 1 : 0}`;
        }
      }
    }
    out.push({ write, key });
  }
  return out;
}

/** Whether no memory access of one loop can touch what the other one writes in an earlier iteration. */
function memoryCompatible(a: readonly MemRef[], b: readonly MemRef[]): string | undefined {
  const check = (w: readonly MemRef[], other: readonly MemRef[]): string | undefined => {
    const stores = w.filter((r) => r.write);
    if (!stores.length || !other.length) return undefined;
    const keys = new Set<string | undefined>(other.map((r) => r.key));
    for (const s of stores) keys.add(s.key);
    if (keys.has(undefined)) return 'a memory access whose address is not an affine function of the IV meets a store of the other loop';
    if (keys.size > 1) return 'stores of one loop and accesses of the other use different addresses (possible cross-iteration dependence)';
    return undefined;
  };
  return check(a, b) ?? check(b, a);
}

function loopLine(l: Loop): number | undefined {
  for (const b of l.blocks) for (const i of b.instrs) if (i.loc) return i.loc.line;
  return undefined;
}

/** Phase 59 on one function. */
export function fuseLoops(ctx: PhaseContext, fn: OriFunction): FusionStats {
  const stats: FusionStats = { fused: 0, rejected: 0 };
  const budget = ctx.knob<number>('PerformLoopFusionBudget');
  const reported = new Set<string>();
  for (let changed = true; changed; ) {
    changed = false;
    const loops = ctx.analysis(fn, LoopAnalysis);
    const dom = ctx.analysis(fn, DominatorAnalysis);
    const headers = new Map<Block, Loop>(loops.all.map((l) => [l.header, l] as const));
    for (const l1 of loops.all) {
      const c = adjacentAfter(l1, headers);
      if (!c) continue;
      const pairKey = typeof c === 'string' ? `${l1.header.label}|` : `${l1.header.label}|${c.l2.header.label}`;
      const l2 = typeof c === 'string' ? undefined : c.l2;
      const line = loopLine(l1);
      const base = { fn: fn.name, block: l1.header.label, ...(line !== undefined ? { line } : {}) };
      const why = typeof c === 'string' ? c : fusionBlocker(c, dom, budget);
      if (why) {
        if (!reported.has(pairKey)) {
          reported.add(pairKey);
          stats.rejected++;
          ctx.remark({
            kind: 'missed', name: 'LoopNotFused', ...base,
            message: `not fused${l2 ? ` with the loop at ${l2.header.label}` : ''}: ${why}`,
            args: { reason: why, ...(l2 ? { with: l2.header.label } : {}) },
          });
        }
        continue;
      }
      const cand = c as Candidate;
      const n = applyFusion(fn, cand);
      stats.fused++;
      ctx.remark({
        kind: 'passed', name: 'LoopFused', ...base,
        message: `loop fused with the adjacent loop at ${cand.l2.header.label}: ${n} instructions in the fused body`,
        args: { with: cand.l2.header.label, instructions: n },
      });
      ctx.invalidate(fn, 'none');
      changed = true;
      break;
    }
  }
  return stats;
}

/** Why the candidate pair cannot be fused, or undefined. */
function fusionBlocker(c: Candidate, dom: DomTree, budget: number): string | undefined {
  const { l1, l2, between } = c;
  if (!singleBlock(l1) || !singleBlock(l2)) return 'both loops must have single-block bodies';
  const h1 = l1.header;
  const h2 = l2.header;
  if (h1.attrs.has('nounroll') !== h2.attrs.has('nounroll')) return 'the loops carry different nounroll pragmas';
  const cl1 = analyzeCountedLoop(l1, dom);
  const cl2 = analyzeCountedLoop(l2, dom);
  if ('code' in cl1) return `the first loop is not a counted loop (${cl1.reason})`;
  if ('code' in cl2) return `the second loop is not a counted loop (${cl2.reason})`;
  if (cl1.sideCondition || cl2.sideCondition) return 'a loop also leaves on a condition besides its trip count';
  if (cl1.bits !== 32 || cl2.bits !== 32 || cl1.float || cl2.float) return 'a loop counts with a 64-bit or floating-point IV';
  if (!l1.preheader || l1.preheader.succs.length !== 1) return 'the first loop has no dedicated preheader';
  // 5/6: the code between moves above L1: no effects, no register conflict with L1.
  const betweenInstrs: Instr[] = [];
  for (const b of between) for (const i of b.instrs) if (!i.isControlFlow) betweenInstrs.push(i);
  const regs1 = touched(h1);
  for (const i of betweenInstrs) {
    if (hasObservableEffect(i) || i.info?.mayLoad || i.info?.mayStore) return `${i.fullOpcode} between the loops (barrier, fence or memory access)`;
    for (const r of i.useRegs()) if (regs1.writes.has(r)) return `the code between the loops reads ${r.name}, which the first loop writes`;
    for (const r of i.defRegs()) if (regs1.writes.has(r) || regs1.reads.has(r)) return `the code between the loops writes ${r.name}, which the first loop uses`;
    if (i.guard && regs1.writes.has(i.guard.reg)) return `the code between the loops is guarded by ${i.guard.reg.name}, which the first loop writes`;
  }
  // 1: same trip count.
  const region = new Set<Block>([h1, h2, ...between]);
  const s1 = ivStart(cl1, l1);
  const s2 = ivStart(cl2, l2);
  // Starts: constants only (the code before L1 is not a straight path, so a register may differ there).
  const lockstep = !!s1 && !!s2 && sameValue(s1, s2) && cl1.step === cl2.step;
  const sameShape = lockstep && cl1.cmp === cl2.cmp && cl1.signed === cl2.signed && cl1.delta === cl2.delta && sameValue(cl1.bound, cl2.bound, region);
  const sameConst = cl1.tripCount !== undefined && cl1.tripCount === cl2.tripCount;
  if (!sameConst && !sameShape) {
    return cl1.tripCount !== undefined && cl2.tripCount !== undefined
      ? `different trip counts (${cl1.tripCount} and ${cl2.tripCount})`
      : 'the trip counts cannot be shown equal (IV start, step, compare or bound differ)';
  }
  // 2: dependences. Registers: disjoint writes/uses between the bodies.
  const regs2 = touched(h2);
  for (const r of regs1.writes) if (regs2.reads.has(r) || regs2.writes.has(r)) return `register ${r.name} is written by the first loop and used by the second`;
  for (const r of regs2.writes) if (regs1.reads.has(r)) return `register ${r.name} is written by the second loop and read by the first`;
  const body1 = h1.instrs.filter((i) => !i.isControlFlow);
  const body2 = h2.instrs.filter((i) => !i.isControlFlow);
  const m1 = memoryRefs(body1, cl1, region);
  const m2 = memoryRefs(body2, cl2, region);
  if (typeof m1 === 'string') return m1;
  if (typeof m2 === 'string') return m2;
  if ((m1.some((r) => r.write) && m2.length) || (m2.some((r) => r.write) && m1.length)) {
    if (!lockstep) return 'memory accesses with IVs that are not in lockstep';
    const why = memoryCompatible(m1, m2);
    if (why) return why;
  }
  // 4: budget.
  const size = body1.length + body2.length + 1;
  if (budget > 0 && size > budget) return `the fused body (${size} instructions) exceeds PerformLoopFusionBudget ${budget}`;
  return undefined;
}

function touched(b: Block): { reads: Set<Register>; writes: Set<Register> } {
  const reads = new Set<Register>();
  const writes = new Set<Register>();
  for (const i of b.instrs) {
    for (const r of i.useRegs()) reads.add(r);
    for (const r of i.defRegs()) writes.add(r);
  }
  return { reads, writes };
}

/** Move the code between the loops above L1, L2's body into L1 before its back branch; drop L2's block. */
function applyFusion(fn: OriFunction, c: Candidate): number {
  const { l1, l2, between } = c;
  const h1 = l1.header;
  const h2 = l2.header;
  const pre1 = l1.preheader!;
  for (const b of between) {
    for (const i of [...b.instrs]) if (!i.isControlFlow) fn.moveInstr(i, pre1, () => pre1.bodyEnd);
  }
  const back1 = h1.instrs[h1.bodyEnd]!;
  for (const i of [...h2.instrs]) if (!i.isControlFlow) fn.moveInstr(i, h1, () => h1.indexOf(back1));
  // L2's block now holds only its branches: the path into it goes to its exit instead.
  const exit2 = l2.exits[0]!.to;
  const pre2 = between[between.length - 1]!;
  fn.materializeFallthrough(h2);
  fn.redirectEdge(pre2, h2, exit2);
  fn.removeBlocks([h2]);
  dropBranchesToNext(fn, [pre1, h1, ...between]);
  return h1.instrs.length;
}
