/**
 * mbarrier objects (PTX ISA "Parallel Synchronization and Communication Instructions: mbarrier") as the SYNCS
 * instructions of sm_90 see them: a 64-bit word of shared memory (docs/ori-semantics.md "mbarrier objects").
 *
 *   bit 63        current phase parity
 *   bits 43..62   pending arrivals of the current phase, as (2^20 - pending) mod 2^20
 *   bits 21..41   tx-count, 21-bit two's complement
 *   bits 1..20    expected arrivals (the count each phase starts with), as (2^20 - expected) mod 2^20
 *
 * The pending and expected fields are the ones ptxas 13 writes and reads itself: mbarrier.init stores
 * lo = (2^20 - n) << 1, hi = (2^20 - n) << 11 (`UIADD3 -n, 0x100000; USHF.L 0xb / 0x1; SYNCS.EXCH.64`), and
 * mbarrier.pending_count is `0x100000 - ((state.hi >> 11) & 0xfffff)`. The tx-count's place is the one those
 * leave free (no hardware here to read it back; a program only sees it by reading the opaque word).
 *
 * A phase completes when its pending count and tx-count are both zero: the phase bit flips, the pending count
 * is reloaded from the expected count and the tx-count restarts at zero. An arrival beyond the pending count,
 * or a tx-count outside +-(2^20 - 1), is undefined behaviour in the ISA and an INTERP_MBARRIER trap here.
 *
 * Waits: `SYNCS.PHASECHK` is true when the phase whose parity is bit 31 of its operand has completed (the
 * operand is the high word of an arrive's token, or the parity shifted to bit 31). A failed check asks the
 * scheduler to run the other warps first (Warp.yieldNow): a warp spinning on try_wait/test_wait then waits for
 * an mbarrier to change instead of running to the step budget.
 */
import type { Instr, OriFunction } from '@ptxforge/kernel';
import { Trap } from './errors.js';
import { markWritten, readSrc, type Exec, type Program, type Src } from './program.js';
import type { Warp } from './warp.js';

const FIELD = 0xfffff; // 20 bits
const TX_BITS = 21;
const TX_MAX = (1 << 20) - 1;

export interface MbarrierState {
  phase: number;
  pending: number;
  expected: number;
  tx: number;
}

/** The state word mbarrier.init writes for `count` expected arrivals (phase 0, nothing pending in tx). */
export function mbarrierInitWord(count: number): bigint {
  const f = BigInt((0x100000 - count) & FIELD);
  return (f << 43n) | (f << 1n);
}

export function decodeMbarrier(word: bigint): MbarrierState {
  const fp = Number((word >> 43n) & 0xfffffn);
  const fe = Number((word >> 1n) & 0xfffffn);
  const rawTx = Number((word >> 21n) & ((1n << BigInt(TX_BITS)) - 1n));
  return {
    phase: Number(word >> 63n) & 1,
    pending: (0x100000 - fp) & FIELD,
    expected: (0x100000 - fe) & FIELD,
    tx: rawTx >= 1 << (TX_BITS - 1) ? rawTx - (1 << TX_BITS) : rawTx,
  };
}

export function encodeMbarrier(s: MbarrierState): bigint {
  const fp = BigInt((0x100000 - s.pending) & FIELD);
  const fe = BigInt((0x100000 - s.expected) & FIELD);
  const tx = BigInt(s.tx & ((1 << TX_BITS) - 1));
  return (BigInt(s.phase & 1) << 63n) | (fp << 43n) | (tx << 21n) | (fe << 1n);
}

/** What one SYNCS.ARRIVE does to the state: arrivals, expected-count drop, tx-count change. */
export interface ArriveEffect {
  readonly arrive: number;
  readonly drop: boolean;
  readonly tx: number;
}

/**
 * Apply an arrive/expect-tx/complete-tx to a state word (PTX ISA order: the tx-count changes first, then the
 * arrivals count down); returns the new word, or a message for an undefined use.
 */
export function applyArrive(word: bigint, e: ArriveEffect): bigint | string {
  const s = decodeMbarrier(word);
  if (e.drop) {
    if (e.arrive > s.expected) return `arrive_drop of ${e.arrive} exceeds the expected count ${s.expected}`;
    s.expected -= e.arrive;
  }
  const tx = s.tx + e.tx;
  if (tx > TX_MAX || tx < -TX_MAX) return `tx-count ${tx} is outside the range +-(2^20 - 1)`;
  s.tx = tx;
  if (e.arrive > s.pending) return `${e.arrive} arrival(s) on a phase with ${s.pending} pending`;
  s.pending -= e.arrive;
  if (s.pending === 0 && s.tx === 0) {
    s.phase ^= 1;
    s.pending = s.expected;
  }
  return encodeMbarrier(s);
}

/** Has the phase of parity `parity` completed (the current phase has the other parity)? */
export function phaseCompleted(word: bigint, parity: number): boolean {
  return Number(word >> 63n) !== (parity & 1);
}

/** The effect of an ARRIVE mode token on operand value v (docs/ori-semantics.md "mbarrier objects"). */
function effectOf(mods: readonly string[], v: number): ArriveEffect {
  const drop = mods.includes('DROP');
  if (mods.includes('A1T0')) return { arrive: 1, drop, tx: 0 };
  if (mods.includes('ART0')) return { arrive: v, drop, tx: 0 };
  if (mods.includes('A0TX')) return { arrive: 0, drop, tx: v };
  if (mods.includes('A0TR')) return { arrive: 0, drop, tx: -v };
  return { arrive: 1, drop, tx: v };
}

function sharedAddr(w: Warp, base: number, off: number, l: number): number {
  const a = (base >= 0 ? w.R[base * 32 + l]! : 0) + off;
  if (a % 8 !== 0) throw new Trap('misaligned', `mbarrier object at misaligned shared address 0x${a.toString(16)}`, l);
  if (a < 0 || a + 8 > w.cta.shared.length) {
    throw new Trap('out-of-bounds', `mbarrier object at shared offset 0x${a.toString(16)} is outside the ${w.cta.shared.length}-byte shared window`, l);
  }
  return a;
}

/** SYNCS instructions (Ori forms in docs/ori-semantics.md), or undefined for other opcodes. */
export function buildSyncsOp(prog: Program, fn: OriFunction, i: Instr): Exec | undefined {
  if (i.opcode !== 'SYNCS') return undefined;
  const mem = i.uses[0];
  if (!mem || mem.kind !== 'mem' || (mem.base && mem.base.width !== 1)) {
    return () => {
      throw new Trap('unsupported', `${i.fullOpcode} needs a 32-bit shared-memory address operand`, -1);
    };
  }
  const off = mem.offset + (mem.sym ? prog.sym(fn, mem.sym).address : 0);
  const base = mem.base ? prog.regSlot.get(mem.base)! : -1;
  const val: Src = prog.src(fn, i.uses[1] ?? { kind: 'rz' });
  const d = i.defs[0] ? prog.dst(i.defs[0]) : ({ t: 'none' } as const);
  if (i.hasMod('PHASECHK')) {
    return (w, m) => {
      const view = w.cta.sharedView;
      let failed = false;
      for (let l = 0; l < 32; l++) {
        if (!((m >>> l) & 1)) continue;
        const a = sharedAddr(w, base, off, l);
        const parity = Number(BigInt.asUintN(32, readSrc(w, val, l) as bigint) >> 31n);
        const done = phaseCompleted(view.getBigUint64(a, true), parity);
        if (d.t === 'pred') w.P[d.slot] = done ? w.P[d.slot]! | (1 << l) : w.P[d.slot]! & ~(1 << l);
        if (!done) failed = true;
      }
      markWritten(w, d, m);
      if (failed) w.yieldNow = true;
    };
  }
  if (i.hasMod('ARRIVE')) {
    const mods = i.mods;
    return (w, m) => {
      const view = w.cta.sharedView;
      for (let l = 0; l < 32; l++) {
        if (!((m >>> l) & 1)) continue;
        const a = sharedAddr(w, base, off, l);
        const v = Number(BigInt.asUintN(32, readSrc(w, val, l) as bigint));
        const old = view.getBigUint64(a, true);
        const next = applyArrive(old, effectOf(mods, v));
        if (typeof next === 'string') throw new Trap('mbarrier', `${i.fullOpcode}: ${next}`, l);
        view.setBigUint64(a, next, true);
        if (d.t === 'reg') {
          w.R[d.slot * 32 + l] = Number(old & 0xffffffffn);
          if (d.n > 1) w.R[(d.slot + 1) * 32 + l] = Number(old >> 32n);
        }
      }
      markWritten(w, d, m);
      w.cta.mbarrierEpoch++;
    };
  }
  if (i.hasMod('EXCH')) {
    // SYNCS.EXCH.64 (ptxas's mbarrier.init): store the word, return the old one
    return (w, m) => {
      const view = w.cta.sharedView;
      for (let l = 0; l < 32; l++) {
        if (!((m >>> l) & 1)) continue;
        const a = sharedAddr(w, base, off, l);
        const old = view.getBigUint64(a, true);
        view.setBigUint64(a, BigInt.asUintN(64, readSrc(w, val, l) as bigint), true);
        if (d.t === 'reg') {
          w.R[d.slot * 32 + l] = Number(old & 0xffffffffn);
          if (d.n > 1) w.R[(d.slot + 1) * 32 + l] = Number(old >> 32n);
        }
      }
      markWritten(w, d, m);
      w.cta.mbarrierEpoch++;
    };
  }
  if (i.hasMod('CCTL')) {
    // mbarrier.inval: the object stops being one; its word keeps whatever it held (the ISA leaves it undefined),
    // the check is the address's.
    return (w, m) => {
      for (let l = 0; l < 32; l++) if ((m >>> l) & 1) sharedAddr(w, base, off, l);
    };
  }
  return () => {
    throw new Trap('unsupported', `the interpreter has no semantics for ${i.fullOpcode}`, -1);
  };
}
