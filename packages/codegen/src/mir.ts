import type { SassOperand } from '@ptxforge/sass';
import { PtxforgeError } from '@ptxforge/kernel';

/**
 * The machine function: SASS instructions (nvdisasm's structured form, @ptxforge/sass) whose register operands
 * may still be virtual. Instruction selection builds it from optimized Ori; register assignment replaces the
 * virtual registers; emission lays it out, resolves branch targets, adds control words and encodes it.
 *
 * A virtual register has a file and a width in 32-bit registers (1, 2 or 4). An operand names a component
 * range of it: `part` (first 32-bit component) and `span` (how many it covers: 2 for a 64-bit pair operand such
 * as `R2.64` in an address or the `.64` data of `STG.E.64`). Pairs and quads are allocated aligned, so a span-2
 * operand at part 0 of a width-2 register prints as its even base register.
 */
export type VFile = 'R' | 'P' | 'UR' | 'UP' | 'B';

export interface VReg {
  readonly id: number;
  readonly file: VFile;
  readonly width: 1 | 2 | 4;
  /** For messages: the Ori register it came from (`%rd3`) or a temporary's name. */
  readonly name: string;
  /** A register the calling convention fixes (an ABI call's argument or result: R4...); its first component. */
  readonly fixed?: number;
}

export interface VRegOperand {
  k: 'vreg';
  v: VReg;
  part: number;
  span: number;
  neg?: boolean;
  abs?: boolean;
  not?: boolean;
  sfx?: string[];
}

/** A memory address on a virtual base: `[vR.64+off]` (global/generic, 64-bit base) or `[vR+off]` (shared/local). */
export interface VMemOperand {
  k: 'vmem';
  base?: VReg;
  /** 64-bit base register (`.64` suffix, aligned pair). */
  wide: boolean;
  off: number;
  /** Global-memory descriptor uniform register pair (`desc[UR4]`), set by emission. */
  desc?: boolean;
  /** A 64-bit base printed without `.64` (the `ATOM.E.CAS` form `[R6]`). */
  plain?: boolean;
  /** An access to the stack frame: base R1 (the stack pointer), `off` from the frame's bottom. */
  stack?: boolean;
  /** A uniform-register term URZ beside the base (`[R2+URZ]`: the SYNCS forms have one). */
  urz?: boolean;
}

/** A branch target: the index of a machine block, resolved to its address at emission. */
export interface LabelOperand {
  k: 'label';
  block: number;
}

/** A constant-bank operand indexed by a virtual register: `c[bank][vR + off]`. */
export interface VCBankOperand {
  k: 'vcbank';
  bank: number;
  off: number;
  index: VReg;
}

/**
 * The displacement of a BRX through jump table `table`: resolved at emission to -(address of the BRX + 16), so that
 * the branch lands on the table entry's function-relative address (ptxas's `BRX R4 -0xc0`).
 */
export interface JumpTableOperand {
  k: 'jtable';
  table: number;
}

/** A BRX jump table: its entries' target blocks (table order) and its byte offset in constant bank 2. */
export interface JumpTable {
  targets: number[];
  offset: number;
}

export type MOperand = SassOperand | VRegOperand | VMemOperand | LabelOperand | VCBankOperand | JumpTableOperand;

export interface MGuard {
  v: VReg;
  not: boolean;
}

export interface MInstr {
  opcode: string;
  mods: string[];
  guard?: MGuard;
  /** Operands in SASS order; the first `ndefs` are written. */
  ops: MOperand[];
  ndefs: number;
  /** Source line of the Ori instruction it came from. */
  line?: number;
  /**
   * An ABI call (`CALL.ABS.NOINC Rt` to a function outside the module): the registers it passes and returns,
   * which its operands do not name, the physical registers the callee may overwrite, and the callee's symbol.
   */
  abi?: AbiCallInfo;
}

/** What register allocation and emission must know of an ABI call (abi-call.ts). */
export interface AbiCallInfo {
  callee: string;
  /** Argument registers read (fixed virtual registers R4...). */
  uses: VReg[];
  /** Result registers written (fixed virtual registers R4...). */
  defs: VReg[];
  /** Physical registers the call overwrites besides its results (caller-saved ones, the return address). */
  clobbers: Array<{ file: VFile; n: number }>;
}

export interface MBlock {
  label: string;
  instrs: MInstr[];
}

export interface MParam {
  name: string;
  /** Byte offset in the parameter block (relative to the target's parameter base). */
  offset: number;
  size: number;
  /** Alignment of the parameter in bytes. */
  align: number;
}

export interface MFunction {
  name: string;
  kind: 'entry' | 'func';
  blocks: MBlock[];
  vregs: VReg[];
  params: MParam[];
  /** Constant-bank 0 offset of the parameter block (the target's `paramBase`). */
  paramBase: number;
  /** Bytes of the parameter block. */
  paramBytes: number;
  /** Static shared memory of the function (module and function `.shared` variables it may reach). */
  sharedBytes: number;
  /** The function has shared variables (static or `.extern`): the cubin gets the shared section and its reserve. */
  usesShared?: boolean;
  /** Per-thread local frame (bytes; R1 holds the stack pointer when it is not 0): `.local` variables, then spill slots. */
  frameBytes: number;
  /** Bytes of `.local` variables at the bottom of the frame (8-aligned). */
  localBytes: number;
  /** Global/generic memory is accessed: the entry loads the descriptor pair UR4:UR5 from c[0x0][0x208]. */
  usesGlobalDesc: boolean;
  /** BRX jump tables (`.nv.constant2.<fn>`, 4 bytes per entry), indexed by JumpTableOperand.table. */
  jumpTables: JumpTable[];
  /** Functions outside the module it calls through the ABI (abi-call.ts), in first-call order. */
  externs?: string[];
  /** `.maxntid`/`.reqntid`-style directives carried to the cubin. */
  directives: ReadonlyMap<string, number[]>;
}

export type CodegenErrorCode =
  | 'CODEGEN_NOT_IMPLEMENTED'
  | 'CODEGEN_NO_FORM'
  | 'CODEGEN_REGISTERS'
  | 'CODEGEN_HAZARDS'
  | 'CODEGEN_BAD_INPUT'
  | 'NO_ENCODER';

/** A coded code-generation error (`not implemented: <opcode>` is CODEGEN_NOT_IMPLEMENTED). */
export class CodegenError extends PtxforgeError {
  constructor(code: CodegenErrorCode, message: string) {
    super(code, message);
  }
}

export function isVReg(o: MOperand): o is VRegOperand {
  return (o as VRegOperand).k === 'vreg';
}

/** Virtual registers an operand reads or writes (address bases included). */
export function operandVRegs(o: MOperand): Array<{ v: VReg; part: number; span: number }> {
  if ((o as VRegOperand).k === 'vreg') {
    const r = o as VRegOperand;
    return [{ v: r.v, part: r.part, span: r.span }];
  }
  if ((o as VCBankOperand).k === 'vcbank') return [{ v: (o as VCBankOperand).index, part: 0, span: 1 }];
  if ((o as VMemOperand).k === 'vmem') {
    const m = o as VMemOperand;
    return m.base ? [{ v: m.base, part: 0, span: m.wide ? 2 : 1 }] : [];
  }
  return [];
}
