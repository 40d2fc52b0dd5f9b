import type { Block, Instr, OriFunction, OriModule, Operand, Register, VarDecl } from '@ptxforge/kernel';
import type { SassOperand } from '@ptxforge/sass';
import type { ModuleData } from './data.js';
import { selectExternCall } from './abi-call.js';
import { selectMma } from './isel-mma.js';
import { selectMbarrier } from './isel-mbarrier.js';
import { selectTexture } from './isel-texture.js';
import { selectDivide64 } from './isel-divide64.js';
import {
  CodegenError, type JumpTable, type VMemOperand, type MBlock, type MFunction, type MGuard, type MInstr, type MOperand, type MParam, type VFile, type VReg, type VRegOperand,
} from './mir.js';

/**
 * Instruction selection: optimized Ori (already SASS-shaped: IADD3, LOP3, ISETP ... with virtual registers of
 * width 1/2/4) to machine instructions in the forms the Volta+ encoder holds (spellings ptxas itself emits).
 *
 * What changes on the way:
 * - 64-bit integer operations become 32-bit pairs (IADD3 + IADD3.X with a carry predicate, IMAD.WIDE.U32 +
 *   IMAD for 64-bit products, funnel shifts for 64-bit shifts, ISETP + ISETP.EX for 64-bit compares);
 * - PTX-semantics shifts (SHL/SHR) become funnel shifts (SHF), which clamp at the type width like PTX;
 * - generic and global accesses get the memory descriptor `desc[UR4]` ptxas uses from sm_90's tables on;
 * - copies of predicates are PLOP3s; 64-bit moves of constant-bank words are moves of both halves;
 * - operand forms the encoder lacks (an immediate in the first source, a constant in the third) are fixed by
 *   `legalize` (legalize.ts), which asks the target's Encoder what encodes.
 * Opcodes without a selection rule raise CODEGEN_NOT_IMPLEMENTED naming the opcode and the source line.
 */

export interface SelectOptions {
  /** Constant-bank 0 offset of the kernel parameters (the target's capabilities.paramBase). */
  paramBase: number;
  /** Where the first shared variable goes: the target's shared-memory system reserve (cubin layout profile). */
  sharedBase?: number;
  /** Placement of the module's .global/.const variables (data.ts); required when the module has any. */
  data?: Pick<ModuleData, 'bank3' | 'slots'> & Partial<Pick<ModuleData, 'externKernels'>>;
}

const u32 = (x: bigint): number => Number(BigInt.asUintN(32, x));
/** Ordering modifiers a shared-memory access drops (see memMods). */
const SHARED_DROPPED_MODS = new Set(['STRONG', 'WEAK', 'SYS', 'GPU', 'CTA', 'SM', 'VOLATILE']);

function f32OfBits(bits: number): number {
  const dv = new DataView(new ArrayBuffer(4));
  dv.setUint32(0, bits >>> 0);
  return dv.getFloat32(0);
}

/** Inlining limits: call nesting and total inlined Ori instructions per kernel. */
const MAX_INLINE_DEPTH = 16;
const MAX_INLINED_INSTRS = 200_000;

interface LabelOperandLike {
  k: string;
  block: number;
}

/** fp8 formats: mantissa bits, exponent bias, largest finite magnitude, magnitudes above `nanAbove` are NaN. */
const FP8: Record<string, { mbits: number; bias: number; max: number; nanAbove: number }> = {
  E4M3: { mbits: 3, bias: 7, max: 448, nanAbove: 0x7e },
  E5M2: { mbits: 2, bias: 15, max: 57344, nanAbove: 0x7c },
};

const FLOAT_OPS = new Set(['FADD', 'FMUL', 'FFMA', 'FSETP', 'FSET', 'FMNMX', 'FSEL']);
const INT_TYPES = new Set(['U8', 'S8', 'U16', 'S16', 'U32', 'S32', 'U64', 'S64']);

class Selector {
  readonly vregs: VReg[] = [];
  private readonly map = new Map<Register, VReg>();
  private blocks: MBlock[] = [];
  private cur!: MInstr[];
  private line: number | undefined;
  private guard: MGuard | undefined;
  private curOp = '';
  usesGlobal = false;
  private readonly blockIndex = new Map<Block, number>();
  /** 64-bit constant-bank words loaded (unguarded) in the block being selected (`pairCacheBlock`), by bank:offset. */
  private readonly pairCache = new Map<string, VReg>();
  private pairCacheBlock: MInstr[] | undefined;
  /** Addresses of global variables loaded for the Ori instruction being selected (both halves share one load). */
  private readonly varAddr = new Map<string, VReg>();

  constructor(
    readonly module: OriModule, readonly fn: OriFunction, readonly shared: ReadonlyMap<string, number>, readonly opts: SelectOptions,
    readonly locals: ReadonlyMap<string, number> = new Map(),
  ) {}

  fail(why: string): never {
    throw new CodegenError('CODEGEN_NOT_IMPLEMENTED', `${this.fn.name}${this.line ? ` line ${this.line}` : ''}: not implemented: ${this.curOp}${why ? ` (${why})` : ''}`);
  }

  newV(file: VFile, width: 1 | 2 | 4, name = `%t${this.vregs.length}`): VReg {
    const v: VReg = { id: this.vregs.length, file, width, name };
    this.vregs.push(v);
    return v;
  }

  newFixed(n: number, name: string): VReg {
    const v: VReg = { id: this.vregs.length, file: 'R', width: 1, name, fixed: n };
    this.vregs.push(v);
    return v;
  }

  /** The machine instructions of the block being selected. */
  get current(): MInstr[] {
    return this.cur;
  }

  /** Functions outside the module this function calls (EIATTR_EXTERNS), in first-call order. */
  readonly externs: string[] = [];
  private readonly externSet = new Set<string>();

  externSlot(symbol: string): number {
    const slot = this.opts.data?.slots.get(symbol);
    if (slot === undefined) this.fail(`no constant bank 4 slot for the address of ${symbol}`);
    if (!this.externSet.has(symbol)) {
      this.externSet.add(symbol);
      this.externs.push(symbol);
    }
    return slot;
  }

  vOf(r: Register): VReg {
    let v = this.map.get(r);
    if (!v) {
      // Uniform registers of the Ori level are kept in the general files for now (ConvertToUniformReg is not
      // selected to the uniform datapath yet): same values, per-thread registers.
      const file: VFile = r.cls === 'UR' ? 'R' : r.cls === 'UP' ? 'P' : r.cls;
      v = this.newV(file, r.width, r.name);
      this.map.set(r, v);
    }
    return v;
  }

  /** Emit under the current guard; `null` emits unguarded (uniform-datapath setup the guard cannot predicate). */
  emit(opcode: string, mods: string[], ops: MOperand[], ndefs: number, guard: MGuard | undefined | null = this.guard): void {
    this.cur.push({ opcode, mods, ops, ndefs, ...(guard ? { guard } : {}), ...(this.line ? { line: this.line } : {}) });
  }

  r(v: VReg, part = 0, span = 1, mods: Partial<VRegOperand> = {}): VRegOperand {
    return { k: 'vreg', v, part, span, ...mods };
  }

  // ---- operands -------------------------------------------------------------------------------------------

  /** Component `part` (32-bit) of a source operand read at integer width. */
  part(o: Operand, part: number, opts: { float?: boolean } = {}): MOperand {
    switch (o.kind) {
      case 'reg': {
        const v = this.vOf(o.reg);
        if (part >= v.width) {
          if (v.width === 1) this.fail(`32-bit register ${o.reg.name} read as a 64-bit value`);
          this.fail(`component ${part} of ${o.reg.name}`);
        }
        const m: VRegOperand = this.r(v, part, 1);
        if (o.neg) m.neg = true;
        if (o.abs) m.abs = true;
        if (o.not) m.not = true;
        return m;
      }
      case 'rz':
        return { k: 'reg', file: 'R', n: 255 };
      case 'pt':
        return { k: 'reg', file: 'P', n: 7, ...(o.not ? { not: true } : {}) };
      case 'imm': {
        const bits = u32(o.value >> BigInt(32 * part));
        if (opts.float) return { k: 'float', v: f32OfBits(bits) };
        return { k: 'int', v: bits };
      }
      case 'cbank':
        if (o.index) this.fail('indexed constant-bank operand');
        return { k: 'cbank', bank: o.bank, off: o.offset + 4 * part };
      case 'sym': {
        const g = this.globalAddress(o.name);
        if (g) return this.r(g, part);
        const lo = this.locals.get(o.name);
        if (lo !== undefined) {
          // a .local variable's local-window address: the stack pointer plus its place in the frame
          if (part) return c2rz();
          const t = this.newV('R', 1);
          this.emit('IADD3', [], [this.r(t), { k: 'reg', file: 'R', n: 1 }, { k: 'int', v: lo }, c2rz()], 1);
          return this.r(t);
        }
        const off = this.shared.get(o.name);
        if (off === undefined) this.fail(`address of ${o.name}`);
        return { k: 'int', v: part === 0 ? off : 0 };
      }
      default:
        return this.fail(`operand kind ${o.kind}`);
    }
  }

  /** The 64-bit address of a variable in device memory, from its constant bank 4 slot (undefined for others). */
  globalAddress(name: string): VReg | undefined {
    const slot = this.opts.data?.slots.get(name);
    if (slot === undefined) return undefined;
    let v = this.varAddr.get(name);
    if (!v) {
      v = this.newV('R', 2);
      this.emit('LDC', ['64'], [this.r(v, 0, 2), { k: 'cbank', bank: 4, off: 8 * slot }], 1);
      this.varAddr.set(name, v);
    }
    return v;
  }

  /** A whole register operand (span = its width: pairs print as their base register). */
  whole(o: Operand, opts: { float?: boolean } = {}): MOperand {
    if (o.kind === 'reg') {
      const v = this.vOf(o.reg);
      const m = this.r(v, 0, v.width);
      if (o.neg) m.neg = true;
      if (o.abs) m.abs = true;
      if (o.not) m.not = true;
      return m;
    }
    return this.part(o, 0, opts);
  }

  def(o: Operand | undefined, part = 0): MOperand {
    if (!o) return { k: 'reg', file: 'R', n: 255 };
    if (o.kind === 'rz') return { k: 'reg', file: 'R', n: 255 };
    if (o.kind === 'pt') return { k: 'reg', file: 'P', n: 7 };
    if (o.kind !== 'reg') this.fail(`result operand ${o.kind}`);
    return this.r(this.vOf(o.reg), part, 1);
  }

  defWhole(o: Operand | undefined): MOperand {
    if (!o || o.kind !== 'reg') return this.def(o);
    const v = this.vOf(o.reg);
    return this.r(v, 0, v.width);
  }

  widthOf(o: Operand | undefined): number {
    return o && o.kind === 'reg' ? o.reg.width : 1;
  }

  /**
   * brev.b64 as ptxas writes it on sm_90: two BREVs, each half reversed into the other half. When the result
   * is the source register itself, the low half is reversed into a temporary first (the first BREV would
   * overwrite the half the second one reads).
   */
  brev64(d: Operand, u: Operand): void {
    const same = d.kind === 'reg' && u.kind === 'reg' && d.reg === u.reg;
    if (!same) {
      this.emit('BREV', [], [this.def(d, 1), this.part(u, 0)], 1);
      this.emit('BREV', [], [this.def(d, 0), this.part(u, 1)], 1);
      return;
    }
    const t = this.newV('R', 1);
    this.emit('BREV', [], [this.r(t), this.part(u, 0)], 1);
    this.emit('BREV', [], [this.def(d, 0), this.part(u, 1)], 1);
    this.emit('MOV', [], [this.def(d, 1), this.r(t)], 1);
  }

  /** Put a non-register operand into a fresh 32-bit register (for forms the encoder lacks). */
  inReg(o: MOperand): MOperand {
    if ((o as VRegOperand).k === 'vreg' || (o as SassOperand).k === 'reg') return o;
    const t = this.newV('R', 1);
    this.emit('MOV', [], [this.r(t), o], 1);
    return this.r(t);
  }

  // ---- selection ----------------------------------------------------------------------------------------

  /** Machine blocks by id (creation order) and their layout order. */
  private created: MBlock[] = [];
  private layout: number[] = [];
  /** Device functions being inlined (innermost last): their return continuation. */
  private inlining: Array<{ fn: OriFunction; results: MOperand[][]; cont: number }> = [];
  private inlinedInstrs = 0;

  newBlock(label: string): number {
    this.created.push({ label, instrs: [] });
    return this.created.length - 1;
  }

  run(): { blocks: MBlock[] } {
    this.selectBody(this.fn, '');
    // blocks in layout order; label operands name layout positions
    const pos = new Int32Array(this.created.length);
    this.layout.forEach((id, i) => (pos[id] = i));
    this.blocks = this.layout.map((id) => this.created[id]!);
    for (const b of this.blocks) {
      for (const mi of b.instrs) for (const o of mi.ops) if ((o as LabelOperandLike).k === 'label') (o as LabelOperandLike).block = pos[(o as LabelOperandLike).block]!;
    }
    for (const t of this.jumpTables) t.targets = t.targets.map((id) => pos[id]!);
    return { blocks: this.blocks };
  }

  /** Select the blocks of `f` (the kernel, or a device function being inlined) into new machine blocks. */
  selectBody(f: OriFunction, prefix: string): void {
    const ids = f.blocks.map((b) => this.newBlock(prefix + b.label));
    this.blockIndex.clear();
    f.blocks.forEach((b, i) => this.blockIndex.set(b, ids[i]!));
    f.blocks.forEach((b, i) => {
      this.layout.push(ids[i]!);
      this.cur = this.created[ids[i]!]!.instrs;
      for (const ins of b.instrs) {
        this.splitAfterBranch();
        this.select(ins);
      }
    });
  }

  /**
   * A machine block ends at its first branch: Ori blocks may end in `@p BRA a; BRA b`, and liveness (and so
   * register allocation) reads a block's successors from its last instruction only. What follows a branch goes
   * into a new block placed right after it (the fall-through of a guarded branch).
   */
  splitAfterBranch(): void {
    const last = this.cur[this.cur.length - 1];
    if (!last || (last.opcode !== 'BRA' && last.opcode !== 'BRX')) return;
    const cur = this.created[this.layout[this.layout.length - 1]!]!;
    const id = this.newBlock(`${cur.label}.${this.created.length}`);
    this.layout.push(id);
    this.cur = this.created[id]!.instrs;
  }

  /**
   * A device-function call, inlined: arguments moved into a fresh copy of the callee's parameter registers,
   * the callee's blocks selected after the call site, each RET moving the returned values into the call's
   * results and branching to the continuation block that takes the rest of the caller's block. (The ABI call
   * with CALL.REL/RET.REL is not selected yet; ptxas inlines small functions the same way.)
   */
  call(ins: Instr): void {
    const t = ins.uses[0];
    const callee = t?.kind === 'sym' ? this.module.getFunction(t.name) : undefined;
    if (t?.kind === 'sym' && (!callee || callee.blocks.length === 0)) {
      // a function outside the module (vprintf, malloc, an extern of a relocatable compilation): the ABI call
      if (this.guard) this.fail('guarded call of an extern function');
      return selectExternCall(this, ins, t.name, callee);
    }
    if (!callee || callee.blocks.length === 0) this.fail('indirect call');
    if (this.inlining.length >= MAX_INLINE_DEPTH || this.inlining.some((c) => c.fn === callee)) this.fail('recursive or deeply nested calls (the ABI call is not selected yet)');
    this.inlinedInstrs += callee.instructionCount;
    if (this.inlinedInstrs > MAX_INLINED_INSTRS) this.fail('too much code to inline (the ABI call is not selected yet)');
    const args = ins.uses.slice(1);
    if (args.length !== callee.params.length || callee.params.some((p) => !p.reg)) this.fail('call with parameters passed in memory');
    // read the arguments and name the results under the caller's registers
    const argParts = args.map((a, i) => {
      const w = callee.params[i]!.reg!.width;
      return Array.from({ length: w }, (_, p) => (a.kind === 'reg' && a.reg.width <= p ? c2rz() : this.part(a, p)));
    });
    const results = ins.defs.map((d) => {
      if (d.kind !== 'reg') return [] as MOperand[];
      const v = this.vOf(d.reg);
      return Array.from({ length: v.width }, (_, p) => this.r(v, p) as MOperand);
    });
    const cont = this.newBlock(`${this.created[this.layout[this.layout.length - 1]!]!.label}.ret${this.created.length}`);
    const guard = this.guard;
    if (guard) {
      this.emit('BRA', [], [{ k: 'label', block: cont }], 0, { v: guard.v, not: !guard.not });
      this.splitAfterBranch();
    }
    const savedMap = new Map(this.map);
    const savedIndex = new Map(this.blockIndex);
    // a fresh copy of the callee's registers for this call site
    for (const r of callee.registers) this.map.delete(r);
    callee.params.forEach((p, i) => {
      const v = this.vOf(p.reg!);
      argParts[i]!.forEach((src, k) => {
        if (k < v.width) this.emit('MOV', [], [this.r(v, k), src], 1, undefined);
      });
    });
    this.inlining.push({ fn: callee, results, cont });
    this.selectBody(callee, `${callee.name}.${this.created.length}.`);
    this.inlining.pop();
    this.map.clear();
    for (const [k, v] of savedMap) this.map.set(k, v);
    this.blockIndex.clear();
    for (const [k, v] of savedIndex) this.blockIndex.set(k, v);
    this.layout.push(cont);
    this.cur = this.created[cont]!.instrs;
  }

  /** RET of an inlined function: the returned values into the call's results, then on to the continuation. */
  ret(ins: Instr): void {
    const site = this.inlining[this.inlining.length - 1];
    if (!site) {
      if (this.fn.kind !== 'entry') this.fail('device-function returns outside a call');
      return this.emit('EXIT', [], [], 0);
    }
    ins.uses.forEach((u, i) => {
      const dst = site.results[i];
      if (!dst) return;
      dst.forEach((d, p) => this.emit('MOV', [], [d, u.kind === 'reg' && u.reg.width <= p ? c2rz() : this.part(u, p)], 1));
    });
    this.emit('BRA', [], [{ k: 'label', block: site.cont }], 0);
  }

  /** BRX jump tables (targets as created-block ids until `run` maps them to layout positions). */
  readonly jumpTables: JumpTable[] = [];
  private jumpTableBytes = 0;

  /**
   * An indexed branch as ptxas selects it: the table of function-relative target addresses in constant bank 2
   * (`.nv.constant2.<fn>`), `LDC Rt, c[0x2][Ri*4 + table]`, the address sign-extended to a pair, and
   * `BRX Rt, -(address after the BRX)`. BRX.TABLE's index is already the byte offset. A constant index is a BRA.
   */
  brx(ins: Instr): void {
    if (this.guard) this.fail('guarded indexed branch');
    const targets = ins.labelTargets().map((b) => (this.label(b) as LabelOperandLike).block);
    if (!targets.length) this.fail('indexed branch without targets');
    const byteOffset = ins.hasMod('TABLE');
    const idx = ins.uses[0]!;
    if (idx.kind === 'imm' || idx.kind === 'rz') {
      const raw = idx.kind === 'imm' ? Number(BigInt.asUintN(32, idx.value)) : 0;
      const i = byteOffset ? raw / 4 : raw;
      if (!Number.isInteger(i) || i >= targets.length) this.fail('constant branch index outside its table');
      return this.emit('BRA', [], [{ k: 'label', block: targets[i]! }], 0);
    }
    let off: VReg;
    if (byteOffset && idx.kind === 'reg' && idx.reg.width === 1) off = this.vOf(idx.reg);
    else {
      off = this.newV('R', 1);
      if (byteOffset) this.emit('MOV', [], [this.r(off), this.part(idx, 0)], 1);
      else this.emit('SHF', ['L', 'U32'], [this.r(off), this.part(idx, 0), { k: 'int', v: 2 }, c2rz()], 1);
    }
    const table = this.jumpTables.length;
    this.jumpTables.push({ targets, offset: this.jumpTableBytes });
    const addr = this.newV('R', 2);
    this.emit('LDC', [], [this.r(addr, 0), { k: 'vcbank', bank: 2, off: this.jumpTableBytes, index: off }], 1);
    this.emit('SHF', ['R', 'S32', 'HI'], [this.r(addr, 1), c2rz(), { k: 'int', v: 31 }, this.r(addr, 0)], 1);
    this.emit('BRX', [], [this.r(addr, 0, 2), { k: 'jtable', table }], 0);
    this.jumpTableBytes += 4 * targets.length;
  }

  label(b: Block): MOperand {
    const i = this.blockIndex.get(b);
    if (i === undefined) this.fail(`branch to a block outside the function`);
    return { k: 'label', block: i };
  }

  select(ins: Instr): void {
    this.line = ins.loc?.line;
    this.curOp = ins.fullOpcode;
    const g = ins.guard;
    this.guard = g ? { v: this.vOf(g.reg), not: g.not } : undefined;
    this.varAddr.clear();
    const op = ins.opcode;
    const d = ins.defs;
    const u = ins.uses;
    const mods = ins.mods;
    switch (op) {
      case 'UNDEF':
        return; // any value: the register is simply not written
      case 'NOP':
        return; // hints (prefetch, nanosleep ...) carry no semantics the interpreter or results depend on
      case 'MOV':
      case 'COPY':
      case 'MOVPHI':
        return this.move(d[0]!, u[0]!);
      case 'EXIT':
        return this.emit('EXIT', [], [], 0);
      case 'RET':
        return this.ret(ins);
      case 'CALL':
        return this.call(ins);
      case 'BRX':
        return this.brx(ins);
      case 'BRA': {
        const t = ins.labelTargets()[0];
        if (!t) this.fail('branch without a target');
        return this.emit('BRA', [], [this.label(t)], 0);
      }
      case 'IADD3':
        return this.iadd3(ins);
      case 'IMAD':
      case 'IMUL':
        return this.imad(ins);
      case 'LOP3':
        return this.lop3(ins);
      case 'SHL':
      case 'SHR':
        return this.shift(ins);
      case 'SEL':
      case 'FSEL': {
        const w = this.widthOf(d[0]);
        for (let p = 0; p < w; p++) this.emit(op, [], [this.def(d[0], p), this.part(u[0]!, p), this.part(u[1]!, p), this.part(u[2]!, 0)], 1);
        return;
      }
      case 'ISETP':
        return this.isetp(ins);
      case 'FSETP':
      case 'DSETP': {
        const comb = mods.filter((m) => m !== 'F32' && m !== 'F64');
        return this.emit(op, comb, [this.def(d[0]), d[1] ? this.def(d[1]) : { k: 'reg', file: 'P', n: 7 }, ...(op === 'DSETP' ? [this.dsrc(u[0]!), this.dsrc(u[1]!)] : [this.whole(u[0]!, { float: true }), this.whole(u[1]!, { float: true })]), this.whole(u[2] ?? { kind: 'pt' })], 2);
      }
      case 'IMNMX': {
        if (this.widthOf(d[0]) !== 1) return this.minmax64(ins);
        const m = mods.filter((x) => x !== 'S32');
        return this.emit('IMNMX', m, [this.def(d[0]), this.part(u[0]!, 0), this.part(u[1]!, 0), this.part(u[2]!, 0)], 1);
      }
      case 'DMNMX':
        return this.dminmax(d[0]!, u[0]!, u[1]!, u[2] ?? { kind: 'pt' });
      case 'FADD':
      case 'FMUL':
      case 'FFMA':
      case 'FMNMX':
      case 'DADD':
      case 'DMUL':
      case 'DFMA': {
        const float = op.startsWith('F');
        return this.emit(op, mods.filter((m) => m !== 'RN' && m !== 'F32' && m !== 'F64'), [this.defWhole(d[0]), ...u.map((x) => (float ? this.whole(x, { float: true }) : this.dsrc(x)))], 1);
      }
      case 'MUFU':
      case 'POPC':
      case 'BREV':
      case 'IABS':
      case 'FLO': {
        if (op === 'BREV' && this.widthOf(d[0]) === 2 && this.widthOf(u[0]) === 2) return this.brev64(d[0]!, u[0]!);
        if (this.widthOf(d[0]) !== 1 || this.widthOf(u[0]) !== 1) this.fail('64-bit operand');
        if (op === 'MUFU' && mods.includes('FTZ')) return this.mufuFtz(ins);
        if (op === 'MUFU' && (mods.includes('SIN') || mods.includes('COS'))) {
          // SASS MUFU.SIN/COS take the angle in turns: ptxas scales by 1/2pi (FMUL.RZ) first; Ori's take radians
          const t = this.newV('R', 1);
          this.emit('FMUL', ['RZ'], [this.r(t), this.inReg(this.part(u[0]!, 0, { float: true })), { k: 'float', v: Math.fround(1 / (2 * Math.PI)) }], 1);
          return this.emit(op, mods.filter((m) => m !== 'F32'), [this.def(d[0]), this.r(t)], 1);
        }
        return this.emit(op, mods.filter((m) => m !== 'F32'), [this.def(d[0]), this.part(u[0]!, 0)], 1);
      }
      case 'PRMT':
        return this.emit('PRMT', mods, [this.def(d[0]), this.part(u[0]!, 0), this.part(u[1]!, 0), this.part(u[2]!, 0)], 1);
      case 'LEA':
        if (this.widthOf(d[0]) !== 1) this.fail('64-bit LEA');
        return this.emit('LEA', mods, [this.def(d[0]), ...u.map((x) => this.part(x, 0))], 1);
      case 'SHF':
        return this.emit('SHF', mods, [this.def(d[0]), ...u.map((x) => this.part(x, 0))], 1);
      case 'S2R':
        return this.s2r(d[0]!, u[0]!);
      case 'I2I':
        return this.i2i(ins);
      case 'F2F':
      case 'I2F':
      case 'F2I':
        return this.convert(ins);
      case 'LD':
      case 'LDG':
      case 'LDS':
      case 'LDL':
        return this.load(ins);
      case 'ST':
      case 'STG':
      case 'STS':
      case 'STL':
        return this.store(ins);
      case 'IDIV':
      case 'IREM':
        return this.divide(ins);
      case 'FRND':
        return this.round(ins);
      case 'FSQRT':
        return this.sqrt(ins);
      case 'FDIV':
        return this.fdiv(ins);
      case 'BFE':
        return this.bfe(ins);
      case 'BFI':
        return this.bfi(ins);
      case 'PLOP3': {
        // Ori: d = PLOP3.LUT a, b, c, lut, 0 — SASS writes two predicates (the second unused: PT)
        const srcs = u.slice(0, 3).map((x) => this.pred(x));
        const lut = u[3];
        if (!lut || lut.kind !== 'imm') this.fail('PLOP3 with a non-immediate LUT');
        return this.emit('PLOP3', ['LUT'], [this.def(d[0]), d[1] ? this.def(d[1]) : PT(), ...srcs, { k: 'int', v: u32(lut.value) & 0xff }, { k: 'int', v: 0 }], 2);
      }
      case 'VOTE': {
        // Ori: r = VOTE.ANY p (ballot) or p' = VOTE.ALL/ANY/EQ p; SASS: VOTE.m Rd, Pd, Psrc
        const kind = mods.find((m) => m === 'ALL' || m === 'ANY' || m === 'EQ');
        if (!kind) this.fail('vote mode');
        const rd = d.find((x) => x.kind === 'reg' && x.reg.cls !== 'P' && x.reg.cls !== 'UP');
        const pd = d.find((x) => x.kind === 'reg' && (x.reg.cls === 'P' || x.reg.cls === 'UP'));
        return this.emit('VOTE', [kind], [rd ? this.def(rd) : c2rz(), pd ? this.def(pd) : PT(), this.pred(u[0] ?? { kind: 'pt' })], 2);
      }
      case 'HADD2':
      case 'HMUL2': {
        // packed f16x2 add/multiply: HADD2/HMUL2 Rd, Ra, Rb (.FTZ kept; RN is the only rounding PTX allows for f16x2)
        const keep = mods.filter((m) => m !== 'RN');
        if (keep.some((m) => m !== 'FTZ')) this.fail(`${op} modifiers ${keep.join('.')}`);
        const srcs = u.map((x) => this.inReg(this.part(x, 0)));
        return this.emit(op, keep, [this.def(d[0]), ...srcs], 1);
      }
      case 'HFMA2': {
        if (mods.some((m) => m !== 'RN')) this.fail('HFMA2 modifiers');
        const srcs = u.map((x) => this.inReg(this.part(x, 0)));
        return this.emit('HFMA2', [], [this.def(d[0]), ...srcs], 1);
      }
      case 'ATOM':
      case 'ATOMG':
      case 'ATOMS':
      case 'RED':
        return this.atomic(ins);
      case 'LDC': {
        const c = u[0]!;
        if (c.kind !== 'cbank') this.fail('constant load of a non-constant operand');
        const w = this.widthOf(d[0]);
        if (c.index) {
          const ix = this.vOf(c.index);
          if (ix.width !== 1) this.fail('64-bit constant-bank index');
          return this.emit('LDC', w === 2 ? ['64'] : [], [this.defWhole(d[0]), { k: 'vcbank', bank: c.bank, off: c.offset, index: ix }], 1);
        }
        return this.emit('LDC', w === 2 ? ['64'] : [], [this.defWhole(d[0]), { k: 'cbank', bank: c.bank, off: c.offset }], 1);
      }
      case 'SHFL':
        return this.shfl(ins);
      case 'TEX':
      case 'TLD4':
      case 'TXQ':
      case 'SULD':
      case 'SUST':
      case 'SUQ':
        return selectTexture(this, ins);
      case 'WARPSYNC':
        return this.warpsync(u[0] ?? { kind: 'imm', value: 0xffffffffn, fmt: 'hex' });
      case 'MATCH':
        return this.match(ins);
      case 'REDUX':
        return this.redux(ins);
      case 'HMMA':
      case 'IMMA':
      case 'DMMA':
        return selectMma(this, ins);
      case 'SYNCS':
        return selectMbarrier(this, ins);
      case 'KILL':
        // trap: ptxas's `BPT.TRAP 0x1` (the lifted word kills the thread, as the PTX path)
        return this.emit('BPT', ['TRAP'], [{ k: 'int', v: 1 }], 0);
      case 'FENCE':
        return this.fence(ins);
      case 'BAR': {
        if (mods.includes('RED')) return this.barRed(ins);
        if (!mods.includes('SYNC') || d.length || u.length > 1) this.fail('barrier form');
        const id = u[0] ? this.part(u[0], 0) : { k: 'int' as const, v: 0 };
        return this.emit('BAR', ['SYNC', 'DEFER_BLOCKING'], [id], 0);
      }
      case 'MEMBAR': {
        const scope = mods[0] === 'CTA' ? 'CTA' : mods[0] === 'SYS' ? 'SYS' : 'GPU';
        if (!mods.includes('ALL')) return this.emit('MEMBAR', ['SC', scope], [], 0);
        // the release fence of an ordered access (front end): ptxas's `MEMBAR.ALL.<scope>`, then at GPU/system scope
        // the error barrier (ptxas 13 on sm_90 adds CGAERRBAR too; it orders error reporting, not memory)
        this.emit('MEMBAR', ['ALL', scope], [], 0);
        if (scope !== 'CTA') this.emit('ERRBAR', [], [], 0);
        return;
      }
      case 'CCTL':
        // the acquire side of an ordered access (front end): invalidate the L1 lines the weak loads after it could hit
        if (!mods.includes('IVALL') || u.length) this.fail('cache control form');
        return this.emit('CCTL', ['IVALL'], [], 0);
      default:
        return this.fail('');
    }
  }

  /**
   * 32-bit integer division and remainder, the sequence ptxas emits: a reciprocal of the divisor from MUFU.RCP
   * (I2F.U32.RP, +0x0ffffffe on its bits, F2I.U32.TRUNC), one Newton step in integers, the quotient estimate as
   * the high product, then two corrections (the estimate is at most 2 low). Signed: on magnitudes, signs fixed
   * after. Division by zero gives all ones, quotient and remainder (ptxas: `@!P LOP3.LUT Rd, RZ, Rb, RZ, 0x33`).
   * 64-bit operands: isel-divide64.ts.
   */
  divide(ins: Instr): void {
    const d = ins.defs[0]!;
    if (this.widthOf(d) === 2) return selectDivide64(this, ins);
    if (this.widthOf(d) !== 1) this.fail('128-bit division');
    const signed = !ins.mods.includes('U32');
    const rem = ins.opcode === 'IREM';
    const R = (): VReg => this.newV('R', 1);
    const P = (): VReg => this.newV('P', 1);
    const a0 = this.inReg(this.part(ins.uses[0]!, 0));
    const b0 = this.inReg(this.part(ins.uses[1]!, 0));
    let a = a0;
    let b = b0;
    if (signed) {
      const aa = R();
      const bb = R();
      this.emit('IABS', [], [this.r(aa), a0], 1);
      this.emit('IABS', [], [this.r(bb), b0], 1);
      a = this.r(aa);
      b = this.r(bb);
    }
    const f = R();
    this.emit('I2F', ['U32', 'RP'], [this.r(f), b], 1);
    const rf = R();
    this.emit('MUFU', ['RCP'], [this.r(rf), this.r(f)], 1);
    const rb = R();
    this.emit('IADD3', [], [this.r(rb), this.r(rf), { k: 'int', v: 0x0ffffffe }, c2rz()], 1);
    const y = R();
    this.emit('F2I', ['FTZ', 'U32', 'TRUNC', 'NTZ'], [this.r(y), this.r(rb)], 1);
    const nb = R();
    this.emit('IADD3', [], [this.r(nb), { ...(b as VRegOperand), neg: true }, c2rz(), c2rz()], 1);
    const e = R();
    this.emit('IMAD', [], [this.r(e), this.r(y), this.r(nb), c2rz()], 1);
    const h = R();
    this.emit('IMAD', ['HI', 'U32'], [this.r(h), this.r(y), this.r(e), c2rz()], 1);
    const y2 = R();
    this.emit('IADD3', [], [this.r(y2), this.r(y), this.r(h), c2rz()], 1);
    const q = R();
    this.emit('IMAD', ['HI', 'U32'], [this.r(q), this.r(y2), a, c2rz()], 1);
    const r = R();
    this.emit('IMAD', [], [this.r(r), this.r(q), this.r(nb), a], 1);
    for (let k = 0; k < 2; k++) {
      const p = P();
      this.emit('ISETP', ['GE', 'U32', 'AND'], [this.r(p), PT(), this.r(r), b, PT()], 2);
      this.emit('IADD3', [], [this.r(q), this.r(q), { k: 'int', v: 1 }, c2rz()], 1, this.andGuard(p));
      this.emit('IADD3', [], [this.r(r), this.r(r), this.r(nb), c2rz()], 1, this.andGuard(p));
    }
    let out = rem ? r : q;
    if (signed) {
      // quotient negative when the signs differ, remainder takes the dividend's sign
      const neg = P();
      if (rem) this.emit('ISETP', ['LT', 'AND'], [this.r(neg), PT(), a0, c2rz(), PT()], 2);
      else {
        const x = R();
        this.emit('LOP3', ['LUT'], [this.r(x), a0, b0, c2rz(), { k: 'int', v: 0x3c }, PT(true)], 1);
        this.emit('ISETP', ['LT', 'AND'], [this.r(neg), PT(), this.r(x), c2rz(), PT()], 2);
      }
      const n = R();
      this.emit('IADD3', [], [this.r(n), { ...this.r(out), neg: true }, c2rz(), c2rz()], 1);
      const sgn = R();
      this.emit('SEL', [], [this.r(sgn), this.r(n), this.r(out), this.r(neg)], 1);
      out = sgn;
    }
    // division by zero
    const z = P();
    this.emit('ISETP', ['EQ', 'U32', 'AND'], [this.r(z), PT(), b0, c2rz(), PT()], 2);
    this.emit('SEL', [], [this.def(d), { k: 'int', v: 0xffffffff }, this.r(out), this.r(z)], 1);
  }

  /**
   * MUFU.fn.FTZ (PTX `.approx.ftz`): ptxas writes a plain `MUFU.RCP R, R` (the unit flushes subnormal inputs and
   * results itself). SASS MUFU's lifted meaning does not flush, so the flushes are spelled out to keep the cubin
   * exact against the PTX path: `FMUL.FTZ t, x, 1` (a subnormal input to a zero of its sign) before, and the same
   * on the result after for the functions whose result can be subnormal (RCP, EX2, SIN, COS, TANH).
   */
  mufuFtz(ins: Instr): void {
    const d = ins.defs[0]!;
    const fn = ins.mods.filter((m) => m !== 'F32' && m !== 'FTZ');
    const x = this.inReg(this.part(ins.uses[0]!, 0, { float: true }));
    const t = this.newV('R', 1);
    this.emit('FMUL', ['FTZ'], [this.r(t), x, { k: 'float', v: 1 }], 1);
    const subnormalResult = fn.some((m) => m === 'RCP' || m === 'EX2' || m === 'SIN' || m === 'COS' || m === 'TANH');
    const r = subnormalResult ? this.newV('R', 1) : undefined;
    const dst = r ? this.r(r) : this.def(d);
    if (fn.includes('SIN') || fn.includes('COS')) {
      const s = this.newV('R', 1);
      this.emit('FMUL', ['RZ'], [this.r(s), this.r(t), { k: 'float', v: Math.fround(1 / (2 * Math.PI)) }], 1);
      this.emit('MUFU', fn, [dst, this.r(s)], 1);
    } else this.emit('MUFU', fn, [dst, this.r(t)], 1);
    if (r) this.emit('FMUL', ['FTZ'], [this.def(d), this.r(r), { k: 'float', v: 1 }], 1);
  }

  /** The instruction's guard combined with `p` (an unguarded context: just `p`). */
  andGuard(p: VReg): MGuard {
    if (!this.guard) return { v: p, not: false };
    const c = this.newV('P', 1);
    this.emit('PLOP3', ['LUT'], [this.r(c), PT(), { ...this.r(this.guard.v), ...(this.guard.not ? { not: true } : {}) }, this.r(p), PT(), { k: 'int', v: 0x80 }, { k: 'int', v: 0 }], 2, undefined);
    return { v: c, not: false };
  }

  /**
   * f32 round to integer (cvt.rni/rzi/rmi/rpi.f32.f32): F2I in the rounding mode, back with I2F, the source's sign
   * bit ORed in (-0.3 -> -0), and the source itself where |x| >= 2^23 (already integral) or NaN (canonical).
   */
  round(ins: Instr): void {
    const d = ins.defs[0]!;
    if (ins.mods.includes('F64') || this.widthOf(d) !== 1) this.fail('f64 round to integer');
    const mode = ins.mods.find((m) => m === 'TRUNC' || m === 'FLOOR' || m === 'CEIL');
    let x = this.inReg(this.whole(ins.uses[0]!, { float: true }));
    if (ins.mods.includes('FTZ')) {
      const t = this.newV('R', 1);
      this.emit('FMUL', ['FTZ'], [this.r(t), x, { k: 'float', v: 1 }], 1);
      x = this.r(t);
    }
    const i = this.newV('R', 1);
    this.emit('F2I', [...(mode ? [mode] : []), 'NTZ'], [this.r(i), x], 1);
    const f = this.newV('R', 1);
    this.emit('I2F', [], [this.r(f), this.r(i)], 1);
    const sf = this.newV('R', 1);
    this.emit('LOP3', ['LUT'], [this.r(sf), this.r(f), x, { k: 'int', v: 0x80000000 }, { k: 'int', v: 0xf8 }, PT(true)], 1);
    const ax = this.newV('R', 1);
    this.emit('LOP3', ['LUT'], [this.r(ax), x, { k: 'int', v: 0x7fffffff }, c2rz(), { k: 'int', v: 0xc0 }, PT(true)], 1);
    const big = this.newV('P', 1);
    this.emit('ISETP', ['GE', 'U32', 'AND'], [this.r(big), PT(), this.r(ax), { k: 'int', v: 0x4b000000 }, PT()], 2);
    // the integral-already values pass through x * 1 (NaNs come out canonical, as FRND's)
    const xb = this.newV('R', 1);
    this.emit('FMUL', [], [this.r(xb), x, { k: 'float', v: 1 }], 1);
    this.emit('SEL', [], [this.def(d), this.r(xb), this.r(sf), this.r(big)], 1);
  }

  /**
   * mul.hi.u64/s64: the high 64 bits of the 128-bit product from four 32x32 wide products, each partial sum
   * kept below 2^64 by accumulating through IMAD.WIDE.U32's 64-bit addend; signed: minus b where a < 0 and
   * minus a where b < 0 (two's complement high word).
   */
  mulHi64(ins: Instr): void {
    const d = ins.defs[0]!;
    const [a, b, c] = ins.uses as [Operand, Operand, Operand | undefined];
    if (c && c.kind !== 'rz' && !(c.kind === 'imm' && c.value === 0n)) this.fail('64-bit high product with an addend');
    const signed = !ins.hasMod('U64') && !ins.hasMod('U32');
    const hi = (o: Operand): MOperand => (o.kind === 'reg' && o.reg.width === 1 ? c2rz() : this.inReg(this.part(o, 1)));
    const a0 = this.inReg(this.part(a, 0));
    const b0 = this.inReg(this.part(b, 0));
    const a1 = hi(a);
    const b1 = hi(b);
    const pair = (lo: MOperand): VReg => {
      const p = this.newV('R', 2);
      this.emit('MOV', [], [this.r(p, 0), lo], 1);
      this.emit('MOV', [], [this.r(p, 1), c2rz()], 1);
      return p;
    };
    const p00 = this.newV('R', 2);
    this.emit('IMAD', ['WIDE', 'U32'], [this.r(p00, 0, 2), a0, b0, c2rz()], 1);
    const t = this.newV('R', 2);
    this.emit('IMAD', ['WIDE', 'U32'], [this.r(t, 0, 2), a0, b1, this.r(pair(this.r(p00, 1)), 0, 2)], 1);
    const m = this.newV('R', 2);
    this.emit('IMAD', ['WIDE', 'U32'], [this.r(m, 0, 2), a1, b0, this.r(pair(this.r(t, 0)), 0, 2)], 1);
    const r = this.newV('R', 2);
    this.emit('IMAD', ['WIDE', 'U32'], [this.r(r, 0, 2), a1, b1, this.r(pair(this.r(t, 1)), 0, 2)], 1);
    const cy = this.newV('P', 1);
    let lo: MOperand = this.r(r, 0);
    let hw: MOperand = this.r(r, 1);
    const lo1 = this.newV('R', 1);
    const hi1 = this.newV('R', 1);
    this.emit('IADD3', [], [this.r(lo1), this.r(cy), PT(), lo, this.r(m, 1), c2rz()], 3);
    this.emit('IADD3', ['X'], [this.r(hi1), hw, c2rz(), c2rz(), this.r(cy), PT(true)], 1);
    lo = this.r(lo1);
    hw = this.r(hi1);
    if (signed) {
      // subtract (a < 0 ? b : 0) and (b < 0 ? a : 0)
      for (const [sgn, x0, x1] of [[a1, b0, b1], [b1, a0, a1]] as Array<[MOperand, MOperand, MOperand]>) {
        const neg = this.newV('P', 1);
        this.emit('ISETP', ['LT', 'AND'], [this.r(neg), PT(), sgn, c2rz(), PT()], 2);
        const s0 = this.newV('R', 1);
        const s1 = this.newV('R', 1);
        this.emit('SEL', [], [this.r(s0), x0, c2rz(), this.r(neg)], 1);
        this.emit('SEL', [], [this.r(s1), x1, c2rz(), this.r(neg)], 1);
        const c2 = this.newV('P', 1);
        const l2 = this.newV('R', 1);
        const h2 = this.newV('R', 1);
        this.emit('IADD3', [], [this.r(l2), this.r(c2), PT(), lo, { ...this.r(s0), neg: true }, c2rz()], 3);
        this.emit('IADD3', ['X'], [this.r(h2), hw, { ...this.r(s1), not: true }, c2rz(), this.r(c2), PT(true)], 1);
        lo = this.r(l2);
        hw = this.r(h2);
      }
    }
    this.emit('MOV', [], [this.def(d, 0), lo], 1);
    this.emit('MOV', [], [this.def(d, 1), hw], 1);
  }

  /**
   * f32 sqrt.rn as ptxas's fast path (MUFU.RSQ, s = x*y, r = fma(-s, s, x), fma(r, y/2, s)), made total without
   * its slow-path call: inputs outside [2^-101, 2^128) are scaled by 2^64 (result by 2^-32), and zeros, negatives,
   * infinities and NaNs get their IEEE results by selects. sqrt.rz/rm/rp step the rounded root by one ulp toward
   * the requested direction when the exact residual says it lies on the other side.
   */
  sqrt(ins: Instr): void {
    const d = ins.defs[0]!;
    const directed = ins.mods.find((m) => m === 'RZ' || m === 'RM' || m === 'RP');
    if (ins.mods.includes('APPROX')) this.fail('sqrt.approx reaching code generation');
    if (ins.mods.includes('F64') || this.widthOf(d) === 2) {
      if (directed) this.fail('directed-rounding f64 square root');
      return this.fsqrt64(d, ins.uses[0]!);
    }
    const R = (): VReg => this.newV('R', 1);
    const P = (): VReg => this.newV('P', 1);
    let x = this.inReg(this.whole(ins.uses[0]!, { float: true }));
    if (ins.mods.includes('FTZ')) {
      const t = R();
      this.emit('FMUL', ['FTZ'], [this.r(t), x, { k: 'float', v: 1 }], 1);
      x = this.r(t);
    }
    const off = R();
    this.emit('IADD3', [], [this.r(off), x, { k: 'int', v: 0xf3000000 }, c2rz()], 1);
    const slow = P();
    this.emit('ISETP', ['GT', 'U32', 'AND'], [this.r(slow), PT(), this.r(off), { k: 'int', v: 0x727fffff }, PT()], 2);
    const up = R();
    this.emit('FMUL', [], [this.r(up), x, { k: 'float', v: 2 ** 64 }], 1);
    const xs = R();
    this.emit('SEL', [], [this.r(xs), this.r(up), x, this.r(slow)], 1);
    const y = R();
    this.emit('MUFU', ['RSQ'], [this.r(y), this.r(xs)], 1);
    const sq = R();
    this.emit('FMUL', [], [this.r(sq), this.r(xs), this.r(y)], 1);
    const h = R();
    this.emit('FMUL', [], [this.r(h), this.r(y), { k: 'float', v: 0.5 }], 1);
    const rr = R();
    this.emit('FFMA', [], [this.r(rr), { ...this.r(sq), neg: true }, this.r(sq), this.r(xs)], 1);
    let q = R();
    this.emit('FFMA', [], [this.r(q), this.r(rr), this.r(h), this.r(sq)], 1);
    if (directed) {
      // sqrt.rz/rm/rp from the correctly rounded q: the residual xs - q*q is exact in f32 (q is within an ulp of
      // the root, xs is scaled into the normal range), so its sign says on which side of the root q lies. The root
      // of a positive number is positive: rz and rm step q down one ulp when q > root, rp up when q < root.
      const res0 = R();
      this.emit('FFMA', [], [this.r(res0), { ...this.r(q), neg: true }, this.r(q), this.r(xs)], 1);
      const off = P();
      this.emit('FSETP', [directed === 'RP' ? 'GT' : 'LT', 'AND'], [this.r(off), PT(), this.r(res0), c2rz(), PT()], 2);
      const stepped = R();
      this.emit('IADD3', [], [this.r(stepped), this.r(q), { k: 'int', v: directed === 'RP' ? 1 : 0xffffffff }, c2rz()], 1);
      const qd = R();
      this.emit('SEL', [], [this.r(qd), this.r(stepped), this.r(q), this.r(off)], 1);
      q = qd;
    }
    const down = R();
    this.emit('FMUL', [], [this.r(down), this.r(q), { k: 'float', v: 2 ** -32 }], 1);
    let res = R();
    this.emit('SEL', [], [this.r(res), this.r(down), this.r(q), this.r(slow)], 1);
    // +inf -> +inf, NaN -> canonical NaN (x + 1)
    const ax = R();
    this.emit('LOP3', ['LUT'], [this.r(ax), x, { k: 'int', v: 0x7fffffff }, c2rz(), { k: 'int', v: 0xc0 }, PT(true)], 1);
    const inf = P();
    this.emit('ISETP', ['GE', 'U32', 'AND'], [this.r(inf), PT(), this.r(ax), { k: 'int', v: 0x7f800000 }, PT()], 2);
    const x1 = R();
    this.emit('FADD', [], [this.r(x1), x, { k: 'float', v: 1 }], 1);
    const r2 = R();
    this.emit('SEL', [], [this.r(r2), this.r(x1), this.r(res), this.r(inf)], 1);
    // negatives (not -0) -> NaN; zeros -> themselves
    const neg = P();
    this.emit('FSETP', ['LT', 'AND'], [this.r(neg), PT(), x, c2rz(), PT()], 2);
    const r3 = R();
    this.emit('SEL', [], [this.r(r3), { k: 'int', v: 0x7fffffff }, this.r(r2), this.r(neg)], 1);
    const zero = P();
    this.emit('FSETP', ['EQ', 'AND'], [this.r(zero), PT(), x, c2rz(), PT()], 2);
    res = r3;
    this.emit('SEL', [], [this.def(d), x, this.r(res), this.r(zero)], 1);
  }

  /**
   * f32 div.rn (FTZ or not): the quotient of the operands widened to f64, from MUFU.RCP64H refined by three DFMA
   * Newton steps, q = a*r corrected once by the residual (correctly rounded in f64), then rounded to f32 (double
   * rounding from 53 to 24 bits is innocuous for division). Zeros, infinities and NaNs take a * rcp(b) in f32
   * with b replaced by +-1 when it is finite, which gives the IEEE results.
   */
  fdiv(ins: Instr): void {
    const d = ins.defs[0]!;
    const num = ins.uses[0]!;
    const mode = ins.mods.find((m) => m === 'RZ' || m === 'RM' || m === 'RP');
    if (this.widthOf(d) === 2 && mode && num.kind === 'imm' && num.value === 0x3ff0000000000000n) return this.frcp64Directed(d, ins.uses[1]!, mode);
    if (mode && this.widthOf(d) === 2) return this.fdiv64(d, ins.uses[0]!, ins.uses[1]!, mode);
    if (ins.mods.some((m) => ['RZ', 'RM', 'RP', 'APPROX', 'FULL'].includes(m))) this.fail('directed-rounding or approximate division');
    if (ins.mods.includes('F64') || this.widthOf(d) === 2) return this.fdiv64(d, ins.uses[0]!, ins.uses[1]!);
    const ftz = ins.mods.includes('FTZ');
    const R = (): VReg => this.newV('R', 1);
    const W = (): VReg => this.newV('R', 2);
    const P = (): VReg => this.newV('P', 1);
    const flush = (o: MOperand): MOperand => {
      if (!ftz) return o;
      const t = R();
      this.emit('FMUL', ['FTZ'], [this.r(t), o, { k: 'float', v: 1 }], 1);
      return this.r(t);
    };
    const a = flush(this.inReg(this.whole(ins.uses[0]!, { float: true })));
    const b = flush(this.inReg(this.whole(ins.uses[1]!, { float: true })));
    // special operands: exponent all zeros with a zero fraction (after FTZ), or all ones
    const special = (x: MOperand): VReg => {
      const ax = R();
      this.emit('LOP3', ['LUT'], [this.r(ax), x, { k: 'int', v: 0x7fffffff }, c2rz(), { k: 'int', v: 0xc0 }, PT(true)], 1);
      const m1 = R();
      this.emit('IADD3', [], [this.r(m1), this.r(ax), { k: 'int', v: 0xffffffff }, c2rz()], 1);
      const p = P();
      // |x| - 1 >= 0x7f7fffff (unsigned) <=> |x| == 0 or |x| >= 0x7f800000
      this.emit('ISETP', ['GE', 'U32', 'AND'], [this.r(p), PT(), this.r(m1), { k: 'int', v: 0x7f7fffff }, PT()], 2);
      return p;
    };
    const sa = special(a);
    const sb = special(b);
    const one = R();
    this.emit('LOP3', ['LUT'], [this.r(one), b, { k: 'int', v: 0x80000000 }, { k: 'int', v: 0x3f800000 }, { k: 'int', v: 0xf8 }, PT(true)], 1);
    const bq = R();
    this.emit('SEL', [], [this.r(bq), b, this.r(one), this.r(sb)], 1);
    const rq = R();
    this.emit('MUFU', ['RCP'], [this.r(rq), this.r(bq)], 1);
    const sq = R();
    this.emit('FMUL', ftz ? ['FTZ'] : [], [this.r(sq), a, this.r(rq)], 1);
    // the f64 path
    const A = W();
    const B = W();
    this.emit('F2F', ['F64', 'F32'], [this.r(A, 0, 2), a], 1);
    this.emit('F2F', ['F64', 'F32'], [this.r(B, 0, 2), b], 1);
    const ONE = W();
    this.emit('MOV', [], [this.r(ONE, 0), c2rz()], 1);
    this.emit('MOV', [], [this.r(ONE, 1), { k: 'int', v: 0x3ff00000 }], 1);
    let r = W();
    this.emit('MOV', [], [this.r(r, 0), c2rz()], 1);
    this.emit('MUFU', ['RCP64H'], [this.r(r, 1), this.r(B, 1)], 1);
    for (let k = 0; k < 3; k++) {
      const e = W();
      this.emit('DFMA', [], [this.r(e, 0, 2), { ...this.r(B, 0, 2), neg: true }, this.r(r, 0, 2), this.r(ONE, 0, 2)], 1);
      const r2 = W();
      this.emit('DFMA', [], [this.r(r2, 0, 2), this.r(r, 0, 2), this.r(e, 0, 2), this.r(r, 0, 2)], 1);
      r = r2;
    }
    const q0 = W();
    this.emit('DMUL', [], [this.r(q0, 0, 2), this.r(A, 0, 2), this.r(r, 0, 2)], 1);
    const rem = W();
    this.emit('DFMA', [], [this.r(rem, 0, 2), { ...this.r(B, 0, 2), neg: true }, this.r(q0, 0, 2), this.r(A, 0, 2)], 1);
    const q = W();
    this.emit('DFMA', [], [this.r(q, 0, 2), this.r(rem, 0, 2), this.r(r, 0, 2), this.r(q0, 0, 2)], 1);
    let f = R();
    this.emit('F2F', ['F32', 'F64'], [this.r(f), this.r(q, 0, 2)], 1);
    if (ftz) {
      const t = R();
      this.emit('FMUL', ['FTZ'], [this.r(t), this.r(f), { k: 'float', v: 1 }], 1);
      f = t;
    }
    const any = P();
    this.emit('PLOP3', ['LUT'], [this.r(any), PT(), this.r(sa), this.r(sb), PT(), { k: 'int', v: 0xfc }, { k: 'int', v: 0 }], 2);
    this.emit('SEL', [], [this.def(d), this.r(sq), this.r(f), this.r(any)], 1);
  }

  /**
   * The f64 constant `hi:lo` in a fresh register pair.
   */
  dconst(hi: number, lo = 0): VReg {
    const t = this.newV('R', 2);
    this.emit('MOV', [], [this.r(t, 0), lo ? { k: 'int', v: lo >>> 0 } : c2rz()], 1);
    this.emit('MOV', [], [this.r(t, 1), hi ? { k: 'int', v: hi >>> 0 } : c2rz()], 1);
    return t;
  }

  /** An f64 source operand in a register pair. */
  dreg(o: Operand): VReg {
    const s = this.dsrc(o);
    if (s.k === 'vreg' && !(s as VRegOperand).neg && !(s as VRegOperand).abs) return (s as VRegOperand).v;
    const t = this.newV('R', 2);
    if (s.k === 'vreg') {
      // |x| / -x of a register operand: the sign bit of the high word
      const v = (s as VRegOperand).v;
      this.emit('MOV', [], [this.r(t, 0), this.r(v, 0)], 1);
      const lut = (s as VRegOperand).abs ? ((s as VRegOperand).neg ? 0xfc : 0xc0) : 0x3c;
      const mask = (s as VRegOperand).abs && !(s as VRegOperand).neg ? 0x7fffffff : 0x80000000;
      this.emit('LOP3', ['LUT'], [this.r(t, 1), this.r(v, 1), { k: 'int', v: mask }, c2rz(), { k: 'int', v: lut }, PT(true)], 1);
      return t;
    }
    this.emit('MOV', [], [this.r(t, 0), c2rz()], 1);
    this.emit('MOV', [], [this.r(t, 1), c2rz()], 1);
    return t;
  }

  /**
   * Classification of an f64 operand's bits for the special cases of division and square root: zero, infinity,
   * NaN (either sign) and the sign bit.
   */
  dclass(X: VReg): { zero: VReg; inf: VReg; nan: VReg; mag: VReg } {
    const mag = this.newV('R', 1);
    this.emit('LOP3', ['LUT'], [this.r(mag), this.r(X, 1), { k: 'int', v: 0x7fffffff }, c2rz(), { k: 'int', v: 0xc0 }, PT(true)], 1);
    const loz = this.newV('P', 1);
    this.emit('ISETP', ['EQ', 'U32', 'AND'], [this.r(loz), PT(), this.r(X, 0), c2rz(), PT()], 2);
    const zero = this.newV('P', 1);
    this.emit('ISETP', ['EQ', 'U32', 'AND'], [this.r(zero), PT(), this.r(mag), c2rz(), this.r(loz)], 2);
    const inf = this.newV('P', 1);
    this.emit('ISETP', ['EQ', 'U32', 'AND'], [this.r(inf), PT(), this.r(mag), { k: 'int', v: 0x7ff00000 }, this.r(loz)], 2);
    const infHiNz = this.newV('P', 1);
    this.emit('ISETP', ['EQ', 'U32', 'AND'], [this.r(infHiNz), PT(), this.r(mag), { k: 'int', v: 0x7ff00000 }, { ...this.r(loz), not: true }], 2);
    const nan = this.newV('P', 1);
    this.emit('ISETP', ['GT', 'U32', 'OR'], [this.r(nan), PT(), this.r(mag), { k: 'int', v: 0x7ff00000 }, this.r(infHiNz)], 2);
    return { zero, inf, nan, mag };
  }

  /** p = a | b, p = a & b (PLOP3). */
  por(a: VReg, b: VReg, lut = 0xfc): VReg {
    const p = this.newV('P', 1);
    this.emit('PLOP3', ['LUT'], [this.r(p), PT(), this.r(a), this.r(b), PT(), { k: 'int', v: lut }, { k: 'int', v: 0 }], 2);
    return p;
  }

  /** The normal part of an f64 operand: ±0/subnormal x scaled by 2^54 first; the mantissa as a value in [1, 2) and the unbiased exponent. */
  dsplit(X: VReg): { m: VReg; e: VReg } {
    const int = (v: number): MOperand => ({ k: 'int', v: v >>> 0 });
    const e0 = this.newV('R', 1);
    this.emit('LOP3', ['LUT'], [this.r(e0), this.r(X, 1), int(0x7ff00000), c2rz(), int(0xc0), PT(true)], 1);
    const sub = this.newV('P', 1);
    this.emit('ISETP', ['EQ', 'U32', 'AND'], [this.r(sub), PT(), this.r(e0), c2rz(), PT()], 2);
    const big = this.dconst(0x43500000); // 2^54
    const xm = this.newV('R', 2);
    this.emit('DMUL', [], [this.r(xm, 0, 2), this.r(X, 0, 2), this.r(big, 0, 2)], 1);
    const xs = this.newV('R', 2);
    for (let p = 0; p < 2; p++) this.emit('SEL', [], [this.r(xs, p), this.r(xm, p), this.r(X, p), this.r(sub)], 1);
    const adj = this.newV('R', 1);
    this.emit('SEL', [], [this.r(adj), int(54 + 1023), int(1023), this.r(sub)], 1);
    const eb = this.newV('R', 1);
    this.emit('LOP3', ['LUT'], [this.r(eb), this.r(xs, 1), int(0x7ff00000), c2rz(), int(0xc0), PT(true)], 1);
    const ebits = this.newV('R', 1);
    this.emit('SHF', ['R', 'U32', 'HI'], [this.r(ebits), c2rz(), int(20), this.r(eb)], 1);
    const e = this.newV('R', 1);
    this.emit('IADD3', [], [this.r(e), this.r(ebits), { ...this.r(adj), neg: true }, c2rz()], 1);
    const m = this.newV('R', 2);
    this.emit('MOV', [], [this.r(m, 0), this.r(xs, 0)], 1);
    this.emit('LOP3', ['LUT'], [this.r(m, 1), this.r(xs, 1), int(0x000fffff), int(0x3ff00000), int(0xea), PT(true)], 1); // (hi & mask) | 1.0's exponent
    return { m, e };
  }

  /**
   * f64 div.rn, IEEE-exact for every operand (subnormal and overflowing quotients included), without branches:
   * - a = ma·2^ea, b = mb·2^eb with ma, mb in [1, 2) (subnormals scaled by 2^54 first);
   * - q = RN(ma/mb) by ptxas's own fast path (MUFU.RCP64H with the low word 1, two Newton steps, the quotient
   *   corrected once by its residual: ptxas relies on it being correctly rounded whenever operands and quotient
   *   are normal and far from the range ends, which ma, mb, q in (0.5, 2) are); the residual ma − mb·q (exact by
   *   FMA) says on which side of q the exact quotient lies;
   * - a/b = q·2^(ea−eb): the exponent clamped to ±1100 (beyond, the result is 0 or ∞ anyway) and applied as
   *   2^k1 (exact) times 2^k2, where the second product rounds once at the result's own position. A quotient in
   *   the subnormal range can round twice (q is already rounded to 53 bits): that differs from one rounding only
   *   when q·2^e is exactly half-way between two subnormals, and then the residual's sign picks the neighbour
   *   (DFMA.RM / DFMA.RP give both; a tie with a zero residual stays the even one) — ptxas's slow path decides
   *   the same way with DMUL.RP;
   * - zeros, infinities and NaNs by selects at the end (NaN: the interpreter's canonical 0x7fffffff_ffffffff).
   */
  fdiv64(d: Operand, ao: Operand, bo: Operand, mode?: 'RZ' | 'RM' | 'RP'): void {
    const R = (): VReg => this.newV('R', 1);
    const W = (): VReg => this.newV('R', 2);
    const P = (): VReg => this.newV('P', 1);
    const int = (v: number): MOperand => ({ k: 'int', v: v >>> 0 });
    const w = (v: VReg, mods: Partial<VRegOperand> = {}): VRegOperand => this.r(v, 0, 2, mods);
    const A = this.dreg(ao);
    const B = this.dreg(bo);
    const { m: ma, e: ea } = this.dsplit(A);
    const { m: mb, e: eb } = this.dsplit(B);
    const ONE = this.dconst(0x3ff00000);
    const r0 = W();
    this.emit('MOV', [], [this.r(r0, 0), int(1)], 1);
    this.emit('MUFU', ['RCP64H'], [this.r(r0, 1), this.r(mb, 1)], 1);
    const t0 = W();
    this.emit('DFMA', [], [w(t0), w(mb, { neg: true }), w(r0), w(ONE)], 1);
    const t1 = W();
    this.emit('DFMA', [], [w(t1), w(t0), w(t0), w(t0)], 1);
    const r1 = W();
    this.emit('DFMA', [], [w(r1), w(r0), w(t1), w(r0)], 1);
    const t2 = W();
    this.emit('DFMA', [], [w(t2), w(mb, { neg: true }), w(r1), w(ONE)], 1);
    const r2 = W();
    this.emit('DFMA', [], [w(r2), w(r1), w(t2), w(r1)], 1);
    const q0 = W();
    this.emit('DMUL', [], [w(q0), w(ma), w(r2)], 1);
    const rem0 = W();
    this.emit('DFMA', [], [w(rem0), w(mb, { neg: true }), w(q0), w(ma)], 1);
    const q = W();
    this.emit('DFMA', [], [w(q), w(r2), w(rem0), w(q0)], 1);
    const rem = W();
    this.emit('DFMA', [], [w(rem), w(mb, { neg: true }), w(q), w(ma)], 1);
    // e = ea - eb clamped to [-1100, 1100]; k1 = e >> 1, k2 = e - k1
    const e = R();
    this.emit('IADD3', [], [this.r(e), this.r(ea), { ...this.r(eb), neg: true }, c2rz()], 1);
    const ehi = R();
    this.emit('IMNMX', [], [this.r(ehi), this.r(e), int(-1100), PT(true)], 1);
    const ec = R();
    this.emit('IMNMX', [], [this.r(ec), this.r(ehi), int(1100), PT()], 1);
    const k1 = R();
    this.emit('SHF', ['R', 'S32', 'HI'], [this.r(k1), c2rz(), int(1), this.r(ec)], 1);
    const k2 = R();
    this.emit('IADD3', [], [this.r(k2), this.r(ec), { ...this.r(k1), neg: true }, c2rz()], 1);
    const pow2 = (k: MOperand, bias: number): VReg => {
      const f = W();
      this.emit('MOV', [], [this.r(f, 0), c2rz()], 1);
      const t = R();
      this.emit('IADD3', [], [this.r(t), k, int(bias), c2rz()], 1);
      this.emit('SHF', ['L', 'U32'], [this.r(f, 1), this.r(t), int(20), c2rz()], 1);
      return f;
    };
    const F1 = pow2(this.r(k1), 1023);
    const F2 = pow2(this.r(k2), 1023);
    const G = pow2({ ...this.r(k2), neg: true }, 1022); // 2^(-k2-1)
    const p = W();
    this.emit('DMUL', [], [w(p), w(q), w(F1)], 1);
    const y = W();
    this.emit('DMUL', [], [w(y), w(p), w(F2)], 1);
    const nz = this.dconst(0x80000000);
    const lo = W();
    this.emit('DFMA', ['RM'], [w(lo), w(p), w(F2), w(nz)], 1);
    const hi = W();
    this.emit('DFMA', ['RP'], [w(hi), w(p), w(F2), w(nz)], 1);
    const v2 = W();
    if (mode) this.directedQuotient(v2, lo, hi, rem, A, B, mode);
    else {
      const m = W();
      this.emit('DADD', [], [w(m), w(lo), w(hi)], 1);
      const mm = W();
      this.emit('DMUL', [], [w(mm), w(m), w(G)], 1);
      const mid = P();
      this.emit('DSETP', ['EQ', 'AND'], [this.r(mid), PT(), w(mm), w(p), PT()], 2);
      const up = P();
      this.emit('DSETP', ['GT', 'AND'], [this.r(up), PT(), w(rem), c2rz(), this.r(mid)], 2);
      const down = P();
      this.emit('DSETP', ['LT', 'AND'], [this.r(down), PT(), w(rem), c2rz(), this.r(mid)], 2);
      const v1 = W();
      for (let k = 0; k < 2; k++) {
        this.emit('SEL', [], [this.r(v1, k), this.r(hi, k), this.r(y, k), this.r(up)], 1);
        this.emit('SEL', [], [this.r(v2, k), this.r(lo, k), this.r(v1, k), this.r(down)], 1);
      }
    }
    // the sign, then zeros, infinities and NaNs
    const sign = R();
    this.emit('LOP3', ['LUT'], [this.r(sign), this.r(A, 1), this.r(B, 1), int(0x80000000), int(0x28), PT(true)], 1);
    const shi = R();
    this.emit('LOP3', ['LUT'], [this.r(shi), this.r(v2, 1), this.r(sign), c2rz(), int(0xfc), PT(true)], 1);
    const ca = this.dclass(A);
    const cb = this.dclass(B);
    const toZero = this.por(ca.zero, cb.inf);
    const toInf = this.por(ca.inf, cb.zero);
    const nan = this.por(this.por(ca.nan, cb.nan), this.por(this.por(ca.zero, cb.zero, 0xc0), this.por(ca.inf, cb.inf, 0xc0)));
    const infHi = R();
    this.emit('LOP3', ['LUT'], [this.r(infHi), this.r(sign), int(0x7ff00000), c2rz(), int(0xfc), PT(true)], 1);
    const h1 = R();
    this.emit('SEL', [], [this.r(h1), this.r(sign), this.r(shi), this.r(toZero)], 1);
    const h2 = R();
    this.emit('SEL', [], [this.r(h2), this.r(infHi), this.r(h1), this.r(toInf)], 1);
    const special = this.por(toZero, toInf);
    const l1 = R();
    this.emit('SEL', [], [this.r(l1), c2rz(), this.r(v2, 0), this.r(special)], 1);
    this.emit('SEL', [], [this.def(d, 1), int(0x7fffffff), this.r(h2), this.r(nan)], 1);
    this.emit('SEL', [], [this.def(d, 0), int(0xffffffff), this.r(l1), this.r(nan)], 1);
  }

  /**
   * div.rz/rm/rp.f64: the quotient's magnitude rounded down or up (by the mode and the result's sign). lo/hi are
   * q·2^e rounded down and up at the result's precision, q = RN(ma/mb) and rem = ma − mb·q (exact). No grid point
   * of the result lies strictly between q·2^e and the exact quotient (q is the nearest 53-bit value, the result's
   * grid a subset of those points), so lo/hi are the answer unless q·2^e is itself representable (lo = hi): then
   * the exact quotient lies above it when rem > 0 (rounding up gives the next value: bits + 1) and below when
   * rem < 0 (rounding down gives the previous one: bits − 1). Overflow: hi is ∞ and lo the largest finite.
   */
  directedQuotient(v: VReg, lo: VReg, hi: VReg, rem: VReg, A: VReg, B: VReg, mode: 'RZ' | 'RM' | 'RP'): void {
    const R = (): VReg => this.newV('R', 1);
    const P = (): VReg => this.newV('P', 1);
    const int = (x: number): MOperand => ({ k: 'int', v: x >>> 0 });
    const w = (x: VReg): VRegOperand => this.r(x, 0, 2);
    const exact = P();
    this.emit('DSETP', ['EQ', 'AND'], [this.r(exact), PT(), w(lo), w(hi), PT()], 2);
    const above = P();
    this.emit('DSETP', ['GT', 'AND'], [this.r(above), PT(), w(rem), c2rz(), this.r(exact)], 2);
    const below = P();
    this.emit('DSETP', ['LT', 'AND'], [this.r(below), PT(), w(rem), c2rz(), this.r(exact)], 2);
    // up = hi + (above ? 1 : 0), down = lo − (below ? 1 : 0), as 64-bit integers
    const inc = R();
    this.emit('SEL', [], [this.r(inc), int(1), c2rz(), this.r(above)], 1);
    const up = this.newV('R', 2);
    const cu = P();
    this.emit('IADD3', [], [this.r(up, 0), this.r(cu), PT(), this.r(hi, 0), this.r(inc), c2rz()], 3);
    this.emit('IADD3', ['X'], [this.r(up, 1), this.r(hi, 1), c2rz(), c2rz(), this.r(cu), PT(true)], 1);
    const dec = R();
    this.emit('SEL', [], [this.r(dec), int(0xffffffff), c2rz(), this.r(below)], 1);
    const down = this.newV('R', 2);
    const cd = P();
    this.emit('IADD3', [], [this.r(down, 0), this.r(cd), PT(), this.r(lo, 0), this.r(dec), c2rz()], 3);
    this.emit('IADD3', ['X'], [this.r(down, 1), this.r(lo, 1), this.r(dec), c2rz(), this.r(cd), PT(true)], 1);
    if (mode === 'RZ') {
      for (let k = 0; k < 2; k++) this.emit('MOV', [], [this.r(v, k), this.r(down, k)], 1);
      return;
    }
    // the result is negative when the signs differ: rp rounds its magnitude down, rm up
    const sx = R();
    this.emit('LOP3', ['LUT'], [this.r(sx), this.r(A, 1), this.r(B, 1), int(0x80000000), int(0x28), PT(true)], 1);
    const neg = P();
    this.emit('ISETP', ['NE', 'U32', 'AND'], [this.r(neg), PT(), this.r(sx), c2rz(), PT()], 2);
    for (let k = 0; k < 2; k++) {
      this.emit('SEL', [], [this.r(v, k), mode === 'RP' ? this.r(down, k) : this.r(up, k), mode === 'RP' ? this.r(up, k) : this.r(down, k), this.r(neg)], 1);
    }
  }

  /**
   * f64 sqrt.rn, IEEE-exact, as ptxas computes it: MUFU.RSQ64H refined by one Newton step in the polynomial form
   * ptxas uses (y += y·e·(1/2 + 3/8·e), e = 1 − x·y²), s = x·y, and s corrected once by the residual x − s² (FMA)
   * times y/2. Its fast path covers 2^-969 <= x < ∞; smaller positive x (subnormals included) are scaled by 2^106
   * first and the root by 2^-53 after (exact: the root is normal), as ptxas's slow path does. −0/+0 give themselves,
   * +∞ gives +∞, negatives and NaN the interpreter's canonical NaN.
   */
  fsqrt64(d: Operand, xo: Operand): void {
    const R = (): VReg => this.newV('R', 1);
    const W = (): VReg => this.newV('R', 2);
    const P = (): VReg => this.newV('P', 1);
    const int = (v: number): MOperand => ({ k: 'int', v: v >>> 0 });
    const w = (v: VReg, mods: Partial<VRegOperand> = {}): VRegOperand => this.r(v, 0, 2, mods);
    const X = this.dreg(xo);
    const small = P();
    this.emit('ISETP', ['LT', 'U32', 'AND'], [this.r(small), PT(), this.r(X, 1), int(0x03500000), PT()], 2);
    const up = this.dconst(0x46900000); // 2^106
    const xm = W();
    this.emit('DMUL', [], [w(xm), w(X), w(up)], 1);
    const xs = W();
    for (let k = 0; k < 2; k++) this.emit('SEL', [], [this.r(xs, k), this.r(xm, k), this.r(X, k), this.r(small)], 1);
    const y = W();
    this.emit('MOV', [], [this.r(y, 0), c2rz()], 1);
    this.emit('MUFU', ['RSQ64H'], [this.r(y, 1), this.r(xs, 1)], 1);
    const ONE = this.dconst(0x3ff00000);
    const HALF = this.dconst(0x3fe00000);
    const C38 = this.dconst(0x3fd80000);
    const yy = W();
    this.emit('DMUL', [], [w(yy), w(y), w(y)], 1);
    const e = W();
    this.emit('DFMA', [], [w(e), w(xs), w(yy, { neg: true }), w(ONE)], 1);
    const h = W();
    this.emit('DFMA', [], [w(h), w(e), w(C38), w(HALF)], 1);
    const ye = W();
    this.emit('DMUL', [], [w(ye), w(y), w(e)], 1);
    const y2 = W();
    this.emit('DFMA', [], [w(y2), w(h), w(ye), w(y)], 1);
    const s = W();
    this.emit('DMUL', [], [w(s), w(xs), w(y2)], 1);
    const yh = W();
    this.emit('MOV', [], [this.r(yh, 0), this.r(y2, 0)], 1);
    this.emit('IADD3', [], [this.r(yh, 1), this.r(y2, 1), int(0xfff00000), c2rz()], 1);
    const rem = W();
    this.emit('DFMA', [], [w(rem), w(s), w(s, { neg: true }), w(xs)], 1);
    const res = W();
    this.emit('DFMA', [], [w(res), w(rem), w(yh), w(s)], 1);
    const down = R();
    this.emit('IADD3', [], [this.r(down), this.r(res, 1), int(0xfcb00000), c2rz()], 1);
    const hi1 = R();
    this.emit('SEL', [], [this.r(hi1), this.r(down), this.r(res, 1), this.r(small)], 1);
    // specials: zeros give themselves, +inf itself, negatives and NaN the canonical NaN
    const c = this.dclass(X);
    const neg = P();
    this.emit('ISETP', ['LT', 'AND'], [this.r(neg), PT(), this.r(X, 1), c2rz(), PT()], 2);
    const nan = this.por(c.nan, this.por(neg, c.zero, 0x30)); // nan | (neg & !zero)
    const keep = this.por(c.zero, c.inf);
    const hi2 = R();
    this.emit('SEL', [], [this.r(hi2), this.r(X, 1), this.r(hi1), this.r(keep)], 1);
    const lo2 = R();
    this.emit('SEL', [], [this.r(lo2), this.r(X, 0), this.r(res, 0), this.r(keep)], 1);
    this.emit('SEL', [], [this.def(d, 1), int(0x7fffffff), this.r(hi2), this.r(nan)], 1);
    this.emit('SEL', [], [this.def(d, 0), int(0xffffffff), this.r(lo2), this.r(nan)], 1);
  }

  /**
   * rcp.{rz,rm,rp}.f64 (1/x with directed rounding), IEEE-exact including subnormal and overflowing results:
   * - x is scaled into ±[1,2) (subnormal x first multiplied by 2^54), x' = m·2^0 with e its biased exponent;
   * - y ≈ 1/x' from MUFU.RCP64H and three Newton steps (y += y·(1 − x'y)); the residual r = 1 − x'y is exact and
   *   q' = fma(r, y, y) rounded in the requested direction is the correctly rounded 1/x' (Markstein; ptxas's
   *   __cuda_sm20_rcp_rz_f64 ends the same way), in (0.5, 1];
   * - 1/x = q'·2^k, k = 1023 − e (+54): two DMULs by 2^⌊k/2⌋ (exact) and 2^⌈k/2⌉ in the same direction, so a
   *   subnormal or overflowing result is rounded once more at its own position — directed roundings compose
   *   (rounding an already directed-rounded value toward the same side at a coarser position gives the single
   *   rounding), which round-to-nearest would not;
   * - x = ±0 → ±inf, ±inf → ±0, NaN → the canonical NaN (the interpreter's), selected at the end.
   */
  frcp64Directed(d: Operand, xo: Operand, mode: string): void {
    const R = (): VReg => this.newV('R', 1);
    const W = (): VReg => this.newV('R', 2);
    const P = (): VReg => this.newV('P', 1);
    const int = (v: number): MOperand => ({ k: 'int', v: v >>> 0 });
    const x = this.dsrc(xo) as VRegOperand;
    const X = x.k === 'vreg' ? x.v : this.fail('f64 reciprocal operand');
    const lop = (dst: VReg, a: MOperand, b: MOperand, c: MOperand, lut: number, part = 0) =>
      this.emit('LOP3', ['LUT'], [this.r(dst, part), a, b, c, int(lut), PT(true)], 1);
    // subnormal inputs: scale by 2^54 first
    const e0 = R();
    lop(e0, this.r(X, 1), int(0x7ff00000), c2rz(), 0xc0);
    const sub = P();
    this.emit('ISETP', ['EQ', 'U32', 'AND'], [this.r(sub), PT(), this.r(e0), c2rz(), PT()], 2);
    const big = W();
    this.emit('MOV', [], [this.r(big, 0), c2rz()], 1);
    this.emit('MOV', [], [this.r(big, 1), int(0x43500000)], 1); // 2^54
    const xm = W();
    this.emit('DMUL', [], [this.r(xm, 0, 2), this.r(X, 0, 2), this.r(big, 0, 2)], 1);
    const xs = W();
    for (let p = 0; p < 2; p++) this.emit('SEL', [], [this.r(xs, p), this.r(xm, p), this.r(X, p), this.r(sub)], 1);
    const adj = R();
    this.emit('SEL', [], [this.r(adj), int(54), c2rz(), this.r(sub)], 1);
    // e (biased exponent of xs) and x' = xs with the exponent of 1.0
    const eb = R();
    lop(eb, this.r(xs, 1), int(0x7ff00000), c2rz(), 0xc0);
    const xp = W();
    this.emit('MOV', [], [this.r(xp, 0), this.r(xs, 0)], 1);
    lop(xp, this.r(xs, 1), int(0x800fffff), int(0x3ff00000), 0xea, 1); // (hi & mask) | 1.0's exponent
    const ONE = W();
    this.emit('MOV', [], [this.r(ONE, 0), c2rz()], 1);
    this.emit('MOV', [], [this.r(ONE, 1), int(0x3ff00000)], 1);
    let y = W();
    this.emit('MOV', [], [this.r(y, 0), c2rz()], 1);
    this.emit('MUFU', ['RCP64H'], [this.r(y, 1), this.r(xp, 1)], 1);
    for (let k = 0; k < 3; k++) {
      const e = W();
      this.emit('DFMA', [], [this.r(e, 0, 2), { ...this.r(xp, 0, 2), neg: true }, this.r(y, 0, 2), this.r(ONE, 0, 2)], 1);
      const y2 = W();
      this.emit('DFMA', [], [this.r(y2, 0, 2), this.r(y, 0, 2), this.r(e, 0, 2), this.r(y, 0, 2)], 1);
      y = y2;
    }
    const res = W();
    this.emit('DFMA', [], [this.r(res, 0, 2), { ...this.r(xp, 0, 2), neg: true }, this.r(y, 0, 2), this.r(ONE, 0, 2)], 1);
    const q = W();
    this.emit('DFMA', [mode], [this.r(q, 0, 2), this.r(res, 0, 2), this.r(y, 0, 2), this.r(y, 0, 2)], 1);
    // k = 1023 - e + adj, in two halves k1 = k >> 1, k2 = k - k1; 2^ki = ((ki + 1023) << 20):0
    const ebits = R();
    this.emit('SHF', ['R', 'U32', 'HI'], [this.r(ebits), c2rz(), int(20), this.r(eb)], 1);
    const k = R();
    this.emit('IADD3', [], [this.r(k), { ...this.r(ebits), neg: true }, this.r(adj), int(1023)], 1);
    const k1 = R();
    this.emit('SHF', ['R', 'S32', 'HI'], [this.r(k1), c2rz(), int(1), this.r(k)], 1);
    const k2 = R();
    this.emit('IADD3', [], [this.r(k2), this.r(k), { ...this.r(k1), neg: true }, c2rz()], 1);
    const f1 = W();
    const f2 = W();
    for (const [f, ki] of [[f1, k1], [f2, k2]] as const) {
      this.emit('MOV', [], [this.r(f, 0), c2rz()], 1);
      const t = R();
      this.emit('IADD3', [], [this.r(t), this.r(ki), int(1023), c2rz()], 1);
      this.emit('SHF', ['L', 'U32'], [this.r(f, 1), this.r(t), int(20), c2rz()], 1);
    }
    const t1 = W();
    this.emit('DMUL', [], [this.r(t1, 0, 2), this.r(q, 0, 2), this.r(f1, 0, 2)], 1);
    // DMUL has no rounding-mode form in the encoder: a DFMA adding -0 (which keeps every product, zeros included)
    const nz = W();
    this.emit('MOV', [], [this.r(nz, 0), c2rz()], 1);
    this.emit('MOV', [], [this.r(nz, 1), int(0x80000000)], 1);
    const t2 = W();
    this.emit('DFMA', [mode], [this.r(t2, 0, 2), this.r(t1, 0, 2), this.r(f2, 0, 2), this.r(nz, 0, 2)], 1);
    // specials from the original bits: |hi|, lo == 0
    const mag = R();
    lop(mag, this.r(X, 1), int(0x7fffffff), c2rz(), 0xc0);
    const sign = R();
    lop(sign, this.r(X, 1), int(0x80000000), c2rz(), 0xc0);
    const loz = P();
    this.emit('ISETP', ['EQ', 'U32', 'AND'], [this.r(loz), PT(), this.r(X, 0), c2rz(), PT()], 2);
    const isZero = P();
    this.emit('ISETP', ['EQ', 'U32', 'AND'], [this.r(isZero), PT(), this.r(mag), c2rz(), this.r(loz)], 2);
    const isInf = P();
    this.emit('ISETP', ['EQ', 'U32', 'AND'], [this.r(isInf), PT(), this.r(mag), int(0x7ff00000), this.r(loz)], 2);
    const infHiNz = P();
    this.emit('ISETP', ['EQ', 'U32', 'AND'], [this.r(infHiNz), PT(), this.r(mag), int(0x7ff00000), { ...this.r(loz), not: true }], 2);
    const isNan = P();
    this.emit('ISETP', ['GT', 'U32', 'OR'], [this.r(isNan), PT(), this.r(mag), int(0x7ff00000), this.r(infHiNz)], 2);
    const signInf = R();
    lop(signInf, this.r(sign), int(0x7ff00000), c2rz(), 0xfc);
    const hi1 = R();
    this.emit('SEL', [], [this.r(hi1), this.r(signInf), this.r(t2, 1), this.r(isZero)], 1);
    const hi2 = R();
    this.emit('SEL', [], [this.r(hi2), this.r(sign), this.r(hi1), this.r(isInf)], 1);
    const lo1 = R();
    const zeroOrInf = P();
    this.emit('PLOP3', ['LUT'], [this.r(zeroOrInf), PT(), this.r(isZero), this.r(isInf), PT(), int(0xfc), int(0)], 2);
    this.emit('SEL', [], [this.r(lo1), c2rz(), this.r(t2, 0), this.r(zeroOrInf)], 1);
    // the canonical f64 NaN 0x7fffffff_ffffffff
    this.emit('SEL', [], [this.def(d, 1), int(0x7fffffff), this.r(hi2), this.r(isNan)], 1);
    this.emit('SEL', [], [this.def(d, 0), int(0xffffffff), this.r(lo1), this.r(isNan)], 1);
  }

  /**
   * fp8 conversions in integer and f32 arithmetic (the encoder has no F2FP E4M3/E5M2 rows yet), bit-exact with
   * PTX's cvt (the interpreter's fp8.ts):
   * - fp8 -> f16/f32: the fp8 magnitude bits placed as an f32's top bits (exponent field = the fp8 exponent) and
   *   scaled by 2^(127 - bias) give the exact value, fp8 subnormals included (an f32 subnormal times a power of two,
   *   no FTZ); E5M2 infinity comes out as 2^16, which rounds to the f16 infinity; NaN patterns give the canonical NaN;
   * - f32 (or f16, widened exactly) -> fp8, round to nearest even with satfinite: |x| clamped to the largest finite
   *   value, then the f32 bits rounded at the fp8 mantissa width (normal range) or |x|·2^(bias - 1 + mbits) rounded
   *   to an integer (subnormal range), the sign put back; NaN -> 0x7f.
   */
  fp8Convert(d: Operand, src: Operand, dt: string, st: string, satfinite: boolean): void {
    const R = (): VReg => this.newV('R', 1);
    const P = (): VReg => this.newV('P', 1);
    const int = (v: number): MOperand => ({ k: 'int', v: v >>> 0 });
    const lop = (dst: VReg, a: MOperand, b: MOperand, c: MOperand, lut: number) => this.emit('LOP3', ['LUT'], [this.r(dst), a, b, c, int(lut), PT(true)], 1);
    const f8 = FP8[st];
    if (f8) {
      if (dt !== 'F16' && dt !== 'F32') this.fail(`fp8 conversion to ${dt}`);
      const b = this.inReg(this.part(src, 0));
      const mag = R();
      lop(mag, b, int(0x7f), c2rz(), 0xc0);
      const sh = R();
      this.emit('SHF', ['L', 'U32'], [this.r(sh), this.r(mag), int(23 - f8.mbits), c2rz()], 1);
      const f = R();
      this.emit('FMUL', [], [this.r(f), this.r(sh), { k: 'float', v: 2 ** (127 - f8.bias) }], 1);
      let v = f;
      let signShift = 24;
      let nan = 0x7fffffff;
      if (dt === 'F16') {
        v = R();
        this.emit('F2F', ['F16', 'F32'], [this.r(v), this.r(f)], 1);
        signShift = 8;
        nan = 0x7fff;
      }
      const sg = R();
      lop(sg, b, int(0x80), c2rz(), 0xc0);
      const sgs = R();
      this.emit('SHF', ['L', 'U32'], [this.r(sgs), this.r(sg), int(signShift), c2rz()], 1);
      const withSign = R();
      lop(withSign, this.r(v), this.r(sgs), c2rz(), 0xfc);
      const isNan = P();
      this.emit('ISETP', ['GT', 'U32', 'AND'], [this.r(isNan), PT(), this.r(mag), int(f8.nanAbove), PT()], 2);
      return this.emit('SEL', [], [this.def(d), int(nan), this.r(withSign), this.r(isNan)], 1);
    }
    const t8 = FP8[dt]!;
    if (!satfinite) this.fail('fp8 conversion without .satfinite');
    let x = this.inReg(this.part(src, 0, { float: st === 'F32' }));
    if (st === 'F16') {
      const w = R();
      this.emit('F2F', ['F32', 'F16'], [this.r(w), x], 1);
      x = this.r(w);
    } else if (st !== 'F32') this.fail(`fp8 conversion from ${st}`);
    const abs = R();
    lop(abs, x, int(0x7fffffff), c2rz(), 0xc0);
    const a = R();
    this.emit('FMNMX', [], [this.r(a), this.r(abs), { k: 'float', v: t8.max }, PT()], 1);
    // normal range: round the f32 bits at the fp8 mantissa width (ties to even), then rebias the exponent
    const sh = 23 - t8.mbits;
    const odd = R();
    this.emit('SHF', ['R', 'U32', 'HI'], [this.r(odd), c2rz(), int(sh), this.r(a)], 1);
    const odd1 = R();
    lop(odd1, this.r(odd), int(1), c2rz(), 0xc0);
    const rb = R();
    this.emit('IADD3', [], [this.r(rb), this.r(a), this.r(odd1), int((1 << (sh - 1)) - 1)], 1);
    const top = R();
    this.emit('SHF', ['R', 'U32', 'HI'], [this.r(top), c2rz(), int(sh), this.r(rb)], 1);
    const normal = R();
    this.emit('IADD3', [], [this.r(normal), this.r(top), int(-((127 - t8.bias) << t8.mbits)), c2rz()], 1);
    // subnormal range: |x| * 2^(bias - 1 + mbits) rounded to an integer
    const scaled = R();
    this.emit('FMUL', [], [this.r(scaled), this.r(a), { k: 'float', v: 2 ** (t8.bias - 1 + t8.mbits) }], 1);
    const sub = R();
    this.emit('F2I', ['U32', 'NTZ'], [this.r(sub), this.r(scaled)], 1);
    const small = P();
    this.emit('FSETP', ['LT', 'AND'], [this.r(small), PT(), this.r(a), { k: 'float', v: 2 ** (1 - t8.bias) }, PT()], 2);
    const m = R();
    this.emit('SEL', [], [this.r(m), this.r(sub), this.r(normal), this.r(small)], 1);
    const sg = R();
    this.emit('SHF', ['R', 'U32', 'HI'], [this.r(sg), c2rz(), int(24), x], 1);
    const sg8 = R();
    lop(sg8, this.r(sg), int(0x80), c2rz(), 0xc0);
    const withSign = R();
    lop(withSign, this.r(m), this.r(sg8), c2rz(), 0xfc);
    const isNan = P();
    this.emit('FSETP', ['NAN', 'AND'], [this.r(isNan), PT(), x, x, PT()], 2);
    this.emit('SEL', [], [this.def(d), int(0x7f), this.r(withSign), this.r(isNan)], 1);
  }

  /**
   * f64 min/max (Ori DMNMX; the sm_90 encoder has no DMNMX form): compares and selects with PTX's rules, which
   * are the interpreter's fminmax: a NaN operand yields the other one (two NaNs the canonical NaN); equal values
   * differ only in the sign of zero, min prefers -0 and max +0.
   */
  dminmax(d: Operand, ao: Operand, bo: Operand, po: Operand): void {
    const a = this.dsrc(ao) as VRegOperand;
    const b = this.dsrc(bo) as VRegOperand;
    if (a.k !== 'vreg' || b.k !== 'vreg') this.fail('f64 min/max operand');
    const min = po.kind === 'pt' ? !po.not : this.fail('f64 min/max with a predicate register');
    const P = (): VReg => this.newV('P', 1);
    const A = (p: number) => this.r(a.v, p);
    const B = (p: number) => this.r(b.v, p);
    const aNeg = P();
    this.emit('ISETP', ['LT', 'AND'], [this.r(aNeg), PT(), A(1), c2rz(), PT()], 2);
    const better = P();
    this.emit('DSETP', [min ? 'LT' : 'GT', 'AND'], [this.r(better), PT(), this.r(a.v, 0, 2), this.r(b.v, 0, 2), PT()], 2);
    const eqSign = P();
    this.emit('DSETP', ['EQ', 'AND'], [this.r(eqSign), PT(), this.r(a.v, 0, 2), this.r(b.v, 0, 2), { ...this.r(aNeg), ...(min ? {} : { not: true }) }], 2);
    const bNan = P();
    this.emit('DSETP', ['NAN', 'AND'], [this.r(bNan), PT(), this.r(b.v, 0, 2), this.r(b.v, 0, 2), PT()], 2);
    const both = P();
    this.emit('DSETP', ['NAN', 'AND'], [this.r(both), PT(), this.r(a.v, 0, 2), this.r(a.v, 0, 2), this.r(bNan)], 2);
    const takeA = P();
    this.emit('PLOP3', ['LUT'], [this.r(takeA), PT(), this.r(better), this.r(eqSign), this.r(bNan), { k: 'int', v: 0xfe }, { k: 'int', v: 0 }], 2);
    const t = this.newV('R', 2);
    for (let p = 0; p < 2; p++) this.emit('SEL', [], [this.r(t, p), A(p), B(p), this.r(takeA)], 1);
    this.emit('SEL', [], [this.def(d, 0), { k: 'int', v: 0xffffffff }, this.r(t, 0), this.r(both)], 1);
    this.emit('SEL', [], [this.def(d, 1), { k: 'int', v: 0x7fffffff }, this.r(t, 1), this.r(both)], 1);
  }

  /** A predicate source (register, PT, their complements). */
  pred(o: Operand): MOperand {
    if (o.kind === 'pt') return PT(!!o.not);
    if (o.kind === 'reg') return { ...this.r(this.vOf(o.reg)), ...(o.not ? { not: true } : {}) };
    if (o.kind === 'imm') return PT(o.value === 0n);
    return this.fail(`predicate operand ${o.kind}`);
  }

  /** The low 8 bits of a position/length operand (PTX bfe/bfi read them mod 256). */
  byte(o: Operand): MOperand {
    if (o.kind === 'imm') return { k: 'int', v: Number(BigInt.asUintN(8, o.value)) };
    const t = this.newV('R', 1);
    this.emit('LOP3', ['LUT'], [this.r(t), this.part(o, 0), { k: 'int', v: 0xff }, c2rz(), { k: 'int', v: 0xc0 }, PT(true)], 1);
    return this.r(t);
  }

  /** BFE: shift the field down (SHF, clamping at 32 like PTX), then zero/sign-extend from `len` bits (SGXT), as ptxas. */
  bfe(ins: Instr): void {
    const d = ins.defs[0]!;
    const [a, pos, len] = ins.uses as [Operand, Operand, Operand];
    if (this.widthOf(d) !== 1 || ins.hasMod('U64') || ins.hasMod('S64')) this.fail('64-bit bit-field extract');
    const signed = ins.hasMod('S32');
    const p = this.byte(pos);
    const l = this.byte(len);
    let src: MOperand = this.part(a, 0);
    if (!((p as SassOperand).k === 'int' && (p as { v: number }).v === 0)) {
      const t = this.newV('R', 1);
      this.emit('SHF', ['R', signed ? 'S32' : 'U32', 'HI'], [this.r(t), c2rz(), p, this.inReg(src)], 1);
      src = this.r(t);
    }
    if ((l as SassOperand).k === 'int' && (l as { v: number }).v >= 32) return this.emit('MOV', [], [this.def(d), src], 1);
    this.emit('SGXT', signed ? [] : ['U32'], [this.def(d), this.inReg(src), l], 1);
  }

  /** BFI: the mask ~(-1 << len) << pos, the inserted value shifted to pos, merged with LOP3 (m ? ins : base). */
  bfi(ins: Instr): void {
    const d = ins.defs[0]!;
    const [a, b, pos, len] = ins.uses as [Operand, Operand, Operand, Operand];
    if (this.widthOf(d) !== 1) return this.bfi64(d, a, b, pos, len);
    const p = this.byte(pos);
    const l = this.byte(len);
    const ones = this.newV('R', 1);
    this.emit('MOV', [], [this.r(ones), { k: 'int', v: 0xffffffff }], 1);
    const hi = this.newV('R', 1);
    this.emit('SHF', ['L', 'U32'], [this.r(hi), this.r(ones), l, c2rz()], 1);
    const low = this.newV('R', 1);
    this.emit('LOP3', ['LUT'], [this.r(low), this.r(hi), c2rz(), c2rz(), { k: 'int', v: 0x0f }, PT(true)], 1);
    const m = this.newV('R', 1);
    this.emit('SHF', ['L', 'U32'], [this.r(m), this.r(low), p, c2rz()], 1);
    const x = this.newV('R', 1);
    this.emit('SHF', ['L', 'U32'], [this.r(x), this.inReg(this.part(a, 0)), p, c2rz()], 1);
    this.emit('LOP3', ['LUT'], [this.def(d), this.r(x), this.r(m), this.part(b, 0), { k: 'int', v: 0xe2 }, PT(true)], 1);
  }

  /**
   * 64-bit BFI with a constant, word-aligned position (nvcc's `bfi.b64 d, a, b, 32, 32` packs two words): each
   * result word is the base's word, the shifted insert's word, or the two merged under a constant mask. PTX clamps:
   * pos and len are taken mod 256, nothing is inserted at pos >= 64 or len 0, and len stops at bit 63.
   */
  bfi64(d: Operand, a: Operand, b: Operand, pos: Operand, len: Operand): void {
    if (pos.kind !== 'imm' || len.kind !== 'imm') this.fail('64-bit bit-field insert at a register position or length');
    const p = Number(pos.value & 0xffn);
    const l = Math.min(Number(len.value & 0xffn), Math.max(0, 64 - p));
    if (p < 64 && l > 0 && p % 32 !== 0) this.fail('64-bit bit-field insert at a position that is not a multiple of 32');
    const mask = p >= 64 || l === 0 ? 0n : ((1n << BigInt(l)) - 1n) << BigInt(p);
    for (let w = 0; w < 2; w++) {
      const m = Number((mask >> BigInt(32 * w)) & 0xffffffffn);
      // the insert shifted to pos: word w of (a << p) is a's word w - p/32 (zero below)
      const from = w - p / 32;
      if (m === 0) {
        this.emit('MOV', [], [this.def(d, w), this.part(b, w)], 1);
        continue;
      }
      const ins = from >= 0 ? this.part(a, from) : c2rz();
      if (m === 0xffffffff) {
        this.emit('MOV', [], [this.def(d, w), ins], 1);
        continue;
      }
      const mr = this.newV('R', 1);
      this.emit('MOV', [], [this.r(mr), { k: 'int', v: m }], 1);
      this.emit('LOP3', ['LUT'], [this.def(d, w), this.inReg(ins), this.r(mr), this.part(b, w), { k: 'int', v: 0xe2 }, PT(true)], 1);
    }
  }

  /**
   * Atomics as ptxas spells them: generic/global `ATOM(G).E.<op>.STRONG.GPU PT, Rd, desc[UR4][Ra.64], Rb` (CAS:
   * compare and new value in a consecutive pair, address without the descriptor), shared `ATOMS.<op> Rd, [Ra], Rb`.
   */
  atomic(ins: Instr): void {
    // (red.global: an ATOMG whose result is unused, except f64 add, which has RED's own opcode: atomic64)
    const op = ins.opcode === 'RED' ? 'ATOMG' : ins.opcode;
    const mods = ins.mods;
    const d = ins.defs[0];
    const u = ins.uses;
    const kind = mods.find((m) => ['ADD', 'MIN', 'MAX', 'INC', 'DEC', 'AND', 'OR', 'XOR', 'EXCH', 'CAS'].includes(m));
    if (!kind) this.fail('atomic operation');
    const type = mods.find((m) => /^[USBF](32|64)$/.test(m)) ?? 'U32';
    const w = d ? this.widthOf(d) : type.endsWith('64') ? 2 : 1;
    if (w === 2 || type.endsWith('64')) return this.atomic64(ins, kind!, type);
    if (type === 'F32' && op === 'ATOMS') {
      if (kind !== 'ADD') this.fail('f32 shared-memory atomic other than add');
      return this.sharedAtomicAddF32(d, u[0]!, u[1]!);
    }
    const scope = atomicScope(mods);
    const typeMods = type === 'F32' ? ['F32', 'FTZ', 'RN'] : type === 'S32' && (kind === 'MIN' || kind === 'MAX') ? ['S32'] : [];
    const vals = kind === 'CAS' ? [u[1]!, u[2]!] : [u[1]!];
    let srcs: MOperand[];
    if (kind === 'CAS') {
      const pair = this.newV('R', 2);
      this.emit('MOV', [], [this.r(pair, 0), this.part(vals[0]!, 0)], 1);
      this.emit('MOV', [], [this.r(pair, 1), this.part(vals[1]!, 0)], 1);
      srcs = [this.r(pair, 0), this.r(pair, 1)];
    } else srcs = [this.inReg(this.part(vals[0]!, 0))];
    const dst = d ? this.def(d) : c2rz();
    if (op === 'ATOMS') {
      return this.emit('ATOMS', [kind, ...typeMods], [dst, this.address(u[0]!, false), ...srcs], 1);
    }
    this.usesGlobal = true;
    const addr = this.address(u[0]!, true) as VMemOperand;
    if (kind === 'CAS') {
      addr.desc = false;
      addr.plain = true;
    }
    // ATOMG's CAS rows have no CTA scope value: the generic ATOM takes the (same) global address
    const casOp = kind === 'CAS' && scope === 'SM' ? 'ATOM' : op;
    return this.emit(casOp, ['E', kind, ...typeMods, 'STRONG', scope], [PT(), dst, addr, ...srcs], 2);
  }

  /**
   * 64-bit global atomics as ptxas writes them (sm_90 evidence rows): `ATOMG.E.ADD.64` (u64 add, exch, unsigned
   * min/max) and `.S64` (signed min/max) on register pairs; f64 add as `ATOMG.E.ADD.F64.RN` (its own opcode on
   * sm_90, 0x9a3), `RED.E.ADD.F64.RN` (0x9a6) when the result is unused, and on shared memory as ptxas's
   * compare-and-store loop. 64-bit compare-and-swap: atomicCas64.
   */
  atomic64(ins: Instr, kind: string, type: string): void {
    const d = ins.defs[0];
    const u = ins.uses;
    if (type === 'F64' && kind === 'ADD' && ins.opcode === 'ATOMS') return this.sharedAtomicAddF64(d, u[0]!, u[1]!);
    if (type === 'F64' && kind === 'ADD' && (ins.opcode === 'ATOMG' || ins.opcode === 'RED')) {
      const scope = atomicScope(ins.mods);
      const src = this.dsrc(u[1]!);
      this.usesGlobal = true;
      const addr = this.address(u[0]!, true) as VMemOperand;
      if (!d || d.kind !== 'reg') return this.emit('RED', ['E', 'ADD', 'F64', 'RN', 'STRONG', scope], [addr, src], 0);
      return this.emit('ATOMG', ['E', 'ADD', 'F64', 'RN', 'STRONG', scope], [PT(), this.defWhole(d), addr, src], 2);
    }
    if (kind === 'CAS' && type !== 'F64') return this.atomicCas64(ins);
    if (ins.opcode === 'ATOMS') this.fail('64-bit shared-memory atomic');
    if (type === 'F64' || kind === 'CAS' || !['ADD', 'MIN', 'MAX', 'EXCH', 'AND', 'OR', 'XOR'].includes(kind)) this.fail(`64-bit atomic ${kind}.${type}`);
    if (kind === 'ADD' || kind === 'EXCH' ? false : type !== 'U64' && type !== 'S64' && type !== 'B64') this.fail(`64-bit atomic ${kind}.${type}`);
    const typeMods = (kind === 'MIN' || kind === 'MAX') && type === 'S64' ? ['S64'] : ['64'];
    // generic addresses keep ATOM (sm_90 evidence row 0x98a: the same operation/scope/type fields as ATOMG)
    const op = ins.opcode === 'ATOM' ? 'ATOM' : 'ATOMG';
    const scope = atomicScope(ins.mods);
    const src = this.wide64(u[1]!);
    const dst = d ? this.defWhole(d) : this.r(this.newV('R', 2), 0, 2);
    this.usesGlobal = true;
    const addr = this.address(u[0]!, true) as VMemOperand;
    return this.emit(op, ['E', kind, ...typeMods, 'STRONG', scope], [PT(), dst, addr, src], 2);
  }

  /**
   * 64-bit compare-and-swap as ptxas writes it on sm_90: the compare value and the new value in one register quad
   * (`ATOMG.E.CAS.64.STRONG.GPU PT, Rd, [Ra], Rq, Rq+2`, the address without the memory descriptor;
   * `ATOMS.64.CAS Rd, [Ra], Rq, Rq+2` on shared memory; `ATOM.E.CAS.64` on generic addresses). ATOMG's CAS rows
   * have no CTA scope field value, so a CTA-scoped global CAS takes the generic ATOM (a global address is the same
   * generic address), whose rows do.
   */
  atomicCas64(ins: Instr): void {
    const d = ins.defs[0];
    const u = ins.uses;
    const quad = this.newV('R', 4);
    for (const [k, v] of [u[1]!, u[2]!].entries()) {
      this.emit('MOV', [], [this.r(quad, 2 * k), this.part(v, 0)], 1);
      this.emit('MOV', [], [this.r(quad, 2 * k + 1), this.widthOf(v) === 2 || v.kind === 'imm' ? this.part(v, 1) : c2rz()], 1);
    }
    const dst = d && d.kind === 'reg' ? this.defWhole(d) : this.r(this.newV('R', 2), 0, 2);
    if (ins.opcode === 'ATOMS') return this.emit('ATOMS', ['CAS', '64'], [dst, this.address(u[0]!, false), this.r(quad, 0, 2), this.r(quad, 2, 2)], 1);
    const scope = atomicScope(ins.mods);
    const op = ins.opcode === 'ATOM' || scope === 'SM' ? 'ATOM' : 'ATOMG';
    this.usesGlobal = true;
    const addr = this.address(u[0]!, true) as VMemOperand;
    addr.desc = false;
    addr.plain = true;
    return this.emit(op, ['E', 'CAS', '64', 'STRONG', scope], [PT(), dst, addr, this.r(quad, 0, 2), this.r(quad, 2, 2)], 2);
  }

  /**
   * Opens a shared-memory compare-and-swap retry loop (ptxas's form for the atomics ATOMS lacks): the loop
   * block becomes current; under a guard the code first branches around it to the continuation block.
   */
  openCasLoop(): { loop: number; cont: number } {
    const cont = this.newBlock(`${this.created[this.layout[this.layout.length - 1]!]!.label}.atom${this.created.length}`);
    const guard = this.guard;
    if (guard) this.emit('BRA', [], [{ k: 'label', block: cont }], 0, { v: guard.v, not: !guard.not });
    const loop = this.newBlock(`${this.created[this.layout[this.layout.length - 1]!]!.label}.cas${this.created.length}`);
    this.layout.push(loop);
    this.cur = this.created[loop]!.instrs;
    return { loop, cont };
  }

  /** Retries the loop while `done` is false, then continues in the continuation block. */
  closeCasLoop(loop: number, done: VReg, cont: number): void {
    this.emit('BRA', [], [{ k: 'label', block: loop }], 0, { v: done, not: true });
    this.layout.push(cont);
    this.cur = this.created[cont]!.instrs;
  }

  /**
   * f32 add on shared memory, which ATOMS lacks, as ptxas's compare-and-store loop: read the word, add
   * (flushing subnormals, as the atomic does), `ATOMS.CAST.SPIN ok, [a], old, new` (compare and new value in a
   * consecutive pair) stores when the word is still `old`; retry until it did. The result is the old value.
   */
  sharedAtomicAddF32(d: Operand | undefined, addr: Operand, val: Operand): void {
    const v = this.inReg(this.whole(val, { float: true }));
    const a = this.address(addr, false);
    const { loop, cont } = this.openCasLoop();
    const pair = this.newV('R', 2);
    const ok = this.newV('R', 1);
    const done = this.newV('P', 1);
    this.emit('LDS', [], [this.r(pair, 0), a], 1, undefined);
    this.emit('FADD', ['FTZ'], [this.r(pair, 1), this.r(pair, 0), v], 1, undefined);
    this.emit('ATOMS', ['CAST', 'SPIN'], [this.r(ok), a, this.r(pair, 0), this.r(pair, 1)], 1, undefined);
    this.emit('ISETP', ['EQ', 'U32', 'AND'], [this.r(done), PT(), this.r(ok), { k: 'int', v: 1 }, PT()], 2, undefined);
    this.closeCasLoop(loop, done, cont);
    // (red.shared.add.f32 has no destination: the loop alone is the reduction)
    if (d && d.kind === 'reg') this.emit('MOV', [], [this.def(d), this.r(pair, 0)], 1);
  }

  /**
   * f64 add on shared memory, as ptxas writes it (sm_90): read the double, `DADD`, then `ATOMS.CAST.SPIN.64 ok,
   * [a], old, new` (compare and new value in a register quad, the 64-bit result is 1 when it stored); retry until
   * it did. The result is the old value. (No FTZ here: DADD keeps f64 subnormals, as atom.add.f64 does.)
   */
  sharedAtomicAddF64(d: Operand | undefined, addr: Operand, val: Operand): void {
    const v = this.dsrc(val);
    const a = this.address(addr, false);
    const { loop, cont } = this.openCasLoop();
    const quad = this.newV('R', 4);
    const ok = this.newV('R', 2);
    const done = this.newV('P', 1);
    this.emit('LDS', ['64'], [this.r(quad, 0, 2), a], 1, undefined);
    this.emit('DADD', [], [this.r(quad, 2, 2), this.r(quad, 0, 2), v], 1, undefined);
    this.emit('ATOMS', ['CAST', 'SPIN', '64'], [this.r(ok, 0, 2), a, this.r(quad, 0, 2), this.r(quad, 2, 2)], 1, undefined);
    const lo = this.newV('P', 1);
    this.emit('ISETP', ['EQ', 'U32', 'AND'], [this.r(lo), PT(), this.r(ok, 0), { k: 'int', v: 1 }, PT()], 2, undefined);
    this.emit('ISETP', ['EQ', 'U32', 'AND', 'EX'], [this.r(done), PT(), this.r(ok, 1), c2rz(), PT(), this.r(lo)], 2, undefined);
    this.closeCasLoop(loop, done, cont);
    if (d && d.kind === 'reg') {
      this.emit('MOV', [], [this.def(d, 0), this.r(quad, 0)], 1);
      this.emit('MOV', [], [this.def(d, 1), this.r(quad, 1)], 1);
    }
  }

  /** A 64-bit integer source as a register pair (RZ stays RZ; a 32-bit register is zero-extended). */
  wide64(o: Operand): MOperand {
    if (o.kind === 'rz') return c2rz();
    if (o.kind === 'reg' && o.reg.width === 2) return this.whole(o);
    if (o.kind === 'reg' && o.reg.width === 1) {
      const t = this.newV('R', 2);
      this.emit('MOV', [], [this.r(t, 0), this.part(o, 0)], 1);
      this.emit('MOV', [], [this.r(t, 1), c2rz()], 1);
      return this.r(t, 0, 2);
    }
    return this.dsrc(o);
  }

  /** A source of an f64 operation: a register pair, or an f64 immediate in a register pair. */
  dsrc(o: Operand): MOperand {
    if (o.kind === 'reg') return this.whole(o);
    if (o.kind === 'cbank' && !o.index && o.offset % 8 === 0) {
      // a 64-bit constant-bank word: one LDC.64 (as ptxas), shared by the later uses in the same block when it
      // was loaded unguarded (constant banks do not change while a kernel runs)
      if (this.pairCacheBlock !== this.cur) {
        this.pairCache.clear();
        this.pairCacheBlock = this.cur;
      }
      const key = `${o.bank}:${o.offset}`;
      let t = this.pairCache.get(key);
      if (!t) {
        t = this.newV('R', 2);
        this.emit('LDC', ['64'], [this.r(t, 0, 2), { k: 'cbank', bank: o.bank, off: o.offset }], 1);
        if (!this.guard) this.pairCache.set(key, t);
      }
      return this.r(t, 0, 2);
    }
    if (o.kind === 'imm' || o.kind === 'cbank') {
      const t = this.newV('R', 2);
      this.emit('MOV', [], [this.r(t, 0), this.part(o, 0)], 1);
      this.emit('MOV', [], [this.r(t, 1), this.part(o, 1)], 1);
      return this.r(t, 0, 2);
    }
    if (o.kind === 'rz') return { k: 'reg', file: 'R', n: 255 };
    return this.fail(`f64 operand ${o.kind}`);
  }

  move(dst: Operand, src: Operand): void {
    if (dst.kind !== 'reg') {
      if (dst.kind === 'rz' || dst.kind === 'pt') return;
      this.fail('move to a non-register');
    }
    const dv = this.vOf(dst.reg);
    if (dv.file === 'P') {
      // predicate copy: PLOP3 with the LUT selecting input a (0xf0) or its complement
      if (src.kind === 'pt') return this.emit('PLOP3', ['LUT'], [this.r(dv), PT(), PT(), PT(), PT(), { k: 'int', v: src.not ? 0x00 : 0xff }, { k: 'int', v: 0 }], 2);
      if (src.kind !== 'reg') this.fail(`predicate move from ${src.kind}`);
      return this.emit('PLOP3', ['LUT'], [this.r(dv), PT(), this.r(this.vOf(src.reg)), PT(), PT(), { k: 'int', v: src.not ? 0x0f : 0xf0 }, { k: 'int', v: 0 }], 2);
    }
    if (src.kind === 'sreg') return this.s2r(dst, src);
    if (src.kind === 'sym' && dv.width === 2 && this.opts.data?.slots.has(src.name)) {
      // the address of a global variable straight from its bank-4 slot, as ptxas; a kernel of another object
      // (`.extern .entry`, a device-side launch) is an undefined symbol of the cubin like an extern function
      if (this.opts.data.externKernels?.has(src.name)) this.externSlot(src.name);
      return this.emit('LDC', ['64'], [this.r(dv, 0, 2), { k: 'cbank', bank: 4, off: 8 * this.opts.data.slots.get(src.name)! }], 1);
    }
    for (let p = 0; p < dv.width; p++) {
      let s: MOperand;
      if (src.kind === 'reg' && src.reg.width <= p) s = { k: 'reg', file: 'R', n: 255 };
      else s = this.part(src, p);
      const m = s as VRegOperand;
      if (m.k === 'vreg' && (m.neg || m.abs || m.not)) this.fail('move with an operand modifier');
      this.emit('MOV', [], [this.r(dv, p), s], 1);
    }
  }

  s2r(dst: Operand, src: Operand): void {
    if (src.kind !== 'sreg') this.fail('S2R source');
    const names: Record<string, string> = {
      SR_LANEMASK_EQ: 'SR_EQMASK', SR_LANEMASK_LT: 'SR_LTMASK', SR_LANEMASK_LE: 'SR_LEMASK', SR_LANEMASK_GT: 'SR_GTMASK', SR_LANEMASK_GE: 'SR_GEMASK',
    };
    if (src.name === 'SR_LWINBASE' && this.widthOf(dst) === 2) {
      // the generic address of local-window offset 0: ptxas reads it from c[0x0][0x20] (sm_80 and sm_90 alike)
      return this.emit('LDC', ['64'], [this.defWhole(dst), { k: 'cbank', bank: 0, off: 0x20 }], 1);
    }
    if (src.name === 'SR_SWINBASE' && this.widthOf(dst) === 2) {
      // the generic address of shared-window offset 0 as ptxas builds it on sm_90 (cvta.shared): the high word is
      // SR_SWINHI, the low word this CTA's rank in its cluster << 24 (the cluster shared window) plus the offset
      const d = (this.defWhole(dst) as VRegOperand).v;
      const rank = this.newV('R', 1);
      this.emit('S2R', [], [this.r(rank), { k: 'name', name: 'SR_CgaCtaId' }], 1);
      this.emit('SHF', ['L', 'U32'], [this.r(d, 0), this.r(rank), { k: 'int', v: 24 }, { k: 'reg', file: 'R', n: 255 }], 1);
      return this.emit('S2R', [], [this.r(d, 1), { k: 'name', name: 'SR_SWINHI' }], 1);
    }
    if ((src.name === 'SR_CLOCK64' || src.name === 'SR_GLOBALTIMER') && this.widthOf(dst) === 2) {
      // %clock64 / %globaltimer: ptxas reads the 64-bit counter with one `CS2R Rd, SR_CLOCKLO` (SR_GLOBALTIMERLO)
      // into a register pair
      return this.emit('CS2R', [], [this.defWhole(dst), { k: 'name', name: src.name === 'SR_CLOCK64' ? 'SR_CLOCKLO' : 'SR_GLOBALTIMERLO' }], 1);
    }
    if (this.widthOf(dst) !== 1) this.fail(`64-bit special register ${src.name}`);
    this.emit('S2R', [], [this.def(dst), { k: 'name', name: names[src.name] ?? src.name }], 1);
  }

  iadd3(ins: Instr): void {
    const [d, ...couts] = ins.defs;
    const w = this.widthOf(d);
    const x = ins.hasMod('X');
    // two or three immediate sources (the optimizer's `a - b` as `a + ~b + 1` with a constant a) have no encodable
    // form: without carries in or out only the sum matters, so they become one immediate (mod 2^(32 w))
    const u = !x && !couts.length ? foldImmediateSources(ins.uses, w) : ins.uses;
    const cins = x ? u.slice(3) : [];
    if (w === 1) {
      const ops: MOperand[] = [this.def(d)];
      const nd = 1 + couts.length;
      for (const c of couts) ops.push(this.def(c));
      ops.push(this.part(u[0]!, 0), this.part(u[1]!, 0), this.part(u[2]!, 0));
      if (x) {
        ops.push(cins[0] ? this.part(cins[0], 0) : PT(true), cins[1] ? this.part(cins[1], 0) : PT(true));
        // carry chains (add.cc/addc.cc): IADD3.X with carry outs, as ptxas writes `IADD3.X R11, P0, R6, R11, RZ, P0, !PT`
        if (couts.length > 1) this.fail('IADD3.X with two carry outs');
        return this.emit('IADD3', ['X'], ops, nd);
      }
      notToNeg(ops, 1 + couts.length);
      if (couts.length === 1) ops.splice(2, 0, PT());
      if (couts.length) return this.emit('IADD3', [], [ops[0]!, ...ops.slice(1, 3), ...ops.slice(3)], 3);
      return this.emit('IADD3', [], ops, 1);
    }
    if (w !== 2) this.fail('128-bit add');
    if (x || couts.length) this.fail('64-bit add with carries');
    // 64-bit: low halves produce up to two carries, the high halves add them (IADD3.X). A negated 64-bit
    // operand is -lo in the low half and ~hi in the high half (two's complement across the pair).
    const hiOf = (o: Operand): MOperand => {
      if (o.kind === 'reg' && o.neg) {
        const m = this.part({ ...o, neg: false }, 1) as VRegOperand;
        m.not = true;
        return m;
      }
      if (o.kind === 'reg' && o.reg.width === 1) return { k: 'reg', file: 'R', n: 255 };
      return this.part(o, 1);
    };
    const nonZero = u.filter((o) => !(o.kind === 'rz' || (o.kind === 'imm' && o.value === 0n)));
    const c0 = this.newV('P', 1);
    // a + b + c carries at most 1 out of the low words when one of them is at most 1 (a - b is a + ~b + 1)
    const small = u.some((o) => o.kind === 'rz' || (o.kind === 'imm' && BigInt.asUintN(32, o.value) <= 1n));
    const twoCarries = nonZero.length > 2 && !small;
    const c1 = twoCarries ? this.newV('P', 1) : undefined;
    const lo: MOperand[] = [this.def(d, 0), this.r(c0), c1 ? this.r(c1) : PT(), this.part(u[0]!, 0), this.part(u[1]!, 0), this.part(u[2]!, 0)];
    notToNeg(lo, 3);
    this.emit('IADD3', [], lo, 3);
    this.emit('IADD3', ['X'], [this.def(d, 1), hiOf(u[0]!), hiOf(u[1]!), hiOf(u[2]!), this.r(c0), c1 ? this.r(c1) : PT(true)], 1);
  }

  imad(ins: Instr): void {
    const d = ins.defs[0];
    const u = ins.uses;
    const a = u[0]!;
    const b = u[1]!;
    const c: Operand = ins.opcode === 'IMUL' ? { kind: 'rz' } : (u[2] ?? { kind: 'rz' });
    const mods = ins.mods;
    const w = this.widthOf(d);
    if (mods.includes('WIDE')) {
      const m = mods.includes('U32') ? ['WIDE', 'U32'] : ['WIDE'];
      // the addend is 64-bit: constants (immediates, constant-bank words) go into a register pair first
      return this.emit('IMAD', m, [this.defWhole(d), this.part(a, 0), this.part(b, 0), this.wide64(c)], 1);
    }
    if (mods.includes('HI') && w === 2) return this.mulHi64(ins);
    if (mods.includes('HI')) {
      if (w !== 1) this.fail('64-bit high product');
      const m = mods.includes('U32') ? ['HI', 'U32'] : ['HI'];
      return this.emit('IMAD', m, [this.def(d), this.part(a, 0), this.part(b, 0), this.part(c, 0)], 1);
    }
    if (w === 1) return this.emit('IMAD', [], [this.def(d), this.part(a, 0), this.part(b, 0), this.part(c, 0)], 1);
    if (w !== 2) this.fail('128-bit product');
    // 64 x 64 -> low 64: lo*lo wide (plus c), then the cross products into the high half
    const t = this.newV('R', 2);
    const hi1 = this.newV('R', 1);
    const ahi = a.kind === 'reg' && a.reg.width === 1 ? { k: 'reg', file: 'R', n: 255 } as MOperand : this.part(a, 1);
    const bhi = b.kind === 'reg' && b.reg.width === 1 ? { k: 'reg', file: 'R', n: 255 } as MOperand : this.part(b, 1);
    this.emit('IMAD', ['WIDE', 'U32'], [this.r(t, 0, 2), this.part(a, 0), this.part(b, 0), this.wide64(c)], 1);
    this.emit('IMAD', [], [this.r(hi1), this.part(a, 0), bhi, this.r(t, 1)], 1);
    this.emit('IMAD', [], [this.def(d, 1), ahi, this.part(b, 0), this.r(hi1)], 1);
    this.emit('MOV', [], [this.def(d, 0), this.r(t, 0)], 1);
  }

  lop3(ins: Instr): void {
    const d = ins.defs;
    const u = ins.uses;
    const w = this.widthOf(d[0]);
    const lut = u[3]!;
    if (lut.kind !== 'imm') this.fail('LOP3 with a non-immediate LUT');
    const withP = d.length > 1;
    if (withP && w !== 1) this.fail('64-bit LOP3 with a predicate result');
    for (let p = 0; p < w; p++) {
      const ops: MOperand[] = [];
      if (withP) ops.push(this.def(d[1]));
      ops.push(this.def(d[0], p), this.part(u[0]!, p), this.part(u[1]!, p), this.part(u[2]!, p), { k: 'int', v: u32(lut.value) & 0xff }, PT(true));
      this.emit('LOP3', ['LUT'], ops, withP ? 2 : 1);
    }
  }

  shift(ins: Instr): void {
    const d = ins.defs[0];
    const [a, s] = ins.uses as [Operand, Operand];
    const w = this.widthOf(d);
    const left = ins.opcode === 'SHL';
    const signed = ins.hasMod('S32') || ins.hasMod('S64');
    const amt = s.kind === 'imm' ? Number(BigInt.asUintN(32, s.value)) : undefined;
    const sOp = this.part(s, 0);
    const RZ = (): MOperand => ({ k: 'reg', file: 'R', n: 255 });
    if (w === 1) {
      if (amt !== undefined && amt >= 32) {
        if (left || !signed) return this.emit('MOV', [], [this.def(d), RZ()], 1);
        return this.emit('SHF', ['R', 'S32', 'HI'], [this.def(d), RZ(), { k: 'int', v: 31 }, this.part(a, 0)], 1);
      }
      if (left) return this.emit('SHF', ['L', 'U32'], [this.def(d), this.part(a, 0), sOp, RZ()], 1);
      return this.emit('SHF', ['R', signed ? 'S32' : 'U32', 'HI'], [this.def(d), RZ(), sOp, this.part(a, 0)], 1);
    }
    if (w !== 2) this.fail('128-bit shift');
    const alo = this.part(a, 0);
    const ahi = a.kind === 'reg' && a.reg.width === 1 ? RZ() : this.part(a, 1);
    // Funnel shifts on the pair; the amount clamps at 64 like PTX (shifts >= 64 give 0 or the sign).
    if (left) {
      this.emit('SHF', ['L', 'U64', 'HI'], [this.def(d, 1), alo, sOp, ahi], 1);
      if (amt !== undefined && amt < 32) return this.emit('SHF', ['L', 'U32'], [this.def(d, 0), alo, sOp, RZ()], 1);
      return this.emit('SHF', ['L', 'U64'], [this.def(d, 0), alo, sOp, ahi], 1);
    }
    // right: the low word needs the original high word, the high word is written last
    const lo = this.newV('R', 1);
    this.emit('SHF', ['R', signed ? 'S64' : 'U64'], [this.r(lo), alo, sOp, ahi], 1);
    this.emit('SHF', ['R', signed ? 'S32' : 'U32', 'HI'], [this.def(d, 1), RZ(), sOp, ahi], 1);
    this.emit('MOV', [], [this.def(d, 0), this.r(lo)], 1);
  }

  /**
   * 64-bit integer min/max, as ptxas: a < b from ISETP.LT.U32 on the low words chained into ISETP.LT(.U32).EX
   * on the high words, then one SEL per word. The selector is PT (minimum) or !PT (maximum), as IMNMX's.
   */
  minmax64(ins: Instr): void {
    const [a, b, p] = ins.uses;
    if (!a || !b || !p || p.kind !== 'pt') this.fail('64-bit min/max with a register selector');
    const unsigned = ins.mods.includes('U64') || ins.mods.includes('U32');
    const lo = this.newV('P', 1);
    const lt = this.newV('P', 1);
    this.emit('ISETP', ['LT', 'U32', 'AND'], [this.r(lo), PT(), this.part(a, 0), this.part(b, 0), PT()], 2);
    this.emit('ISETP', ['LT', ...(unsigned ? ['U32'] : []), 'AND', 'EX'], [this.r(lt), PT(), this.part(a, 1), this.part(b, 1), PT(), this.r(lo)], 2);
    // minimum: a where a < b; maximum: b where a < b
    const [x, y] = p.not ? [b, a] : [a, b];
    const d = ins.defs[0]!;
    for (let w = 0; w < 2; w++) this.emit('SEL', [], [this.def(d, w), this.part(x, w), this.part(y, w), this.r(lt)], 1);
  }

  /**
   * Warp shuffle: Ori `d[, p] = SHFL.mode a, b, c[, membermask]` → SASS `SHFL.mode Pd, Rd, Ra, b, c` (the
   * in-range predicate first, as ptxas). The member mask is not an operand of SHFL: a full-warp mask needs
   * nothing more; a partial one gets a WARPSYNC first.
   */
  shfl(ins: Instr): void {
    const mode = ins.mods.find((m) => m === 'IDX' || m === 'UP' || m === 'DOWN' || m === 'BFLY');
    if (!mode) this.fail('shuffle mode');
    const [a, b, c, mask] = ins.uses;
    if (!a || !b || !c) this.fail('shuffle operands');
    // a partial (or register) member mask: the named lanes first synchronize, `WARPSYNC Rmask` as ptxas writes it
    // (ptxas also checks the mask against the active lanes and traps; a bad mask is undefined behaviour in PTX)
    if (mask && !(mask.kind === 'imm' && u32(mask.value) === 0xffffffff)) this.warpsync(mask);
    const [rd, pd] = ins.defs;
    this.emit('SHFL', [mode], [pd ? this.def(pd) : PT(), this.def(rd), this.inReg(this.part(a, 0)), this.part(b, 0), this.part(c, 0)], 2);
  }

  /**
   * match.any.sync: `MATCH.ANY Rd, Ra` (`.U64` on a register pair), the lanes holding the same value; a partial
   * member mask synchronizes first, as for shfl. (MATCH.ALL, with its predicate result, has no sm_90 row yet.)
   */
  match(ins: Instr): void {
    if (!ins.mods.includes('ANY') || ins.defs.length !== 1) this.fail('match.all (MATCH.ALL)');
    const [a, mask] = ins.uses;
    if (!a) this.fail('match operands');
    if (mask) this.warpsync(mask);
    const wide = a.kind === 'reg' && a.reg.width === 2;
    this.emit('MATCH', ['ANY', ...(wide ? ['U64'] : [])], [this.def(ins.defs[0]), wide ? this.whole(a) : this.inReg(this.part(a, 0))], 1);
  }

  /**
   * redux.sync: `REDUX.<op>[.S32] URd, Ra` writes a uniform register (ptxas then moves it to a vector register),
   * .S32 only where signedness matters (sum bits are the same, ptxas still prints .S32 for add.s32).
   */
  redux(ins: Instr): void {
    const op = ins.mods.find((m) => ['SUM', 'MIN', 'MAX', 'AND', 'OR', 'XOR'].includes(m));
    if (!op) this.fail('warp reduction operation');
    const [a, mask] = ins.uses;
    if (!a) this.fail('warp reduction operands');
    if (mask) this.warpsync(mask);
    const signed = ins.mods.includes('S32') && (op === 'SUM' || op === 'MIN' || op === 'MAX');
    const u = this.newV('UR', 1);
    this.emit('REDUX', [op, ...(signed ? ['S32'] : [])], [this.r(u), this.inReg(this.part(a, 0))], 1);
    this.emit('IMAD', ['U32'], [this.def(ins.defs[0]), c2rz(), c2rz(), this.r(u)], 1);
  }

  /**
   * bar.red.{and,or}.pred / bar.red.popc: `BAR.RED.<op>.DEFER_BLOCKING id, Pin` then `B2R.RESULT Rd, Pd` reads the
   * reduction (ptxas: the predicate for .and/.or, the count for .popc); the Ori value is 0/1 or the count.
   */
  barRed(ins: Instr): void {
    const op = ins.mods.find((m) => m === 'AND' || m === 'OR' || m === 'POPC');
    if (!op || ins.defs.length !== 1 || ins.uses.length !== 2) this.fail('barrier reduction form (a thread count)');
    const [id, p] = ins.uses;
    if (id!.kind !== 'imm' || p!.kind !== 'reg') this.fail('barrier reduction with a register barrier id');
    const pin = this.part(p!, 0);
    this.emit('BAR', ['RED', ...(op === 'POPC' ? [] : [op]), 'DEFER_BLOCKING'], [{ k: 'int', v: Number(id!.value) }, pin], 0);
    if (op === 'POPC') return this.emit('B2R', ['RESULT'], [this.def(ins.defs[0]), PT()], 2);
    const q = this.newV('P', 1);
    this.emit('B2R', ['RESULT'], [c2rz(), this.r(q)], 2);
    this.emit('SEL', [], [this.def(ins.defs[0]), c2rz(), { k: 'int', v: 1 }, this.r(q, 0, 1, { not: true })], 1);
  }

  /**
   * griddepcontrol (Ori FENCE.GRIDDEP): `.wait` is `ACQBULK` (wait for the prerequisite grids' memory), and
   * `.launch_dependents` is `PREEXIT` (dependents may start), as ptxas writes them on sm_90.
   */
  fence(ins: Instr): void {
    const mods = ins.mods;
    if (mods.includes('PROXY') && mods.includes('ASYNC')) {
      // fence.proxy.async{.shared::cta}: ptxas's MEMBAR.ALL.{CTA,GPU} then FENCE.VIEW.ASYNC.S; .global is an
      // opcode (0x3c6) with no row yet
      if (mods.includes('GLOBAL')) this.fail('fence.proxy.async.global (FENCE opcode 0x3c6 has no sm_90 row)');
      this.emit('MEMBAR', ['ALL', mods.includes('SHARED') ? 'CTA' : 'GPU'], [], 0);
      return this.emit('FENCE', ['VIEW', 'ASYNC', 'S'], [], 0);
    }
    // fence.mbarrier_init.release.cluster: ptxas 13 writes nothing for it on sm_90
    if (mods.includes('MBARRIER_INIT')) return;
    if (!mods.includes('GRIDDEP')) this.fail('fence form');
    if (ins.mods.includes('WAIT')) return this.emit('ACQBULK', [], [], 0);
    if (ins.mods.includes('LAUNCH_DEPENDENTS')) return this.emit('PREEXIT', [], [], 0);
    this.fail('griddepcontrol form');
  }

  /** bar.warp.sync: nothing for the full warp (as ptxas: the lanes run in step), else `WARPSYNC Rmask`. */
  warpsync(mask: Operand): void {
    if (mask.kind === 'imm' && u32(mask.value) === 0xffffffff) return;
    const t = this.newV('R', 1);
    this.emit('MOV', [], [this.r(t), this.part(mask, 0)], 1);
    this.emit('WARPSYNC', [], [this.r(t)], 0);
  }

  isetp(ins: Instr): void {
    const d = ins.defs;
    const u = ins.uses;
    const mods = ins.mods;
    const cmp = mods.find((m) => ['EQ', 'NE', 'LT', 'LE', 'GT', 'GE'].includes(m));
    const comb = mods.find((m) => ['AND', 'OR', 'XOR'].includes(m)) ?? 'AND';
    const type = mods.find((m) => INT_TYPES.has(m)) ?? 'S32';
    if (!cmp) this.fail('compare without a condition');
    const q = d[1] ? this.def(d[1]) : PT();
    const c = u[2] ?? { kind: 'pt' as const };
    if (type === 'U32' || type === 'S32') {
      return this.emit('ISETP', [cmp, ...(type === 'U32' ? ['U32'] : []), comb], [this.def(d[0]), q, this.part(u[0]!, 0), this.part(u[1]!, 0), this.part(c, 0)], 2);
    }
    if (d[1] || comb !== 'AND' || c.kind !== 'pt' || c.not) this.fail('64-bit compare with a combine');
    // 64-bit: unsigned compare of the low words, then the high words with .EX chaining the low result
    const t = this.newV('P', 1);
    this.emit('ISETP', [cmp, 'U32', 'AND'], [this.r(t), PT(), this.part(u[0]!, 0), this.part(u[1]!, 0), PT()], 2);
    this.emit('ISETP', [cmp, ...(type === 'U64' ? ['U32'] : []), 'AND', 'EX'], [this.def(d[0]), PT(), this.part(u[0]!, 1), this.part(u[1]!, 1), PT(), this.r(t)], 2);
  }

  i2i(ins: Instr): void {
    const d = ins.defs[0]!;
    const a = ins.uses[0]!;
    const [dt, st] = ins.mods.filter((m) => INT_TYPES.has(m));
    const sat = ins.mods.includes('SAT');
    if (!dt || !st) this.fail('integer conversion without types');
    const dw = this.widthOf(d);
    const bitsOf = (t: string): number => Number(t.slice(1));
    const db = bitsOf(dt);
    const sb = bitsOf(st);
    const signedSrc = st.startsWith('S');
    const RZ = (): MOperand => ({ k: 'reg', file: 'R', n: 255 });
    if (sat && sb === 64) {
      if (dw !== 1) this.fail('saturating 64-bit to 64-bit conversion');
      return this.emit('MOV', [], [this.def(d, 0), this.clamp64(a, signedSrc, dt)], 1);
    }
    // the 32-bit result (low word)
    let lo: MOperand;
    const small = Math.min(db, sb);
    if (sat) {
      // the source read at its own width (extended from sb bits), then clamped to the destination's range
      let src = this.part(a, 0);
      if (sb < 32) {
        const t = this.newV('R', 1);
        if (signedSrc) this.emit('PRMT', [], [this.r(t), src, { k: 'int', v: sb === 8 ? 0x8880 : 0x9910 }, RZ()], 1);
        else this.emit('LOP3', ['LUT'], [this.r(t), src, { k: 'int', v: sb === 8 ? 0xff : 0xffff }, RZ(), { k: 'int', v: 0xc0 }, PT(true)], 1);
        src = this.r(t);
      }
      lo = this.clamp32(src, signedSrc, dt);
    } else if (small >= 32) lo = this.part(a, 0);
    else {
      // narrowing or widening through a sub-word type: extend from `small` bits by the source's (widening) or
      // the destination's signedness (narrowing: the value is written extended by the destination type)
      const signed = sb < db ? signedSrc : dt.startsWith('S');
      const t = this.newV('R', 1);
      if (signed) this.emit('PRMT', [], [this.r(t), this.part(a, 0), { k: 'int', v: small === 8 ? 0x8880 : 0x9910 }, RZ()], 1);
      else this.emit('LOP3', ['LUT'], [this.r(t), this.part(a, 0), { k: 'int', v: small === 8 ? 0xff : 0xffff }, RZ(), { k: 'int', v: 0xc0 }, PT(true)], 1);
      lo = this.r(t);
    }
    if (dw === 1) return this.emit('MOV', [], [this.def(d, 0), lo], 1);
    if (dw !== 2) this.fail('128-bit conversion');
    const signedExt = sat ? dt.startsWith('S') : db > sb ? signedSrc : dt.startsWith('S');
    if (db === 64 && sb === 64) {
      this.emit('MOV', [], [this.def(d, 0), this.part(a, 0)], 1);
      return this.emit('MOV', [], [this.def(d, 1), this.part(a, 1)], 1);
    }
    const loReg = this.inReg(lo);
    if (signedExt) this.emit('SHF', ['R', 'S32', 'HI'], [this.def(d, 1), RZ(), { k: 'int', v: 31 }, loReg], 1);
    else this.emit('MOV', [], [this.def(d, 1), RZ()], 1);
    this.emit('MOV', [], [this.def(d, 0), loReg], 1);
  }

  /** Range of an integer type as [lo, hi]. */
  static range(t: string): [bigint, bigint] {
    const b = BigInt(Number(t.slice(1)));
    return t.startsWith('S') ? [-(1n << (b - 1n)), (1n << (b - 1n)) - 1n] : [0n, (1n << b) - 1n];
  }

  /** Clamp a 32-bit value (signed or unsigned) to the range of `dt` with IMNMX (max then min), as a register. */
  clamp32(src: MOperand, signed: boolean, dt: string): MOperand {
    const [dlo, dhi] = Selector.range(dt);
    const [slo, shi] = signed ? [-(1n << 31n), (1n << 31n) - 1n] : [0n, (1n << 32n) - 1n];
    let cur = this.inReg(src);
    if (signed) {
      if (dlo > slo) {
        const t = this.newV('R', 1);
        this.emit('IMNMX', [], [this.r(t), cur, { k: 'int', v: u32(dlo) }, PT(true)], 1);
        cur = this.r(t);
      }
      // an unsigned destination wider than the positive half keeps every non-negative value
      if (dhi < shi) {
        const t = this.newV('R', 1);
        this.emit('IMNMX', [], [this.r(t), cur, { k: 'int', v: u32(dhi) }, PT()], 1);
        cur = this.r(t);
      }
      return cur;
    }
    // unsigned source: only the upper bound can bind (a signed destination's hi is below 2^31)
    if (dhi < shi) {
      const t = this.newV('R', 1);
      this.emit('IMNMX', ['U32'], [this.r(t), cur, { k: 'int', v: u32(dhi) }, PT()], 1);
      cur = this.r(t);
    }
    return cur;
  }

  /** Clamp a 64-bit value to the (at most 32-bit) range of `dt`: 64-bit compares (ISETP + ISETP.EX) and SELs. */
  clamp64(a: Operand, signed: boolean, dt: string): MOperand {
    const [dlo, dhi] = Selector.range(dt);
    const ahi = a.kind === 'reg' && a.reg.width === 1 ? c2rz() : this.part(a, 1);
    const alo = this.part(a, 0);
    const cmp = (c: string, k: bigint): VReg => {
      const lt = this.newV('P', 1);
      const p = this.newV('P', 1);
      this.emit('ISETP', [c, 'U32', 'AND'], [this.r(lt), PT(), alo, { k: 'int', v: u32(k) }, PT()], 2);
      this.emit('ISETP', [c, ...(signed ? [] : ['U32']), 'AND', 'EX'], [this.r(p), PT(), ahi, { k: 'int', v: u32(k >> 32n) }, PT(), this.r(lt)], 2);
      return p;
    };
    let cur: MOperand = this.inReg(alo);
    if (signed || dlo > 0n) {
      const below = cmp('LT', dlo);
      const t = this.newV('R', 1);
      this.emit('SEL', [], [this.r(t), cur, { k: 'int', v: u32(dlo) }, { ...this.r(below), not: true }], 1);
      cur = this.r(t);
    }
    const above = cmp('GT', dhi);
    const t = this.newV('R', 1);
    this.emit('SEL', [], [this.r(t), cur, { k: 'int', v: u32(dhi) }, { ...this.r(above), not: true }], 1);
    return this.r(t);
  }

  convert(ins: Instr): void {
    const d = ins.defs[0]!;
    const a = ins.uses[0]!;
    const op = ins.opcode;
    const types = ins.mods.filter((m) => /^[FSU](8|16|32|64)$|^BF16$|^E4M3$|^E5M2$/.test(m));
    const rest = ins.mods.filter((m) => !types.includes(m));
    const [dt, st] = types;
    if (!dt || !st) this.fail('conversion without types');
    if (op === 'F2F' && dt === 'BF16' && st === 'F32' && !rest.some((m) => m !== 'RN')) {
      // f32 -> bf16 (round to nearest even) as ptxas: F2FP.BF16.F32.PACK_AB with RZ for the high half
      return this.emit('F2FP', ['BF16', 'F32', 'PACK_AB'], [this.def(d), c2rz(), this.inReg(this.whole(a, { float: true }))], 1);
    }
    if (op === 'F2F' && st === 'BF16' && (dt === 'F32' || dt === 'F64') && rest.length === 0) {
      // bf16 -> f32 is exact, the bits shifted up (ptxas: SHF.L.U32 d, a, 0x10, RZ); -> f64 through that f32 (exact)
      if (dt === 'F32') return this.emit('SHF', ['L', 'U32'], [this.def(d), this.inReg(this.part(a, 0)), { k: 'int', v: 16 }, c2rz()], 1);
      const t = this.newV('R', 1);
      this.emit('SHF', ['L', 'U32'], [this.r(t), this.inReg(this.part(a, 0)), { k: 'int', v: 16 }, c2rz()], 1);
      return this.emit('F2F', ['F64', 'F32'], [this.defWhole(d), this.r(t)], 1);
    }
    if (op === 'I2F' && dt === 'F64' && st === 'U32' && !rest.some((m) => m !== 'RN')) {
      // the encoder has I2F.F64 from S32 and from 64-bit sources only: zero-extend (exact either way)
      const w = this.newV('R', 2);
      this.emit('MOV', [], [this.r(w, 0), this.part(a, 0)], 1);
      this.emit('MOV', [], [this.r(w, 1), c2rz()], 1);
      return this.emit('I2F', ['F64', 'U64'], [this.defWhole(d), this.r(w, 0, 2)], 1);
    }
    if (op === 'F2F' && (FP8[dt] || FP8[st]) && !rest.some((m) => m !== 'RN' && m !== 'SATFINITE')) return this.fp8Convert(d, a, dt, st, rest.includes('SATFINITE'));
    if (op === 'F2F' && dt === 'F32' && st === 'F32' && rest.includes('SAT') && !rest.some((m) => !['SAT', 'FTZ', 'RN'].includes(m))) {
      // cvt.sat.f32.f32 (clamp to [0, 1], NaN to 0): ptxas writes `FADD.SAT d, RZ, a` (no F2F.F32.F32 form)
      return this.emit('FADD', rest.includes('FTZ') ? ['FTZ', 'SAT'] : ['SAT'], [this.def(d), c2rz(), this.whole(a, { float: true })], 1);
    }
    if (types.some((t) => t === 'E4M3' || t === 'E5M2' || t === 'BF16')) this.fail('fp8/bf16 conversion');
    let mods: string[];
    if (op === 'I2F') mods = [...(dt === 'F32' ? [] : [dt]), ...(st === 'S32' ? [] : [st]), ...rest.filter((m) => m !== 'RN')];
    else if (op === 'F2I') mods = [...(dt === 'S32' ? [] : [dt]), ...(st === 'F32' ? [] : [st]), ...(rest.some((m) => ['TRUNC', 'FLOOR', 'CEIL', 'RN', 'RZ', 'RM', 'RP'].includes(m)) ? rest : ['TRUNC', ...rest]), 'NTZ'];
    else mods = [dt, st, ...rest.filter((m) => m !== 'RN')];
    // RN is F2I's default rounding and not spelled (`F2I.U32.NTZ`)
    if (op === 'F2I') mods = mods.filter((m, i) => mods.indexOf(m) === i && m !== 'RN');
    // the 64-bit F2I forms (an f64 source or a 64-bit result) have no NTZ bit; NaN gives 0 without it as well
    if (op === 'F2I' && (dt.endsWith('64') || st === 'F64')) mods = mods.filter((m) => m !== 'NTZ');
    if (op === 'F2I' && /^[SU](8|16)$/.test(dt)) {
      // sub-word results: convert at 32 bits (saturating to that range), then clamp to the type's range
      const wide = dt.startsWith('S') ? 'S32' : 'U32';
      const t = this.newV('R', 1);
      this.emit('F2I', mods.map((m) => (m === dt ? wide : m)).filter((m) => m !== 'S32'), [this.r(t), this.whole(a)], 1);
      return this.emit('MOV', [], [this.def(d), this.clamp32(this.r(t), dt.startsWith('S'), dt)], 1);
    }
    if (op === 'F2F' && st === 'F32' && dt === 'F64' && mods.includes('FTZ')) {
      // f32 -> f64 with FTZ: flush the source (x * 1 with FTZ keeps every value, -0 and NaNs included, but subnormals), then widen
      const t = this.newV('R', 1);
      this.emit('FMUL', ['FTZ'], [this.r(t), this.whole(a), { k: 'float', v: 1 }], 1);
      return this.emit(op, mods.filter((m) => m !== 'FTZ'), [this.defWhole(d), this.r(t)], 1);
    }
    this.emit(op, mods, [this.defWhole(d), this.whole(a)], 1);
  }

  address(o: Operand, wide: boolean): MOperand {
    if (o.kind !== 'mem') this.fail('memory operand expected');
    let off = o.offset;
    if (o.sym && this.locals.has(o.sym)) {
      if (o.base) this.fail(`indexed access to the local variable ${o.sym}`);
      return { k: 'vmem', wide: false, off: off + this.locals.get(o.sym)!, stack: true };
    }
    if (o.sym) {
      const g = this.globalAddress(o.sym);
      if (g) {
        if (!wide) this.fail(`${o.sym} (device memory) addressed in another state space`);
        if (!o.base) return { k: 'vmem', base: g, wide, off, desc: true };
        if (o.base.width !== 2) this.fail('32-bit base of a 64-bit address');
        // [base + var + off]: the 64-bit sum of the register and the variable's address
        const b = this.vOf(o.base);
        const t = this.newV('R', 2);
        const c = this.newV('P', 1);
        this.emit('IADD3', [], [this.r(t, 0), this.r(c), PT(), this.r(b, 0), this.r(g, 0), c2rz()], 3);
        this.emit('IADD3', ['X'], [this.r(t, 1), this.r(b, 1), this.r(g, 1), c2rz(), this.r(c), PT(true)], 1);
        return { k: 'vmem', base: t, wide, off, desc: true };
      }
      const s = this.shared.get(o.sym);
      if (s === undefined) this.fail(`address of ${o.sym}`);
      off += s;
    }
    if (o.base && wide && o.base.width !== 2) this.fail('32-bit base of a 64-bit address');
    return { k: 'vmem', ...(o.base ? { base: this.vOf(o.base) } : {}), wide, off, ...(wide ? { desc: true } : {}) };
  }

  memMods(mods: readonly string[], op = ''): string[] {
    // shared memory has no scopes or strength: ld/st.volatile.shared are plain LDS/STS in ptxas's code
    if (op === 'LDS' || op === 'STS') return mods.filter((m) => m !== '32' && !SHARED_DROPPED_MODS.has(m));
    // the CTA scope prints as STRONG.SM (ptxas: `LD.E.STRONG.SM` for ld.relaxed/acquire.cta)
    return mods.filter((m) => m !== '32').map((m) => (m === 'CTA' ? 'SM' : m));
  }

  load(ins: Instr): void {
    const op = ins.opcode;
    const a = ins.uses[0]!;
    const c3 = a.kind === 'mem' && a.sym && !a.base ? this.opts.data?.bank3.get(a.sym) : undefined;
    if (c3 !== undefined && a.kind === 'mem' && op === 'LDG' && ins.mods.includes('CONSTANT')) {
      // ld.const [var+imm] of a variable in constant bank 3: LDC c[0x3][off] (the width as LDC spells it)
      const size = ins.mods.find((m) => /^[SU](8|16)$|^(32|64|128)$/.test(m)) ?? '32';
      if (size === '128') this.fail('128-bit constant load');
      return this.emit('LDC', size === '32' ? [] : [size], [this.defWhole(ins.defs[0]), { k: 'cbank', bank: 3, off: c3 + a.offset }], 1);
    }
    const wide = op === 'LD' || op === 'LDG';
    if (wide) this.usesGlobal = true;
    const mods = this.memMods(ins.mods, op);
    if (ins.mods.includes('128')) this.fail('128-bit access');
    return this.emit(op, mods, [this.defWhole(ins.defs[0]), this.address(ins.uses[0]!, wide)], 1);
  }

  store(ins: Instr): void {
    const op = ins.opcode;
    const wide = op === 'ST' || op === 'STG';
    if (wide) this.usesGlobal = true;
    if (ins.mods.includes('128')) this.fail('128-bit access');
    const v = ins.uses[1]!;
    const val = v.kind === 'reg' ? this.whole(v) : this.inReg(this.part(v, 0));
    if (v.kind !== 'reg' && (ins.mods.includes('64'))) this.fail('64-bit store of a constant');
    return this.emit(op, this.memMods(ins.mods, op), [this.address(ins.uses[0]!, wide), val], 0);
  }
}

/**
 * The adder of a plain IADD3 negates (-x = ~x + 1) but has no bitwise-not form: `a + ~b + k` is written
 * `a + -b + (k - 1)` with an immediate k (the sum, and so the carry out, is the same).
 */
function notToNeg(ops: MOperand[], first: number): void {
  const srcs = [first, first + 1, first + 2];
  for (const i of srcs) {
    const o = ops[i] as VRegOperand;
    if (o.k !== 'vreg' || !o.not) continue;
    const k = srcs.find((j) => (ops[j] as SassOperand).k === 'int') ?? srcs.find((j) => (ops[j] as SassOperand).k === 'reg' && (ops[j] as { n: number }).n === 255);
    if (k === undefined) return;
    const old = ops[k] as SassOperand;
    const v = old.k === 'int' ? (old.v - 1) >>> 0 : 0xffffffff;
    ops[k] = v === 0 ? { k: 'reg', file: 'R', n: 255 } : { k: 'int', v };
    ops[i] = { ...o, not: false, neg: true };
  }
}

function PT(not = false): MOperand {
  return { k: 'reg', file: 'P', n: 7, ...(not ? { not: true } : {}) };
}
function c2rz(): MOperand {
  return { k: 'reg', file: 'R', n: 255 };
}

/**
 * Shared variables a function may reach, laid out in declaration order (module ones first) with their alignment,
 * from `base`: the system reserve at the start of the CTA's shared window on targets that have one (sm_90: 1 KB;
 * ptxas addresses the first variable at 0x400). `bytes` is the static size without the reserve; `uses` says
 * whether the function has any shared variable (static or `.extern`).
 */
export function sharedLayout(m: OriModule, fn: OriFunction, base = 0): { offsets: Map<string, number>; bytes: number; uses: boolean } {
  const offsets = new Map<string, number>();
  let at = base;
  const place = (v: VarDecl): void => {
    if (v.space !== 'shared' || v.extern) return;
    const a = Math.max(1, v.align);
    at = Math.ceil(at / a) * a;
    offsets.set(v.name, at);
    at += v.size;
  };
  for (const v of m.vars) place(v);
  for (const v of fn.vars) place(v);
  // `.extern .shared` arrays (dynamic shared memory) all start where the static allocation ends

  for (const v of [...m.vars, ...fn.vars]) {
    if (v.space !== 'shared' || !v.extern) continue;
    const a = Math.max(1, v.align);
    const off = Math.ceil(at / a) * a;
    offsets.set(v.name, off);
  }
  const uses = [...m.vars, ...fn.vars].some((v) => v.space === 'shared');
  return { offsets, bytes: at - base, uses };
}

/** Select one function of an optimized module. */
export function selectFunction(m: OriModule, fn: OriFunction, opts: SelectOptions): MFunction {
  if (!opts.data && [m.vars, fn.vars].some((vs) => vs.some((v) => v.space === 'global' || v.space === 'const'))) {
    throw new CodegenError('CODEGEN_BAD_INPUT', `${fn.name}: the module has .global/.const variables but no data placement was given`);
  }
  const { offsets, bytes, uses } = sharedLayout(m, fn, opts.sharedBase ?? 0);
  // `.local` variables at the bottom of the stack frame ([R1 + offset]); spill slots go above them
  const locals = new Map<string, number>();
  let localBytes = 0;
  for (const v of fn.vars) {
    if (v.space !== 'local') continue;
    const a = Math.max(1, v.align);
    localBytes = Math.ceil(localBytes / a) * a;
    locals.set(v.name, localBytes);
    localBytes += v.size;
  }
  localBytes = Math.ceil(localBytes / 8) * 8;
  const s = new Selector(m, fn, offsets, opts, locals);
  const { blocks } = s.run();
  const params: MParam[] = [];
  let paramBytes = 0;
  for (const p of fn.params) {
    if (!p.cbank) continue;
    const off = p.cbank.offset - opts.paramBase;
    const size = paramSize(p.type) * Math.max(1, p.count);
    params.push({ name: p.name, offset: off, size, align: p.align ?? paramSize(p.type) });
    paramBytes = Math.max(paramBytes, off + size);
  }
  return {
    name: fn.name, kind: fn.kind, blocks, vregs: s.vregs, params, paramBase: opts.paramBase, paramBytes,
    sharedBytes: bytes, usesShared: uses, frameBytes: localBytes, localBytes, usesGlobalDesc: s.usesGlobal, jumpTables: s.jumpTables, directives: fn.directives,
    ...(s.externs.length ? { externs: s.externs } : {}),
  };
}

function paramSize(type: string): number {
  const m = /(\d+)$/.exec(type);
  if (!m) return 1;
  const bits = Number(m[1]);
  return type === '.pred' ? 1 : Math.max(1, bits / 8);
}

/** The scope token of a global/generic atomic: .cta prints as STRONG.SM (the scope field's pattern LD names so). */
function atomicScope(mods: readonly string[]): 'SM' | 'SYS' | 'GPU' {
  return mods.includes('CTA') ? 'SM' : mods.includes('SYS') ? 'SYS' : 'GPU';
}

/** IADD3's sources with every immediate summed into the first one (mod 2^(32 w)) and the others read as RZ. */
function foldImmediateSources(u: readonly Operand[], w: number): readonly Operand[] {
  let n = 0;
  for (let i = 0; i < 3; i++) if (u[i]?.kind === 'imm') n++;
  if (n < 2) return u;
  let sum = 0n;
  for (let i = 0; i < 3; i++) {
    const o = u[i];
    if (o?.kind === 'imm') sum += o.value;
  }
  const out = [...u];
  let first = true;
  for (let i = 0; i < 3; i++) {
    if (out[i]?.kind !== 'imm') continue;
    out[i] = first ? { kind: 'imm', value: BigInt.asUintN(32 * w, sum), fmt: 'hex' } : { kind: 'rz' };
    first = false;
  }
  return out;
}

