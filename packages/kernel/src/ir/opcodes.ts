import { PtxforgeError } from '../errors.js';
/**
 * The opcode table of Ori IR. Opcodes are SASS mnemonics plus a few pseudo-ops
 * (PHI / MOVPHI, the JMX jump-table pseudo that phase 80 ExpandJmxComputation expands, COPY).
 * Modifiers (`.U32`, `.GE`, `.E.64` ...) are not part of the opcode name; they live on the instruction.
 *
 * Operand signatures drive the verifier's class checks. A signature is a list of operand kinds:
 *   'r'  data operand: an R/UR register (any width), RZ/URZ, an immediate, a constant-bank ref or a symbol
 *   'p'  predicate: a P/UP register or PT (possibly negated)
 *   'b'  a B (convergence barrier) register
 *   'a'  a memory address `[...]`
 *   'l'  a block label;  'L' a label table `(bb1, bb2)`
 *   's'  a special register (SR_*) or a data operand
 *   'x'  anything
 * A trailing '*' on the last kind means "zero or more of this kind".
 * Opcodes without a signature are checked only for general well-formedness.
 *
 * Plugins add opcodes through their manifest (`opcodes: [...]`); the toolchain makes its own table
 * (CORE_OPCODES.extend(...)), so nothing here is mutated after load.
 */
export type OperandKindSpec = 'r' | 'p' | 'b' | 'a' | 'l' | 'L' | 's' | 'x';

export type OpcodeCategory =
  | 'int' | 'float' | 'logic' | 'convert' | 'move' | 'memory' | 'atomic'
  | 'control' | 'sync' | 'warp' | 'special' | 'pseudo' | 'texture' | 'misc';

export interface OpcodeInfo {
  readonly name: string;
  readonly category: OpcodeCategory;
  /** Label operands are CFG successors (BRA, BRX, JMX). */
  readonly isBranch?: boolean;
  /** When unguarded, control never falls through (BRA, BRX, JMX, EXIT, RET, KILL). */
  readonly endsFlow?: boolean;
  /** Must stand at the end of its block (any control-flow instruction). */
  readonly isControlFlow?: boolean;
  readonly isCall?: boolean;
  readonly mayLoad?: boolean;
  readonly mayStore?: boolean;
  /** Effects beyond its defs (memory writes, barriers, warp sync, clocks): never removed as dead. */
  readonly hasSideEffects?: boolean;
  /** Reads or depends on other threads / convergence state: not to be moved across control flow freely. */
  readonly isConvergent?: boolean;
  readonly defs?: readonly string[];
  readonly uses?: readonly string[];
  readonly description?: string;
}

/**
 * An opcode table: the core ISA of Ori, or a toolchain's table (the core plus what its plugins and targets
 * add). Tables are immutable once made: `extend` returns a new child table, so there is no process-global
 * mutable opcode table and two toolchains with different plugin opcodes live in one process. A function's
 * instructions are interpreted with its table (`OriFunction.opcodes`, set by the parser and the toolchain).
 */
export class OpcodeTable {
  private readonly own = new Map<string, OpcodeInfo>();
  private sealed = false;

  constructor(readonly parent?: OpcodeTable) {}

  get(name: string): OpcodeInfo | undefined {
    return this.own.get(name) ?? this.parent?.get(name);
  }
  has(name: string): boolean {
    return this.get(name) !== undefined;
  }
  /** Every opcode of the table (parents' first). */
  all(): OpcodeInfo[] {
    return [...(this.parent?.all() ?? []), ...this.own.values()];
  }
  /**
   * Check that `infos` could be added (OPCODE_BAD_NAME / OPCODE_CONFLICT otherwise): a name already in the
   * table (or twice in the batch) must come with the same properties.
   */
  check(infos: readonly OpcodeInfo[]): Map<string, OpcodeInfo> {
    const batch = new Map<string, OpcodeInfo>();
    for (const info of infos) {
      if (typeof info?.name !== 'string' || !/^[A-Z][A-Z0-9_]*$/.test(info.name)) {
        throw new PtxforgeError('OPCODE_BAD_NAME', `opcode name ${JSON.stringify(info?.name)} must be upper-case letters, digits and _`);
      }
      const prev = batch.get(info.name) ?? this.get(info.name);
      if (prev && !sameOpcode(prev, info)) {
        throw new PtxforgeError('OPCODE_CONFLICT', `opcode ${info.name} is already defined with other properties`);
      }
      batch.set(info.name, info);
    }
    return batch;
  }
  /** A new table with these opcodes added, all or nothing (this table is unchanged). */
  extend(infos: readonly OpcodeInfo[]): OpcodeTable {
    const batch = this.check(infos);
    const t = new OpcodeTable(this);
    for (const info of batch.values()) if (!this.has(info.name)) t.own.set(info.name, Object.freeze({ ...info }));
    t.sealed = true;
    return t;
  }
  /** Internal: building the core table. */
  _def(info: OpcodeInfo): void {
    if (this.sealed) throw new PtxforgeError('OPCODE_TABLE_SEALED', `opcode table is immutable; use extend() to add ${info.name}`);
    this.own.set(info.name, Object.freeze(info));
  }
  _seal(): this {
    this.sealed = true;
    return this;
  }
}

/** The core ISA: SASS mnemonics and Ori pseudo-ops every toolchain knows (sealed after this module loads). */
export const CORE_OPCODES = new OpcodeTable();

function def(info: OpcodeInfo): void {
  CORE_OPCODES._def(info);
}

/** Check that `infos` could be added to the core table (OPCODE_BAD_NAME / OPCODE_CONFLICT) without adding them. */
export function checkOpcodes(infos: readonly OpcodeInfo[]): Map<string, OpcodeInfo> {
  return CORE_OPCODES.check(infos);
}

function sameOpcode(a: OpcodeInfo, b: OpcodeInfo): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** An opcode of the core ISA, or of `table` (a toolchain's) when given. */
export function opcodeInfo(name: string, table: OpcodeTable = CORE_OPCODES): OpcodeInfo | undefined {
  return table.get(name);
}

/** Every opcode of the core ISA (or of `table`). */
export function allOpcodes(table: OpcodeTable = CORE_OPCODES): OpcodeInfo[] {
  return table.all();
}

const ALU = (name: string, category: OpcodeCategory, defs: string[], uses: string[], description: string): void =>
  def({ name, category, defs, uses, description });

// ---- integer ---------------------------------------------------------------------------------
ALU('IADD3', 'int', ['r', 'p*'], ['r', 'r', 'r', 'p*'], 'three-input integer add; .X adds carry-in predicates, extra defs are carry-outs');
ALU('IMAD', 'int', ['r', 'p*'], ['r', 'r', 'r', 'p*'], 'integer multiply-add (.WIDE, .HI, .X, .U32 / .S32)');
ALU('IMUL', 'int', ['r'], ['r', 'r'], 'integer multiply (pre-legalization form)');
ALU('IMNMX', 'int', ['r'], ['r', 'r', 'p'], 'integer min (p=true) / max (p=false)');
ALU('IABS', 'int', ['r'], ['r'], 'integer absolute value');
ALU('ISETP', 'int', ['p', 'p*'], ['r', 'r', 'p*'], 'integer compare to predicate, combined with a predicate (.AND/.OR/.XOR)');
ALU('ISCADD', 'int', ['r'], ['r', 'r', 'r'], 'scaled integer add (a << s) + b');
ALU('LEA', 'int', ['r', 'p*'], ['r', 'r', 'r*', 'p*'], 'load effective address: (a << s) + b, .HI / .X forms');
ALU('SHF', 'int', ['r'], ['r', 'r', 'r'], 'funnel shift (.L/.R, .W/.U32/.S32/.U64/.S64, .HI)');
ALU('SHL', 'int', ['r'], ['r', 'r'], 'shift left');
ALU('SHR', 'int', ['r'], ['r', 'r'], 'shift right (.U32 logical / .S32 arithmetic)');
ALU('IDIV', 'int', ['r'], ['r', 'r'], 'integer divide pseudo-op (expanded by ConvertUnsupportedOps on real targets)');
ALU('IREM', 'int', ['r'], ['r', 'r'], 'integer remainder pseudo-op');
ALU('POPC', 'int', ['r'], ['r'], 'population count');
ALU('FLO', 'int', ['r'], ['r'], 'find leading one (.SH: shift amount)');
ALU('BREV', 'int', ['r'], ['r'], 'bit reverse');
ALU('BFE', 'int', ['r'], ['r', 'r', 'r'], 'bit field extract (pre-legalization form)');
ALU('BFI', 'int', ['r'], ['r', 'r', 'r', 'r'], 'bit field insert (pre-legalization form)');
ALU('PRMT', 'int', ['r'], ['r', 'r', 'r'], 'byte permute');
ALU('VABSDIFF', 'int', ['r'], ['r', 'r', 'r'], 'absolute difference');
ALU('IDP', 'int', ['r'], ['r', 'r', 'r'], 'integer dot product');
// ---- logic -----------------------------------------------------------------------------------
ALU('LOP3', 'logic', ['r', 'p*'], ['r', 'r', 'r', 'r', 'p*'], 'three-input logic with an 8-bit LUT immediate (4th use)');
ALU('LOP', 'logic', ['r'], ['r', 'r'], 'two-input logic (.AND/.OR/.XOR/.PASS_B), pre-sm70 form');
ALU('PLOP3', 'logic', ['p', 'p*'], ['p', 'p', 'p', 'r', 'r*'], 'three-input predicate logic with LUT immediate');
ALU('P2R', 'logic', ['r'], ['r', 'r'], 'predicates to register');
ALU('R2P', 'logic', ['p*'], ['r', 'r'], 'register to predicates');
ALU('SEL', 'move', ['r'], ['r', 'r', 'p'], 'select a if p else b');
ALU('FSEL', 'move', ['r'], ['r', 'r', 'p'], 'float select a if p else b');
ALU('MOV', 'move', ['r'], ['s'], 'move (32 or 64 bit by destination width)');
ALU('UMOV', 'move', ['r'], ['s'], 'uniform move');
ALU('S2R', 'special', ['r'], ['s'], 'read a special register');
ALU('S2UR', 'special', ['r'], ['s'], 'read a special register into a uniform register');
ALU('CS2R', 'special', ['r'], ['s'], 'read a special register (fast path, e.g. SR_CLOCKLO)');
ALU('R2UR', 'move', ['r'], ['r'], 'register to uniform register');
// ---- float -----------------------------------------------------------------------------------
ALU('FADD', 'float', ['r'], ['r', 'r'], 'f32 add (.FTZ, .RN/.RZ/.RM/.RP, .SAT)');
ALU('FMUL', 'float', ['r'], ['r', 'r'], 'f32 multiply');
ALU('FFMA', 'float', ['r'], ['r', 'r', 'r'], 'f32 fused multiply-add');
ALU('FMNMX', 'float', ['r'], ['r', 'r', 'p'], 'f32 min (p=true) / max (p=false)');
ALU('FSETP', 'float', ['p', 'p*'], ['r', 'r', 'p*'], 'f32 compare to predicate');
ALU('FSET', 'float', ['r'], ['r', 'r', 'p*'], 'f32 compare to register');
ALU('FCHK', 'float', ['p'], ['r', 'r'], 'check whether a division needs the slow path');
ALU('DADD', 'float', ['r'], ['r', 'r'], 'f64 add');
ALU('DMUL', 'float', ['r'], ['r', 'r'], 'f64 multiply');
ALU('DFMA', 'float', ['r'], ['r', 'r', 'r'], 'f64 fused multiply-add');
ALU('DMNMX', 'float', ['r'], ['r', 'r', 'p'], 'f64 min/max');
ALU('DSETP', 'float', ['p', 'p*'], ['r', 'r', 'p*'], 'f64 compare to predicate');
ALU('HADD2', 'float', ['r'], ['r', 'r'], 'packed f16x2 add');
ALU('HMUL2', 'float', ['r'], ['r', 'r'], 'packed f16x2 multiply');
ALU('HFMA2', 'float', ['r'], ['r', 'r', 'r'], 'packed f16x2 fused multiply-add');
ALU('HSETP2', 'float', ['p', 'p*'], ['r', 'r', 'p*'], 'packed f16x2 compare');
ALU('MUFU', 'float', ['r'], ['r'], 'multi-function unit: .RCP .RSQ .SQRT .SIN .COS .EX2 .LG2 .TANH (approximate)');
ALU('FDIV', 'float', ['r'], ['r', 'r'], 'float divide pseudo-op (.RN exact, expanded late on real targets)');
ALU('FSQRT', 'float', ['r'], ['r'], 'float square root pseudo-op (.RN exact)');
ALU('FRND', 'convert', ['r'], ['r'], 'round float to integral float (.TRUNC/.FLOOR/.CEIL)');
ALU('F2F', 'convert', ['r'], ['r'], 'float to float conversion');
ALU('F2I', 'convert', ['r'], ['r'], 'float to integer conversion');
ALU('I2F', 'convert', ['r'], ['r'], 'integer to float conversion');
ALU('I2I', 'convert', ['r'], ['r'], 'integer to integer conversion (saturating)');
ALU('F2FP', 'convert', ['r'], ['r', 'r'], 'pack two floats into a half2/bf16x2');
// ---- memory ----------------------------------------------------------------------------------
const MEM = (name: string, load: boolean, store: boolean, space: string): void =>
  def({
    name, category: 'memory', mayLoad: load, mayStore: store, hasSideEffects: store,
    defs: load ? ['r'] : [], uses: store ? ['a', 'r'] : ['a'],
    description: `${load ? 'load from' : 'store to'} ${space} memory (.E, .8/.U8/.S8/.16/.U16/.S16/.32/.64/.128, cache ops)`,
  });
MEM('LDG', true, false, 'global');
MEM('STG', false, true, 'global');
MEM('LDS', true, false, 'shared');
MEM('STS', false, true, 'shared');
MEM('LDL', true, false, 'local');
MEM('STL', false, true, 'local');
MEM('LD', true, false, 'generic');
MEM('ST', false, true, 'generic');
def({ name: 'LDC', category: 'memory', mayLoad: true, defs: ['r'], uses: ['r'], description: 'load from a constant bank (operand c[bank][offset], index register allowed)' });
def({ name: 'ULDC', category: 'memory', mayLoad: true, defs: ['r'], uses: ['r'], description: 'uniform load from a constant bank' });
def({ name: 'ATOMG', category: 'atomic', mayLoad: true, mayStore: true, hasSideEffects: true, defs: ['r', 'p*'], uses: ['a', 'r', 'r*'], description: 'global atomic (.ADD .MIN .MAX .INC .DEC .AND .OR .XOR .EXCH .CAS) returning the old value' });
def({ name: 'ATOMS', category: 'atomic', mayLoad: true, mayStore: true, hasSideEffects: true, defs: ['r'], uses: ['a', 'r', 'r*'], description: 'shared-memory atomic' });
def({ name: 'ATOM', category: 'atomic', mayLoad: true, mayStore: true, hasSideEffects: true, defs: ['r'], uses: ['a', 'r', 'r*'], description: 'generic atomic' });
def({ name: 'RED', category: 'atomic', mayLoad: true, mayStore: true, hasSideEffects: true, defs: [], uses: ['a', 'r'], description: 'reduction to memory (atomic without result)' });
// mbarrier objects in shared memory (docs/ori-semantics.md "mbarrier objects"): .ARRIVE.TRANS64 (arrive / expect-tx /
// complete-tx, result: the state before), .PHASECHK.TRANS64[.TRYWAIT] (has a phase completed), .CCTL.IV (inval).
// Waits read memory other threads change: side effects keep them in their loops.
def({ name: 'SYNCS', category: 'sync', mayLoad: true, mayStore: true, hasSideEffects: true, defs: ['x*'], uses: ['a', 'r*'], description: 'mbarrier operation (.ARRIVE.TRANS64 .PHASECHK.TRANS64 .CCTL.IV)' });
def({ name: 'CCTL', category: 'memory', hasSideEffects: true, defs: [], uses: ['x*'], description: 'cache control' });
def({ name: 'MEMBAR', category: 'sync', hasSideEffects: true, defs: [], uses: [], description: 'memory barrier (.CTA .GPU .SYS)' });
def({ name: 'FENCE', category: 'sync', hasSideEffects: true, defs: [], uses: [], description: 'memory fence' });
def({ name: 'ERRBAR', category: 'sync', hasSideEffects: true, defs: [], uses: [], description: 'error barrier' });
// ---- texture / surface (docs/ori-semantics.md "Textures and surfaces": TEX TLD4 TXQ SULD SUST SUQ) --------
for (const n of ['TEX', 'TLD', 'TLD4', 'TXQ', 'SULD', 'SUST', 'SURED', 'SUQ']) {
  def({ name: n, category: 'texture', mayLoad: true, mayStore: n.startsWith('SUST') || n === 'SURED', hasSideEffects: n === 'SUST' || n === 'SURED', defs: ['x*'], uses: ['x*'], description: 'texture/surface access' });
}
// ---- control flow ----------------------------------------------------------------------------
def({ name: 'BRA', category: 'control', isBranch: true, endsFlow: true, isControlFlow: true, defs: [], uses: ['l'], description: 'branch (guard makes it conditional); .U = uniform' });
def({ name: 'BRX', category: 'control', isBranch: true, endsFlow: true, isControlFlow: true, defs: [], uses: ['r', 'L'], description: 'indexed branch through a label table: targets[index]' });
def({ name: 'JMX', category: 'pseudo', isBranch: true, endsFlow: true, isControlFlow: true, defs: [], uses: ['r', 'L'], description: 'jump-table pseudo created by DoSwitchOpt, expanded by phase 80 ExpandJmxComputation' });
def({ name: 'EXIT', category: 'control', endsFlow: true, isControlFlow: true, hasSideEffects: true, defs: [], uses: [], description: 'thread exit' });
def({ name: 'RET', category: 'control', endsFlow: true, isControlFlow: true, hasSideEffects: true, defs: [], uses: ['r*'], description: 'return from a function (uses are return values)' });
def({ name: 'KILL', category: 'control', endsFlow: true, isControlFlow: true, hasSideEffects: true, defs: [], uses: [], description: 'kill thread' });
def({ name: 'CALL', category: 'control', isCall: true, hasSideEffects: true, mayLoad: true, mayStore: true, defs: ['r*'], uses: ['x', 'r*'], description: 'call $func (defs: results, uses after the callee: arguments)' });
def({ name: 'BSSY', category: 'sync', hasSideEffects: true, isConvergent: true, defs: ['b'], uses: ['l'], description: 'push a convergence barrier for the reconvergence block (not a CFG edge)' });
def({ name: 'BSYNC', category: 'sync', hasSideEffects: true, isConvergent: true, defs: [], uses: ['b'], description: 'wait for the threads of a convergence barrier' });
def({ name: 'WARPSYNC', category: 'sync', hasSideEffects: true, isConvergent: true, defs: [], uses: ['r'], description: 'synchronize the threads of a mask' });
def({ name: 'BAR', category: 'sync', hasSideEffects: true, isConvergent: true, defs: ['r*'], uses: ['r*', 'p*'], description: 'CTA barrier (.SYNC .ARV .RED.POPC/.AND/.OR) with optional barrier id and thread count' });
def({ name: 'NOP', category: 'misc', defs: [], uses: [], description: 'no operation' });
// ---- warp-level ------------------------------------------------------------------------------
def({ name: 'SHFL', category: 'warp', isConvergent: true, defs: ['r', 'p*'], uses: ['r', 'r', 'r', 'r*'], description: 'warp shuffle (.IDX .UP .DOWN .BFLY): value, lane/offset, clamp|segmask, [membermask]; extra def: in-range predicate' });
def({ name: 'VOTE', category: 'warp', isConvergent: true, defs: ['r', 'p*'], uses: ['p', 'r*'], description: 'warp vote (.ALL .ANY .EQ) with optional member mask; def: ballot' });
def({ name: 'MATCH', category: 'warp', isConvergent: true, defs: ['r', 'p*'], uses: ['r', 'r*'], description: 'warp match (.ANY / .ALL)' });
def({ name: 'REDUX', category: 'warp', isConvergent: true, defs: ['r'], uses: ['r', 'r*'], description: 'warp reduction (.SUM .MIN .MAX .AND .OR .XOR)' });
// Tensor-core matrix multiply-accumulate of one warp (docs/ori-semantics.md "Warp matrix multiply"): every lane
// gives its fragment registers, the product is the warp's; defs are D's registers, uses A's, B's, then C's.
def({ name: 'HMMA', category: 'warp', isConvergent: true, defs: ['r', 'r*'], uses: ['r', 'r*'], description: 'warp matrix multiply-accumulate, f16/bf16/tf32 inputs (.16816 .1684; .F32 accumulators; .BF16 .TF32 input types)' });
def({ name: 'IMMA', category: 'warp', isConvergent: true, defs: ['r', 'r*'], uses: ['r', 'r*'], description: 'warp matrix multiply-accumulate, 8-bit integer inputs, s32 accumulators (.16816 .U8/.S8 for A then B)' });
def({ name: 'DMMA', category: 'warp', isConvergent: true, defs: ['r', 'r*'], uses: ['r', 'r*'], description: 'warp matrix multiply-accumulate, f64 (.884)' });
// ---- pseudo-ops ------------------------------------------------------------------------------
def({ name: 'PHI', category: 'pseudo', defs: ['x'], uses: ['x*'], description: 'SSA phi: operands alternate value, predecessor label' });
def({ name: 'MOVPHI', category: 'pseudo', defs: ['x'], uses: ['x'], description: 'MovPhi: the copy on a predecessor edge that feeds a phi (GenerateMovPhi / ConvertAllMovPhiToMov)' });
def({ name: 'COPY', category: 'pseudo', defs: ['x'], uses: ['x'], description: 'register copy (any class)' });
def({ name: 'UNDEF', category: 'pseudo', defs: ['x'], uses: [], description: 'defines a register with an unspecified value' });

CORE_OPCODES._seal();
