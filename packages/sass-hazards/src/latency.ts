import type { HazardInstr } from './types.js';

/**
 * Latency classes. Fixed-latency ("coupled") results are ready a fixed number of cycles after issue and are
 * covered by stall counts; variable-latency ("decoupled") results are covered by a write scoreboard that the
 * consumer waits on. "Redirected" units (fp64 and fp16 on some parts, R2UR) are either: when ptxas gives them a
 * write scoreboard the consumer waits on it, otherwise their fixed latency applies.
 */
export type WriterClass =
  | 'alu' // IADD3 LOP3 ISETP SEL MOV SHF LEA PRMT FSEL FSETP FMNMX PLOP3 IMNMX ...
  | 'fma' // FFMA FADD FMUL IMAD IMUL IDP
  | 'disp64' // CS2R (64-bit), 64-bit moves
  | 'wideLo' // IMAD.WIDE, low half of the result
  | 'wideHi' // IMAD.WIDE, high half
  | 'fp16' // HADD2 HMUL2 HFMA2 HSETP2 HMNMX2
  | 'fp64' // DADD DMUL DFMA DSETP DMNMX
  | 'mma1' // HMMA.1688 / IMMA.8816 class
  | 'mma2' // HMMA.16816 class
  | 'dmma'
  | 'uniform' // uniform datapath (UIADD3, UMOV, ULOP3, ...), ULDC
  | 'r2ur'; // R2UR without a scoreboard

export type ReaderClass = 'alu' | 'fma' | 'wideAB' | 'wideCL' | 'wideCH' | 'fp16' | 'fp64' | 'mma' | 'var' | 'agu' | 'uniform';

/** Variable-latency queues. Results of one queue come back in issue order (used for in-order exemptions). */
export type VariableQueue =
  | 'global' // LDG LD ATOMG ATOM RED ST STG (generic and global memory)
  | 'local' // LDL STL
  | 'shared' // LDS STS ATOMS LDSM
  | 'const' // LDC
  | 'tex' // TEX TLD TLD4 TXQ SULD SUST
  | 'mufu' // MUFU
  | 'conv' // F2F F2I I2F FRND (and 64-bit conversions)
  | 'xu' // POPC FLO BREV (transcendental/bit unit)
  | 's2r' // S2R S2UR CS2R of slow registers
  | 'shfl' // SHFL MATCH REDUX
  | 'bar' // BAR BMOV B2R
  | 'fp64' // fp64 on parts where it is a variable-latency unit
  | 'r2ur' // R2UR with a scoreboard
  | 'misc';

export type OpTiming =
  | { kind: 'fixed'; writer: WriterClass; reader: ReaderClass }
  | { kind: 'variable'; queue: VariableQueue; lateRead: boolean; reader: ReaderClass }
  /** fixed latency when the instruction sets no write scoreboard, else scoreboard-covered */
  | { kind: 'redirected'; writer: WriterClass; queue: VariableQueue; reader: ReaderClass }
  | { kind: 'none'; reader: ReaderClass };

/** Latency data of one family of archs. Plain data: this is what a target's LatencyModel service serves. */
export interface LatencyTable {
  name: string;
  archs: readonly string[];
  /** cycles from a writer's issue until a reader of the class may issue (missing: `default`) */
  raw: Record<WriterClass, Partial<Record<ReaderClass, number>> & { default: number }>;
  /**
   * Cycles after issue within which a variable-latency instruction without a read scoreboard may still read its
   * vector sources, per queue (a later write inside the window needs the read scoreboard).
   */
  lateReadCycles?: Partial<Record<VariableQueue, number>>;
  /** Opcodes whose class differs on these archs (e.g. fp64 as a variable-latency unit on GA10x/AD10x). */
  overrides?: Readonly<Record<string, OpTiming>>;
}

/**
 * Memory instructions without a read scoreboard have read their vector sources this many cycles after issue
 * (the smallest distance at which ptxas 13.0 overwrites such a source without waiting, on every corpus cubin).
 */
const LATE_READ: Partial<Record<VariableQueue, number>> = { shared: 6, global: 6, local: 6, const: 6, tex: 6 };

const row = (d: number, o: Partial<Record<ReaderClass, number>> = {}): Partial<Record<ReaderClass, number>> & { default: number } => ({ default: d, ...o });

/**
 * Turing (sm_75). Values: cycles writer-issue to reader-issue by reader class (public Turing/Ampere latency
 * tables as published with Mesa NAK; validated on ptxas 13.0 cubins, see docs/sass-hazards.md).
 */
export const TURING: LatencyTable = {
  name: 'turing',
  archs: ['sm_75'],
  lateReadCycles: LATE_READ,
  raw: {
    alu: row(4, { fma: 5, wideAB: 5, wideCL: 5, wideCH: 3, fp16: 6, fp64: 6, mma: 6, var: 6, agu: 6, uniform: 4 }),
    fma: row(5, { fma: 4, wideAB: 4, wideCL: 4, wideCH: 2, fp16: 6, fp64: 6, mma: 6, var: 6, agu: 6, uniform: 5 }),
    disp64: row(6, { wideCH: 4 }),
    wideLo: row(3, { fma: 2, wideAB: 4, wideCL: 2, wideCH: 2, fp16: 6, fp64: 6, mma: 6, var: 6, agu: 6 }),
    wideHi: row(5, { fma: 4, wideAB: 6, wideCL: 2, wideCH: 2, fp16: 6, fp64: 6, mma: 6, var: 6, agu: 6 }),
    fp16: row(8, { wideCH: 6, fp16: 6 }),
    fp64: row(9, { wideCH: 7, fp64: 8 }),
    mma1: row(14, { wideCH: 12 }),
    mma2: row(22, { wideCH: 20 }),
    dmma: row(22),
    uniform: row(2),
    r2ur: row(2),
  },
};

/** Ampere and Ada (sm_80, sm_86, sm_89). */
export const AMPERE: LatencyTable = {
  name: 'ampere',
  archs: ['sm_80', 'sm_86', 'sm_87', 'sm_89'],
  lateReadCycles: LATE_READ,
  raw: {
    alu: row(4, { fma: 5, wideAB: 5, wideCL: 5, wideCH: 3, fp16: 5, fp64: 6, mma: 7, var: 4, agu: 5, uniform: 4 }),
    fma: row(5, { fma: 4, wideAB: 4, wideCL: 4, wideCH: 2, fp16: 5, fp64: 6, mma: 7, var: 4, agu: 5, uniform: 5 }),
    disp64: row(6, { wideCH: 4, fp64: 6, mma: 7, var: 4, agu: 5 }),
    wideLo: row(3, { fma: 2, wideAB: 4, wideCL: 2, wideCH: 2, fp16: 3, fp64: 6, mma: 7, var: 4, agu: 5 }),
    wideHi: row(5, { fma: 4, wideAB: 6, wideCL: 4, wideCH: 2, fp16: 5, fp64: 6, mma: 7, var: 4, agu: 5 }),
    fp16: row(5, { wideCH: 3, fp64: 6, mma: 7, var: 4, agu: 5 }),
    fp64: row(10, { wideCH: 8, fp64: 6, mma: 11, var: 6, agu: 7 }),
    mma1: row(13, { wideCH: 11, mma: 14, var: 11, agu: 12 }),
    mma2: row(17, { wideCH: 15, mma: 18, var: 15, agu: 16 }),
    dmma: row(25, { wideCH: 23, mma: 26, var: 23, agu: 24 }),
    uniform: row(2),
    r2ur: row(2),
  },
};

/** Hopper (sm_90): Ampere's datapath latencies. */
export const HOPPER: LatencyTable = { ...AMPERE, name: 'hopper', archs: ['sm_90', 'sm_90a'] };

export const LATENCY_TABLES: readonly LatencyTable[] = [TURING, AMPERE, HOPPER];

export class UnknownArchError extends Error {
  readonly code = 'HAZARD_UNKNOWN_ARCH';
  constructor(arch: string) {
    super(`no latency table for ${arch} (known: ${LATENCY_TABLES.flatMap((t) => t.archs).join(', ')})`);
  }
}

export function latencyTableFor(arch: string): LatencyTable {
  const a = arch.startsWith('sm_') ? arch : `sm_${arch.replace(/^sm/, '')}`;
  for (const t of LATENCY_TABLES) if (t.archs.includes(a)) return t;
  throw new UnknownArchError(arch);
}

export function rawLatency(t: LatencyTable, w: WriterClass, r: ReaderClass): number {
  const rowW = t.raw[w];
  return rowW[r] ?? rowW.default;
}

const words = (s: string): string[] => s.split(/\s+/).filter(Boolean);
const TIMING = new Map<string, OpTiming>();
const fixed = (writer: WriterClass, reader: ReaderClass, ops: string): void => {
  for (const o of words(ops)) TIMING.set(o, { kind: 'fixed', writer, reader });
};
const variable = (queue: VariableQueue, lateRead: boolean, ops: string): void => {
  for (const o of words(ops)) TIMING.set(o, { kind: 'variable', queue, lateRead, reader: 'var' });
};
fixed('alu', 'alu', `IADD3 IADD LOP3 LOP ISETP SEL FSEL MOV SHF SHL SHR LEA PRMT FSETP FSET FMNMX PLOP3 PSETP IMNMX IABS
  BMSK SGXT I2I I2IP F2FP P2R R2P VOTE ISET LEPC NOP FCHK_ALU CS2R_32 VABSDIFF VABSDIFF4`);
fixed('fma', 'fma', `FFMA FADD FMUL IMAD IMUL IDP IDP4A FSWZADD IMADSP`);
fixed('fp16', 'fp16', `HADD2 HMUL2 HFMA2 HSETP2 HSET2 HMNMX2`);
fixed('fp64', 'fp64', `DADD DMUL DFMA DSETP DMNMX DSET`);
fixed('mma2', 'mma', `HMMA IMMA BMMA`);
fixed('dmma', 'mma', `DMMA`);
fixed('uniform', 'uniform', `UPOPC UFLO UBREV UIADD3 UMOV ULOP3 ULOP USHF USEL UISETP ULEA UPRMT UPLOP3 UPSETP UIMAD USGXT UBMSK UP2UR
  VOTEU ULDC UCLEA UIABS UIMNMX UF2FP`);
variable('global', true, `LDG LD STG ST ATOMG ATOM RED REDG CCTL LDGSTS`);
variable('local', true, `LDL STL`);
variable('shared', true, `LDS STS ATOMS LDSM STSM`);
variable('const', true, `LDC`);
variable('tex', true, `TEX TLD TLD4 TMML TXD TXQ SULD SUST SURED SUATOM`);
// MUFU, conversions and the bit-count unit share one in-order queue: a later scoreboard covers an earlier
// unguarded result (ptxas 13 relies on it on every arch)
variable('xu', false, `MUFU F2F F2I I2F FRND FCHK POPC FLO BREV`);
variable('s2r', false, `S2R S2UR B2R`);
variable('shfl', true, `SHFL MATCH REDUX`);
variable('bar', false, `BAR BMOV BSSY BSYNC WARPSYNC MEMBAR ERRBAR`);
TIMING.set('R2UR', { kind: 'redirected', writer: 'r2ur', queue: 'r2ur', reader: 'var' });

const CONTROL_FLOW = new Set(words(`BRA BRX JMP JMX CALL RET EXIT KILL BREAK BPT YIELD DEPBAR NANOSLEEP`));

/** Timing of one instruction under `t` (opcode overrides first, then the shared opcode map). */
export function opTiming(t: LatencyTable, ins: HazardInstr): OpTiming {
  const op = ins.opcode;
  const o = t.overrides?.[op];
  if (o) return o;
  if (op === 'CS2R') return ins.mods.includes('32') ? { kind: 'fixed', writer: 'alu', reader: 'alu' } : { kind: 'fixed', writer: 'disp64', reader: 'alu' };
  if (op === 'HMMA' || op === 'IMMA') {
    const shape = ins.mods.find((m) => /^\d+$/.test(m));
    const writer: WriterClass = shape === '1688' || shape === '8816' || shape === '884' ? 'mma1' : 'mma2';
    return { kind: 'fixed', writer, reader: 'mma' };
  }
  const base = TIMING.get(op);
  if (base) {
    // fp64 and fp16 are "redirected" units: with a write scoreboard they behave as variable-latency
    if (base.kind === 'fixed' && (base.writer === 'fp64' || base.writer === 'fp16' || base.writer === 'mma1' || base.writer === 'mma2' || base.writer === 'dmma')) {
      return { kind: 'redirected', writer: base.writer, queue: 'fp64', reader: base.reader };
    }
    return base;
  }
  if (CONTROL_FLOW.has(op)) return { kind: 'none', reader: 'var' };
  return { kind: 'none', reader: 'var' };
}

/** Whether the opcode is in the timing map (unknown opcodes are reported once by the checker). */
export function isKnownOpcode(op: string): boolean {
  return TIMING.has(op) || CONTROL_FLOW.has(op) || op === 'CS2R' || op === 'BSSY' || op === 'BCLEAR';
}
