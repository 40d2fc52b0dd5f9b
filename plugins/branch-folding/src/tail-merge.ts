import type { Block, Guard, Instr, OriFunction, Register } from '@ptxforge/kernel';
import { sameOperand } from '@ptxforge/opt-utils';
import { analyzeBranch, newBranch, type AnalyzedBlock } from './analyze-branch.js';
import { hashInstr } from './hash.js';
import type { BranchFoldingOptions } from './knobs.js';

/**
 * TailMergeBlocks (spec: cicc-branchfolding-tailmerge.txt, "TailMergeBlocks" and "The Check in Context"):
 * phase A merges the tails of return/exit blocks, phase B the tails of the predecessors of every block with two
 * or more of them. A merge moves the common tail of the leader into a new block "CommonTail" (by splitting the
 * leader) and replaces the tail of every other candidate with a branch to it.
 */

/** A conditional branch as it stands once a predecessor of the merge successor is normalized. */
interface VirtualBranch {
  readonly guard: Guard;
  readonly target: Block;
}
type TailElem = Instr | VirtualBranch;
const isVirtual = (e: TailElem): e is VirtualBranch => !('opcode' in e);

/** One entry of MergePotentials. */
interface Candidate {
  readonly info: AnalyzedBlock;
  /** Compared elements, in program order; the tail is a suffix of this. */
  readonly elems: readonly TailElem[];
  readonly hash: number;
  /** 0: unconditional branch, 1: fall-through, 2: conditional branch (spec: priority ordering). */
  readonly priority: number;
  /** Layout position, for deterministic ordering. */
  readonly order: number;
  /** How many of the block's instructions `elems` covers (they are instrs[0..realCount)). */
  readonly realCount: number;
}

/** Why a merge was not done; counted for remarks and tests. */
export type TailMergeRejection = 'short-tail' | 'reserved-register' | 'unprofitable';

export interface TailMergeStats {
  merges: number;
  /** Instructions no longer duplicated (sum over merges of tail length × (candidates − 1)). */
  instrsSaved: number;
  rejected: Record<TailMergeRejection, number>;
  /** One entry per merge, for remarks. */
  readonly events: Array<{ blocks: string[]; commonTail: string; length: number; phase: 'A' | 'B'; liveIns: string[]; line?: number }>;
}

export function newTailMergeStats(): TailMergeStats {
  return { merges: 0, instrsSaved: 0, rejected: { 'short-tail': 0, 'reserved-register': 0, unprofitable: 0 }, events: [] };
}

/**
 * Special registers that are hardware-defined (the spec's isReservedReg, flag 0x200): thread and block ids and
 * sizes, lane/warp ids, the cluster registers, the stack pointer and the environment registers. In Ori they are
 * read through `SR_*` operands; a read inside a tail is a use with no definition in the tail, so the register
 * would be live into CommonTail, which Gate 3 forbids.
 */
const RESERVED_SREG =
  /^SR_(TID|NTID|CTAID|NCTAID)(\.[XYZ])?$|^SR_(LANEID|WARPID|NWARPID|SMID|NSMID|GRIDID)$|^SR_CLUSTER|^SR_(CTA|N?CLUSTER)|^SR_(SP|SPL|SW_?INBASE|LWINBASE|SWINBASE)$|^SR_ENVREG\d+$|^SR_IS_EXPLICIT_CLUSTER$/;

export function isReservedSpecialRegister(name: string): boolean {
  return RESERVED_SREG.test(name);
}

function readsReservedRegister(i: Instr): boolean {
  for (const u of i.uses) if (u.kind === 'sreg' && isReservedSpecialRegister(u.name)) return true;
  return false;
}

/** isIdenticalTo: opcode with modifiers, guard, every operand and the flags; source locations do not count. */
export function instrsIdentical(a: Instr, b: Instr): boolean {
  if (a.opcode !== b.opcode || a.mods.length !== b.mods.length) return false;
  for (let k = 0; k < a.mods.length; k++) if (a.mods[k] !== b.mods[k]) return false;
  const ga = a.guard;
  const gb = b.guard;
  if (!!ga !== !!gb || (ga && gb && (ga.reg !== gb.reg || ga.not !== gb.not))) return false;
  if (a.defs.length !== b.defs.length || a.uses.length !== b.uses.length) return false;
  for (let k = 0; k < a.defs.length; k++) if (!sameOperand(a.defs[k]!, b.defs[k]!)) return false;
  for (let k = 0; k < a.uses.length; k++) if (!sameOperand(a.uses[k]!, b.uses[k]!)) return false;
  if (a.flags.size !== b.flags.size) return false;
  for (const f of a.flags) if (!b.flags.has(f)) return false;
  return true;
}

function elemsIdentical(a: TailElem, b: TailElem): boolean {
  const va = isVirtual(a);
  if (va !== isVirtual(b)) return false;
  if (va) {
    const vb = b as VirtualBranch;
    return a.target === vb.target && a.guard.reg === vb.guard.reg && a.guard.not === vb.guard.not;
  }
  return instrsIdentical(a, b as Instr);
}

/**
 * Instructions a tail never crosses: convergent ones (SHFL, VOTE, BAR, BSSY/BSYNC, WARPSYNC ...). The spec only
 * forbids merging convergence pseudo-instructions with different targets; ptxforge is stricter because a merged
 * tail becomes the new reconvergence point of the two paths, which changes the active mask a warp-wide
 * instruction sees (the interpreter reconverges at immediate post-dominators, as the hardware does).
 */
function stopsTail(e: TailElem): boolean {
  return !isVirtual(e) && (!!e.info?.isConvergent || e.info?.category === 'sync');
}

/** ComputeCommonTailLength: identical elements counted backwards from both ends. */
export function commonTailLength(a: readonly TailElem[], b: readonly TailElem[]): number {
  let i = a.length - 1;
  let j = b.length - 1;
  let n = 0;
  while (i >= 0 && j >= 0) {
    const x = a[i]!;
    const y = b[j]!;
    if (stopsTail(x) || stopsTail(y) || !elemsIdentical(x, y)) break;
    n++;
    i--;
    j--;
  }
  return n;
}

/** HashEndOfMBB: the last element that is not a terminator (0 for a block of terminators only). */
function hashEnd(elems: readonly TailElem[]): number {
  for (let k = elems.length - 1; k >= 0; k--) {
    const e = elems[k]!;
    if (isVirtual(e) || e.isControlFlow) continue;
    return hashInstr(e);
  }
  return 0;
}

/** The blocks of `fn` with their layout successor, analyzed; unanalyzable blocks map to undefined. */
function analyzeAll(fn: OriFunction): Map<Block, AnalyzedBlock | undefined> {
  const out = new Map<Block, AnalyzedBlock | undefined>();
  const bs = fn.blocks;
  for (let k = 0; k < bs.length; k++) out.set(bs[k]!, analyzeBranch(bs[k]!, bs[k + 1]));
  return out;
}

function bodyOf(info: AnalyzedBlock): Instr[] {
  return info.block.instrs.slice(0, info.bodyEnd);
}

/** Phase A candidate: a return block; its EXIT/RET is part of the compared tail. */
function returnCandidate(info: AnalyzedBlock, order: number): Candidate {
  const elems = info.block.instrs.slice();
  return { info, elems, hash: hashEnd(elems), priority: 0, order, realCount: elems.length };
}

/**
 * Phase B candidate: a predecessor of `succ`, normalized so that its way into `succ` is implicit: an
 * unconditional branch to `succ` or a fall-through into it is dropped; a conditional branch stays as a virtual
 * branch to the other target (reversed when it was the branch that went to `succ`).
 */
function predCandidate(info: AnalyzedBlock, succ: Block, order: number): Candidate | undefined {
  const s = info.shape;
  const body = bodyOf(info);
  switch (s.kind) {
    case 'uncond':
      return s.target === succ ? { info, elems: body, hash: hashEnd(body), priority: 0, order, realCount: info.bodyEnd } : undefined;
    case 'fallthrough':
      return s.fall === succ ? { info, elems: body, hash: hashEnd(body), priority: 1, order, realCount: info.bodyEnd } : undefined;
    case 'cond': {
      if (s.target === succ && s.other === succ) return { info, elems: body, hash: hashEnd(body), priority: 2, order, realCount: info.bodyEnd };
      let v: VirtualBranch;
      if (s.other === succ) v = { guard: s.guard, target: s.target };
      else if (s.target === succ) v = { guard: { reg: s.guard.reg, not: !s.guard.not }, target: s.other };
      else return undefined;
      const elems = [...body, v];
      return { info, elems, hash: hashEnd(elems), priority: 2, order, realCount: info.bodyEnd };
    }
    case 'return':
      return undefined;
  }
}

/**
 * Gates 3 and 4 for a proposed tail of `len` elements: no reserved special register may be live into the
 * CommonTail, and the merge must save more than it costs (one branch into CommonTail, one more when a
 * candidate's conditional terminator has to be rewritten).
 */
function gate(group: readonly Candidate[], len: number, stats: TailMergeStats): boolean {
  const lead = group[0]!;
  for (let k = lead.elems.length - len; k < lead.elems.length; k++) {
    const e = lead.elems[k]!;
    if (!isVirtual(e) && readsReservedRegister(e)) {
      stats.rejected['reserved-register']++;
      return false;
    }
  }
  let overhead = 1;
  for (const c of group) if (c.info.shape.kind === 'cond') { overhead += 1; break; }
  if (len <= overhead) {
    stats.rejected.unprofitable++;
    return false;
  }
  return true;
}

/**
 * Merge the last `len` elements of every candidate in `group` (group[0] is the leader). The leader is split at
 * the start of its tail (its own control instructions go with the tail, so CommonTail continues exactly as the
 * leader did); every other candidate loses its tail and control instructions and branches to CommonTail.
 */
function mergeGroup(fn: OriFunction, group: readonly Candidate[], len: number): Block {
  // Index in the block where a candidate's tail starts: its real (non-virtual) tail elements are the last ones
  // of instrs[0..realCount).
  const tailStart = (c: Candidate): number => {
    const virtualInTail = c.elems.length > 0 && isVirtual(c.elems[c.elems.length - 1]!) ? 1 : 0;
    return c.realCount - (len - virtualInTail);
  };
  const lead = group[0]!;
  const leadBlock = lead.info.block;
  const splitAt = tailStart(lead);
  const common = splitAt === 0 ? leadBlock : fn.splitBlock(leadBlock, leadBlock.instrs[splitAt]!);
  for (let k = 1; k < group.length; k++) {
    const c = group[k]!;
    const b = c.info.block;
    for (const i of b.instrs.slice(tailStart(c))) b.remove(i);
    // Falling through into CommonTail needs no branch.
    if (b.layoutNext !== common) b.append(newBranch(common));
  }
  return common;
}

/**
 * computeLiveIns for a new CommonTail: registers read before being written in it. Reserved special registers
 * are filtered again (the spec's defence in depth); in Ori they are operands, never registers, so the filter is
 * the absence of any `SR_*` name here, which Gate 3 already guaranteed.
 */
export function commonTailLiveIns(common: Block): string[] {
  const defined = new Set<Register>();
  const live = new Set<Register>();
  for (const i of common.instrs) {
    for (const r of i.useRegs()) if (!defined.has(r)) live.add(r);
    for (const r of i.defRegs()) defined.add(r);
  }
  return [...live].map((r) => r.name).filter((n) => !isReservedSpecialRegister(n));
}

/** Sort by hash, then priority, then layout; try each hash group's candidates pairwise from its best leader. */
function tryTailMergeBlocks(
  fn: OriFunction,
  candidates: Candidate[],
  opts: BranchFoldingOptions,
  stats: TailMergeStats,
  phase: 'A' | 'B',
): boolean {
  candidates.sort((x, y) => x.hash - y.hash || x.priority - y.priority || x.order - y.order);
  let merged = false;
  let g0 = 0;
  while (g0 < candidates.length) {
    let g1 = g0 + 1;
    while (g1 < candidates.length && candidates[g1]!.hash === candidates[g0]!.hash) g1++;
    const group = candidates.slice(g0, g1);
    g0 = g1;
    // The leader is the first candidate in (priority, layout) order; unconditional tails are tried first.
    while (group.length >= 2) {
      const lead = group[0]!;
      let best = 0;
      const lens: number[] = [0];
      for (let k = 1; k < group.length; k++) {
        const l = commonTailLength(lead.elems, group[k]!.elems);
        lens.push(l);
        if (l > best) best = l;
      }
      if (best < opts.tailMergeSize || best === 0) {
        if (best > 0) stats.rejected['short-tail']++;
        group.shift();
        continue;
      }
      const members: Candidate[] = [lead];
      const rest: Candidate[] = [];
      for (let k = 1; k < group.length; k++) (lens[k]! >= best ? members : rest).push(group[k]!);
      if (gate(members, best, stats)) {
        const common = mergeGroup(fn, members, best);
        stats.merges++;
        stats.instrsSaved += best * (members.length - 1);
        stats.events.push({ blocks: members.map((m) => m.info.block.label), commonTail: common.label, length: best, phase, liveIns: commonTailLiveIns(common), ...(common.instrs[0]?.loc ? { line: common.instrs[0].loc.line } : {}) });
        merged = true;
        // The blocks changed: their remaining candidates of this round are stale.
        return merged;
      }
      group.splice(0, group.length, ...rest);
    }
  }
  return merged;
}

/**
 * One round of TailMergeBlocks over the function; returns whether anything changed. A merge changes the blocks
 * involved, so the analysis of the layout is redone after each one (linear, and merges are few).
 */
export function tailMergeBlocks(fn: OriFunction, opts: BranchFoldingOptions, stats: TailMergeStats): boolean {
  let infos = analyzeAll(fn);
  let order = layoutOrder(fn);
  let changed = false;
  // Phase A: blocks with no successors (their EXIT/RET is part of the tail).
  const returns: Candidate[] = [];
  for (let k = 0; k < fn.blocks.length && returns.length < opts.tailMergeThreshold; k++) {
    const info = infos.get(fn.blocks[k]!);
    if (info?.shape.kind === 'return') returns.push(returnCandidate(info, k));
  }
  if (returns.length >= 2 && tryTailMergeBlocks(fn, returns, opts, stats, 'A')) {
    changed = true;
    infos = analyzeAll(fn);
    order = layoutOrder(fn);
  }
  // Phase B: every block with two or more predecessors (a snapshot: merges insert CommonTail blocks).
  for (const succ of [...fn.blocks]) {
    if (!order.has(succ)) continue;
    const preds = succ.preds;
    if (preds.length < 2) continue;
    const cands: Candidate[] = [];
    for (const p of preds) {
      if (cands.length >= opts.tailMergeThreshold) break;
      if (p === succ) continue; // self-loop
      const info = infos.get(p);
      if (!info) continue; // Gate 2: unanalyzable terminator
      const c = predCandidate(info, succ, order.get(p)!);
      if (c) cands.push(c);
    }
    if (cands.length >= 2 && tryTailMergeBlocks(fn, cands, opts, stats, 'B')) {
      changed = true;
      infos = analyzeAll(fn);
      order = layoutOrder(fn);
    }
  }
  return changed;
}

function layoutOrder(fn: OriFunction): Map<Block, number> {
  const order = new Map<Block, number>();
  fn.blocks.forEach((b, k) => order.set(b, k));
  return order;
}
