import { PtxforgeError } from '../errors.js';
import type { RegisterClassInfo, RegisterClassName, RegisterFile } from '../services.js';
import type { ControlInfo, Instr, Operand, OriFunction, RegClass, Register } from './core.js';

/**
 * Machine state in Ori (issue 9): physical registers and per-instruction control records.
 *
 * Physical registers are Register objects whose name has the upper-case prefix of their class and width:
 * `%R4` (R4), `%RD4` (the pair R4:R5), `%RQ8` (the quad R8..R11), `%UR2`, `%URD2`, `%P0`, `%UP1`, `%B3`
 * (RZ, URZ and PT stay the operands they were). They live in the function's register table like virtual
 * ones, so def/use chains, the builder and every mutation work on allocated code as before; `overlaps`
 * tells aliasing of a pair with its halves. A register allocator produces an assignment (virtual register
 * → first physical number) and applies it with `assignPhysicalRegisters`, which checks counts and pair/quad
 * alignment against the target's RegisterFile service.
 *
 * The control record (`Instr.control`: stall, yield, read/write barrier, wait mask, reuse) prints before the
 * instruction in CuAssembler's notation, `[B0-2---:R-:W1:Y:S04] %R2 = IADD3 ...`, with `:U0-2-` added when
 * reuse flags are set; Ori text with both round-trips byte-identically.
 */

/** The RegisterFile class of each Ori register class. */
export const REGISTER_CLASS_OF: Readonly<Record<RegClass, RegisterClassName>> = {
  R: 'GPR', P: 'PRED', UR: 'UGPR', UP: 'UPRED', B: 'BARRIER',
};

/** Scoreboards (dependency barriers) of the control word, SB0..SB5. */
export const SCOREBOARD_COUNT = 6;
/** Highest stall count a control word holds. */
export const MAX_STALL = 15;
/** Operand slots that have a reuse flag. */
export const REUSE_SLOTS = 4;

/** A control record with nothing set: no stall, no yield, no barriers, no waits, no reuse. */
export function emptyControl(): ControlInfo {
  return { stall: 0, yield: false, readBarrier: undefined, writeBarrier: undefined, waitMask: 0, reuse: 0 };
}

/** What is wrong with a control record (undefined when every field is in range). */
export function checkControl(c: ControlInfo): string | undefined {
  if (!Number.isInteger(c.stall) || c.stall < 0 || c.stall > MAX_STALL) return `stall ${c.stall} is outside 0..${MAX_STALL}`;
  for (const [what, b] of [['read barrier', c.readBarrier], ['write barrier', c.writeBarrier]] as const) {
    if (b !== undefined && (!Number.isInteger(b) || b < 0 || b >= SCOREBOARD_COUNT)) return `${what} ${b} is outside 0..${SCOREBOARD_COUNT - 1}`;
  }
  if (!Number.isInteger(c.waitMask) || c.waitMask < 0 || c.waitMask >= 1 << SCOREBOARD_COUNT) return `wait mask ${c.waitMask} is not a ${SCOREBOARD_COUNT}-bit mask`;
  if (!Number.isInteger(c.reuse) || c.reuse < 0 || c.reuse >= 1 << REUSE_SLOTS) return `reuse ${c.reuse} is not a ${REUSE_SLOTS}-bit mask`;
  if (typeof c.yield !== 'boolean') return 'yield must be a boolean';
  return undefined;
}

/** `B0-2---:R-:W1:Y:S04` (+ `:U0-2-` when reuse flags are set): wait mask, read/write barrier, yield, stall. */
export function formatControl(c: ControlInfo): string {
  const bad = checkControl(c);
  if (bad) throw new PtxforgeError('IR_BAD_CONTROL', `control record: ${bad}`);
  const mask = (m: number, n: number): string => {
    let s = '';
    for (let k = 0; k < n; k++) s += m & (1 << k) ? String(k) : '-';
    return s;
  };
  const bar = (b: number | undefined): string => (b === undefined ? '-' : String(b));
  const reuse = c.reuse ? `:U${mask(c.reuse, REUSE_SLOTS)}` : '';
  return `B${mask(c.waitMask, SCOREBOARD_COUNT)}:R${bar(c.readBarrier)}:W${bar(c.writeBarrier)}:${c.yield ? 'Y' : '-'}:S${String(c.stall).padStart(2, '0')}${reuse}`;
}

const CONTROL_RE = /^B([0-5-]{6}):R([0-5-]):W([0-5-]):([Y-]):S(\d\d)(?::U([0-3-]{4}))?$/;

/** Parse `formatControl`'s text (IR_BAD_CONTROL when malformed or when a mask digit is out of place). */
export function parseControl(s: string): ControlInfo {
  const m = CONTROL_RE.exec(s);
  if (!m) throw new PtxforgeError('IR_BAD_CONTROL', `bad control record '${s}' (expected e.g. B0-----:R-:W1:Y:S04, optionally :U0---)`);
  const mask = (t: string): number => {
    let v = 0;
    for (let k = 0; k < t.length; k++) {
      if (t[k] === '-') continue;
      if (t[k] !== String(k)) throw new PtxforgeError('IR_BAD_CONTROL', `bad control record '${s}': position ${k} of a mask holds '${t[k]}' (expected '${k}' or '-')`);
      v |= 1 << k;
    }
    return v;
  };
  const c: ControlInfo = {
    stall: Number(m[5]),
    yield: m[4] === 'Y',
    readBarrier: m[2] === '-' ? undefined : Number(m[2]),
    writeBarrier: m[3] === '-' ? undefined : Number(m[3]),
    waitMask: mask(m[1]!),
    reuse: m[6] ? mask(m[6]) : 0,
  };
  const bad = checkControl(c);
  if (bad) throw new PtxforgeError('IR_BAD_CONTROL', `bad control record '${s}': ${bad}`);
  return c;
}

/** The class entry of a register in the target's register file, if the target has that class. */
export function registerClassInfo(file: RegisterFile, cls: RegClass): RegisterClassInfo | undefined {
  const name = REGISTER_CLASS_OF[cls];
  return file.classes.find((c) => c.name === name);
}

/**
 * What is wrong with physical register `first` of class `cls`, `width` wide, on a target with `file`
 * (undefined when it is fine): the class must exist there, the registers lie below the class's count (the
 * zero register RZ/URZ/PT is an operand kind of its own) and a pair/quad is aligned.
 */
export function checkPhysical(file: RegisterFile, cls: RegClass, first: number, width: number): string | undefined {
  const info = registerClassInfo(file, cls);
  if (!info) return `the target has no ${REGISTER_CLASS_OF[cls]} registers (${cls})`;
  if (first + width > info.count) return `${cls}${first}${width > 1 ? `..${cls}${first + width - 1}` : ''} is beyond the ${info.count} allocatable ${info.name} registers`;
  const align = info.alignment[width];
  if (align && first % align !== 0) return `a ${width}-register ${info.name} value must start at a multiple of ${align}, not ${cls}${first}`;
  return undefined;
}

/**
 * Apply a register assignment: every operand, guard, address base and constant-bank index naming a virtual
 * register of `assignment` is rewritten to the physical register(s) starting at the assigned number, with the
 * same class and width (so a 64-bit value gets a pair). Parameters and results of a `.func` are rewritten
 * too. Checked before anything changes (IR_BAD_ASSIGNMENT), so a refused assignment leaves the function as it
 * was. Cost: linear in the assigned registers' defs and uses.
 */
export function assignPhysicalRegisters(fn: OriFunction, assignment: ReadonlyMap<Register, number>, file: RegisterFile): void {
  const target = new Map<Register, Register>();
  for (const [v, first] of assignment) {
    if (v.isPhysical) throw new PtxforgeError('IR_BAD_ASSIGNMENT', `${fn.name}: ${v.name} is already a physical register`);
    if (fn.getReg(v.name) !== v) throw new PtxforgeError('IR_BAD_ASSIGNMENT', `${fn.name}: ${v.name} is not a register of this function`);
    if (!Number.isInteger(first) || first < 0) throw new PtxforgeError('IR_BAD_ASSIGNMENT', `${fn.name}: ${v.name} → ${first}: a register number must be a non-negative integer`);
    const bad = checkPhysical(file, v.cls, first, v.width);
    if (bad) throw new PtxforgeError('IR_BAD_ASSIGNMENT', `${fn.name}: ${v.name} → ${v.cls}${first}: ${bad}`);
  }
  for (const [v, first] of assignment) target.set(v, fn.physReg(v.cls, first, v.width));
  const touched = new Set<Instr>();
  for (const v of assignment.keys()) {
    for (const i of v.defs) touched.add(i);
    for (const i of v.uses.keys()) touched.add(i);
  }
  const map = (r: Register): Register => target.get(r) ?? r;
  const mapOp = (o: Operand): Operand => {
    switch (o.kind) {
      case 'reg':
        return target.has(o.reg) ? { ...o, reg: map(o.reg) } : o;
      case 'mem':
        return o.base && target.has(o.base) ? { ...o, base: map(o.base) } : o;
      case 'cbank':
        return o.index && target.has(o.index) ? { ...o, index: map(o.index) } : o;
      default:
        return o;
    }
  };
  for (const i of touched) {
    if (i.guard && target.has(i.guard.reg)) i.setGuard({ reg: map(i.guard.reg), not: i.guard.not });
    i.replaceOperands({ defs: i.defs.map(mapOp), uses: i.uses.map(mapOp) });
  }
  for (const p of fn.params) {
    if (p.reg && target.has(p.reg)) {
      p.reg = map(p.reg);
      p.reg.isParam = true;
    }
  }
  const results = fn.results as Register[];
  for (let k = 0; k < results.length; k++) results[k] = map(results[k]!);
}

/** What the machine-state verifier checks beyond the structural rules. */
export interface MachineVerifyOptions {
  /** The target's register file: physical registers must exist there, within counts, aligned. */
  readonly registerFile?: RegisterFile;
  /** After allocation (PhysicalRegisters holds): no virtual register may remain. */
  readonly requirePhysical?: boolean;
  /** After scoreboarding (ControlRecords holds): every instruction has a control record. */
  readonly requireControl?: boolean;
}

/** One machine-state problem (code, message, the instruction) for the verifier to report. */
export interface MachineIssue {
  readonly code: 'ORI_VERIFY_CONTROL' | 'ORI_VERIFY_PHYSICAL' | 'ORI_VERIFY_VIRTUAL_AFTER_RA';
  readonly message: string;
  readonly instr: Instr;
}

/** Machine-state rules over one instruction (the verifier calls it for every instruction). */
export function checkMachineState(i: Instr, o: MachineVerifyOptions, out: MachineIssue[]): void {
  if (i.control) {
    const bad = checkControl(i.control);
    if (bad) out.push({ code: 'ORI_VERIFY_CONTROL', message: `control record: ${bad}`, instr: i });
  } else if (o.requireControl) {
    out.push({ code: 'ORI_VERIFY_CONTROL', message: `${i.opcode} has no control record after scoreboarding`, instr: i });
  }
  if (!o.registerFile && !o.requirePhysical) return;
  const seen = new Set<Register>();
  const check = (r: Register): void => {
    if (seen.has(r)) return;
    seen.add(r);
    if (!r.isPhysical) {
      if (o.requirePhysical) out.push({ code: 'ORI_VERIFY_VIRTUAL_AFTER_RA', message: `virtual register ${r.name} remains after register allocation`, instr: i });
      return;
    }
    const bad = o.registerFile && checkPhysical(o.registerFile, r.cls, r.phys!, r.width);
    if (bad) out.push({ code: 'ORI_VERIFY_PHYSICAL', message: `${r.name}: ${bad}`, instr: i });
  };
  for (const r of i.defRegs()) check(r);
  for (const r of i.useRegs()) check(r);
}
