/**
 * Specialised closures for the hottest 32-bit (and a few 64-bit) ALU forms. Each must give exactly what
 * evaluatePure gives; src/interp/fastpaths.test.ts checks that on random operands by running every form
 * with and without fast paths. Anything not listed here (modifiers, carries, unusual widths) returns
 * undefined and runs through the generic evaluatePure path.
 */
import type { Instr, Operand, OriFunction } from '@ptxforge/kernel';
import { ffma } from '@ptxforge/semantics';
import { F32 } from '@ptxforge/semantics';
import { lop3n } from '@ptxforge/semantics';
import type { Exec, Program } from './program.js';

const TWO32 = 4294967296;

function plainReg(o: Operand | undefined, n: number): boolean {
  return !!o && o.kind === 'reg' && !o.neg && !o.abs && !o.not && o.reg.cls !== 'P' && o.reg.cls !== 'UP' && o.reg.width === n;
}

/** Slot of a data operand read at n words without modifiers, materialising constants; undefined if not possible. */
function fsrc(prog: Program, fn: OriFunction, o: Operand | undefined, n: 1 | 2, allowNeg = false): number | undefined {
  if (!o) return undefined;
  switch (o.kind) {
    case 'reg':
      if (o.reg.cls === 'P' || o.reg.cls === 'UP' || o.reg.width !== n || o.abs || o.not || (o.neg && !allowNeg)) return undefined;
      return prog.regSlot.get(o.reg);
    case 'rz':
      return prog.constSlot(0n);
    case 'imm':
      return prog.constSlot(o.value);
    case 'cbank':
      if (o.index) return undefined;
      return prog.constSlot(BigInt.asIntN(n * 32, prog.cbankValue(o.bank, o.offset, n * 4)));
    case 'sym':
      return prog.constSlot(BigInt(prog.sym(fn, o.name).address));
    default:
      return undefined;
  }
}

/** Predicate operand: slot and negation (PT is slot 0). */
/** Ordered comparison by code 0..5 = EQ NE LT LE GT GE (shared by the integer and float compare paths). */
function compareCode(code: number, x: number, y: number): boolean {
  switch (code) {
    case 0: return x === y;
    case 1: return x !== y;
    case 2: return x < y;
    case 3: return x <= y;
    case 4: return x > y;
    default: return x >= y;
  }
}

/**
 * The predicate defs of ISETP/FSETP/DSETP-style compares: p = t COMB c and q = !t COMB c for the lanes in m
 * (COMB 0/1/2 = AND/OR/XOR; a def slot of -1 is PT and is not written).
 */
function writeSetpResults(
  w: Parameters<Exec>[0],
  m: number,
  t: number,
  c: { slot: number; not: boolean },
  comb: number,
  p: number | undefined,
  q: number | undefined,
): void {
  const P = w.P;
  const cv = c.not ? ~P[c.slot]! : P[c.slot]!;
  if (p !== undefined && p >= 0) {
    const v = comb === 0 ? t & cv : comb === 1 ? t | cv : t ^ cv;
    P[p] = (P[p]! & ~m) | (v & m);
    w.PW[p]! |= m;
  }
  if (q !== undefined && q >= 0) {
    const nt = ~t;
    const v = comb === 0 ? nt & cv : comb === 1 ? nt | cv : nt ^ cv;
    P[q] = (P[q]! & ~m) | (v & m);
    w.PW[q]! |= m;
  }
}

function psrc(prog: Program, o: Operand | undefined): { slot: number; not: boolean } | undefined {
  if (!o) return { slot: 0, not: false };
  if (o.kind === 'pt') return { slot: 0, not: !!o.not };
  if (o.kind === 'reg' && (o.reg.cls === 'P' || o.reg.cls === 'UP')) return { slot: prog.predSlot.get(o.reg)!, not: !!o.not };
  return undefined;
}

function dreg(prog: Program, o: Operand | undefined, n: number): number | undefined {
  if (!o || o.kind !== 'reg' || o.reg.cls === 'P' || o.reg.cls === 'UP' || o.reg.width !== n) return undefined;
  return prog.regSlot.get(o.reg);
}
function dpred(prog: Program, o: Operand | undefined): number | undefined {
  if (!o || o.kind !== 'reg' || (o.reg.cls !== 'P' && o.reg.cls !== 'UP')) return undefined;
  return prog.predSlot.get(o.reg);
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/**
 * 32-bit IADD3 with carry-outs and carry-ins (SASS's 64-bit add chains, `IADD3 d, P0, a, ~b, c, PT`): d = a + b + c
 * + carry-ins, the first predicate def bit 32 of the sum, the second bit 33; `~x` sources are complemented.
 */
function iadd3Carries(prog: Program, fn: OriFunction, i: Instr): Exec | undefined {
  const d = dreg(prog, i.defs[0], 1);
  if (d === undefined) return undefined;
  const outs = i.defs.slice(1).map((x) => (x.kind === 'pt' ? -1 : dpred(prog, x)));
  if (outs.length > 2 || outs.some((x) => x === undefined)) return undefined;
  const srcs: Array<{ at: number; not: boolean }> = [];
  for (const o of i.uses.slice(0, 3)) {
    if (o?.kind === 'reg' && o.not && !o.neg && !o.abs && o.reg.cls !== 'P' && o.reg.cls !== 'UP' && o.reg.width === 1) {
      srcs.push({ at: prog.regSlot.get(o.reg)! * 32, not: true });
      continue;
    }
    const slot = fsrc(prog, fn, o, 1);
    if (slot === undefined) return undefined;
    srcs.push({ at: slot * 32, not: false });
  }
  const cins = i.uses.slice(3).map((o) => psrc(prog, o));
  if (srcs.length !== 3 || cins.some((c) => !c)) return undefined;
  const [a, b, c] = srcs as [{ at: number; not: boolean }, { at: number; not: boolean }, { at: number; not: boolean }];
  const [p, q] = [outs[0] ?? -1, outs[1] ?? -1] as [number, number];
  const D = d * 32;
  return (w, m) => {
    const R = w.R;
    const P = w.P;
    let cin0 = 0;
    let cin1 = 0;
    for (let k = 0; k < cins.length; k++) {
      const ci = cins[k]!;
      const v = ci.not ? ~P[ci.slot]! : P[ci.slot]!;
      if (k === 0) cin0 = v;
      else cin1 = v;
    }
    let c0 = 0;
    let c1 = 0;
    for (let l = 0; l < 32; l++) {
      if (!((m >>> l) & 1)) continue;
      const x = a.not ? ~R[a.at + l]! >>> 0 : R[a.at + l]!;
      const y = b.not ? ~R[b.at + l]! >>> 0 : R[b.at + l]!;
      const z = c.not ? ~R[c.at + l]! >>> 0 : R[c.at + l]!;
      const sum = x + y + z + ((cin0 >>> l) & 1) + ((cin1 >>> l) & 1);
      const hi = Math.floor(sum / TWO32);
      R[D + l] = sum - hi * TWO32;
      if (hi & 1) c0 |= 1 << l;
      if (hi & 2) c1 |= 1 << l;
    }
    w.W[d]! |= m;
    if (p >= 0) {
      P[p] = (P[p]! & ~m) | (c0 & m);
      w.PW[p]! |= m;
    }
    if (q >= 0) {
      P[q] = (P[q]! & ~m) | (c1 & m);
      w.PW[q]! |= m;
    }
  };
}

export function buildFastPath(prog: Program, fn: OriFunction, i: Instr): Exec | undefined {
  const mods = i.mods;
  const [u0, u1, u2] = i.uses;
  switch (i.opcode) {
    case 'MOV':
    case 'UMOV':
    case 'COPY':
    case 'MOVPHI':
    case 'R2UR': {
      if (i.defs.length !== 1 || i.uses.length !== 1) return undefined;
      const pd = dpred(prog, i.defs[0]);
      if (pd !== undefined) {
        const ps = psrc(prog, u0);
        if (!ps) return undefined;
        return (w, m) => {
          const v = ps.not ? ~w.P[ps.slot]! : w.P[ps.slot]!;
          w.P[pd] = (w.P[pd]! & ~m) | (v & m);
          w.PW[pd]! |= m;
        };
      }
      for (const n of [1, 2] as const) {
        const d = dreg(prog, i.defs[0], n);
        if (d === undefined) continue;
        const a = fsrc(prog, fn, u0, n);
        if (a === undefined) return undefined;
        const D = d * 32;
        const A = a * 32;
        if (n === 1) {
          return (w, m) => {
            const R = w.R;
            for (let l = 0; l < 32; l++) if ((m >>> l) & 1) R[D + l] = R[A + l]!;
            w.W[d]! |= m;
          };
        }
        return (w, m) => {
          const R = w.R;
          for (let l = 0; l < 32; l++) {
            if ((m >>> l) & 1) {
              R[D + l] = R[A + l]!;
              R[D + 32 + l] = R[A + 32 + l]!;
            }
          }
          w.W[d]! |= m;
          w.W[d + 1]! |= m;
        };
      }
      return undefined;
    }
    case 'IADD3': {
      if ((i.defs.length > 1 || i.uses.length > 3) && mods.every((x) => x === 'X')) return iadd3Carries(prog, fn, i);
      if (i.defs.length !== 1 || i.uses.length !== 3 || mods.length) return undefined;
      for (const n of [1, 2] as const) {
        const d = dreg(prog, i.defs[0], n);
        if (d === undefined) continue;
        const neg = (o: Operand | undefined): boolean => o?.kind === 'reg' && !!o.neg;
        const srcs = [u0, u1, u2].map((o) => fsrc(prog, fn, o, n, n === 1));
        if (srcs.some((x) => x === undefined)) return undefined;
        const [A, B, C] = srcs.map((x) => x! * 32) as [number, number, number];
        const D = d * 32;
        if (n === 1) {
          const sa = neg(u0) ? -1 : 1;
          const sb = neg(u1) ? -1 : 1;
          const sc = neg(u2) ? -1 : 1;
          return (w, m) => {
            const R = w.R;
            for (let l = 0; l < 32; l++) if ((m >>> l) & 1) R[D + l] = (sa * R[A + l]! + sb * R[B + l]! + sc * R[C + l]!) >>> 0;
            w.W[d]! |= m;
          };
        }
        return (w, m) => {
          const R = w.R;
          for (let l = 0; l < 32; l++) {
            if (!((m >>> l) & 1)) continue;
            const lo = R[A + l]! + R[B + l]! + R[C + l]!;
            const carry = lo >= 2 * TWO32 ? 2 : lo >= TWO32 ? 1 : 0;
            R[D + 32 + l] = R[A + 32 + l]! + R[B + 32 + l]! + R[C + 32 + l]! + carry;
            R[D + l] = lo;
          }
          w.W[d]! |= m;
          w.W[d + 1]! |= m;
        };
      }
      return undefined;
    }
    case 'IMAD': {
      if (i.defs.length !== 1 || i.uses.length !== 3) return undefined;
      if (mods.length === 0) {
        const d = dreg(prog, i.defs[0], 1);
        const [a, b, c] = [u0, u1, u2].map((o) => fsrc(prog, fn, o, 1));
        if (d === undefined || a === undefined || b === undefined || c === undefined) return undefined;
        const [A, B, C, D] = [a * 32, b * 32, c * 32, d * 32];
        return (w, m) => {
          const R = w.R;
          for (let l = 0; l < 32; l++) if ((m >>> l) & 1) R[D + l] = (Math.imul(R[A + l]!, R[B + l]!) + R[C + l]!) >>> 0;
          w.W[d]! |= m;
        };
      }
      const wideU = mods.length === 2 && mods.includes('WIDE') && mods.includes('U32');
      const wideS = mods.length === 1 && mods[0] === 'WIDE';
      if (!wideU && !wideS) return undefined;
      const d = dreg(prog, i.defs[0], 2);
      const a = fsrc(prog, fn, u0, 1);
      const b = fsrc(prog, fn, u1, 1);
      const c = fsrc(prog, fn, u2, 2);
      if (d === undefined || a === undefined || b === undefined || c === undefined) return undefined;
      const [A, B, C, D] = [a * 32, b * 32, c * 32, d * 32];
      return (w, m) => {
        const R = w.R;
        for (let l = 0; l < 32; l++) {
          if (!((m >>> l) & 1)) continue;
          const x = R[A + l]!;
          const y = R[B + l]!;
          // Exact 32x32 -> 64 product from 16-bit pieces (every partial sum stays below 2^53).
          const p0 = (x & 0xffff) * y;
          const p1 = (x >>> 16) * y;
          const p1lo = p1 % 65536;
          const t = p0 + p1lo * 65536;
          const tlo = t % TWO32;
          let hi = (p1 - p1lo) / 65536 + (t - tlo) / TWO32;
          if (wideS) hi -= (x >>> 31 ? y : 0) + (y >>> 31 ? x : 0);
          const lo = tlo + R[C + l]!;
          R[D + l] = lo;
          R[D + 32 + l] = hi + R[C + 32 + l]! + (lo >= TWO32 ? 1 : 0);
        }
        w.W[d]! |= m;
        w.W[d + 1]! |= m;
      };
    }
    case 'ISETP': {
      const cmp = ['EQ', 'NE', 'LT', 'LE', 'GT', 'GE'].find((x) => mods.includes(x));
      const comb = ['AND', 'OR', 'XOR'].find((x) => mods.includes(x)) ?? 'AND';
      const unsigned = mods.includes('U32');
      if (!cmp || mods.some((x) => x === 'U64' || x === 'S64' || x === 'EX') || i.uses.length > 3 || i.defs.length > 2) return undefined;
      if (!(plainReg(u0, 1) || u0?.kind !== 'reg') || !(plainReg(u1, 1) || u1?.kind !== 'reg')) return undefined;
      const a = fsrc(prog, fn, u0, 1);
      const b = fsrc(prog, fn, u1, 1);
      const c = psrc(prog, u2);
      const defs = i.defs.map((x) => (x.kind === 'pt' ? -1 : dpred(prog, x)));
      if (a === undefined || b === undefined || !c || defs.some((x) => x === undefined)) return undefined;
      const [A, B] = [a * 32, b * 32];
      const [p, q] = defs as number[];
      const code = ['EQ', 'NE', 'LT', 'LE', 'GT', 'GE'].indexOf(cmp);
      const cb = ['AND', 'OR', 'XOR'].indexOf(comb);
      return (w, m) => {
        const R = w.R;
        let t = 0;
        for (let l = 0; l < 32; l++) {
          if (!((m >>> l) & 1)) continue;
          let x = R[A + l]!;
          let y = R[B + l]!;
          if (!unsigned) {
            x |= 0;
            y |= 0;
          }
          if (compareCode(code, x, y)) t |= 1 << l;
        }
        writeSetpResults(w, m, t, c, cb, p, q);
      };
    }
    case 'LOP3': {
      if (i.defs.length !== 1 || i.uses.length !== 4 || i.uses[3]?.kind !== 'imm') return undefined;
      const d = dreg(prog, i.defs[0], 1);
      const [a, b, c] = [u0, u1, u2].map((o) => fsrc(prog, fn, o, 1));
      if (d === undefined || a === undefined || b === undefined || c === undefined) return undefined;
      const lut = Number((i.uses[3] as { value: bigint }).value & 0xffn);
      const [A, B, C, D] = [a * 32, b * 32, c * 32, d * 32];
      return (w, m) => {
        const R = w.R;
        for (let l = 0; l < 32; l++) if ((m >>> l) & 1) R[D + l] = lop3n(R[A + l]!, R[B + l]!, R[C + l]!, lut);
        w.W[d]! |= m;
      };
    }
    case 'SHL':
    case 'SHR': {
      const d = dreg(prog, i.defs[0], 1);
      const a = fsrc(prog, fn, u0, 1);
      const s = fsrc(prog, fn, u1, 1);
      if (d === undefined || a === undefined || s === undefined || i.defs.length !== 1) return undefined;
      if (i.opcode === 'SHR' && !(mods.length === 1 && (mods[0] === 'U32' || mods[0] === 'S32'))) return undefined;
      if (i.opcode === 'SHL' && mods.some((x) => x !== 'U32' && x !== 'S32' && x !== 'B32')) return undefined;
      const kind = i.opcode === 'SHL' ? 0 : mods[0] === 'U32' ? 1 : 2;
      const [A, S, D] = [a * 32, s * 32, d * 32];
      return (w, m) => {
        const R = w.R;
        for (let l = 0; l < 32; l++) {
          if (!((m >>> l) & 1)) continue;
          const n = R[S + l]!;
          const x = R[A + l]!;
          R[D + l] = kind === 0 ? (n >= 32 ? 0 : x << n) : kind === 1 ? (n >= 32 ? 0 : x >>> n) : (x | 0) >> (n >= 32 ? 31 : n);
        }
        w.W[d]! |= m;
      };
    }
    case 'LEA': {
      if (mods.length || i.defs.length !== 1 || i.uses.length !== 3) return undefined;
      const d = dreg(prog, i.defs[0], 1);
      const [a, b, s] = [u0, u1, u2].map((o) => fsrc(prog, fn, o, 1));
      if (d === undefined || a === undefined || b === undefined || s === undefined) return undefined;
      const [A, B, S, D] = [a * 32, b * 32, s * 32, d * 32];
      return (w, m) => {
        const R = w.R;
        for (let l = 0; l < 32; l++) {
          if (!((m >>> l) & 1)) continue;
          const n = R[S + l]! & 0x3f;
          R[D + l] = ((n >= 32 ? 0 : R[A + l]! << n) + R[B + l]!) >>> 0;
        }
        w.W[d]! |= m;
      };
    }
    case 'SEL': {
      if (mods.length || i.defs.length !== 1) return undefined;
      const d = dreg(prog, i.defs[0], 1);
      const a = fsrc(prog, fn, u0, 1);
      const b = fsrc(prog, fn, u1, 1);
      const p = psrc(prog, u2);
      if (d === undefined || a === undefined || b === undefined || !p) return undefined;
      const [A, B, D] = [a * 32, b * 32, d * 32];
      return (w, m) => {
        const R = w.R;
        const pm = p.not ? ~w.P[p.slot]! : w.P[p.slot]!;
        for (let l = 0; l < 32; l++) if ((m >>> l) & 1) R[D + l] = (pm >>> l) & 1 ? R[A + l]! : R[B + l]!;
        w.W[d]! |= m;
      };
    }
    case 'FADD':
    case 'FMUL':
    case 'FFMA': {
      if (mods.some((x) => x !== 'RN') || i.defs.length !== 1) return undefined;
      const d = dreg(prog, i.defs[0], 1);
      const n = i.opcode === 'FFMA' ? 3 : 2;
      if (i.uses.length !== n) return undefined;
      const srcs = i.uses.map((o) => fsrc(prog, fn, o, 1));
      if (d === undefined || srcs.some((x) => x === undefined)) return undefined;
      const [A, B, C] = srcs.map((x) => x! * 32) as [number, number, number];
      const D = d * 32;
      if (i.opcode === 'FFMA') {
        return (w, m) => {
          const R = w.R;
          const F = w.F;
          for (let l = 0; l < 32; l++) {
            if (!((m >>> l) & 1)) continue;
            const x = F[A + l]! * F[B + l]!;
            const c = F[C + l]!;
            const s = x + c;
            const bb = s - x;
            const e = x - (s - bb) + (c - bb);
            if (e === 0 && s === s) F[D + l] = s;
            else R[D + l] = Number(ffma(BigInt(R[A + l]!), BigInt(R[B + l]!), BigInt(R[C + l]!), F32));
          }
          w.W[d]! |= m;
        };
      }
      const add = i.opcode === 'FADD';
      return (w, m) => {
        const F = w.F;
        for (let l = 0; l < 32; l++) {
          if (!((m >>> l) & 1)) continue;
          const r = add ? F[A + l]! + F[B + l]! : F[A + l]! * F[B + l]!;
          if (r === r) F[D + l] = r;
          else w.R[D + l] = 0x7fffffff;
        }
        w.W[d]! |= m;
      };
    }
    case 'FSETP': {
      const cmp = ['EQ', 'NE', 'LT', 'LE', 'GT', 'GE', 'EQU', 'NEU', 'LTU', 'LEU', 'GTU', 'GEU'].indexOf(mods[0] ?? '');
      const comb = ['AND', 'OR', 'XOR'].indexOf(mods[1] ?? 'AND');
      if (cmp < 0 || comb < 0 || mods.length !== 2 || i.uses.length > 3 || i.defs.length > 2) return undefined;
      const a = fsrc(prog, fn, u0, 1);
      const b = fsrc(prog, fn, u1, 1);
      const c = psrc(prog, u2);
      const defs = i.defs.map((x) => (x.kind === 'pt' ? -1 : dpred(prog, x)));
      if (a === undefined || b === undefined || !c || defs.some((x) => x === undefined)) return undefined;
      const [A, B] = [a * 32, b * 32];
      const [p, q] = defs as number[];
      const unord = cmp >= 6;
      const base = cmp % 6;
      return (w, m) => {
        const F = w.F;
        let t = 0;
        for (let l = 0; l < 32; l++) {
          if (!((m >>> l) & 1)) continue;
          const x = F[A + l]!;
          const y = F[B + l]!;
          if (x !== x || y !== y ? unord : compareCode(base, x, y)) t |= 1 << l;
        }
        writeSetpResults(w, m, t, c, comb, p, q);
      };
    }
  }
  void f32;
  void u32;
  return undefined;
}
