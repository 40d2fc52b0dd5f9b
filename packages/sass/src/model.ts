import type { ControlInfo } from './control.js';

/**
 * Family-independent structured form of one SASS instruction, as nvdisasm shows it. Encoders and decoders
 * of every family produce and consume this form; the printer and parser convert it to and from text.
 */
export type RegFile = 'R' | 'UR' | 'P' | 'UP' | 'B';

/** Register numbers of the zero / true registers per file (RZ, URZ, PT, UPT). */
export const ZERO_REG: Readonly<Record<RegFile, number>> = { R: 255, UR: 63, P: 7, UP: 7, B: -1 };

interface OperandBase {
  /** Separator before this operand: ', ' (default) or a single space (`CALL.REL.NOINC R8 0x0`). */
  sep?: ' ';
}

export interface RegOperand extends OperandBase {
  k: 'reg';
  file: RegFile;
  /** Register number; 255 = RZ, 63 = URZ, 7 = PT/UPT. */
  n: number;
  neg?: boolean;
  abs?: boolean;
  /** Logical (`!P0`) or bitwise (`~R0`) negation. */
  not?: boolean;
  reuse?: boolean;
  /** With abs: swizzle suffixes printed after the closing bar (`|R14|.H0_H0`) rather than inside. */
  sfxOutsideAbs?: boolean;
  /** Suffixes after the register (`.H0_H0`, `.64`, `.ROW`, ...), without the dot, in order. */
  sfx?: string[];
}

export interface IntOperand extends OperandBase {
  k: 'int';
  /** Value as printed (nvdisasm prints hex, signed where the operand is signed). */
  v: number;
  /** Relocation expression shown instead of the value (`32@lo(flist)`); the word holds 0 there. */
  reloc?: string;
}

export interface FloatOperand extends OperandBase {
  k: 'float';
  v: number;
  /** NaN payload spelling when v is NaN (`+QNAN`, `-QNAN`, `NAN`). */
  nan?: string;
}

export interface CBankOperand extends OperandBase {
  k: 'cbank';
  bank: number;
  off: number;
  /** Indirect address register (`c[0x3][R19+0x4]`, `c[0x3][UR4]`). */
  reg?: { file: 'R' | 'UR'; n: number };
  neg?: boolean;
  abs?: boolean;
  not?: boolean;
  sfx?: string[];
}

export interface MemOperand extends OperandBase {
  k: 'mem';
  /** `desc[URn]` prefix. */
  desc?: number;
  /** Base register (255 = RZ, hidden when RZ unless nothing else is printed). */
  base: number;
  /** Suffixes of the base register (`64`, `X16`, `U32`). */
  baseSfx?: string[];
  /** Uniform register term (shown whenever the form has one, URZ included). */
  ur?: number;
  /** Signed immediate offset (hidden when 0). */
  off: number;
  /** `gdesc[URn]` (Hopper GMMA descriptor; `ur` holds n). */
  gdesc?: boolean;
  /** `desc[URn]` with no address part (UTMALDG). */
  descOnly?: boolean;
}

export interface NameOperand extends OperandBase {
  k: 'name';
  /** Special names: SR_TID.X, SRZ, PR, 2D, TEX_HEADER_DIMENSION, {4,3,2,1}, ... */
  name: string;
}

export type SassOperand = RegOperand | IntOperand | FloatOperand | CBankOperand | MemOperand | NameOperand;

export interface Guard {
  file: 'P' | 'UP';
  n: number;
  not: boolean;
}

export interface SassInstruction {
  /** Guard predicate; absent means always (`@PT`). */
  guard?: Guard;
  /** Base mnemonic (`IADD3`). */
  opcode: string;
  /** Mnemonic modifiers in printed order, without dots (`['X']` for IADD3.X). */
  mods: string[];
  operands: SassOperand[];
  /** Scheduling control (absent when unknown / not printed). */
  control?: ControlInfo;
  /**
   * Fields the word has but nvdisasm does not print, keyed `pos:width` (bit 101 of Ampere memory
   * instructions: set by CUDA 11 ptxas, clear by CUDA 13 for the same text). Absent: the row's default.
   */
  hidden?: Record<string, number>;
}

/** A word the tables do not fully claim: kept as raw bits with the opcode field for diagnostics. */
export interface UnknownInstruction {
  unknown: true;
  /** The opcode field value (bits 0..11 for Volta+). */
  opcodeField: number;
  /** Why: no row for the opcode, or bits no row claims. */
  reason: string;
  control?: ControlInfo;
}

export type DecodedInstruction = SassInstruction | UnknownInstruction;

export function isUnknown(d: DecodedInstruction): d is UnknownInstruction {
  return (d as UnknownInstruction).unknown === true;
}
