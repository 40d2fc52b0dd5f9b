/**
 * The structured view of one Volta+ SASS instruction the hazard checker consumes. It is deliberately small:
 * a decoder (@ptxforge/sass) or a listing parser (`parseSassText`) fills it; the checker never looks at raw bits.
 */

/** Register files the scoreboard logic tracks. `B` are the convergence barriers of BSSY/BSYNC/BMOV. */
export type RegFile = 'R' | 'UR' | 'P' | 'UP' | 'B';

/** `count` consecutive registers starting at `index` (R2 with count 2 is the pair R2:R3). */
export interface RegRef {
  file: RegFile;
  index: number;
  count: number;
}

export type OperandKind =
  | 'reg' // R0..R254, RZ
  | 'ureg' // UR0..UR62, URZ
  | 'pred' // P0..P6, PT
  | 'upred' // UP0..UP6, UPT
  | 'cbar' // B0..B15
  | 'sreg' // SR_TID.X, SRZ, ...
  | 'sb' // SB0..SB5 (DEPBAR operands)
  | 'prmask' // PR / UPR (all predicates, P2R/R2P)
  | 'imm'
  | 'cbank' // c[0x0][0x160], c[0x2][R2]
  | 'mem' // [R2.64+0x10], desc[UR4][R2.64], [UR36]
  | 'label' // `(.L_x_1), with a resolved target address when known
  | 'other';

export interface SassOperandView {
  kind: OperandKind;
  /** The register of a reg/ureg/pred/upred/cbar operand (count 1); absent for RZ, URZ, PT, UPT. */
  reg?: RegRef;
  /** Registers read to form an address or a constant-bank index (mem and cbank operands). */
  addrRegs?: RegRef[];
  /** `.reuse` on this operand. */
  reuse?: boolean;
  /** Immediate value (imm, sb index) when it fits a number. */
  value?: number;
  /** Branch target address (label operands), when known. */
  target?: number;
  text: string;
}

/** The 23 scheduling bits of a Volta+ instruction word (bits 105..125). */
export interface ControlInfo {
  /** Stall count 0..15: cycles before the next instruction of the warp may issue. */
  stall: number;
  /** Yield hint. Encoded inverted: bit 109 = 0 means yield (nvdisasm shows "Y"). */
  yield: boolean;
  /** Write scoreboard 0..5 set by this instruction (released when its results are written), or null. */
  wbar: number | null;
  /** Read scoreboard 0..5 (released when its source registers have been read), or null. */
  rbar: number | null;
  /** Scoreboards 0..5 this instruction waits on before it issues (bit k = SBk). */
  waitMask: number;
  /** Reuse flags, bit k for operand slot k (a, b, c, d). */
  reuse: number;
}

export interface Guard {
  file: 'P' | 'UP';
  /** 7 = PT */
  index: number;
  negated: boolean;
}

export interface HazardInstr {
  /** Byte address within the function. */
  addr: number;
  /** Mnemonic without modifiers: IMAD, LDG, BRA. */
  opcode: string;
  /** Modifiers in order: ['WIDE', 'U32'] for IMAD.WIDE.U32. */
  mods: string[];
  guard?: Guard;
  operands: SassOperandView[];
  control: ControlInfo;
  /** Disassembly text for reports. */
  text?: string;
  /** Where a direct branch (BRA, JMP) goes, when the decoder knows it (label operands are read otherwise). */
  branchTarget?: number;
}

/** One function body in address order plus what the decoder knows about indirect branches. */
export interface HazardFunction {
  name: string;
  instrs: HazardInstr[];
  /** Targets of BRX/JMX (EIATTR_INDIRECT_BRANCH_TARGETS or a jump table), when known. */
  indirectTargets?: number[];
  /** Further entry points (subroutines placed in the same section, reached by CALL), besides the first word. */
  entries?: number[];
}
