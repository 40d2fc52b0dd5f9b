import {
  Block,
  computePredCounts,
  computeRpo,
  imm,
  Instr,
  label,
  PT,
  reg,
  RZ,
  type OriFunction,
  type PhaseContext,
  type PhaseImpl,
  type Register,
  type RemarkInput,
} from '@ptxforge/kernel';
import { condTail, hasPhi, layoutPositions, lineOf, type CondTail } from './cfg-util.js';
import { evalCmp, plainCompare, selectorCompare, type IntCmp } from './compare.js';
import { KNOB_SWITCH_BUDGET, KNOB_SWITCH_EXTENDED } from './knobs.js';

/**
 * DoSwitchOpt (spec: branch/switch, "DoSwitchOpt -- Switch Statement Optimization (Phases 14, 30)").
 *
 * Recognition. A switch is a tree of blocks that compare one 32-bit selector register against immediates
 * and branch: the head block (any instructions, then `ISETP sel, c` and a conditional branch) and inner
 * nodes that hold nothing but such a compare and its branch and have the tree as their only predecessor.
 * Walking the tree keeps, for every edge, the set of selector values that can take it: an interval minus
 * excluded points (EQ/NE tests exclude a point, LT/LE/GT/GE narrow the interval). The blocks the tree
 * leaves to are the case bodies; the leaf that receives the most values is the default, every other leaf
 * gets its (finitely many) values as cases. This is the spec's tolerant scanner: the cascade need not be
 * ISETP+BRA pairs in one block, constants need not be contiguous, every test may use its own predicate, and
 * the binary trees of `setp`/`bra` that nvcc makes from a C++ `switch` are recognised as one switch.
 *
 * Strategy (spec: "Decision: Strategy Selection"): at most CASCADE_MAX_CASES cases stay as they are; a dense
 * value range (at least half of it used: "most bits in a range are set") becomes a jump table, a normalised
 * unsigned bounds check to the default and the JMX pseudo that phase 80 expands (absent values in the range
 * go to the default); anything else numerous and sparse becomes a balanced binary search tree (the spec's
 * `emit_bst`, depth ceil(log2(N+1)), runs of consecutive values with one target tested as ranges).
 */

/** "Cascading if-else is retained for small switches (typically 4 or fewer cases)". */
export const CASCADE_MAX_CASES = 4;
/** Jump table when cases / range >= this ("if most bits in a range are set"). */
export const JUMP_TABLE_MIN_DENSITY = 0.5;

export type SwitchStrategy = 'cascade' | 'jump-table' | 'bst';

export interface SwitchOptOptions {
  /** SwitchOptBudget: most compare nodes per switch and most case values / table entries. */
  readonly budget: number;
  /** SwitchOptExtendedPatternMatch. */
  readonly extended: boolean;
  /** PGO profile attached and processed: the pass exits without changes (spec: "PGO Early-Exit Guard"). */
  readonly profileAttached?: boolean;
}

export const DEFAULT_SWITCH_OPT: SwitchOptOptions = { budget: 1024, extended: true };

export interface SwitchReport {
  readonly head: Block;
  readonly line: number | undefined;
  readonly cases: number;
  readonly min: number;
  readonly max: number;
  readonly density: number;
  readonly strategy: SwitchStrategy;
  readonly reason: string;
  /** Compare nodes of the recognised tree (head included). */
  readonly nodes: number;
  /** Distinct case targets (default excluded). */
  readonly targets: number;
  /** BST depth (levels of less-than tests), for 'bst'. */
  readonly depth?: number;
}

/** Selector values that can reach an edge: [lo, hi] minus the points on the `ex` chain. */
interface Values {
  readonly lo: number;
  readonly hi: number;
  readonly ex: ExPoint | undefined;
}
interface ExPoint {
  readonly v: number;
  readonly next: ExPoint | undefined;
}

function narrow(k: Values, lo: number, hi: number): Values | undefined {
  const l = Math.max(k.lo, lo);
  const h = Math.min(k.hi, hi);
  return l > h ? undefined : { lo: l, hi: h, ex: k.ex };
}
function excluded(k: Values, v: number): boolean {
  for (let e = k.ex; e; e = e.next) if (e.v === v) return true;
  return false;
}
/** Values of `k` for which `sel CMP c` is `truth`. */
function restrict(k: Values, cmp: IntCmp, c: number, truth: boolean): Values | undefined {
  const eff: IntCmp = truth ? cmp : ({ EQ: 'NE', NE: 'EQ', LT: 'GE', GE: 'LT', LE: 'GT', GT: 'LE' } as const)[cmp];
  switch (eff) {
    case 'EQ':
      return c < k.lo || c > k.hi || excluded(k, c) ? undefined : { lo: c, hi: c, ex: undefined };
    case 'NE':
      if (c < k.lo || c > k.hi) return k;
      if (k.lo === k.hi) return undefined;
      if (c === k.lo) return { lo: c + 1, hi: k.hi, ex: k.ex };
      if (c === k.hi) return { lo: k.lo, hi: c - 1, ex: k.ex };
      return { lo: k.lo, hi: k.hi, ex: { v: c, next: k.ex } };
    case 'LT':
      return narrow(k, -Infinity, c - 1);
    case 'LE':
      return narrow(k, -Infinity, c);
    case 'GT':
      return narrow(k, c + 1, Infinity);
    case 'GE':
      return narrow(k, c, Infinity);
  }
}
/** Number of values in `k`, the excluded points counted once. */
function sizeOf(k: Values): number {
  const seen = new Set<number>();
  for (let e = k.ex; e; e = e.next) if (e.v >= k.lo && e.v <= k.hi) seen.add(e.v);
  return k.hi - k.lo + 1 - seen.size;
}

/** A compare node of the tree. */
interface Node {
  readonly block: Block;
  readonly tail: CondTail;
  readonly cmp: IntCmp;
  readonly c: number;
  readonly compare: Instr;
}

export interface RecognisedSwitch {
  readonly head: Node;
  readonly sel: Register;
  readonly unsigned: boolean;
  /** Inner nodes (head excluded), in discovery order. */
  readonly inner: readonly Node[];
  /** Case value → target, sorted by value. */
  readonly cases: ReadonlyArray<{ readonly v: number; readonly target: Block }>;
  readonly defaultTarget: Block;
}

function nodeOf(fn: OriFunction, pos: ReadonlyMap<Block, number>, b: Block, asHead: boolean, o: SwitchOptOptions): Node | undefined {
  const tail = condTail(fn, pos, b);
  if (!tail) return undefined;
  const def = tail.pred.def;
  if (!def || def.block !== b) return undefined;
  const pc = plainCompare(def);
  const sc = pc && selectorCompare(pc);
  if (!sc) return undefined;
  const k = b.instrs.indexOf(def);
  const branchAt = b.instrs.length - (tail.uncond ? 2 : 1);
  if (asHead) {
    // The selector and the predicate must hold the compared values when the branch executes.
    for (let j = k + 1; j < branchAt; j++) {
      const i = b.instrs[j]!;
      if (i.definesReg(sc.sel) || i.definesReg(tail.pred)) return undefined;
      if (!o.extended) return undefined; // simple mode: the ISETP sits right before its branch
    }
  } else {
    // An inner node is just `ISETP; @p BRA; [BRA]`, and its predicate feeds only that branch.
    if (k !== 0 || branchAt !== 1) return undefined;
    if (tail.pred.uses.size !== 1 || tail.pred.useCount !== 1 || tail.pred.defs.size !== 1) return undefined;
  }
  if (!o.extended && (sc.cmp !== 'EQ' || tail.not)) return undefined;
  return { block: b, tail, cmp: sc.cmp, c: sc.c, compare: def };
}

/** Recognise the switch whose head is `b` (undefined when `b` heads none). */
export function recogniseSwitch(
  fn: OriFunction,
  pos: ReadonlyMap<Block, number>,
  b: Block,
  o: SwitchOptOptions,
  taken: ReadonlySet<Block> = new Set(),
  predCounts?: ReadonlyMap<Block, number>,
): RecognisedSwitch | undefined {
  const preds = predCounts ?? computePredCounts(fn);
  const head = nodeOf(fn, pos, b, true, o);
  if (!head) return undefined;
  const pc = plainCompare(head.compare)!;
  const sel = selectorCompare(pc)!.sel;
  const unsigned = pc.unsigned;
  const full: Values = unsigned ? { lo: 0, hi: 0xffffffff, ex: undefined } : { lo: -0x80000000, hi: 0x7fffffff, ex: undefined };
  const inner: Node[] = [];
  const inTree = new Set<Block>([b]);
  const leaves: Array<{ target: Block; values: Values }> = [];
  const work: Array<{ node: Node; values: Values }> = [{ node: head, values: full }];
  while (work.length) {
    const { node, values } = work.pop()!;
    const edges: Array<[Block, boolean]> = [
      [node.tail.fall, node.tail.not],
      [node.tail.taken, !node.tail.not],
    ];
    for (const [t, truth] of edges) {
      const k = restrict(values, node.cmp, node.c, truth);
      if (!k) continue; // no selector value takes this edge
      let child: Node | undefined;
      if (!inTree.has(t) && !taken.has(t) && t !== fn.entry && inner.length + 1 < o.budget && preds.get(t) === 1) {
        child = nodeOf(fn, pos, t, false, o);
        if (child) {
          const cpc = plainCompare(child.compare)!;
          const csc = selectorCompare(cpc)!;
          const ordered = child.cmp !== 'EQ' && child.cmp !== 'NE';
          if (csc.sel !== sel || (ordered && cpc.unsigned !== unsigned)) child = undefined;
          else if (!ordered && cpc.unsigned !== unsigned) {
            // EQ/NE do not care about signedness, but the constant must be read in the tree's domain.
            const u = child.c < 0 ? child.c + 4294967296 : child.c;
            child = { ...child, c: unsigned ? u : u >= 0x80000000 ? u - 4294967296 : u };
          }
        }
      }
      if (child) {
        inTree.add(t);
        inner.push(child);
        work.push({ node: child, values: k });
      } else {
        leaves.push({ target: t, values: k });
      }
    }
  }
  if (inner.length === 0) return undefined; // one test is an if, not a switch
  // The default is the leaf target receiving the most values; every other target must be enumerable.
  const sizes = new Map<Block, number>();
  for (const l of leaves) sizes.set(l.target, (sizes.get(l.target) ?? 0) + sizeOf(l.values));
  let defaultTarget: Block | undefined;
  let best = -1;
  for (const [t, n] of sizes) if (n > best) [defaultTarget, best] = [t, n];
  let caseValues = 0;
  for (const [t, n] of sizes) if (t !== defaultTarget) caseValues += n;
  if (caseValues > o.budget || caseValues === 0) return undefined;
  for (const t of sizes.keys()) if (hasPhi(t)) return undefined;
  const cases: Array<{ v: number; target: Block }> = [];
  for (const l of leaves) {
    if (l.target === defaultTarget) continue;
    for (let v = l.values.lo; v <= l.values.hi; v++) if (!excluded(l.values, v)) cases.push({ v, target: l.target });
  }
  cases.sort((x, y) => x.v - y.v);
  return { head, sel, unsigned, inner, cases, defaultTarget: defaultTarget! };
}

/** Choose the lowering (spec: "Decision: Strategy Selection"), with the reason for the remark. */
export function chooseStrategy(sw: Pick<RecognisedSwitch, 'cases'>, o: SwitchOptOptions): { strategy: SwitchStrategy; reason: string; density: number } {
  const n = sw.cases.length;
  const range = sw.cases[n - 1]!.v - sw.cases[0]!.v + 1;
  const density = n / range;
  if (n <= CASCADE_MAX_CASES) return { strategy: 'cascade', density, reason: `${n} cases <= ${CASCADE_MAX_CASES}: a jump table or search tree costs more than the compares` };
  if (density >= JUMP_TABLE_MIN_DENSITY && range <= o.budget) {
    return { strategy: 'jump-table', density, reason: `dense: ${n} of ${range} values in [${sw.cases[0]!.v}, ${sw.cases[n - 1]!.v}] used (>= ${JUMP_TABLE_MIN_DENSITY * 100}%)` };
  }
  return {
    strategy: 'bst',
    density,
    reason: range > o.budget && density >= JUMP_TABLE_MIN_DENSITY ? `table of ${range} entries exceeds SwitchOptBudget` : `sparse: ${n} of ${range} values used (< ${JUMP_TABLE_MIN_DENSITY * 100}%)`,
  };
}

/** Code emission into fresh blocks that are placed right after the head. */
class Emitter {
  readonly blocks: Block[] = [];
  constructor(
    readonly fn: OriFunction,
    readonly sel: Register,
    readonly unsigned: boolean,
    readonly line: Instr | undefined,
    readonly labels: Labels,
  ) {}
  /** A new block, not yet in the layout (optimizeSwitches places all of them in one pass at the end). */
  block(): Block {
    const b = new Block(this.labels.fresh(), this.fn);
    this.blocks.push(b);
    return b;
  }
  ins(b: Block, opcode: string, mods: string[], defs: Instr['defs'], uses: Instr['uses'], guard?: Register): Instr {
    return b.append(new Instr(opcode, { mods, defs, uses, loc: this.line?.loc, ...(guard ? { guard: { reg: guard, not: false } } : {}) }));
  }
  cmp(b: Block, cmp: IntCmp, a: Register, c: number, unsigned = this.unsigned): Register {
    const p = this.fn.newReg('P');
    this.ins(b, 'ISETP', [cmp, unsigned ? 'U32' : 'S32', 'AND'], [reg(p)], [reg(a), imm(c), PT]);
    return p;
  }
  branch(b: Block, p: Register | undefined, to: Block): void {
    b.append(new Instr('BRA', { uses: [label(to)], loc: this.line?.loc, ...(p ? { guard: { reg: p, not: false } } : {}) }));
  }
  /** `t = sel - c` (32-bit wrap-around). */
  offset(b: Block, c: number): Register {
    if (c === 0) return this.sel;
    const t = this.fn.newReg('R');
    this.ins(b, 'IADD3', [], [reg(t)], [reg(this.sel), imm(BigInt.asIntN(32, BigInt(-c))), RZ]);
    return t;
  }
}

/** Fresh block labels `swN`, unique in the function (a set, not a scan of the block list per label). */
class Labels {
  private n = 0;
  private readonly used: Set<string>;
  constructor(fn: OriFunction) {
    this.used = new Set(fn.blocks.map((b) => b.label));
  }
  fresh(): string {
    let l: string;
    do l = `sw${this.n++}`;
    while (this.used.has(l));
    this.used.add(l);
    return l;
  }
}

/** Runs of consecutive values with one target: the BST tests them as ranges. */
function caseRanges(cases: RecognisedSwitch['cases']): Array<{ lo: number; hi: number; target: Block }> {
  const out: Array<{ lo: number; hi: number; target: Block }> = [];
  for (const c of cases) {
    const last = out[out.length - 1];
    if (last && last.target === c.target && last.hi + 1 === c.v) last.hi = c.v;
    else out.push({ lo: c.v, hi: c.v, target: c.target });
  }
  return out;
}

/** Most tests in one leaf chain of the search tree (LLVM's and nvcc's trees also end in chains of <= 3). */
export const BST_LEAF_TESTS = 3;
/** A dense cluster of at least this many case values inside a sparse switch becomes a table leaf. */
export const SUBTABLE_MIN_CASES = 4;
/**
 * Two or three neighbouring case values (a leaf's worth of tests) become a table leaf when they fill at least
 * this fraction of their span: a leaf's tests cost one branch each, a table one BRX (its clamp is branch-free)
 * and span entries of constant bank. ptxas tables the leaf {0, 9} of a sparse tree (20%) but not {3, 17} (13%);
 * LLVM's jump-table densities are 10% (size) and 40% (speed).
 */
export const SUBTABLE_LEAF_MIN_DENSITY = 0.2;

/** One leaf of the search tree: a chain of range tests, or a table over a dense cluster. */
type Leaf =
  | { readonly kind: 'chain'; readonly ranges: ReadonlyArray<{ lo: number; hi: number; target: Block }> }
  | { readonly kind: 'table'; readonly lo: number; readonly hi: number; readonly cases: RecognisedSwitch['cases'] };

const leafLo = (l: Leaf): number => (l.kind === 'chain' ? l.ranges[0]!.lo : l.lo);

/**
 * Split the sorted cases into leaves: dense clusters (greedy, linear: a cluster grows while at least
 * JUMP_TABLE_MIN_DENSITY of its span is used) with >= SUBTABLE_MIN_CASES values and more than one target
 * become table leaves (spec: the strategy may use a table wherever "most bits in a range are set"; ptxas puts
 * small tables under the leaves of a tree), and so do two or three neighbours filling SUBTABLE_LEAF_MIN_DENSITY
 * of their span; the runs between them are cut into chains of <= BST_LEAF_TESTS range tests, as evenly as
 * possible.
 */
function bstLeaves(cases: RecognisedSwitch['cases'], budget: number, tables: boolean): Leaf[] {
  const leaves: Leaf[] = [];
  let pending: Array<RecognisedSwitch['cases'][number]> = [];
  const flush = (): void => {
    if (!pending.length) return;
    const ranges = caseRanges(pending);
    const n = Math.ceil(ranges.length / BST_LEAF_TESTS);
    for (let k = 0, at = 0; k < n; k++) {
      const size = Math.floor(ranges.length / n) + (k < ranges.length % n ? 1 : 0);
      leaves.push({ kind: 'chain', ranges: ranges.slice(at, at + size) });
      at += size;
    }
    pending = [];
  };
  let i = 0;
  while (i < cases.length) {
    let j = i;
    while (j + 1 < cases.length && (j + 2 - i) / (cases[j + 1]!.v - cases[i]!.v + 1) >= JUMP_TABLE_MIN_DENSITY && cases[j + 1]!.v - cases[i]!.v < budget) j++;
    const manyTargets = (a: number, b: number): boolean => {
      for (let k = a + 1; k <= b; k++) if (cases[k]!.target !== cases[a]!.target) return true;
      return false;
    };
    if (tables && j + 1 - i < SUBTABLE_MIN_CASES) {
      // Not a dense cluster: two or three neighbouring values that fill enough of their span are a small table
      // leaf (one BRX instead of a test per value).
      for (let k = Math.min(i + BST_LEAF_TESTS - 1, cases.length - 1); k > i; k--) {
        const span = cases[k]!.v - cases[i]!.v + 1;
        if (span <= budget && (k + 1 - i) / span >= SUBTABLE_LEAF_MIN_DENSITY && manyTargets(i, k)) {
          j = k;
          break;
        }
      }
    }
    const cluster = cases.slice(i, j + 1);
    if (tables && cluster.length >= 2 && manyTargets(i, j) && (cluster.length >= SUBTABLE_MIN_CASES || (cluster.length / (cluster[cluster.length - 1]!.v - cluster[0]!.v + 1)) >= SUBTABLE_LEAF_MIN_DENSITY)) {
      flush();
      leaves.push({ kind: 'table', lo: cluster[0]!.v, hi: cluster[cluster.length - 1]!.v, cases: cluster });
      i = j + 1;
    } else if (cluster.length >= SUBTABLE_MIN_CASES) {
      // A dense run with one target: tested as ranges; skipping it whole keeps the scan linear.
      for (const c of cluster) pending.push(c);
      i = j + 1;
    } else {
      pending.push(cases[i]!);
      i++;
    }
  }
  flush();
  return leaves;
}

/**
 * The spec's emit_bst, shaped for fewest branches and without recursion. Inner nodes only split
 * (`selector < first value of the right half`: left, else right); the leaves are chains of at most
 * BST_LEAF_TESTS range tests or table leaves. The spec's node (a less-than test, then the equality of the
 * middle case) is a split plus one test of a chain; ending in chains of up to three tests instead of single
 * tests saves a split per leaf (the tree over N tests has ceil(N/3) - 1 splits instead of about N/2), which is
 * how nvcc's and ptxas's trees look too. Every test uses the interval of selector values still possible
 * there (narrowed by the splits and by the range tests before it): a range touching a bound is one compare,
 * a leaf value set that is exhausted ends in an unconditional branch, and a table whose cluster covers the
 * whole interval needs no bounds check; otherwise the table index is clamped with an unsigned min to one extra
 * entry that goes to the default (ptxas's VIADDMNMX form: a bounds check without a branch). Every block ends in
 * explicit branches; `chainLayout` chooses the layout. Returns the depth: split levels plus the leaf level.
 */
function emitBst(e: Emitter, start: Block, leaves: readonly Leaf[], dflt: Block): number {
  let depth = 0;
  const full = e.unsigned ? { lo: 0, hi: 0xffffffff } : { lo: -0x80000000, hi: 0x7fffffff };
  const tasks: Array<{ lo: number; hi: number; at: Block; level: number; klo: number; khi: number }> = [
    { lo: 0, hi: leaves.length - 1, at: start, level: 1, ...{ klo: full.lo, khi: full.hi } },
  ];
  while (tasks.length) {
    const { lo, hi, at, level, klo, khi } = tasks.pop()!;
    if (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      const pivot = leafLo(leaves[mid]!);
      const left = e.block();
      const right = e.block();
      e.branch(at, e.cmp(at, 'LT', e.sel, pivot), left);
      e.branch(at, undefined, right);
      tasks.push({ lo: mid, hi, at: right, level: level + 1, klo: pivot, khi });
      tasks.push({ lo, hi: mid - 1, at: left, level: level + 1, klo, khi: pivot - 1 });
      continue;
    }
    depth = Math.max(depth, level);
    const leaf = leaves[lo]!;
    if (leaf.kind === 'table') {
      emitTableLeaf(e, at, leaf, klo, khi, dflt);
      continue;
    }
    let cur = at;
    let [l, h] = [klo, khi];
    for (let k = 0; k < leaf.ranges.length; k++) {
      const r = leaf.ranges[k]!;
      if (r.lo <= l && r.hi >= h) {
        // Every value still possible here takes this range.
        e.branch(cur, undefined, r.target);
        break;
      }
      let p: Register;
      if (r.lo === r.hi) p = e.cmp(cur, 'EQ', e.sel, r.lo);
      else if (r.lo <= l) p = e.cmp(cur, 'LE', e.sel, r.hi);
      else if (r.hi >= h) p = e.cmp(cur, 'GE', e.sel, r.lo);
      else p = e.cmp(cur, 'LE', e.offset(cur, r.lo), r.hi - r.lo, true);
      e.branch(cur, p, r.target);
      if (r.lo <= l) l = r.hi + 1;
      else if (r.hi >= h) h = r.lo - 1;
      const next = k === leaf.ranges.length - 1 ? dflt : e.block();
      e.branch(cur, undefined, next);
      cur = next;
    }
  }
  return depth;
}

/** A table leaf: `t = sel - lo` (clamped to the extra default entry unless the interval implies the bounds); JMX. */
function emitTableLeaf(e: Emitter, at: Block, leaf: Extract<Leaf, { kind: 'table' }>, klo: number, khi: number, dflt: Block): void {
  const range = leaf.hi - leaf.lo + 1;
  const inside = klo >= leaf.lo && khi <= leaf.hi;
  let t = e.offset(at, leaf.lo);
  if (!inside) {
    const c = e.fn.newReg('R');
    e.ins(at, 'IMNMX', ['U32'], [reg(c)], [reg(t), imm(range), PT]);
    t = c;
  }
  const table: Block[] = new Array<Block>(range + (inside ? 0 : 1)).fill(dflt);
  for (const c of leaf.cases) table[c.v - leaf.lo] = c.target;
  at.append(new Instr('JMX', { uses: [reg(t), { kind: 'labels', blocks: table }], loc: e.line?.loc }));
}

/**
 * Order the fresh blocks so that each one's unconditional successor follows it when that is another fresh
 * block (the branch then folds away). A fresh block that ends `@p BRA T; BRA U` with U not fresh (the
 * default, typically) whose case body T has it as only predecessor and does not fall through is inverted
 * to `@!p BRA U` and T is moved right after it: one branch less per leaf of the tree. Returns the layout
 * of the fresh and moved blocks, chains followed from `first`, the rest in creation order.
 */
function chainLayout(fn: OriFunction, blocks: readonly Block[], first: Block | undefined, soleEdge: ReadonlySet<Block>): Block[] {
  const fresh = new Set(blocks);
  const placed = new Set<Block>();
  const out: Block[] = [];
  // `soleEdge`: case bodies whose only predecessor was the switch and that exactly one new test reaches.
  const movable = (t: Block): boolean => soleEdge.has(t) && !fresh.has(t) && !placed.has(t) && t !== fn.entry && !t.fallsThrough && !hasPhi(t);
  const follow = (b0: Block | undefined): void => {
    let b = b0;
    while (b && fresh.has(b) && !placed.has(b)) {
      placed.add(b);
      out.push(b);
      const u = uncondTarget(b);
      if (u && fresh.has(u)) {
        b = u;
        continue;
      }
      const n = b.instrs.length;
      const cond = b.instrs[n - 2];
      if (u && cond && cond.opcode === 'BRA' && cond.guard && cond.uses[0]?.kind === 'label') {
        const t = cond.uses[0].block;
        if (t !== u && movable(t)) {
          b.remove(b.instrs[n - 1]!);
          cond.setGuard({ reg: cond.guard.reg, not: !cond.guard.not });
          cond.setUses([label(u)]);
          placed.add(t);
          out.push(t);
        }
      }
      b = undefined;
    }
  };
  follow(first);
  for (const b of blocks) follow(b);
  return out;
}

/** The unguarded BRA ending `b`, if any, and its target. */
function uncondTarget(b: Block): Block | undefined {
  const last = b.instrs[b.instrs.length - 1];
  return last && last.opcode === 'BRA' && !last.guard && last.uses[0]?.kind === 'label' ? last.uses[0].block : undefined;
}

/**
 * Rewrite one recognised switch with the chosen strategy. The head keeps its instructions up to its tail;
 * inner nodes are deleted; new blocks go right after the head in layout.
 */
interface Lowered {
  readonly head: Block;
  /** Fresh blocks and moved case bodies, in the layout they take right after the head. */
  readonly chain: readonly Block[];
  readonly dead: readonly Block[];
  readonly depth: number | undefined;
}

function lowerSwitch(fn: OriFunction, sw: RecognisedSwitch, strategy: SwitchStrategy, labels: Labels, preds: ReadonlyMap<Block, number>, budget: number): Lowered {
  const head = sw.head.block;
  const e = new Emitter(fn, sw.sel, sw.unsigned, sw.head.compare, labels);
  // Drop the head's branches and, when nothing else reads it, its compare.
  const tail = sw.head.tail;
  head.remove(tail.branch);
  if (tail.uncond) head.remove(tail.uncond);
  if (tail.pred.uses.size === 0 && tail.pred.defs.size === 1) head.remove(sw.head.compare);
  // Inner nodes go entirely.
  const dead: Block[] = [];
  for (const n of sw.inner) {
    for (let k = n.block.instrs.length - 1; k >= 0; k--) n.block.remove(n.block.instrs[k]!);
    dead.push(n.block);
  }
  let depth: number | undefined;
  const min = sw.cases[0]!.v;
  const max = sw.cases[sw.cases.length - 1]!.v;
  const soleEdge = new Set<Block>();
  if (strategy === 'jump-table') {
    const range = max - min + 1;
    const t = e.offset(head, min);
    const p = e.cmp(head, 'GE', t, range, true);
    e.branch(head, p, sw.defaultTarget);
    const table: Block[] = new Array<Block>(range).fill(sw.defaultTarget);
    for (const c of sw.cases) table[c.v - min] = c.target;
    const j = e.block();
    e.branch(head, undefined, j);
    j.append(new Instr('JMX', { uses: [reg(t), { kind: 'labels', blocks: table }], loc: sw.head.compare.loc }));
  } else {
    const leaves = bstLeaves(sw.cases, budget, true);
    // A case body the switch alone reached (one predecessor before) and one range tests now has one edge in.
    const tests = new Map<Block, number>();
    for (const l of leaves) {
      if (l.kind === 'chain') for (const r of l.ranges) tests.set(r.target, (tests.get(r.target) ?? 0) + 1);
      else for (const c of l.cases) tests.set(c.target, 2); // reached from a table: not a sole test edge
    }
    for (const [t, n] of tests) if (n === 1 && preds.get(t) === 1 && t !== sw.defaultTarget) soleEdge.add(t);
    depth = emitBst(e, head, leaves, sw.defaultTarget);
  }
  return { head, chain: chainLayout(fn, e.blocks, uncondTarget(head), soleEdge), dead, depth };
}

/**
 * Place every lowered switch's chain right after its head and drop the dead inner nodes, in one pass over the
 * layout; then fold the unconditional branches of heads and chains that now jump to the next block. A moved
 * case body may itself head a lowered switch: its own chain follows it.
 */
function relayout(fn: OriFunction, lowered: readonly Lowered[]): void {
  const dead = new Set<Block>();
  const chained = new Set<Block>();
  const chainOf = new Map<Block, readonly Block[]>();
  for (const l of lowered) {
    for (const b of l.dead) dead.add(b);
    for (const b of l.chain) chained.add(b);
    chainOf.set(l.head, l.chain);
  }
  fn.removeBlocks(dead);
  for (const b of chained) if (!b.placed) fn.addBlock(b);
  const out: Block[] = [];
  const emit = (b0: Block): void => {
    const stack: Block[] = [b0];
    while (stack.length) {
      const b = stack.pop()!;
      out.push(b);
      const c = chainOf.get(b);
      if (c) for (let k = c.length - 1; k >= 0; k--) stack.push(c[k]!);
    }
  };
  for (const b of fn.blocks) if (!chained.has(b)) emit(b);
  fn.setLayout(out);
  const touched = new Set<Block>([...chainOf.keys(), ...chained]);
  for (let k = 0; k + 1 < out.length; k++) {
    const b = out[k]!;
    if (touched.has(b) && uncondTarget(b) === out[k + 1]) b.remove(b.instrs[b.instrs.length - 1]!);
  }
}

/**
 * The generic switch optimizer over one function (spec: sub_77CF40). Returns one report per switch found,
 * lowered or kept. Switches are recognised on the CFG as it was (their trees are disjoint), lowered one by
 * one without touching the layout, and placed in one pass at the end.
 */
export function optimizeSwitches(fn: OriFunction, o: SwitchOptOptions = DEFAULT_SWITCH_OPT): SwitchReport[] {
  const reports: SwitchReport[] = [];
  if (o.profileAttached || fn.blocks.length === 0) return reports;
  const order = computeRpo(fn).order;
  const preds = computePredCounts(fn);
  const pos = layoutPositions(fn);
  const labels = new Labels(fn);
  const taken = new Set<Block>();
  const lowered: Lowered[] = [];
  for (const b of order) {
    if (taken.has(b)) continue;
    const sw = recogniseSwitch(fn, pos, b, o, taken, preds);
    if (!sw) continue;
    taken.add(b);
    for (const n of sw.inner) taken.add(n.block);
    const { strategy, reason, density } = chooseStrategy(sw, o);
    const line = lineOf(sw.head.compare);
    const nodes = sw.inner.length + 1;
    const targets = new Set(sw.cases.map((c) => c.target)).size;
    let depth: number | undefined;
    if (strategy !== 'cascade') {
      const l = lowerSwitch(fn, sw, strategy, labels, preds, o.budget);
      lowered.push(l);
      depth = l.depth;
    }
    reports.push({
      head: b, line, cases: sw.cases.length, min: sw.cases[0]!.v, max: sw.cases[sw.cases.length - 1]!.v, density, strategy, reason, nodes, targets,
      ...(depth !== undefined ? { depth } : {}),
    });
  }
  if (lowered.length) relayout(fn, lowered);
  return reports;
}

export function switchRemark(fn: OriFunction, r: SwitchReport): RemarkInput {
  const what = r.strategy === 'jump-table' ? 'lowered to a jump table (JMX)' : r.strategy === 'bst' ? `lowered to a binary search tree of depth ${r.depth}` : 'kept as a compare cascade';
  return {
    kind: r.strategy === 'cascade' ? 'analysis' : 'passed',
    name: 'SwitchLowered',
    fn: fn.name,
    block: r.head.label,
    ...(r.line !== undefined ? { line: r.line } : {}),
    message: `switch with ${r.cases} cases in [${r.min}, ${r.max}] (density ${r.density.toFixed(2)}, ${r.nodes} compares before) ${what}: ${r.reason}`,
    args: {
      cases: r.cases, min: r.min, max: r.max, density: Number(r.density.toFixed(4)), strategy: r.strategy, reason: r.reason, compares: r.nodes, targets: r.targets,
      ...(r.depth !== undefined ? { depth: r.depth } : {}),
    },
  };
}

export function switchOptions(ctx: PhaseContext): SwitchOptOptions {
  return { budget: Math.max(2, ctx.knob<number>(KNOB_SWITCH_BUDGET)), extended: ctx.knob<boolean>(KNOB_SWITCH_EXTENDED) };
}

/** The PGO guard: a function carrying profile data (`.pragma` / directive `pgo`) is left alone. */
function hasProfile(fn: OriFunction): boolean {
  return fn.directives.has('pgo');
}

/** 30 DoSwitchOptSecond: the generic algorithm, second pass (spec: sub_C5FC80 → sub_791F00(ctx, 1)). */
export class DoSwitchOptSecond implements PhaseImpl {
  readonly preserves = 'none' as const;
  execute(ctx: PhaseContext): void {
    const o = switchOptions(ctx);
    for (const fn of ctx.module.functions) {
      for (const r of optimizeSwitches(fn, { ...o, profileAttached: hasProfile(fn) })) ctx.remark(switchRemark(fn, r));
    }
  }
}

