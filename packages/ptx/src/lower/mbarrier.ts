import { PT, RZ, imm, label, mem, reg, type Operand as OriOperand, type MemOperand, type Register } from '@ptxforge/kernel';
import type { Operand } from '../ast.js';
import { U32, U64, type FnLowerer } from './context.js';

/**
 * mbarrier objects and the asynchronous copies that complete on them (PTX ISA "mbarrier", "cp.async.bulk",
 * "cp.async.mbarrier.arrive"), lowered to the Ori SYNCS forms of docs/ori-semantics.md "mbarrier objects":
 *
 *   mbarrier.init [a], n           STS.64 [a], init word   (ptxas: the same word through SYNCS.EXCH.64)
 *   mbarrier.inval [a]             SYNCS.CCTL.IV [a]
 *   mbarrier.arrive d, [a]         d = SYNCS.ARRIVE.TRANS64.A1T0 [a], RZ
 *   mbarrier.arrive d, [a], n      d = SYNCS.ARRIVE.TRANS64.ART0 [a], n
 *   mbarrier.arrive.expect_tx d, [a], tx    d = SYNCS.ARRIVE.TRANS64 [a], tx      (one arrival, tx-count += tx)
 *   mbarrier.expect_tx [a], tx     SYNCS.ARRIVE.TRANS64.RED.A0TX [a], tx
 *   mbarrier.complete_tx [a], tx   SYNCS.ARRIVE.TRANS64.RED.A0TR [a], tx
 *   arrive_drop                    the same with .DROP (the expected count of later phases goes down too)
 *   mbarrier.test_wait p, [a], s   p = SYNCS.PHASECHK.TRANS64 [a], s.hi          (.parity: parity << 31)
 *   mbarrier.try_wait p, [a], s    p = SYNCS.PHASECHK.TRANS64.TRYWAIT [a], s.hi
 *   mbarrier.pending_count d, s    d = 0x100000 - ((s.hi >> 11) & 0xfffff)        (ptxas's expansion)
 *
 * Asynchronous copies are done at once (as cp.async already is, instructions.ts): cp.async.bulk global ->
 * shared copies its bytes in a loop of 4-byte words and then completes its byte count on the mbarrier;
 * cp.async.mbarrier.arrive.noinc is an arrival (every earlier cp.async has completed), without .noinc it is the
 * pending-count increment and the arrival together, no change; cp.async.bulk.commit_group/wait_group have
 * nothing to wait for. The .sem/.scope qualifiers order memory in a machine with reorderings; the interpreter
 * has none, and the lowering gives ptxas's fences for the .cluster scope. A .shared::cluster address is taken
 * in the executing CTA's window: launches here are clusters of one CTA, where that is the only CTA there is.
 */
type Handler = (c: FnLowerer) => void;

const has = (c: FnLowerer, m: string): boolean => c.ins.mods.includes(m);
const INIT_BASE = 0x100000;
const LUT_OR = 0xfc;
const LUT_AND = 0xc0;

/** The 32-bit shared-window offset of an mbarrier (or bulk-copy) address: .shared/.shared::cta/.shared::cluster, or generic. */
function sharedAddress(c: FnLowerer, o: Operand): MemOperand {
  if (c.ins.mods.some((m) => m === 'shared' || m.startsWith('shared::'))) return c.address(o, 'shared');
  // a generic address (PTX: it must point into the CTA's shared window): the offset from the window's base
  const g = c.address(o, '');
  if (!g.base || g.base.width === 1) return g;
  const win = c.tmp(2, 'S2R', [], [{ kind: 'sreg', name: 'SR_SWINBASE' }]);
  const diff = c.tmp(2, 'IADD3', [], [reg(g.base), reg(win, { neg: true }), RZ]);
  return mem(c.fit(diff, U32), g.offset);
}

function u32(c: FnLowerer, o: Operand): OriOperand {
  return c.src(o, U32);
}

/** A 64-bit state operand's high word (phase bit 31). */
function stateHigh(c: FnLowerer, o: Operand): OriOperand {
  const s = c.src(o, U64);
  if (s.kind !== 'reg') return imm(s.kind === 'imm' ? BigInt.asUintN(64, s.value) >> 32n : 0n);
  const sh = c.tmp(2, 'SHR', ['U64'], [reg(s.reg), imm(32)]);
  return reg(c.tmp(1, 'I2I', ['U32', 'U64'], [reg(sh)]));
}

/** Release fences before an arrive at cluster scope (ptxas: MEMBAR.ALL.CTA/GPU, ERRBAR, CGAERRBAR). */
function releaseFence(c: FnLowerer): void {
  if (has(c, 'cluster') && (has(c, 'release') || !has(c, 'relaxed'))) c.emit('MEMBAR', ['GPU', 'ALL'], [], []);
}

function arriveDst(c: FnLowerer, o: Operand | undefined): OriOperand[] {
  if (!o || o.kind === 'sink') return [];
  const d = c.dst(o);
  if (d.width !== 2) c.fail('PTX_SEMANTIC', `${c.opText}: the state destination must be a 64-bit register`);
  return [reg(d)];
}

/** The 64-bit state word mbarrier.init writes: (2^20 - n) << 43 | (2^20 - n) << 1. */
function initWord(c: FnLowerer, n: OriOperand): Register {
  const negN = n.kind === 'reg' ? reg(n.reg, { neg: true }) : imm(-(n.kind === 'imm' ? n.value : 0n));
  const f = c.tmp(1, 'IADD3', [], [negN, imm(INIT_BASE), RZ]);
  const f64 = c.tmp(2, 'I2I', ['U64', 'U32'], [reg(f)]);
  const hi = c.tmp(2, 'SHL', [], [reg(f64), imm(43)]);
  const lo = c.tmp(2, 'SHL', [], [reg(f64), imm(1)]);
  return c.tmp(2, 'LOP3', ['LUT'], [reg(hi), reg(lo), RZ, imm(LUT_OR)]);
}

/** SYNCS.ARRIVE.TRANS64 with `mode` (A1T0 ART0 A0TX A0TR, or '' for arrive + expect-tx). */
function arrive(c: FnLowerer, d: OriOperand[], a: MemOperand, mode: string, v: OriOperand): void {
  const mods = ['ARRIVE', 'TRANS64', ...(d.length ? [] : ['RED']), ...(has(c, 'arrive_drop') ? ['DROP'] : []), ...(mode ? [mode] : [])];
  c.emit('SYNCS', mods, d, [a, v]);
}

const mbarrier: Handler = (c) => {
  const op = c.ins.mods[0];
  switch (op) {
    case 'init': {
      c.expectOperands(2);
      const a = sharedAddress(c, c.operand(0));
      const word = initWord(c, u32(c, c.operand(1)));
      return void c.emit('STS', ['64'], [], [a, reg(word)]);
    }
    case 'inval':
      c.expectOperands(1);
      return void c.emit('SYNCS', ['CCTL', 'IV'], [], [sharedAddress(c, c.operand(0))]);
    case 'arrive':
    case 'arrive_drop': {
      c.expectOperands(2, 3);
      releaseFence(c);
      const d = arriveDst(c, c.operand(0));
      const a = sharedAddress(c, c.operand(1));
      const x = c.ins.operands[2];
      if (has(c, 'expect_tx')) {
        if (!x) c.fail('PTX_SEMANTIC', `${c.opText}: expected a transaction count`);
        return arrive(c, d, a, '', u32(c, x));
      }
      if (!x) return arrive(c, d, a, 'A1T0', RZ);
      return arrive(c, d, a, 'ART0', u32(c, x));
    }
    case 'expect_tx':
    case 'complete_tx':
      c.expectOperands(2);
      return arrive(c, [], sharedAddress(c, c.operand(0)), op === 'expect_tx' ? 'A0TX' : 'A0TR', u32(c, c.operand(1)));
    case 'test_wait':
    case 'try_wait': {
      // try_wait's suspend-time hint bounds how long one try may suspend the thread: no effect on its result
      c.expectOperands(3, op === 'try_wait' ? 4 : 3);
      const a = sharedAddress(c, c.operand(1));
      const parity = has(c, 'parity') ? reg(c.tmp(1, 'SHL', [], [u32(c, c.operand(2)), imm(31)])) : stateHigh(c, c.operand(2));
      if (c.ins.operands[3]) u32(c, c.ins.operands[3]);
      const p = c.dst(c.operand(0));
      if (p.cls !== 'P') c.fail('PTX_SEMANTIC', `${c.opText}: the wait result must be a .pred register`);
      c.emit('SYNCS', ['PHASECHK', 'TRANS64', ...(op === 'try_wait' ? ['TRYWAIT'] : [])], [reg(p)], [a, parity]);
      // an acquire at cluster scope: L1 lines may be stale once the phase completed (ptxas: @P CCTL.IVALL)
      if (has(c, 'cluster') && !has(c, 'relaxed')) {
        const g = c.guard;
        c.guard = { reg: p, not: false };
        c.emit('CCTL', ['IVALL'], [], []);
        c.guard = g;
      }
      return;
    }
    case 'pending_count': {
      c.expectOperands(2);
      const hi = stateHigh(c, c.operand(1));
      const f = c.tmp(1, 'SHR', ['U32'], [hi, imm(11)]);
      const m = c.tmp(1, 'LOP3', ['LUT'], [reg(f), imm(0xfffff), RZ, imm(LUT_AND)]);
      const d = c.dst(c.operand(0));
      if (d.cls !== 'R' || d.width !== 1) c.fail('PTX_SEMANTIC', `${c.opText}: the count destination must be a 32-bit register`);
      return void c.emit('IADD3', [], [reg(d)], [reg(m, { neg: true }), imm(INIT_BASE), RZ]);
    }
    default:
      c.unsupported(`instruction '${c.opText}'`);
  }
};

/**
 * The cp.async forms that involve an mbarrier or the bulk engine (the others stay in instructions.ts):
 * copies are complete when issued, so an arrival "when the copies are done" is an arrival now.
 */
export function lowerAsyncCopy(c: FnLowerer): boolean {
  const mods = c.ins.mods;
  if (mods[1] === 'mbarrier' && mods[2] === 'arrive') {
    c.expectOperands(1);
    const a = sharedAddress(c, c.operand(0));
    // without .noinc: pending count + 1 now, an arrival when the copies complete (now): no change
    if (has(c, 'noinc')) arrive(c, [], a, 'A1T0', RZ);
    else c.emit('NOP', [], [], []);
    return true;
  }
  if (mods[1] !== 'bulk') return false;
  if (has(c, 'commit_group') || has(c, 'wait_group')) {
    c.emit('NOP', [], [], []);
    return true;
  }
  // .L2::cache_hint adds a cache-policy operand: a hint, no effect on the bytes copied
  const hint = mods.includes('L2::cache_hint') ? 1 : 0;
  if (mods.includes('multicast::cluster')) c.unsupported(`instruction '${c.opText}' (multicast to the CTAs of a cluster)`);
  if (mods[2] === 'prefetch') {
    // a hint to bring global data into L2: nothing the program can observe
    c.expectOperands(2 + hint);
    c.address(c.operand(0), 'global');
    u32(c, c.operand(1));
    c.emit('NOP', [], [], []);
    return true;
  }
  const dstShared = mods[2] === 'shared::cluster' || mods[2] === 'shared::cta';
  const toMbarrier = mods.some((m) => m.startsWith('mbarrier::complete_tx'));
  if (dstShared && (mods[3] === 'global' || mods[3] === 'shared::cta') && toMbarrier) {
    // into shared memory (from global memory, or from this CTA's shared memory: the cluster has one CTA here)
    c.expectOperands(4 + hint);
    const from = mods[3] === 'global' ? c.address(c.operand(1), 'global') : c.address(c.operand(1), 'shared');
    bulkCopy(c, c.address(c.operand(0), 'shared'), from, u32(c, c.operand(2)), mods[3] === 'global' ? 'toShared' : 'sharedToShared', sharedAddressOf(c, c.operand(3)));
    return true;
  }
  if (mods[2] === 'global' && mods[3] === 'shared::cta' && mods.includes('bulk_group')) {
    // shared -> global, completing in a bulk async-group (commit_group/wait_group: nothing left to wait for)
    c.expectOperands(3 + hint);
    bulkCopy(c, c.address(c.operand(1), 'shared'), c.address(c.operand(0), 'global'), u32(c, c.operand(2)), 'toGlobal');
    return true;
  }
  return c.unsupported(`instruction '${c.opText}'`);
}

/** The mbarrier operand of a bulk copy: in shared memory whatever the instruction's own spaces say. */
function sharedAddressOf(c: FnLowerer, o: Operand): MemOperand {
  return c.address(o, 'shared');
}

/**
 * cp.async.bulk between global memory `gl` and shared memory `sh` (either way): `size` bytes (a multiple of 16)
 * as a loop of 4-byte words; into shared memory the byte count then completes on the mbarrier `bar` (tx-count
 * -= size). Under a guard the whole loop is skipped.
 */
function bulkCopy(c: FnLowerer, sh: MemOperand, gl: MemOperand, size: OriOperand, dir: 'toShared' | 'toGlobal' | 'sharedToShared', bar?: MemOperand): void {
  const guard = c.guard;
  const head = c.freshLabel();
  const done = c.freshLabel();
  c.guard = undefined;
  if (guard) {
    c.guard = { reg: guard.reg, not: !guard.not };
    c.emit('BRA', [], [], [label(c.blockOf(done))]);
    c.guard = undefined;
  }
  const k = c.fn.newReg('R', 1);
  c.emit('MOV', [], [reg(k)], [RZ]);
  const dBase = c.fn.newReg('R', 1);
  c.emit(sh.base ? 'IADD3' : 'MOV', [], [reg(dBase)], sh.base ? [reg(sh.base), imm(sh.offset), RZ] : [sh.sym ? { kind: 'sym', name: sh.sym } : imm(0)]);
  if (!sh.base && sh.offset) c.emit('IADD3', [], [reg(dBase)], [reg(dBase), imm(sh.offset), RZ]);
  if (sh.base && sh.sym) c.emit('IADD3', [], [reg(dBase)], [reg(dBase), { kind: 'sym', name: sh.sym }, RZ]);
  // (sharedToShared: `gl` is the source in shared memory, a 32-bit window offset)
  const sBase = c.fn.newReg('R', dir === 'sharedToShared' ? 1 : 2);
  if (gl.base) c.emit('IADD3', [], [reg(sBase)], [reg(gl.base), imm(gl.offset), RZ]);
  else c.emit('MOV', [], [reg(sBase)], [gl.sym ? { kind: 'sym', name: gl.sym } : imm(gl.offset)]);
  if (!gl.base && gl.sym && gl.offset) c.emit('IADD3', [], [reg(sBase)], [reg(sBase), imm(gl.offset), RZ]);
  if (gl.base && gl.sym) c.emit('IADD3', [], [reg(sBase)], [reg(sBase), { kind: 'sym', name: gl.sym }, RZ]);
  c.emit('BRA', [], [], [label(c.blockOf(head))]);
  c.placeLabel(head, c.ins.pos);
  const end = c.tmpP('ISETP', ['GE', 'U32', 'AND'], [reg(k), size, PT]);
  c.guard = { reg: end, not: false };
  c.emit('BRA', [], [], [label(c.blockOf(done))]);
  c.guard = undefined;
  const sa = c.tmp(1, 'IADD3', [], [reg(dBase), reg(k), RZ]);
  if (dir === 'sharedToShared') {
    const from = c.tmp(1, 'IADD3', [], [reg(sBase), reg(k), RZ]);
    c.emit('STS', ['32'], [], [mem(sa, 0), reg(c.tmp(1, 'LDS', ['32'], [mem(from, 0)]))]);
  } else {
    const k64 = c.tmp(2, 'I2I', ['U64', 'U32'], [reg(k)]);
    const ga = c.tmp(2, 'IADD3', [], [reg(sBase), reg(k64), RZ]);
    if (dir === 'toShared') c.emit('STS', ['32'], [], [mem(sa, 0), reg(c.tmp(1, 'LDG', ['E', '32'], [mem(ga, 0)]))]);
    else c.emit('STG', ['E', '32'], [], [mem(ga, 0), reg(c.tmp(1, 'LDS', ['32'], [mem(sa, 0)]))]);
  }
  c.emit('IADD3', [], [reg(k)], [reg(k), imm(4), RZ]);
  c.emit('BRA', [], [], [label(c.blockOf(head))]);
  c.placeLabel(done, c.ins.pos);
  c.guard = guard;
  if (bar) arrive(c, [], bar, 'A0TR', size);
}

export const MBARRIER_HANDLERS: Readonly<Record<string, Handler>> = { mbarrier };
