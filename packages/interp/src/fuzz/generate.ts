/**
 * A seeded generator of valid, structured Ori programs that exercise the optimizer: nested if/else, loops with
 * constant and per-thread trip counts, nested and adjacent loops, straight-line memory loops (the shape
 * software pipelining takes), register-stride (grid-stride) loops, dense (BRX) and sparse (compare chain)
 * switches with and without default, nvcc-style switch trees (setp.gt splits, setp.eq/ne chains), chains of
 * compare-only conditions, conditions joined by && and ||, loop-invariant expressions, shared
 * memory with barriers and mixed int/float arithmetic. Every program initialises its variables before any
 * control flow, keeps barriers in uniform control flow and indexes memory in bounds, so it runs without
 * interpreter errors; each thread finally stores all its variables to `out`. The program knows its launch.
 */
import type { Launch } from '../launch.js';
import { rng } from '../verify/inputs.js';

export interface GeneratedProgram {
  readonly seed: number;
  readonly text: string;
  readonly launch: Launch;
  /** Constructs the program uses (for test statistics). */
  readonly features: ReadonlySet<string>;
}

/**
 * Constructs beyond the base set, each off unless asked for (so the programs of existing seeds stay the same):
 *  - `int64`: 64-bit integer variables (IADD3/IMAD/SHL/SHR/LOP3/IMNMX/SEL on 64-bit registers, conversions);
 *  - `f64`: double variables (DADD/DMUL/DFMA/DMNMX/DSETP, I2F/F2I);
 *  - `f16x2`: packed half pairs (HADD2/HMUL2/HFMA2);
 *  - `warp`: SHFL (bfly/down/up/idx) and VOTE (ballot/all/any) in uniform control flow of full warps;
 *  - `memory`: loads and stores to a per-thread scratch word and loads from `in` anywhere, inside control flow;
 *  - `early-exit`: `@p EXIT` in divergent code (no barrier or warp operation after the first one);
 *  - `multi-exit-loop`: counted loops with a conditional break in the middle;
 *  - `irreducible`: a counted cycle with two entries (a branch into its second block);
 *  - `call`: calls of a `.func` with two arguments, a branch and a result;
 *  - `predicated`: guarded non-branch instructions (`@p d = ...`, `@!p STG ...`).
 */
export const FUZZ_FEATURES = ['int64', 'f64', 'f16x2', 'warp', 'memory', 'early-exit', 'multi-exit-loop', 'irreducible', 'call', 'predicated'] as const;
export type FuzzFeature = (typeof FUZZ_FEATURES)[number];

export interface GenerateOptions {
  /** Statement budget (default 24). */
  readonly statements?: number;
  /** Maximum nesting depth of control structures (default 3). */
  readonly depth?: number;
  /** Constructs beyond the base set (default none). */
  readonly features?: readonly FuzzFeature[];
}

const CMPS = ['EQ', 'NE', 'LT', 'LE', 'GT', 'GE'];
const FCMPS = ['LT', 'LE', 'GT', 'GE', 'EQ', 'NEU', 'LTU'];

class Gen {
  private readonly rand: () => number;
  private readonly lines: string[] = [];
  private nextLabel = 1;
  private nextR = 40;
  private nextP = 1;
  private budget: number;
  readonly features = new Set<string>();
  /** Registers statements may assign (all initialised in the prologue). */
  readonly ints: string[] = [];
  readonly floats: string[] = [];
  /** Read-only registers (thread ids, inputs, loop counters in scope). */
  readonly fixed: string[] = ['%r0', '%r3', '%r4', '%r10', '%r11'];
  readonly block: number;
  readonly useShared: boolean;
  private readonly on: ReadonlySet<FuzzFeature>;
  /** 64-bit integer and double variables (stored first in the thread's slot, 8 bytes each), f16x2 variables. */
  readonly wides: string[] = [];
  readonly doubles: string[] = [];
  readonly halves: string[] = [];
  /** A thread has left early (`@p EXIT`): no barrier or warp-wide operation may follow. */
  private exited = false;
  private usesCall = false;
  /** Numbering of the 64-bit registers features add (far above the %rd names the base constructs use). */
  private nextRd = 5000;

  constructor(readonly seed: number, private readonly opts: Required<GenerateOptions>) {
    this.rand = rng(seed);
    this.budget = opts.statements;
    this.block = this.pick([32, 64, 48, 96, 40]);
    this.useShared = this.rand() < 0.4;
    this.on = new Set(opts.features);
  }
  has(f: FuzzFeature): boolean {
    return this.on.has(f);
  }
  rd(): string {
    return `%rd${this.nextRd++}`;
  }
  /** Bytes each thread owns in `out`: 8 per 64-bit variable, 4 per 32-bit one, plus a scratch word with `memory`. */
  stride(): number {
    const words = 2 * (this.wides.length + this.doubles.length) + this.ints.length + this.floats.length + this.halves.length + (this.has('memory') ? 1 : 0);
    return 4 * (words + (this.wides.length + this.doubles.length > 0 && words % 2 ? 1 : 0));
  }
  /** Byte offset of the scratch word in the thread's slot (`memory`). */
  scratchOffset(): number {
    return 4 * (2 * (this.wides.length + this.doubles.length) + this.ints.length + this.floats.length + this.halves.length);
  }

  int(n: number): number {
    return Math.floor(this.rand() * n);
  }
  pick<T>(a: readonly T[]): T {
    return a[this.int(a.length)]!;
  }
  chance(p: number): boolean {
    return this.rand() < p;
  }
  label(): string {
    return `bb${this.nextLabel++}`;
  }
  reg(): string {
    return `%r${this.nextR++}`;
  }
  pred(): string {
    return `%p${this.nextP++}`;
  }
  emit(s: string): void {
    this.lines.push(`  ${s}`);
  }
  place(l: string): void {
    this.lines.push(`${l}:`);
  }
  /** An int operand: a variable, a fixed register or a small immediate. */
  iop(): string {
    const r = this.rand();
    if (r < 0.55) return this.pick(this.ints);
    if (r < 0.8) return this.pick(this.fixed);
    return String(this.pick([0, 1, 2, 3, 5, 7, 8, 16, 31, 100, -1, -7, 0x7fffffff, 255]));
  }
  fop(): string {
    const r = this.rand();
    if (r < 0.8) return this.pick(this.floats);
    return this.pick(['0f3F800000', '0f40000000', '0fBF000000', '0f00000000', '0f42C80000']);
  }

  prologue(): void {
    this.place('bb0');
    this.emit('%r0 = S2R SR_TID.X');
    this.emit('%r1 = S2R SR_CTAID.X');
    this.emit('%r2 = MOV c[0x0][0x0]');
    this.emit('%r3 = IMAD %r1, %r2, %r0');
    this.emit('%r4 = MOV c[0x0][0x220]');
    this.emit('%rd0 = MOV c[0x0][0x218]');
    this.emit('%rd1 = IMAD.WIDE.U32 %r3, 8, %rd0');
    this.emit('%r10 = LDG.E.32 [%rd1]');
    this.emit('%r11 = LDG.E.32 [%rd1+0x4]');
    const nInts = 4 + this.int(3);
    for (let k = 0; k < nInts; k++) {
      const r = this.reg();
      const init = this.pick([`MOV ${this.int(50)}`, 'MOV %r0', 'MOV %r10', 'MOV %r11', `IADD3 %r3, ${this.int(9)}, RZ`, 'LOP3.LUT %r10, %r0, RZ, 0x3c']);
      this.emit(`${r} = ${init}`);
      this.ints.push(r);
    }
    const nFloats = 2 + this.int(2);
    for (let k = 0; k < nFloats; k++) {
      const r = this.reg();
      this.emit(`${r} = ${this.pick(['I2F.F32.S32 %r10', 'I2F.F32.U32 %r0', 'MOV 0f3FC00000', 'I2F.F32.S32 %r11'])}`);
      this.floats.push(r);
    }
    if (this.has('int64')) {
      for (let k = 1 + this.int(3); k > 0; k--) {
        const r = this.rd();
        this.emit(`${r} = ${this.pick(['I2I.U64.U32 %r10', 'I2I.S64.S32 %r11', 'IMAD.WIDE.U32 %r0, %r10, RZ', 'IMAD.WIDE %r11, -3, RZ', `MOV ${this.pick(['0x123456789', '-5', '0x7fffffffffffffff', '0'])}`])}`);
        this.wides.push(r);
      }
      this.features.add('int64');
    }
    if (this.has('f64')) {
      for (let k = 1 + this.int(2); k > 0; k--) {
        const r = this.rd();
        this.emit(`${r} = ${this.pick(['I2F.F64.S32 %r10', 'I2F.F64.U32 %r0', 'MOV 0d3FF8000000000000', 'I2F.F64.S32 %r11'])}`);
        this.doubles.push(r);
      }
      this.features.add('f64');
    }
    if (this.has('f16x2')) {
      for (let k = 1 + this.int(2); k > 0; k--) {
        const r = this.reg();
        this.emit(`${r} = ${this.pick(['MOV 0x3c004000', 'MOV 0xbc003800', 'MOV 0x40003c00'])}`);
        this.halves.push(r);
      }
      this.features.add('f16x2');
    }
    if (this.has('memory')) this.emit(`%rd9 = IMAD.WIDE.U32 %r3, ${this.stride()}, c[0x0][0x210]`);
  }

  epilogue(): void {
    const wide = [...this.wides, ...this.doubles];
    const vars = [...this.ints, ...this.floats, ...this.halves];
    this.emit('%rd2 = MOV c[0x0][0x210]');
    this.emit(`%rd3 = IMAD.WIDE.U32 %r3, ${this.stride()}, %rd2`);
    wide.forEach((v, k) => this.emit(`STG.E.64 [%rd3+0x${(8 * k).toString(16)}], ${v}`));
    vars.forEach((v, k) => this.emit(`STG.E.32 [%rd3+0x${(8 * wide.length + 4 * k).toString(16)}], ${v}`));
    this.emit('EXIT');
  }

  assignInt(): void {
    const d = this.pick(this.ints);
    const a = this.iop();
    const b = this.iop();
    switch (this.int(14)) {
      case 0: this.emit(`${d} = IADD3 ${a}, ${b}, ${this.iop()}`); break;
      case 1: this.emit(`${d} = IADD3 ${a}, -${this.pick(this.ints)}, RZ`); break;
      case 2: this.emit(`${d} = IMAD ${a}, ${b}, ${this.iop()}`); break;
      case 3: this.emit(`${d} = LOP3.LUT ${a}, ${b}, RZ, ${this.pick(['0xc0', '0xfc', '0x3c'])}`); break;
      case 4: this.emit(`${d} = SHL ${a}, ${this.int(40)}`); break;
      case 5: this.emit(`${d} = SHR.${this.pick(['U32', 'S32'])} ${a}, ${this.int(40)}`); break;
      case 6: this.emit(`${d} = IMNMX${this.pick(['', '.U32'])} ${a}, ${b}, ${this.pick(['PT', '!PT'])}`); break;
      case 7: {
        const p = this.pred();
        this.emit(`${p} = ISETP.${this.pick(CMPS)}.${this.pick(['U32', 'S32'])}.AND ${a}, ${b}, PT`);
        this.emit(`${d} = SEL ${this.iop()}, ${this.iop()}, ${p}`);
        break;
      }
      case 8: this.emit(`${d} = ${this.pick(['IDIV.U32', 'IREM.U32', 'IDIV.S32', 'IREM.S32'])} ${a}, ${b}`); this.features.add('div'); break;
      case 9: this.emit(`${d} = F2I.S32.F32 ${this.pick(this.floats)}`); this.features.add('mixed'); break;
      case 10: this.emit(`${d} = ${this.pick(['IABS', 'POPC', 'BREV'])} ${a}`); break;
      case 11: this.emit(`${d} = BFE.${this.pick(['U32', 'S32'])} ${a}, ${this.int(32)}, ${this.int(12)}`); break;
      case 12: this.emit(`${d} = LEA ${a}, ${b}, ${this.int(5)}`); break;
      default: this.emit(`${d} = IMAD.HI.U32 ${a}, ${b}, RZ`);
    }
  }

  assignFloat(): void {
    const d = this.pick(this.floats);
    switch (this.int(8)) {
      case 0: this.emit(`${d} = FADD ${this.fop()}, ${this.fop()}`); break;
      case 1: this.emit(`${d} = FADD ${this.fop()}, -${this.pick(this.floats)}`); break;
      case 2: this.emit(`${d} = FMUL ${this.fop()}, ${this.fop()}`); break;
      case 3: this.emit(`${d} = FFMA ${this.fop()}, ${this.fop()}, ${this.fop()}`); break;
      case 4: this.emit(`${d} = FMNMX ${this.fop()}, ${this.fop()}, ${this.pick(['PT', '!PT'])}`); break;
      case 5: this.emit(`${d} = I2F.F32.S32 ${this.iop()}`); this.features.add('mixed'); break;
      case 6: {
        const p = this.pred();
        this.emit(`${p} = FSETP.${this.pick(FCMPS)}.AND ${this.fop()}, ${this.fop()}, PT`);
        this.emit(`${d} = FSEL ${this.fop()}, ${this.fop()}, ${p}`);
        break;
      }
      default: this.emit(`${d} = MUFU.${this.pick(['RCP', 'SQRT', 'EX2'])} ${this.fop()}`);
    }
  }

  /** A predicate register for a random condition. */
  cond(): string {
    const p = this.pred();
    if (this.chance(0.75)) this.emit(`${p} = ISETP.${this.pick(CMPS)}.${this.pick(['U32', 'S32'])}.AND ${this.iop()}, ${this.iop()}, PT`);
    else this.emit(`${p} = FSETP.${this.pick(FCMPS)}.AND ${this.fop()}, ${this.fop()}, PT`);
    return p;
  }

  body(depth: number, uniform: boolean, n: number): void {
    for (let k = 0; k < n && this.budget > 0; k++) this.statement(depth, uniform);
  }

  statement(depth: number, uniform: boolean): void {
    this.budget--;
    const r = this.rand();
    const nested = depth < this.opts.depth;
    if (!nested || r < 0.45) {
      if (this.on.size && this.chance(0.4)) return this.featureStatement(uniform);
      if (this.chance(0.7)) this.assignInt();
      else this.assignFloat();
      return;
    }
    const kinds = ['if', 'if', 'andor', 'loopc', 'loopv', 'switchd', 'switchs', 'adjacent', 'invariant', 'switchtree', 'switchtree', 'nested', 'loopmem', 'loopstride'];
    if (uniform && this.useShared && !this.exited) kinds.push('shared', 'shared');
    if (this.has('multi-exit-loop')) kinds.push('loopbreak');
    if (this.has('irreducible')) kinds.push('irreducible');
    switch (this.pick(kinds)) {
      case 'loopbreak': return this.loopBreak(depth);
      case 'irreducible': return this.irreducible(depth);
      case 'if': return this.ifElse(depth);
      case 'andor': return this.andOr(depth);
      case 'loopc': return this.loopConst(depth, uniform, this.int(4) + 1);
      case 'loopv': return this.loopVar(depth);
      case 'switchd': return this.switchDense(depth);
      case 'switchs': return this.switchSparse(depth);
      case 'adjacent': {
        this.features.add('adjacent-loops');
        const t = this.int(4) + 1;
        this.loopConst(depth, uniform, t);
        this.loopConst(depth, uniform, t);
        return;
      }
      case 'invariant': return this.loopInvariant(depth, uniform);
      case 'loopmem': return this.loopMemory();
      case 'loopstride': return this.loopStride(depth);
      case 'switchtree': return this.switchTree(depth);
      case 'nested': return this.nestedCond(depth);
      case 'shared': return this.shared();
    }
  }

  ifElse(depth: number): void {
    this.features.add(depth > 0 ? 'nested-if' : 'if');
    const p = this.cond();
    const lThen = this.label();
    const lElse = this.label();
    const lJoin = this.label();
    const hasElse = this.chance(0.6);
    this.emit(`@!${p} BRA ${hasElse ? lElse : lJoin}`);
    this.place(lThen);
    this.body(depth + 1, false, 1 + this.int(3));
    if (hasElse) {
      this.emit(`BRA ${lJoin}`);
      this.place(lElse);
      this.body(depth + 1, false, 1 + this.int(3));
    }
    this.place(lJoin);
  }

  andOr(depth: number): void {
    const and = this.chance(0.5);
    this.features.add(and ? 'and' : 'or');
    const lThen = this.label();
    const lC2 = this.label();
    const lElse = this.label();
    const lJoin = this.label();
    const p1 = this.cond();
    this.emit(and ? `@!${p1} BRA ${lElse}` : `@${p1} BRA ${lThen}`);
    this.place(lC2);
    const p2 = this.cond();
    this.emit(`@!${p2} BRA ${lElse}`);
    this.place(lThen);
    this.body(depth + 1, false, 1 + this.int(2));
    this.emit(`BRA ${lJoin}`);
    this.place(lElse);
    this.body(depth + 1, false, 1 + this.int(2));
    this.place(lJoin);
  }

  /** do { body } while (++i < trips): a constant trip count, uniform when the context is. */
  loopConst(depth: number, uniform: boolean, trips: number): void {
    this.features.add(depth > 0 ? 'nested-loop' : 'loop-const');
    const c = this.reg();
    this.emit(`${c} = MOV 0`);
    const lHead = this.label();
    const lExit = this.label();
    this.place(lHead);
    this.fixed.push(c);
    this.body(depth + 1, uniform, 1 + this.int(3));
    this.fixed.pop();
    this.emit(`${c} = IADD3 ${c}, 1, RZ`);
    const p = this.pred();
    this.emit(`${p} = ISETP.LT.U32.AND ${c}, ${trips}, PT`);
    this.emit(`@${p} BRA ${lHead}`);
    this.place(lExit);
  }

  /** while (i < trips) with a per-thread trip count in 0..7. */
  loopVar(depth: number): void {
    this.features.add('loop-var');
    const c = this.reg();
    const t = this.reg();
    this.emit(`${c} = MOV 0`);
    this.emit(`${t} = LOP3.LUT ${this.pick([...this.ints, '%r0', '%r10', '%r4'])}, 7, RZ, 0xc0`);
    const lHead = this.label();
    const lBody = this.label();
    const lExit = this.label();
    this.place(lHead);
    const p = this.pred();
    this.emit(`${p} = ISETP.GE.U32.AND ${c}, ${t}, PT`);
    this.emit(`@${p} BRA ${lExit}`);
    this.place(lBody);
    this.fixed.push(c);
    this.body(depth + 1, false, 1 + this.int(3));
    this.fixed.pop();
    this.emit(`${c} = IADD3 ${c}, 1, RZ`);
    this.emit(`BRA ${lHead}`);
    this.place(lExit);
  }

  loopInvariant(depth: number, uniform: boolean): void {
    this.features.add('loop-invariant');
    const c = this.reg();
    const inv = this.reg();
    const d = this.pick(this.ints);
    const trips = 2 + this.int(4);
    this.emit(`${c} = MOV 0`);
    const lHead = this.label();
    this.place(lHead);
    this.emit(`${inv} = IMAD ${this.pick(this.fixed)}, ${this.pick(this.fixed)}, ${this.int(20)}`);
    this.emit(`${d} = IADD3 ${d}, ${inv}, ${c}`);
    if (this.chance(0.5)) this.body(depth + 1, uniform, 1);
    this.emit(`${c} = IADD3 ${c}, 1, RZ`);
    const p = this.pred();
    this.emit(`${p} = ISETP.LT.U32.AND ${c}, ${trips}, PT`);
    this.emit(`@${p} BRA ${lHead}`);
    this.place(this.label());
  }

  switchDense(depth: number): void {
    const k = this.pick([2, 3, 4, 5, 8]);
    const withDefault = this.chance(0.5);
    this.features.add(withDefault ? 'switch-dense-default' : 'switch-dense');
    const idx = this.reg();
    const cases = Array.from({ length: k }, () => this.label());
    const lJoin = this.label();
    if (withDefault) {
      const lDefault = this.label();
      this.emit(`${idx} = LOP3.LUT ${this.iop()}, 15, RZ, 0xc0`);
      const p = this.pred();
      this.emit(`${p} = ISETP.GE.U32.AND ${idx}, ${k}, PT`);
      this.emit(`@${p} BRA ${lDefault}`);
      this.place(this.label());
      this.emit(`BRX ${idx}, (${cases.join(', ')})`);
      this.place(lDefault);
      this.body(depth + 1, false, 1 + this.int(2));
      this.emit(`BRA ${lJoin}`);
    } else {
      // idx in 0..k-1: mask for powers of two, otherwise an unsigned remainder.
      if ((k & (k - 1)) === 0) this.emit(`${idx} = LOP3.LUT ${this.iop()}, ${k - 1}, RZ, 0xc0`);
      else this.emit(`${idx} = IREM.U32 ${this.iop()}, ${k}`);
      this.emit(`BRX ${idx}, (${cases.join(', ')})`);
    }
    cases.forEach((l, n) => {
      this.place(l);
      this.body(depth + 1, false, 1 + this.int(2));
      if (n < cases.length - 1 || this.chance(0.5)) this.emit(`BRA ${lJoin}`);
    });
    this.place(lJoin);
  }

  switchSparse(depth: number): void {
    const withDefault = this.chance(0.5);
    this.features.add(withDefault ? 'switch-sparse-default' : 'switch-sparse');
    const v = this.reg();
    this.emit(`${v} = LOP3.LUT ${this.iop()}, 31, RZ, 0xc0`);
    const values = [...new Set(Array.from({ length: 2 + this.int(4) }, () => this.int(32)))];
    const cases = values.map(() => this.label());
    const lDefault = this.label();
    const lJoin = this.label();
    values.forEach((val, n) => {
      const p = this.pred();
      this.emit(`${p} = ISETP.EQ.U32.AND ${v}, ${val}, PT`);
      this.emit(`@${p} BRA ${cases[n]}`);
      this.place(this.label());
    });
    this.emit(`BRA ${withDefault ? lDefault : lJoin}`);
    cases.forEach((l) => {
      this.place(l);
      this.body(depth + 1, false, 1 + this.int(2));
      this.emit(`BRA ${lJoin}`);
    });
    this.place(lDefault);
    if (withDefault) this.body(depth + 1, false, 1 + this.int(2));
    this.place(lJoin);
  }

  /**
   * A switch as nvcc writes it: a binary tree of `setp.gt` splits with chains of `setp.eq` (and a final
   * `setp.ne` to the default) at the leaves, over dense or sparse, signed or unsigned case values; some cases
   * share a body, some jump straight to the join (a value set before the switch).
   */
  switchTree(depth: number): void {
    const unsigned = this.chance(0.3);
    const ty = unsigned ? 'U32' : 'S32';
    const v = this.reg();
    this.emit(`${v} = LOP3.LUT ${this.iop()}, ${this.pick([15, 31, 63, 255])}, RZ, 0xc0`);
    if (!unsigned && this.chance(0.5)) this.emit(`${v} = IADD3 ${v}, ${-this.int(40)}, RZ`);
    const n = 3 + this.int(10);
    const dense = this.chance(0.5);
    const base = unsigned ? this.int(20) : this.int(40) - 20;
    const set = new Set<number>();
    if (dense) for (let k = 0; set.size < n && k < 3 * n; k++) set.add(base + k + (this.chance(0.15) ? 1 : 0));
    else while (set.size < n) set.add(base + this.int(300));
    const vals = [...set].sort((a, b) => a - b);
    this.features.add(dense ? 'switch-tree-dense' : 'switch-tree-sparse');
    const lJoin = this.label();
    const lDefault = this.label();
    const bodies: string[] = [];
    const target = vals.map(() => {
      if (bodies.length && this.chance(0.15)) return this.pick(bodies);
      if (this.chance(0.1)) return lJoin;
      const l = this.label();
      bodies.push(l);
      return l;
    });
    // Explicit work list instead of recursion: [lo, hi, label to place first (or '')].
    const work: Array<[number, number, string]> = [[0, vals.length - 1, '']];
    while (work.length) {
      const [lo, hi, at] = work.pop()!;
      if (at) this.place(at);
      if (hi - lo < 3) {
        for (let k = lo; k <= hi; k++) {
          const p = this.pred();
          if (k === hi && this.chance(0.4)) {
            this.emit(`${p} = ISETP.NE.${ty}.AND ${v}, ${vals[k]}, PT`);
            this.emit(`@${p} BRA ${lDefault}`);
            this.place(this.label());
            this.emit(`BRA ${target[k]}`);
          } else {
            this.emit(`${p} = ISETP.EQ.${ty}.AND ${v}, ${vals[k]}, PT`);
            this.emit(`@${p} BRA ${target[k]}`);
            this.place(this.label());
            if (k === hi) this.emit(`BRA ${lDefault}`);
          }
        }
        continue;
      }
      const mid = (lo + hi) >> 1;
      const right = this.label();
      const p = this.pred();
      this.emit(`${p} = ISETP.GT.${ty}.AND ${v}, ${vals[mid]}, PT`);
      this.emit(`@${p} BRA ${right}`);
      this.place(this.label());
      work.push([mid + 1, hi, right], [lo, mid, '']);
    }
    for (const l of bodies) {
      this.place(l);
      this.body(depth + 1, false, 1 + this.int(2));
      this.emit(`BRA ${lJoin}`);
    }
    this.place(lDefault);
    if (this.chance(0.7)) this.body(depth + 1, false, 1);
    this.place(lJoin);
  }

  /** if (a && b && c) / if (a || b || c) / mixed, with compare-only blocks between the branches. */
  nestedCond(depth: number): void {
    this.features.add('nested-cond');
    const lThen = this.label();
    const lElse = this.label();
    const lJoin = this.label();
    const n = 2 + this.int(3);
    for (let k = 0; k < n; k++) {
      const p = this.cond();
      if (this.chance(0.5)) this.emit(`@!${p} BRA ${lElse}`);
      else this.emit(`@${p} BRA ${lThen}`);
      this.place(this.label());
    }
    this.emit(`BRA ${this.chance(0.5) ? lThen : lElse}`);
    this.place(lThen);
    this.body(depth + 1, false, 1 + this.int(2));
    this.emit(`BRA ${lJoin}`);
    this.place(lElse);
    this.body(depth + 1, false, 1 + this.int(2));
    this.place(lJoin);
  }

  /**
   * A straight-line (single-block) counted loop over memory, the shape software pipelining takes: loads from
   * `in` (read-only: sometimes LDG.CONSTANT), a per-thread scratch word in `out` read and written every
   * iteration (a memory recurrence; the epilogue overwrites it later), a trip count from the launch (n) or
   * per thread, do-while form.
   */
  loopMemory(): void {
    this.features.add('loop-memory');
    const c = this.reg();
    const t = this.reg();
    const acc = this.pick(this.ints);
    const slot = `%rd${10 + this.nextLabel}`;
    const addr = `%rd${11 + this.nextLabel}`;
    const idx = this.reg();
    const v = this.reg();
    const w = this.reg();
    this.emit(`${c} = MOV 0`);
    this.emit(this.chance(0.5) ? `${t} = MOV %r4` : `${t} = LOP3.LUT ${this.pick(['%r0', '%r10', '%r11'])}, 15, RZ, 0xc0`);
    this.emit(`${slot} = IMAD.WIDE.U32 %r3, ${this.stride()}, c[0x0][0x210]`);
    this.emit(`STG.E.32 [${slot}], ${this.pick(this.ints)}`);
    const lHead = this.label();
    this.place(lHead);
    this.emit(`${idx} = LOP3.LUT ${c}, %r0, RZ, 0x3c`);
    this.emit(`${idx} = LOP3.LUT ${idx}, 63, RZ, 0xc0`);
    this.emit(`${addr} = IMAD.WIDE.U32 ${idx}, 4, c[0x0][0x218]`);
    this.emit(`${v} = LDG.E${this.chance(0.5) ? '.CONSTANT' : ''}.32 [${addr}]`);
    this.fixed.push(c, v);
    for (let k = 1 + this.int(3); k > 0; k--) this.assignInt();
    this.fixed.pop();
    this.fixed.pop();
    this.emit(`${acc} = IMAD ${v}, ${this.pick(['3', '%r0', acc])}, ${acc}`);
    if (this.chance(0.6)) {
      this.emit(`${w} = LDG.E.32 [${slot}]`);
      this.emit(`${w} = IADD3 ${w}, ${acc}, ${v}`);
      this.emit(`STG.E.32 [${slot}], ${w}`);
    }
    this.emit(`${c} = IADD3 ${c}, 1, RZ`);
    const p = this.pred();
    this.emit(`${p} = ISETP.LT.U32.AND ${c}, ${t}, PT`);
    this.emit(`@${p} BRA ${lHead}`);
    this.place(this.label());
  }

  /** A guarded loop with a register stride (grid-stride style: i = tid; i < lim; i += blockDim). */
  loopStride(depth: number): void {
    this.features.add('loop-register-stride');
    const c = this.reg();
    const lim = this.reg();
    const p0 = this.pred();
    const lHead = this.label();
    const lExit = this.label();
    this.emit(`${c} = MOV %r0`);
    this.emit(`${lim} = LOP3.LUT ${this.pick(['%r10', '%r11', '%r4'])}, 255, RZ, 0xc0`);
    this.emit(`${p0} = ISETP.GE.U32.AND ${c}, ${lim}, PT`);
    this.emit(`@${p0} BRA ${lExit}`);
    this.place(lHead);
    this.fixed.push(c);
    if (this.chance(0.5)) this.body(depth + 1, false, 1 + this.int(3));
    else for (let k = 1 + this.int(3); k > 0; k--) this.assignInt();
    this.fixed.pop();
    this.emit(`${c} = IADD3 ${c}, %r2, RZ`);
    const p = this.pred();
    this.emit(`${p} = ISETP.LT.U32.AND ${c}, ${lim}, PT`);
    this.emit(`@${p} BRA ${lHead}`);
    this.place(lExit);
  }

  /** Exchange a value through shared memory between barriers (uniform control flow only). */
  shared(): void {
    this.features.add('shared-barrier');
    const a = this.reg();
    const b = this.reg();
    const v = this.pick(this.ints);
    const d = this.pick(this.ints);
    this.emit(`${a} = IMAD %r0, 4, RZ`);
    this.emit(`STS.32 [${a}+@sh], ${v}`);
    this.emit('BAR.SYNC 0');
    this.emit(`${b} = IADD3 %r0, ${1 + this.int(40)}, RZ`);
    this.emit(`${b} = IREM.U32 ${b}, %r2`);
    this.emit(`${b} = IMAD ${b}, 4, RZ`);
    this.emit(`${d} = LDS.32 [${b}+@sh]`);
    this.emit('BAR.SYNC 0');
  }

  /** One statement of an enabled feature (straight-line: loads/stores, warp ops, calls, guarded instructions ...). */
  featureStatement(uniform: boolean): void {
    const kinds: Array<() => void> = [];
    if (this.has('int64')) kinds.push(() => this.assignWide());
    if (this.has('f64')) kinds.push(() => this.assignDouble());
    if (this.has('f16x2')) kinds.push(() => this.assignHalf());
    if (this.has('warp') && uniform && !this.exited && this.block % 32 === 0) kinds.push(() => this.warpOp());
    if (this.has('memory')) kinds.push(() => this.memoryOp());
    if (this.has('early-exit') && !uniform) kinds.push(() => this.earlyExit());
    if (this.has('call')) kinds.push(() => this.call());
    if (this.has('predicated')) kinds.push(() => this.predicated());
    if (!kinds.length) return this.assignInt();
    this.pick(kinds)();
  }

  assignWide(): void {
    const d = this.pick(this.wides);
    const a = (): string => (this.chance(0.8) ? this.pick(this.wides) : this.pick(['1', '-1', '0x100000000', '7', '0xffffffff']));
    switch (this.int(9)) {
      case 0: this.emit(`${d} = IADD3 ${a()}, ${a()}, RZ`); break;
      case 1: this.emit(`${d} = IMAD ${a()}, ${a()}, ${this.pick(this.wides)}`); break;
      case 2: this.emit(`${d} = SHL ${this.pick(this.wides)}, ${this.int(64)}`); break;
      case 3: this.emit(`${d} = SHR.${this.pick(['U64', 'S64'])} ${this.pick(this.wides)}, ${this.int(64)}`); break;
      case 4: this.emit(`${d} = LOP3.LUT ${this.pick(this.wides)}, ${a()}, RZ, ${this.pick(['0xc0', '0xfc', '0x3c'])}`); break;
      case 5: this.emit(`${d} = IMNMX.${this.pick(['S64', 'U64'])} ${this.pick(this.wides)}, ${this.pick(this.wides)}, ${this.pick(['PT', '!PT'])}`); break;
      case 6: {
        const p = this.pred();
        this.emit(`${p} = ISETP.${this.pick(CMPS)}.${this.pick(['U64', 'S64'])}.AND ${this.pick(this.wides)}, ${a()}, PT`);
        this.emit(`${d} = SEL ${this.pick(this.wides)}, ${this.pick(this.wides)}, ${p}`);
        break;
      }
      case 7: this.emit(`${d} = IMAD.WIDE.U32 ${this.iop()}, ${this.iop()}, ${this.pick(this.wides)}`); break;
      default: {
        const r = this.pick(this.ints);
        this.emit(`${r} = I2I.U32.U64 ${this.pick(this.wides)}`);
        this.features.add('mixed');
      }
    }
  }

  assignDouble(): void {
    const d = this.pick(this.doubles);
    const a = (): string => (this.chance(0.85) ? this.pick(this.doubles) : this.pick(['0d3FF0000000000000', '0dC000000000000000', '0d3FE0000000000000']));
    switch (this.int(7)) {
      case 0: this.emit(`${d} = DADD ${a()}, ${a()}`); break;
      case 1: this.emit(`${d} = DMUL ${a()}, ${a()}`); break;
      case 2: this.emit(`${d} = DFMA ${a()}, ${a()}, ${a()}`); break;
      case 3: this.emit(`${d} = DMNMX ${this.pick(this.doubles)}, ${this.pick(this.doubles)}, ${this.pick(['PT', '!PT'])}`); break;
      case 4: {
        const p = this.pred();
        this.emit(`${p} = DSETP.${this.pick(FCMPS)}.AND ${this.pick(this.doubles)}, ${a()}, PT`);
        this.emit(`${d} = SEL ${this.pick(this.doubles)}, ${this.pick(this.doubles)}, ${p}`);
        break;
      }
      case 5: this.emit(`${d} = I2F.F64.S32 ${this.iop()}`); break;
      default: this.emit(`${this.pick(this.ints)} = F2I.S32.F64.TRUNC ${this.pick(this.doubles)}`);
    }
  }

  assignHalf(): void {
    const d = this.pick(this.halves);
    const a = (): string => (this.chance(0.85) ? this.pick(this.halves) : this.pick(['0x3c003c00', '0x40004200', '0xb800bc00']));
    switch (this.int(3)) {
      case 0: this.emit(`${d} = HADD2 ${a()}, ${a()}`); break;
      case 1: this.emit(`${d} = HMUL2 ${a()}, ${a()}`); break;
      default: this.emit(`${d} = HFMA2 ${a()}, ${a()}, ${a()}`);
    }
  }

  /** A warp-wide operation; only in uniform control flow of full warps (every lane of the mask takes part). */
  warpOp(): void {
    this.features.add('warp');
    const d = this.pick(this.ints);
    if (this.chance(0.6)) {
      const mode = this.pick(['BFLY', 'DOWN', 'UP', 'IDX']);
      const c = mode === 'UP' ? 0 : 31;
      this.emit(`${d} = SHFL.${mode} ${this.pick([...this.ints, '%r0', '%r10'])}, ${this.int(32)}, ${c}, -1`);
    } else {
      const p = this.cond();
      const mode = this.pick(['ANY', 'ALL', 'BALLOT']);
      if (mode === 'BALLOT') this.emit(`${d} = VOTE.ANY ${p}, -1`);
      else {
        const q = this.pred();
        this.emit(`RZ, ${q} = VOTE.${mode} ${p}, -1`);
        this.emit(`${d} = SEL ${this.iop()}, ${this.iop()}, ${q}`);
      }
    }
  }

  /** Store to / load from the thread's scratch word, or load `in` at an index in bounds, wherever it stands. */
  memoryOp(): void {
    this.features.add('memory-in-cf');
    const off = this.scratchOffset();
    const d = this.pick(this.ints);
    switch (this.int(3)) {
      case 0: this.emit(`STG.E.32 [%rd9+0x${off.toString(16)}], ${this.pick([...this.ints, '%r0'])}`); break;
      case 1: this.emit(`${d} = LDG.E.32 [%rd9+0x${off.toString(16)}]`); break;
      default: {
        const i = this.reg();
        const a = this.rd();
        this.emit(`${i} = LOP3.LUT ${this.iop()}, 63, RZ, 0xc0`);
        this.emit(`${a} = IMAD.WIDE.U32 ${i}, 4, c[0x0][0x218]`);
        this.emit(`${d} = LDG.E.32 [${a}]`);
      }
    }
  }

  /** `@p EXIT` in divergent code: the thread stops (its slot keeps what it stored so far). */
  earlyExit(): void {
    this.features.add('early-exit');
    const p = this.cond();
    this.emit(`@${p} EXIT`);
    this.place(this.label());
    this.exited = true;
  }

  call(): void {
    this.features.add('call');
    this.usesCall = true;
    this.emit(`${this.pick(this.ints)} = CALL @fz_helper, ${this.iop()}, ${this.iop()}`);
  }

  /** A guarded non-branch instruction. */
  predicated(): void {
    this.features.add('predicated');
    const p = this.cond();
    const g = `@${this.chance(0.4) ? '!' : ''}${p}`;
    const d = this.pick(this.ints);
    switch (this.int(5)) {
      case 0: this.emit(`${g} ${d} = IADD3 ${this.iop()}, ${this.iop()}, ${this.iop()}`); break;
      case 1: this.emit(`${g} ${d} = IMAD ${this.iop()}, ${this.iop()}, ${this.iop()}`); break;
      case 2: this.emit(`${g} ${d} = MOV ${this.iop()}`); break;
      case 3: this.emit(`${g} ${this.pick(this.floats)} = FADD ${this.fop()}, ${this.fop()}`); break;
      default:
        if (this.has('memory')) this.emit(`${g} STG.E.32 [%rd9+0x${this.scratchOffset().toString(16)}], ${this.iop()}`);
        else this.emit(`${g} ${d} = LOP3.LUT ${this.iop()}, ${this.iop()}, RZ, 0x3c`);
    }
  }

  /** A counted loop with a conditional break in its middle (two exits). */
  loopBreak(depth: number): void {
    this.features.add('multi-exit-loop');
    const c = this.reg();
    const lHead = this.label();
    const lExit = this.label();
    this.emit(`${c} = MOV 0`);
    this.place(lHead);
    this.fixed.push(c);
    this.body(depth + 1, false, 1 + this.int(2));
    const p = this.cond();
    this.emit(`@${p} BRA ${lExit}`);
    this.place(this.label());
    this.body(depth + 1, false, 1 + this.int(2));
    this.fixed.pop();
    this.emit(`${c} = IADD3 ${c}, 1, RZ`);
    const q = this.pred();
    this.emit(`${q} = ISETP.LT.U32.AND ${c}, ${1 + this.int(5)}, PT`);
    this.emit(`@${q} BRA ${lHead}`);
    this.place(lExit);
  }

  /** A counted cycle A -> B -> A entered at A (falling in) or at B (a branch): irreducible. */
  irreducible(depth: number): void {
    this.features.add('irreducible');
    const c = this.reg();
    const lA = this.label();
    const lB = this.label();
    this.emit(`${c} = MOV 0`);
    const p = this.cond();
    this.emit(`@${p} BRA ${lB}`);
    this.place(lA);
    this.fixed.push(c);
    this.body(depth + 1, false, 1 + this.int(2));
    this.place(lB);
    this.body(depth + 1, false, 1 + this.int(2));
    this.fixed.pop();
    this.emit(`${c} = IADD3 ${c}, 1, RZ`);
    const q = this.pred();
    this.emit(`${q} = ISETP.LT.U32.AND ${c}, ${2 + this.int(4)}, PT`);
    this.emit(`@${q} BRA ${lA}`);
    this.place(this.label());
  }

  /** The `.func` that `call` statements use: a compare, a branch and a result. */
  helperText(): string[] {
    return [
      '.func @fz_helper(',
      '  .param .b32 a %r0,',
      '  .param .b32 b %r1',
      ') -> (%r2)',
      '{',
      'bb0:',
      '  %r2 = IMAD %r0, %r1, 7',
      '  %p0 = ISETP.GT.S32.AND %r2, %r0, PT',
      '  @%p0 BRA bb2',
      'bb1:',
      '  %r2 = LOP3.LUT %r2, %r1, RZ, 0x3c',
      'bb2:',
      '  RET %r2',
      '}',
      '',
    ];
  }

  program(): GeneratedProgram {
    this.prologue();
    while (this.budget > 0) this.statement(0, true);
    this.epilogue();
    const nwords = this.stride() / 4;
    const grid = 2;
    const threads = grid * this.block;
    const head = [
      `// generated by @ptxforge/interp generateProgram(seed=${this.seed})`,
      '.target sm_90',
      ...(this.useShared ? [`.shared .align 4 .b8 @sh[${this.block * 4}]`] : []),
      '',
      '.entry @fuzz(',
      '  .param .u64 out c[0x0][0x210],',
      '  .param .u64 in c[0x0][0x218],',
      '  .param .u32 n c[0x0][0x220]',
      ')',
      '{',
      `  .maxntid ${this.block}, 1, 1`,
    ];
    if (this.usesCall) head.splice(head.indexOf(''), 0, '', ...this.helperText());
    const text = [...head, ...this.lines, '}', ''].join('\n');
    const inRand = rng(this.seed ^ 0x5bd1e995);
    const inputs = Array.from({ length: threads * 2 }, () => (inRand() < 0.8 ? Math.floor(inRand() * 64) : Math.floor(inRand() * 4294967296)));
    const launch: Launch = {
      kernel: 'fuzz',
      grid,
      block: this.block,
      buffers: { out: { type: 'u32', count: threads * nwords }, in: { type: 'u32', values: inputs } },
      params: [{ buffer: 'out' }, { buffer: 'in' }, { type: 'u32', value: 1 + (this.seed % 16) }],
      maxSteps: 5_000_000,
    };
    return { seed: this.seed, text, launch, features: this.features };
  }
}

/** The program for a seed (same seed, same program). */
export function generateProgram(seed: number, opts: GenerateOptions = {}): GeneratedProgram {
  return new Gen(seed, { statements: opts.statements ?? 24, depth: opts.depth ?? 3, features: opts.features ?? [] }).program();
}
