import { opcodeInfo, type OpcodeInfo } from './opcodes.js';

/** Register classes of Ori: general (R), predicate (P), uniform (UR), uniform predicate (UP), convergence barrier (B). */
export type RegClass = 'R' | 'P' | 'UR' | 'UP' | 'B';
/** Width in 32-bit units: 1 (32-bit), 2 (64-bit pair), 4 (128-bit quad). Predicates and barriers are 1. */
export type RegWidth = 1 | 2 | 4;

/** Name prefixes in Ori text; the prefix says class and width (`%r` R32, `%rd` R64, `%rq` R128, `%p` P ...). */
export const REG_PREFIXES: ReadonlyArray<{ prefix: string; cls: RegClass; width: RegWidth }> = [
  { prefix: 'rq', cls: 'R', width: 4 },
  { prefix: 'rd', cls: 'R', width: 2 },
  { prefix: 'r', cls: 'R', width: 1 },
  { prefix: 'urq', cls: 'UR', width: 4 },
  { prefix: 'urd', cls: 'UR', width: 2 },
  { prefix: 'ur', cls: 'UR', width: 1 },
  { prefix: 'up', cls: 'UP', width: 1 },
  { prefix: 'p', cls: 'P', width: 1 },
  { prefix: 'b', cls: 'B', width: 1 },
];

export function regPrefix(cls: RegClass, width: RegWidth): string {
  const e = REG_PREFIXES.find((p) => p.cls === cls && p.width === width);
  if (!e) throw new Error(`no register prefix for class ${cls} width ${width}`);
  return e.prefix;
}

export function isPredicateClass(cls: RegClass): boolean {
  return cls === 'P' || cls === 'UP';
}

/** Source location of an instruction (the PTX line it came from). */
export interface SrcLoc {
  line: number;
  col?: number;
  file?: number;
}

export type Operand =
  | RegOperand
  | { readonly kind: 'rz'; readonly uniform?: boolean } // RZ / URZ: reads as zero, writes are discarded
  | { readonly kind: 'pt'; readonly not?: boolean } // PT / !PT
  | ImmOperand
  | CBankOperand
  | { readonly kind: 'sreg'; readonly name: string } // SR_TID.X ...
  | { readonly kind: 'label'; readonly block: Block }
  | { readonly kind: 'labels'; readonly blocks: readonly Block[] }
  | MemOperand
  | { readonly kind: 'sym'; readonly name: string }; // address of a variable ($name) or a function for CALL

export interface RegOperand {
  readonly kind: 'reg';
  readonly reg: Register;
  /** Arithmetic negation (`-%r1`). */
  readonly neg?: boolean;
  /** Absolute value (`|%r1|`). */
  readonly abs?: boolean;
  /** Logical / bitwise not (`!%p1` for predicates, `~%r1` for data). */
  readonly not?: boolean;
}

/** Immediate as a bit pattern (`value` is the integer or the IEEE bits); `fmt` only says how it prints. */
export interface ImmOperand {
  readonly kind: 'imm';
  readonly value: bigint;
  readonly fmt: 'int' | 'hex' | 'f32' | 'f64';
}

/** Constant bank reference `c[bank][offset]`, optionally indexed by a register `c[bank][%r1+offset]`. */
export interface CBankOperand {
  readonly kind: 'cbank';
  readonly bank: number;
  readonly offset: number;
  readonly index?: Register;
}

/** Memory address `[base+$sym+offset]`; any part may be missing. */
export interface MemOperand {
  readonly kind: 'mem';
  readonly base?: Register;
  readonly sym?: string;
  readonly offset: number;
}

export const RZ: Operand = Object.freeze({ kind: 'rz' });
export const URZ: Operand = Object.freeze({ kind: 'rz', uniform: true });
export const PT: Operand = Object.freeze({ kind: 'pt' });
export const NOT_PT: Operand = Object.freeze({ kind: 'pt', not: true });

export function reg(r: Register, mods: { neg?: boolean; abs?: boolean; not?: boolean } = {}): RegOperand {
  const o: { kind: 'reg'; reg: Register; neg?: boolean; abs?: boolean; not?: boolean } = { kind: 'reg', reg: r };
  if (mods.neg) o.neg = true;
  if (mods.abs) o.abs = true;
  if (mods.not) o.not = true;
  return o;
}
export function imm(value: number | bigint, fmt: ImmOperand['fmt'] = 'int'): ImmOperand {
  return { kind: 'imm', value: BigInt(value), fmt };
}
export function f32imm(x: number): ImmOperand {
  const b = new DataView(new ArrayBuffer(4));
  b.setFloat32(0, x, true);
  return { kind: 'imm', value: BigInt(b.getUint32(0, true)), fmt: 'f32' };
}
export function label(block: Block): Operand {
  return { kind: 'label', block };
}
export function cbank(bank: number, offset: number, index?: Register): CBankOperand {
  return index ? { kind: 'cbank', bank, offset, index } : { kind: 'cbank', bank, offset };
}
export function mem(base: Register | undefined, offset = 0, sym?: string): MemOperand {
  const o: { kind: 'mem'; base?: Register; sym?: string; offset: number } = { kind: 'mem', offset };
  if (base) o.base = base;
  if (sym !== undefined) o.sym = sym;
  return o;
}

/** The registers an operand reads when it appears as a use (a mem/cbank operand reads its base/index). */
export function operandRegs(o: Operand): Register[] {
  switch (o.kind) {
    case 'reg':
      return [o.reg];
    case 'mem':
      return o.base ? [o.base] : [];
    case 'cbank':
      return o.index ? [o.index] : [];
    default:
      return [];
  }
}

/** Append the registers `operandRegs(o)` would return to `out` (no temporary array). */
function pushOperandRegs(o: Operand, out: Register[]): void {
  if (o.kind === 'reg') out.push(o.reg);
  else if (o.kind === 'mem') {
    if (o.base) out.push(o.base);
  } else if (o.kind === 'cbank') {
    if (o.index) out.push(o.index);
  }
}

export function operandBlocks(o: Operand): Block[] {
  if (o.kind === 'label') return [o.block];
  if (o.kind === 'labels') return [...o.blocks];
  return [];
}

export interface Guard {
  readonly reg: Register;
  readonly not: boolean;
}

/**
 * A virtual register with its table entry: class, width, defining instructions and uses.
 * The table is maintained by the mutation API; do not edit `defs`/`uses` by hand.
 */
export class Register {
  /** Instructions that write it (one in SSA-like code; several for multi-def registers). */
  readonly defs = new Set<Instr>();
  /** Reading instructions with the number of times each reads it (operands, addresses and guards). */
  readonly uses = new Map<Instr, number>();
  /** Parameter of a `.func` (defined on entry) rather than by an instruction. */
  isParam = false;

  constructor(
    readonly id: number,
    readonly cls: RegClass,
    readonly width: RegWidth,
    readonly name: string,
  ) {}

  /** The single defining instruction, or undefined when there is none or more than one. */
  get def(): Instr | undefined {
    if (this.defs.size !== 1) return undefined;
    return this.defs.values().next().value;
  }
  /** Block of the single defining instruction. */
  get defBlock(): Block | undefined {
    return this.def?.block;
  }
  get useCount(): number {
    let n = 0;
    for (const c of this.uses.values()) n += c;
    return n;
  }
  toString(): string {
    return this.name;
  }
}

let nextInstrId = 1;

export interface InstrInit {
  guard?: Guard | undefined;
  mods?: readonly string[];
  defs?: readonly Operand[];
  uses?: readonly Operand[];
  loc?: SrcLoc | undefined;
  flags?: Iterable<string>;
}

/**
 * One Ori instruction: `[@guard] defs = OPCODE.MODS uses {attrs}`.
 * Operand arrays are read-only; change them through the setters so the register table stays right.
 */
export class Instr {
  readonly id = nextInstrId++;
  block: Block | undefined;
  private _guard: Guard | undefined;
  private _defs: Operand[];
  private _uses: Operand[];
  mods: string[];
  loc: SrcLoc | undefined;
  readonly flags: Set<string>;

  constructor(readonly opcode: string, init: InstrInit = {}) {
    this._guard = init.guard;
    this.mods = [...(init.mods ?? [])];
    this._defs = [...(init.defs ?? [])];
    this._uses = [...(init.uses ?? [])];
    this.loc = init.loc;
    this.flags = new Set(init.flags ?? []);
  }

  get info(): OpcodeInfo | undefined {
    return opcodeInfo(this.opcode);
  }
  get guard(): Guard | undefined {
    return this._guard;
  }
  get defs(): readonly Operand[] {
    return this._defs;
  }
  get uses(): readonly Operand[] {
    return this._uses;
  }
  get fn(): OriFunction | undefined {
    return this.block?.fn;
  }
  hasMod(m: string): boolean {
    return this.mods.includes(m);
  }
  /** `OPCODE.MOD1.MOD2` */
  get fullOpcode(): string {
    return this.mods.length ? `${this.opcode}.${this.mods.join('.')}` : this.opcode;
  }
  get isControlFlow(): boolean {
    return !!this.info?.isControlFlow;
  }
  get isBranch(): boolean {
    return !!this.info?.isBranch;
  }
  /** Unguarded instruction after which control cannot fall through. */
  get endsFlowUnconditionally(): boolean {
    return !!this.info?.endsFlow && this._guard === undefined;
  }
  /** Registers written. */
  defRegs(): Register[] {
    const out: Register[] = [];
    const defs = this._defs;
    for (let k = 0; k < defs.length; k++) {
      const d = defs[k]!;
      if (d.kind === 'reg') out.push(d.reg);
    }
    return out;
  }
  /** Whether `r` is among the registers written (no array is built: hot in the optimizer's scans). */
  definesReg(r: Register): boolean {
    const defs = this._defs;
    for (let k = 0; k < defs.length; k++) {
      const d = defs[k]!;
      if (d.kind === 'reg' && d.reg === r) return true;
    }
    return false;
  }
  /** Registers read, including the guard and address/index registers. */
  useRegs(): Register[] {
    // Same order as before (guard, use operands, bases of non-register defs), built without temporaries.
    const out: Register[] = [];
    if (this._guard) out.push(this._guard.reg);
    const uses = this._uses;
    for (let k = 0; k < uses.length; k++) pushOperandRegs(uses[k]!, out);
    // A def through a memory-like operand does not exist in Ori, but a def's base would be a use.
    const defs = this._defs;
    for (let k = 0; k < defs.length; k++) {
      const d = defs[k]!;
      if (d.kind !== 'reg') pushOperandRegs(d, out);
    }
    return out;
  }
  /** Block labels named by this instruction (branch targets, BSSY reconvergence points). */
  labelTargets(): Block[] {
    const out: Block[] = [];
    const uses = this._uses;
    for (let k = 0; k < uses.length; k++) {
      const u = uses[k]!;
      if (u.kind === 'label') out.push(u.block);
      else if (u.kind === 'labels') for (const b of u.blocks) out.push(b);
    }
    return out;
  }

  private attached(): OriFunction | undefined {
    return this.block?.fn;
  }
  setGuard(g: Guard | undefined): void {
    const fn = this.attached();
    fn?._unlinkInstr(this);
    this._guard = g;
    fn?._linkInstr(this);
    if (this.isControlFlow) fn?._cfgChanged();
  }
  setUse(i: number, o: Operand): void {
    this.replaceOperands({ uses: this._uses.map((u, k) => (k === i ? o : u)) });
  }
  setDef(i: number, o: Operand): void {
    this.replaceOperands({ defs: this._defs.map((d, k) => (k === i ? o : d)) });
  }
  setUses(uses: readonly Operand[]): void {
    this.replaceOperands({ uses });
  }
  setDefs(defs: readonly Operand[]): void {
    this.replaceOperands({ defs });
  }
  /** Replace defs and/or uses at once, keeping the register table and CFG in step. */
  replaceOperands(p: { defs?: readonly Operand[]; uses?: readonly Operand[] }): void {
    const fn = this.attached();
    fn?._unlinkInstr(this);
    if (p.defs) this._defs = [...p.defs];
    if (p.uses) this._uses = [...p.uses];
    fn?._linkInstr(this);
    if (this.isControlFlow || this.opcode === 'BSSY') fn?._cfgChanged();
  }
  /** Detached copy with the same operands (registers are shared, not renamed). */
  clone(): Instr {
    return new Instr(this.opcode, {
      guard: this._guard, mods: this.mods, defs: this._defs, uses: this._uses, loc: this.loc, flags: this.flags,
    });
  }
}

/** A basic block: a label and instructions in order, control-flow instructions last. */
export class Block {
  readonly instrs: Instr[] = [];
  /** Block attributes carried from the front end (`nounroll`, `cold` ...). */
  readonly attrs = new Set<string>();
  /** Internal: CFG edges cached by the function. */
  _succs: Block[] = [];
  _preds: Block[] = [];

  constructor(public label: string, readonly fn: OriFunction) {}

  get succs(): readonly Block[] {
    this.fn._ensureCfg();
    return this._succs;
  }
  get preds(): readonly Block[] {
    this.fn._ensureCfg();
    return this._preds;
  }
  get index(): number {
    return this.fn.blocks.indexOf(this);
  }
  /** The next block in layout order (the fall-through target), if any. */
  get layoutNext(): Block | undefined {
    const b = this.fn.blocks;
    return b[b.indexOf(this) + 1];
  }
  /** Whether control can run off the end of this block into its layout successor. */
  get fallsThrough(): boolean {
    const last = this.instrs[this.instrs.length - 1];
    return !last || !last.endsFlowUnconditionally;
  }
  /** Last instruction when it is a control-flow one. */
  get terminator(): Instr | undefined {
    const last = this.instrs[this.instrs.length - 1];
    return last?.isControlFlow ? last : undefined;
  }
  /** Index at which ordinary (non-control-flow) instructions may be appended. */
  get bodyEnd(): number {
    let i = this.instrs.length;
    while (i > 0 && this.instrs[i - 1]!.isControlFlow) i--;
    return i;
  }

  append(i: Instr): Instr {
    return this.insertAt(this.instrs.length, i);
  }
  /** Insert before the control-flow tail of the block. */
  appendBody(i: Instr): Instr {
    return this.insertAt(this.bodyEnd, i);
  }
  insertBefore(ref: Instr, i: Instr): Instr {
    const k = this.instrs.indexOf(ref);
    if (k < 0) throw new Error('insertBefore: reference instruction is not in this block');
    return this.insertAt(k, i);
  }
  insertAfter(ref: Instr, i: Instr): Instr {
    const k = this.instrs.indexOf(ref);
    if (k < 0) throw new Error('insertAfter: reference instruction is not in this block');
    return this.insertAt(k + 1, i);
  }
  insertAt(index: number, i: Instr): Instr {
    if (i.block) throw new Error('instruction is already in a block; remove it first or clone it');
    this.instrs.splice(index, 0, i);
    i.block = this;
    this.fn._linkInstr(i);
    if (i.isControlFlow) this.fn._cfgChanged();
    return i;
  }
  remove(i: Instr): void {
    const k = this.instrs.indexOf(i);
    if (k < 0) throw new Error('remove: instruction is not in this block');
    this.instrs.splice(k, 1);
    this.fn._unlinkInstr(i);
    i.block = undefined;
    if (i.isControlFlow) this.fn._cfgChanged();
  }
}

export interface FuncParam {
  name: string;
  /** PTX type (`u64`, `f32`, `b8` ...). */
  type: string;
  /** Element count for array params (`.b8 p[16]`), 0 for scalars. */
  count: number;
  align?: number;
  /** For kernels: where the hardware puts it, `c[bank][offset]`. */
  cbank?: { bank: number; offset: number };
  /** For `.func`: the register that holds it on entry. */
  reg?: Register;
}

export interface VarDecl {
  space: 'global' | 'shared' | 'const' | 'local';
  name: string;
  /** Size in bytes. */
  size: number;
  align: number;
  init?: Uint8Array;
  /** `.extern` (size unknown / dynamic shared). */
  extern?: boolean;
  /**
   * Address relocations of the initializer (PTX `{ x, y+8, generic(z) }`): at byte `offset` store, little
   * endian in `size` bytes, the address of variable `sym` plus `addend` — its generic address when `generic`,
   * otherwise its address in its own space (docs/ori-semantics.md, "Variables"). Applied over `init` (whose
   * bytes at those offsets are ignored) once every variable has an address.
   */
  relocs?: VarReloc[];
}

/** One address relocation of a variable's initializer (see VarDecl.relocs). */
export interface VarReloc {
  offset: number;
  size: 4 | 8;
  sym: string;
  addend: number;
  generic?: boolean;
}

/**
 * A function ("code object" in the spec): blocks in layout order, the virtual register table,
 * parameters, local variables and directives. `kind` is `entry` for kernels, `func` for device functions.
 */
export class OriFunction {
  readonly blocks: Block[] = [];
  readonly params: FuncParam[] = [];
  readonly results: Register[] = [];
  readonly vars: VarDecl[] = [];
  /** `.maxntid 256 1 1` and friends, value lists by directive name (without the dot). */
  readonly directives = new Map<string, number[]>();
  private readonly regsByName = new Map<string, Register>();
  private readonly regList: Register[] = [];
  private readonly nextNum = new Map<string, number>();
  private cfgDirty = true;
  private _cfgVersion = 0;
  private _irVersion = 0;
  private blockCounter = 0;

  constructor(public name: string, public kind: 'entry' | 'func' = 'entry') {}

  /** Bumped on every CFG change (edges or layout); analyses record it. */
  get cfgVersion(): number {
    return this._cfgVersion;
  }
  /** Bumped on every IR change. */
  get irVersion(): number {
    return this._irVersion;
  }
  get entry(): Block {
    const b = this.blocks[0];
    if (!b) throw new Error(`function ${this.name} has no blocks`);
    return b;
  }
  get registers(): readonly Register[] {
    return this.regList;
  }
  *instructions(): IterableIterator<Instr> {
    for (const b of this.blocks) yield* b.instrs;
  }
  get instructionCount(): number {
    let n = 0;
    for (const b of this.blocks) n += b.instrs.length;
    return n;
  }

  // ---- registers --------------------------------------------------------------------------
  /** A new virtual register of the class and width, named with the next free number. */
  newReg(cls: RegClass, width: RegWidth = 1): Register {
    const prefix = regPrefix(cls, width);
    let n = this.nextNum.get(prefix) ?? 0;
    while (this.regsByName.has(`%${prefix}${n}`)) n++;
    this.nextNum.set(prefix, n + 1);
    return this.getOrCreateReg(`%${prefix}${n}`);
  }
  getReg(name: string): Register | undefined {
    return this.regsByName.get(name);
  }
  /** The register named `%<prefix><n>`; the prefix fixes class and width. */
  getOrCreateReg(name: string): Register {
    const got = this.regsByName.get(name);
    if (got) return got;
    const m = /^%([a-z]+)(\d+)$/.exec(name);
    const p = m && REG_PREFIXES.find((e) => e.prefix === m[1]);
    if (!m || !p) throw new Error(`bad register name ${name}`);
    const r = new Register(this.regList.length, p.cls, p.width, name);
    this.regsByName.set(name, r);
    this.regList.push(r);
    return r;
  }

  // ---- blocks -----------------------------------------------------------------------------
  private freshLabel(): string {
    let l: string;
    do l = `bb${this.blockCounter++}`;
    while (this.blocks.some((b) => b.label === l));
    return l;
  }
  getBlock(label: string): Block | undefined {
    return this.blocks.find((b) => b.label === label);
  }
  /**
   * Create a block. With `after`, it is placed right after that block in layout; the fall-through edge of
   * `after` is first made explicit with a BRA so that the CFG does not change. Without, it goes last.
   */
  createBlock(opts: { label?: string; after?: Block } = {}): Block {
    const lbl = opts.label ?? this.freshLabel();
    if (this.getBlock(lbl)) throw new Error(`block label ${lbl} already exists in ${this.name}`);
    const b = new Block(lbl, this);
    if (opts.after) {
      this.materializeFallthrough(opts.after);
      this.blocks.splice(this.blocks.indexOf(opts.after) + 1, 0, b);
    } else {
      this.blocks.push(b);
    }
    this._cfgChanged();
    return b;
  }
  /** If `b` falls through to its layout successor, append an explicit `BRA` to it. */
  materializeFallthrough(b: Block): void {
    const next = b.layoutNext;
    if (next && b.fallsThrough) b.append(new Instr('BRA', { uses: [label(next)] }));
  }
  /** Remove a block; it must have no predecessors left (redirect them first). Its instructions go too. */
  removeBlock(b: Block): void {
    if (b.preds.length) throw new Error(`removeBlock: ${b.label} still has predecessors ${b.preds.map((p) => p.label).join(', ')}`);
    for (const i of [...b.instrs]) b.remove(i);
    const prev = this.blocks[this.blocks.indexOf(b) - 1];
    this.blocks.splice(this.blocks.indexOf(b), 1);
    void prev;
    this._cfgChanged();
  }
  /** Move a block in layout (fall-through edges into and out of it are made explicit first). */
  moveBlock(b: Block, after: Block | undefined): void {
    const prev = this.blocks[this.blocks.indexOf(b) - 1];
    if (prev) this.materializeFallthrough(prev);
    this.materializeFallthrough(b);
    this.blocks.splice(this.blocks.indexOf(b), 1);
    if (after) {
      this.materializeFallthrough(after);
      this.blocks.splice(this.blocks.indexOf(after) + 1, 0, b);
    } else this.blocks.unshift(b);
    this._cfgChanged();
  }
  /**
   * Split `b` before instruction `at`: `at` and everything after it move to a new block placed right after
   * `b`, which then falls through to it. Returns the new block.
   */
  splitBlock(b: Block, at: Instr): Block {
    const k = b.instrs.indexOf(at);
    if (k < 0) throw new Error('splitBlock: instruction not in block');
    const nb = new Block(this.freshLabel(), this);
    this.blocks.splice(this.blocks.indexOf(b) + 1, 0, nb);
    const moved = b.instrs.splice(k);
    for (const i of moved) {
      i.block = nb;
      nb.instrs.push(i);
    }
    this._irVersion++;
    this._cfgChanged();
    return nb;
  }
  /**
   * Make the edge `from -> oldTo` go to `newTo`: branch labels are rewritten; a fall-through edge gets an
   * explicit BRA (unless `newTo` is the layout successor).
   */
  redirectEdge(from: Block, oldTo: Block, newTo: Block): void {
    let found = false;
    for (const i of from.instrs) {
      if (!i.isBranch) continue;
      const uses = i.uses.map((u) => {
        if (u.kind === 'label' && u.block === oldTo) {
          found = true;
          return label(newTo);
        }
        if (u.kind === 'labels' && u.blocks.includes(oldTo)) {
          found = true;
          return { kind: 'labels', blocks: u.blocks.map((x) => (x === oldTo ? newTo : x)) } as Operand;
        }
        return u;
      });
      if (found) i.setUses(uses);
    }
    if (from.fallsThrough && from.layoutNext === oldTo) {
      if (newTo !== from.layoutNext) from.append(new Instr('BRA', { uses: [label(newTo)] }));
      found = true;
    }
    if (!found) throw new Error(`redirectEdge: no edge ${from.label} -> ${oldTo.label}`);
    this._cfgChanged();
  }
  /** Put a new block on the edge `from -> to` and return it (it branches to `to`). */
  splitEdge(from: Block, to: Block): Block {
    const nb = this.createBlock({ after: from });
    // createBlock made from's fall-through explicit, so the edge is now a label.
    nb.append(new Instr('BRA', { uses: [label(to)] }));
    this.redirectEdge(from, to, nb);
    // Drop a BRA to the layout successor in `from` made redundant by the split.
    const last = from.instrs[from.instrs.length - 1];
    if (last && last.opcode === 'BRA' && !last.guard && last.uses[0]?.kind === 'label' && last.uses[0].block === nb) {
      from.remove(last);
    }
    return nb;
  }
  /** Replace every use of `oldReg` (operands, addresses, guards) by `newReg`. */
  replaceAllUses(oldReg: Register, newReg: Register): void {
    for (const i of [...oldReg.uses.keys()]) replaceRegUses(i, oldReg, newReg);
  }

  // ---- internal bookkeeping ----------------------------------------------------------------
  _linkInstr(i: Instr): void {
    this._irVersion++;
    for (const d of i.defs) if (d.kind === 'reg') d.reg.defs.add(i);
    for (const r of i.useRegs()) r.uses.set(i, (r.uses.get(i) ?? 0) + 1);
  }
  _unlinkInstr(i: Instr): void {
    this._irVersion++;
    for (const d of i.defs) if (d.kind === 'reg') d.reg.defs.delete(i);
    for (const r of i.useRegs()) r.uses.delete(i);
  }
  _cfgChanged(): void {
    this.cfgDirty = true;
    this._cfgVersion++;
    this._irVersion++;
  }
  _ensureCfg(): void {
    if (!this.cfgDirty) return;
    this.cfgDirty = false;
    for (const b of this.blocks) {
      b._succs = [];
      b._preds = [];
    }
    const inFn = new Set(this.blocks);
    for (let k = 0; k < this.blocks.length; k++) {
      const b = this.blocks[k]!;
      const succ: Block[] = [];
      for (const i of b.instrs) {
        if (!i.isBranch) continue;
        for (const t of i.labelTargets()) if (inFn.has(t) && !succ.includes(t)) succ.push(t);
      }
      const next = this.blocks[k + 1];
      if (b.fallsThrough && next && !succ.includes(next)) succ.push(next);
      b._succs = succ;
      for (const s of succ) s._preds.push(b);
    }
  }
}

/** The operand with every read of `from` (register, address base, c-bank index) replaced by `to`. */
export function substituteReg(o: Operand, from: Register, to: Register): Operand {
  switch (o.kind) {
    case 'reg':
      return o.reg === from ? { ...o, reg: to } : o;
    case 'mem':
      return o.base === from ? { ...o, base: to } : o;
    case 'cbank':
      return o.index === from ? { ...o, index: to } : o;
    default:
      return o;
  }
}

/**
 * Replace every read of `from` in one instruction (operands, address bases, c-bank indexes, guard) by `to`.
 * Defs are left alone. Does nothing (and leaves the IR version unchanged) when the instruction does not read it.
 */
export function replaceRegUses(i: Instr, from: Register, to: Register): void {
  if (i.guard?.reg === from) i.setGuard({ reg: to, not: i.guard.not });
  const changed = (o: Operand): boolean => substituteReg(o, from, to) !== o;
  if (!i.uses.some(changed) && !i.defs.some((d) => d.kind !== 'reg' && changed(d))) return;
  i.replaceOperands({
    uses: i.uses.map((o) => substituteReg(o, from, to)),
    defs: i.defs.map((d) => (d.kind === 'reg' ? d : substituteReg(d, from, to))),
  });
}

/** A compilation unit: target, functions and module-level variables. */
export class OriModule {
  target: string | undefined;
  readonly functions: OriFunction[] = [];
  readonly vars: VarDecl[] = [];
  /** File names referenced by source locations (`loc.file` indexes this). */
  readonly files: string[] = [];

  getFunction(name: string): OriFunction | undefined {
    return this.functions.find((f) => f.name === name);
  }
  addFunction(fn: OriFunction): OriFunction {
    if (this.getFunction(fn.name)) throw new Error(`function ${fn.name} already exists`);
    this.functions.push(fn);
    return fn;
  }
}
