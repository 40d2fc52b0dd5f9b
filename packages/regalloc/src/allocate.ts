import { RegallocError } from './errors.js';
import { computeBlockLiveness, restrictToDefined, SparseSet, type BlockLiveness } from './liveness.js';
import type {
  PhysReg, RaClassInfo, RaFunction, RaInstr, RaOptions, RaOutInstr, RaResult, RaStats, RegClass, RegWidth, VReg,
} from './types.js';

/*
 * Chaitin–Briggs graph colouring register allocation (Briggs, Cooper, Torczon, "Improvements to graph
 * coloring register allocation", TOPLAS 1994) with conservative coalescing (Briggs' test between virtual
 * registers, George's test against precoloured ones) and optimistic colouring, for register files with
 * aligned multi-register values:
 *
 *   repeat: liveness → interference graph → coalesce → simplify → select → (spill + rewrite) until colourable
 *
 * Widths: a node of width w picks a base aligned as the class requires; "degree" is counted in the number of
 * aligned bases a neighbour can block (a pair blocks two single-register bases, a single one pair base), so
 * the `degree < available bases` test keeps its guarantee for mixed widths.
 *
 * Cost: liveness is sparse (see liveness.ts); the graph keeps adjacency lists plus one hash set of edges, so
 * memory and time are proportional to the number of interferences (no N² matrix); edges only join vregs of
 * one class. Spill candidates come from a lazy min-heap on cost/degree.
 */

type WorkKind = 'instr' | 'spill-store' | 'reload' | 'remat' | 'save' | 'restore';

interface WorkInstr<Ref> {
  kind: WorkKind;
  source: RaInstr<Ref> | undefined;
  defs: number[];
  uses: number[];
  partialDefs: number[];
  copy: boolean;
  earlyClobber: boolean;
  clobbers: readonly PhysReg[] | undefined;
  /** spill-store / reload: slot offset and bytes; the spilled original vreg */
  slot: number;
  bytes: number;
  spilled: number;
}

interface WorkVreg {
  cls: RegClass;
  width: RegWidth;
  fixed: number | undefined;
  noSpill: boolean;
}

const WIDTHS: readonly RegWidth[] = [1, 2, 4];

/** Per-class precomputation: the allocatable limit, which bases are free of reserved registers, blocking. */
class ClassModel {
  readonly limit: number;
  readonly reservedMask: Uint8Array;
  /** aligned bases available for each width (index by width) */
  readonly slots: number[] = [0, 0, 0, 0, 0];
  /** blocked[u][w]: bases of a width-w value a width-u neighbour can block at most */
  readonly blocked: number[][] = [];
  constructor(readonly info: RaClassInfo, budget: number | undefined, reserved: readonly number[] | undefined) {
    this.limit = Math.max(0, Math.min(info.count, budget ?? info.count));
    this.reservedMask = new Uint8Array(Math.max(info.count, 256));
    for (const r of reserved ?? []) if (r >= 0 && r < this.reservedMask.length) this.reservedMask[r] = 1;
    if (info.zero !== undefined && info.zero < this.reservedMask.length) this.reservedMask[info.zero] = 1;
    for (const w of WIDTHS) {
      let n = 0;
      const a = this.align(w);
      for (let b = 0; b + w <= this.limit; b += a) if (this.rangeFree(b, w)) n++;
      this.slots[w] = n;
    }
    for (const u of WIDTHS) {
      this.blocked[u] = [];
      for (const w of WIDTHS) {
        // max over neighbour bases c (aligned for u) of #bases b (aligned for w) with [b,b+w) ∩ [c,c+u) ≠ ∅
        const au = this.align(u);
        const aw = this.align(w);
        let best = 0;
        for (let c = 0; c < 16 * au; c += au) {
          let n = 0;
          for (let b = Math.floor((c - w + 1 + 64) / aw) * aw - 64; b < c + u; b += aw) if (b + w > c) n++;
          best = Math.max(best, n);
        }
        this.blocked[u]![w] = best;
      }
    }
  }
  align(w: number): number {
    return this.info.alignment[w] ?? 1;
  }
  rangeFree(b: number, w: number): boolean {
    for (let k = 0; k < w; k++) if (this.reservedMask[b + k]) return false;
    return true;
  }
}

/**
 * Set of interference edges between nodes 0..n-1 (unordered pairs). Up to EDGE_MATRIX_MAX_NODES nodes it is the
 * classic triangular bit matrix (Chaitin): a test or insertion is one word access, where a hash set of millions of
 * pair keys (a dense graph: hundreds of values live through a long unrolled block) spent most of the allocation
 * hashing. Beyond that (the matrix would pass 32 MB) it is a hash set keyed `lo * n + hi`, sharded by the low key
 * bits because a JS Set holds at most 2^24 entries.
 */
export class EdgeSet {
  private readonly bits: Uint32Array | undefined;
  private readonly shards: Set<number>[] | undefined;
  size = 0;
  constructor(private readonly n: number, from?: EdgeSet) {
    if (from) {
      this.bits = from.bits?.slice();
      this.shards = from.shards?.map((x) => new Set(x));
      this.size = from.size;
    } else if (n <= EDGE_MATRIX_MAX_NODES) this.bits = new Uint32Array(Math.ceil((n * (n - 1)) / 2 / 32) + 1);
    else this.shards = Array.from({ length: 16 }, () => new Set<number>());
  }
  /** An independent copy. */
  clone(): EdgeSet {
    return new EdgeSet(this.n, this);
  }
  /** Whether a and b (a !== b) interfere. */
  has(a: number, b: number): boolean {
    const lo = a < b ? a : b, hi = a < b ? b : a;
    const bits = this.bits;
    if (bits) {
      const i = (hi * (hi - 1)) / 2 + lo;
      return (bits[i >>> 5]! & (1 << (i & 31))) !== 0;
    }
    const k = lo * this.n + hi;
    return this.shards![k % 16]!.has(k);
  }
  /** Add edge a–b (a !== b); false when it was there. */
  add(a: number, b: number): boolean {
    const lo = a < b ? a : b, hi = a < b ? b : a;
    const bits = this.bits;
    if (bits) {
      const i = (hi * (hi - 1)) / 2 + lo;
      const w = i >>> 5, m = 1 << (i & 31);
      if ((bits[w]! & m) !== 0) return false;
      bits[w] = bits[w]! | m;
      this.size++;
      return true;
    }
    const k = lo * this.n + hi;
    const s = this.shards![k % 16]!;
    if (s.has(k)) return false;
    s.add(k);
    this.size++;
    return true;
  }
}
/** Largest node count whose edge set is a bit matrix: n(n-1)/2 bits stay within 2^28 bits (32 MB). */
export const EDGE_MATRIX_MAX_NODES = 23_170;

/** A min-heap of (key, node, stamp) for spill candidate choice. */
class LazyHeap {
  private keys: number[] = [];
  private nodes: number[] = [];
  private stamps: number[] = [];
  get size(): number {
    return this.keys.length;
  }
  push(key: number, node: number, stamp: number): void {
    const k = this.keys, n = this.nodes, s = this.stamps;
    let i = k.length;
    k.push(key); n.push(node); s.push(stamp);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(i, p)) break;
      this.swap(i, p);
      i = p;
    }
  }
  pop(): [number, number, number] | undefined {
    const k = this.keys;
    if (!k.length) return undefined;
    const top: [number, number, number] = [k[0]!, this.nodes[0]!, this.stamps[0]!];
    const last = k.length - 1;
    this.swap(0, last);
    k.pop(); this.nodes.pop(); this.stamps.pop();
    let i = 0;
    for (;;) {
      const l = 2 * i + 1, r = l + 1;
      let m = i;
      if (l < k.length && this.less(l, m)) m = l;
      if (r < k.length && this.less(r, m)) m = r;
      if (m === i) break;
      this.swap(i, m);
      i = m;
    }
    return top;
  }
  private less(a: number, b: number): boolean {
    const ka = this.keys[a]!, kb = this.keys[b]!;
    return ka < kb || (ka === kb && this.nodes[a]! < this.nodes[b]!);
  }
  private swap(a: number, b: number): void {
    const k = this.keys, n = this.nodes, s = this.stamps;
    [k[a], k[b]] = [k[b]!, k[a]!];
    [n[a], n[b]] = [n[b]!, n[a]!];
    [s[a], s[b]] = [s[b]!, s[a]!];
  }
}

/** Block weights from layout order: each back edge s ← b (s ≤ b) adds a loop level to blocks s..b. */
export function layoutBlockWeights(blocks: RaFunction['blocks']): Float64Array {
  const n = blocks.length;
  const diff = new Int32Array(n + 1);
  for (let b = 0; b < n; b++) for (const s of blocks[b]!.succs) if (s <= b) { diff[s]!++; diff[b + 1]!--; }
  const w = new Float64Array(n);
  let depth = 0;
  for (let b = 0; b < n; b++) {
    depth += diff[b]!;
    w[b] = blocks[b]!.freq ?? Math.pow(8, Math.min(depth, 6));
  }
  return w;
}

function validate(fn: RaFunction, classes: Map<RegClass, ClassModel>): void {
  const nV = fn.vregs.length;
  fn.vregs.forEach((v, i) => {
    const cm = classes.get(v.cls);
    if (!cm) throw new RegallocError('RA_UNKNOWN_CLASS', `vreg ${i}: class ${v.cls} is not in the target's register file`);
    if (v.width !== 1 && v.width !== 2 && v.width !== 4) throw new RegallocError('RA_BAD_INPUT', `vreg ${i}: width ${String(v.width)} is not 1, 2 or 4`);
    if (v.fixed !== undefined && (!Number.isInteger(v.fixed) || v.fixed < 0 || v.fixed + v.width > cm.info.count || v.fixed % cm.align(v.width) !== 0)) {
      throw new RegallocError('RA_BAD_INPUT', `vreg ${i}: fixed register ${v.cls}${v.fixed} is out of range or misaligned for width ${v.width}`);
    }
  });
  const chk = (b: number, k: number, what: string, v: number): void => {
    if (!Number.isInteger(v) || v < 0 || v >= nV) throw new RegallocError('RA_BAD_INPUT', `block ${b} instruction ${k}: ${what} vreg ${v} is not in the vreg table (${nV})`);
  };
  fn.blocks.forEach((blk, b) => {
    for (const s of blk.succs) if (!Number.isInteger(s) || s < 0 || s >= fn.blocks.length) throw new RegallocError('RA_BAD_INPUT', `block ${b}: successor ${s} does not exist`);
    blk.instrs.forEach((ins, k) => {
      for (const v of ins.defs) chk(b, k, 'def', v);
      for (const v of ins.uses) chk(b, k, 'use', v);
      for (const v of ins.partialDefs ?? []) chk(b, k, 'partial def', v);
      if (ins.copy) {
        const d = fn.vregs[ins.defs[0]!], s = fn.vregs[ins.uses[0]!];
        if (ins.defs.length !== 1 || ins.uses.length !== 1 || !d || !s || d.cls !== s.cls || d.width !== s.width) {
          throw new RegallocError('RA_BAD_INPUT', `block ${b} instruction ${k}: a copy has one def and one use of one class and width`);
        }
      }
      for (const c of ins.clobbers ?? []) if (!classes.has(c.cls)) throw new RegallocError('RA_UNKNOWN_CLASS', `block ${b} instruction ${k}: clobber of unknown class ${c.cls}`);
    });
  });
}

/**
 * What repeated allocations of one unchanged function share (`allocateRegisters`'s `session`): the input is
 * validated once, and the first round's liveness, which depends only on the input, is computed once. A caller
 * that colours the same function under several budgets (codegen's register-count tightening) creates one
 * session per function and must not change the function while it uses the session.
 */
export class AllocationSession {
  /** The function the session belongs to (a session used with another one is an error). */
  fn: RaFunction<unknown> | undefined;
  /** The classes array `fn` was validated against. */
  validatedFor: readonly RaClassInfo[] | undefined;
  /** First-round liveness of `fn` (restricted to defined values). */
  liveness: BlockLiveness | undefined;
  /**
   * First-round interference graph of `fn` before coalescing (it does not depend on the budget: trial
   * colourings under tighter budgets copy it instead of walking the function again).
   */
  graph: InterferenceGraph | undefined;
}

/** An interference graph as built from the function, before coalescing changes it (see `colourRound`). */
export interface InterferenceGraph {
  readonly adj: readonly (readonly number[])[];
  readonly edgeSet: EdgeSet;
  readonly occurs: Uint8Array;
  readonly cost: Float64Array;
  readonly forbid: ReadonlyMap<number, readonly number[]>;
  readonly copies: readonly CopyEdge[];
  /**
   * Per class, the registers a clique of the graph needs (sum of widths of pairwise interfering nodes without a
   * fixed register): no colouring of the class with fewer free registers exists (see `cliqueBound`).
   */
  readonly cliqueWidth: ReadonlyMap<RegClass, number>;
}
/** A register copy d ← s of block weight w (the order it was found in breaks ties). */
interface CopyEdge {
  readonly d: number;
  readonly s: number;
  readonly w: number;
  readonly order: number;
}

/** Options of one allocation beyond `RaOptions`. */
export interface AllocateCallOptions {
  /** Shares validation and first-round liveness between allocations of one unchanged function. */
  readonly session?: AllocationSession;
  /**
   * Fail with RA_SPILL_NEEDED as soon as the colouring would spill, rematerialise or move a value to its
   * home class, instead of spilling: for trial colourings a caller keeps only when nothing spills.
   */
  readonly spillFree?: boolean;
}

/**
 * Allocate registers for `fn`. Throws RegallocError (RA_*) on bad input or when no allocation exists (and,
 * with `spillFree`, RA_SPILL_NEEDED when it would spill).
 */
export function allocateRegisters<Ref>(fn: RaFunction<Ref>, opts: RaOptions, call: AllocateCallOptions = {}): RaResult<Ref> {
  const window = opts.reloadReuseWindow ?? 4;
  if (call.session) {
    if (call.session.fn === undefined) call.session.fn = fn as RaFunction<unknown>;
    else if (call.session.fn !== fn) throw new RegallocError('RA_BAD_INPUT', 'an allocation session belongs to one function');
  }
  try {
    return allocateWith(fn, opts, window, call);
  } catch (e) {
    // Reusing reloaded values lengthens unspillable temporaries; where that leaves an instruction without
    // registers, allocate again reloading before every use (always colourable when each instruction fits).
    const code = (e as { code?: string }).code;
    if (window > 0 && (code === 'RA_UNCOLORABLE' || code === 'RA_NO_PROGRESS')) return allocateWith(fn, opts, 0, call);
    throw e;
  }
}

function allocateWith<Ref>(fn: RaFunction<Ref>, opts: RaOptions, reuseWindow: number, call: AllocateCallOptions): RaResult<Ref> {
  const classes = new Map<RegClass, ClassModel>();
  for (const c of opts.classes) classes.set(c.cls, new ClassModel(c, opts.budget?.[c.cls], opts.reserved?.[c.cls]));
  const session = call.session;
  // validation reads the classes' register files only (never the budget)
  if (!session || session.validatedFor !== opts.classes) {
    validate(fn, classes);
    if (session) session.validatedFor = opts.classes;
  }
  const spillable = new Set<RegClass>(opts.spillableClasses ?? ['R', 'UR']);
  const slotBytes = opts.slotBytes ?? ((cls: RegClass, width: RegWidth) => (cls === 'P' || cls === 'UP' ? 4 : 4 * width));
  const coalesceOn = opts.coalesce ?? true;
  const rematOn = opts.rematerialize ?? true;
  const maxRounds = opts.maxRounds ?? 32;

  const homeClass: Partial<Record<RegClass, RegClass>> = { ...opts.spillHome };
  const homeOf = (cls: RegClass): RegClass | undefined => {
    const h = homeClass[cls];
    return h && classes.has(h) && spillable.has(h) && !spillable.has(cls) ? h : undefined;
  };
  const vregs: WorkVreg[] = fn.vregs.map((v) => ({ cls: v.cls, width: v.width, fixed: v.fixed, noSpill: !!v.noSpill || (!spillable.has(v.cls) && !homeOf(v.cls)) }));
  const blocks: WorkInstr<Ref>[][] = fn.blocks.map((blk) =>
    blk.instrs.map((ins) => ({
      kind: 'instr' as const, source: ins, defs: ins.defs.slice(), uses: ins.uses.slice(), partialDefs: ins.partialDefs ? ins.partialDefs.slice() : [],
      copy: !!ins.copy, earlyClobber: !!ins.earlyClobber, clobbers: ins.clobbers, slot: -1, bytes: 0, spilled: -1,
    })),
  );
  const freq = layoutBlockWeights(fn.blocks);
  const succs = fn.blocks.map((b) => b.succs);
  let frameTop = 0;
  const slotOf = new Map<number, number>();
  const homeOfNode = new Map<number, number>();
  let spilledVregs = 0, rematVregs = 0, coalesced = 0, homedVregs = 0;
  let colour = new Int32Array(0);
  let edges = 0;

  for (let round = 1; ; round++) {
    if (round > maxRounds) throw new RegallocError('RA_NO_PROGRESS', `register allocation did not converge after ${maxRounds} spill rounds`);
    // round 1 colours the input as it is: its liveness is the same in every allocation of a session
    let lv: BlockLiveness | undefined;
    if (round === 1 && session) lv = session.liveness;
    // A trial under a tighter budget that a clique of the function's values cannot fit would end in a spill:
    // say so before colouring (register-count tightening tries budgets until one fails).
    if (round === 1 && call.spillFree && session?.graph) {
      for (const [cls, need] of session.graph.cliqueWidth) {
        const cm = classes.get(cls);
        if (cm && need > cm.slots[1]!) throw new RegallocError('RA_SPILL_NEEDED', `${need} ${cls} registers of pairwise interfering values do not fit ${cm.slots[1]} free registers`);
      }
    }
    const r = colourRound(vregs, blocks, succs, fn.entryDefs ?? [], freq, classes, coalesceOn, lv, round === 1 ? session : undefined);
    if (round === 1 && session && !session.liveness) session.liveness = r.liveness;
    if (call.spillFree && r.spill.length) throw new RegallocError('RA_SPILL_NEEDED', `${r.spill.length} value(s) do not fit the budget without spilling`);
    edges = r.edges;
    coalesced = r.coalesced;
    colour = r.colour;
    if (!r.spill.length) {
      return finish(fn, vregs, blocks, colour, round, { spilledVregs, rematVregs, homedVregs, coalesced, edges, frameTop });
    }
    // Rewrite: every member vreg of a spilled node goes to one stack slot (members do not interfere), or is
    // recomputed when its only definition is rematerializable. One pass over the function per round.
    const spilledMembers: number[] = [];
    for (const node of r.spill) for (const v of r.members[node]!) spilledMembers.push(v);
    const remat = rematOn ? rematDefs(blocks, spilledMembers) : new Map<number, WorkInstr<Ref>>();
    const actions = new Map<number, SpillAction<Ref>>();
    for (const node of r.spill) {
      for (const v of r.members[node]!) {
        const def = remat.get(v);
        if (def) {
          rematVregs++;
          actions.set(v, { remat: def, slot: -1, bytes: 0, home: -1 });
          continue;
        }
        const hc = homeOf(vregs[v]!.cls);
        if (hc) {
          // a class without memory spills (predicates) keeps its value in a register of another class
          homedVregs++;
          let h = homeOfNode.get(node);
          if (h === undefined) {
            vregs.push({ cls: hc, width: vregs[v]!.width, fixed: undefined, noSpill: false });
            homeOfNode.set(node, (h = vregs.length - 1));
          }
          actions.set(v, { remat: undefined, slot: -1, bytes: 0, home: h });
          continue;
        }
        spilledVregs++;
        let slot = slotOf.get(node);
        const bytes = slotBytes(vregs[v]!.cls, vregs[v]!.width);
        if (slot === undefined) {
          const align = Math.min(bytes, 16);
          slot = Math.ceil(frameTop / align) * align;
          frameTop = slot + bytes;
          slotOf.set(node, slot);
        }
        actions.set(v, { remat: undefined, slot, bytes, home: -1 });
      }
    }
    rewrite(blocks, vregs, actions, reuseWindow);
  }
}

interface SpillAction<Ref> {
  remat: WorkInstr<Ref> | undefined;
  slot: number;
  bytes: number;
  /** vreg of another class holding the value (predicates in R), or -1 */
  home: number;
}

interface RoundResult {
  colour: Int32Array;
  spill: number[];
  members: number[][];
  edges: number;
  coalesced: number;
  /** The liveness the round coloured with. */
  liveness: BlockLiveness;
}

/**
 * Registers a clique among `candidates` needs: the candidates kept greedily (widest first, then by number) while
 * each interferes with every one kept before. Values live at one point mostly interfere pairwise, but a copy's
 * source and destination do not (and a value undefined on some path need not), so the edges are checked; every
 * colouring gives the clique's members disjoint registers, coalescing never merges interfering nodes, so the
 * sum of their widths is a lower bound on the registers of the class.
 */
function cliqueBound(candidates: readonly number[], vregs: readonly WorkVreg[], edgeSet: EdgeSet): number {
  const order = candidates.slice().sort((a, b) => vregs[b]!.width - vregs[a]!.width || a - b);
  const kept: number[] = [];
  let width = 0;
  for (const v of order) {
    let all = true;
    for (let k = 0; k < kept.length && all; k++) all = edgeSet.has(v, kept[k]!);
    if (!all) continue;
    kept.push(v);
    width += vregs[v]!.width;
  }
  return width;
}

function colourRound<Ref>(
  vregs: WorkVreg[], blocks: WorkInstr<Ref>[][], succs: readonly (readonly number[])[], entryDefs: readonly number[], freq: Float64Array, classes: Map<RegClass, ClassModel>,
  coalesceOn: boolean, known?: BlockLiveness, graphCache?: { graph: InterferenceGraph | undefined },
): RoundResult {
  const nV = vregs.length;
  let lv = known;
  if (!lv) {
    const input = { numVregs: nV, blocks: blocks.map((instrs, b) => ({ succs: succs[b]!, instrs })) };
    lv = restrictToDefined(input, computeBlockLiveness(input), entryDefs);
  }
  // ---- interference graph -------------------------------------------------------------------------------
  // Built from the function, or copied from the session's first build (a trial colouring of the same input).
  let adj: number[][];
  let edgeSet: EdgeSet;
  let occurs: Uint8Array;
  let cost: Float64Array;
  let forbid: Map<number, number[]>; // node → [base, width, base, width, ...]
  let copies: CopyEdge[];
  const addEdge = (a: number, b: number): boolean => {
    if (a === b || !edgeSet.add(a, b)) return false;
    adj[a]!.push(b);
    adj[b]!.push(a);
    return true;
  };
  const cached = graphCache?.graph;
  if (cached) {
    adj = cached.adj.map((a) => a.slice());
    edgeSet = cached.edgeSet.clone();
    occurs = cached.occurs;
    cost = cached.cost.slice();
    forbid = new Map(cached.forbid as Map<number, number[]>);
    copies = cached.copies.slice();
  } else {
  adj = Array.from({ length: nV }, () => []);
  edgeSet = new EdgeSet(nV);
  occurs = new Uint8Array(nV);
  cost = new Float64Array(nV);
  forbid = new Map();
  copies = [];
  const classList = [...classes.keys()];
  const live = new Map<RegClass, SparseSet>();
  for (const c of classList) live.set(c, new SparseSet(nV));
  const clsOf = (v: number): SparseSet => live.get(vregs[v]!.cls)!;
  // the widest set of values (sum of widths, fixed registers left out) live together seen so far, per class
  const widest = new Map<SparseSet, { width: number; members: number[] }>();
  for (const c of classList) widest.set(live.get(c)!, { width: 0, members: [] });
  let notedSet: SparseSet | undefined; // the set noted at this instruction (its other defs see the same one)
  const noteLive = (set: SparseSet): void => {
    if (set === notedSet) return;
    notedSet = set;
    let w = 0;
    for (let k = 0; k < set.size; k++) {
      const v = vregs[set.dense[k]!]!;
      if (v.fixed === undefined) w += v.width;
    }
    const best = widest.get(set)!;
    if (w <= best.width) return;
    best.width = w;
    best.members.length = 0;
    for (let k = 0; k < set.size; k++) if (vregs[set.dense[k]!]!.fixed === undefined) best.members.push(set.dense[k]!);
  };
  const addForbid = (v: number, p: PhysReg): void => {
    if (p.cls !== vregs[v]!.cls) return;
    let l = forbid.get(v);
    if (!l) forbid.set(v, (l = []));
    l.push(p.index, p.width ?? 1);
  };
  for (let b = 0; b < blocks.length; b++) {
    for (const s of live.values()) s.clear();
    for (const v of lv.liveOut[b]!) clsOf(v).add(v);
    const instrs = blocks[b]!;
    const f = freq[b]!;
    for (let i = instrs.length - 1; i >= 0; i--) {
      const ins = instrs[i]!;
      if (ins.clobbers) {
        for (const p of ins.clobbers) {
          const set = live.get(p.cls);
          if (set) for (let k = 0; k < set.size; k++) addForbid(set.dense[k]!, p);
          for (const d of ins.defs) addForbid(d, p);
        }
      }
      const src = ins.copy ? ins.uses[0]! : -1;
      for (const d of ins.defs) clsOf(d).add(d);
      // the values live together just after the instruction (and its defs): a clique candidate
      notedSet = undefined;
      for (const d of ins.defs) noteLive(clsOf(d));
      for (const d of ins.partialDefs) noteLive(clsOf(d));
      const interfereDef = (d: number): void => {
        occurs[d] = 1;
        cost[d] += f;
        const set = clsOf(d);
        for (let k = 0; k < set.size; k++) {
          const l = set.dense[k]!;
          if (l !== src) addEdge(d, l);
        }
      };
      for (const d of ins.defs) interfereDef(d);
      for (const d of ins.partialDefs) interfereDef(d);
      for (const d of ins.defs) clsOf(d).delete(d);
      for (const u of ins.uses) {
        occurs[u] = 1;
        cost[u] += f;
        clsOf(u).add(u);
      }
      for (const u of ins.partialDefs) clsOf(u).add(u);
      if (ins.earlyClobber) for (const d of ins.defs) for (const u of ins.uses) if (vregs[d]!.cls === vregs[u]!.cls) addEdge(d, u);
      if (ins.copy && ins.kind === 'instr') copies.push({ d: ins.defs[0]!, s: src, w: f, order: copies.length });
    }
    if (b === 0) {
      // values live into the entry (parameters) are all defined "before" it: they interfere with each other
      for (const set of live.values()) for (let x = 0; x < set.size; x++) for (let y = x + 1; y < set.size; y++) addEdge(set.dense[x]!, set.dense[y]!);
    }
  }
  // coalescing adds edges and merges costs and forbidden ranges (into new arrays): keep the graph as built
  if (graphCache) {
    const cliqueWidth = new Map<RegClass, number>();
    for (const c of classList) cliqueWidth.set(c, cliqueBound(widest.get(live.get(c)!)!.members, vregs, edgeSet));
    graphCache.graph = { adj: adj.map((a) => a.slice()), edgeSet: edgeSet.clone(), occurs, cost: cost.slice(), forbid: new Map(forbid), copies: copies.slice(), cliqueWidth };
  }
  }
  const edges = edgeSet.size;

  // ---- degrees and availability --------------------------------------------------------------------------
  const cm = (v: number): ClassModel => classes.get(vregs[v]!.cls)!;
  const alias = new Int32Array(nV);
  for (let v = 0; v < nV; v++) alias[v] = v;
  const find = (v: number): number => {
    let r = v;
    while (alias[r] !== r) r = alias[r]!;
    while (alias[v] !== r) { const n = alias[v]!; alias[v] = r; v = n; }
    return r;
  };
  const fixedOf = new Int32Array(nV).fill(-1);
  const noSpill = new Uint8Array(nV);
  const width = new Uint8Array(nV);
  for (let v = 0; v < nV; v++) {
    fixedOf[v] = vregs[v]!.fixed ?? -1;
    noSpill[v] = vregs[v]!.noSpill ? 1 : 0;
    width[v] = vregs[v]!.width;
  }
  const blockedBy = (u: number, w: number, c: ClassModel): number => c.blocked[u]![w]!;
  // available aligned bases of a node: class slots minus the bases its forbidden ranges hit
  const availOf = (v: number): number => {
    const c = cm(v);
    const w = width[v]!;
    const fl = forbid.get(v);
    if (!fl) return c.slots[w]!;
    const a = c.align(w);
    let n = 0;
    for (let b = 0; b + w <= c.limit; b += a) {
      if (!c.rangeFree(b, w)) continue;
      let ok = true;
      for (let k = 0; k < fl.length && ok; k += 2) if (b < fl[k]! + fl[k + 1]! && fl[k]! < b + w) ok = false;
      if (ok) n++;
    }
    return n;
  };
  const avail = new Int32Array(nV);
  const deg = new Int32Array(nV);
  for (let v = 0; v < nV; v++) {
    if (!occurs[v]) continue;
    avail[v] = availOf(v);
    const c = cm(v);
    let d = 0;
    for (const t of adj[v]!) d += blockedBy(width[t]!, width[v]!, c);
    deg[v] = d;
  }
  const members: number[][] = [];
  for (let v = 0; v < nV; v++) members[v] = [v];
  const partners: number[][] = Array.from({ length: nV }, () => []);

  // ---- conservative coalescing ------------------------------------------------------------------------------
  let coalesced = 0;
  const interferes = (a: number, b: number): boolean => a !== b && edgeSet.has(a, b);
  const stamp = new Int32Array(nV).fill(-1);
  let stampN = 0;
  const overlapsFixed = (v: number, base: number, w: number): boolean => {
    const fl = forbid.get(v);
    if (fl) for (let k = 0; k < fl.length; k += 2) if (base < fl[k]! + fl[k + 1]! && fl[k]! < base + w) return true;
    return false;
  };
  const merge = (from: number, into: number): void => {
    alias[from] = into;
    const c = cm(into);
    for (const t of adj[from]!) {
      if (alias[t] !== t) continue;
      if (addEdge(into, t)) {
        deg[into] += blockedBy(width[t]!, width[into]!, c);
      } else {
        // t was adjacent to both: it loses one neighbour
        deg[t] -= blockedBy(width[from]!, width[t]!, c);
      }
    }
    const fl = forbid.get(from);
    if (fl) {
      const il = forbid.get(into);
      forbid.set(into, il ? il.concat(fl) : fl.slice());
      avail[into] = availOf(into);
    }
    cost[into] += cost[from]!;
    // append (never copy the growing side): a long chain of merges stays linear
    const mi = members[into]!, pi = partners[into]!;
    for (const x of members[from]!) mi.push(x);
    for (const x of partners[from]!) pi.push(x);
    members[from] = [];
    partners[from] = [];
    coalesced++;
  };
  if (coalesceOn) {
    copies.sort((a, b) => b.w - a.w || a.order - b.order);
    for (const cp of copies) {
      const a = find(cp.d), b = find(cp.s);
      partners[a]!.push(b);
      partners[b]!.push(a);
      if (a === b || interferes(a, b)) continue;
      if (noSpill[a] || noSpill[b]) continue; // keep spill temporaries short
      const fa = fixedOf[a]! >= 0, fb = fixedOf[b]! >= 0;
      if (fa && fb) continue;
      const c = cm(a);
      if (fa || fb) {
        // George: every neighbour of the virtual node already interferes with the fixed one or is insignificant
        const f = fa ? a : b, v = fa ? b : a;
        const base = fixedOf[f]!, w = width[f]!;
        if (overlapsFixed(v, base, w)) continue;
        let ok = true;
        for (const t of adj[v]!) {
          if (alias[t] !== t) continue;
          if (fixedOf[t]! >= 0) {
            if (fixedOf[t]! < base + w && base < fixedOf[t]! + width[t]!) { ok = false; break; }
            continue;
          }
          if (deg[t]! < avail[t]! || interferes(t, f)) continue;
          ok = false;
          break;
        }
        if (ok) merge(v, f);
        continue;
      }
      // Briggs: the merged node has fewer significant neighbours (weighted) than available bases
      stampN++;
      let sig = 0;
      const w = width[a]!;
      const count = (t: number): void => {
        if (alias[t] !== t || stamp[t] === stampN || t === a || t === b) return;
        stamp[t] = stampN;
        if (fixedOf[t]! >= 0 || deg[t]! >= avail[t]!) sig += blockedBy(width[t]!, w, c);
      };
      for (const t of adj[a]!) count(t);
      for (const t of adj[b]!) count(t);
      const fa2 = forbid.get(a), fb2 = forbid.get(b);
      const limit = fa2 || fb2 ? Math.min(avail[a]!, avail[b]!) : avail[a]!;
      if (sig >= limit) continue;
      // the node with more members absorbs the other (linear merge chains), ties to the lower id: deterministic
      const ma = members[a]!.length, mb = members[b]!.length;
      if (ma > mb || (ma === mb && a < b)) merge(b, a); else merge(a, b);
    }
  }

  // ---- simplify ------------------------------------------------------------------------------------------------
  const col = new Int32Array(nV).fill(-1);
  const removed = new Uint8Array(nV);
  const order: number[] = [];
  const low: number[] = [];
  const heap = new LazyHeap();
  const isNode = (v: number): boolean => occurs[v] === 1 && alias[v] === v && fixedOf[v]! < 0;
  const spillKey = (v: number): number => (noSpill[v] ? Infinity : cost[v]! / Math.max(1, deg[v]!));
  let remaining = 0;
  for (let v = 0; v < nV; v++) {
    if (occurs[v] && alias[v] === v && fixedOf[v]! >= 0) col[v] = fixedOf[v]!;
    if (!isNode(v)) continue;
    remaining++;
    if (deg[v]! < avail[v]!) low.push(v);
    else heap.push(spillKey(v), v, deg[v]!);
  }
  const remove = (n: number): void => {
    removed[n] = 1;
    remaining--;
    order.push(n);
    const c = cm(n);
    for (const t of adj[n]!) {
      if (alias[t] !== t || removed[t] || fixedOf[t]! >= 0 || !occurs[t]) continue;
      const before = deg[t]!;
      deg[t] = before - blockedBy(width[n]!, width[t]!, c);
      if (before >= avail[t]! && deg[t]! < avail[t]!) low.push(t);
    }
  };
  low.reverse(); // pop lowest ids first (determinism only)
  while (remaining > 0) {
    if (low.length) {
      const n = low.pop()!;
      if (!removed[n]) remove(n);
      continue;
    }
    const top = heap.pop();
    if (!top) break;
    const [, n, d] = top;
    if (removed[n]) continue;
    if (deg[n] !== d) {
      heap.push(spillKey(n), n, deg[n]!);
      continue;
    }
    remove(n); // optimistic: may still colour in select
  }

  // ---- select --------------------------------------------------------------------------------------------------
  const mark = new Int32Array(256);
  let markN = 0;
  const spill: number[] = [];
  const failedNoSpill: number[] = [];
  for (let i = order.length - 1; i >= 0; i--) {
    const n = order[i]!;
    const c = cm(n);
    const w = width[n]!;
    markN++;
    for (const t of adj[n]!) {
      if (alias[t] !== t) continue;
      const ct = col[t]!;
      if (ct < 0) continue;
      for (let k = 0; k < width[t]!; k++) if (ct + k < 256) mark[ct + k] = markN;
    }
    const fl = forbid.get(n);
    if (fl) for (let k = 0; k < fl.length; k += 2) for (let r = fl[k]!; r < fl[k]! + fl[k + 1]!; r++) if (r < 256) mark[r] = markN;
    const a = c.align(w);
    const fits = (b: number): boolean => {
      if (b < 0 || b % a !== 0 || b + w > c.limit || !c.rangeFree(b, w)) return false;
      for (let k = 0; k < w; k++) if (mark[b + k] === markN) return false;
      return true;
    };
    let chosen = -1;
    // biased colouring: take a copy partner's register when it is free
    for (const p of partners[n]!) {
      const rp = find(p);
      if (col[rp]! >= 0 && fits(col[rp]!)) { chosen = col[rp]!; break; }
    }
    if (chosen < 0) for (let b = 0; b + w <= c.limit; b += a) if (fits(b)) { chosen = b; break; }
    if (chosen >= 0) col[n] = chosen;
    else if (noSpill[n]) failedNoSpill.push(n);
    else spill.push(n);
  }
  for (const n of failedNoSpill) {
    // a spill temporary (or an unspillable class) did not fit: spill its cheapest spillable neighbour instead
    let victim = -1;
    for (const t of adj[n]!) {
      if (alias[t] !== t || noSpill[t] || fixedOf[t]! >= 0 || !occurs[t] || col[t]! < 0) continue;
      if (victim < 0 || cost[t]! < cost[victim]! || (cost[t] === cost[victim] && t < victim)) victim = t;
    }
    if (victim < 0) {
      const v = vregs[n]!;
      throw new RegallocError('RA_UNCOLORABLE', `no ${v.cls} register${v.width > 1 ? ` ${v.width}-tuple` : ''} is left for vreg ${n} (class ${v.cls}, budget ${cm(n).limit}): too many values are live at once and none can be spilled`);
    }
    col[victim] = -1;
    spill.push(victim);
  }
  // final colour per vreg through its representative
  const colour = new Int32Array(nV).fill(-1);
  for (let v = 0; v < nV; v++) if (occurs[v]) colour[v] = col[find(v)]!;
  spill.sort((x, y) => x - y);
  const uniq = spill.filter((v, i) => i === 0 || spill[i - 1] !== v);
  return { colour, spill: uniq, members, edges, coalesced, liveness: lv };
}

/** Spilled vregs whose single full definition is a rematerializable instruction defining only them from nothing. */
function rematDefs<Ref>(blocks: WorkInstr<Ref>[][], spilled: readonly number[]): Map<number, WorkInstr<Ref>> {
  const want = new Set(spilled);
  const def = new Map<number, WorkInstr<Ref> | null>();
  for (const instrs of blocks) {
    for (const ins of instrs) {
      for (const v of ins.partialDefs) if (want.has(v)) def.set(v, null);
      for (const v of ins.defs) if (want.has(v)) def.set(v, def.has(v) ? null : ins);
    }
  }
  const out = new Map<number, WorkInstr<Ref>>();
  for (const [v, d] of def) {
    if (d && d.kind === 'instr' && d.source?.rematerializable && d.defs.length === 1 && !d.uses.length && !d.partialDefs.length) out.set(v, d);
  }
  return out;
}

function newTemp(vregs: WorkVreg[], of: number): number {
  const o = vregs[of]!;
  vregs.push({ cls: o.cls, width: o.width, fixed: undefined, noSpill: true });
  return vregs.length - 1;
}

/**
 * Insert spill code for the spilled vregs in one pass: a reload (or a recomputation) before each instruction
 * reading one, a store after each instruction writing one; each occurrence gets its own short temporary,
 * which may not be spilled again. One instruction reading a value twice reloads it once.
 */
function rewrite<Ref>(blocks: WorkInstr<Ref>[][], vregs: WorkVreg[], actions: Map<number, SpillAction<Ref>>, reuseWindow: number): void {
  const mk = (kind: WorkKind, defs: number[], uses: number[], a: SpillAction<Ref>, v: number): WorkInstr<Ref> => ({
    kind, source: kind === 'remat' ? a.remat!.source : undefined, defs, uses, partialDefs: [], copy: false, earlyClobber: false,
    clobbers: undefined, slot: a.slot, bytes: a.bytes, spilled: v,
  });
  for (let b = 0; b < blocks.length; b++) {
    const instrs = blocks[b]!;
    let touched = false;
    for (const ins of instrs) {
      for (const x of ins.uses) if (actions.has(x)) touched = true;
      for (const x of ins.defs) if (actions.has(x)) touched = true;
      for (const x of ins.partialDefs) if (actions.has(x)) touched = true;
      if (touched) break;
    }
    if (!touched) continue;
    const out: WorkInstr<Ref>[] = [];
    // spilled value → temporary that holds it (reloaded or just defined) and the instruction that made it so
    const avail = new Map<number, { t: number; at: number }>();
    for (let pos = 0; pos < instrs.length; pos++) {
      const ins = instrs[pos]!;
      // nothing stays in a temporary across an instruction that clobbers registers (calls)
      if (ins.clobbers?.length) avail.clear();
      let temps: Map<number, number> | undefined;
      const temp = (v: number): number => {
        temps ??= new Map();
        let t = temps.get(v);
        if (t === undefined) temps.set(v, (t = newTemp(vregs, v)));
        return t;
      };
      const before: WorkInstr<Ref>[] = [];
      const after: WorkInstr<Ref>[] = [];
      let dropped = false;
      const readSeen = new Set<number>();
      const written = new Set<number>();
      const read = (v: number): number => {
        const a = actions.get(v);
        if (!a) return v;
        const got = avail.get(v);
        if (got && pos - got.at <= reuseWindow && !temps?.has(v)) {
          // reuse the value a few instructions back instead of reloading it (the temporary stays short)
          (temps ??= new Map()).set(v, got.t);
          readSeen.add(v);
          return got.t;
        }
        const t = temp(v);
        if (!readSeen.has(v)) {
          readSeen.add(v);
          before.push(a.remat ? mk('remat', [t], [], a, v) : a.home >= 0 ? mk('restore', [t], [a.home], a, v) : mk('reload', [t], [], a, v));
        }
        return t;
      };
      const write = (v: number): number => {
        const a = actions.get(v);
        if (!a) return v;
        if (a.remat) {
          dropped = true; // the rematerializable definition itself goes away
          return v;
        }
        const t = temp(v);
        written.add(v);
        after.push(a.home >= 0 ? mk('save', [a.home], [t], a, v) : mk('spill-store', [], [t], a, v));
        return t;
      };
      ins.uses = ins.uses.map(read);
      ins.partialDefs = ins.partialDefs.map((v) => {
        read(v);
        return write(v);
      });
      ins.defs = ins.defs.map(write);
      if (temps) {
        for (const [v, t] of temps) {
          const prev = avail.get(v);
          // a fresh reload or a definition restarts the window; a reuse keeps the original start
          if (!prev || prev.t !== t || written.has(v)) avail.set(v, { t, at: pos });
        }
      }
      out.push(...before);
      if (!dropped) out.push(ins, ...after);
    }
    blocks[b] = out;
  }
}

function finish<Ref>(
  fn: RaFunction<Ref>, vregs: WorkVreg[], blocks: WorkInstr<Ref>[][], colour: Int32Array, rounds: number,
  s: { spilledVregs: number; rematVregs: number; homedVregs: number; coalesced: number; edges: number; frameTop: number },
): RaResult<Ref> {
  let registerSaves = 0;
  let spillStores = 0, spillLoads = 0, spillStoreBytes = 0, spillLoadBytes = 0, copies = 0, identityCopies = 0;
  const usage: Partial<Record<RegClass, { used: number }>> = {};
  for (let v = 0; v < vregs.length; v++) {
    if (colour[v]! < 0) continue;
    const u = usage[vregs[v]!.cls] ?? (usage[vregs[v]!.cls] = { used: 0 });
    u.used = Math.max(u.used, colour[v]! + vregs[v]!.width);
  }
  const out: RaOutInstr<Ref>[][] = blocks.map((instrs) =>
    instrs.map((ins): RaOutInstr<Ref> => {
      switch (ins.kind) {
        case 'spill-store':
          spillStores++;
          spillStoreBytes += ins.bytes;
          return { kind: 'spill-store', vreg: ins.uses[0]!, slot: ins.slot, bytes: ins.bytes, spilled: ins.spilled };
        case 'reload':
          spillLoads++;
          spillLoadBytes += ins.bytes;
          return { kind: 'reload', vreg: ins.defs[0]!, slot: ins.slot, bytes: ins.bytes, spilled: ins.spilled };
        case 'remat':
          return { kind: 'remat', vreg: ins.defs[0]!, ref: ins.source?.ref, source: ins.source!, spilled: ins.spilled };
        case 'save':
          registerSaves++;
          return { kind: 'save', vreg: ins.uses[0]!, home: ins.defs[0]!, spilled: ins.spilled };
        case 'restore':
          return { kind: 'restore', vreg: ins.defs[0]!, home: ins.uses[0]!, spilled: ins.spilled };
        default: {
          const identity = ins.copy && colour[ins.defs[0]!] === colour[ins.uses[0]!];
          if (ins.copy) {
            copies++;
            if (identity) identityCopies++;
          }
          return { kind: 'instr', ref: ins.source!.ref, source: ins.source!, defs: ins.defs, uses: ins.uses, partialDefs: ins.partialDefs, identityCopy: identity };
        }
      }
    }),
  );
  const stats: RaStats = {
    rounds, spilledVregs: s.spilledVregs, rematerializedVregs: s.rematVregs, homedVregs: s.homedVregs, registerSaves, spillStores, spillLoads, spillStoreBytes, spillLoadBytes,
    frameBytes: Math.ceil(s.frameTop / 8) * 8, copies, coalescedCopies: s.coalesced, identityCopies, interferenceEdges: s.edges,
  };
  return {
    vregs: vregs.map((v): VReg => ({ cls: v.cls, width: v.width, ...(v.fixed === undefined ? {} : { fixed: v.fixed }), ...(v.noSpill ? { noSpill: true } : {}) })),
    assignment: colour, blocks: out, succs: fn.blocks.map((b) => b.succs), entryDefs: fn.entryDefs ?? [], usage, stats,
  };
}
