import type {
  MachineLatencyTable, MachineOp, MachineOpTiming, MachineQueue, MachineReaderClass, MachineWriterClass,
} from '@ptxforge/kernel';

/**
 * SASS latency tables of the Volta+ generations and the opcode classes they are indexed by: plain data, selected
 * by each target package (`TargetTable.machineLatencies`, like the pipe widths) and served through its
 * LatencyModel service, so the hazard checker, the scoreboard generator and the schedulers read one table.
 * Values: cycles from writer issue to reader issue by reader class (the public Turing/Ampere tables published
 * with Mesa NAK; validated on ptxas 13.0 cubins, docs/sass-hazards.md).
 */

/**
 * Memory instructions without a read scoreboard have read their vector sources this many cycles after issue
 * (the smallest distance at which ptxas 13.0 overwrites such a source without waiting, on every corpus cubin).
 */
const LATE_READ: Partial<Record<MachineQueue, number>> = { shared: 6, global: 6, local: 6, const: 6, tex: 6 };

type Row = Partial<Record<MachineReaderClass, number>> & { default: number };
const row = (d: number, o: Partial<Record<MachineReaderClass, number>> = {}): Row => ({ default: d, ...o });

/** Turing (sm_75). */
export const TURING_LATENCIES: MachineLatencyTable = Object.freeze({
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
    // predicate results of fp64 compares (DSETP), read before fp64 register results on some archs (see Hopper)
    fp64pred: row(9, { wideCH: 7, fp64: 8 }),
    mma1: row(14, { wideCH: 12 }),
    mma2: row(22, { wideCH: 20 }),
    dmma: row(22),
    uniform: row(2),
    r2ur: row(2),
  },
});

/** Ampere (sm_80, sm_86, sm_87). */
export const AMPERE_LATENCIES: MachineLatencyTable = Object.freeze({
  name: 'ampere',
  archs: ['sm_80', 'sm_86', 'sm_87'],
  lateReadCycles: LATE_READ,
  raw: {
    alu: row(4, { fma: 5, wideAB: 5, wideCL: 5, wideCH: 3, fp16: 5, fp64: 6, mma: 7, var: 4, agu: 5, uniform: 4 }),
    fma: row(5, { fma: 4, wideAB: 4, wideCL: 4, wideCH: 2, fp16: 5, fp64: 6, mma: 7, var: 4, agu: 5, uniform: 5 }),
    disp64: row(6, { wideCH: 4, fp64: 6, mma: 7, var: 4, agu: 5 }),
    wideLo: row(3, { fma: 2, wideAB: 4, wideCL: 2, wideCH: 2, fp16: 3, fp64: 6, mma: 7, var: 4, agu: 5 }),
    wideHi: row(5, { fma: 4, wideAB: 6, wideCL: 4, wideCH: 2, fp16: 5, fp64: 6, mma: 7, var: 4, agu: 5 }),
    fp16: row(5, { wideCH: 3, fp64: 6, mma: 7, var: 4, agu: 5 }),
    fp64: row(10, { wideCH: 8, fp64: 6, mma: 11, var: 6, agu: 7 }),
    fp64pred: row(10, { wideCH: 8, fp64: 6, mma: 11, var: 6, agu: 7 }),
    mma1: row(13, { wideCH: 11, mma: 14, var: 11, agu: 12 }),
    mma2: row(17, { wideCH: 15, mma: 18, var: 15, agu: 16 }),
    dmma: row(25, { wideCH: 23, mma: 26, var: 23, agu: 24 }),
    uniform: row(2),
    r2ur: row(2),
  },
});

/** Ada (sm_89): Ampere's datapath latencies. */
export const ADA_LATENCIES: MachineLatencyTable = Object.freeze({ ...AMPERE_LATENCIES, name: 'ada', archs: ['sm_89'] });

/**
 * Hopper (sm_90): Ampere's datapath latencies, except the predicate results of fp64 compares (DSETP) read by an
 * ALU instruction: ptxas 13.0 spaces DSETP → SEL/FSEL of its predicate by 6 cycles (the least of 6 and 8 seen on
 * the nvcc kernel fp64_math's sm_90 cubin; no corpus cubin of any arch reads an unguarded DSETP predicate), while
 * fp64 register results read as alu stay at 10 (ptxas waits exactly 10, 8 reads). Other archs: no evidence, the
 * predicate row equals the register row.
 */
export const HOPPER_LATENCIES: MachineLatencyTable = Object.freeze({
  ...AMPERE_LATENCIES,
  name: 'hopper',
  archs: ['sm_90', 'sm_90a'],
  raw: { ...AMPERE_LATENCIES.raw, fp64pred: row(10, { alu: 6, wideCH: 8, fp64: 6, mma: 11, var: 6, agu: 7 }) },
});

/** Every generation table (the targets pick theirs; tools without a toolchain look an arch up here). */
export const MACHINE_LATENCY_TABLES: readonly MachineLatencyTable[] = Object.freeze([TURING_LATENCIES, AMPERE_LATENCIES, ADA_LATENCIES, HOPPER_LATENCIES]);

/** The table of an arch (`sm_80`, `80`, `sm80`), undefined when none is known. */
export function machineLatencyTableFor(arch: string): MachineLatencyTable | undefined {
  const a = arch.startsWith('sm_') ? arch : `sm_${arch.replace(/^sm/, '')}`;
  for (const t of MACHINE_LATENCY_TABLES) if (t.archs.includes(a)) return t;
  return undefined;
}

/** Cycles from an issue of writer class `w` until a reader of class `r` may issue. */
export function machineRawLatency(t: MachineLatencyTable, w: MachineWriterClass, r: MachineReaderClass): number {
  const rowW = t.raw[w];
  return rowW[r] ?? rowW.default;
}

// ---- opcode classes (shared by every Volta+ table) -------------------------------------------------------

const words = (s: string): string[] => s.split(/\s+/).filter(Boolean);
const TIMING = new Map<string, MachineOpTiming>();
const fixed = (writer: MachineWriterClass, reader: MachineReaderClass, ops: string): void => {
  for (const o of words(ops)) TIMING.set(o, { kind: 'fixed', writer, reader });
};
const variable = (queue: MachineQueue, lateRead: boolean, ops: string): void => {
  for (const o of words(ops)) TIMING.set(o, { kind: 'variable', queue, lateRead, reader: 'var' });
};
fixed('alu', 'alu', `IADD3 IADD LOP3 LOP ISETP SEL FSEL MOV SHF SHL SHR LEA PRMT FSETP FSET FMNMX PLOP3 PSETP IMNMX IABS
  BMSK SGXT I2I I2IP F2FP P2R R2P VOTE ISET LEPC NOP FCHK_ALU CS2R_32 VABSDIFF VABSDIFF4 ISGN3`);
// Hopper's VIADD issues like IMAD (ptxas spaces VIADD → IMAD and IMAD → VIADD by 4 cycles)
fixed('fma', 'fma', `FFMA FADD FMUL IMAD IMUL IDP IDP4A FSWZADD IMADSP VIADD`);
fixed('fp16', 'fp16', `HADD2 HMUL2 HFMA2 HSETP2 HSET2 HMNMX2`);
fixed('fp64', 'fp64', `DADD DMUL DFMA DSETP DMNMX DSET`);
fixed('mma2', 'mma', `HMMA IMMA BMMA`);
fixed('dmma', 'mma', `DMMA`);
fixed('uniform', 'uniform', `UPOPC UFLO UBREV UIADD3 UMOV ULOP3 ULOP USHF USEL UISETP ULEA UPRMT UPLOP3 UPSETP UIMAD USGXT UBMSK UP2UR
  VOTEU ULDC UCLEA UIABS UIMNMX UF2FP`);
variable('global', true, `LDG LD STG ST ATOMG ATOM RED REDG CCTL LDGSTS`);
variable('local', true, `LDL STL`);
// SYNCS (mbarrier operations) go through the shared-memory pipe: their results come back on a scoreboard
variable('shared', true, `LDS STS ATOMS LDSM STSM SYNCS`);
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
const NONE: MachineOpTiming = Object.freeze({ kind: 'none', reader: 'var' });

/** Timing of one machine instruction under `t` (the table's opcode overrides first, then the shared opcode map). */
export function machineOpTiming(t: MachineLatencyTable, ins: MachineOp): MachineOpTiming {
  const op = ins.opcode;
  const mods = ins.mods ?? [];
  const o = t.overrides?.[op];
  if (o) return o;
  if (op === 'CS2R') return mods.includes('32') ? { kind: 'fixed', writer: 'alu', reader: 'alu' } : { kind: 'fixed', writer: 'disp64', reader: 'alu' };
  if (op === 'HMMA' || op === 'IMMA') {
    const shape = mods.find((m) => /^\d+$/.test(m));
    const writer: MachineWriterClass = shape === '1688' || shape === '8816' || shape === '884' ? 'mma1' : 'mma2';
    return { kind: 'fixed', writer, reader: 'mma' };
  }
  const base = TIMING.get(op);
  if (base) {
    // fp64, fp16 and MMA are "redirected" units: with a write scoreboard they behave as variable-latency
    if (base.kind === 'fixed' && (base.writer === 'fp64' || base.writer === 'fp16' || base.writer === 'mma1' || base.writer === 'mma2' || base.writer === 'dmma')) {
      return { kind: 'redirected', writer: base.writer, queue: 'fp64', reader: base.reader };
    }
    return base;
  }
  return NONE;
}

/** Whether the opcode is in the timing map (unknown opcodes are reported once by the hazard checker). */
export function isKnownMachineOpcode(op: string): boolean {
  return TIMING.has(op) || CONTROL_FLOW.has(op) || op === 'CS2R' || op === 'BSSY' || op === 'BCLEAR';
}

/**
 * Cycles from `writer`'s issue until `reader` may read its result through stall counts alone: the table entry of
 * their classes for fixed-latency (and unguarded redirected) writers, undefined for scoreboard-covered ones.
 * IMAD.WIDE's two halves differ (the low half is ready first); the larger, the high half, is answered here.
 */
export function machineOperandLatency(t: MachineLatencyTable, writer: MachineOp, reader: MachineOp): number | undefined {
  const w = machineOpTiming(t, writer);
  if (w.kind === 'variable') return undefined;
  if (w.kind === 'none') return 0;
  const r = machineOpTiming(t, reader);
  const wide = writer.opcode === 'IMAD' && (writer.mods ?? []).includes('WIDE');
  const readerIsWide = reader.opcode === 'IMAD' && (reader.mods ?? []).includes('WIDE');
  const rc: MachineReaderClass = readerIsWide ? 'wideAB' : r.reader;
  return machineRawLatency(t, wide ? 'wideHi' : w.writer, rc);
}
