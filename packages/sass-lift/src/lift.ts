import { decodeAttribute, type Cubin, type CubinFunction } from '@ptxforge/cubin';
import { LWINBASE, SWINBASE } from '@ptxforge/interp';
import { parseOri, type OriModule } from '@ptxforge/kernel';
import { decodeVolta } from '@ptxforge/mercury-volta';
import { formatInstruction, isUnknown, wordFromBytes, type SassInstruction } from '@ptxforge/sass';
import { instrRoles, parseSassText, type HazardInstr, type SassOperandView } from '@ptxforge/sass-hazards';

export type LiftErrorCode = 'LIFT_NO_KERNEL' | 'LIFT_UNDECODED' | 'LIFT_UNSUPPORTED' | 'LIFT_ARCH';

/** A coded lifting error naming the function, address and instruction. */
export class LiftError extends Error {
  constructor(readonly code: LiftErrorCode, message: string) {
    super(message);
  }
}

export interface LiftedKernel {
  arch: string;
  kernel: string;
  module: OriModule;
  /** The Ori text the module was parsed from (physical registers: %r5 is R5, %rd4 the pair R4:R5). */
  oriText: string;
  /** Bytes of the local window (stack) the kernel gets; c[0x0][0x28] reads as this. */
  localBytes: number;
}

const ATTR = { KPARAM_INFO: 0x17, PARAM_CBANK: 0x0a, FRAME_SIZE: 0x11, MIN_STACK_SIZE: 0x12 } as const;

/** Opcodes that only order memory or hint the scheduler: the interpreter is sequentially consistent. */
const DROPPED = new Set(['NOP', 'WARPSYNC', 'MEMBAR', 'ERRBAR', 'CGAERRBAR', 'CCTL', 'CCTLL', 'DEPBAR', 'LDGDEPBAR', 'FENCE', 'NANOSLEEP', 'YIELD', 'PMTRIG']);
/** Uniform-datapath opcodes: the same operation on uniform registers (the interpreter keeps them per lane). */
const UNIFORM_TWINS: Record<string, string> = {
  UIADD3: 'IADD3', UMOV: 'MOV', ULOP3: 'LOP3', USHF: 'SHF', USEL: 'SEL', UISETP: 'ISETP', ULEA: 'LEA', UPRMT: 'PRMT',
  UPOPC: 'POPC', UFLO: 'FLO', UBREV: 'BREV', UIMAD: 'IMAD', UPLOP3: 'PLOP3', R2UR: 'MOV', S2UR: 'S2R', VOTEU: 'VOTE',
  VIADD: 'IADD3', VIMNMX: 'IMNMX', ULDC: 'LDC', UIABS: 'IABS', UIMNMX: 'IMNMX',
};
const GLOBAL_MEM = new Set(['LDG', 'STG', 'LD', 'ST', 'ATOMG', 'ATOM', 'RED', 'REDG']);
// (SYNCS: mbarrier operations on a shared-memory word, lifted to the Ori SYNCS forms of the same spelling)
const MEM = new Set([...GLOBAL_MEM, 'LDS', 'STS', 'LDL', 'STL', 'ATOMS', 'SYNCS']);
const FLOAT32_OPS = new Set(['FADD', 'FMUL', 'FFMA', 'FSETP', 'FSET', 'FMNMX', 'FSEL', 'FCHK', 'MUFU', 'FRND', 'F2I', 'F2F']);
const FLOAT64_OPS = new Set(['DADD', 'DMUL', 'DFMA', 'DSETP', 'DMNMX']);
const SREG_NAMES: Record<string, string> = {
  SR_LTMASK: 'SR_LANEMASK_LT', SR_LEMASK: 'SR_LANEMASK_LE', SR_GTMASK: 'SR_LANEMASK_GT', SR_GEMASK: 'SR_LANEMASK_GE', SR_EQMASK: 'SR_LANEMASK_EQ',
  SR_CLOCKLO: 'SR_CLOCKLO', SR_CLOCKHI: 'SR_CLOCKHI',
};

const hex = (n: number): string => `0x${n.toString(16)}`;
/** An integer as SASS prints it (`0x1c`, `-0x180`, `12`). */
const intText = (t: string): number => (t.startsWith('-') ? -Number(t.slice(1)) : Number(t));
const label = (addr: number): string => `L${addr.toString(16).padStart(4, '0')}`;

interface Ctx {
  fn: string;
  addr: number;
  stackTop: number;
  tmp: number;
  text: string;
  /** Return sites (the word after each CALL), ascending: RET's jump table. */
  returnSites: number[];
  /** ABI calls of driver functions (`CALL.ABS.NOINC Rt` with Rt loaded from a bank-4 slot): address → callee. */
  externCalls: Map<number, string>;
  /** Extra blocks appended after the body (the bad-return trap). */
  tail: string[];
  /** BRX address → its possible targets (EIATTR_INDIRECT_BRANCH_TARGETS). */
  indirectTargets: Map<number, number[]>;
  /** Setup lines of the instruction being lifted (temporaries for addresses and bank-4 words). */
  pre: string[];
  data: DataImage;
}

/**
 * The module's data as the lifted code sees it: global variables (`.nv.global.init`, `.nv.global`) and the user
 * constant bank (`.nv.constant3`) become one Ori variable per section, and `.nv.constant4` — the 64-bit addresses
 * ptxas loads global and constant variables' addresses from — is resolved through its relocations.
 */
interface DataImage {
  /** Ori declarations of the section variables. */
  decls: string[];
  /** Bank 4: byte offset of a relocated 64-bit word → the variable and offset it holds the address of. */
  bank4Relocs: Map<number, { v: string; offset: number }>;
  bank4Bytes: Uint8Array;
  /** Bank 4: byte offset of a word holding the address of a function outside the module (vprintf, malloc ...). */
  bank4Externs: Map<number, string>;
  /** Bank-4 slots holding a kernel's function descriptor (R_CUDA_FUNC_DESC_64), by offset. */
  bank4Kernels: Map<number, string>;
  /** Offset in bank 3 of the function's `.nv.constant2` (jump tables), when it has one. */
  bank2Base?: number;
}

/**
 * Driver functions an ABI call may name, with their parameter and result widths in registers (the CUDA
 * declarations nvcc writes: `vprintf(.b64, .b64) -> .b32`, `malloc(.b64) -> .b64`, `free(.b64)`,
 * `__assertfail(.b64, .b64, .b32, .b64, .b64)`).
 */
const DRIVER_SIGNATURES: Record<string, { args: number[]; results: number[] }> = {
  vprintf: { args: [2, 2], results: [1] },
  malloc: { args: [2], results: [2] },
  free: { args: [2], results: [] },
  __assertfail: { args: [2, 2, 1, 2, 2], results: [] },
};

/** Registers from R4 for values of these widths, pairs even-aligned (the ABI's argument and result placement). */
function abiPlace(widths: readonly number[]): number[] {
  let next = 4;
  return widths.map((w) => {
    if (w === 2 && next % 2) next++;
    const at = next;
    next += w;
    return at;
  });
}

/**
 * Find each `CALL.ABS.NOINC Rt` whose Rt was last written, earlier in the same straight-line code, by
 * `LDC.64 Rt, c[0x4][slot]` of a driver function's slot (how ptxas and ptxforge call vprintf and friends).
 */
function findExternCalls(ctx: Ctx, words: ReadonlyArray<{ addr: number; ins: SassInstruction; view: HazardInstr }>): void {
  for (let k = 0; k < words.length; k++) {
    const w = words[k]!;
    if (w.view.opcode !== 'CALL' || !w.view.mods.includes('ABS')) continue;
    const t = w.view.operands.find((o) => o.kind === 'reg' && o.reg)?.reg?.index;
    if (t === undefined) continue;
    for (let j = k - 1; j >= 0; j--) {
      const p = words[j]!.view;
      if (['BRA', 'EXIT', 'RET', 'BRX', 'CALL', 'BSYNC'].includes(p.opcode)) break;
      const d = instrRoles(p).defs.find((x) => x.reg.file === 'R' && x.reg.index <= t + 1 && t <= x.reg.index + x.reg.count - 1);
      if (!d) continue;
      const c = p.operands.find((o) => o.kind === 'cbank');
      const m = c ? /c\[0x4\]\[(0x[0-9a-f]+|\d+)\]/.exec(c.text) : null;
      const name = p.opcode === 'LDC' && m ? ctx.data.bank4Externs.get(Number(m[1])) : undefined;
      if (name !== undefined) ctx.externCalls.set(w.addr, name);
      break;
    }
  }
}

/**
 * An ABI call of a driver function, lifted as the Ori call by name (the interpreter runs vprintf, traps on
 * __assertfail, refuses malloc): arguments from R4..., results into R4...; afterwards every register the callee
 * may overwrite (R0, R2..R15, R20:R21, P0..P6) holds a poison value, so code that wrongly keeps a value there
 * across the call computes a different result.
 */
function liftExternCall(ctx: Ctx, name: string, guard: string, uncond: boolean): { lines: string[]; ends: boolean } {
  // A function of another object (relocatable output: the device runtime's __cudaCDP2*, cudaGraphSetConditional):
  // its signature is not in the cubin, and the interpreter cannot run it (it refuses it by name, with the reason
  // the PTX path gives): lifted as the call by name without arguments, then the same poison.
  const sig = DRIVER_SIGNATURES[name] ?? { args: [], results: [] };
  if (!uncond) unsupported(ctx, 'a guarded call of a driver function is not lifted');
  const regs = (widths: number[], at: number[]): string[] => widths.map((w, i) => regName('R', at[i]!, w));
  const args = regs(sig.args, abiPlace(sig.args));
  const resAt = abiPlace(sig.results);
  const results = regs(sig.results, resAt);
  const kept = new Set<number>();
  sig.results.forEach((w, i) => {
    for (let p = 0; p < w; p++) kept.add(resAt[i]! + p);
  });
  const lines = [`  ${guard}${results.length ? `${results.join(', ')} = ` : ''}CALL @${name}${args.length ? `, ${args.join(', ')}` : ''}`];
  for (const n of [0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 20, 21]) if (!kept.has(n)) lines.push(`  ${regName('R', n, 1)} = MOV 0x7ff7dead`);
  for (let p = 0; p < 7; p++) lines.push(`  %p${p} = ISETP.NE.U32.AND RZ, 0x1, PT`);
  return { lines, ends: false };
}

function unsupported(ctx: Ctx, why: string): never {
  throw new LiftError('LIFT_UNSUPPORTED', `${ctx.fn} 0x${ctx.addr.toString(16).padStart(4, '0')}: \`${ctx.text}\`: ${why}`);
}

/** The barrier reduction's result between BAR.RED and B2R.RESULT (a lifted temporary below the others). */
const BAR_RESULT = '%r998';

function regName(file: 'R' | 'UR', index: number, width: number): string {
  const p = file === 'R' ? 'r' : 'ur';
  return `%${p}${width === 2 ? 'd' : width === 4 ? 'q' : ''}${index}`;
}

function f32Bits(x: number): string {
  const dv = new DataView(new ArrayBuffer(4));
  dv.setFloat32(0, x);
  return `0f${dv.getUint32(0).toString(16).padStart(8, '0').toUpperCase()}`;
}
function f64Bits(x: number): string {
  const dv = new DataView(new ArrayBuffer(8));
  dv.setFloat64(0, x);
  return `0d${dv.getBigUint64(0).toString(16).padStart(16, '0').toUpperCase()}`;
}
function parseFloatText(t: string): number {
  const s = t.replace(/^\+/, '');
  if (/^-?INF$/i.test(s)) return s.startsWith('-') ? -Infinity : Infinity;
  if (/QNAN|NAN/i.test(s)) return NaN;
  return Number(s);
}

/** One operand as Ori text. `width` in 32-bit registers; `fp` says how a decimal immediate is encoded. */
function operand(ctx: Ctx, o: SassOperandView, width: number, fp: 'f32' | 'f64' | undefined): string {
  const raw = o.text.replace(/\.reuse\b/g, '');
  const neg = raw.startsWith('-');
  const abs = /^-?\|/.test(raw);
  const not = raw.startsWith('!') || raw.startsWith('~');
  const wrap = (s: string): string => {
    let r = abs ? `|${s}|` : s;
    if (neg) r = `-${r}`;
    if (not) r = `${raw.startsWith('~') ? '~' : '!'}${r}`;
    return r;
  };
  // Ori negates (and takes |x| of) registers only: a modified constant operand is loaded into a temporary first
  const wrapConst = (c: string): string => {
    if (!neg && !abs && !not) return c;
    const t = regName('R', ctx.tmp, width);
    ctx.tmp += Math.max(2, width);
    ctx.pre.push(`  ${t} = LDC${width === 2 ? '.64' : ''} ${c}`);
    return wrap(t);
  };
  switch (o.kind) {
    case 'reg':
    case 'ureg': {
      const half = /\.(H0_H0|H1_H1)$/.exec(raw);
      if (half && o.reg) {
        // half-register broadcast (f16x2 operands): PRMT the selected half into both halves of a temporary
        const t = `%r${ctx.tmp}`;
        ctx.tmp += 2;
        ctx.pre.push(`  ${t} = PRMT ${regName(o.kind === 'reg' ? 'R' : 'UR', o.reg.index, 1)}, ${half[1] === 'H0_H0' ? 0x1010 : 0x3232}, RZ`);
        return wrap(t);
      }
      if (half && !o.reg) return wrap(o.kind === 'reg' ? 'RZ' : 'URZ');
      // -RZ on the float pipes is -0.0 (Ori negates registers only; the adder keeps -RZ for its carry rule)
      if (!o.reg && neg && fp) return fp === 'f64' ? f64Bits(-0) : f32Bits(-0);
      if (/\.(H0|H1|B[0-3]|X\d|ROW|COL|F32|BF16)/.test(raw)) unsupported(ctx, `operand ${o.text}: register half/byte selects are not lifted yet`);
      if (!o.reg) return wrap(o.kind === 'reg' ? 'RZ' : 'URZ');
      return wrap(regName(o.kind === 'reg' ? 'R' : 'UR', o.reg.index, width));
    }
    case 'pred':
    case 'upred':
      if (!o.reg) return raw.startsWith('!') ? '!PT' : 'PT';
      return `${raw.startsWith('!') ? '!' : ''}%${o.kind === 'pred' ? 'p' : 'up'}${o.reg.index}`;
    case 'imm': {
      const t = raw.replace(/^[-]?\|?/, '');
      if (/^32@(lo|hi)/.test(raw)) unsupported(ctx, `relocated immediate ${raw}`);
      const isHex = /^-?0x[0-9a-f]+$/i.test(raw);
      if (fp && !isHex) {
        const v = parseFloatText(raw);
        return fp === 'f64' ? f64Bits(v) : f32Bits(v);
      }
      void t;
      return isHex ? (raw.startsWith('-') ? `-${BigInt(raw.slice(1))}` : `${BigInt(raw)}`) : raw;
    }
    case 'cbank': {
      const m = /^c\[(0x[0-9a-f]+)\]\[(.*)\]$/i.exec(raw.replace(/^[-!~|]+|\|$/g, ''));
      if (!m) unsupported(ctx, `constant operand ${raw}`);
      const bank = Number(m[1]);
      const inner = m[2]!;
      const idx = /^(U?R)(\d+|Z)(?:\s*\+\s*(-?0x[0-9a-f]+))?$/i.exec(inner);
      // bank 2 (the function's jump tables) rides in bank 3 after the user constants
      const rebank = (b: number, o: number): [number, number] => (b === 2 && ctx.data.bank2Base !== undefined ? [3, o + ctx.data.bank2Base] : [b, o]);
      if (idx) {
        if (idx[2] === 'Z') {
          const [b, o] = rebank(bank, Number(idx[3] ?? 0));
          return `c[${hex(b)}][${hex(o)}]`;
        }
        const [b, o] = rebank(bank, Number(idx[3] ?? 0));
        if (b !== 0 && b !== 3) unsupported(ctx, `indexed constant bank ${bank}`);
        return `c[${hex(b)}][${regName(idx[1] === 'R' ? 'R' : 'UR', Number(idx[2]), 1)}+${hex(o)}]`;
      }
      const off0 = Number(inner);
      if (!Number.isFinite(off0)) unsupported(ctx, `constant operand ${raw}`);
      if (bank === 0 && off0 === 0x28) return wrap(`${ctx.stackTop}`);
      // c[0x0][0x20..0x27]: the generic address of local-window offset 0 (ptxas's cvta.local), the interpreter's
      // SR_LWINBASE; the lifted stack (@__stack) sits at local-window offset 0
      if (bank === 0 && (off0 === 0x20 || off0 === 0x24)) {
        const base = BigInt(LWINBASE);
        const v = width === 2 && off0 === 0x20 ? base : off0 === 0x20 ? base & 0xffffffffn : base >> 32n;
        return wrap(`0x${v.toString(16)}`);
      }
      if (bank === 4) return wrap(bank4Word(ctx, off0, width));
      const [rb, off] = rebank(bank, off0);
      if (rb !== bank) return wrapConst(`c[${hex(rb)}][${hex(off)}]`);
      if (bank !== 0 && bank !== 3) unsupported(ctx, `constant bank ${bank} is not loaded by the lifter`);
      return wrapConst(`c[${hex(bank)}][${hex(off)}]`);
    }
    case 'sreg': {
      if (raw === 'SRZ') return 'RZ';
      // launches have no thread-block clusters: every CTA is CTA 0 of its own one-CTA cluster
      if (raw === 'SR_CgaCtaId') return '0';
      // the high word of the shared window's generic address (ptxas's cvta.shared on sm_90: SR_SWINHI:(CgaCtaId << 24 | offset))
      if (raw === 'SR_SWINHI') return hex(Math.floor(SWINBASE / 2 ** 32));
      return SREG_NAMES[raw] ?? raw;
    }
    default:
      return unsupported(ctx, `operand ${o.text}`);
  }
}

/** A word of constant bank 4: a variable's address (from the bank's relocations) or the bank's plain bytes. */
function bank4Word(ctx: Ctx, off: number, width: number): string {
  const { bank4Relocs, bank4Bytes } = ctx.data;
  // a driver function's address: unknown here (0); the CALL through it is lifted by name
  if (ctx.data.bank4Externs.has(off) || ctx.data.bank4Externs.has(off - 4)) return '0';
  const kernel = ctx.data.bank4Kernels.get(off);
  if (kernel !== undefined && width === 2) return `@${kernel}`;
  if (kernel !== undefined || ctx.data.bank4Kernels.has(off - 4)) unsupported(ctx, `a 32-bit read of the function descriptor at c[0x4][${hex(off)}]`);
  const at = bank4Relocs.get(off) ?? bank4Relocs.get(off - 4);
  if (!at) {
    if (off + 4 * width > bank4Bytes.length) unsupported(ctx, `c[0x4][${hex(off)}] is outside .nv.constant4`);
    const dv = new DataView(bank4Bytes.buffer, bank4Bytes.byteOffset, bank4Bytes.byteLength);
    return width === 2 ? `${dv.getBigUint64(off, true)}` : `${dv.getUint32(off, true)}`;
  }
  const hiHalf = !bank4Relocs.has(off);
  if (width === 2 && hiHalf) unsupported(ctx, `a 64-bit read of c[0x4][${hex(off)}] straddles two addresses`);
  const t = ctx.tmp;
  ctx.tmp += 4;
  ctx.pre.push(`  %rd${t} = IADD3 @${at.v}, ${at.offset}, RZ`);
  return width === 2 ? `%rd${t}` : `%r${hiHalf ? t + 1 : t}`;
}

/** A memory operand as Ori `[base+offset]`, with setup instructions for sums and scaled indices. */
function address(ctx: Ctx, o: SassOperandView, wide: boolean, pre: string[]): string {
  const raw = o.text;
  const last = raw.lastIndexOf('[');
  const inner = raw.slice(last + 1, raw.lastIndexOf(']'));
  const terms = inner.replace(/\+-/g, '-').replace(/-/g, '+-').split('+').map((t) => t.trim()).filter(Boolean);
  let offset = 0;
  const regs: string[] = [];
  for (const t of terms) {
    const m = /^(U?R)(\d+|Z)((?:\.[A-Z0-9]+)*)$/.exec(t);
    if (m) {
      if (m[2] === 'Z') continue;
      const file = m[1] === 'R' ? 'R' : 'UR';
      const is64 = wide || /\.64/.test(m[3] ?? '');
      let name = regName(file, Number(m[2]), is64 ? 2 : 1);
      const scale = /\.X(\d+)/.exec(m[3] ?? '');
      if (scale) {
        const tmp = `%r${ctx.tmp}`;
        ctx.tmp += 4;
        pre.push(`  ${tmp} = SHL ${name}, ${Math.log2(Number(scale[1]))}`);
        name = tmp;
      }
      regs.push(name);
      continue;
    }
    const v = Number(t.startsWith('-') ? -Number(t.slice(1)) : t);
    if (!Number.isFinite(v)) unsupported(ctx, `address term ${t} in ${raw}`);
    offset += v;
  }
  let base = regs[0];
  for (let k = 1; k < regs.length; k++) {
    const tmp = `%r${wide ? 'd' : ''}${ctx.tmp}`;
    ctx.tmp += 4;
    pre.push(`  ${tmp} = IADD3 ${base}, ${regs[k]}, RZ`);
    base = tmp;
  }
  const off = offset < 0 ? `-${hex(-offset)}` : `+${hex(offset)}`;
  return base ? `[${base}${off}]` : `[${hex(offset)}]`;
}

function widthsOf(view: HazardInstr): { def: Map<number, number>; use: Map<number, number>; results: number } {
  const roles = instrRoles(view);
  const def = new Map<number, number>();
  const use = new Map<number, number>();
  for (const d of roles.defs) if (d.operand >= 0) def.set(d.operand, Math.max(def.get(d.operand) ?? 0, d.reg.count));
  for (const u of roles.uses) if (u.operand >= 0 && !u.address) use.set(u.operand, Math.max(use.get(u.operand) ?? 0, u.reg.count));
  return { def, use, results: roles.resultOperands };
}

/** Conversion types in Ori's order (destination first), from SASS's defaults and spellings. */
function conversionMods(op: string, mods: string[]): string[] {
  const types = mods.filter((m) => /^[FSU](8|16|32|64)$/.test(m));
  const rest = mods.filter((m) => !/^[FSU](8|16|32|64)$/.test(m) && m !== 'NTZ');
  let dst: string | undefined;
  let src: string | undefined;
  if (op === 'F2I') {
    for (const t of types) if (t.startsWith('F')) src = t; else dst = t;
    dst ??= 'S32';
    src ??= 'F32';
    // SASS F2I without a rounding modifier rounds to nearest even; Ori's F2I without one truncates
    if (!rest.some((m) => ['TRUNC', 'FLOOR', 'CEIL', 'RN', 'RZ', 'RM', 'RP'].includes(m))) rest.push('RN');
  } else if (op === 'I2F') {
    for (const t of types) if (t.startsWith('F')) dst = t; else src = t;
    dst ??= 'F32';
    src ??= 'S32';
  } else {
    dst = types[0] ?? 'F32';
    src = types[1] ?? types[0] ?? 'F32';
  }
  return [dst, src, ...rest];
}

interface Lifted {
  lines: string[];
  /** ends the block (unconditional control transfer) */
  ends: boolean;
}

/** The byte a P2R works on: `.B1`..`.B3`. */
function predicateByte(sel: string | undefined): number {
  const m = sel ? /^B([0-3])$/.exec(sel) : null;
  return m ? 8 * Number(m[1]) : 0;
}

/**
 * P2R[.Bk] Rd, PR, Rs, mask: Rd = Rs with the mask's bits of byte k replaced by the predicates P0..P6 the mask
 * names (bit i of the byte = Pi). ptxas spills predicates with it (`P2R R31, PR, RZ, 0x1`, and `P2R.B1 R0, PR,
 * R0, 0xf` to pack a second set into the next byte). Lifted to SEL + LOP3 (the PTX path's selp / or). The
 * differential (apps/ptxforge nvcc-kernels `predicate_spill`) runs the RZ form; the merge into Rs and the .Bk
 * byte are read from nvdisasm's spelling (golden `P2R.B1 R, PR, R, 0xf`), not yet seen executing.
 */
function liftP2r(ctx: Ctx, ops: SassOperandView[], mods: string[], line: (s: string) => Lifted): Lifted {
  const [d, pr, s, m] = ops;
  if (!d || pr?.kind !== 'prmask' || pr.text !== 'PR' || !s || m?.kind !== 'imm' || m.value === undefined) unsupported(ctx, 'P2R form');
  const sh = predicateByte(mods.find((x) => /^B[0-3]$/.test(x)));
  const mask = m.value & 0x7f;
  const tmp = (): string => {
    const t = `%r${ctx.tmp}`;
    ctx.tmp += 2;
    return t;
  };
  let acc = tmp();
  ctx.pre.push(`  ${acc} = LOP3.LUT ${src1(ctx, s)}, ${hex((~(mask << sh)) >>> 0)}, RZ, 192, !PT`);
  for (let i = 0; i < 7; i++) {
    if (!(mask & (1 << i))) continue;
    const bit = tmp();
    const next = tmp();
    ctx.pre.push(`  ${bit} = SEL ${hex((1 << (i + sh)) >>> 0)}, RZ, %p${i}`, `  ${next} = LOP3.LUT ${acc}, ${bit}, RZ, 252, !PT`);
    acc = next;
  }
  return line(`${operand(ctx, d, 1, undefined)} = MOV ${acc}`);
}

/**
 * HMMA / IMMA / DMMA: the Ori instruction of the same name over the tuple's registers one by one (Ori keeps
 * fragment registers apart; packages/interp mma.ts gives the warp semantics): D's words (pairs for DMMA), then
 * A's, B's and C's. Register counts per operand as the hazard roles give them (instrRoles).
 */
function liftMma(ctx: Ctx, op: string, ops: SassOperandView[], mods: string[], line: (s: string) => Lifted): Lifted {
  const regs = ops.filter((o) => o.kind === 'reg');
  const widths: Record<string, [number, number, number]> = { 'HMMA.16816': [4, 2, 4], 'HMMA.1684': [2, 1, 4], 'IMMA.16816': [2, 1, 4], 'DMMA.884': [2, 2, 4] };
  const shape = mods.find((m) => /^\d+$/.test(m));
  const w = widths[`${op}.${shape}`];
  if (!w || regs.length !== 4 || regs.some((r) => !r.reg || r.reg.file !== 'R')) return unsupported(ctx, `${op}${mods.map((m) => `.${m}`).join('')} form`);
  const pair = op === 'DMMA';
  const names = (o: SassOperandView, n: number): string[] => {
    const base = o.reg!.index;
    if (base === 255) return Array.from({ length: pair ? n / 2 : n }, () => 'RZ');
    return pair ? Array.from({ length: n / 2 }, (_, k) => regName('R', base + 2 * k, 2)) : Array.from({ length: n }, (_, k) => regName('R', base + k, 1));
  };
  const d = names(regs[0]!, 4);
  const srcs = [...names(regs[1]!, w[0]), ...names(regs[2]!, w[1]), ...names(regs[3]!, w[2])];
  const keep = mods.filter((m) => m !== 'ROW' && m !== 'COL');
  return line(`${d.join(', ')} = ${op}${keep.map((m) => `.${m}`).join('')} ${srcs.join(', ')}`);
}

/**
 * LDSM.16.M88[.2|.4] Rd, [a] (ldmatrix.sync.aligned.m8n8.x{1,2,4}.shared.b16): lane l supplies the address of row
 * l % 8 of matrix l / 8; lane t receives 32-bit word t % 4 of row t / 4 of matrix j in Rd+j (.MT88, transposed:
 * the 16-bit elements (2(t%4), t/4) and (2(t%4)+1, t/4)). Lifted as the PTX path
 * lowers ldmatrix (packages/ptx warp-matrix.ts): the row address comes from its lane through SHFL.IDX, then an
 * ordinary LDS.
 */
function liftLdsm(ctx: Ctx, ops: SassOperandView[], mods: string[]): Lifted {
  const [d, a] = ops;
  if (!d?.reg || d.kind !== 'reg' || a?.kind !== 'mem') unsupported(ctx, 'LDSM form');
  const count = mods.includes('4') ? 4 : mods.includes('2') ? 2 : 1;
  const pre: string[] = [];
  const at = /^\[(%r\d+)([+-]0x[0-9a-f]+)\]$/.exec(address(ctx, a!, false, pre));
  if (!at) unsupported(ctx, 'LDSM without a register address');
  const tmp = (): string => {
    const t = `%r${ctx.tmp}`;
    ctx.tmp += 2;
    return t;
  };
  const [lane, row, col, addr] = [tmp(), tmp(), tmp(), tmp()];
  const off = at![2]!.startsWith('-') ? `-${Number.parseInt(at![2]!.slice(1), 16)}` : `${Number.parseInt(at![2]!.slice(1), 16)}`;
  pre.push(
    `  ${lane} = S2R SR_LANEID`,
    `  ${row} = SHR.U32 ${lane}, 2`,
    `  ${col} = LOP3.LUT ${lane}, 3, RZ, 192, !PT`,
    `  ${col} = SHL ${col}, 2`,
    `  ${addr} = IADD3 ${at![1]}, ${off}, RZ`,
  );
  const loads: string[] = [];
  if (mods.includes('MT88')) {
    // transposed: lane t's word j holds elements (2(t%4), t/4) and (2(t%4)+1, t/4) of matrix j, 16 bits each
    const tig = tmp();
    const colOff = tmp();
    pre.push(`  ${tig} = LOP3.LUT ${lane}, 3, RZ, 192, !PT`, `  ${colOff} = SHL ${row}, 1`);
    for (let j = 0; j < count; j++) {
      const halves = [0, 1].map((k) => {
        const [src, rowAddr, p, h] = [tmp(), tmp(), tmp(), tmp()];
        pre.push(`  ${src} = IMAD ${tig}, 2, ${8 * j + k}`, `  ${rowAddr} = SHFL.IDX ${addr}, ${src}, 31`, `  ${p} = IADD3 ${rowAddr}, ${colOff}, RZ`, `  ${h} = LDS.U16 [${p}+0x0]`);
        return h;
      });
      loads.push(`  ${regName('R', d!.reg!.index + j, 1)} = PRMT ${halves[0]}, ${0x5410}, ${halves[1]}`);
    }
    return { lines: [...pre, ...loads], ends: false };
  }
  for (let j = 0; j < count; j++) {
    const [src, rowAddr, p] = [tmp(), tmp(), tmp()];
    pre.push(`  ${src} = IADD3 ${row}, ${8 * j}, RZ`, `  ${rowAddr} = SHFL.IDX ${addr}, ${src}, 31`, `  ${p} = IADD3 ${rowAddr}, ${col}, RZ`);
    // every lane's row address is read before any result register (which may be the address) is written
    loads.push(`  ${regName('R', d!.reg!.index + j, 1)} = LDS [${p}+0x0]`);
  }
  return { lines: [...pre, ...loads], ends: false };
}

function liftOne(ctx: Ctx, ins: SassInstruction, view: HazardInstr, branchTarget: number | undefined): Lifted {
  let op = view.opcode;
  let mods = [...view.mods];
  const ops = view.operands;
  const g = view.guard;
  if (g && g.index === 7 && g.negated) return { lines: [], ends: false };
  const guard = g && g.index !== 7 ? `@${g.negated ? '!' : ''}%${g.file === 'P' ? 'p' : 'up'}${g.index} ` : '';
  const uncond = guard === '';
  if (DROPPED.has(op)) return { lines: [], ends: false };
  const pre: string[] = [];
  ctx.pre = pre;
  const line = (s: string): Lifted => ({ lines: [...pre, `  ${guard}${s}`], ends: false });
  const { def, use, results } = widthsOf(view);

  switch (op) {
    case 'EXIT':
      return { lines: [`  ${guard}EXIT`], ends: uncond };
    case 'BPT':
      return { lines: [`  ${guard}KILL`], ends: uncond };
    case 'BRA':
    case 'JMP': {
      if (branchTarget === undefined) unsupported(ctx, 'branch without a decoded target');
      let gd = guard;
      const p = ops.find((o) => o.kind === 'pred' || o.kind === 'upred');
      if (p && !gd && p.reg) gd = `@${p.text.startsWith('!') ? '!' : ''}%${p.kind === 'pred' ? 'p' : 'up'}${p.reg.index} `;
      if (p && !p.reg && p.text.startsWith('!')) return { lines: [], ends: false };
      return { lines: [`  ${gd}BRA ${label(branchTarget)}`], ends: gd === '' };
    }
    case 'BSSY': {
      if (branchTarget === undefined || !ops[0]?.reg) unsupported(ctx, 'BSSY without a target');
      return line(`%b${ops[0]!.reg!.index} = BSSY ${label(branchTarget)}`);
    }
    case 'BSYNC':
      if (!ops[0]?.reg) unsupported(ctx, 'BSYNC without a barrier');
      return line(`BSYNC %b${ops[0]!.reg!.index}`);
    case 'BREAK': {
      // The guarded lanes leave convergence barrier Bn: every active lane drops them from its copy of the barrier's
      // lane mask (BSYNC then waits only for the lanes still in it). The guard becomes the ballot's predicate.
      const b = ops.find((o) => o.kind === 'cbar' || /^B\d+$/.test(o.text));
      const n = b ? /^B(\d+)$/.exec(b.text)?.[1] : undefined;
      if (n === undefined) unsupported(ctx, 'BREAK without a barrier register');
      const who = g && g.index !== 7 ? `${g.negated ? '!' : ''}%${g.file === 'P' ? 'p' : 'up'}${g.index}` : 'PT';
      const t = `%r${ctx.tmp}`;
      ctx.tmp += 2;
      return { lines: [`  ${t} = VOTE.ANY ${who}`, `  %b${n} = LOP3.LUT %b${n}, ${t}, RZ, 48, !PT`], ends: false };
    }
    case 'BMOV':
      // convergence barrier bookkeeping around calls: the interpreter reconverges without it
      if (mods.includes('CLEAR') || ops[0]?.kind === 'cbar') return { lines: [], ends: false };
      return unsupported(ctx, 'BMOV to a register');
    case 'BAR': {
      if (mods.includes('RED') && ops.length === 2) {
        // BAR.RED.<op> id, Pin: the reduction lands in the barrier's result, which B2R.RESULT reads
        const red = mods.includes('AND') ? 'AND' : mods.includes('OR') ? 'OR' : 'POPC';
        return line(`${BAR_RESULT} = BAR.RED.${red} ${operand(ctx, ops[0]!, 1, undefined)}, ${operand(ctx, ops[1]!, 1, undefined)}`);
      }
      if (mods.includes('SYNC') && ops.length === 1) return line(`BAR.SYNC ${operand(ctx, ops[0]!, 1, undefined)}`);
      if (mods.includes('SYNC') && ops.length === 2) return line(`BAR.SYNC ${operand(ctx, ops[0]!, 1, undefined)}, ${operand(ctx, ops[1]!, 1, undefined)}`);
      return unsupported(ctx, 'barrier form');
    }
    case 'CALL': {
      const ext = ctx.externCalls.get(ctx.addr);
      if (ext !== undefined) return liftExternCall(ctx, ext, guard, uncond);
      // ptxas's ABI (non-separate compilation): `MOV Rr, <return site>; CALL.REL.NOINC callee` with the callee
      // placed in the kernel's section, returning by `RET.REL.NODEC Rr`. NOINC: no hardware return stack.
      if (!mods.includes('NOINC') || branchTarget === undefined) unsupported(ctx, 'calls through the hardware return stack or to other sections are not lifted yet');
      return { lines: [`  ${guard}BRA ${label(branchTarget)}`], ends: uncond };
    }
    case 'RET': {
      // RET.REL.NODEC Rr, off: jump to the return site whose address Rr + off holds (a BRX over the sites)
      const reg = ops.find((o) => o.kind === 'reg' && o.reg);
      const off = ops.find((o) => o.kind === 'imm');
      if (!mods.includes('NODEC') || !reg) unsupported(ctx, 'returns through the hardware return stack are not lifted yet');
      if (ctx.returnSites.length === 0) unsupported(ctx, 'RET without a CALL in the function');
      return jumpThroughTable(ctx, regName('R', reg!.reg!.index, 1), off ? intText(off.text) : 0, ctx.returnSites, g, guard);
    }
    case 'BRX': {
      // BRX Rx, off: jump to the function-relative address Rx + off + (this address + 16), one of the targets
      // EIATTR_INDIRECT_BRANCH_TARGETS lists for this branch
      const reg = ops.find((o) => o.kind === 'reg' && o.reg);
      const off = ops.find((o) => o.kind === 'imm');
      const targets = ctx.indirectTargets.get(ctx.addr);
      if (!reg || !targets?.length) unsupported(ctx, 'BRX without its EIATTR_INDIRECT_BRANCH_TARGETS list');
      return jumpThroughTable(ctx, regName('R', reg!.reg!.index, 1), (off ? intText(off.text) : 0) + ctx.addr + 16, targets!, g, guard);
    }
    case 'JMX':
      return unsupported(ctx, 'JMX is not lifted yet');
    case 'CS2R': {
      const d = operand(ctx, ops[0]!, def.get(0) ?? 2, undefined);
      if (ops[1]?.text === 'SRZ') return line(`${d} = MOV RZ`);
      const wide: Record<string, string> = { SR_CLOCKLO: 'SR_CLOCK64', SR_GLOBALTIMERLO: 'SR_GLOBALTIMER' };
      return line(`${d} = S2R ${wide[ops[1]!.text] ?? operand(ctx, ops[1]!, 1, undefined)}`);
    }
    case 'HFMA2': {
      // ptxas's move idiom: HFMA2.MMA Rd, -RZ, RZ, hi, lo  (Rd = the f16x2 constant)
      if (ops.length === 5 && /^-RZ$/.test(ops[1]!.text) && ops[2]!.text === 'RZ' && ops[3]!.kind === 'imm' && ops[4]!.kind === 'imm') {
        const h = (t: string): number => f16Bits(parseFloatText(t));
        const bits = (h(ops[3]!.text) << 16) | h(ops[4]!.text);
        return line(`${operand(ctx, ops[0]!, 1, undefined)} = MOV ${hex(bits >>> 0)}`);
      }
      return line(`${operand(ctx, ops[0]!, 1, undefined)} = HFMA2${halfMods(mods)} ${ops.slice(1, 4).map((o) => operand(ctx, o, 1, undefined)).join(', ')}`);
    }
    case 'LDGSTS':
      return liftLdgsts(ctx, ops, mods, guard);
    case 'TEX':
    case 'TLD':
    case 'TLD4':
    case 'SULD':
    case 'SUST':
      return liftTexture(ctx, op, ops, mods, line);
    case 'HADD2':
    case 'HMUL2': {
      if (mods.includes('F32')) {
        // HADD2.F32 Rd, -RZ, Rb.H0_H0: the f16 → f32 conversion idiom
        const zero = ops.slice(1, 3).findIndex((o) => o.kind === 'reg' && !o.reg);
        if (op !== 'HADD2' || zero < 0) unsupported(ctx, `${op}.F32 with two register sources`);
        const src = operand(ctx, ops[zero === 0 ? 2 : 1]!, 1, undefined);
        return line(`${operand(ctx, ops[0]!, 1, undefined)} = F2F.F32.F16 ${src}`);
      }
      return line(`${operand(ctx, ops[0]!, 1, undefined)} = ${op}${halfMods(mods)} ${ops.slice(1, 3).map((o) => operand(ctx, o, 1, undefined)).join(', ')}`);
    }
    case 'HMNMX2':
      return liftHmnmx2(ctx, ops, mods, line);
    case 'HSET2':
      return liftHset2(ctx, ops, mods, line);
    case 'BMSK':
      return liftBmsk(ctx, ops, mods, line);
    case 'IDP':
      return liftIdp(ctx, ops, mods, line);
    case 'I2IP':
      return liftI2ip(ctx, ops, mods, line);
    case 'DSETP':
      if (mods.includes('MAX') || mods.includes('MIN')) {
        // sm_90's f64 min/max: DSETP.{MAX,MIN}.AND P, Q, a, b, PT, then SEL/FSEL by P and a quiet-NaN fix-up under Q.
        // P: a is the result (the minimum/maximum as PTX's min/max.f64, which Ori's DMNMX evaluates, equals a);
        // Q: both inputs are NaN.
        const [p, q, a, b, c] = ops;
        if (!p || !q || !a || !b || !(c?.kind === 'pred' && !c.reg && !c.text.startsWith('!')) || !mods.includes('AND')) unsupported(ctx, `DSETP.${mods.join('.')}`);
        const m = `%rd${ctx.tmp}`;
        ctx.tmp += 2;
        const A = operand(ctx, a!, 2, 'f64');
        const B = operand(ctx, b!, 2, 'f64');
        const out: string[] = [...pre, `  ${guard}${m} = DMNMX ${A}, ${B}, ${mods.includes('MIN') ? 'PT' : '!PT'}`];
        if (q!.reg) {
          const Q = operand(ctx, q!, 1, undefined);
          out.push(`  ${guard}${Q} = DSETP.NAN.AND ${A}, ${A}, PT`, `  ${guard}${Q} = DSETP.NAN.AND ${B}, ${B}, ${Q}`);
        }
        if (p!.reg) out.push(`  ${guard}${operand(ctx, p!, 1, undefined)} = ISETP.EQ.U64.AND ${m}, ${A}, PT`);
        return { lines: out, ends: false };
      }
      break;
    case 'VIADDMNMX': {
      // d = min/max(a + b, c): PT picks the minimum, !PT the maximum (as IMNMX); .U32 compares unsigned
      const [d, a, b, c, p] = ops;
      if (!d || !a || !b || !c || !p) unsupported(ctx, 'VIADDMNMX form');
      const t = `%r${ctx.tmp}`;
      ctx.tmp += 2;
      pre.push(`  ${t} = IADD3 ${src1(ctx, a)}, ${src1(ctx, b)}, RZ`);
      return line(`${src1(ctx, d)} = IMNMX${mods.includes('U32') ? '.U32' : ''} ${t}, ${src1(ctx, c)}, ${operand(ctx, p!, 1, undefined)}`);
    }
    case 'ISGN3': {
      // P = lut[sign(a)·4 + sign(b)·2 + sign(c)] (mercury-volta's evidence rows: opcode 0x21f)
      const [p0, p1, a, b, c, lut] = ops;
      if (!p0 || !p1 || !a || !b || !c || lut?.kind !== 'imm' || p1.reg || p1.text.startsWith('!')) unsupported(ctx, 'ISGN3 form');
      const r = (): string => {
        const t = `%r${ctx.tmp}`;
        ctx.tmp += 2;
        return t;
      };
      const [sa, sb, sc, idx, bit] = [r(), r(), r(), r(), r()];
      pre.push(`  ${sa} = SHR.U32 ${src1(ctx, a)}, 31`, `  ${sb} = SHR.U32 ${src1(ctx, b)}, 31`, `  ${sc} = SHR.U32 ${src1(ctx, c)}, 31`);
      pre.push(`  ${idx} = IMAD ${sa}, 4, ${sc}`, `  ${idx} = IMAD ${sb}, 2, ${idx}`, `  ${bit} = MOV ${operand(ctx, lut!, 1, undefined)}`, `  ${bit} = SHR.U32 ${bit}, ${idx}`);
      pre.push(`  ${bit} = LOP3.LUT ${bit}, 1, RZ, 192, !PT`);
      if (!p0!.reg) return { lines: pre, ends: false };
      return line(`${operand(ctx, p0!, 1, undefined)} = ISETP.NE.U32.AND ${bit}, RZ, PT`);
    }
    case 'F2FP':
      if (mods.includes('RELU') || mods.includes('PACK_AB_MERGE_C') || mods.includes('UNPACK_B')) return liftF2fp(ctx, ops, mods, line);
      break;
    case 'MUFU':
      if (mods.includes('SIN') || mods.includes('COS')) {
        // SASS MUFU.SIN/COS take the angle in turns (ptxas multiplies by 1/2pi first); Ori's take radians
        const t = `%r${ctx.tmp}`;
        ctx.tmp += 2;
        pre.push(`  ${t} = FMUL ${operand(ctx, ops[1]!, 1, 'f32')}, ${f32Bits(2 * Math.PI)}`);
        return line(`${operand(ctx, ops[0]!, 1, undefined)} = MUFU.${mods.includes('SIN') ? 'SIN' : 'COS'} ${t}`);
      }
      break;
    case 'SGXT': {
      const d = operand(ctx, ops[0]!, 1, undefined);
      return line(`${d} = BFE.${mods.includes('U32') ? 'U32' : 'S32'} ${operand(ctx, ops[1]!, 1, undefined)}, 0, ${operand(ctx, ops[2]!, 1, undefined)}`);
    }
    case 'I2FP':
      op = 'I2F';
      break;
    case 'P2R':
      return liftP2r(ctx, ops, mods, line);
    case 'LDSM':
      if (!guard) return liftLdsm(ctx, ops, mods);
      return unsupported(ctx, `${op} under a guard is not lifted yet`);
    case 'LEPC': {
      // the (function-relative) address of the word `off` bytes after the next one: an ABI call's return address
      const d = ops.find((o) => o.kind === 'reg' && o.reg);
      const off = ops.find((o) => o.kind === 'imm');
      if (!d) unsupported(ctx, 'LEPC without a destination');
      return line(`${regName('R', d!.reg!.index, 2)} = MOV ${ctx.addr + 16 + (off ? intText(off.text) : 0)}`);
    }
    case 'B2R': {
      // B2R.RESULT Rd, Pd after BAR.RED: the count (.popc) or the and/or as a predicate
      if (!mods.includes('RESULT') || ops.length < 1 || ops.length > 2) return unsupported(ctx, 'B2R form');
      const lines: string[] = [];
      if (ops[0]!.reg && ops[0]!.text !== 'RZ') lines.push(`  ${guard}${operand(ctx, ops[0]!, 1, undefined)} = MOV ${BAR_RESULT}`);
      if (ops[1]?.reg && ops[1].reg.index !== 7) lines.push(`  ${guard}${operand(ctx, ops[1]!, 1, undefined)} = ISETP.NE.U32.AND ${BAR_RESULT}, RZ, PT`);
      return { lines, ends: false };
    }
    case 'ACQBULK':
    case 'PREEXIT':
      // griddepcontrol: one launch has no other grid to wait for or to release
      return { lines: [], ends: false };
    case 'R2P':
      return unsupported(ctx, `${op} is not lifted yet`);
    case 'HMMA':
    case 'IMMA':
    case 'DMMA':
      return liftMma(ctx, op, ops, mods, line);
  }
  if (UNIFORM_TWINS[op]) {
    const twin = UNIFORM_TWINS[op]!;
    if (op === 'VIADD') {
      return line(`${operand(ctx, ops[0]!, def.get(0) ?? 1, undefined)} = IADD3 ${operand(ctx, ops[1]!, 1, undefined)}, ${operand(ctx, ops[2]!, 1, undefined)}, RZ`);
    }
    op = twin;
  }
  if (op === 'IMAD' && mods.includes('MOV') && results === 1 && ops.length === 4 && ops[1]?.text === 'RZ' && ops[2]?.text === 'RZ') {
    // IMAD.MOV[.U32] Rd, RZ, RZ, x: ptxas's move on the FMA pipe
    return line(`${operand(ctx, ops[0]!, 1, undefined)} = MOV ${operand(ctx, ops[3]!, 1, undefined)}`);
  }
  if (op === 'IMAD') mods = mods.filter((m) => m !== 'MOV' && m !== 'SHL' && m !== 'IADD');
  // the low word of a product does not depend on signedness
  if (op === 'IMAD' && !mods.includes('WIDE') && !mods.includes('HI')) mods = mods.filter((m) => m !== 'U32' && m !== 'S32');
  if (op === 'IMAD' && mods.includes('HI') && ops[3]?.kind === 'reg' && ops[3].reg) {
    // IMAD.HI's addend is the register pair Rc:Rc+1: d = high word of (a * b + Rc:Rc+1)
    if (ops[3].reg.index % 2) unsupported(ctx, 'IMAD.HI with an odd addend pair');
    const t = ctx.tmp;
    ctx.tmp += 4;
    const sign = mods.includes('U32') ? '.U32' : '';
    pre.push(`  %rd${t} = IMAD.WIDE${sign} ${operand(ctx, ops[1]!, 1, undefined)}, ${operand(ctx, ops[2]!, 1, undefined)}, ${operand(ctx, ops[3], 2, undefined)}`);
    return line(`${operand(ctx, ops[0]!, 1, undefined)} = MOV %r${t + 1}`);
  }
  if (op === 'F2I' || op === 'I2F' || op === 'F2F') mods = conversionMods(op, mods);
  // SASS FRND without a mode rounds to nearest even; Ori's FRND without one truncates
  if (op === 'FRND' && !mods.some((m) => ['TRUNC', 'FLOOR', 'CEIL', 'RN', 'RZ', 'RM', 'RP'].includes(m))) mods.push('RN');
  if (op === 'LDC') {
    // constant loads: c[0x0][0x28] is the stack top, other bank-0/3 words come from the launch
    const d = operand(ctx, ops[0]!, def.get(0) ?? 1, undefined);
    const c = operand(ctx, ops[1]!, def.get(0) ?? 1, undefined);
    if (!c.startsWith('c[')) return line(`${d} = MOV ${c}`);
    return line(`${d} = LDC${mods.map((m) => `.${m}`).join('')} ${c}`);
  }

  const fp: 'f32' | 'f64' | undefined = FLOAT64_OPS.has(op) ? 'f64' : FLOAT32_OPS.has(op) ? 'f32' : undefined;
  const n = results;
  // results: the roles' leading result operands; predicate results of ATOM/SHFL come first in SASS
  let defIdx: number[] = [];
  for (let i = 0; i < n; i++) defIdx.push(i);
  const defOps = defIdx.map((i) => ops[i]!);
  let defTexts = defOps.map((o, k) => operand(ctx, o, def.get(defIdx[k]!) ?? 1, undefined));
  if ((op === 'LOP3' || op === 'SHFL' || op === 'ATOMG' || op === 'ATOM' || op === 'ATOMS') && defOps.length === 2 && (defOps[0]!.kind === 'pred' || defOps[0]!.kind === 'upred')) {
    // Ori puts the data result first
    defTexts = op.startsWith('ATOM') ? [defTexts[1]!] : [defTexts[1]!, defTexts[0]!];
  }
  if (MEM.has(op)) {
    const wide = GLOBAL_MEM.has(op);
    const useTexts: string[] = [];
    for (let i = n; i < ops.length; i++) {
      const o = ops[i]!;
      if (o.kind === 'mem') useTexts.push(address(ctx, o, wide, pre));
      else useTexts.push(operand(ctx, o, use.get(i) ?? 1, undefined));
    }
    if (op.startsWith('ATOM') || op === 'RED' || op === 'REDG') {
      const kinds = ['ADD', 'MIN', 'MAX', 'INC', 'DEC', 'AND', 'OR', 'XOR', 'EXCH', 'CAS'];
      const k = mods.find((m) => kinds.includes(m));
      if (mods.includes('CAST') && mods.includes('SPIN') && defTexts.length === 1 && useTexts.length === 3) {
        // compare-and-store: [a] = (old == cmp) ? new : old; the result is 1 when it stored, else 0
        const old = `%r${ctx.tmp}`;
        const x = `%r${ctx.tmp + 2}`;
        ctx.tmp += 4;
        const t = mods.includes('64') ? 'B64' : 'B32';
        if (t === 'B64') {
          // 64-bit: compare and new value are pairs, the result a pair (1 or 0 in the low word)
          const cmp = ops[n + 1];
          if (!cmp?.reg) unsupported(ctx, '64-bit ATOMS.CAST.SPIN without a compare register');
          const lo = `%r${cmp.reg.index}`;
          const hi = `%r${cmp.reg.index + 1}`;
          const w = ctx.tmp;
          ctx.tmp += 6;
          const dIdx = defOps[0]?.reg?.index;
          if (dIdx === undefined) unsupported(ctx, '64-bit ATOMS.CAST.SPIN without a result register');
          pre.push(`  ${guard}%rd${w} = ${op}.CAS.B64 ${useTexts.join(', ')}`);
          pre.push(`  ${guard}%r${w + 2} = LOP3.LUT %r${w}, ${lo}, RZ, 60, !PT`);
          pre.push(`  ${guard}%r${w + 3} = LOP3.LUT %r${w + 1}, ${hi}, RZ, 60, !PT`);
          pre.push(`  ${guard}%r${w + 2} = LOP3.LUT %r${w + 2}, %r${w + 3}, RZ, 252, !PT`);
          pre.push(`  ${guard}%r${w + 2} = IMNMX.U32 %r${w + 2}, 1, PT`);
          pre.push(`  ${guard}%r${dIdx} = IADD3 -%r${w + 2}, 1, RZ`);
          return line(`%r${dIdx + 1} = MOV RZ`);
        }
        pre.push(`  ${guard}${old} = ${op}.CAS.${t} ${useTexts.join(', ')}`);
        pre.push(`  ${guard}${x} = LOP3.LUT ${old}, ${useTexts[1]}, RZ, 60, !PT`);
        pre.push(`  ${guard}${x} = IMNMX.U32 ${x}, 1, PT`);
        return line(`${defTexts[0]} = IADD3 -${x}, 1, RZ`);
      }
      if (!k || mods.includes('CAST') || mods.includes('SPIN')) unsupported(ctx, 'atomic form');
      const t = mods.find((m) => ['U32', 'S32', 'U64', 'S64', 'F32', 'F64'].includes(m)) ?? (mods.includes('64') ? 'U64' : 'U32');
      const ori = op === 'REDG' ? 'RED' : op;
      return line(`${defTexts.length ? `${defTexts.join(', ')} = ` : ''}${ori}.${k}.${t} ${useTexts.join(', ')}`);
    }
    return line(`${defTexts.length ? `${defTexts.join(', ')} = ` : ''}${op}${mods.map((m) => `.${m}`).join('')} ${useTexts.join(', ')}`);
  }
  const useTexts: string[] = [];
  for (let i = n; i < ops.length; i++) {
    const o = ops[i]!;
    if (o.kind === 'mem') unsupported(ctx, `memory operand on ${op}`);
    useTexts.push(operand(ctx, o, use.get(i) ?? 1, fp));
  }
  if (op === 'IADD3') {
    // The adder negates a register as ~x + 1 and its carry-out counts that +1 (-RZ carries): lift -x as ~x with a
    // carry-in of its own, so carries match the hardware's (a + -0 carries out, a + (2^32 - 0) wrapped does not).
    let extra = 0;
    for (let k = 0; k < 3 && k < useTexts.length; k++) {
      const t = useTexts[k]!;
      if (/^-(%u?r|U?RZ)/.test(t)) {
        useTexts[k] = `~${t.slice(1)}`;
        extra++;
      }
    }
    for (let k = 0; k < extra; k++) useTexts.push('PT');
  }
  void ins;
  return line(`${defTexts.length ? `${defTexts.join(', ')} = ` : ''}${op}${mods.map((m) => `.${m}`).join('')}${useTexts.length ? ' ' + useTexts.join(', ') : ''}`);
}

/**
 * A jump to the function-relative address `reg + bias`, which must be one of `targets`: a BRX over a table of the
 * targets' labels indexed by (address - lowest target) / 16; other addresses land on a block whose BRX reports the
 * bad index.
 */
function jumpThroughTable(ctx: Ctx, reg: string, bias: number, targetsIn: readonly number[], g: HazardInstr['guard'], guard: string): Lifted {
  const targets = [...new Set(targetsIn)].sort((a, b) => a - b);
  const lo = targets[0]!;
  const hi = targets[targets.length - 1]!;
  const set = new Set(targets);
  const table: string[] = [];
  for (let a = lo; a <= hi; a += 16) table.push(set.has(a) ? label(a) : 'Lbadjump');
  const t = `%r${ctx.tmp}`;
  ctx.tmp += 2;
  const body = [`  ${t} = IADD3 ${reg}, ${bias - lo}, RZ`, `  ${t} = SHR.U32 ${t}, 4`, `  BRX ${t}, (${table.join(', ')})`];
  if (ctx.tail.length === 0) {
    const bad = `%r${ctx.tmp}`;
    ctx.tmp += 2;
    ctx.tail.push('Lbadjump:', `  ${bad} = MOV 0xffffffff`, `  BRX ${bad}, (Lbadjump)`);
  }
  if (guard === '') return { lines: body, ends: true };
  // BRX cannot be guarded: branch around it
  const skip = `Lskip${ctx.addr.toString(16)}`;
  const inv = `@${g!.negated ? '' : '!'}%${g!.file === 'P' ? 'p' : 'up'}${g!.index}`;
  return { lines: [`  ${inv} BRA ${skip}`, ...body, `${skip}:`], ends: false };
}

type LineFn = (s: string) => Lifted;
const src1 = (ctx: Ctx, o: SassOperandView | undefined): string => (o ? operand(ctx, o, 1, undefined) : 'RZ');

/** Modifiers of packed-half arithmetic Ori knows (MMA names the pipe, not the operation). */
function halfMods(mods: readonly string[]): string {
  return mods.filter((m) => m !== 'MMA' && m !== 'F16_V2').map((m) => `.${m}`).join('');
}

/** Split a packed f16x2 value into two f32 temporaries (low, high). */
function unpackHalves(ctx: Ctx, v: string): [string, string] {
  const lo = `%r${ctx.tmp}`;
  const hiBits = `%r${ctx.tmp + 2}`;
  const hi = `%r${ctx.tmp + 4}`;
  ctx.tmp += 6;
  ctx.pre.push(`  ${lo} = F2F.F32.F16 ${v}`, `  ${hiBits} = SHR.U32 ${v}, 16`, `  ${hi} = F2F.F32.F16 ${hiBits}`);
  return [lo, hi];
}

/** HMNMX2 d, a, b, p: per half, the minimum (p true) or maximum, through f32 (the conversions are exact). */
function liftHmnmx2(ctx: Ctx, ops: readonly SassOperandView[], mods: readonly string[], line: LineFn): Lifted {
  if (mods.some((m) => m !== 'FTZ' && m !== 'NAN')) unsupported(ctx, `HMNMX2.${mods.join('.')}`);
  const [al, ah] = unpackHalves(ctx, src1(ctx, ops[1]));
  const [bl, bh] = unpackHalves(ctx, src1(ctx, ops[2]));
  const p = ops[3] ? operand(ctx, ops[3], 1, undefined) : 'PT';
  const m = mods.includes('NAN') ? '.NAN' : '';
  const rl = `%r${ctx.tmp}`;
  const rh = `%r${ctx.tmp + 2}`;
  ctx.tmp += 4;
  ctx.pre.push(`  ${rl} = FMNMX${m} ${al}, ${bl}, ${p}`, `  ${rh} = FMNMX${m} ${ah}, ${bh}, ${p}`);
  return line(`${src1(ctx, ops[0])} = F2FP.F16.F32.PACK_AB ${rh}, ${rl}`);
}

/** HSET2[.BF].cmp.comb d, a, b, p: per half, 1.0 (.BF) or all ones where `(a cmp b) comb p`, else 0. */
function liftHset2(ctx: Ctx, ops: readonly SassOperandView[], mods: readonly string[], line: LineFn): Lifted {
  const cmp = mods.find((m) => /^(EQ|NE|LT|LE|GT|GE|NUM|NAN|EQU|NEU|LTU|LEU|GTU|GEU)$/.test(m));
  const comb = mods.find((m) => m === 'AND' || m === 'OR' || m === 'XOR') ?? 'AND';
  if (!cmp || mods.some((m) => m !== cmp && m !== comb && m !== 'BF' && m !== 'FTZ')) unsupported(ctx, `HSET2.${mods.join('.')}`);
  const [al, ah] = unpackHalves(ctx, src1(ctx, ops[1]));
  const [bl, bh] = unpackHalves(ctx, src1(ctx, ops[2]));
  const p = ops[3] ? operand(ctx, ops[3], 1, undefined) : 'PT';
  const lo = `%r${ctx.tmp}`;
  const hi = `%r${ctx.tmp + 2}`;
  ctx.tmp += 4;
  // a half of the result is 0x3c00 (1.0 in f16, .BF) or 0xffff where true, 0 where false
  const one = mods.includes('BF') ? 0x3c00 : 0xffff;
  ctx.pre.push(`  ${lo} = FSET.${cmp}.${comb} ${al}, ${bl}, ${p}`, `  ${hi} = FSET.${cmp}.${comb} ${ah}, ${bh}, ${p}`);
  // FSET's true value (a mask or 1.0f) → 1 → the half's constant
  ctx.pre.push(`  ${lo} = IMNMX.U32 ${lo}, 1, PT`, `  ${hi} = IMNMX.U32 ${hi}, 1, PT`);
  ctx.pre.push(`  ${lo} = IMAD ${lo}, ${one}, RZ`, `  ${hi} = IMAD ${hi}, ${one * 0x10000}, RZ`);
  return line(`${src1(ctx, ops[0])} = LOP3.LUT ${hi}, ${lo}, RZ, 252, !PT`);
}

/** BMSK d, start, width: `width` ones from bit `start` (.C clamps start and width to 32, .W wraps them mod 32). */
function liftBmsk(ctx: Ctx, ops: readonly SassOperandView[], mods: readonly string[], line: LineFn): Lifted {
  let a = src1(ctx, ops[1]);
  let b = src1(ctx, ops[2]);
  const t = `%r${ctx.tmp}`;
  const w = `%r${ctx.tmp + 2}`;
  ctx.tmp += 4;
  if (mods.includes('W')) {
    ctx.pre.push(`  ${t} = LOP3.LUT ${a}, 31, RZ, 192, !PT`, `  ${w} = LOP3.LUT ${b}, 31, RZ, 192, !PT`);
    a = t;
    b = w;
  }
  // SHL by 32 or more gives 0: ~(~0 << width) has min(width, 32) ones
  const m = `%r${ctx.tmp}`;
  ctx.tmp += 2;
  ctx.pre.push(`  ${m} = SHL 0xffffffff, ${b}`, `  ${m} = LOP3.LUT ${m}, RZ, RZ, 15, !PT`);
  return line(`${src1(ctx, ops[0])} = SHL ${m}, ${a}`);
}

/**
 * IDP.4A.{S8,U8}.{S8,U8} d, a, b, c: c plus the four byte products; IDP.2A.{LO,HI}.{S16,U16}.{S8,U8}: c plus the
 * products of a's two halves with b's bytes 0..1 (LO) or 2..3 (HI) (PTX dp4a / dp2a).
 */
function liftIdp(ctx: Ctx, ops: readonly SassOperandView[], mods: readonly string[], line: LineFn): Lifted {
  const four = mods.includes('4A');
  const types = mods.filter((m) => /^[SU](8|16)$/.test(m));
  const hiPair = mods.includes('HI');
  if (types.length !== 2 || (!four && !mods.includes('2A')) || (!four && !hiPair && !mods.includes('LO'))) unsupported(ctx, `IDP.${mods.join('.')}`);
  const aBits = four ? 8 : 16;
  const a = src1(ctx, ops[1]);
  const b = src1(ctx, ops[2]);
  let acc = src1(ctx, ops[3]);
  const n = four ? 4 : 2;
  for (let k = 0; k < n; k++) {
    const x = `%r${ctx.tmp}`;
    const y = `%r${ctx.tmp + 2}`;
    const s = `%r${ctx.tmp + 4}`;
    ctx.tmp += 6;
    const bByte = four || !hiPair ? k : k + 2;
    ctx.pre.push(`  ${x} = BFE.${types[0]!.startsWith('S') ? 'S32' : 'U32'} ${a}, ${aBits * k}, ${aBits}`, `  ${y} = BFE.${types[1]!.startsWith('S') ? 'S32' : 'U32'} ${b}, ${8 * bByte}, 8`);
    if (k < n - 1) {
      ctx.pre.push(`  ${s} = IMAD ${x}, ${y}, ${acc}`);
      acc = s;
    } else return line(`${src1(ctx, ops[0])} = IMAD ${x}, ${y}, ${acc}`);
  }
  return unsupported(ctx, 'IDP');
}

/**
 * LDGSTS[.BYPASS].{32,64,128}[.ZFILL] [shared], desc[..][global], p (cp.async): the copy, done at once (the
 * interpreter is sequentially consistent, so LDGDEPBAR/DEPBAR need nothing). With .ZFILL, ptxas keeps the number
 * of bytes to zero-fill in the low bits of the global offset, below the copy's alignment (cp.async [to], [from+96],
 * 16, 12 prints desc[..][R6.64+0x64]): those bytes of the destination become 0 and the rest are copied from the
 * aligned address. Byte by byte, so any fill count works.
 */
function liftLdgsts(ctx: Ctx, ops: readonly SassOperandView[], mods: readonly string[], guard: string): Lifted {
  const size = mods.includes('128') ? 16 : mods.includes('64') ? 8 : 4;
  const zfill = mods.includes('ZFILL');
  const dst = ops[0];
  const src = ops[1];
  const p = ops[2];
  if (!dst || !src || dst.kind !== 'mem' || src.kind !== 'mem' || (p && !(p.kind === 'pred' && !p.reg && !p.text.startsWith('!')))) unsupported(ctx, `LDGSTS operands`);
  const pre: string[] = [];
  const da = /^\[(.*)([+-]0x[0-9a-f]+)\]$/i.exec(address(ctx, dst!, false, pre)) ?? /^\[(.*)()\]$/.exec(address(ctx, dst!, false, pre));
  const sa = /^\[(.*)([+-]0x[0-9a-f]+)\]$/i.exec(address(ctx, src!, true, pre)) ?? /^\[(.*)()\]$/.exec(address(ctx, src!, true, pre));
  if (!da || !sa) unsupported(ctx, 'LDGSTS address');
  const off = (t: string): number => (t ? (t.startsWith('-') ? -Number(t.slice(1)) : Number(t.slice(1))) : 0);
  const dOff = off(da![2]!);
  const sOffRaw = off(sa![2]!);
  const fill = zfill ? ((sOffRaw % size) + size) % size : 0;
  const sOff = sOffRaw - fill;
  const at = (base: string, o: number): string => (base ? `[${base}${o < 0 ? `-${hex(-o)}` : `+${hex(o)}`}]` : `[${hex(o)}]`);
  const lines = pre.map((l) => `  ${guard}${l.trim()}`);
  for (let i = 0; i < size; i++) {
    const t = `%r${ctx.tmp}`;
    ctx.tmp += 2;
    if (i < size - fill) {
      lines.push(`  ${guard}${t} = LDG.E.U8 ${at(sa![1]!, sOff + i)}`, `  ${guard}STS.U8 ${at(da![1]!, dOff + i)}, ${t}`);
    } else lines.push(`  ${guard}STS.U8 ${at(da![1]!, dOff + i)}, RZ`);
  }
  return { lines, ends: false };
}

/**
 * F2FP forms beyond the plain f32 pair → f16x2/bf16x2 pack (which Ori's F2FP evaluates), through the PTX path's
 * own Ori (the same F2F / FSETP / SEL / PRMT sequences ptx/lower writes for cvt):
 * - `.RELU.PACK_AB d, a, b`: negative inputs become +0 before the conversion (NaN stays NaN).
 * - `.SATFINITE.{E4M3,E5M2}.F32.PACK_AB_MERGE_C d, a, b, c`: d = {c[31:16], fp8(a), fp8(b)}; c's upper half is
 *   kept (ptxas passes RZ for cvt.rn.satfinite.e4m3x2.f32, so the evidence cannot tell which half of c merges).
 * - `.F16.{E4M3,E5M2}.UNPACK_B d, b`: d = {f16(b.byte1), f16(b.byte0)}.
 */
function liftF2fp(ctx: Ctx, ops: readonly SassOperandView[], mods: readonly string[], line: LineFn): Lifted {
  const fp8 = mods.find((m) => m === 'E4M3' || m === 'E5M2');
  const t = (): string => {
    const r = `%r${ctx.tmp}`;
    ctx.tmp += 2;
    return r;
  };
  const d = src1(ctx, ops[0]);
  if (mods.includes('UNPACK_B') && fp8 && mods.includes('F16') && ops.length === 2) {
    const b = src1(ctx, ops[1]);
    const [lo, hiByte, hi] = [t(), t(), t()];
    ctx.pre.push(`  ${lo} = F2F.F16.${fp8} ${b}`, `  ${hiByte} = SHR.U32 ${b}, 8`, `  ${hi} = F2F.F16.${fp8} ${hiByte}`);
    return line(`${d} = PRMT ${lo}, 0x5410, ${hi}`);
  }
  if (mods.includes('PACK_AB_MERGE_C') && fp8 && mods.includes('F32') && ops.length === 4 && !mods.includes('RELU')) {
    const sat = mods.includes('SATFINITE') ? '.SATFINITE' : '';
    const [hi, lo, pair] = [t(), t(), t()];
    ctx.pre.push(`  ${hi} = F2F.${fp8}.F32${sat} ${src1(ctx, ops[1])}`, `  ${lo} = F2F.${fp8}.F32${sat} ${src1(ctx, ops[2])}`);
    ctx.pre.push(`  ${pair} = PRMT ${lo}, 0x1140, ${hi}`);
    return line(`${d} = PRMT ${pair}, 0x7610, ${src1(ctx, ops[3])}`);
  }
  if (mods.includes('RELU') && mods.includes('PACK_AB') && !fp8 && ops.length === 3) {
    const relu = (o: SassOperandView): string => {
      // x & ~(x < 0 ? ~0 : 0), the mask from FSET's ordered compare (no predicate temporary: the lifted code's
      // predicates are the physical P0..P6)
      const x = operand(ctx, o, 1, 'f32');
      const [m, r] = [t(), t()];
      ctx.pre.push(`  ${m} = FSET.LT.AND ${x}, ${f32Bits(0)}, PT`, `  ${m} = IMNMX.U32 ${m}, 1, PT`, `  ${m} = IMAD ${m}, 0xffffffff, RZ`);
      ctx.pre.push(`  ${r} = LOP3.LUT ${x}, ${m}, RZ, 48, !PT`);
      return r;
    };
    const a = relu(ops[1]!);
    const b = relu(ops[2]!);
    return line(`${d} = F2FP.${mods.includes('BF16') ? 'BF16' : 'F16'}.F32.PACK_AB ${a}, ${b}`);
  }
  return unsupported(ctx, `F2FP.${mods.join('.')}`);
}

/** I2IP.{U8,S8}.S32.SAT d, a, b, c: d = {c[15:0], sat8(a), sat8(b)} (PTX cvt.pack). */
function liftI2ip(ctx: Ctx, ops: readonly SassOperandView[], mods: readonly string[], line: LineFn): Lifted {
  const dt = mods.find((m) => m === 'U8' || m === 'S8');
  const st = mods.find((m) => m === 'S32' || m === 'U32');
  if (!dt || !st || ops.length !== 4) unsupported(ctx, `I2IP.${mods.join('.')}`);
  const sat = mods.includes('SAT') ? '.SAT' : '';
  const sa = `%r${ctx.tmp}`;
  const sb = `%r${ctx.tmp + 2}`;
  const t = `%r${ctx.tmp + 4}`;
  ctx.tmp += 6;
  ctx.pre.push(`  ${sa} = I2I.${dt}.${st}${sat} ${src1(ctx, ops[1])}`, `  ${sb} = I2I.${dt}.${st}${sat} ${src1(ctx, ops[2])}`);
  ctx.pre.push(`  ${t} = PRMT ${sb}, 0x40, ${sa}`);
  return line(`${src1(ctx, ops[0])} = PRMT ${t}, 0x5410, ${src1(ctx, ops[3])}`);
}

function f16Bits(x: number): number {
  if (Number.isNaN(x)) return 0x7e00;
  const f = new Float32Array([x]);
  const b = new Uint32Array(f.buffer)[0]!;
  const sign = (b >>> 16) & 0x8000;
  const exp = ((b >>> 23) & 0xff) - 127 + 15;
  const mant = b & 0x7fffff;
  if (exp >= 31) return sign | 0x7c00;
  if (exp <= 0) return sign | (exp < -10 ? 0 : ((mant | 0x800000) >> (1 - exp + 13)));
  return sign | (exp << 10) | (mant >> 13);
}

/** The kernel's parameters from EIATTR_KPARAM_INFO and EIATTR_PARAM_CBANK (offset of the parameter block in bank 0). */
export function kernelParams(fn: CubinFunction): Array<{ ordinal: number; offset: number; size: number }> {
  let base = 0;
  const out: Array<{ ordinal: number; offset: number; size: number }> = [];
  for (const r of fn.attributes) {
    const v = decodeAttribute(r);
    if (v.kind === 'paramCbank') base = v.offset;
    if (v.kind === 'kparam') for (const p of v.params) out.push({ ordinal: p.ordinal, offset: p.offset, size: p.size });
  }
  return out.map((p) => ({ ...p, offset: base + p.offset })).sort((a, b) => a.ordinal - b.ordinal);
}

const DATA_SECTIONS: Record<string, { v: string; space: 'global' | 'const' }> = {
  '.nv.global.init': { v: '__nv_global_init', space: 'global' },
  '.nv.global': { v: '__nv_global', space: 'global' },
  // first (and only) const variable: it sits at offset 0 of bank 3, as the section does
  '.nv.constant3': { v: '__nv_constant3', space: 'const' },
};
const ELF_NOBITS = 8;

function dataImage(cubin: Cubin, fnName: string): DataImage {
  const secVar = new Map<number, string>();
  for (const sec of cubin.sections) {
    const d = DATA_SECTIONS[sec.name];
    if (d) secVar.set(sec.index, d.v);
  }
  const where = (symIndex: number, addend: number): { v: string; offset: number } => {
    const sym = cubin.symbols[symIndex];
    const v = sym ? secVar.get(sym.shndx) : undefined;
    if (!sym || v === undefined) throw new LiftError('LIFT_UNSUPPORTED', `${fnName}: a relocation names ${sym?.name ?? `symbol ${symIndex}`}, which is no global or constant variable`);
    return { v, offset: sym.value + addend };
  };
  const relocsOf = new Map<number, Array<{ offset: number; size: 4 | 8; generic: boolean; v: string; at: number }>>();
  let bank4: { index: number; bytes: Uint8Array } | undefined;
  for (const sec of cubin.sections) if (sec.name === '.nv.constant4') bank4 = { index: sec.index, bytes: sec.data };
  const bank4Relocs = new Map<number, { v: string; offset: number }>();
  const bank4Externs = new Map<number, string>();
  const bank4Kernels = new Map<number, string>();
  for (const r of cubin.relocations) {
    const target = cubin.sections[r.target];
    if (!target || (!secVar.has(r.target) && r.target !== bank4?.index)) continue;
    const sym0 = cubin.symbols[r.symbol];
    if (r.typeName === 'R_CUDA_FUNC_DESC_64' && r.target === bank4?.index && sym0?.type === 2 /* STT_FUNC */) {
      // a kernel's function descriptor (a device-side launch): lifted as the kernel's name, whose value the
      // interpreter gives as the PTX path's (interp's kernelDescriptor)
      bank4Kernels.set(r.offset, sym0.name);
      continue;
    }
    const size = r.typeName === 'R_CUDA_64' || r.typeName === 'R_CUDA_G64' ? 8 : r.typeName === 'R_CUDA_32' || r.typeName === 'R_CUDA_G32' ? 4 : 0;
    if (!size) throw new LiftError('LIFT_UNSUPPORTED', `${fnName}: relocation ${r.typeName} in ${target.name} is not lifted`);
    const sym = cubin.symbols[r.symbol];
    if (r.target === bank4?.index && sym && sym.shndx === 0 && sym.type === 2 /* STT_FUNC */) {
      // an undefined function the driver resolves: an ABI call's target (its CALL names it, see externCallee)
      bank4Externs.set(r.offset, sym.name);
      continue;
    }
    const w = where(r.symbol, r.addend ?? 0);
    if (r.target === bank4?.index) {
      if (size !== 8) throw new LiftError('LIFT_UNSUPPORTED', `${fnName}: ${r.typeName} in .nv.constant4 is not lifted`);
      bank4Relocs.set(r.offset, w);
      continue;
    }
    const list = relocsOf.get(r.target) ?? [];
    list.push({ offset: r.offset, size, generic: r.typeName.startsWith('R_CUDA_G'), v: w.v, at: w.offset });
    relocsOf.set(r.target, list);
  }
  const decls: string[] = [];
  for (const sec of cubin.sections) {
    const d = DATA_SECTIONS[sec.name];
    if (!d || sec.size === 0) continue;
    let s = `.${d.space} .align ${Math.max(16, sec.addralign)} .b8 @${d.v}[${sec.size}]`;
    if (sec.type !== ELF_NOBITS) s += ` = hex"${Buffer.from(sec.data).toString('hex')}"`;
    const rs = relocsOf.get(sec.index);
    if (rs?.length) s += ` relocs(${rs.map((r) => `${hex(r.offset)} .b${r.size * 8} ${r.generic ? `generic(@${r.v})` : `@${r.v}`}${r.at ? `+${hex(r.at)}` : ''}`).join(', ')})`;
    decls.push(s);
  }
  // the function's jump tables (`.nv.constant2.<fn>`: function-relative addresses, BRX adds its own address)
  let bank2Base: number | undefined;
  const c2 = cubin.sections.find((sec) => sec.name === `.nv.constant2.${fnName}`);
  if (c2 && c2.size > 0) {
    if (cubin.relocations.some((r) => r.target === c2.index)) throw new LiftError('LIFT_UNSUPPORTED', `${fnName}: relocated jump tables are not lifted`);
    const c3 = cubin.sections.find((sec) => sec.name === '.nv.constant3');
    bank2Base = Math.ceil((c3?.size ?? 0) / 16) * 16;
    decls.push(`.const .align 16 .b8 @__nv_constant2[${c2.size}] = hex"${Buffer.from(c2.data).toString('hex')}"`);
  }
  return { decls, bank4Relocs, bank4Externs, bank4Kernels, bank4Bytes: bank4?.bytes ?? new Uint8Array(0), bank2Base };
}

function attrValue(fn: CubinFunction, code: number): number {
  for (const r of [...fn.globalAttributes, ...fn.attributes]) {
    if (r.code !== code) continue;
    const v = decodeAttribute(r);
    if (v.kind === 'value' || v.kind === 'symValue') return v.value;
  }
  return 0;
}

/**
 * Lift one kernel of a Volta+ cubin into Ori with physical registers (run it with
 * `runKernel(module, launch, { physicalRegisters: true })`). Throws LiftError naming the first word it cannot lift.
 */
export function liftCubin(cubin: Cubin, kernelName?: string): LiftedKernel {
  const arch = cubin.arch.name;
  if (cubin.arch.sm < 75) throw new LiftError('LIFT_ARCH', `${arch}: the lifter reads Volta+ code of sm_75 and later`);
  const entries = cubin.functions.filter((f) => f.isEntry);
  const fn = kernelName === undefined ? entries[0] : cubin.functions.find((f) => f.name === kernelName);
  if (!fn) throw new LiftError('LIFT_NO_KERNEL', kernelName === undefined ? 'the cubin has no kernel' : `no kernel ${kernelName} (kernels: ${entries.map((e) => e.name).join(', ')})`);
  const frame = attrValue(fn, ATTR.FRAME_SIZE);
  const minStack = attrValue(fn, ATTR.MIN_STACK_SIZE);
  const localBytes = Math.ceil((frame + minStack + 256) / 16) * 16;
  const sharedBytes = fn.shared?.size ?? 0;
  const data = dataImage(cubin, fn.name);
  const indirectTargets = new Map<number, number[]>();
  for (const r of fn.attributes) {
    const v = decodeAttribute(r);
    if (v.kind === 'branchTargets') for (const b of v.branches) indirectTargets.set(b.offset, [...(indirectTargets.get(b.offset) ?? []), ...b.targets]);
  }
  const ctx: Ctx = { fn: fn.name, addr: 0, stackTop: localBytes, tmp: 1000, text: '', returnSites: [], tail: [], pre: [], data, indirectTargets, externCalls: new Map() };
  // decode everything first: block leaders are branch targets and the words after control transfers
  const words: Array<{ addr: number; ins: SassInstruction; view: HazardInstr; target?: number }> = [];
  for (let a = 0; a + 16 <= fn.code.length; a += 16) {
    const d = decodeVolta(arch, wordFromBytes(fn.code, a), a);
    if (isUnknown(d)) {
      // trailing padding after the last EXIT/BRA is never reached
      words.push({ addr: a, ins: { opcode: 'UNDECODED', mods: [], operands: [] }, view: { addr: a, opcode: 'UNDECODED', mods: [], operands: [], control: { stall: 0, yield: false, wbar: null, rbar: null, waitMask: 0, reuse: 0 }, text: `UNDECODED opcode 0x${d.opcodeField.toString(16)} (${d.reason})` } });
      continue;
    }
    const text = formatInstruction(d);
    const p = parseSassText(text);
    const view: HazardInstr = { addr: a, opcode: p.opcode, mods: p.mods, guard: p.guard, operands: p.operands, control: { stall: 0, yield: false, wbar: null, rbar: null, waitMask: 0, reuse: 0 }, text };
    let target: number | undefined;
    if (d.opcode === 'BRA' || d.opcode === 'JMP' || d.opcode === 'BSSY' || d.opcode === 'CALL') for (const o of d.operands) if (o.k === 'int' && o.reloc === undefined) target = o.v;
    words.push({ addr: a, ins: d, view, target });
  }
  findExternCalls(ctx, words);
  const leaders = new Set<number>([0]);
  for (const ts of indirectTargets.values()) for (const t of ts) leaders.add(t);
  for (const w of words) {
    if (w.target !== undefined) leaders.add(w.target);
    if (['BRA', 'JMP', 'EXIT', 'RET', 'BRX', 'JMX', 'BPT', 'CALL'].includes(w.view.opcode)) leaders.add(w.addr + 16);
    if (w.view.opcode === 'CALL') ctx.returnSites.push(w.addr + 16);
  }
  const body: string[] = [];
  let open = false;
  let reachable = true;
  for (const w of words) {
    if (leaders.has(w.addr)) {
      body.push(`${label(w.addr)}:`);
      open = true;
      reachable = true;
    }
    if (!reachable) continue;
    ctx.addr = w.addr;
    ctx.tmp = 1000; // temporaries live within one instruction's expansion
    ctx.text = w.view.text ?? w.view.opcode;
    if (w.view.opcode === 'UNDECODED') throw new LiftError('LIFT_UNDECODED', `${fn.name} 0x${w.addr.toString(16).padStart(4, '0')}: ${ctx.text}`);
    const r = liftOne(ctx, w.ins, w.view, w.target);
    body.push(...r.lines);
    if (r.ends) reachable = false;
  }
  void open;
  if (reachable) body.push('  EXIT');
  body.push(...ctx.tail);
  const params = kernelParams(fn).map((p) => {
    const t = p.size === 8 ? '.u64' : p.size === 4 ? '.u32' : p.size === 2 ? '.u16' : p.size === 1 ? '.u8' : undefined;
    return t ? `  .param ${t} p${p.ordinal} c[0x0][${hex(p.offset)}]` : `  .param .b8 p${p.ordinal}[${p.size}] c[0x0][${hex(p.offset)}]`;
  });
  const oriText = [
    `.target ${arch}`,
    '',
    ...data.decls,
    ...(data.decls.length ? [''] : []),
    `.entry @${fn.name}(`,
    params.join(',\n'),
    ')',
    '{',
    `  .local .align 16 .b8 @__stack[${localBytes}]`,
    // static shared memory (on sm_90 with the 1 KB the system reserves at its start): the code addresses it
    // from 0; dynamic shared memory follows it, as in hardware
    ...(sharedBytes ? [`  .shared .align 16 .b8 @__shared[${sharedBytes}]`] : []),
    ...body,
    '}',
    '',
  ].join('\n');
  let module: OriModule;
  try {
    module = parseOri(oriText, { file: `${fn.name}.lifted.ori` });
  } catch (e) {
    const line = (e as { pos?: { line?: number } }).pos?.line;
    const bad = line ? oriText.split('\n')[line - 1]?.trim() : undefined;
    throw new LiftError('LIFT_UNSUPPORTED', `${fn.name}: lifted Ori does not parse: ${(e as Error).message}${bad ? ` (\`${bad}\`)` : ''}`);
  }
  return { arch, kernel: fn.name, module, oriText, localBytes };
}

/** Coordinates per texture geometry (array index first, as Ori has them). */
const TEX_COORDS: Record<string, number> = { '1D': 1, '2D': 2, '3D': 3, CUBE: 3, ARRAY_1D: 2, ARRAY_2D: 3, ARRAY_CUBE: 4 };
/** Surface geometry tokens -> Ori geometry and coordinate count (SASS order: x, y, z, then the array index). */
const SURFACE_GEO: Record<string, [string, number]> = { '1D': ['1D', 1], '2D': ['2D', 2], '3D': ['3D', 3], '1D_ARRAY': ['ARRAY_1D', 2], '2D_ARRAY': ['ARRAY_2D', 3] };
const SURFACE_BYTES: Record<string, number> = { U8: 1, S8: 1, U16: 2, S16: 2, '64': 8, '128': 16 };

/**
 * Bindless texture and surface instructions to the Ori forms of docs/ori-semantics.md "Textures and surfaces"
 * (the handle is the 32-bit uniform register ptxas loads from the parameter; the result kind follows the texture,
 * so the lifted type modifiers are F32):
 *   TEX.LL Rd2, Rd, Ra, Rb, URh, 0x0, GEOM[, mask]    enabled components land in Rd, Rd+1, Rd2, Rd2+1 in order
 *   TLD.LZ Rd2, Rd, Ra, URh, 0x0, 1D[, mask]          integer coordinates
 *   SULD.D.BA.<geo>...[.TRAP|.IGN] Rd, [Ra], URh, 0x0  Ra = x (bytes), y, z, array index
 *   SUST.D.BA.<geo>...[.TRAP|.IGN] [Ra], Rv, URh, 0x0
 */
function liftTexture(ctx: Ctx, op: string, ops: readonly SassOperandView[], mods: readonly string[], line: LineFn): Lifted {
  const regOf = (o: SassOperandView | undefined): number => {
    if (!o) unsupported(ctx, `${op} operand missing`);
    if (o!.kind === 'mem') {
      const m = /^\[R(\d+|Z)\]$/.exec(o!.text.trim());
      if (!m) unsupported(ctx, `${op} address ${o!.text}`);
      return m![1] === 'Z' ? 255 : Number(m![1]);
    }
    if (o!.kind !== 'reg' && o!.kind !== 'ureg') unsupported(ctx, `${op} operand ${o!.text}`);
    return o!.reg ? o!.reg.index : o!.kind === 'ureg' ? 63 : 255;
  };
  const r = (n: number, k: number): string => (n === 255 ? 'RZ' : regName('R', n + k, 1));
  const handleOp = ops.find((o) => o.kind === 'ureg');
  if (!handleOp?.reg) unsupported(ctx, `${op} without a uniform handle register (bound textures are not lifted)`);
  const h = regName('UR', handleOp!.reg!.index, 1);
  if (op === 'TLD4') {
    const comp = mods.find((m) => ['R', 'G', 'B', 'A'].includes(m));
    if (!comp || mods.length !== 1 || !ops.some((o) => o.text === '2D')) unsupported(ctx, `TLD4.${mods.join('.')} (2D gathers only)`);
    const [rd2, rd, ra] = [regOf(ops[0]), regOf(ops[1]), regOf(ops[2])];
    const defs = [r(rd, 0), rd === 255 ? 'RZ' : r(rd, 1), r(rd2, 0), rd2 === 255 ? 'RZ' : r(rd2, 1)];
    return line(`${defs.join(', ')} = TLD4.${comp}.2D.F32.F32 ${h}, ${r(ra, 0)}, ${ra === 255 ? 'RZ' : r(ra, 1)}`);
  }
  if (op === 'TEX' || op === 'TLD') {
    if (mods.some((m) => !['LL', 'LZ'].includes(m))) unsupported(ctx, `${op}.${mods.join('.')}`);
    const geo = ops.find((o) => TEX_COORDS[o.text] !== undefined)?.text;
    if (!geo) unsupported(ctx, `${op} geometry`);
    const geoAt = ops.findIndex((o) => o.text === geo);
    const maskOp = ops[geoAt + 1];
    const mask = maskOp ? intText(maskOp.text) : 0xf;
    const n = TEX_COORDS[geo!]!;
    const [rd2, rd, ra] = [regOf(ops[0]), regOf(ops[1]), regOf(ops[2])];
    const slots = [r(rd, 0), rd === 255 ? 'RZ' : r(rd, 1), r(rd2, 0), rd2 === 255 ? 'RZ' : r(rd2, 1)];
    const defs = ['RZ', 'RZ', 'RZ', 'RZ'];
    let k = 0;
    for (let c = 0; c < 4; c++) if ((mask >> c) & 1) defs[c] = slots[k++]!;
    const coords = Array.from({ length: n }, (_, i) => r(ra, ra === 255 ? 0 : i));
    if (op === 'TLD') {
      if (!mods.includes('LZ')) unsupported(ctx, 'TLD with a level');
      return line(`${defs.join(', ')} = TEX.${geo}.F32.S32 ${h}, ${coords.join(', ')}`);
    }
    if (!mods.includes('LL')) unsupported(ctx, 'TEX without an explicit level');
    const rb = regOf(ops[3]);
    return line(`${defs.join(', ')} = TEX.${geo}.F32.F32.LL ${h}, ${coords.join(', ')}, ${r(rb, 0)}`);
  }
  const geoTok = mods.find((m) => SURFACE_GEO[m] !== undefined);
  if (!geoTok || !mods.includes('D') || !mods.includes('BA')) unsupported(ctx, `${op}.${mods.join('.')} (only unformatted byte-addressed accesses)`);
  const [geo, n] = SURFACE_GEO[geoTok!]!;
  const bytes = SURFACE_BYTES[mods.find((m) => SURFACE_BYTES[m] !== undefined) ?? ''] ?? 4;
  const mode = mods.includes('TRAP') ? 'TRAP' : mods.includes('IGN') ? 'ZERO' : 'CLAMP';
  const [elem, count] = bytes < 4 ? [`B${bytes * 8}`, 1] : ['B32', bytes / 4];
  const addrOp = ops.find((o) => o.kind === 'mem');
  const ra = regOf(addrOp);
  const sassCoords = Array.from({ length: n }, (_, i) => r(ra, ra === 255 ? 0 : i));
  const coords = geo.startsWith('ARRAY') ? [sassCoords[n - 1]!, ...sassCoords.slice(0, n - 1)] : sassCoords;
  if (op === 'SULD') {
    const rd = regOf(ops[0]);
    const defs = Array.from({ length: count }, (_, i) => r(rd, rd === 255 ? 0 : i));
    return line(`${defs.join(', ')} = SULD.${geo}.${elem}.${mode} ${h}, ${coords.join(', ')}`);
  }
  const rv = regOf(ops[1]);
  const vals = Array.from({ length: count }, (_, i) => r(rv, rv === 255 ? 0 : i));
  return line(`SUST.${geo}.${elem}.${mode} ${h}, ${[...coords, ...vals].join(', ')}`);
}
