import { PT, imm, label, reg, type Operand as OriOperand, type Register } from '@ptxforge/kernel';
import type { Operand } from '../ast.js';
import { FnLowerer } from './context.js';
import type { PtxType } from './types.js';

/**
 * Function addresses and indirect calls in a whole-program compilation (function-address.ts gives each
 * address-taken `.func` its number).
 *
 * - `mov.u64 %rd, f` of a `.func`: the number, as an immediate. Of a kernel (`.entry`, also `.extern .entry`,
 *   for a device-side launch): `MOV %rd, @k`, which code generation loads from a constant-bank-4 slot relocated
 *   with R_CUDA_FUNC_DESC_64 (the kernel's function descriptor, what the device runtime's launch wants).
 * - `call (r), %rd, (a, b), proto;` (or a `.calltargets` list): the callees are the address-taken functions
 *   whose parameters and results have the sizes of the call's (or the listed ones); the call becomes a chain
 *   of comparisons of %rd with each callee's number, each branching to a direct call of that callee, then
 *   to the join. An address that is none of them is undefined behaviour in PTX: the thread is killed (KILL, as
 *   `trap`) rather than jumping into the void. Relocatable compilations (-c) are refused with the construct named.
 */
export function lowerFunctionAddress(c: FnLowerer, dst: Operand, name: string, t: PtxType, move: (d: Operand, v: OriOperand) => void): void {
  if (t.bits !== 64) c.fail('PTX_SEMANTIC', `${c.opText}: the address of function '${name}' needs a 64-bit destination`);
  const entry = c.mod.entries?.has(name);
  if (entry) return move(dst, { kind: 'sym', name });
  const a = c.mod.functionAddresses?.get(name);
  if (a === undefined) {
    if (c.mod.relocatable) c.unsupported(`the address of device function '${name}' in a relocatable (-c) compilation`);
    c.unsupported(`the address of function '${name}' (declared without a body)`);
  }
  move(dst, imm(a));
}

type DirectCall = (c: FnLowerer, name: string, rets: Operand[], args: Operand[]) => void;

export function lowerIndirectCall(c: FnLowerer, rets: Operand[], target: Operand & { kind: 'name' }, args: Operand[], proto: Operand | undefined, directCall: DirectCall): void {
  if (c.mod.relocatable) c.unsupported('an indirect call in a relocatable (-c) compilation (its callee may be another object\'s)');
  if (c.guard) c.unsupported('a guarded indirect call');
  if (!proto || proto.kind !== 'name') c.fail('PTX_SEMANTIC', `${c.opText}: an indirect call needs a .callprototype or .calltargets operand`);
  const ps = c.lookup(proto.name);
  if (!ps || (ps.kind !== 'targets' && ps.kind !== 'calltargets')) c.fail('PTX_SEMANTIC', `${c.opText}: '${proto.name}' is no .callprototype or .calltargets`);
  const fsym = c.lookup(target.name);
  if (fsym?.kind !== 'reg' || fsym.type.bits !== 64 || fsym.vec) c.fail('PTX_SEMANTIC', `${c.opText}: the call target '${target.name}' must be a 64-bit register`);
  const ptr: Register = fsym.regs[0]!;
  const addresses = c.mod.functionAddresses ?? new Map<string, bigint>();
  const sizeOf = (o: Operand): number | undefined => {
    if (o.kind !== 'name') return undefined;
    const s = c.lookup(o.name);
    if (s?.kind === 'pvar') return s.bytes;
    if (s?.kind === 'reg') return s.type.bits / 8;
    return undefined;
  };
  const fits = (name: string): boolean => {
    const f = c.mod.funcs.get(name);
    if (!f || f.params.length !== args.length || f.returns.length !== rets.length) return false;
    return f.params.every((p, i) => sizeOf(args[i]!) === undefined || sizeOf(args[i]!) === p.bytes) && f.returns.every((p, i) => sizeOf(rets[i]!) === undefined || sizeOf(rets[i]!) === p.bytes);
  };
  let callees: string[];
  if (ps.kind === 'calltargets') {
    for (const n of ps.funcs) if (!c.mod.funcs.has(n)) c.fail('PTX_SEMANTIC', `${c.opText}: call target '${n}' is not a function`);
    callees = ps.funcs.filter((n) => addresses.has(n));
  } else callees = [...addresses.keys()].filter(fits);
  const join = c.freshLabel();
  const bodies = callees.map(() => c.freshLabel());
  callees.forEach((name, k) => {
    const p = c.tmpP('ISETP', ['EQ', 'U64', 'AND'], [reg(ptr), imm(addresses.get(name)!), PT]);
    c.guard = { reg: p, not: false };
    c.emit('BRA', [], [], [label(c.blockOf(bodies[k]!))]);
    c.guard = undefined;
  });
  // none of the candidates: undefined behaviour in PTX; stop the thread as `trap` does
  c.emit('KILL', [], [], []);
  callees.forEach((name, k) => {
    c.placeLabel(bodies[k]!, c.ins.pos);
    directCall(c, name, rets, args);
    c.emit('BRA', [], [], [label(c.blockOf(join))]);
  });
  c.placeLabel(join, c.ins.pos);
}
