/**
 * Memory instructions (loads, stores, constant loads, atomics) and warp-level instructions (SHFL, VOTE,
 * MATCH, REDUX) as warp-wide closures. Lanes are processed in lane order, so atomics and conflicting stores
 * within a warp resolve deterministically (highest lane wins for plain stores).
 */
import type { Instr, OriFunction } from '@ptxforge/kernel';
import { s as sx, u } from '@ptxforge/semantics';
import { fadd } from '@ptxforge/semantics';
import { F32, F64 } from '@ptxforge/semantics';
import { Trap } from './errors.js';
import { buildMma } from './mma.js';
import { checkAlign, LWINBASE, readWords, SWINBASE, WINDOW_SIZE, writeWords } from './memory.js';
import { markWritten, readSrc, writeLane, type Dst, type Exec, type Program, type Src } from './program.js';
import type { Warp } from './warp.js';

const enum Space {
  GLOBAL,
  SHARED,
  LOCAL,
  GENERIC,
}

const SPACE_OF: Record<string, Space> = {
  LDG: Space.GLOBAL, STG: Space.GLOBAL, ATOMG: Space.GLOBAL,
  LDS: Space.SHARED, STS: Space.SHARED, ATOMS: Space.SHARED,
  LDL: Space.LOCAL, STL: Space.LOCAL,
  LD: Space.GENERIC, ST: Space.GENERIC, ATOM: Space.GENERIC, RED: Space.GENERIC,
};
const SPACE_NAME = ['global', 'shared', 'local', 'generic'];

let curView: DataView = new DataView(new ArrayBuffer(16));
let curOff = 0;

/** Point curView/curOff at `size` bytes of `space` at `addr` for lane l, or trap. */
function resolve(w: Warp, space: Space, addr: number, size: number, l: number): void {
  checkAlign(addr, size, l, SPACE_NAME[space]!);
  switch (space) {
    case Space.GLOBAL: {
      const r = w.cta.global.find(addr, size, l);
      curView = r.view;
      curOff = addr - r.base;
      return;
    }
    case Space.SHARED:
      if (addr < 0 || addr + size > w.cta.shared.length) {
        throw new Trap('out-of-bounds', `shared access of ${size} bytes at offset 0x${addr.toString(16)} is outside the ${w.cta.shared.length}-byte shared window`, l);
      }
      curView = w.cta.sharedView;
      curOff = addr;
      return;
    case Space.LOCAL: {
      const ls = w.prog.layout.localSize;
      if (addr < 0 || addr + size > ls) {
        throw new Trap('out-of-bounds', `local access of ${size} bytes at offset 0x${addr.toString(16)} is outside the ${ls}-byte local window`, l);
      }
      curView = w.cta.localView;
      curOff = w.linear[l]! * ls + addr;
      return;
    }
    case Space.GENERIC:
      if (addr >= SWINBASE && addr < SWINBASE + WINDOW_SIZE) return resolve(w, Space.SHARED, addr - SWINBASE, size, l);
      if (addr >= LWINBASE && addr < LWINBASE + WINDOW_SIZE) return resolve(w, Space.LOCAL, addr - LWINBASE, size, l);
      return resolve(w, Space.GLOBAL, addr, size, l);
  }
}

/** One byte at a generic address for lane l (the driver functions' view of memory: printf formats and buffers). */
export function loadGenericByte(w: Warp, addr: number, l: number): number {
  resolve(w, Space.GENERIC, addr, 1, l);
  return curView.getUint8(curOff);
}

/** `size` bytes (1, 2, 4 or 8) at a generic address for lane l, little-endian, as an unsigned bigint. */
export function loadGeneric(w: Warp, addr: number, size: number, l: number): bigint {
  resolve(w, Space.GENERIC, addr, size, l);
  if (size === 8) return curView.getBigUint64(curOff, true);
  if (size === 4) return BigInt(curView.getUint32(curOff, true));
  if (size === 2) return BigInt(curView.getUint16(curOff, true));
  return BigInt(curView.getUint8(curOff));
}

interface Addr {
  readonly base: number; // slot or -1
  readonly wide: boolean;
  readonly off: number;
}

function addrOf(w: Warp, a: Addr, l: number): number {
  if (a.base < 0) return a.off;
  const lo = w.R[a.base * 32 + l]!;
  if (!a.wide) return lo + a.off;
  const hi = w.R[(a.base + 1) * 32 + l]!;
  if (hi >= 0x200000) return Number.MAX_SAFE_INTEGER; // beyond 2^53: no memory there
  return hi * 4294967296 + lo + a.off;
}

function sizeOf(mods: readonly string[], regWidth: number): { size: number; signed: boolean } {
  for (const m of mods) {
    switch (m) {
      case 'U8': case '8': return { size: 1, signed: false };
      case 'S8': return { size: 1, signed: true };
      case 'U16': case '16': return { size: 2, signed: false };
      case 'S16': return { size: 2, signed: true };
      case '32': case 'U32': case 'S32': case 'F32': case 'B32': return { size: 4, signed: false };
      case '64': case 'U64': case 'S64': case 'F64': case 'B64': return { size: 8, signed: false };
      case '128': return { size: 16, signed: false };
    }
  }
  return { size: regWidth * 4, signed: false };
}

const words = new Uint32Array(4);

function srcWords(w: Warp, s: Src, l: number, n: number): void {
  if (s.t === 'reg') {
    for (let k = 0; k < n; k++) words[k] = k < s.n ? w.R[(s.slot + k) * 32 + l]! : 0;
    return;
  }
  let v = readSrc(w, s, l);
  let x = typeof v === 'boolean' ? (v ? 1n : 0n) : BigInt.asUintN(128, v);
  for (let k = 0; k < n; k++) {
    words[k] = Number(x & 0xffffffffn);
    x >>= 32n;
  }
  v = 0n;
}

export function buildMemoryOp(prog: Program, fn: OriFunction, i: Instr): Exec | undefined {
  const op = i.opcode;
  if (op === 'LDC' || op === 'ULDC') return buildLdc(prog, fn, i);
  const space = SPACE_OF[op];
  if (space === undefined) return undefined;
  const memOp = i.uses[0];
  if (!memOp || memOp.kind !== 'mem') {
    return () => {
      throw new Trap('unsupported', `${i.fullOpcode} needs an address operand`, -1);
    };
  }
  let off = memOp.offset;
  if (memOp.sym) off += prog.sym(fn, memOp.sym).address;
  const a: Addr = memOp.base ? { base: prog.regSlot.get(memOp.base)!, wide: memOp.base.width >= 2, off } : { base: -1, wide: false, off };
  if (op.startsWith('ATOM') || op === 'RED') return buildAtomic(prog, fn, i, space, a);
  const isLoad = op.startsWith('LD');
  if (isLoad) {
    const d = prog.dst(i.defs[0]!);
    const n = d.t === 'reg' ? d.n : 1;
    const { size, signed } = sizeOf(i.mods, n);
    return (w, m) => {
      for (let l = 0; l < 32; l++) {
        if (!((m >>> l) & 1)) continue;
        resolve(w, space, addrOf(w, a, l), size, l);
        words[1] = words[2] = words[3] = 0;
        readWords(curView, curOff, size, words);
        if (signed) {
          const sh = 32 - size * 8;
          words[0] = (words[0]! << sh) >> sh;
          words[1] = words[0]! >> 31 ? 0xffffffff : 0;
        }
        if (d.t === 'reg') for (let k = 0; k < d.n; k++) w.R[(d.slot + k) * 32 + l] = words[k]!;
      }
      markWritten(w, d, m);
    };
  }
  const v = prog.src(fn, i.uses[1] ?? { kind: 'rz' });
  const n = v.t === 'reg' ? v.n : 1;
  const { size } = sizeOf(i.mods, n);
  const nw = Math.max(1, size / 4);
  return (w, m) => {
    for (let l = 0; l < 32; l++) {
      if (!((m >>> l) & 1)) continue;
      resolve(w, space, addrOf(w, a, l), size, l);
      srcWords(w, v, l, nw);
      writeWords(curView, curOff, size, words);
    }
  };
}

function buildLdc(prog: Program, fn: OriFunction, i: Instr): Exec {
  const c = i.uses[0];
  const d = prog.dst(i.defs[0]!);
  const n = d.t === 'reg' ? d.n : 1;
  const { size, signed } = sizeOf(i.mods, n);
  if (!c || c.kind !== 'cbank') {
    const s = prog.src(fn, c ?? { kind: 'rz' });
    return (w, m) => {
      for (let l = 0; l < 32; l++) if ((m >>> l) & 1) writeLane(w, d, l, readSrc(w, s, l));
      markWritten(w, d, m);
    };
  }
  const idx = c.index ? prog.regSlot.get(c.index)! : -1;
  return (w, m) => {
    for (let l = 0; l < 32; l++) {
      if (!((m >>> l) & 1)) continue;
      const off = c.offset + (idx >= 0 ? w.R[idx * 32 + l]! : 0);
      let v = prog.cbankValue(c.bank, off, size);
      if (signed) v = u(sx(v, size * 8), 64);
      writeLane(w, d, l, v);
    }
    markWritten(w, d, m);
  };
}

function buildAtomic(prog: Program, fn: OriFunction, i: Instr, space: Space, a: Addr): Exec {
  const mods = i.mods;
  const ops = ['ADD', 'MIN', 'MAX', 'INC', 'DEC', 'AND', 'OR', 'XOR', 'EXCH', 'CAS'];
  const aop = ops.find((o) => mods.includes(o)) ?? 'ADD';
  const tname = ['U32', 'S32', 'U64', 'S64', 'F32', 'F64'].find((t) => mods.includes(t));
  const isCas = aop === 'CAS';
  const vSrc = prog.src(fn, i.uses[isCas ? 2 : 1] ?? { kind: 'rz' });
  const cmpSrc = isCas ? prog.src(fn, i.uses[1] ?? { kind: 'rz' }) : undefined;
  const width = tname ? (tname.endsWith('64') ? 64 : 32) : vSrc.t === 'reg' && vSrc.n === 2 ? 64 : 32;
  const type = tname ?? (width === 64 ? 'U64' : 'U32');
  const signed = type.startsWith('S');
  const size = width / 8;
  const d = i.defs[0] ? prog.dst(i.defs[0]) : ({ t: 'none' } as Dst);
  const pd = i.defs[1] ? prog.dst(i.defs[1]) : ({ t: 'none' } as Dst);
  return (w, m) => {
    for (let l = 0; l < 32; l++) {
      if (!((m >>> l) & 1)) continue;
      resolve(w, space, addrOf(w, a, l), size, l);
      const old = width === 64 ? curView.getBigUint64(curOff, true) : BigInt(curView.getUint32(curOff, true));
      const v = u(readSrc(w, vSrc, l) as bigint, width);
      let nv: bigint;
      let ok = true;
      switch (aop) {
        case 'ADD':
          if (type === 'F32') nv = fadd(old, v, F32, { ftz: true });
          else if (type === 'F64') nv = fadd(old, v, F64);
          else nv = u(old + v, width);
          break;
        case 'MIN':
        case 'MAX': {
          const x = signed ? sx(old, width) : old;
          const y = signed ? sx(v, width) : v;
          nv = u((aop === 'MIN' ? x < y : x > y) ? x : y, width);
          break;
        }
        case 'INC':
          nv = old >= v ? 0n : old + 1n;
          break;
        case 'DEC':
          nv = old === 0n || old > v ? v : old - 1n;
          break;
        case 'AND':
          nv = old & v;
          break;
        case 'OR':
          nv = old | v;
          break;
        case 'XOR':
          nv = old ^ v;
          break;
        case 'EXCH':
          nv = v;
          break;
        default: {
          const c = u(readSrc(w, cmpSrc!, l) as bigint, width);
          ok = old === c;
          nv = ok ? v : old;
        }
      }
      if (width === 64) curView.setBigUint64(curOff, nv, true);
      else curView.setUint32(curOff, Number(nv), true);
      writeLane(w, d, l, old);
      writeLane(w, pd, l, ok);
    }
    markWritten(w, d, m);
    markWritten(w, pd, m);
  };
}

export function buildWarpOp(prog: Program, fn: OriFunction, i: Instr): Exec | undefined {
  switch (i.opcode) {
    case 'SHFL':
      return buildShfl(prog, fn, i);
    case 'VOTE':
      return buildVote(prog, fn, i);
    case 'MATCH':
      return buildMatch(prog, fn, i);
    case 'REDUX':
      return buildRedux(prog, fn, i);
    case 'HMMA':
    case 'IMMA':
    case 'DMMA':
      return buildMma(prog, fn, i);
  }
  return undefined;
}

function memberMask(w: Warp, s: Src | undefined, m: number): number {
  if (!s) return m;
  const l = 31 - Math.clz32(m & -m);
  return Number(BigInt.asUintN(32, readSrc(w, s, l) as bigint)) & m;
}

function buildShfl(prog: Program, fn: OriFunction, i: Instr): Exec {
  const mode = ['IDX', 'UP', 'DOWN', 'BFLY'].find((x) => i.hasMod(x)) ?? 'IDX';
  const [a, b, c] = [0, 1, 2].map((k) => prog.src(fn, i.uses[k] ?? { kind: 'rz' }));
  const d = prog.dst(i.defs[0]!);
  const pd = i.defs[1] ? prog.dst(i.defs[1]) : ({ t: 'none' } as Dst);
  const vals: bigint[] = new Array(32).fill(0n);
  const oks: boolean[] = new Array(32).fill(false);
  return (w, m) => {
    let undef = 0;
    for (let l = 0; l < 32; l++) {
      if (!((m >>> l) & 1)) continue;
      // PTX shfl.sync uses only b[4:0] as the lane / delta (a dynamic delta of 1000 is 1000 & 31 = 8).
      const bv = Number(u(readSrc(w, b!, l) as bigint, 32)) & 0x1f;
      const cv = Number(u(readSrc(w, c!, l) as bigint, 32));
      const clamp = cv & 0x1f;
      const seg = (cv >>> 8) & 0x1f;
      const maxLane = (l & seg) | (clamp & ~seg);
      const minLane = l & seg;
      let j: number;
      let ok: boolean;
      switch (mode) {
        case 'UP':
          j = l - bv;
          ok = j >= maxLane;
          break;
        case 'DOWN':
          j = l + bv;
          ok = j <= maxLane;
          break;
        case 'BFLY':
          j = l ^ bv;
          ok = j <= maxLane;
          break;
        default:
          j = minLane | (bv & ~seg);
          ok = j <= maxLane;
      }
      if (!ok || j < 0 || j > 31) j = l;
      vals[l] = readSrc(w, a!, j) as bigint;
      oks[l] = ok;
      // A lane that does not execute this shfl holds no value to give: "If the target thread is inactive,
      // the retrieved value is undefined" (CUDA C++ Programming Guide, warp shuffle functions). Its stale
      // register would make the result depend on register assignment, so the lane's result is left
      // undefined (a later read of it is reported as an undefined read, not compared).
      if (!((m >>> j) & 1)) undef |= 1 << l;
    }
    for (let l = 0; l < 32; l++) {
      if (!((m >>> l) & 1)) continue;
      writeLane(w, d, l, vals[l]!);
      writeLane(w, pd, l, oks[l]!);
    }
    markWritten(w, d, m & ~undef);
    if (undef !== 0 && d.t === 'reg') for (let k = 0; k < d.n; k++) w.W[d.slot + k]! &= ~undef;
    markWritten(w, pd, m);
  };
}

function buildVote(prog: Program, fn: OriFunction, i: Instr): Exec {
  const mode = ['ALL', 'ANY', 'EQ'].find((x) => i.hasMod(x)) ?? 'ANY';
  const pin = i.uses[0];
  const pinSrc = prog.src(fn, pin ?? { kind: 'pt' });
  const pinNot = pin?.kind === 'reg' ? !!pin.not : pin?.kind === 'pt' ? !!pin.not : false;
  const mask = i.uses[1] ? prog.src(fn, i.uses[1]) : undefined;
  const defs = i.defs.map((x) => prog.dst(x));
  const d = defs.find((x) => x.t === 'reg') ?? ({ t: 'none' } as Dst);
  const pd = defs.find((x) => x.t === 'pred') ?? ({ t: 'none' } as Dst);
  return (w, m) => {
    const act = memberMask(w, mask, m);
    let ballot = 0;
    for (let l = 0; l < 32; l++) if ((act >>> l) & 1 && (readSrc(w, pinSrc, l) === true) !== pinNot) ballot |= 1 << l;
    const r = mode === 'ALL' ? ballot === act : mode === 'ANY' ? ballot !== 0 : ballot === 0 || ballot === act;
    for (let l = 0; l < 32; l++) {
      if (!((m >>> l) & 1)) continue;
      writeLane(w, d, l, BigInt(ballot >>> 0));
      writeLane(w, pd, l, r);
    }
    markWritten(w, d, m);
    markWritten(w, pd, m);
  };
}

function buildMatch(prog: Program, fn: OriFunction, i: Instr): Exec {
  const all = i.hasMod('ALL');
  const a = prog.src(fn, i.uses[0] ?? { kind: 'rz' });
  const mask = i.uses[1] ? prog.src(fn, i.uses[1]) : undefined;
  const d = prog.dst(i.defs[0]!);
  const pd = i.defs[1] ? prog.dst(i.defs[1]) : ({ t: 'none' } as Dst);
  const vals: bigint[] = new Array(32).fill(0n);
  return (w, m) => {
    const act = memberMask(w, mask, m);
    for (let l = 0; l < 32; l++) if ((act >>> l) & 1) vals[l] = readSrc(w, a, l) as bigint;
    let allEq = true;
    const first = 31 - Math.clz32(act & -act);
    for (let l = 0; l < 32; l++) if ((act >>> l) & 1 && vals[l] !== vals[first]) allEq = false;
    for (let l = 0; l < 32; l++) {
      if (!((m >>> l) & 1)) continue;
      let r: number;
      if (all) r = allEq ? act : 0;
      else {
        r = 0;
        for (let j = 0; j < 32; j++) if ((act >>> j) & 1 && vals[j] === vals[l]) r |= 1 << j;
      }
      writeLane(w, d, l, BigInt(r >>> 0));
      writeLane(w, pd, l, allEq);
    }
    markWritten(w, d, m);
    markWritten(w, pd, m);
  };
}

function buildRedux(prog: Program, fn: OriFunction, i: Instr): Exec {
  const op = ['SUM', 'MIN', 'MAX', 'AND', 'OR', 'XOR'].find((x) => i.hasMod(x)) ?? 'SUM';
  const signed = i.hasMod('S32');
  const a = prog.src(fn, i.uses[0] ?? { kind: 'rz' });
  const mask = i.uses[1] ? prog.src(fn, i.uses[1]) : undefined;
  const d = prog.dst(i.defs[0]!);
  return (w, m) => {
    const act = memberMask(w, mask, m);
    let acc: bigint | undefined;
    for (let l = 0; l < 32; l++) {
      if (!((act >>> l) & 1)) continue;
      const raw = u(readSrc(w, a, l) as bigint, 32);
      const v = signed ? sx(raw, 32) : raw;
      if (acc === undefined) acc = v;
      else if (op === 'SUM') acc += v;
      else if (op === 'MIN') acc = v < acc ? v : acc;
      else if (op === 'MAX') acc = v > acc ? v : acc;
      else if (op === 'AND') acc &= v;
      else if (op === 'OR') acc |= v;
      else acc ^= v;
    }
    const r = u(acc ?? 0n, 32);
    for (let l = 0; l < 32; l++) if ((m >>> l) & 1) writeLane(w, d, l, r);
    markWritten(w, d, m);
  };
}
