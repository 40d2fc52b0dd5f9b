import { PtxforgeError } from '../errors.js';
import { CORE_OPCODES, type OpcodeInfo, type OpcodeTable } from './opcodes.js';

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

/** `class:width` -> prefix, and the prefix text of virtual (lower case) and physical (upper case) names -> entry. */
const PREFIX_OF = new Map<string, string>(REG_PREFIXES.map((p) => [`${p.cls}:${p.width}`, p.prefix]));
const PREFIX_BY_TEXT = new Map<string, { entry: (typeof REG_PREFIXES)[number]; upper: boolean }>();
for (const e of REG_PREFIXES) {
  PREFIX_BY_TEXT.set(e.prefix, { entry: e, upper: false });
  PREFIX_BY_TEXT.set(e.prefix.toUpperCase(), { entry: e, upper: true });
}
/** Per class, the prefix of widths 1, 2 and 4 (newReg runs per new register: no search, no key string). */
const PREFIX_BY_CLASS: Record<RegClass, Array<string | undefined>> = { R: [], P: [], UR: [], UP: [], B: [] };
for (const e of REG_PREFIXES) PREFIX_BY_CLASS[e.cls][e.width] ??= e.prefix;

export function regPrefix(cls: RegClass, width: RegWidth): string {
  const p = PREFIX_BY_CLASS[cls]?.[width] ?? PREFIX_OF.get(`${cls}:${width}`);
  if (!p) throw new Error(`no register prefix for class ${cls} width ${width}`);
  return p;
}

/**
 * `%<letters><digits>` split as /^%([a-zA-Z]+)(\d+)$/ would, without a regular expression (getOrCreateReg
 * runs per register the front end names): the prefix entry, whether it is upper case (physical), the digits.
 */
function parseRegName(name: string): { p: { entry: (typeof REG_PREFIXES)[number]; upper: boolean } | undefined; digits: string } | undefined {
  if (name.charCodeAt(0) !== 37) return undefined; // '%'
  let k = 1;
  for (; k < name.length; k++) {
    const ch = name.charCodeAt(k) | 0x20;
    if (ch < 97 || ch > 122) break;
  }
  if (k === 1 || k === name.length) return undefined;
  for (let j = k; j < name.length; j++) {
    const ch = name.charCodeAt(j);
    if (ch < 48 || ch > 57) return undefined;
  }
  return { p: PREFIX_BY_TEXT.get(name.slice(1, k)), digits: name.slice(k) };
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

/** The one register `operandRegs(o)` would return, or undefined (an operand reads at most one). */
function operandReg(o: Operand): Register | undefined {
  if (o.kind === 'reg') return o.reg;
  if (o.kind === 'mem') return o.base;
  if (o.kind === 'cbank') return o.index;
  return undefined;
}
/** Count one more read of `r` by `i` (the register table's `uses`). */
function linkUse(r: Register | undefined, i: Instr): void {
  if (r) r.uses.set(i, (r.uses.get(i) ?? 0) + 1);
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
    /**
     * For a physical register, its first register number in the class (`%RD4` = R4:R5 has phys 4); undefined
     * for a virtual register. Physical registers are named with the upper-case prefix (`%R4`, `%URD2`, `%P0`).
     */
    readonly phys?: number,
  ) {}

  /** Whether this names a machine register (after register allocation) rather than a virtual one. */
  get isPhysical(): boolean {
    return this.phys !== undefined;
  }
  /** Whether two physical registers share a hardware register (R4:R5 overlaps R5); false for virtual ones. */
  overlaps(o: Register): boolean {
    return this.phys !== undefined && o.phys !== undefined && this.cls === o.cls && this.phys < o.phys + o.width && o.phys < this.phys + this.width;
  }

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

/**
 * Per-instruction scheduling control (what the scheduler and scoreboard generator decide; encoded into the
 * control bits of every SASS instruction since sm_70, CuAssembler notation `[B------:R-:W-:Y:S04]`).
 */
export interface ControlInfo {
  /** Cycles to stall before issuing the next instruction, 0..15. */
  stall: number;
  /** Yield flag: the warp scheduler may switch warps after this instruction. */
  yield: boolean;
  /** Scoreboard (dependency barrier) set when the sources have been read, 0..5, or undefined for none. */
  readBarrier: number | undefined;
  /** Scoreboard set when the result is written, 0..5, or undefined for none. */
  writeBarrier: number | undefined;
  /** Scoreboards to wait on before issuing, a 6-bit mask (bit k = barrier k). */
  waitMask: number;
  /** Operand reuse-cache flags, a 4-bit mask (bit k = source operand slot k). */
  reuse: number;
}

export interface InstrInit {
  guard?: Guard | undefined;
  mods?: readonly string[];
  defs?: readonly Operand[];
  uses?: readonly Operand[];
  loc?: SrcLoc | undefined;
  flags?: Iterable<string>;
  control?: ControlInfo | undefined;
}

/**
 * One Ori instruction: `[@guard] defs = OPCODE.MODS uses {attrs}`.
 * Operand arrays are read-only; change them through the setters so the register table stays right.
 */
export class Instr {
  /** Per-function id (0 until the instruction is first placed in a function; see `id`). */
  private _id = 0;
  private _idFn: OriFunction | undefined;
  /** Cached position in `block.instrs` (validated on every read; see Block.indexOf). */
  _pos = -1;
  block: Block | undefined;
  private _guard: Guard | undefined;
  private _defs: Operand[];
  private _uses: Operand[];
  mods: string[];
  loc: SrcLoc | undefined;
  /** Internal: the flag set, made on first access of `flags` (most instructions never have one). */
  _flags: Set<string> | undefined;
  /** Scheduling control record, set by the scheduler / scoreboard generator (absent before). */
  control: ControlInfo | undefined;

  constructor(readonly opcode: string, init: InstrInit = {}) {
    this._guard = init.guard;
    // slice() and an empty Set without an iterable: the cheapest copies (one instruction is built per PTX
    // instruction and per rewrite, so this is on every pass's path)
    this.mods = init.mods ? init.mods.slice() : [];
    this._defs = init.defs ? init.defs.slice() : [];
    this._uses = init.uses ? init.uses.slice() : [];
    this.loc = init.loc;
    if (init.flags) {
      const f = new Set(init.flags);
      if (f.size) this._flags = f;
    }
    this.control = init.control ? { ...init.control } : undefined;
  }

  /**
   * Id unique within the function the instruction was first placed in (numbered from 1 by that function,
   * not by a process-global counter, so two compilations number alike). 0 while never placed.
   */
  /** Attribute flags printed in `{...}` (the set is created on first access). */
  get flags(): Set<string> {
    return (this._flags ??= new Set());
  }
  get id(): number {
    return this._id;
  }
  /** Internal: give the instruction an id from `fn` when it has none from that function. */
  _assignId(fn: OriFunction): void {
    if (this._idFn !== fn) {
      this._idFn = fn;
      this._id = fn._allocInstrId();
    }
  }
  /** The opcode's properties from its function's opcode table (the core ISA while detached). */
  get info(): OpcodeInfo | undefined {
    return (this.block?.fn.opcodes ?? CORE_OPCODES).get(this.opcode);
  }
  /** Position in its block (amortized O(1); -1 when detached). */
  get index(): number {
    return this.block ? this.block.indexOf(this) : -1;
  }
  /** Whether this instruction comes before `other` in the same block (false when in different blocks). */
  comesBefore(other: Instr): boolean {
    return this.block !== undefined && this.block === other.block && this.index < other.index;
  }
  /** Move this instruction right before `ref` (any block of the same function). */
  moveBefore(ref: Instr): void {
    const b = ref.block;
    if (!b) throw new PtxforgeError('IR_NOT_IN_BLOCK', 'moveBefore: the reference instruction is not in a block');
    b.fn.moveInstr(this, b, () => b.indexOf(ref));
  }
  /** Move this instruction right after `ref` (any block of the same function). */
  moveAfter(ref: Instr): void {
    const b = ref.block;
    if (!b) throw new PtxforgeError('IR_NOT_IN_BLOCK', 'moveAfter: the reference instruction is not in a block');
    b.fn.moveInstr(this, b, () => b.indexOf(ref) + 1);
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
    if (this.isControlFlow) fn?._cfgChanged(this.block);
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
    if (this.isControlFlow || this.opcode === 'BSSY') fn?._cfgChanged(this.block);
  }
  /** Detached copy with the same operands (registers are shared, not renamed). */
  clone(): Instr {
    return new Instr(this.opcode, {
      guard: this._guard, mods: this.mods, defs: this._defs, uses: this._uses, loc: this.loc, flags: this._flags,
      control: this.control,
    });
  }
}

/** A basic block: a label and instructions in order, control-flow instructions last. */
export class Block {
  /**
   * Instructions in order. Read-only: change them through insertAt/append/remove/moveInstr so the register
   * table, positions and CFG stay right.
   */
  readonly instrs: readonly Instr[] = [];
  /** Block attributes carried from the front end (`nounroll`, `cold` ...). */
  readonly attrs = new Set<string>();
  /** Internal: CFG edges cached by the function. */
  _succs: Block[] = [];
  _preds: Block[] = [];
  /** Internal: cached position in `fn.blocks` (validated on every read). */
  _pos = -1;
  private _label: string;

  /** A detached block of `fn`; place it with `fn.addBlock` (or use `fn.createBlock`). */
  constructor(label: string, readonly fn: OriFunction) {
    this._label = label;
  }

  get label(): string {
    return this._label;
  }
  /** Internal: name a block that is not placed yet. */
  _setLabelDetached(l: string): void {
    this._label = l;
  }
  /** Renaming keeps the function's label map in step (the new label must be free). */
  set label(l: string) {
    if (l === this._label) return;
    if (this.placed) this.fn._relabel(this, this._label, l);
    this._label = l;
  }
  get succs(): readonly Block[] {
    this.fn._ensureCfg();
    return this._succs;
  }
  get preds(): readonly Block[] {
    this.fn._ensureCfg();
    return this._preds;
  }
  /** Position in layout (amortized O(1)); -1 when the block is not placed in its function. */
  get index(): number {
    return this.fn._blockIndex(this);
  }
  /** Whether the block is placed in its function's layout. */
  get placed(): boolean {
    return this.fn._blockIndex(this) >= 0;
  }
  /** The next block in layout order (the fall-through target), if any. */
  get layoutNext(): Block | undefined {
    const k = this.index;
    return k < 0 ? undefined : this.fn.blocks[k + 1];
  }
  /** The previous block in layout order, if any. */
  get layoutPrev(): Block | undefined {
    const k = this.index;
    return k <= 0 ? undefined : this.fn.blocks[k - 1];
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
  /**
   * Position of `i` in this block, or -1. Positions are cached on the instructions and renumbered lazily
   * when a cached one is stale, so a query costs O(1) amortized (never a scan per query).
   */
  indexOf(i: Instr): number {
    if (i.block !== this) return -1;
    const list = this.instrs;
    const k = i._pos;
    if (k >= 0 && k < list.length && list[k] === i) return k;
    for (let n = 0; n < list.length; n++) list[n]!._pos = n;
    return list[i._pos] === i ? i._pos : -1;
  }

  append(i: Instr): Instr {
    return this.insertAt(this.instrs.length, i);
  }
  /** Insert before the control-flow tail of the block. */
  appendBody(i: Instr): Instr {
    return this.insertAt(this.bodyEnd, i);
  }
  insertBefore(ref: Instr, i: Instr): Instr {
    const k = this.indexOf(ref);
    if (k < 0) throw new PtxforgeError('IR_NOT_IN_BLOCK', 'insertBefore: reference instruction is not in this block');
    return this.insertAt(k, i);
  }
  insertAfter(ref: Instr, i: Instr): Instr {
    const k = this.indexOf(ref);
    if (k < 0) throw new PtxforgeError('IR_NOT_IN_BLOCK', 'insertAfter: reference instruction is not in this block');
    return this.insertAt(k + 1, i);
  }
  insertAt(index: number, i: Instr): Instr {
    if (i.block) throw new PtxforgeError('IR_ALREADY_PLACED', 'instruction is already in a block; remove it first, move it or clone it');
    this._place(index, i);
    this.fn._linkInstr(i);
    if (i.isControlFlow) this.fn._cfgChanged(this);
    return i;
  }
  remove(i: Instr): void {
    const k = this.indexOf(i);
    if (k < 0) throw new PtxforgeError('IR_NOT_IN_BLOCK', 'remove: instruction is not in this block');
    this.removeAt(k);
  }
  /** Remove the instruction at position `k` and return it. */
  removeAt(k: number): Instr {
    if (k < 0 || k >= this.instrs.length) throw new PtxforgeError('IR_BAD_POSITION', `removeAt: position ${k} is outside block ${this.label}`);
    const i = this._take(k);
    this.fn._unlinkInstr(i);
    i.block = undefined;
    if (i.isControlFlow) this.fn._cfgChanged(this);
    return i;
  }
  /**
   * Remove every instruction for which `drop` holds in one pass (O(block size), not O(size) per removal).
   * `drop` is called once per instruction in order and must not query positions or change the block.
   * With `unreachable`, the removed instructions are code no path executes (what follows an unconditional
   * branch, a deleted block): their definitions are remembered so that the pipeline can give uses they were
   * the only definition of an UNDEF (restoreReachingDefs). Returns how many were removed.
   */
  removeWhere(drop: (i: Instr) => boolean, opts: { unreachable?: boolean } = {}): number {
    const list = this.instrs as Instr[];
    const gone: Instr[] = [];
    let w = 0;
    for (let r = 0; r < list.length; r++) {
      const i = list[r]!;
      if (drop(i)) gone.push(i);
      else {
        list[w] = i;
        i._pos = w++;
      }
    }
    if (!gone.length) return 0;
    list.length = w;
    let cf = false;
    for (const i of gone) {
      if (opts.unreachable) this.fn._noteUnreachableDefs(i);
      this.fn._unlinkInstr(i);
      i.block = undefined;
      if (i.isControlFlow) cf = true;
    }
    if (cf) this.fn._cfgChanged(this);
    return gone.length;
  }
  /** Internal: put `i` at `index` in the list (no register-table or CFG bookkeeping). */
  _place(index: number, i: Instr): void {
    const list = this.instrs as Instr[];
    if (index < 0 || index > list.length) throw new PtxforgeError('IR_BAD_POSITION', `position ${index} is outside block ${this.label} (0..${list.length})`);
    if (index === list.length) list.push(i);
    else list.splice(index, 0, i);
    i._pos = index; // later positions are stale now; indexOf renumbers lazily
    i.block = this;
    i._assignId(this.fn);
  }
  /** Internal: take the instruction at `index` out of the list (no bookkeeping). */
  _take(index: number): Instr {
    const list = this.instrs as Instr[];
    const i = index === list.length - 1 ? list.pop()! : list.splice(index, 1)[0]!;
    i._pos = -1;
    return i;
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
  /** `.visible` (PTX linkage): other objects may name it; the cubin's symbol is STB_GLOBAL, as ptxas writes it. */
  visible?: boolean;
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
  /**
   * Blocks in layout order. Read-only: change the layout through createBlock/addBlock/removeBlock/moveBlock/
   * splitBlock/cloneRegion so the label map, positions and CFG stay right.
   */
  readonly blocks: readonly Block[] = [];
  readonly params: FuncParam[] = [];
  readonly results: Register[] = [];
  readonly vars: VarDecl[] = [];
  /** `.maxntid 256 1 1` and friends, value lists by directive name (without the dot). */
  readonly directives = new Map<string, number[]>();
  private readonly regsByName = new Map<string, Register>();
  private readonly regList: Register[] = [];
  private readonly nextNum = new Map<string, number>();
  /** Per virtual-register prefix, the highest number of a name made by getOrCreateReg (newReg checks for a taken name only up to it). */
  private readonly namedUpTo = new Map<string, number>();
  /** Label -> placed block, kept by the mutation API (first block wins when a label is duplicated). */
  private readonly labelMap = new Map<string, Block>();
  private cfgDirty = true;
  private _cfgVersion = 0;
  private _irVersion = 0;
  private blockCounter = 0;
  private instrCounter = 0;
  /**
   * Registers written by instructions that were deleted as unreachable (removed blocks, removeWhere with
   * `unreachable`) since the last takeUnreachableDefs: the only definitions on some path of theirs may have
   * gone while uses remain (restoreReachingDefs, reaching-defs.ts, re-establishes "every use is reached").
   */
  private unreachableDefs: Set<Register> | undefined;
  /** The opcode table its instructions are read with: the core ISA, or its toolchain's (core + plugins). */
  opcodes: OpcodeTable = CORE_OPCODES;

  constructor(public name: string, public kind: 'entry' | 'func' = 'entry') {}

  private get blockList(): Block[] {
    return this.blocks as Block[];
  }
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
    if (!b) throw new PtxforgeError('IR_NO_BLOCKS', `function ${this.name} has no blocks`);
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
  /** Internal: the next instruction id of this function. */
  _allocInstrId(): number {
    return ++this.instrCounter;
  }

  // ---- registers --------------------------------------------------------------------------
  /** A new virtual register of the class and width, named with the next free number. */
  newReg(cls: RegClass, width: RegWidth = 1): Register {
    const prefix = regPrefix(cls, width);
    let n = this.nextNum.get(prefix) ?? 0;
    let name = `%${prefix}${n}`;
    if (n <= (this.namedUpTo.get(prefix) ?? -1)) while (this.regsByName.has(name)) name = `%${prefix}${++n}`;
    this.nextNum.set(prefix, n + 1);
    // what getOrCreateReg(name) makes for a fresh name, without parsing the name back (one prefix per class and width)
    const r = new Register(this.regList.length, cls, width, name, undefined);
    this.regsByName.set(name, r);
    this.regList.push(r);
    return r;
  }
  getReg(name: string): Register | undefined {
    return this.regsByName.get(name);
  }
  /** The physical register of a class starting at number `index`, `width` registers wide (`%RD4` = R4:R5). */
  physReg(cls: RegClass, index: number, width: RegWidth = 1): Register {
    if (!Number.isInteger(index) || index < 0) throw new PtxforgeError('IR_BAD_REGISTER', `physical register number ${index} must be a non-negative integer`);
    return this.getOrCreateReg(`%${regPrefix(cls, width).toUpperCase()}${index}`);
  }
  /**
   * The register named `%<prefix><n>`; the prefix fixes class and width. A lower-case prefix names a virtual
   * register (`%rd5`), an upper-case one the physical register(s) starting at number n (`%RD4` = R4:R5).
   */
  getOrCreateReg(name: string): Register {
    const got = this.regsByName.get(name);
    if (got) return got;
    const m = parseRegName(name);
    if (!m || !m.p) throw new PtxforgeError('IR_BAD_REGISTER', `bad register name ${name}`);
    const { entry: p, upper } = m.p;
    const num = Number(m.digits);
    if (upper && String(num) !== m.digits) throw new PtxforgeError('IR_BAD_REGISTER', `bad register name ${name}: a physical register number has no leading zeros`);
    const r = new Register(this.regList.length, p.cls, p.width, name, upper ? num : undefined);
    if (!upper && num > (this.namedUpTo.get(p.prefix) ?? -1)) this.namedUpTo.set(p.prefix, num);
    this.regsByName.set(name, r);
    this.regList.push(r);
    return r;
  }

  // ---- blocks -----------------------------------------------------------------------------
  /** A label `bbN` not used by any placed block (O(1) amortized: the label map answers). */
  freshLabel(): string {
    this.syncLabels();
    let l: string;
    do l = `bb${this.blockCounter++}`;
    while (this.labelMap.has(l));
    return l;
  }
  /** The placed block with this label (O(1)). */
  getBlock(label: string): Block | undefined {
    this.syncLabels();
    const b = this.labelMap.get(label);
    if (b && b.label === label && this._blockIndex(b) >= 0) return b;
    if (b) {
      // Stale entry (the array was changed behind the API's back): rebuild once and retry.
      this.rebuildLabels();
      return this.labelMap.get(label);
    }
    return undefined;
  }
  /** Internal: layout position of `b` (cached, renumbered lazily when stale), -1 when not placed. */
  _blockIndex(b: Block): number {
    const k = b._pos;
    // Detached blocks have position -1 (set when made and when taken out), so they cost nothing here.
    if (b.fn !== this || k < 0) return -1;
    const list = this.blocks;
    if (k < list.length && list[k] === b) return k;
    // Each placement or removal since the last renumbering moved a block by at most one position, so a stale
    // position is at most `posEdits` away: look there first. Renumbering the whole layout per stale query made
    // passes that remove or add blocks one at a time (branch folding, unrolling) O(edits x blocks); now a
    // full renumbering comes once per ~sqrt(blocks) edits.
    const e = this.posEdits;
    if (e <= 16 + Math.sqrt(list.length)) {
      for (let d = 1; d <= e; d++) {
        if (list[k - d] === b) return (b._pos = k - d);
        if (list[k + d] === b) return (b._pos = k + d);
      }
    }
    this._renumberBlocks();
    return list[b._pos] === b ? b._pos : -1;
  }
  /** Blocks placed or taken out since every placed block's `_pos` was last exact (see _blockIndex). */
  private posEdits = 0;
  /** Internal: make every placed block's `_pos` its layout index (computeRpo indexes arrays by it). */
  _renumberBlocks(): void {
    const list = this.blocks;
    for (let n = 0; n < list.length; n++) list[n]!._pos = n;
    this.posEdits = 0;
  }
  private syncLabels(): void {
    // Cheap guard against edits that bypassed the API (a direct push on the array in old code).
    if (this.labelCount !== this.blocks.length) this.rebuildLabels();
  }
  private labelCount = 0;
  private rebuildLabels(): void {
    this.labelMap.clear();
    const list = this.blocks;
    for (let k = 0; k < list.length; k++) {
      const b = list[k]!;
      b._pos = k;
      if (!this.labelMap.has(b.label)) this.labelMap.set(b.label, b);
    }
    this.posEdits = 0;
    this.labelCount = this.blocks.length;
  }
  /** Record a block just placed (the label map was in sync before it was placed). */
  private addLabel(b: Block): void {
    if (!this.labelMap.has(b.label)) this.labelMap.set(b.label, b);
    this.labelCount++;
  }
  private dropLabel(b: Block): void {
    if (this.labelMap.get(b.label) === b) this.labelMap.delete(b.label);
    this.labelCount--;
  }
  /** Internal: a placed block changes its label. */
  _relabel(b: Block, from: string, to: string): void {
    this.syncLabels();
    const holder = this.labelMap.get(to);
    if (holder && holder !== b && this._blockIndex(holder) >= 0) {
      throw new PtxforgeError('IR_DUPLICATE_LABEL', `block label ${to} already exists in ${this.name}`);
    }
    if (this.labelMap.get(from) === b) this.labelMap.delete(from);
    this.labelMap.set(to, b);
    this._cfgChanged();
  }
  /**
   * Internal: put a detached block at layout position `index` (no fall-through fix-ups). `fresh`: no branch
   * names `b` yet (a block made by this call's caller), so only `b` and its layout predecessor change edges;
   * otherwise the whole CFG is recomputed at the next query.
   */
  private placeBlock(b: Block, index: number, fresh = false): void {
    if (b.fn !== this) throw new PtxforgeError('IR_FOREIGN_BLOCK', `block ${b.label} belongs to ${b.fn.name}, not ${this.name}`);
    if (this._blockIndex(b) >= 0) throw new PtxforgeError('IR_ALREADY_PLACED', `block ${b.label} is already placed in ${this.name}`);
    this.syncLabels();
    const list = this.blockList;
    if (index === list.length) list.push(b);
    else list.splice(index, 0, b);
    b._pos = index;
    this.addLabel(b);
    this.posEdits++;
    if (fresh) {
      this._cfgChanged(b);
      if (index > 0) this._cfgChanged(list[index - 1]);
    } else this._cfgChanged();
  }
  /**
   * Place a detached block (made with `new Block(label, fn)`): last in layout, or right after `after`
   * (whose fall-through edge is first made explicit so the CFG does not change). Its label must be free.
   */
  addBlock(b: Block, opts: { after?: Block } = {}): Block {
    return this.addBlockImpl(b, opts, false);
  }
  private addBlockImpl(b: Block, opts: { after?: Block }, fresh: boolean): Block {
    if (this.getBlock(b.label)) throw new PtxforgeError('IR_DUPLICATE_LABEL', `block label ${b.label} already exists in ${this.name}`);
    if (opts.after) {
      const k = this.requirePlaced(opts.after, 'addBlock');
      this.materializeFallthrough(opts.after);
      this.placeBlock(b, k + 1, fresh);
    } else this.placeBlock(b, this.blocks.length, fresh);
    return b;
  }
  private requirePlaced(b: Block, what: string): number {
    const k = this._blockIndex(b);
    if (k < 0) throw new PtxforgeError('IR_NOT_PLACED', `${what}: block ${b.label} is not placed in ${this.name}`);
    return k;
  }
  /**
   * Create a block. With `after`, it is placed right after that block in layout; the fall-through edge of
   * `after` is first made explicit with a BRA so that the CFG does not change. Without, it goes last.
   */
  createBlock(opts: { label?: string; after?: Block } = {}): Block {
    const lbl = opts.label ?? this.freshLabel();
    if (this.getBlock(lbl)) throw new PtxforgeError('IR_DUPLICATE_LABEL', `block label ${lbl} already exists in ${this.name}`);
    return this.addBlockImpl(new Block(lbl, this), opts.after ? { after: opts.after } : {}, true);
  }
  /** If `b` falls through to its layout successor, append an explicit `BRA` to it. */
  materializeFallthrough(b: Block): void {
    const next = b.layoutNext;
    if (next && b.fallsThrough) b.append(new Instr('BRA', { uses: [label(next)] }));
  }
  /** Remove a block; it must have no predecessors left (redirect them first). Its instructions go too. */
  removeBlock(b: Block): void {
    if (b.preds.length) {
      throw new PtxforgeError('IR_BLOCK_IN_USE', `removeBlock: ${b.label} still has predecessors ${b.preds.map((p) => p.label).join(', ')}`);
    }
    const k = this.requirePlaced(b, 'removeBlock');
    b.removeWhere(() => true, { unreachable: true });
    this.unplaceBlock(b, k);
  }
  /**
   * Remove several blocks at once in O(function size): every predecessor of a removed block must itself be
   * removed (IR_BLOCK_IN_USE otherwise, and then nothing is removed). Their instructions go too.
   */
  removeBlocks(blocks: Iterable<Block>): number {
    const doomed = new Set<Block>();
    for (const b of blocks) {
      this.requirePlaced(b, 'removeBlocks');
      doomed.add(b);
    }
    if (!doomed.size) return 0;
    for (const b of doomed) {
      for (const p of b.preds) {
        if (!doomed.has(p)) throw new PtxforgeError('IR_BLOCK_IN_USE', `removeBlocks: ${b.label} still has predecessor ${p.label}, which is not removed`);
      }
    }
    for (const b of doomed) b.removeWhere(() => true, { unreachable: true });
    this.setLayoutUnchecked(this.blocks.filter((b) => !doomed.has(b)));
    for (const b of doomed) {
      b._pos = -1;
      if (this.labelMap.get(b.label) === b) this.labelMap.delete(b.label);
    }
    this.rebuildLabels();
    this._cfgChanged();
    return doomed.size;
  }
  /**
   * Reorder the layout: `order` must list exactly the placed blocks, each once (IR_BAD_LAYOUT otherwise).
   * Fall-through edges follow the new order (nothing is materialized: the caller decides the edges).
   */
  setLayout(order: readonly Block[]): void {
    const seen = new Set<Block>();
    for (const b of order) {
      if (b.fn !== this || this._blockIndex(b) < 0 || seen.has(b)) {
        throw new PtxforgeError('IR_BAD_LAYOUT', `setLayout: block ${b.label} is ${seen.has(b) ? 'listed twice' : 'not placed in ' + this.name}`);
      }
      seen.add(b);
    }
    if (seen.size !== this.blocks.length) {
      throw new PtxforgeError('IR_BAD_LAYOUT', `setLayout: ${this.blocks.length - seen.size} placed block(s) of ${this.name} are missing from the new order`);
    }
    this.setLayoutUnchecked(order);
    this._cfgChanged();
  }
  private setLayoutUnchecked(order: readonly Block[]): void {
    const list = this.blockList;
    const copy = [...order];
    list.length = 0;
    for (let k = 0; k < copy.length; k++) {
      copy[k]!._pos = k;
      list.push(copy[k]!);
    }
    this.posEdits = 0;
    this.labelCount = list.length;
  }
  private unplaceBlock(b: Block, k: number): void {
    const list = this.blockList;
    // Edges that change: b's own, those of the blocks branching to b (b is no longer a placed target), and
    // the fall-through of b's layout predecessor.
    this._ensureCfg();
    this._cfgChanged(b);
    for (const p of b._preds) this._cfgChanged(p);
    if (k > 0) this._cfgChanged(list[k - 1]);
    if (k === list.length - 1) list.pop();
    else list.splice(k, 1);
    b._pos = -1;
    this.posEdits++;
    this.dropLabel(b);
  }
  /** Move a block in layout (fall-through edges into and out of it are made explicit first). */
  moveBlock(b: Block, after: Block | undefined): void {
    const prev = b.layoutPrev;
    if (prev) this.materializeFallthrough(prev);
    this.materializeFallthrough(b);
    this.unplaceBlock(b, this.requirePlaced(b, 'moveBlock'));
    if (after) {
      this.materializeFallthrough(after);
      // The blocks branching to b were marked when it was taken out: b counts as fresh here.
      this.placeBlock(b, this.requirePlaced(after, 'moveBlock') + 1, true);
    } else this.placeBlock(b, 0, true);
  }
  /**
   * Split `b` before instruction `at`: `at` and everything after it move to a new block placed right after
   * `b`, which then falls through to it. Returns the new block.
   */
  splitBlock(b: Block, at: Instr): Block {
    const k = b.indexOf(at);
    if (k < 0) throw new PtxforgeError('IR_NOT_IN_BLOCK', 'splitBlock: instruction not in block');
    const nb = new Block(this.freshLabel(), this);
    this.placeBlock(nb, this.requirePlaced(b, 'splitBlock') + 1, true);
    const from = b.instrs as Instr[];
    const to = nb.instrs as Instr[];
    for (let n = k; n < from.length; n++) {
      const i = from[n]!;
      i.block = nb;
      i._pos = to.length;
      to.push(i);
    }
    from.length = k;
    this._irVersion++;
    this._cfgChanged(b);
    this._cfgChanged(nb);
    return nb;
  }
  /**
   * Move instruction `i` (placed in this function) to block `to` at position `at` (a number, or a function
   * computing it once `i` has been taken out, so positions after `i` in the same block stay right).
   * The register table is unchanged (the operands are the same); the CFG is marked changed when a
   * control-flow instruction moves.
   */
  moveInstr(i: Instr, to: Block, at: number | (() => number) = () => to.instrs.length): void {
    const from = i.block;
    if (!from || from.fn !== this) throw new PtxforgeError('IR_NOT_IN_BLOCK', `moveInstr: ${i.opcode} is not in a block of ${this.name}`);
    if (to.fn !== this) throw new PtxforgeError('IR_FOREIGN_BLOCK', `moveInstr: block ${to.label} belongs to ${to.fn.name}, not ${this.name}`);
    const k = from.indexOf(i);
    from._take(k);
    i.block = undefined;
    const dest = typeof at === 'function' ? at() : at;
    try {
      to._place(dest, i);
    } catch (e) {
      from._place(k, i); // put it back: nothing half-done
      throw e;
    }
    this._irVersion++;
    if (i.isControlFlow) {
      this._cfgChanged(from);
      this._cfgChanged(to);
    }
  }
  /**
   * Copy the blocks of a region (any set of blocks of this function, given in the layout order the copies
   * should get) with fresh labels. Branch targets, label tables, BSSY and PHI labels that name a block of the
   * region are remapped to its copy; labels outside the region are kept. With `registers: 'fresh'` (the
   * default) every register defined in the region gets a fresh register of the same class and width in
   * the copy, and reads of it inside the copy are renamed; registers only read (live-ins) are shared.
   * `'shared'` keeps all registers (multi-def Ori, e.g. tail duplication).
   * The copies are placed consecutively after `after` (default: at the end of the function); a copy whose
   * original fell through to a block that is not the next copy gets an explicit BRA, so every copy has the
   * same successors (mapped) as its original. Returns the maps from originals to copies.
   */
  cloneRegion(
    region: readonly Block[],
    opts: { after?: Block; registers?: 'fresh' | 'shared' } = {},
  ): RegionClone {
    const blockMap = new Map<Block, Block>();
    const regMap = new Map<Register, Register>();
    const instrMap = new Map<Instr, Instr>();
    for (const b of region) {
      if (this._blockIndex(b) < 0) throw new PtxforgeError('IR_NOT_PLACED', `cloneRegion: block ${b.label} is not placed in ${this.name}`);
      if (blockMap.has(b)) throw new PtxforgeError('IR_BAD_REGION', `cloneRegion: block ${b.label} is listed twice`);
      blockMap.set(b, new Block('', this));
    }
    if (opts.after) this.requirePlaced(opts.after, 'cloneRegion');
    if (opts.registers !== 'shared') {
      for (const b of region) {
        for (const i of b.instrs) {
          // Physical registers are machine state, not values: a clone after allocation keeps them.
          for (const d of i.defs) if (d.kind === 'reg' && !d.reg.isPhysical && !regMap.has(d.reg)) regMap.set(d.reg, this.newReg(d.reg.cls, d.reg.width));
        }
      }
    }
    const mapReg = (r: Register): Register => regMap.get(r) ?? r;
    const mapBlock = (b: Block): Block => blockMap.get(b) ?? b;
    const mapOp = (o: Operand): Operand => {
      switch (o.kind) {
        case 'reg': {
          const r = regMap.get(o.reg);
          return r ? { ...o, reg: r } : o;
        }
        case 'mem':
          return o.base && regMap.has(o.base) ? { ...o, base: mapReg(o.base) } : o;
        case 'cbank':
          return o.index && regMap.has(o.index) ? { ...o, index: mapReg(o.index) } : o;
        case 'label':
          return blockMap.has(o.block) ? { kind: 'label', block: mapBlock(o.block) } : o;
        case 'labels':
          return o.blocks.some((x) => blockMap.has(x)) ? { kind: 'labels', blocks: o.blocks.map(mapBlock) } : o;
        default:
          return o;
      }
    };
    // Place the copies: labels are chosen now so that they are fresh among the placed blocks.
    let anchor = opts.after;
    if (anchor) this.materializeFallthrough(anchor);
    else {
      const last = this.blocks[this.blocks.length - 1];
      if (last) this.materializeFallthrough(last);
    }
    let pos = anchor ? this.requirePlaced(anchor, 'cloneRegion') + 1 : this.blocks.length;
    for (let n = 0; n < region.length; n++) {
      const b = region[n]!;
      const c = blockMap.get(b)!;
      c._setLabelDetached(this.freshLabel());
      for (const a of b.attrs) c.attrs.add(a);
      this.placeBlock(c, pos++, true);
      for (const i of b.instrs) {
        const guard = i.guard ? { reg: mapReg(i.guard.reg), not: i.guard.not } : undefined;
        const ci = new Instr(i.opcode, {
          guard, mods: i.mods, defs: i.defs.map(mapOp), uses: i.uses.map(mapOp), loc: i.loc, flags: i._flags, control: i.control,
        });
        c.append(ci);
        instrMap.set(i, ci);
      }
      // Fall-through of the original goes to its layout successor; keep that edge when the copy's layout
      // successor is not the copy of (or the very) same block.
      const next = b.layoutNext;
      if (b.fallsThrough && next) {
        const want = mapBlock(next);
        const nextCopy = region[n + 1] ? blockMap.get(region[n + 1]!) : undefined;
        const layoutAfter = nextCopy ?? (anchor ? this.blocks[pos] : undefined);
        if (layoutAfter !== want) c.append(new Instr('BRA', { uses: [label(want)] }));
      }
      anchor = c;
    }
    return { blocks: region.map((b) => blockMap.get(b)!), blockMap, regMap, instrMap };
  }
  /**
   * Make the edge `from -> oldTo` go to `newTo`: branch labels are rewritten; a fall-through edge gets an
   * explicit BRA (unless `newTo` is the layout successor).
   */
  redirectEdge(from: Block, oldTo: Block, newTo: Block): void {
    let found = false;
    for (const i of from.instrs) {
      if (!i.isBranch) continue;
      let hit = false;
      const uses = i.uses.map((u) => {
        if (u.kind === 'label' && u.block === oldTo) {
          hit = true;
          return label(newTo);
        }
        if (u.kind === 'labels' && u.blocks.includes(oldTo)) {
          hit = true;
          return { kind: 'labels', blocks: u.blocks.map((x) => (x === oldTo ? newTo : x)) } as Operand;
        }
        return u;
      });
      if (hit) {
        found = true;
        i.setUses(uses);
      }
    }
    if (from.fallsThrough && from.layoutNext === oldTo) {
      if (newTo !== from.layoutNext) from.append(new Instr('BRA', { uses: [label(newTo)] }));
      found = true;
    }
    if (!found) throw new PtxforgeError('IR_NO_EDGE', `redirectEdge: no edge ${from.label} -> ${oldTo.label}`);
    this._cfgChanged(from);
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
    // the registers of useRegs() in its order, without building the array (this runs on every insertion)
    const defs = i.defs;
    for (let k = 0; k < defs.length; k++) {
      const d = defs[k]!;
      if (d.kind === 'reg') d.reg.defs.add(i);
      else linkUse(operandReg(d), i);
    }
    const g = i.guard;
    if (g) linkUse(g.reg, i);
    const uses = i.uses;
    for (let k = 0; k < uses.length; k++) linkUse(operandReg(uses[k]!), i);
  }
  /** Internal: `i` is deleted as unreachable code; remember the registers it wrote (see unreachableDefs). */
  _noteUnreachableDefs(i: Instr): void {
    for (const d of i.defs) {
      if (d.kind !== 'reg') continue;
      (this.unreachableDefs ??= new Set()).add(d.reg);
    }
  }
  /**
   * The registers whose definitions were deleted as unreachable since the last call (undefined when none),
   * and forget them: the caller (restoreReachingDefs) takes over.
   */
  /**
   * A pass that removes paths (a loop's back edge when it unrolls fully) tells which registers may have lost
   * their only reaching definition on some path: they are checked like definitions deleted as unreachable.
   */
  noteLostReachingDefs(regs: Iterable<Register>): void {
    for (const r of regs) (this.unreachableDefs ??= new Set()).add(r);
  }
  get hasUnreachableDefs(): boolean {
    return this.unreachableDefs !== undefined;
  }
  takeUnreachableDefs(): Set<Register> | undefined {
    const s = this.unreachableDefs;
    this.unreachableDefs = undefined;
    return s;
  }
  _unlinkInstr(i: Instr): void {
    this._irVersion++;
    const defs = i.defs;
    for (let k = 0; k < defs.length; k++) {
      const d = defs[k]!;
      if (d.kind === 'reg') d.reg.defs.delete(i);
      else operandReg(d)?.uses.delete(i);
    }
    i.guard?.reg.uses.delete(i);
    const uses = i.uses;
    for (let k = 0; k < uses.length; k++) operandReg(uses[k]!)?.uses.delete(i);
  }
  /**
   * Internal: the CFG changed. With `b`, only `b`'s outgoing edges changed (its control-flow instructions, or
   * the block after it in layout): the next query recomputes the edges of the changed blocks only, so a pass
   * that edits one block and queries the CFG in a loop stays linear. Without, everything is recomputed.
   */
  _cfgChanged(b?: Block): void {
    if (b && b.fn === this && !this.cfgDirty) this.cfgDirtyBlocks.add(b);
    else this.cfgDirty = true;
    this._cfgVersion++;
    this._irVersion++;
  }
  _ensureCfg(): void {
    // Blocks pushed on the layout behind the API's back (old code): recompute everything.
    if (!this.cfgDirty && this.labelCount !== this.blocks.length) this.cfgDirty = true;
    if (!this.cfgDirty) {
      if (this.cfgDirtyBlocks.size) this.updateCfg();
      return;
    }
    this.cfgDirty = false;
    this.cfgDirtyBlocks.clear();
    this.posEdits = 0;
    const list = this.blocks;
    // Fresh arrays (a caller may still be iterating the old ones), but no other garbage: on big functions
    // the collector, not this loop, dominated the rebuild (kernel-scaling benchmark).
    for (let k = 0; k < list.length; k++) {
      const b = list[k]!;
      b._pos = k;
      b._preds = [];
    }
    for (let k = 0; k < list.length; k++) {
      const b = list[k]!;
      const succ = this.computeSuccs(b, k);
      b._succs = succ;
      for (const s of succ) s._preds.push(b);
    }
  }
  private readonly cfgDirtyBlocks = new Set<Block>();
  /**
   * The successors of placed block `b` at layout position `k`: branch targets in order, then the
   * fall-through. Only the control-flow tail is read (control flow stands last in a block, the verifier's
   * rule), so merging straight-line blocks into one long block does not make each query cost its length.
   */
  private computeSuccs(b: Block, k: number): Block[] {
    const succ: Block[] = [];
    // A jump table may name thousands of targets: dedupe through a set instead of scanning `succ` per target.
    const seen = new Set<Block>();
    const instrs = b.instrs;
    let from = instrs.length;
    while (from > 0 && instrs[from - 1]!.isControlFlow) from--;
    for (let n = from; n < instrs.length; n++) {
      const i = instrs[n]!;
      if (!i.isBranch) continue;
      const uses = i.uses;
      for (let u = 0; u < uses.length; u++) {
        const o = uses[u]!;
        if (o.kind === 'label') this._addSucc(succ, seen, o.block);
        else if (o.kind === 'labels') for (const t of o.blocks) this._addSucc(succ, seen, t);
      }
    }
    const next = this.blocks[k + 1];
    if (b.fallsThrough && next && !seen.has(next)) succ.push(next);
    return succ;
  }
  /**
   * Recompute the outgoing edges of the blocks marked changed, and the predecessor lists they touch. The
   * result equals a full recomputation: successors in branch order then the fall-through, predecessors in
   * layout order (each kept sorted by position). Lists that change are fresh arrays, as in the full rebuild.
   */
  private updateCfg(): void {
    // Positions come from _blockIndex (exact, without renumbering the layout per update).
    const dirty = [...this.cfgDirtyBlocks];
    this.cfgDirtyBlocks.clear();
    for (const b of dirty) {
      for (const s of b._succs) {
        const ps = s._preds;
        const at = ps.indexOf(b); // one block's predecessor list, not a scan of the function
        if (at >= 0) s._preds = ps.slice(0, at).concat(ps.slice(at + 1));
      }
    }
    for (const b of dirty) {
      const k = this._blockIndex(b);
      b._succs = k >= 0 ? this.computeSuccs(b, k) : [];
    }
    for (const b of dirty) {
      if (!b._succs.length) continue;
      const pos = this._blockIndex(b);
      for (const s of b._succs) {
        const ps = s._preds;
        let lo = 0;
        let hi = ps.length;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (this._blockIndex(ps[mid]!) < pos) lo = mid + 1;
          else hi = mid;
        }
        s._preds = ps.slice(0, lo).concat([b], ps.slice(lo));
      }
    }
  }

  /** Add branch target `t` to `succ` when it is placed in this function (`succ` is small: a few targets). */
  private _addSucc(succ: Block[], seen: Set<Block>, t: Block): void {
    if (t.fn === this && this._blockIndex(t) >= 0 && !seen.has(t)) {
      seen.add(t);
      succ.push(t);
    }
  }
}

/** What `OriFunction.cloneRegion` returns: the copies in order and the original -> copy maps. */
export interface RegionClone {
  readonly blocks: readonly Block[];
  readonly blockMap: ReadonlyMap<Block, Block>;
  readonly regMap: ReadonlyMap<Register, Register>;
  readonly instrMap: ReadonlyMap<Instr, Instr>;
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
  /** The input file the module was read from (a location without `file` is in it), when it came from one. */
  sourceFile: string | undefined;
  private _opcodes: OpcodeTable = CORE_OPCODES;

  /** The opcode table of the module's functions (see OriFunction.opcodes). */
  get opcodes(): OpcodeTable {
    return this._opcodes;
  }
  /** Read the module (every function, also ones added later through addFunction) with another table. */
  setOpcodes(t: OpcodeTable): void {
    this._opcodes = t;
    for (const fn of this.functions) fn.opcodes = t;
  }

  getFunction(name: string): OriFunction | undefined {
    // Modules hold few functions; a scan is fine here (blocks and instructions never are scanned).
    return this.functions.find((f) => f.name === name);
  }
  addFunction(fn: OriFunction): OriFunction {
    if (this.getFunction(fn.name)) throw new Error(`function ${fn.name} already exists`);
    if (fn.opcodes === CORE_OPCODES) fn.opcodes = this._opcodes;
    this.functions.push(fn);
    return fn;
  }
}
