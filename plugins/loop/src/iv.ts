import type { Block, DomTree, Instr, Loop, Operand, Register } from '@ptxforge/kernel';
import { constBits, isPlainReg } from '@ptxforge/opt-utils';

/** Continue condition of a counted loop, normalized with the induction variable on the left. */
export type Cmp = 'LT' | 'LE' | 'GT' | 'GE' | 'NE' | 'EQ';

/** A rejection: the spec's code (phase 22 rejection table) and our reason. */
export interface Rejection {
  readonly code: number;
  readonly reason: string;
}

/** The spec's rejection categories (sub_7F5D20's string table), by code. */
export const REJECTION_CATEGORY: Readonly<Record<number, string>> = {
  7: 'Performance',
  11: 'Pragma/knob',
  12: 'Budget',
  13: 'Ineligible',
  14: 'Unsupported IV',
  15: 'Unsupported IV',
  16: 'Trip count',
  17: 'Irregular',
  18: 'Trip count',
  19: 'Unsupported IV',
  24: 'Budget',
};

/**
 * A counted loop: `do { body; iv += step } while (iv CMP bound)` with one latch whose last instruction is
 * `@[!]p BRA header`, p computed by one ISETP in the latch (spec: AnalyzeIV sub_1385950, ExtractBound
 * sub_1385E90, VerifyStride sub_138E9C0, mapped onto Ori's register table).
 */
export interface CountedLoop {
  readonly header: Block;
  readonly latch: Block;
  /** `@[!]p BRA header`, the latch's last instruction. */
  readonly backBranch: Instr;
  /** The exit target of the latch (its fall-through, or the target of its final unconditional BRA). */
  readonly exit: Block;
  readonly cmpInstr: Instr;
  readonly iv: Register;
  readonly inc: Instr;
  /**
   * An f32 IV (`FADD iv, K` compared by FSETP with a constant): the trip count comes from simulating the f32
   * adds; only full unrolling takes it (the copies repeat the same adds, so the values are exact).
   */
  readonly float: boolean;
  /** Width of the IV and its compare: 32, or 64 (a 64-bit counter; only full unrolling takes it). */
  readonly bits: 32 | 64;
  /** Signed step (a 32-bit value also for a 64-bit IV). */
  readonly step: number;
  readonly cmp: Cmp;
  readonly signed: boolean;
  readonly bound: Operand;
  /** 1 when the compare reads the IV after this iteration's increment, 0 when before. */
  readonly delta: 0 | 1;
  /** Constant trip count (times the body runs per entry), when init and bound are constants. */
  readonly tripCount: number | undefined;
  /**
   * The loop continues only while another condition holds too (`p = cmp AND q`: a PLOP3 AND of the IV compare
   * with another predicate, or an ISETP combining with one); the IV gives the largest trip count, the loop may
   * leave earlier. Only full unrolling handles it (each copy keeps its conditional exit).
   */
  readonly sideCondition: boolean;
}

const INVERT: Record<Cmp, Cmp> = { LT: 'GE', GE: 'LT', LE: 'GT', GT: 'LE', NE: 'EQ', EQ: 'NE' };
const SWAP: Record<Cmp, Cmp> = { LT: 'GT', GT: 'LT', LE: 'GE', GE: 'LE', NE: 'NE', EQ: 'EQ' };
const CMPS = new Set<string>(['LT', 'LE', 'GT', 'GE', 'NE', 'EQ']);

/** Largest trip count found by simulating a constant loop; longer loops count as unknown. */
export const MAX_SIMULATED_TRIP = 1 << 16;

/** Registers with at most this many definitions are filtered directly; others go through the loop's index. */
const FEW_DEFS = 16;

/**
 * The definitions of registers inside one loop, for one analysis of it. A register reused all over a big function
 * (a loop counter every loop of the function redefines, an accumulator) has thousands of defs: filtering them per
 * loop made phase 22 O(loops x defs). Such a register is looked up in an index of the loop's own instructions,
 * built once per analysis (O(loop size)); a register with few defs is filtered directly. Built per call, never
 * kept: the loop's blocks change when it is transformed.
 */
export class LoopDefs {
  private index: Map<Register, Instr[]> | undefined;
  constructor(readonly loop: Loop) {}
  /** The instructions of the loop that define `r` (each once). */
  of(r: Register): readonly Instr[] {
    if (r.defs.size <= FEW_DEFS) {
      const out: Instr[] = [];
      for (const d of r.defs) if (d.block && this.loop.blockSet.has(d.block)) out.push(d);
      return out;
    }
    if (!this.index) {
      this.index = new Map();
      for (const b of this.loop.blocks) {
        for (const i of b.instrs) {
          for (const x of i.defRegs()) {
            let l = this.index.get(x);
            if (!l) this.index.set(x, (l = []));
            if (l[l.length - 1] !== i) l.push(i);
          }
        }
      }
    }
    return this.index.get(r) ?? [];
  }
  has(r: Register): boolean {
    return this.of(r).length > 0;
  }
  /** The one definition of `r` outside the loop, when it has exactly one there. */
  singleOutside(r: Register): Instr | undefined {
    if (r.defs.size - this.of(r).length !== 1) return undefined;
    for (const d of r.defs) if (!d.block || !this.loop.blockSet.has(d.block)) return d;
    return undefined;
  }
}

/** Whether `o` has the same value in every iteration of `loop` (no def of what it reads inside the loop). */
export function invariantOperand(o: Operand, loop: Loop, defs: LoopDefs = new LoopDefs(loop)): boolean {
  switch (o.kind) {
    case 'imm':
    case 'rz':
    case 'pt':
      return true;
    case 'cbank':
      return !o.index || !defs.has(o.index);
    case 'reg':
      return !defs.has(o.reg);
    default:
      return false;
  }
}

/**
 * Whether `r` is read exactly once in the whole function (one operand of one instruction), without counting every
 * use of a register with many readers.
 */
function readOnce(r: Register): boolean {
  if (r.uses.size !== 1) return false;
  for (const c of r.uses.values()) return c === 1;
  return false;
}

/** Evaluate `a CMP b` on 32-bit (or `bits`-bit) patterns. */
export function compare(cmp: Cmp, signed: boolean, a: bigint, b: bigint, bits = 32): boolean {
  const x = signed ? BigInt.asIntN(bits, a) : BigInt.asUintN(bits, a);
  const y = signed ? BigInt.asIntN(bits, b) : BigInt.asUintN(bits, b);
  switch (cmp) {
    case 'LT': return x < y;
    case 'LE': return x <= y;
    case 'GT': return x > y;
    case 'GE': return x >= y;
    case 'NE': return x !== y;
    case 'EQ': return x === y;
  }
}

/**
 * IV analysis, bound extraction and stride verification for one loop. Returns the counted-loop facts or the
 * rejection (codes 13, 14, 15, 16, 17, 18, 19 of the spec's table).
 */
export function analyzeCountedLoop(loop: Loop, dom: DomTree): CountedLoop | Rejection {
  const header = loop.header;
  const defs = new LoopDefs(loop);
  if (loop.latches.length !== 1) return { code: 17, reason: `irregular loop: ${loop.latches.length} back edges into the header` };
  const latch = loop.latches[0]!;
  // The latch ends `@p BRA header` and falls through to the exit, or `@p BRA header; BRA exit` (nvcc's
  // `bra.uni` after the back branch when the exit is laid out elsewhere).
  let back: Instr | undefined = latch.instrs[latch.instrs.length - 1];
  let exit = latch.layoutNext;
  if (back && back.opcode === 'BRA' && !back.guard && back.uses.length === 1 && back.uses[0]!.kind === 'label') {
    exit = back.uses[0].block;
    back = latch.instrs[latch.instrs.length - 2];
    if (latch.bodyEnd !== latch.instrs.length - 2) back = undefined;
  } else if (latch.bodyEnd !== latch.instrs.length - 1) back = undefined;
  if (!back || back.opcode !== 'BRA' || !back.guard || back.uses.length !== 1 || back.uses[0]!.kind !== 'label' || back.uses[0].block !== header) {
    return { code: 13, reason: `loop exit is not a conditional branch back to the header (latch ends with ${latch.instrs[latch.instrs.length - 1]?.fullOpcode ?? 'nothing'})` };
  }
  if (!exit || loop.blockSet.has(exit)) {
    return { code: 13, reason: 'the latch does not leave the loop after its conditional back branch' };
  }
  const p = back.guard.reg;
  let cmpInstr: Instr | undefined;
  for (const d of defs.of(p)) {
    if (cmpInstr) return { code: 14, reason: `the loop predicate ${p.name} has several definitions in the loop` };
    cmpInstr = d;
  }
  if (!cmpInstr) return { code: 14, reason: `the loop predicate ${p.name} is not computed in the loop` };
  // `p = PLOP3.LUT a, b, PT, 0xC0` (a AND b) with `@p BRA header`: the loop runs while both hold; one of them
  // may be the IV compare (a counted loop with an extra exit condition, e.g. `while (x > 1 && c < 200)`).
  let sideCondition = false;
  if (cmpInstr.opcode === 'PLOP3' && !back.guard.not) {
    const inner = conjunctiveCompare(cmpInstr, loop, latch, defs);
    if (inner) {
      cmpInstr = inner;
      sideCondition = true;
    }
  }
  if (cmpInstr.opcode === 'FSETP' && !sideCondition) {
    const f = floatCountedLoop(loop, dom, latch, back, exit, cmpInstr, defs);
    if (f) return f;
  }
  if (cmpInstr.opcode === 'FSETP' || cmpInstr.opcode === 'DSETP' || cmpInstr.opcode === 'HSETP2') {
    return { code: 15, reason: `the loop condition is a floating-point compare without a constant trip count (${cmpInstr.fullOpcode})` };
  }
  if (cmpInstr.opcode !== 'ISETP' || cmpInstr.block !== latch || cmpInstr.guard || cmpInstr.defs.length !== 1) {
    return { code: 14, reason: `the loop predicate is not one unguarded ISETP in the latch (${cmpInstr.fullOpcode})` };
  }
  const [cmpMod, tyMod, combine, ...extra] = cmpInstr.mods;
  if (!cmpMod || !CMPS.has(cmpMod) || (tyMod !== 'S32' && tyMod !== 'U32' && tyMod !== 'S64' && tyMod !== 'U64')) {
    return { code: 15, reason: `the loop compare is not a 32- or 64-bit integer compare (${cmpInstr.fullOpcode})` };
  }
  const bits: 32 | 64 = tyMod === 'S64' || tyMod === 'U64' ? 64 : 32;
  const third = cmpInstr.uses[2];
  // `ISETP.cmp.AND p, iv, n, q` with `@p BRA header` is the IV compare AND q: a side condition.
  if (combine === 'AND' && !extra.length && cmpInstr.uses.length === 3 && third && isPlainReg(third) && third.reg.cls === 'P' && !back.guard.not && !sideCondition) {
    sideCondition = true;
  } else if (combine !== 'AND' || extra.length || cmpInstr.uses.length !== 3 || !third || third.kind !== 'pt' || third.not) {
    return { code: 16, reason: `bound extraction failed: the compare ${cmpInstr.fullOpcode} combines with another predicate` };
  }
  const [a, b] = [cmpInstr.uses[0]!, cmpInstr.uses[1]!];
  const aVar = isPlainReg(a) && defs.has(a.reg);
  const bVar = isPlainReg(b) && defs.has(b.reg);
  if (isPlainReg(a) && isPlainReg(b) && a.reg === b.reg) return { code: 18, reason: 'the IV limit register is the IV itself' };
  if (!aVar && !bVar) return { code: 14, reason: 'neither compare operand changes in the loop' };
  let cmp = cmpMod as Cmp;
  let ivOp: Operand;
  let bound: Operand;
  if (aVar && bVar) {
    // Both change in the loop: one of them is the limit, redefined in the body (VerifyStride bit 0).
    const aInc = simpleIncrement(a.kind === 'reg' ? a.reg : undefined, defs);
    return { code: 18, reason: `the IV limit ${operandName(aInc ? b : a)} is redefined in the loop body` };
  }
  if (aVar) {
    ivOp = a;
    bound = b;
  } else {
    ivOp = b;
    bound = a;
    cmp = SWAP[cmp];
  }
  if (!invariantOperand(bound, loop, defs)) return { code: 16, reason: `bound extraction failed: ${operandName(bound)} is not loop-invariant` };
  if (ivOp.kind !== 'reg' || ivOp.neg || ivOp.abs || ivOp.not) return { code: 14, reason: 'the IV operand of the compare carries a modifier' };
  const iv = ivOp.reg;
  if (iv.cls !== 'R' || iv.width !== bits / 32) return { code: 15, reason: `the IV ${iv.name} is not a ${bits}-bit integer register` };
  if (back.guard.not) cmp = INVERT[cmp];
  const inLoopDefs = defs.of(iv);
  if (inLoopDefs.length !== 1) return { code: 17, reason: `stride verification failed: the IV ${iv.name} is defined ${inLoopDefs.length} times in the loop` };
  const inc = inLoopDefs[0]!;
  const incForm = simpleIncrement(iv, defs, bits);
  if (!incForm) {
    if (isInvariantStrideAdd(inc, iv, loop, defs)) return { code: 16, reason: `bound extraction failed: the stride of ${iv.name} is a loop-invariant register, not a constant` };
    return { code: 14, reason: `IV analysis failed: ${iv.name} is not updated by IADD3 ${iv.name}, K` };
  }
  if (!dom.dominates(inc.block!, latch)) return { code: 17, reason: `irregular loop: the IV update of ${iv.name} does not run in every iteration` };
  const step = incForm.step;
  let delta: 0 | 1 = 1;
  if (inc.block === latch && latch.instrs.indexOf(inc) > latch.instrs.indexOf(cmpInstr)) delta = 0;
  // Direction (spec: stride sign against the loop condition, code 19).
  if (step === 0) return { code: 19, reason: 'the IV stride is zero' };
  if (((cmp === 'LT' || cmp === 'LE') && step < 0) || ((cmp === 'GT' || cmp === 'GE') && step > 0) || cmp === 'EQ') {
    return { code: 19, reason: `the IV stride ${step} is inconsistent with the loop condition ${iv.name} ${cmp} ${operandName(bound)}` };
  }
  const signed = tyMod === 'S32' || tyMod === 'S64';
  const tripCount = constantTrip(loop, dom, defs, iv, step, cmp, signed, bound, delta, bits);
  return { header, latch, backBranch: back, exit, cmpInstr, iv, inc, float: false, bits, step, cmp, signed, bound, delta, tripCount, sideCondition };
}

/**
 * An f32 counted loop with a constant trip count (spec: EvaluateAndEmitFullUnroll's floating-point stride path,
 * FSETP bounds): `iv = FADD iv, K` (no modifiers: round to nearest, no flush), `p = FSETP.cmp.AND iv, N, PT`
 * with constants K, N and a constant initial `MOV`. The trip count is found by simulating the f32 adds
 * (Math.fround of the double sum is the correctly rounded f32 sum); undefined when no such loop or no finite
 * trip count within MAX_SIMULATED_TRIP.
 */
function floatCountedLoop(loop: Loop, dom: DomTree, latch: Block, back: Instr, exit: Block, fsetp: Instr, defs: LoopDefs): CountedLoop | undefined {
  if (fsetp.block !== latch || fsetp.guard || fsetp.defs.length !== 1 || fsetp.uses.length !== 3) return undefined;
  const [cmpMod, combine, ...extra] = fsetp.mods;
  if (!cmpMod || !CMPS.has(cmpMod) || combine !== 'AND' || extra.length) return undefined;
  const third = fsetp.uses[2]!;
  if (third.kind !== 'pt' || third.not) return undefined;
  const [a, b] = [fsetp.uses[0]!, fsetp.uses[1]!];
  const aVar = isPlainReg(a) && defs.has(a.reg);
  const bVar = isPlainReg(b) && defs.has(b.reg);
  if (aVar === bVar) return undefined;
  const ivOp = aVar ? a : b;
  const bound = aVar ? b : a;
  let cmp = aVar ? (cmpMod as Cmp) : SWAP[cmpMod as Cmp];
  if (back.guard!.not) cmp = INVERT[cmp];
  if (ivOp.kind !== 'reg' || ivOp.reg.width !== 1) return undefined;
  const iv = ivOp.reg;
  const n = constBits(bound, 32);
  if (n === undefined) return undefined;
  const inLoop = defs.of(iv);
  const init = defs.singleOutside(iv);
  if (inLoop.length !== 1 || !init) return undefined;
  const inc = inLoop[0]!;
  if (inc.opcode !== 'FADD' || inc.guard || inc.mods.length || inc.defs.length !== 1 || inc.uses.length !== 2) return undefined;
  if (!dom.dominates(inc.block!, latch)) return undefined;
  const selfAt = inc.uses.findIndex((o) => isPlainReg(o) && o.reg === iv);
  const kOp = inc.uses[1 - selfAt];
  const k = selfAt >= 0 && kOp ? constBits(kOp, 32) : undefined;
  if (k === undefined) return undefined;
  if (init.guard || init.opcode !== 'MOV' || init.uses.length !== 1 || !init.block || !dom.dominates(init.block, loop.header)) return undefined;
  const v0 = constBits(init.uses[0]!, 32);
  if (v0 === undefined) return undefined;
  const delta: 0 | 1 = inc.block === latch && latch.indexOf(inc) > latch.indexOf(fsetp) ? 0 : 1;
  const f32 = (bits: bigint): number => new Float32Array(new Uint32Array([Number(bits)]).buffer)[0]!;
  const step = f32(k);
  const limit = f32(n);
  let v = f32(v0);
  let tripCount: number | undefined;
  for (let j = 1; j <= MAX_SIMULATED_TRIP; j++) {
    const next = Math.fround(v + step);
    const c = delta ? next : v;
    const holds = cmp === 'LT' ? c < limit : cmp === 'LE' ? c <= limit : cmp === 'GT' ? c > limit : cmp === 'GE' ? c >= limit : cmp === 'NE' ? c !== limit : c === limit;
    if (!holds) {
      tripCount = j;
      break;
    }
    if (!Number.isFinite(next)) break;
    v = next;
  }
  if (tripCount === undefined) return undefined;
  return { header: loop.header, latch, backBranch: back, exit, cmpInstr: fsetp, iv, inc, float: true, bits: 32, step: 0, cmp, signed: false, bound, delta, tripCount, sideCondition: false };
}

/**
 * For `p = PLOP3.LUT a, b, PT, 0xC0, 0` (p = a AND b; LUT over the inputs 0xF0, 0xCC, 0xAA), the input that is
 * an unguarded integer ISETP in the latch, defined once in the loop, with a plain PT combine: the IV compare.
 */
function conjunctiveCompare(plop: Instr, loop: Loop, latch: Block, loopDefs: LoopDefs): Instr | undefined {
  if (plop.guard || plop.defs.length !== 1 || plop.uses.length !== 5) return undefined;
  const [a, b, c, lut, lut2] = plop.uses;
  if (!a || !b || !c || c.kind !== 'pt' || c.not || constBits(lut!, 32) !== 0xc0n || constBits(lut2!, 32) !== 0n) return undefined;
  for (const o of [a, b]) {
    if (!isPlainReg(o)) continue;
    const defs = loopDefs.of(o.reg);
    const d = defs[0];
    if (defs.length !== 1 || !d || d.opcode !== 'ISETP' || d.block !== latch || d.guard || d.defs.length !== 1) continue;
    if (!readOnce(o.reg)) continue;
    const third = d.uses[2];
    if (d.mods[2] !== 'AND' || d.uses.length !== 3 || !third || third.kind !== 'pt' || third.not) continue;
    const [x, y] = [d.uses[0]!, d.uses[1]!];
    const xVar = isPlainReg(x) && loopDefs.has(x.reg);
    const yVar = isPlainReg(y) && loopDefs.has(y.reg);
    if (xVar === yVar) continue;
    const ivOp = xVar ? x : y;
    if (ivOp.kind === 'reg' && simpleIncrement(ivOp.reg, loopDefs, ivOp.reg.width === 2 ? 64 : 32)) return d;
  }
  return undefined;
}

function operandName(o: Operand): string {
  if (o.kind === 'reg') return o.reg.name;
  if (o.kind === 'imm') return String(o.value);
  if (o.kind === 'cbank') return `c[${o.bank}][0x${o.offset.toString(16)}]`;
  return o.kind;
}

/**
 * `iv = IADD3 iv, K, RZ` (any operand order), unguarded, without modifiers: returns K as a signed step, which
 * must fit 32 bits also for a 64-bit IV.
 */
function simpleIncrement(iv: Register | undefined, loopDefs: LoopDefs, bits = 32): { step: number } | undefined {
  if (!iv) return undefined;
  const defs = loopDefs.of(iv);
  if (defs.length !== 1) return undefined;
  let inc = defs[0]!;
  // `t = IADD3 iv, K; ...; iv = MOV t` (the increment through a copy, as nvcc's PTX has it when the compare
  // reads the old value): t defined once in the loop, in the same block before the copy.
  if (inc.opcode === 'MOV' && !inc.guard && !inc.mods.length && inc.uses.length === 1 && isPlainReg(inc.uses[0]!)) {
    const t = inc.uses[0].reg;
    const tDefs = loopDefs.of(t);
    const td = tDefs[0];
    if (tDefs.length !== 1 || !td || td.block !== inc.block || td.block!.indexOf(td) > inc.block!.indexOf(inc)) return undefined;
    inc = td;
  }
  if (inc.opcode !== 'IADD3' || inc.guard || inc.mods.length || inc.defs.length !== 1 || inc.uses.length !== 3) return undefined;
  let self = 0;
  let k = 0n;
  for (const o of inc.uses) {
    if (isPlainReg(o) && o.reg === iv) self++;
    else {
      const v = constBits(o, bits);
      if (v === undefined) return undefined;
      k += v;
    }
  }
  if (self !== 1) return undefined;
  const step = BigInt.asIntN(bits, k);
  if (step !== BigInt.asIntN(32, step)) return undefined;
  return { step: Number(step) };
}

function isInvariantStrideAdd(inc: Instr, iv: Register, loop: Loop, defs: LoopDefs): boolean {
  if (inc.opcode !== 'IADD3' || inc.guard) return false;
  let self = 0;
  for (const o of inc.uses) {
    if (isPlainReg(o) && o.reg === iv) self++;
    else if (!invariantOperand(o, loop, defs)) return false;
  }
  return self === 1;
}

/** Trip count of a loop whose IV starts from a constant and whose bound is a constant (by simulation). */
function constantTrip(loop: Loop, dom: DomTree, defs: LoopDefs, iv: Register, step: number, cmp: Cmp, signed: boolean, bound: Operand, delta: 0 | 1, bits: 32 | 64): number | undefined {
  const n = constBits(bound, bits);
  if (n === undefined) return undefined;
  const init = defs.singleOutside(iv);
  if (!init) return undefined;
  if (init.guard || init.opcode !== 'MOV' || init.uses.length !== 1 || !init.block || !dom.dominates(init.block, loop.header)) return undefined;
  const v0 = constBits(init.uses[0]!, bits);
  if (v0 === undefined) return undefined;
  let v = v0;
  const s = BigInt(step);
  for (let k = 1; k <= MAX_SIMULATED_TRIP; k++) {
    const next = BigInt.asUintN(bits, v + s);
    const c = delta ? next : v;
    if (!compare(cmp, signed, c, n, bits)) return k;
    v = next;
  }
  return undefined;
}
