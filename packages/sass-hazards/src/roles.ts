import type { HazardInstr, RegRef, SassOperandView } from './types.js';

/** One register range an instruction reads or writes; `operand` is its operand index (-1: the guard). */
export interface RegAccess {
  reg: RegRef;
  operand: number;
  /** A register that forms an address (memory and constant-bank operands). */
  address?: boolean;
}

export interface InstrRoles {
  defs: RegAccess[];
  uses: RegAccess[];
  /** Unknown opcode: operand 0 taken as the destination by default. */
  guessed: boolean;
  /** How many leading operands are results (PT/RZ destinations included, which `defs` leaves out). */
  resultOperands: number;
}

const set = (s: string): ReadonlySet<string> => new Set(s.split(/\s+/).filter(Boolean));

/** Instructions without register results (their first operand is a source or an address). */
const NO_DEF = set(`
  ST STG STS STL RED REDG SUST SURED BRA BRX JMP JMX CALL RET EXIT BSYNC BAR WARPSYNC NOP MEMBAR DEPBAR ERRBAR
  CCTL CCTLL YIELD KILL BPT NANOSLEEP FENCE ACQBULK LDGDEPBAR LDGSTS UTMALDG UTMASTG UTMAPF UTMACCTL UBLKCP
  UBLKRED UBLKPF STSM ARRIVES UCGABAR_ARV UCGABAR_WAIT PREEXIT BREAK CGAERRBAR WARPGROUP WARPGROUPSET
  BMOV_B STAS RPCMOV SETLMEMBASE SETCTAID PMTRIG CSMTEST`);

/** Two predicate results: ISETP P0, P1, ... */
const TWO_PRED_DEFS = set(`ISETP FSETP DSETP HSETP2 PSETP PLOP3 UISETP UPLOP3 UPSETP VSETP`);

/**
 * Leading predicate results, one register result, trailing predicate results (carry-outs):
 * `IADD3 R1, P0, P1, ...`, `LOP3.LUT P0, R2, ...`, `SHFL.BFLY PT, R5, ...`, `ATOMG.E.ADD PT, R8, ...`.
 */
const CARRY_DEFS = set(`
  IADD3 UIADD3 LEA ULEA LOP3 ULOP3 IMAD UIMAD IMADSP SHFL ATOM ATOMG ATOMS ELECT QSPC LEA_HI IADD`);

const LOADS = set(`LD LDG LDS LDL LDC ULDC LDSM ATOM ATOMG ATOMS SULD`);
const STORES = set(`ST STG STS STL RED REDG`);
/** Memory forms whose `.E` modifier means a 64-bit address (nvdisasm omits `.64` on sm_75). */
const GENERIC_OR_GLOBAL = set(`LD LDG ST STG ATOM ATOMG RED REDG CCTL`);
const FP64 = set(`DADD DMUL DFMA DMNMX DSET DSETP`);

function sizeCount(mods: readonly string[]): number {
  for (const m of mods) {
    if (m === '64') return 2;
    if (m === '128') return 4;
  }
  return 1;
}

function is64Type(t: string): boolean {
  return t === 'F64' || t === 'S64' || t === 'U64';
}

function isRegOperand(o: SassOperandView): boolean {
  return o.kind === 'reg' || o.kind === 'ureg';
}
function isPredOperand(o: SassOperandView): boolean {
  return o.kind === 'pred' || o.kind === 'upred';
}

/** How many leading operands are results. */
function defCount(ins: HazardInstr): { n: number; guessed: boolean } {
  const ops = ins.operands;
  const op = ins.opcode;
  if (ops.length === 0 || NO_DEF.has(op)) return { n: 0, guessed: false };
  if (op === 'BMOV') {
    // BMOV.32 Rd, Bn reads a convergence barrier; BMOV.32 Bn, Rs writes one; .CLEAR also clears the barrier
    return { n: 1, guessed: false };
  }
  if (op === 'BSSY' || op === 'BCLEAR') return { n: 1, guessed: false };
  if (TWO_PRED_DEFS.has(op)) return { n: Math.min(2, ops.length), guessed: false };
  if (op === 'VOTE' || op === 'VOTEU') return { n: isRegOperand(ops[0]!) ? Math.min(2, ops.length) : 1, guessed: false };
  if (op === 'R2P') return { n: 0, guessed: false };
  // SYNCS.ARRIVE Rd|RZ, [a], Rv; SYNCS.PHASECHK P, [a], Rv; SYNCS.EXCH URd, [a], URv; SYNCS.CCTL.IV [a]
  if (op === 'SYNCS') return { n: isRegOperand(ops[0]!) || isPredOperand(ops[0]!) ? 1 : 0, guessed: false };
  if (CARRY_DEFS.has(op)) {
    let i = 0;
    while (i < ops.length && isPredOperand(ops[i]!)) i++;
    if (i < ops.length && isRegOperand(ops[i]!)) i++;
    // carry-outs after the register result (never for the .X forms, whose trailing predicates are carry-ins)
    while (i < ops.length - 1 && isPredOperand(ops[i]!)) i++;
    return { n: i, guessed: false };
  }
  if (STORES.has(op)) return { n: 0, guessed: false };
  if (TEXTURE.has(op)) return { n: Math.min(2, ops.length), guessed: false };
  const first = ops[0]!;
  const known = KNOWN_ONE_DEF.has(op);
  if (!isRegOperand(first) && !isPredOperand(first) && first.kind !== 'cbar') return { n: 0, guessed: !known };
  return { n: 1, guessed: !known };
}

const KNOWN_ONE_DEF = set(`
  MOV UMOV IMAD IMUL IADD3 IABS IMNMX BMSK SGXT SHF USHF SHL SHR LOP3 PRMT UPRMT SEL USEL FSEL FSET ISET
  FADD FMUL FFMA FMNMX FCHK FRND F2F F2I I2F I2I I2IP F2FP MUFU POPC UPOPC FLO UFLO BREV UBREV S2R S2UR CS2R
  R2UR P2R UP2UR LEPC B2R HADD2 HMUL2 HFMA2 HMNMX2 HSET2 DADD DMUL DFMA DMNMX DSET HMMA IMMA DMMA BMMA
  LDG LD LDS LDL LDC ULDC LDSM SULD MATCH REDUX IDP IDP4A VABSDIFF VABSDIFF4 UMOV ULOP3 UIADD3 USEL
  USGXT UBMSK UIMAD ULEA SHFL FSWZADD GETLMEMBASE UCLEA`);

/**
 * Texture instructions (sm_75+): `TEX Rd2, Rd, Ra, Rb, [UR,] tex, DIM[, mask]`, both destinations first
 * (nvdisasm's order: Rd2 is the word's bits 64..71, Rd bits 16..23). The channels of the write mask (0xf when
 * not printed) land in Rd, Rd+1 (first two) and Rd2, Rd2+1 (the rest). Ra holds the coordinates (the array
 * index first), Rb the rest in this order: bindless handle (.B), LOD (.LL/.LB), packed texel offsets (.AOFFI),
 * depth reference (.DC); TXD's Rb holds the derivatives. Learned from ptxas 13 sm_90/sm_80 code where each
 * coordinate is loaded by its own LDG (tex.2d: Ra = x, y, Rb = lod; tex.3d/cube: Ra = x, y, z; a2d: Ra = idx,
 * x, y; .DC/.AOFFI: Rb = lod, dc|offsets; sm_80 TEX.B: Rb = handle, lod; TXD 2D: Rb = 4 derivatives; TLD.LZ:
 * Ra = coordinates, Rb RZ or absent; TXQ: Ra = the queried LOD).
 */
const TEXTURE = set(`TEX TLD TLD4 TMML TXD TXQ`);
const TEX_COORDS: Record<string, number> = { '1D': 1, '2D': 2, '3D': 3, CUBE: 3, ARRAY_1D: 2, ARRAY_2D: 3, ARRAY_3D: 4, ARRAY_CUBE: 4 };

function popcount4(m: number): number {
  let c = 0;
  for (let k = 0; k < 4; k++) if (m & (1 << k)) c++;
  return c;
}

/** Register counts of a texture instruction's operands 0..3 (Rd2, Rd, Ra, Rb). */
function textureWidths(ins: HazardInstr): number[] {
  const ops = ins.operands;
  const mods = ins.mods;
  let shape = -1;
  for (let i = 0; i < ops.length; i++) {
    const o = ops[i]!;
    if (o.kind === 'other' && (TEX_COORDS[o.text] !== undefined || o.text.startsWith('TEX_HEADER') || o.text.startsWith('TEX_SAMPLER'))) shape = i;
  }
  let mask = 0xf;
  const last = ops[ops.length - 1];
  if (shape >= 0 && shape < ops.length - 1 && last && last.kind === 'imm' && last.value !== undefined) mask = last.value & 0xf;
  const channels = popcount4(mask);
  const dim = shape >= 0 ? ops[shape]!.text : '';
  const coords = ins.opcode === 'TXQ' ? 1 : TEX_COORDS[dim] ?? 1;
  const has = (m: string): number => (mods.includes(m) ? 1 : 0);
  let extra: number;
  if (ins.opcode === 'TXD') {
    // two derivatives per (non-array) coordinate
    extra = has('B') + 2 * (coords - (dim.startsWith('ARRAY') ? 1 : 0)) + has('AOFFI');
  } else {
    extra = has('B') + (has('LL') || has('LB')) + has('AOFFI') + has('DC');
    if (ins.opcode === 'TLD' && !mods.includes('LZ')) extra += 1;
  }
  // a register vector holds at most four registers
  return [Math.max(0, channels - 2), Math.min(2, channels), Math.min(4, coords), Math.max(1, Math.min(4, extra))];
}

/**
 * Registers an instruction writes and reads, with their widths: .64/.128 memory data, fp64 pairs, IMAD.WIDE,
 * conversions to and from 64-bit types, CS2R, HMMA fragments, P2R/R2P masks (spec: register pairs are the
 * even-aligned R(n), R(n+1)).
 */
export function instrRoles(ins: HazardInstr): InstrRoles {
  const defs: RegAccess[] = [];
  const uses: RegAccess[] = [];
  const { n, guessed } = defCount(ins);
  const op = ins.opcode;
  const mods = ins.mods;
  if (ins.guard && ins.guard.index !== 7) uses.push({ reg: { file: ins.guard.file, index: ins.guard.index, count: 1 }, operand: -1 });

  // data widths: result width and per-source-operand widths (index = operand index)
  let defWidth = 1;
  let texDefWidths: number[] | undefined;
  const srcWidth = new Map<number, number>();
  const ops = ins.operands;
  if (LOADS.has(op)) {
    defWidth = sizeCount(mods);
    if (op === 'LDSM') defWidth = mods.includes('4') ? 4 : mods.includes('2') ? 2 : 1;
    if (op === 'ATOM' || op === 'ATOMG' || op === 'ATOMS') {
      // signed 64-bit min/max print .S64 (and f64 add .F64) instead of .64: register pairs too
      if (mods.some(is64Type)) defWidth = 2;
      for (let i = n; i < ops.length; i++) srcWidth.set(i, defWidth);
    }
  } else if (STORES.has(op)) {
    // (RED.E.ADD.F64 names its pair by the type, as ATOMG does)
    const w = (op === 'RED' || op === 'REDG') && mods.some(is64Type) ? 2 : sizeCount(mods);
    for (let i = 0; i < ops.length; i++) if (ops[i]!.kind === 'reg') srcWidth.set(i, w);
  } else if (FP64.has(op)) {
    if (op !== 'DSETP') defWidth = 2;
    for (let i = n; i < ops.length; i++) srcWidth.set(i, 2);
  } else if (op === 'IMAD' && mods.includes('WIDE')) {
    defWidth = 2;
    // D = A * B + C with a 64-bit C (the last register operand)
    srcWidth.set(ops.length - 1, 2);
    if (mods.includes('X')) for (let i = ops.length - 1; i >= 0; i--) if (ops[i]!.kind === 'reg') { srcWidth.set(i, 2); break; }
  } else if (op === 'F2F' || op === 'F2I' || op === 'I2F' || op === 'FRND' || op === 'I2I') {
    const types = mods.filter((m) => /^[FSU](8|16|32|64)$/.test(m));
    let dst: string | undefined;
    let src: string | undefined;
    if (op === 'F2F' || op === 'FRND') {
      dst = types[0];
      src = types[1] ?? types[0];
    } else if (op === 'I2F') {
      for (const t of types) if (t.startsWith('F')) dst = t; else src = t;
    } else if (op === 'F2I') {
      for (const t of types) if (t.startsWith('F')) src = t; else dst = t;
    }
    if (dst && is64Type(dst)) defWidth = 2;
    if (src && is64Type(src)) for (let i = n; i < ops.length; i++) if (ops[i]!.kind === 'reg') srcWidth.set(i, 2);
  } else if (op === 'MATCH') {
    // MATCH.ANY.U64 compares register pairs
    if (mods.includes('U64')) for (let i = n; i < ops.length; i++) if (ops[i]!.kind === 'reg') srcWidth.set(i, 2);
  } else if (op === 'SYNCS') {
    // the arrive's result is the 64-bit state before it; EXCH.64 writes and returns a 64-bit word
    if (mods.includes('ARRIVE') || mods.includes('EXCH')) defWidth = 2;
    if (mods.includes('EXCH')) srcWidth.set(ops.length - 1, 2);
  } else if (op === 'CS2R') {
    defWidth = mods.includes('32') ? 1 : 2;
  } else if (op === 'LEPC') {
    defWidth = 2;
  } else if (op === 'HMMA' || op === 'IMMA' || op === 'DMMA' || op === 'BMMA') {
    const shape = mods.find((m) => /^\d+$/.test(m)) ?? '';
    const f32 = mods.includes('F32') || mods.includes('S32') || op === 'DMMA';
    // fragment sizes per thread (registers): D/C, A, B
    let a = 2;
    let b = 1;
    let cd = f32 ? 4 : 2;
    if (shape === '16816' || shape === '16832' || shape === '16864') { a = 4; b = 2; }
    else if (shape === '1688' || shape === '8816' || shape === '8832') { a = 2; b = 1; }
    else if (shape === '884') { a = 2; b = 2; cd = f32 ? 8 : 4; }
    if (op === 'DMMA') { a = 2; b = 2; cd = 4; }
    // IMMA accumulates in s32 (no type token says so); 8-bit A/B fragments are half the f16 ones
    if (op === 'IMMA') {
      cd = shape === '8816' || shape === '8832' ? 2 : 4;
      if (shape === '16816') { a = 2; b = 1; }
      else if (shape === '8816' || shape === '8832') { a = 1; b = 1; }
    }
    defWidth = cd;
    const regIdx: number[] = [];
    for (let i = n; i < ops.length; i++) if (ops[i]!.kind === 'reg') regIdx.push(i);
    if (regIdx[0] !== undefined) srcWidth.set(regIdx[0], a);
    if (regIdx[1] !== undefined) srcWidth.set(regIdx[1], b);
    if (regIdx[2] !== undefined) srcWidth.set(regIdx[2], cd);
  } else if ((op === 'MOV' || op === 'UMOV' || op === 'SEL' || op === 'IADD' || op === 'UIADD3') && mods.includes('64')) {
    defWidth = 2;
    for (let i = n; i < ops.length; i++) srcWidth.set(i, 2);
  } else if (TEXTURE.has(op)) {
    const w = textureWidths(ins);
    for (let i = 2; i < 4; i++) if (ops[i]?.kind === 'reg') srcWidth.set(i, w[i]!);
    texDefWidths = w;
  } else if (op === 'RET' || op === 'CALL' || op === 'JMX' || op === 'BRX') {
    // code addresses are 64-bit pairs (ptxas sign-extends a jump-table entry into Rn+1 before `BRX Rn`)
    for (let i = 0; i < ops.length; i++) if (ops[i]!.kind === 'reg') srcWidth.set(i, 2);
  }

  const memWide = GENERIC_OR_GLOBAL.has(op) && mods.includes('E');
  const ignored = lutIgnoredSources(ins, n);
  for (let i = 0; i < ops.length; i++) {
    const o = ops[i]!;
    if (ignored.has(i)) continue;
    if (i < n) {
      if (o.reg) {
        if (texDefWidths) {
          // channels the mask does not write leave the register out (Rd2 of a 1- or 2-channel fetch is RZ)
          if (texDefWidths[i]! > 0) defs.push({ reg: { ...o.reg, count: texDefWidths[i]! }, operand: i });
          continue;
        }
        const w = o.kind === 'reg' || o.kind === 'ureg' ? Math.max(defWidth, o.reg.count) : 1;
        defs.push({ reg: { ...o.reg, count: w }, operand: i });
        // BMOV.32.CLEAR Rd, Bn and BSSY write the barrier operand too
      }
      continue;
    }
    if (o.reg) {
      if (op === 'BMOV' && o.kind === 'cbar' && mods.includes('CLEAR')) defs.push({ reg: o.reg, operand: i });
      const w = o.kind === 'reg' || o.kind === 'ureg' ? Math.max(srcWidth.get(i) ?? 1, o.reg.count) : 1;
      uses.push({ reg: { ...o.reg, count: w }, operand: i });
    }
    if (o.addrRegs) {
      for (const r of o.addrRegs) {
        const w = o.kind === 'mem' && memWide && r.count === 1 ? 2 : r.count;
        uses.push({ reg: { ...r, count: w }, operand: i, address: true });
      }
    }
    if (o.kind === 'prmask') {
      // P2R Rd, PR, Rs, mask reads the predicates named by the mask; R2P PR, Rs, mask writes them
      const maskOp = ops[ops.length - 1];
      const mask = maskOp?.kind === 'imm' && maskOp.value !== undefined ? maskOp.value : 0x7f;
      const file = o.text.startsWith('U') ? 'UP' : 'P';
      const list = op === 'R2P' ? defs : uses;
      for (let p = 0; p < 7; p++) if (mask & (1 << p)) list.push({ reg: { file, index: p, count: 1 }, operand: i });
    }
  }
  if (op === 'CALL' && mods.includes('ABS')) {
    // a call out of the function (the ABI's CALL.ABS to vprintf, malloc, an extern): the callee may read any
    // register (arguments, and the ones it saves) and write any (results, scratch, after saving the rest), so
    // every pending write and late read must be complete when it issues (ptxas waits on all scoreboards there)
    uses.push({ reg: { file: 'R', index: 0, count: 255 }, operand: -1 });
    defs.push({ reg: { file: 'R', index: 0, count: 255 }, operand: -1 });
    for (let p = 0; p < 7; p++) defs.push({ reg: { file: 'P', index: p, count: 1 }, operand: -1 });
  }
  return { defs, uses, guessed, resultOperands: n };
}

/**
 * LOP3/PLOP3 sources the truth table does not depend on are not read (ptxas schedules them as such): for
 * a LUT over (a, b, c) = bits (2, 1, 0) of the row index, a source matters when flipping it changes a bit.
 */
function lutIgnoredSources(ins: HazardInstr, n: number): Set<number> {
  const out = new Set<number>();
  const op = ins.opcode;
  if (!(op === 'LOP3' || op === 'ULOP3' || op === 'PLOP3' || op === 'UPLOP3') || !ins.mods.includes('LUT')) return out;
  const luts: number[] = [];
  for (const k of op.endsWith('PLOP3') ? [n + 3, n + 4] : [n + 3]) {
    const o = ins.operands[k];
    if (!o || o.kind !== 'imm' || o.value === undefined) return out;
    luts.push(o.value & 0xff);
  }
  const depends = (bit: number): boolean => luts.some((lut) => {
    const mask = bit === 2 ? 0x0f : bit === 1 ? 0x33 : 0x55;
    return ((lut ^ (lut >> (1 << bit))) & mask) !== 0;
  });
  for (let s = 0; s < 3; s++) if (!depends(2 - s)) out.add(n + s);
  return out;
}
