import {
  Block, Instr, PtxforgeError, RZ, PT, cbank, imm, label, mem, reg,
  type Guard, type InstrInit, type MemOperand, type Operand as OriOperand, type OriFunction, type Register, type RegWidth, type SrcLoc,
} from '@ptxforge/kernel';
import { opcodeInfo } from '@ptxforge/kernel';
import type { Instruction, Operand, Pos } from '../ast.js';
import { ptxType, regShape, type PtxType } from './types.js';

/** What a PTX name means in the current scope. */
export type Sym =
  /** A `.reg` variable: one Ori register, or one per component for `.v2`/`.v4` registers. */
  | { kind: 'reg'; type: PtxType; regs: Register[]; vec: number }
  /** A `.global/.const/.shared/.local` variable (Ori module or function variable of the same name). */
  | { kind: 'var'; space: 'global' | 'const' | 'shared' | 'local'; oriName: string; type: PtxType }
  /** A kernel parameter: it lives in constant bank 0 at `offset`. */
  | { kind: 'kparam'; offset: number; type: PtxType; size: number }
  /**
   * `.param` storage that is not in memory: a `.func` parameter or return value, or a call-site argument.
   * Scalars are one register; `.b8 x[N]` aggregates are 32-bit words (offset 4k -> regs[k]).
   */
  | { kind: 'pvar'; type: PtxType; regs: Register[]; aggregate: boolean; bytes?: number; align?: number }
  | { kind: 'targets'; labels: string[] }
  /** `name: .calltargets f1, f2;` (the functions an indirect call through it may reach). */
  | { kind: 'calltargets'; funcs: string[] }
  | { kind: 'func'; name: string };

/** A `.func` parameter or result as a call site sees it (`bytes`/`align`: its size and declared alignment). */
export interface FormalParam {
  readonly name: string;
  readonly space: string;
  readonly type: PtxType;
  readonly vec: number;
  readonly aggregate: boolean;
  readonly words: number;
  readonly bytes: number;
  readonly align: number;
}

export interface ModuleInfo {
  readonly file: string;
  /** Addresses of the `.func`s whose address is taken (function-address.ts); empty in a relocatable compilation. */
  functionAddresses?: ReadonlyMap<string, bigint>;
  /** ptxas -c: `.extern` functions are the linker's. */
  relocatable?: boolean;
  /** Names of the module's kernels (`.entry`, defined or `.extern`). */
  entries?: ReadonlySet<string>;
  readonly paramBase: number;
  readonly globals: Map<string, Sym>;
  /** Parameter and return shapes of every function of the module (for CALL). */
  readonly funcs: Map<string, { params: FormalParam[]; returns: FormalParam[] }>;
  readonly fileIndex: Map<number, number>;
  /** Module variables (function-scope .global/.const/.shared variables are hoisted here). */
  readonly moduleVars: import('@ptxforge/kernel').VarDecl[];
  /** PTX before 3.1: names in variable initializers are implicitly generic() (module.ts, legacyGenericInit). */
  legacyGenericInit?: boolean;
  /** `.version` as major * 100 + minor, and the `.target` SM number (for ptxas's version/target rules). */
  ptxVersion?: number;
  targetSm?: number;
}

const SREG_S2R: Record<string, string> = {
  '%tid.x': 'SR_TID.X', '%tid.y': 'SR_TID.Y', '%tid.z': 'SR_TID.Z',
  '%ctaid.x': 'SR_CTAID.X', '%ctaid.y': 'SR_CTAID.Y', '%ctaid.z': 'SR_CTAID.Z',
  '%laneid': 'SR_LANEID', '%warpid': 'SR_WARPID', '%nwarpid': 'SR_NWARPID',
  '%lanemask_eq': 'SR_LANEMASK_EQ', '%lanemask_lt': 'SR_LANEMASK_LT', '%lanemask_le': 'SR_LANEMASK_LE',
  '%lanemask_gt': 'SR_LANEMASK_GT', '%lanemask_ge': 'SR_LANEMASK_GE',
  '%clock': 'SR_CLOCKLO', '%clock_hi': 'SR_CLOCKHI',
};
/** Launch dimensions as the hardware passes them: constant bank 0, offsets 0x0..0x14 (ori-semantics.md, Memory). */
const SREG_CBANK: Record<string, number> = {
  '%ntid.x': 0x0, '%ntid.y': 0x4, '%ntid.z': 0x8, '%nctaid.x': 0xc, '%nctaid.y': 0x10, '%nctaid.z': 0x14,
};

/**
 * `%r12` -> { prefix: '%r', index: 12 }: the name of element `index` of a `prefix<N>` range. Indices are written
 * without leading zeros (`%r01` is no element). Undefined when the name does not end in digits.
 */
export function splitRangeName(name: string): { prefix: string; index: number } | undefined {
  let k = name.length;
  while (k > 0) {
    const c = name.charCodeAt(k - 1);
    if (c < 48 || c > 57) break;
    k--;
  }
  if (k === name.length || k === 0 || name.length - k > 15) return undefined;
  if (name.charCodeAt(k) === 48 && name.length - k > 1) return undefined;
  return { prefix: name.slice(0, k), index: Number(name.slice(k)) };
}

export function isSpecialRegister(name: string): boolean {
  return name in SREG_S2R || name in SREG_CBANK || name === '%clock64' || name === 'WARP_SZ' || /^%(smid|nsmid|gridid|globaltimer|globaltimer_lo|globaltimer_hi|envreg\d+|pm\d+|pm\d+_64|dynamic_smem_size|total_smem_size|aggr_smem_size|reserved_smem_offset_\w+|is_explicit_cluster|cluster\w*|ntid|tid|ctaid|nctaid)$/.test(name);
}

/**
 * Lowering state of one function: scopes, blocks in layout order, the current block, and the PTX
 * instruction being lowered (its position becomes `loc` of every Ori instruction it produces, and its guard
 * guards all of them).
 */
export class FnLowerer {
  readonly scopes: Array<Map<string, Sym>> = [];
  readonly labelBlocks = new Map<string, Block>();
  private cur: Block | undefined;
  private blockNo = 0;
  private readonly usedLabels: Set<string>;
  /** The PTX instruction being lowered. */
  ins!: Instruction;
  /** The instruction types of `formTypesOf`'s form, set by the checker (read-only, shared by the instructions of one form). */
  formTypes: readonly PtxType[] | undefined;
  formTypesOf: Instruction | undefined;
  guard: Guard | undefined;
  /** `.loc` in effect: added as a `dbg.<file>.<line>.<col>` flag. */
  dbgFlag: string | undefined;
  /** The carry flag of add.cc / addc chains. */
  private ccReg: Register | undefined;
  /** `.pragma "nounroll"` before the first instruction of the function: every loop header of it. */
  nounrollAll = false;

  constructor(
    readonly fn: OriFunction,
    readonly mod: ModuleInfo,
    labels: Set<string>,
  ) {
    this.usedLabels = labels;
    this.scopes.push(mod.globals);
  }

  // ---- diagnostics ----------------------------------------------------------------------------
  fail(code: 'PTX_UNSUPPORTED' | 'PTX_SEMANTIC', message: string, pos: Pos = this.ins.pos): never {
    throw new PtxforgeError(code, message, { pos: { file: this.mod.file, line: pos.line, col: pos.col } });
  }
  unsupported(what: string, pos?: Pos): never {
    this.fail('PTX_UNSUPPORTED', `${what} is not supported by the PTX front end`, pos);
  }
  /** Full PTX opcode text for messages (`ld.global.v4.f32`). */
  get opText(): string {
    return [this.ins.opcode, ...this.ins.mods].join('.');
  }

  // ---- scopes ---------------------------------------------------------------------------------
  /** `.reg .t %r<N>` ranges of a scope, by prefix: their registers are made on first use. */
  private readonly ranges = new WeakMap<Map<string, Sym>, Map<string, { count: number; type: PtxType; vec: number }>>();
  lookup(name: string): Sym | undefined {
    for (let k = this.scopes.length - 1; k >= 0; k--) {
      const scope = this.scopes[k]!;
      const s = scope.get(name);
      if (s) return s;
      const rs = this.ranges.get(scope);
      if (rs) {
        const split = splitRangeName(name);
        const r = split && rs.get(split.prefix);
        if (r && split.index < r.count) {
          const sym: Sym = r.vec
            ? { kind: 'reg', type: r.type, vec: r.vec, regs: Array.from({ length: r.vec }, () => this.newRegFor(r.type)) }
            : { kind: 'reg', type: r.type, vec: 0, regs: [this.newRegFor(r.type, name)] };
          scope.set(name, sym);
          return sym;
        }
      }
    }
    return undefined;
  }
  private inRange(scope: Map<string, Sym>, name: string): boolean {
    const split = splitRangeName(name);
    const r = split && this.ranges.get(scope)?.get(split.prefix);
    return !!r && split.index < r.count;
  }
  declare(name: string, sym: Sym, pos: Pos): void {
    const top = this.scopes[this.scopes.length - 1]!;
    if ((top.has(name) || this.inRange(top, name)) && this.scopes.length > 1) this.fail('PTX_SEMANTIC', `'${name}' is declared twice in the same scope`, pos);
    top.set(name, sym);
  }
  /** Declare `prefix<count>`: names prefix0 .. prefix(count-1), registers made on first use. */
  declareRange(prefix: string, count: number, type: PtxType, pos: Pos, vec = 0): void {
    const top = this.scopes[this.scopes.length - 1]!;
    let rs = this.ranges.get(top);
    if (!rs) this.ranges.set(top, (rs = new Map()));
    if (rs.has(prefix)) this.fail('PTX_SEMANTIC', `'${prefix}<${count}>' is declared twice in the same scope`, pos);
    for (const n of top.keys()) {
      const split = splitRangeName(n);
      if (split && split.prefix === prefix && split.index < count) this.fail('PTX_SEMANTIC', `'${n}' is declared twice in the same scope`, pos);
    }
    rs.set(prefix, { count, type, vec });
  }
  newRegFor(t: PtxType, ptxName?: string): Register {
    const s = regShape(t);
    // Keep the PTX name when it is already a valid Ori name of the right class (%r3, %rd4, %p1): dumps
    // then read like the source.
    if (ptxName && FnLowerer.keepsName(ptxName, t) && !this.claimed.has(ptxName)) {
      this.claimed.add(ptxName);
      return this.fn.getOrCreateReg(ptxName);
    }
    return this.fn.newReg(s.cls, s.width);
  }
  private readonly claimed = new Set<string>();
  static keepsName(ptxName: string, t: PtxType): boolean {
    const s = regShape(t);
    // /^%(r|rd|p)(\d+)$/ with the prefix the class and width want, without a regular expression
    const want = s.cls === 'P' ? 'p' : s.width === 2 ? 'rd' : s.width === 1 ? 'r' : '';
    if (!want || ptxName.charCodeAt(0) !== 37 || !ptxName.startsWith(want, 1)) return false;
    const from = 1 + want.length;
    if (from === ptxName.length) return false;
    for (let k = from; k < ptxName.length; k++) {
      const ch = ptxName.charCodeAt(k);
      if (ch < 48 || ch > 57) return false;
    }
    return true;
  }
  /** Create the registers whose PTX names are kept before any other register takes those names. */
  reserve(names: Iterable<[string, PtxType]>): void {
    for (const [n, t] of names) if (FnLowerer.keepsName(n, t)) this.fn.getOrCreateReg(n);
  }

  // ---- blocks ---------------------------------------------------------------------------------
  freshLabel(): string {
    let l: string;
    do l = `bb${this.blockNo++}`;
    while (this.usedLabels.has(l));
    this.usedLabels.add(l);
    return l;
  }
  /** The block of a PTX label (created on first mention, placed in layout when the label is reached). */
  blockOf(name: string): Block {
    let b = this.labelBlocks.get(name);
    if (!b) {
      b = new Block(/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : this.freshLabel(), this.fn);
      this.labelBlocks.set(name, b);
    }
    return b;
  }
  placeLabel(name: string, pos: Pos): void {
    const b = this.blockOf(name);
    if (b.placed) this.fail('PTX_SEMANTIC', `label '${name}' is defined twice`, pos);
    this.fn.addBlock(b);
    this.cur = b;
  }
  /** Current block, opening an unlabelled one after a terminator. */
  block(): Block {
    if (!this.cur) {
      this.cur = this.fn.addBlock(new Block(this.freshLabel(), this.fn));
    }
    return this.cur;
  }
  endBlock(): void {
    this.cur = undefined;
  }
  get currentBlock(): Block | undefined {
    return this.cur;
  }

  // ---- emission -------------------------------------------------------------------------------
  emit(opcode: string, mods: readonly string[], defs: readonly OriOperand[], uses: readonly OriOperand[], opts?: { noGuard?: boolean }): Instr {
    // one init object, no spread (this runs per Ori instruction)
    const init: InstrInit = { guard: opts?.noGuard ? undefined : this.guard, mods, defs, uses, loc: this.insLoc() };
    if (this.dbgFlag) init.flags = [this.dbgFlag];
    const i = new Instr(opcode, init);
    this.checkClasses(i);
    const b = this.block();
    b.append(i);
    if (i.isControlFlow) this.endBlock();
    return i;
  }

  private locOf: Instruction | undefined;
  private loc: SrcLoc | undefined;
  /** The source location of the PTX instruction being lowered, one object shared by the instructions it becomes (never mutated). */
  private insLoc(): SrcLoc {
    if (this.locOf !== this.ins || !this.loc) {
      this.locOf = this.ins;
      this.loc = { line: this.ins.pos.line, col: this.ins.pos.col };
    }
    return this.loc;
  }

  /**
   * A PTX register of the wrong kind (a `.pred` where data is expected or the reverse) shows up as an operand
   * that does not fit the opcode's signature: report it at the PTX instruction instead of emitting bad IR.
   */
  private checkClasses(i: Instr): void {
    const info = opcodeInfo(i.opcode);
    if (!info) return;
    if (info.defs) this.checkOperandClasses(info.defs, i.defs, 'a destination');
    if (info.uses) this.checkOperandClasses(info.uses, i.uses, 'a source');
  }
  private checkOperandClasses(sig: readonly string[], ops: readonly OriOperand[], what: string): void {
    let k = 0;
    let lastKind = '';
    for (const spec of sig) {
      const kind = spec[0]!;
      const star = spec.endsWith('*');
      lastKind = kind;
      do {
        const o = ops[k];
        if (!o) break;
        const bad = this.wrongClass(o, kind, what);
        if (bad) {
          if (star) break;
          this.fail('PTX_SEMANTIC', bad);
        }
        k++;
      } while (star);
    }
    // An operand the signature has no room for (a data register as setp's second destination): located
    // here rather than an unlocated ORI_VERIFY error of phase 0.
    if (k < ops.length) {
      const bad = this.wrongClass(ops[k]!, lastKind, what);
      this.fail('PTX_SEMANTIC', bad ?? `${this.opText}: unexpected ${what} '${ops[k]!.kind === 'reg' ? (ops[k] as { reg: Register }).reg.name : ops[k]!.kind}'`);
    }
  }
  private wrongClass(o: OriOperand, kind: string, what: string): string | undefined {
    if (o.kind !== 'reg' || (kind !== 'p' && kind !== 'r')) return undefined;
    const isPred = o.reg.cls === 'P' || o.reg.cls === 'UP';
    if (kind === 'p' && !isPred) return `${this.opText}: expected a .pred register as ${what}, found a data register`;
    if (kind === 'r' && isPred) return `${this.opText}: a .pred register cannot be used as ${what} here (expected a data register)`;
    return undefined;
  }
  /** Emit an instruction with one fresh def of the given class/width and return that register. */
  tmp(width: RegWidth, opcode: string, mods: readonly string[], uses: readonly OriOperand[]): Register {
    const r = this.fn.newReg('R', width);
    this.emit(opcode, mods, [reg(r)], uses);
    return r;
  }
  tmpP(opcode: string, mods: readonly string[], uses: readonly OriOperand[]): Register {
    const r = this.fn.newReg('P', 1);
    this.emit(opcode, mods, [reg(r)], uses);
    return r;
  }
  /** Registers the body writes return values into (P registers are converted into fn.results at RET). */
  readonly retValues: Register[] = [];
  emitReturn(): void {
    if (this.fn.kind === 'entry') {
      this.emit('EXIT', [], [], []);
      return;
    }
    this.retValues.forEach((v, k) => {
      const r = this.fn.results[k]!;
      if (v !== r) this.emit('SEL', [], [reg(r)], [imm(1), RZ, reg(v)]);
    });
    this.emit('RET', [], [], this.fn.results.map((r) => reg(r)));
  }
  get cc(): Register {
    this.ccReg ??= this.fn.newReg('P', 1);
    return this.ccReg;
  }

  /** isSpecialRegister per name, remembered (asked for nearly every register operand). */
  private readonly specialNames = new Map<string, boolean>();
  private isSpecial(name: string): boolean {
    let v = this.specialNames.get(name);
    if (v === undefined) this.specialNames.set(name, (v = isSpecialRegister(name)));
    return v;
  }

  // ---- operands -------------------------------------------------------------------------------
  operand(k: number): Operand {
    const o = this.ins.operands[k];
    if (!o) this.fail('PTX_SEMANTIC', `${this.opText} needs at least ${k + 1} operands, found ${this.ins.operands.length}`);
    return o;
  }
  expectOperands(min: number, max = min): void {
    const n = this.ins.operands.length;
    if (n < min || n > max) {
      this.fail('PTX_SEMANTIC', `${this.opText} takes ${min === max ? min : `${min} to ${max}`} operands, found ${n}`);
    }
  }
  describe(o: Operand): string {
    switch (o.kind) {
      case 'name': return o.comp ? `${o.name}.${o.comp}` : o.name;
      case 'int': return o.value.toString();
      case 'float': return String(o.value);
      case 'offset': return `${o.base}+${o.offset}`;
      case 'addr': return `[${o.base ?? ''}${o.offset ? `+${o.offset}` : ''}]`;
      case 'vec': return `{${o.elems.map((e) => this.describe(e)).join(', ')}}`;
      case 'list': return `(${o.elems.map((e) => this.describe(e)).join(', ')})`;
      case 'not': return `!${this.describe(o.operand)}`;
      case 'neg': return `-${this.describe(o.operand)}`;
      case 'pair': return `${this.describe(o.first)}|${this.describe(o.second)}`;
      case 'sink': return '_';
    }
  }

  /** The register(s) a name operand denotes; components select one register of a vector register. */
  regOf(o: Operand, what = 'a register'): Register {
    if (o.kind !== 'name') this.fail('PTX_SEMANTIC', `${this.opText}: expected ${what}, found '${this.describe(o)}'`);
    const s = this.lookup(o.name);
    if (!s) this.fail('PTX_SEMANTIC', `${this.opText}: '${o.name}' is not declared`);
    return this.regOfSym(o, s, what);
  }
  /** regOf for a name already looked up. */
  private regOfSym(o: Extract<Operand, { kind: 'name' }>, s: Sym, what = 'a register'): Register {
    if (s.kind !== 'reg') this.fail('PTX_SEMANTIC', `${this.opText}: expected ${what}, found '${o.name}' (not a .reg)`);
    if (o.comp !== undefined) {
      const k = 'xyzw'.indexOf(o.comp) >= 0 ? 'xyzw'.indexOf(o.comp) : 'rgba'.indexOf(o.comp);
      if (s.vec === 0 || k < 0 || k >= s.vec) this.fail('PTX_SEMANTIC', `${this.opText}: '${o.name}.${o.comp}' is not a component of a vector register`);
      return s.regs[k]!;
    }
    if (s.vec !== 0) this.fail('PTX_SEMANTIC', `${this.opText}: vector register '${o.name}' used where a scalar is expected`);
    return s.regs[0]!;
  }

  /** Destination register for a value of type t (a wider register than t is allowed: the value is extended). */
  dst(o: Operand): Register {
    return this.regOf(o, 'a destination register');
  }

  /** Read an operand as a value of type t: register, immediate, special register, variable address. */
  src(o: Operand, t: PtxType): OriOperand {
    switch (o.kind) {
      case 'name': {
        // one scope lookup per operand (a lookup of a `%r<N>` name makes its register on first use: same order as before)
        let s: Sym | undefined;
        if (o.comp === undefined) {
          if (this.isSpecial(o.name)) return reg(this.special(o.name, t));
          s = this.lookup(o.name);
        } else {
          s = this.lookup(o.name);
          if (!s) {
            const full = `${o.name}.${o.comp}`;
            if (isSpecialRegister(full)) return reg(this.special(full, t));
          }
        }
        if (!s) this.fail('PTX_SEMANTIC', `${this.opText}: '${o.name}' is not declared`);
        if (s.kind === 'reg') {
          const r = this.regOfSym(o, s);
          if (t.kind === 'pred' || r.cls === 'P') return reg(r);
          return reg(this.fit(r, t));
        }
        if (s.kind === 'var') return reg(this.varAddress(s, t, 0n));
        if (s.kind === 'kparam') {
          // The address of a kernel parameter in .param space is its constant-bank offset (ld.param through
          // a register becomes an indexed LDC).
          return imm(this.mod.paramBase + s.offset, 'hex');
        }
        if (s.kind === 'pvar') this.unsupported(`taking the address of .param variable '${o.name}' in a .func or call sequence`);
        this.fail('PTX_SEMANTIC', `${this.opText}: '${o.name}' cannot be used as a value here`);
      }
      // falls through (unreachable)
      case 'int':
        return this.intImm(o.value, t);
      case 'float':
        return this.floatImm(o, t);
      case 'offset': {
        const s = this.lookup(o.base);
        if (s?.kind === 'var') return reg(this.varAddress(s, t, o.offset));
        if (s?.kind === 'reg') {
          const r = this.regOf({ kind: 'name', name: o.base });
          const w = t.bits > 32 ? 2 : 1;
          return reg(this.tmp(w, 'IADD3', [], [reg(this.fit(r, t)), this.intImm(o.offset, t), RZ]));
        }
        this.fail('PTX_SEMANTIC', `${this.opText}: '${o.base}' is not a variable or register`);
      }
      // falls through (unreachable)
      case 'neg': {
        // `-5`, `--5`, `- -5`: a negated integer literal is a constant (ptxas folds it).
        let negs = 1;
        let e = o.operand;
        while (e.kind === 'neg') {
          negs++;
          e = e.operand;
        }
        if (e.kind === 'int') return this.intImm(negs % 2 ? -e.value : e.value, t);
        const inner = this.src(o.operand, t);
        if (inner.kind === 'reg') return { ...inner, neg: !inner.neg };
        this.fail('PTX_SEMANTIC', `${this.opText}: cannot negate '${this.describe(o.operand)}'`);
      }
      // falls through (unreachable)
      case 'not': {
        const inner = this.src(o.operand, t);
        if (inner.kind === 'reg' && inner.reg.cls === 'P') return { ...inner, not: !inner.not };
        if (inner.kind === 'pt') return { kind: 'pt', not: !inner.not };
        this.fail('PTX_SEMANTIC', `${this.opText}: '!' applies to predicates, found '${this.describe(o.operand)}'`);
      }
      // falls through (unreachable)
      default:
        this.fail('PTX_SEMANTIC', `${this.opText}: expected a register or an immediate, found '${this.describe(o)}'`);
    }
  }

  /** A predicate source (`%p`, `!%p`, or the integer constants 0/1). */
  pred(o: Operand): OriOperand {
    if (o.kind === 'int') return o.value !== 0n ? PT : { kind: 'pt', not: true };
    const v = this.src(o, PRED);
    if (v.kind === 'pt' || (v.kind === 'reg' && v.reg.cls === 'P')) return v;
    this.fail('PTX_SEMANTIC', `${this.opText}: expected a predicate, found '${this.describe(o)}'`);
  }

  intImm(v: bigint, t: PtxType): OriOperand {
    if (t.kind === 'f') {
      // An integer literal used as a float operand: the value, converted.
      return this.floatImm({ value: Number(v), width: 64 }, t);
    }
    const bits = t.bits <= 32 ? 32 : 64;
    // A narrow literal as `norm` extends a register of its type: sign-extended for .s8/.s16, zero-extended otherwise
    // (mul.wide.u16 %r, %rs, -17873 multiplies by 47663, as nvcc's division-by-11 sequence needs).
    const narrow = t.bits < 32 ? (t.kind === 's' ? BigInt.asIntN(t.bits, v) : BigInt.asUintN(t.bits, v)) : v;
    const x = BigInt.asIntN(bits, narrow);
    return imm(x, x >= -4096n && x <= 4096n ? 'int' : 'hex');
  }
  floatImm(o: { value: number; bits?: bigint; width: 32 | 64 }, t: PtxType): OriOperand {
    if (t.kind !== 'f') {
      // Float literal as raw bits of an untyped operand (mov.b32 %r1, 0f3F800000).
      if (o.bits !== undefined) return imm(o.bits, 'hex');
      if (t.bits === 64) {
        // a decimal literal is a double: its bits, as for 0d literals (mov.b64 %rd1, 1.5)
        const dv = new DataView(new ArrayBuffer(8));
        dv.setFloat64(0, o.value);
        return imm(dv.getBigUint64(0), 'hex');
      }
      this.fail('PTX_SEMANTIC', `${this.opText}: decimal float literal used as a .${t.name} operand`);
    }
    if (t.bits === 64) {
      if (o.bits !== undefined && o.width === 64) return imm(o.bits, 'f64');
      const dv = new DataView(new ArrayBuffer(8));
      dv.setFloat64(0, o.value);
      return imm(dv.getBigUint64(0), 'f64');
    }
    let bits32: bigint;
    if (o.bits !== undefined && o.width === 32) bits32 = o.bits;
    else {
      const dv = new DataView(new ArrayBuffer(4));
      dv.setFloat32(0, o.value);
      bits32 = BigInt(dv.getUint32(0));
    }
    if (t.bits === 16) return imm(f32BitsToF16(Number(bits32)), 'hex');
    return imm(bits32, 'f32');
  }

  /** A register holding r at the width of type t (truncating or zero/sign-extending across 32/64). */
  fit(r: Register, t: PtxType): Register {
    const want = regShape(t).width;
    if (r.cls !== 'R' || r.width === want) return r;
    if (want === 1 && r.width === 2) return this.tmp(1, 'I2I', ['U32', 'U64'], [reg(r)]);
    if (want === 2 && r.width === 1) return this.tmp(2, 'I2I', [t.kind === 's' ? 'S64' : 'U64', t.kind === 's' ? 'S32' : 'U32'], [reg(r)]);
    this.fail('PTX_SEMANTIC', `${this.opText}: register ${r.name} does not fit a .${t.name} operand`);
  }

  /** Write value register v (computed at the width of t) into destination d, extending when d is wider. */
  assign(d: Register, v: Register, t: PtxType): void {
    if (d === v) return;
    if (d.width === v.width) this.emit(d.cls === 'P' ? 'COPY' : 'MOV', [], [reg(d)], [reg(v)]);
    else if (d.width === 2 && v.width === 1) this.emit('I2I', [t.kind === 's' ? 'S64' : 'U64', t.kind === 's' ? 'S32' : 'U32'], [reg(d)], [reg(v)]);
    else if (d.width === 1 && v.width === 2) this.emit('I2I', ['U32', 'U64'], [reg(d)], [reg(v)]);
    else this.fail('PTX_SEMANTIC', `${this.opText}: cannot write a .${t.name} value into ${d.name}`);
  }

  /**
   * Destination handling for "compute into a register of width(t), then store into d": returns d itself when
   * the widths agree, else a temporary that `finish` copies into d.
   */
  out(o: Operand, t: PtxType): { r: Register; finish: () => void } {
    const d = this.dst(o);
    const w = regShape(t).width;
    if (d.cls === 'P' || d.width === w) return { r: d, finish: () => {} };
    const r = this.fn.newReg('R', w);
    return { r, finish: () => this.assign(d, r, t) };
  }

  /** Sub-word integer source normalized to a full 32-bit value (sign or zero extension by t). */
  norm(o: Operand, t: PtxType): OriOperand {
    const v = this.src(o, t);
    if (t.bits >= 32 || t.kind === 'f' || v.kind !== 'reg') return v;
    return reg(this.tmp(1, 'I2I', [t.kind === 's' ? 'S32' : 'U32', `${t.kind === 's' ? 'S' : 'U'}${t.bits}`], [v]));
  }

  /** Read a special register (into `into` when it has the right width, else a temporary). */
  special(name: string, t: PtxType, into?: Register): Register {
    const put = (width: RegWidth, opcode: string, use: OriOperand): Register => {
      if (into && into.cls === 'R' && into.width === width) {
        this.emit(opcode, [], [reg(into)], [use]);
        return into;
      }
      return this.tmp(width, opcode, [], [use]);
    };
    if (name in SREG_S2R) {
      const r = put(1, 'S2R', { kind: 'sreg', name: SREG_S2R[name]! });
      return t.bits === 64 && r !== into ? this.fit(r, U32_64) : r;
    }
    if (name in SREG_CBANK) {
      const r = put(1, 'MOV', cbank(0, SREG_CBANK[name]!));
      return t.bits === 64 && r !== into ? this.fit(r, U32_64) : r;
    }
    if (name === '%clock64') return put(2, 'S2R', { kind: 'sreg', name: 'SR_CLOCK64' });
    // %globaltimer: the 64-bit nanosecond timer (ptxas: CS2R Rd, SR_GLOBALTIMERLO)
    if (name === '%globaltimer') return put(2, 'S2R', { kind: 'sreg', name: 'SR_GLOBALTIMER' });
    const env = /^%envreg(\d+)$/.exec(name);
    // %envreg0..31: driver-written words of constant bank 0 from 0x40 on (ptxas 13: %envregN is c[0x0][0x40 + 4N])
    if (env && Number(env[1]) < 32) {
      const r = put(1, 'MOV', cbank(0, 0x40 + 4 * Number(env[1])));
      return t.bits === 64 && r !== into ? this.fit(r, U32_64) : r;
    }
    // the shared memory the driver reserves below the user's (ptxas 13, sm_90): _begin and _0 are 0, _cap 0x400,
    // _end and _1 driver words of constant bank 0
    const reserved: Record<string, OriOperand> = {
      '%reserved_smem_offset_begin': imm(0), '%reserved_smem_offset_0': imm(0), '%reserved_smem_offset_cap': imm(0x400),
      '%reserved_smem_offset_end': cbank(0, 0x68), '%reserved_smem_offset_1': cbank(0, 0x6c),
    };
    if (name in reserved) {
      const r = put(1, 'MOV', reserved[name]!);
      return t.bits === 64 && r !== into ? this.fit(r, U32_64) : r;
    }
    if (name === 'WARP_SZ') return put(t.bits === 64 ? 2 : 1, 'MOV', imm(32));
    this.unsupported(`special register ${name}`);
  }

  /** Address of a variable in its own space (global/const: global address; shared/local: window offset). */
  varAddress(s: Extract<Sym, { kind: 'var' }>, t: PtxType, offset: bigint): Register {
    const w = t.bits > 32 ? 2 : 1;
    const base = this.tmp(w, 'MOV', [], [{ kind: 'sym', name: s.oriName }]);
    if (offset === 0n) return base;
    return this.tmp(w, 'IADD3', [], [reg(base), imm(offset), RZ]);
  }

  /**
   * A memory operand for `[base+off]` in state space `space` ('global', 'shared', 'local', 'const', '' for
   * generic). Shared and local addresses are 32-bit window offsets in Ori; a 64-bit base is truncated.
   */
  address(o: Operand, space: string): MemOperand {
    if (o.kind !== 'addr') this.fail('PTX_SEMANTIC', `${this.opText}: expected an address [..], found '${this.describe(o)}'`);
    if (o.list) this.fail('PTX_SEMANTIC', `${this.opText}: unexpected operand list inside [..]`);
    const off = Number(o.offset);
    if (o.base === undefined) return mem(undefined, off);
    const s = this.lookup(o.base.split('.')[0]!);
    if (!s) this.fail('PTX_SEMANTIC', `${this.opText}: '${o.base}' is not declared`);
    if (s.kind === 'var') {
      if (space === '' && (s.space === 'shared' || s.space === 'local')) {
        // generic access to a shared/local variable: window base + offset
        const win = this.tmp(2, 'S2R', [], [{ kind: 'sreg', name: s.space === 'shared' ? 'SR_SWINBASE' : 'SR_LWINBASE' }]);
        const a = this.tmp(2, 'MOV', [], [{ kind: 'sym', name: s.oriName }]);
        return mem(this.tmp(2, 'IADD3', [], [reg(win), reg(a), RZ]), off);
      }
      if (space !== '' && space !== s.space && !(space === 'global' && s.space === 'const')) {
        this.fail('PTX_SEMANTIC', `${this.opText}: '${o.base}' is a .${s.space} variable, not .${space}`);
      }
      return mem(undefined, off, s.oriName);
    }
    if (s.kind === 'reg') {
      const r = this.regOf({ kind: 'name', name: o.base.split('.')[0]!, ...(o.base.includes('.') ? { comp: o.base.split('.')[1]! } : {}) });
      if (r.cls !== 'R') this.fail('PTX_SEMANTIC', `${this.opText}: address base ${o.base} is not an integer register`);
      if ((space === 'shared' || space === 'local') && r.width === 2) return mem(this.fit(r, U32), off);
      if ((space === 'global' || space === '' || space === 'const') && r.width === 1) return mem(this.fit(r, U32_64), off);
      return mem(r, off);
    }
    this.fail('PTX_SEMANTIC', `${this.opText}: '${o.base}' cannot be used as an address here`);
  }

  labelOperand(o: Operand): OriOperand {
    if (o.kind !== 'name') this.fail('PTX_SEMANTIC', `${this.opText}: expected a label, found '${this.describe(o)}'`);
    if (!this.usedLabelsHas(o.name)) this.fail('PTX_SEMANTIC', `${this.opText}: label '${o.name}' is not defined in this function`);
    return label(this.blockOf(o.name));
  }
  private usedLabelsHas(n: string): boolean {
    return this.usedLabels.has(n);
  }
}

export const PRED = ptxType('pred')!;
export const U32 = ptxType('u32')!;
export const S32 = ptxType('s32')!;
export const U32_64 = ptxType('u64')!;
export const U64 = U32_64;
export const S64 = ptxType('s64')!;
export const F32 = ptxType('f32')!;
export const F64 = ptxType('f64')!;
export const B32 = ptxType('b32')!;

/** Round an f32 bit pattern to the nearest f16 bit pattern (ties to even), for f16 immediates. */
export function f32BitsToF16(b: number): number {
  const sign = (b >>> 16) & 0x8000;
  const exp = (b >>> 23) & 0xff;
  let mant = b & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  let e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let h = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const half = 1 << (shift - 1);
    if (rem > half || (rem === half && (h & 1))) h++;
    return sign | h;
  }
  let h = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (h & 1))) h++;
  void e;
  e = 0;
  return sign | h;
}

export { PT, RZ };
