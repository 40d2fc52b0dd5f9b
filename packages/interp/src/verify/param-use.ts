/**
 * What a kernel does with its pointer-sized parameters, for generated launches (verify-each): a 64-bit parameter
 * whose value reaches a memory address is a buffer; one that only feeds arithmetic and comparisons (a `size_t n`,
 * a `clock_t` count, a 64-bit stride) is a scalar and gets a small value instead of a buffer's address (an address
 * taken as a loop bound or a stride runs far outside every buffer). The 8-byte fields of by-value structure
 * parameters (`.param .b8 p[24]`: thrust iterators, cub tile states) that reach an address get a buffer too.
 *
 * The value is followed forward from each constant-bank read of the parameter through the operations that keep
 * an address an address (copies, selects, adds, the addend of a multiply-add or LEA, the arguments of a call into
 * the callee's parameters); everything else that reads it uses it as a number. A parameter stored to memory, or
 * passed to a function without a body, may be a pointer used elsewhere: it stays a buffer.
 */
import type { Instr, OriFunction, OriModule, Register } from '@ptxforge/kernel';
import { paramOffsets } from './resources.js';

export interface ParamUse {
  /** Indices of 64-bit scalar parameters used only as numbers. */
  readonly scalars: ReadonlySet<number>;
  /** For by-value structure parameters: byte offsets of the 8-byte fields used as addresses. */
  readonly pointerFields: ReadonlyMap<number, readonly number[]>;
}

const COPIES = new Set(['MOV', 'COPY', 'MOVPHI', 'PHI', 'SEL', 'IADD3', 'IADD', 'IADD32I', 'UMOV', 'UIADD3', 'USEL']);
/** Operations whose result is an address when one operand at these positions is: (a << s) + b, a * b + c. */
const BASE_AT: Record<string, number> = { LEA: 1, ULEA: 1, ISCADD: 1, IMAD: 2, 'IMAD.WIDE': 2, 'IMAD.WIDE.U32': 2, UIMAD: 2 };
/** Stores and atomics: a register operand other than the address is data written to memory. */
const STORES = /^(ST|STG|STL|STS|ATOM|ATOMG|ATOMS|RED|REDG|CAS|SUST|SURED)(\.|$)/;

const is64 = (t: string): boolean => t === 'u64' || t === 'b64' || t === 's64';

interface Flags {
  address: boolean;
  escape: boolean;
  numeric: boolean;
}

/** Roles of the kernel's 64-bit and structure parameters, from how its code (and its callees') uses them. */
export function paramUse(module: OriModule, fn: OriFunction): ParamUse {
  // the constant-bank ranges of the parameters to follow: 64-bit scalars and structures
  const offsets = paramOffsets(fn);
  const ranges: Array<{ k: number; start: number; end: number }> = [];
  for (const [off, k] of offsets) {
    const p = fn.params[k]!;
    if (p.count > 0) ranges.push({ k, start: off, end: off + Math.max(1, p.count) * byteSize(p.type) });
    else if (is64(p.type.toLowerCase())) ranges.push({ k, start: off, end: off + 8 });
  }
  const scalars = new Set<number>();
  const pointerFields = new Map<number, number[]>();
  if (!ranges.length) return { scalars, pointerFields };
  ranges.sort((a, b) => a.start - b.start);
  const rangeOf = (off: number): { k: number; start: number } | undefined => {
    let lo = 0;
    let hi = ranges.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const r = ranges[mid]!;
      if (off < r.start) hi = mid - 1;
      else if (off >= r.end) lo = mid + 1;
      else return r;
    }
    return undefined;
  };

  // keys: `${param}:${byte offset in the parameter}`; per register the keys whose value it may hold
  const flags = new Map<string, Flags>();
  const holds = new Map<Register, Set<string>>();
  const work: Array<[Register, string]> = [];
  const flagsOf = (key: string): Flags => {
    let f = flags.get(key);
    if (!f) flags.set(key, (f = { address: false, escape: false, numeric: false }));
    return f;
  };
  const taint = (r: Register, key: string): void => {
    let s = holds.get(r);
    if (!s) holds.set(r, (s = new Set()));
    if (s.has(key)) return;
    s.add(key);
    work.push([r, key]);
  };
  const taintDefs = (i: Instr, key: string): void => {
    for (const d of i.defs) if (d.kind === 'reg' && d.reg.width === 2) taint(d.reg, key);
  };
  /** What reading the value at use position `pos` of `i` does with it. */
  const useAt = (i: Instr, pos: number, key: string): void => {
    const op = i.opcode;
    if (COPIES.has(op) || BASE_AT[op] === pos || (op.startsWith('IMAD') && pos === 2)) {
      taintDefs(i, key);
      return;
    }
    if (op === 'CALL') {
      const target = i.uses[0];
      const callee = target?.kind === 'sym' ? module.getFunction(target.name) : undefined;
      const param = callee && callee.blocks.length ? callee.params[pos - 1]?.reg : undefined;
      if (param) taint(param, key);
      else flagsOf(key).escape = true;
      return;
    }
    if (STORES.test(op) || op === 'RET') flagsOf(key).escape = true;
    else flagsOf(key).numeric = true;
  };

  // seeds: every read of a followed constant-bank word
  for (const b of fn.blocks) {
    for (const i of b.instrs) {
      i.uses.forEach((u, pos) => {
        if (u.kind !== 'cbank' || u.bank !== 0 || u.index) return;
        const r = rangeOf(u.offset);
        if (r) useAt(i, pos, `${r.k}:${u.offset - r.start}`);
      });
    }
  }
  while (work.length) {
    const [r, key] = work.pop()!;
    for (const i of r.uses.keys()) {
      if (i.guard?.reg === r) flagsOf(key).numeric = true;
      i.uses.forEach((u, pos) => {
        if (u.kind === 'reg' && u.reg === r) useAt(i, pos, key);
        else if (u.kind === 'mem' && u.base === r) flagsOf(key).address = true;
        else if (u.kind === 'cbank' && u.index === r) flagsOf(key).numeric = true;
      });
    }
  }
  for (const [key, f] of flags) {
    const [k, field] = key.split(':').map(Number) as [number, number];
    const p = fn.params[k]!;
    if (p.count === 0) {
      if (field === 0 && f.numeric && !f.address && !f.escape) scalars.add(k);
    } else if (f.address && field % 8 === 0) {
      const list = pointerFields.get(k) ?? [];
      list.push(field);
      pointerFields.set(k, list);
    }
  }
  // a scalar key seen only through a 32-bit half (no 64-bit copy) has no flags; a pointer field is read whole
  for (const list of pointerFields.values()) list.sort((a, b) => a - b);
  return { scalars, pointerFields };
}

function byteSize(t: string): number {
  const m = /(\d+)$/.exec(t.toLowerCase());
  return m ? Math.max(1, Number(m[1]) / 8) : 4;
}
