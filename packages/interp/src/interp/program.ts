/**
 * Pre-decoding of a module for one launch: every function's instructions become `Op`s in one flat code array,
 * operands resolved to register-file slots, constants materialised into constant slots, and each ALU
 * instruction compiled into a closure that executes it for all active lanes of a warp. Decoding is read-only
 * on the IR (the verify-each instrumentation runs it between phases).
 */
import {
  computePostDominators, printInstr,
  type Block, type Instr, type Operand, type OriFunction, type OriModule, type Register, type VarDecl,
} from '@ptxforge/kernel';
import { describeInstr, evaluatePure, PURE_OPCODES, type PureInstr, type PureValue } from '@ptxforge/semantics';
import { Trap } from './errors.js';
import { buildFastPath } from './fastpaths.js';
import { buildDriverCall } from './driver-calls.js';
import { buildMemoryOp, buildWarpOp } from './memops.js';
import { buildTextureOp } from './texops.js';
import { buildSyncsOp } from './mbarrier.js';
import type { ResourceObject } from './texture.js';
import type { Warp } from './warp.js';

export const enum K {
  ALU = 0,
  FALL,
  BRA,
  BRX,
  EXIT,
  RET,
  CALL,
  BSYNC,
  BAR,
  PHIS,
  NOP,
}

/** Reconvergence point: pc of the immediate post-dominator's first op, or one of these. */
export const RPC_NONE = -1;
/** The ipdom is the function's exit: reconverge at the caller's continuation (or never, in the kernel). */
export const RPC_RETURN = -2;

export type Exec = (w: Warp, m: number) => void;

/** A data source a generic op reads per lane. */
export type Src =
  | { readonly t: 'reg'; readonly slot: number; readonly n: number }
  | { readonly t: 'pred'; readonly slot: number }
  | { readonly t: 'const'; readonly v: PureValue }
  | { readonly t: 'sreg'; readonly name: string }
  | { readonly t: 'cbidx'; readonly bank: number; readonly offset: number; readonly slot: number; readonly bytes: number };

/** A def target: data slots, a predicate slot, or nothing (RZ / PT). */
export type Dst = { readonly t: 'reg'; readonly slot: number; readonly n: number } | { readonly t: 'pred'; readonly slot: number } | { readonly t: 'none' };

export interface Op {
  k: K;
  readonly instr: Instr | undefined;
  readonly fn: OriFunction;
  readonly block: Block;
  readonly blockId: number;
  /** Opcode index into Program.opcodes (counts). */
  readonly opId: number;
  guard: number;
  guardNot: boolean;
  exec: Exec | undefined;
  /** R slots that must be written in every active lane before this op runs. */
  checkR: number[];
  checkP: number[];
  target: number;
  targets: number[];
  rpc: number;
  /** BRX index source slot; BSYNC barrier slot; BAR: see bar. */
  slot: number;
  /** BRX.TABLE: the register is a byte offset into the table of 4-byte entries (index * 4). */
  brxTable?: boolean;
  call?: CallInfo;
  ret?: Src[];
  bar?: BarInfo;
  /**
   * SEL d, a, b, p: R slots of a and b (-1 when not a register) and the predicate slot. Only the operand a lane
   * selects must be written in it (predication turns `if (p) x = load; y = p ? c : x` into a SEL that reads x in
   * lanes whose predicated load did not run, and ignores it there), so a and b are checked per lane, not in checkR.
   */
  sel?: { a: number; b: number; p: number; not: boolean };
  phis?: PhiInfo[];
  /** Ori text of the instruction (for error reports). */
  text: string;
}

export interface CallInfo {
  readonly callee: OriFunction;
  readonly entry: number;
  readonly args: Src[];
  readonly params: Dst[];
  readonly results: Dst[];
}
export interface BarInfo {
  readonly mode: 'SYNC' | 'ARV' | 'RED';
  readonly red?: 'POPC' | 'AND' | 'OR';
  readonly id: Src;
  readonly count: Src | undefined;
  readonly pred: Src | undefined;
  readonly dst: Dst;
}
export interface PhiInfo {
  readonly dst: Dst;
  readonly byPred: Map<number, Src>;
}

/**
 * A name that is no variable: the front end lets only kernels through (`mov.u64 %rd, kernel` for a device-side
 * launch, also of another object's `.extern .entry` kernel). Its value is an opaque function descriptor that
 * nothing in the interpreter can launch (the device runtime's launch functions are refused with their reason);
 * it is derived from the name (FNV-1a) so it is the same in every run and after every phase, outside every
 * allocation and 16-byte aligned.
 */
function kernelDescriptor(name: string): SymInfo {
  let h = 0x811c9dc5;
  for (let k = 0; k < name.length; k++) h = Math.imul(h ^ name.charCodeAt(k), 0x01000193) >>> 0;
  return { space: 'global', address: 0x7f0000000000 + h * 16 };
}

export interface SymInfo {
  readonly space: VarDecl['space'];
  /** Global address (global/const) or window offset (shared/local). */
  readonly address: number;
}

export interface LaunchLayout {
  readonly grid: readonly [number, number, number];
  readonly block: readonly [number, number, number];
  /** Constant banks by number. */
  readonly banks: ReadonlyMap<number, Uint8Array>;
  readonly syms: ReadonlyMap<string, SymInfo>;
  /** Per-function symbol overrides (function-scoped variables). */
  readonly fnSyms: ReadonlyMap<OriFunction, ReadonlyMap<string, SymInfo>>;
  readonly sharedSize: number;
  readonly localSize: number;
  /** Texture and surface objects by handle (texture.ts). */
  readonly resources?: ReadonlyMap<bigint, ResourceObject>;
}

export interface ProgramOptions {
  /** Use the specialised fast closures (default true); false runs everything through evaluatePure. */
  readonly fastPaths?: boolean;
  /**
   * Physical register files (code lifted from SASS): a register's slots come from its number, so `%rd2` is the
   * pair `%r2`, `%r3` and every function shares one register file (see `physicalSlotOf`).
   */
  readonly physicalRegisters?: boolean;
}

/** Data slots of the physical register files: R0..R254 at 0.., UR0..UR62 at 256.., B0..B15 at 320.., temporaries
 *  (numbers >= 1000 of any width, e.g. `%rd1004`) at 400 + (n - 1000). A program allocates the slots its registers
 *  reach, at most this many. */
export const PHYSICAL_DATA_SLOTS = 400 + 4096;
/** Predicate slots: PT = 0, P0..P6 = 1..7, UP0..UP6 = 8..14. */
export const PHYSICAL_PRED_SLOTS = 15;

/**
 * The slot of a register of lifted SASS, from its name: `%r5`/`%rd4`/`%rq8` are R5, R4:R5, R8..R11; `%ur4`/`%urd4`
 * uniform; `%p0`, `%up0`, `%b0`; numbers from 1000 are the lifter's temporaries.
 */
export function physicalSlotOf(r: Register): number {
  const m = /(\d+)$/.exec(r.name);
  const n = m ? Number(m[1]) : 0;
  switch (r.cls) {
    case 'P':
      return 1 + (n % 7);
    case 'UP':
      return 8 + (n % 7);
    case 'B':
      return 320 + (n % 16);
    case 'UR':
      return n >= 1000 ? 400 + (n - 1000) : 256 + (n % 64);
    default:
      return n >= 1000 ? 400 + (n - 1000) : n % 256;
  }
}

/** The register file layout: data slots (Uint32 per lane) and predicate slots (lane bitmasks). */
/**
 * The kernel and the functions it may reach: callees named by CALL, functions whose name any operand takes,
 * transitively (a worklist, no recursion). A call through a register may reach any function: then all of
 * them. (A module of 200 kernels runs one kernel without decoding the other 199: verify-each runs each
 * kernel after every phase that changed it.)
 */
function reachableFunctions(module: OriModule, kernel: OriFunction): OriFunction[] {
  const seen = new Set<OriFunction>([kernel]);
  const out: OriFunction[] = [kernel];
  for (let k = 0; k < out.length; k++) {
    for (const b of out[k]!.blocks) {
      for (const i of b.instrs) {
        if (i.opcode === 'CALL' && i.uses[0]?.kind !== 'sym') return [kernel, ...module.functions.filter((f) => f !== kernel)];
        for (const u of i.uses) {
          if (u.kind !== 'sym') continue;
          const f = module.getFunction(u.name);
          if (f && !seen.has(f)) {
            seen.add(f);
            out.push(f);
          }
        }
      }
    }
  }
  // module order after the kernel (the code layout stays the one the whole-module decode gave)
  const rank = new Map<OriFunction, number>();
  module.functions.forEach((f, n) => rank.set(f, n));
  return [kernel, ...out.slice(1).sort((a, b) => rank.get(a)! - rank.get(b)!)];
}

export class Program {
  readonly code: Op[] = [];
  readonly opcodes: string[] = [];
  private readonly opcodeIds = new Map<string, number>();
  readonly blockNames: string[] = [];
  readonly entryPc: number;
  nslots = 0;
  npslots = 1; // pslot 0 is PT (all lanes true)
  readonly regSlot = new Map<Register, number>();
  readonly predSlot = new Map<Register, number>();
  /** Constant data slots: slot -> 32-bit value (same in all lanes). */
  readonly constInit: Array<[number, number]> = [];
  private readonly constSlots = new Map<bigint, number>();
  readonly fnEntry = new Map<OriFunction, number>();
  readonly fastPaths: boolean;

  constructor(
    readonly module: OriModule,
    readonly kernel: OriFunction,
    readonly layout: LaunchLayout,
    opts: ProgramOptions = {},
  ) {
    this.fastPaths = opts.fastPaths !== false;
    // The kernel first, then the functions it may call, each decoded once.
    const fns = reachableFunctions(module, kernel);
    if (opts.physicalRegisters) for (const f of fns) this.allocPhysical(f);
    else for (const f of fns) this.allocRegs(f);
    const blockStart = new Map<Block, number>();
    const pending: Array<() => void> = [];
    for (const f of fns) this.layoutFn(f, blockStart, pending);
    for (const p of pending) p();
    this.entryPc = this.fnEntry.get(kernel)!;
  }

  private allocPhysical(fn: OriFunction): void {
    // only as many data slots as the registers used reach (every warp allocates nslots x 32 lanes)
    this.npslots = Math.max(this.npslots, PHYSICAL_PRED_SLOTS);
    for (const r of fn.registers) {
      const s = physicalSlotOf(r);
      if (r.cls === 'P' || r.cls === 'UP') this.predSlot.set(r, s);
      else {
        this.regSlot.set(r, s);
        this.nslots = Math.max(this.nslots, s + r.width);
      }
    }
  }

  private allocRegs(fn: OriFunction): void {
    for (const r of fn.registers) {
      if (r.cls === 'P' || r.cls === 'UP') this.predSlot.set(r, this.npslots++);
      else {
        this.regSlot.set(r, this.nslots);
        this.nslots += r.width;
      }
    }
  }

  opcodeId(name: string): number {
    let id = this.opcodeIds.get(name);
    if (id === undefined) {
      id = this.opcodes.length;
      this.opcodes.push(name);
      this.opcodeIds.set(name, id);
    }
    return id;
  }

  /** Slot pair (lo, hi) holding the 64-bit sign-extended constant in every lane. */
  constSlot(v: bigint): number {
    const key = BigInt.asUintN(64, v);
    let s = this.constSlots.get(key);
    if (s === undefined) {
      s = this.nslots;
      this.nslots += 2;
      this.constInit.push([s, Number(key & 0xffffffffn)], [s + 1, Number(key >> 32n)]);
      this.constSlots.set(key, s);
    }
    return s;
  }

  sym(fn: OriFunction, name: string): SymInfo {
    const s = this.layout.fnSyms.get(fn)?.get(name) ?? this.layout.syms.get(name) ?? kernelDescriptor(name);
    return s;
  }

  cbankValue(bank: number, offset: number, bytes: number): bigint {
    const b = this.layout.banks.get(bank);
    let v = 0n;
    for (let k = bytes - 1; k >= 0; k--) v = (v << 8n) | BigInt(b && offset + k < b.length ? b[offset + k]! : 0);
    return v;
  }

  /** A use as a per-lane source. */
  src(fn: OriFunction, o: Operand): Src {
    switch (o.kind) {
      case 'reg':
        if (o.reg.cls === 'P' || o.reg.cls === 'UP') return { t: 'pred', slot: this.predSlot.get(o.reg)! };
        return { t: 'reg', slot: this.regSlot.get(o.reg)!, n: o.reg.width };
      case 'rz':
        return { t: 'const', v: 0n };
      case 'pt':
        return { t: 'const', v: true };
      case 'imm':
        return { t: 'const', v: o.value };
      case 'cbank':
        if (o.index) return { t: 'cbidx', bank: o.bank, offset: o.offset, slot: this.regSlot.get(o.index)!, bytes: 8 };
        return { t: 'const', v: this.cbankValue(o.bank, o.offset, 8) };
      case 'sym': {
        const s = this.layout.fnSyms.get(fn)?.get(o.name) ?? this.layout.syms.get(o.name) ?? kernelDescriptor(o.name);
        return { t: 'const', v: BigInt(s.address) };
      }
      case 'sreg':
        return { t: 'sreg', name: o.name };
      default:
        return { t: 'const', v: 0n };
    }
  }

  dst(o: Operand): Dst {
    if (o.kind !== 'reg') return { t: 'none' };
    if (o.reg.cls === 'P' || o.reg.cls === 'UP') return { t: 'pred', slot: this.predSlot.get(o.reg)! };
    return { t: 'reg', slot: this.regSlot.get(o.reg)!, n: o.reg.width };
  }

  private layoutFn(fn: OriFunction, blockStart: Map<Block, number>, pending: Array<() => void>): void {
    const pdom = computePostDominators(fn);
    this.fnEntry.set(fn, this.code.length);
    const blocks = fn.blocks;
    const firstIds = this.blockNames.length;
    for (const b of blocks) this.blockNames.push(`${fn.name}:${b.label}`);
    const blockId = (b: Block): number => firstIds + b.index;
    const fixups: Array<(start: Map<Block, number>) => void> = [];
    for (let bi = 0; bi < blocks.length; bi++) {
      const b = blocks[bi]!;
      blockStart.set(b, this.code.length);
      const id = firstIds + bi;
      const phis = b.instrs.filter((i) => i.opcode === 'PHI');
      if (phis.length) this.code.push(this.phiOp(fn, b, id, phis, blockId));
      for (const i of b.instrs) {
        if (i.opcode === 'PHI') continue;
        const op = this.decode(fn, b, id, i);
        const ipdom = pdom.idom.get(b);
        if (op.k === K.BRA || op.k === K.BRX) {
          fixups.push((start) => {
            op.rpc = ipdom ? start.get(ipdom)! : RPC_RETURN;
            if (op.k === K.BRA) {
              const l = i.uses[0];
              op.target = l?.kind === 'label' ? start.get(l.block)! : RPC_NONE;
            } else {
              const l = i.uses[1];
              op.targets = l?.kind === 'labels' ? l.blocks.map((x) => start.get(x)!) : [];
            }
          });
        }
        this.code.push(op);
      }
      if (b.fallsThrough) {
        const next = blocks[bi + 1];
        const fall = this.baseOp(K.FALL, fn, b, id, undefined, 'NOP');
        if (next) fixups.push((start) => (fall.target = start.get(next)!));
        else {
          // Running off the last block ends the thread (kernel) or returns (function).
          fall.k = fn === this.kernel ? K.EXIT : K.RET;
          fall.ret = fn.results.map((r) => this.src(fn, { kind: 'reg', reg: r }));
        }
        this.code.push(fall);
      }
    }
    pending.push(() => {
      for (const f of fixups) f(blockStart);
    });
  }

  private baseOp(k: K, fn: OriFunction, block: Block, blockId: number, instr: Instr | undefined, opcode: string): Op {
    return {
      k, instr, fn, block, blockId, opId: this.opcodeId(opcode), guard: -1, guardNot: false, exec: undefined,
      checkR: [], checkP: [], target: -1, targets: [], rpc: RPC_NONE, slot: -1, text: instr ? printInstr(instr) : `<fall-through of ${block.label}>`,
    };
  }

  private phiOp(fn: OriFunction, b: Block, id: number, phis: Instr[], blockId: (b: Block) => number): Op {
    const op = this.baseOp(K.PHIS, fn, b, id, phis[0], 'PHI');
    op.phis = phis.map((p) => {
      const byPred = new Map<number, Src>();
      for (let k = 0; k + 1 < p.uses.length; k += 2) {
        const lbl = p.uses[k + 1]!;
        if (lbl.kind === 'label') byPred.set(blockId(lbl.block), this.src(fn, p.uses[k]!));
      }
      return { dst: this.dst(p.defs[0]!), byPred };
    });
    op.text = phis.map((p) => printInstr(p)).join('; ');
    return op;
  }

  private decode(fn: OriFunction, b: Block, id: number, i: Instr): Op {
    const op = this.baseOp(K.ALU, fn, b, id, i, i.opcode);
    if (i.guard) {
      op.guard = this.predSlot.get(i.guard.reg)!;
      op.guardNot = i.guard.not;
      op.checkP.push(op.guard);
    }
    for (const u of i.uses) {
      if (u.kind === 'reg') {
        if (u.reg.cls === 'P' || u.reg.cls === 'UP') op.checkP.push(this.predSlot.get(u.reg)!);
        else op.checkR.push(this.regSlot.get(u.reg)!);
      } else if (u.kind === 'mem' && u.base) op.checkR.push(this.regSlot.get(u.base)!);
      else if (u.kind === 'cbank' && u.index) op.checkR.push(this.regSlot.get(u.index)!);
    }
    const sp = i.opcode === 'SEL' || i.opcode === 'FSEL' ? i.uses[2] : undefined;
    if (sp?.kind === 'reg' && (sp.reg.cls === 'P' || sp.reg.cls === 'UP') && i.uses.length === 3) {
      const slotOf = (o: Operand | undefined): number => (o?.kind === 'reg' && o.reg.cls !== 'P' && o.reg.cls !== 'UP' ? this.regSlot.get(o.reg)! : -1);
      const a = slotOf(i.uses[0]);
      const b = slotOf(i.uses[1]);
      op.sel = { a, b, p: this.predSlot.get(sp.reg)!, not: !!sp.not };
      op.checkR = op.checkR.filter((x) => x !== a && x !== b);
    }
    switch (i.opcode) {
      case 'BRA':
        op.k = K.BRA;
        return op;
      case 'BRX':
      case 'JMX':
        op.k = K.BRX;
        op.slot = i.uses[0]?.kind === 'reg' ? this.regSlot.get(i.uses[0].reg)! : this.constSlot(i.uses[0]?.kind === 'imm' ? i.uses[0].value : 0n);
        if (i.opcode === 'BRX' && i.hasMod('TABLE')) op.brxTable = true;
        return op;
      case 'EXIT':
      case 'KILL':
        op.k = K.EXIT;
        return op;
      case 'RET':
        op.k = fn === this.kernel ? K.EXIT : K.RET;
        op.ret = i.uses.length ? i.uses.map((u) => this.src(fn, u)) : fn.results.map((r) => this.src(fn, { kind: 'reg', reg: r }));
        return op;
      case 'CALL': {
        op.k = K.CALL;
        const target = i.uses[0];
        const callee = target?.kind === 'sym' ? this.module.getFunction(target.name) : undefined;
        if ((!callee || callee.blocks.length === 0) && target?.kind === 'sym') {
          // a function the driver provides (vprintf, __assertfail, malloc ...): its semantics or a coded refusal
          const exec = buildDriverCall(this, fn, i, target.name);
          if (exec) {
            op.k = K.ALU;
            op.exec = exec;
            return op;
          }
        }
        if (!callee) {
          op.k = K.ALU;
          op.exec = trapExec('unsupported', `CALL target ${target?.kind === 'sym' ? '@' + target.name : '?'} is not a function of the module`);
          return op;
        }
        op.call = {
          callee,
          entry: -1,
          args: i.uses.slice(1).map((u) => this.src(fn, u)),
          params: callee.params.map((p) => (p.reg ? this.dst({ kind: 'reg', reg: p.reg }) : { t: 'none' })),
          results: i.defs.map((d) => this.dst(d)),
        };
        return op;
      }
      case 'BSSY': {
        const d = this.dst(i.defs[0]!);
        op.exec = d.t === 'reg' ? (w, m) => {
          const base = d.slot * 32;
          for (let l = 0; l < 32; l++) if ((m >>> l) & 1) w.R[base + l] = m >>> 0;
          w.W[d.slot]! |= m;
        } : undefined;
        return op;
      }
      case 'BSYNC':
        op.k = K.BSYNC;
        op.slot = i.uses[0]?.kind === 'reg' ? this.regSlot.get(i.uses[0].reg)! : -1;
        return op;
      case 'BAR': {
        op.k = K.BAR;
        const mode = i.hasMod('ARV') ? 'ARV' : i.hasMod('RED') ? 'RED' : 'SYNC';
        const uses = [...i.uses];
        const last = uses[uses.length - 1];
        let pred: Src | undefined;
        if (mode === 'RED' && last && (last.kind === 'pt' || (last.kind === 'reg' && (last.reg.cls === 'P' || last.reg.cls === 'UP')))) {
          pred = this.src(fn, last);
          uses.pop();
          if (last.kind === 'reg' && last.not) pred = { t: 'pred', slot: -1 - (pred as { slot: number }).slot };
          if (last.kind === 'pt' && last.not) pred = { t: 'const', v: false };
        }
        op.bar = {
          mode,
          red: mode === 'RED' ? (['POPC', 'AND', 'OR'].find((m) => i.hasMod(m)) as BarInfo['red']) ?? 'POPC' : undefined,
          id: uses[0] ? this.src(fn, uses[0]) : { t: 'const', v: 0n },
          count: uses[1] ? this.src(fn, uses[1]) : undefined,
          pred,
          dst: i.defs[0] ? this.dst(i.defs[0]) : { t: 'none' },
        };
        return op;
      }
      case 'WARPSYNC':
      case 'NOP':
      case 'MEMBAR':
      case 'FENCE':
      case 'ERRBAR':
      case 'CCTL':
        op.k = K.NOP;
        return op;
      case 'COPY':
      case 'MOVPHI': {
        // Copies move definedness along with the value (out-of-SSA copies may carry a value that is
        // undefined on that path without it ever being used), so they do not check their source.
        op.checkR = [];
        op.checkP = op.guard >= 0 ? [op.guard] : [];
        op.exec = copyExec(this.src(fn, i.uses[0] ?? { kind: 'rz' }), this.dst(i.defs[0]!), i.uses[0]);
        return op;
      }
      case 'UNDEF': {
        const d = this.dst(i.defs[0]!);
        op.exec = (w, m) => writeDst(w, d, m, 0n, true);
        return op;
      }
    }
    const syncs = buildSyncsOp(this, fn, i);
    if (syncs) {
      op.exec = syncs;
      return op;
    }
    const mem = buildMemoryOp(this, fn, i);
    if (mem) {
      op.exec = mem;
      return op;
    }
    const tex = buildTextureOp(this, fn, i);
    if (tex) {
      op.exec = tex;
      return op;
    }
    const warp = buildWarpOp(this, fn, i);
    if (warp) {
      op.exec = warp;
      return op;
    }
    if (i.opcode === 'S2R' || i.opcode === 'S2UR' || i.opcode === 'CS2R' || PURE_OPCODES.has(i.opcode)) {
      op.exec = (this.fastPaths ? buildFastPath(this, fn, i) : undefined) ?? this.generic(fn, i);
      return op;
    }
    op.exec = trapExec('unsupported', `the interpreter has no semantics for ${i.fullOpcode}`);
    return op;
  }

  /** Per-lane evaluation through evaluatePure (or a special-register read). */
  generic(fn: OriFunction, i: Instr): Exec {
    const srcs = i.uses.map((u) => this.src(fn, u));
    const dsts = i.defs.map((d) => this.dst(d));
    const pi: PureInstr = describeInstr(i);
    const special = i.opcode === 'S2R' || i.opcode === 'S2UR' || i.opcode === 'CS2R';
    const pure: PureInstr = special ? { ...pi, opcode: 'MOV' } : pi;
    const vals: PureValue[] = new Array(srcs.length);
    const text = i.fullOpcode;
    return (w, m) => {
      for (let l = 0; l < 32; l++) {
        if (!((m >>> l) & 1)) continue;
        for (let k = 0; k < srcs.length; k++) vals[k] = readSrc(w, srcs[k]!, l);
        const out = evaluatePure(pure, vals);
        if (!out) throw new Trap('unsupported', `the interpreter cannot evaluate ${text} with these operands`, l);
        for (let k = 0; k < dsts.length; k++) writeLane(w, dsts[k]!, l, out[k]!);
      }
      for (const d of dsts) markWritten(w, d, m);
    };
  }
}

function copyExec(s: Src, d: Dst, o: Operand | undefined): Exec {
  const not = o?.kind === 'reg' && !!o.not;
  if (s.t === 'reg' && d.t === 'reg' && !(o?.kind === 'reg' && (o.neg || o.abs || o.not))) {
    const n = Math.min(s.n, d.n);
    return (w, m) => {
      const R = w.R;
      for (let k = 0; k < d.n; k++) {
        const D = (d.slot + k) * 32;
        const S = (s.slot + k) * 32;
        for (let l = 0; l < 32; l++) if ((m >>> l) & 1) R[D + l] = k < n ? R[S + l]! : 0;
        w.W[d.slot + k] = (w.W[d.slot + k]! & ~m) | (w.W[s.slot + Math.min(k, n - 1)]! & m);
      }
    };
  }
  if (s.t === 'pred' && d.t === 'pred') {
    return (w, m) => {
      const v = not ? ~w.P[s.slot]! : w.P[s.slot]!;
      w.P[d.slot] = (w.P[d.slot]! & ~m) | (v & m);
      w.PW[d.slot] = (w.PW[d.slot]! & ~m) | (w.PW[s.slot]! & m);
    };
  }
  return (w, m) => {
    for (let l = 0; l < 32; l++) {
      if (!((m >>> l) & 1)) continue;
      const v = readSrc(w, s, l);
      writeLane(w, d, l, not && typeof v === 'boolean' ? !v : v);
    }
    markWritten(w, d, m);
  };
}

function trapExec(kind: 'unsupported', msg: string): Exec {
  return () => {
    throw new Trap(kind, msg, -1);
  };
}

/** Read one lane of a source as a pure value. */
export function readSrc(w: Warp, s: Src, l: number): PureValue {
  switch (s.t) {
    case 'reg': {
      const R = w.R;
      const b = s.slot * 32 + l;
      if (s.n === 1) return BigInt(R[b]!);
      let v = 0n;
      for (let k = s.n - 1; k >= 0; k--) v = (v << 32n) | BigInt(R[b + k * 32]!);
      return v;
    }
    case 'pred':
      if (s.slot < 0) return ((w.P[-1 - s.slot]! >>> l) & 1) === 0;
      return ((w.P[s.slot]! >>> l) & 1) === 1;
    case 'const':
      return s.v;
    case 'sreg':
      return w.special(s.name, l);
    case 'cbidx': {
      const idx = w.R[s.slot * 32 + l]!;
      return w.prog.cbankValue(s.bank, s.offset + idx, s.bytes);
    }
  }
}

export function writeLane(w: Warp, d: Dst, l: number, v: PureValue): void {
  if (d.t === 'none') return;
  if (d.t === 'pred') {
    const bit = 1 << l;
    const on = typeof v === 'boolean' ? v : v !== 0n;
    w.P[d.slot] = on ? w.P[d.slot]! | bit : w.P[d.slot]! & ~bit;
    return;
  }
  let x = typeof v === 'boolean' ? (v ? 1n : 0n) : v;
  const b = d.slot * 32 + l;
  for (let k = 0; k < d.n; k++) {
    w.R[b + k * 32] = Number(x & 0xffffffffn);
    x >>= 32n;
  }
}

export function markWritten(w: Warp, d: Dst, m: number): void {
  if (d.t === 'reg') for (let k = 0; k < d.n; k++) w.W[d.slot + k]! |= m;
  else if (d.t === 'pred') w.PW[d.slot]! |= m;
}

export function writeDst(w: Warp, d: Dst, m: number, v: PureValue, mark: boolean): void {
  for (let l = 0; l < 32; l++) if ((m >>> l) & 1) writeLane(w, d, l, v);
  if (mark) markWritten(w, d, m);
}
