/**
 * The abstract machine function the allocator and the schedulers work on. It is deliberately small and
 * target-independent: a caller (instruction selection's machine function, a test, a benchmark) describes its
 * code as blocks of instructions with virtual-register defs and uses; the allocator answers with an
 * assignment and with the spill code it wants, which the caller materialises (it owns instruction creation).
 * See docs/codegen-regalloc.md.
 */

/** Register classes, by their SASS prefix: R (GPR), P (predicate), UR (uniform GPR), UP (uniform predicate), B (convergence barrier). */
export type RegClass = 'R' | 'P' | 'UR' | 'UP' | 'B';

export const REG_CLASSES: readonly RegClass[] = ['R', 'P', 'UR', 'UP', 'B'];

/** The usual homes of classes without memory spills: predicates in R (P2R/R2P), uniform predicates in UR, barriers in R (BMOV). */
export const SPILL_HOMES: Readonly<Partial<Record<RegClass, RegClass>>> = Object.freeze({ P: 'R', UP: 'UR', B: 'R' });

/** Registers a value occupies: 1, or an aligned pair / quad of consecutive registers. */
export type RegWidth = 1 | 2 | 4;

/** One register class of the target as the allocator sees it (made from the kernel's RegisterFile service). */
export interface RaClassInfo {
  readonly cls: RegClass;
  /** Allocatable registers R0..R(count-1) (the zero register excluded). */
  readonly count: number;
  /** Index of the hard-wired zero register (RZ = 255), never allocated. */
  readonly zero?: number;
  /** Base alignment of a value `width` registers wide; a width missing here needs no alignment. */
  readonly alignment: Readonly<Partial<Record<number, number>>>;
}

/** A virtual register: its class and width. Its id is its index in `RaFunction.vregs`. */
export interface VReg {
  readonly cls: RegClass;
  readonly width: RegWidth;
  /**
   * Precoloured: the value must live in this physical base register for its whole live range (ABI
   * registers, the stack pointer). A constraint at a single instruction is expressed by a copy into a short
   * precoloured vreg; the allocator coalesces such copies away where it can.
   */
  readonly fixed?: number;
  /** Never spill (spill temporaries; values the caller cannot reload). */
  readonly noSpill?: boolean;
}

/** A physical register: class and index (a pair/quad is named by its base and width). */
export interface PhysReg {
  readonly cls: RegClass;
  readonly index: number;
  readonly width?: RegWidth;
}

/** Opcode and modifiers of a machine instruction (the schedulers' latency look-ups: `IMAD` ['WIDE', 'U32']). */
export interface SchedOp {
  readonly opcode: string;
  readonly mods?: readonly string[];
}

/** One instruction. `defs` and `uses` are positional: the caller maps position k back to its operand k. */
export interface RaInstr<Ref = unknown> {
  /** The caller's handle of the instruction (returned untouched in the result). */
  readonly ref?: Ref;
  /** Vregs written. A vreg written only in part (one half of a pair) goes in `partialDefs` instead. */
  readonly defs: readonly number[];
  /** Vregs read (a vreg may appear more than once). */
  readonly uses: readonly number[];
  /** Vregs written in part: the rest of the value stays live through the instruction (read-modify-write). */
  readonly partialDefs?: readonly number[];
  /** A plain copy `defs[0] := uses[0]` of one class and width: a coalescing candidate. */
  readonly copy?: boolean;
  /**
   * The instruction's only effect is defining `defs[0]` from nothing but immediates/constants (MOV32I, a
   * constant-bank load): the allocator may recompute it before a use instead of reloading a spilled value.
   */
  readonly rematerializable?: boolean;
  /** Physical registers the instruction overwrites besides its defs (calls): nothing live across may use them. */
  readonly clobbers?: readonly PhysReg[];
  /** The defs must not share a register with any use of this instruction. */
  readonly earlyClobber?: boolean;
  // ---- for the schedulers (ignored by the allocator) ----
  /** Machine opcode and modifiers (latency look-ups). */
  readonly op?: SchedOp;
  /** Memory effect: loads may pass loads; stores and atomics keep their order with every access of their space. */
  readonly memory?: 'load' | 'store' | 'atomic';
  /**
   * Memory space (`global`, `shared`, `local`, ...). Accesses of two different known spaces never conflict;
   * `generic` or none conflicts with everything. Spill code uses `spill:<slot>`.
   */
  readonly memorySpace?: string;
  /**
   * Scheduling fence: nothing moves across it (BAR, MEMBAR, BSSY/BSYNC/WARPSYNC convergence points, calls,
   * branches and EXIT, anything with effects the scheduler does not model).
   */
  readonly fence?: boolean;
}

export interface RaBlock<Ref = unknown> {
  readonly instrs: readonly RaInstr<Ref>[];
  /** Successor block indices. */
  readonly succs: readonly number[];
  /** Estimated execution frequency (spill-cost weight); default: 10^loop depth from layout back edges. */
  readonly freq?: number;
}

/** A function: blocks in layout order (block 0 is the entry), and the vreg table. */
export interface RaFunction<Ref = unknown> {
  readonly vregs: readonly VReg[];
  readonly blocks: readonly RaBlock<Ref>[];
  /**
   * Vregs defined on entry (function parameters). Any other vreg is undefined until an instruction writes
   * it: where no definition reaches, it needs no register (strict liveness).
   */
  readonly entryDefs?: readonly number[];
}

/** Allocation options. */
export interface RaOptions {
  /** The target's classes (`classesFromRegisterFile(rf)`). Classes used by vregs must be listed. */
  readonly classes: readonly RaClassInfo[];
  /** Per-class cap on registers (R: from `--maxrregcount`, see `gprBudgetFromMaxRRegCount`). */
  readonly budget?: Readonly<Partial<Record<RegClass, number>>>;
  /** Registers never allocated (R1, the stack pointer), per class. */
  readonly reserved?: Readonly<Partial<Record<RegClass, readonly number[]>>>;
  /** Coalesce copies (default true). */
  readonly coalesce?: boolean;
  /** Rematerialise `rematerializable` values instead of spilling them to memory (default true). */
  readonly rematerialize?: boolean;
  /** Bytes of a spill slot of a class and width (default 4 × width; predicates 4). */
  readonly slotBytes?: (cls: RegClass, width: RegWidth) => number;
  /** Classes whose values may be spilled to local memory (default: R and UR). */
  readonly spillableClasses?: readonly RegClass[];
  /**
   * Where values of a class that is not spilled to memory go when they must leave their class: a vreg of
   * this class holds them (`save` / `restore` items). Opt-in (the caller must handle those items), e.g.
   * `SPILL_HOMES` = { P: 'R', UP: 'UR', B: 'R' }; without a home such a class fails with RA_UNCOLORABLE.
   */
  readonly spillHome?: Readonly<Partial<Record<RegClass, RegClass>>>;
  /** Rounds of spill-and-retry before giving up with RA_NO_PROGRESS (default 32). */
  readonly maxRounds?: number;
}

/** One instruction of the allocated function. */
export type RaOutInstr<Ref = unknown> =
  /** An input instruction; `defs`/`uses`/`partialDefs` are its operands after spill renaming (same positions). */
  | { readonly kind: 'instr'; readonly ref: Ref | undefined; readonly source: RaInstr<Ref>; readonly defs: readonly number[]; readonly uses: readonly number[]; readonly partialDefs: readonly number[]; readonly identityCopy: boolean }
  /** Store `vreg` (a spill temporary holding the spilled value) to the stack slot at `slot` bytes. */
  | { readonly kind: 'spill-store'; readonly vreg: number; readonly slot: number; readonly bytes: number; readonly spilled: number }
  /** Load the stack slot at `slot` into `vreg` (a spill temporary) before its use. */
  | { readonly kind: 'reload'; readonly vreg: number; readonly slot: number; readonly bytes: number; readonly spilled: number }
  /** Copy `vreg` (a temporary of a class without memory spills, e.g. P) into `home`, a vreg of another class (P2R / SEL). */
  | { readonly kind: 'save'; readonly vreg: number; readonly home: number; readonly spilled: number }
  /** Copy `home` back into `vreg` before a use (R2P / ISETP). */
  | { readonly kind: 'restore'; readonly vreg: number; readonly home: number; readonly spilled: number }
  /** Recompute `source` (a rematerializable instruction) into `vreg` before its use. */
  | { readonly kind: 'remat'; readonly vreg: number; readonly ref: Ref | undefined; readonly source: RaInstr<Ref>; readonly spilled: number };

export interface RaClassUsage {
  /** Highest allocated register + 1 (0 when the class is unused). */
  readonly used: number;
}

export interface RaStats {
  readonly rounds: number;
  /** Vregs spilled to memory / rematerialised (over all rounds). */
  readonly spilledVregs: number;
  readonly rematerializedVregs: number;
  /** Vregs (predicates) kept in a register of another class, and the saves that put them there. */
  readonly homedVregs: number;
  readonly registerSaves: number;
  readonly spillStores: number;
  readonly spillLoads: number;
  /** Static bytes stored / loaded by spill code (ptxas's `N bytes spill stores, M bytes spill loads`). */
  readonly spillStoreBytes: number;
  readonly spillLoadBytes: number;
  /** Bytes of stack frame the spill slots take (aligned to 8). */
  readonly frameBytes: number;
  readonly copies: number;
  readonly coalescedCopies: number;
  /** Copies whose source and destination ended in one register (removable). */
  readonly identityCopies: number;
  readonly interferenceEdges: number;
}

export interface RaResult<Ref = unknown> {
  /** Vregs of the output: the input's, then the spill temporaries. */
  readonly vregs: readonly VReg[];
  /** Physical base register of each vreg of `vregs`; -1 for a vreg that no longer occurs (spilled, dead). */
  readonly assignment: Int32Array;
  /** Blocks of the allocated function, same order as the input. */
  readonly blocks: readonly (readonly RaOutInstr<Ref>[])[];
  /** The input's block successors (unchanged). */
  readonly succs: readonly (readonly number[])[];
  /** The input's `entryDefs` (unchanged). */
  readonly entryDefs: readonly number[];
  readonly usage: Readonly<Partial<Record<RegClass, RaClassUsage>>>;
  readonly stats: RaStats;
}
