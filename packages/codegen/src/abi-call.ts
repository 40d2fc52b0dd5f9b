import type { Instr, OriFunction, Operand } from '@ptxforge/kernel';
import type { MOperand, MInstr, MGuard, VFile, VReg, VRegOperand } from './mir.js';

/**
 * Calls of functions outside the module (`vprintf`, `malloc`, `free`, `__assertfail`, which the driver
 * provides, and extern functions of a relocatable compilation) under the calling convention ptxas 13.0 uses
 * on Volta+ (learned from its sm_90 cubins of small printf / malloc / assert kernels and of a kernel keeping
 * 40 values live across an extern call):
 *
 * - arguments in consecutive registers from R4, a 64-bit argument in an even-aligned pair (`__assertfail`'s
 *   (b64, b64, b32, b64, b64) goes to R4:R5, R6:R7, R8, R10:R11, R12:R13); results the same way from R4;
 * - the callee's address from a constant bank 4 slot (`LDC.64 Rt, c[0x4][slot]`, an R_CUDA_64 relocation of
 *   `.nv.constant4` against the undefined FUNC symbol), the return address from `LEPC R20` right before
 *   `CALL.ABS.NOINC Rt` (emission adds it: nothing may come between the two);
 * - ptxas keeps values across such calls in R2, R16..R19, R22 and up, UR36 and up and B6: those the callee
 *   preserves. We treat R0, R2..R15 (arguments and scratch), R20:R21 (the return address), all predicates and
 *   B0..B5 as overwritten (R2 is kept by ptxas but we do not rely on it); nothing else.
 * - a kernel making such a call reports at least 24 registers (ptxas does for every one seen: the callee runs
 *   in the caller's allocation and may use R0..R23);
 * - the driver's own functions (vprintf, malloc, free, __assertfail) are "syscalls": their CALL offsets are
 *   listed in EIATTR_SYSCALL_OFFSETS; every extern callee is named in EIATTR_EXTERNS and `.nv.callgraph`.
 */
export const ABI_FIRST_ARG_REGISTER = 4;
/** Registers for arguments (and results): R4..R19 at most; beyond, ptxas passes parameters on the stack. */
export const ABI_LAST_ARG_REGISTER = 19;
export const ABI_RETURN_ADDRESS_REGISTER = 20;
export const ABI_MIN_REGISTERS = 24;
/** The global-memory descriptor's uniform pair in a function making ABI calls (callees preserve UR36 and up). */
export const ABI_DESC_UR = 36;
/** Extern functions the CUDA driver implements as system calls (ptxas 13.0 lists their CALLs in SYSCALL_OFFSETS). */
export const DRIVER_SYSCALLS: ReadonlySet<string> = new Set(['vprintf', 'malloc', 'free', '__assertfail']);

/** Physical registers an ABI call overwrites (besides its results, which are its defs). */
export function abiClobbers(results: ReadonlySet<number>): Array<{ file: VFile; n: number }> {
  const out: Array<{ file: VFile; n: number }> = [];
  for (let n = 0; n <= 15; n++) if (n !== 1 && !results.has(n)) out.push({ file: 'R', n });
  out.push({ file: 'R', n: ABI_RETURN_ADDRESS_REGISTER }, { file: 'R', n: ABI_RETURN_ADDRESS_REGISTER + 1 });
  for (let n = 0; n < 7; n++) out.push({ file: 'P', n });
  for (let n = 0; n < 6; n++) out.push({ file: 'B', n });
  return out;
}

/** What the selector offers the ABI call selection (isel.ts's Selector). */
export interface CallSelector {
  newV(file: VFile, width: 1 | 2 | 4, name?: string): VReg;
  /** A 32-bit register the convention fixes to R`n`. */
  newFixed(n: number, name: string): VReg;
  emit(opcode: string, mods: string[], ops: MOperand[], ndefs: number, guard?: MGuard): void;
  r(v: VReg, part?: number, span?: number): VRegOperand;
  part(o: Operand, part: number): MOperand;
  vOf(r: import('@ptxforge/kernel').Register): VReg;
  fail(why: string): never;
  /** The bank-4 slot holding `symbol`'s address (added to the module's address table). */
  externSlot(symbol: string): number;
  readonly current: MInstr[];
}

/** Widths (in 32-bit registers) of the call's arguments: the callee's declared parameters, else the operands. */
function argWidths(ins: Instr, callee: OriFunction | undefined): number[] {
  return ins.uses.slice(1).map((a, i) => {
    const p = callee?.params[i]?.reg;
    if (p) return p.width;
    if (a.kind === 'reg') return a.reg.width;
    if (a.kind === 'sym') return 2;
    return 1;
  });
}

/** Place values of these widths in consecutive registers from R4, pairs even-aligned. */
function place(widths: readonly number[], sel: CallSelector, what: string): number[] {
  let next = ABI_FIRST_ARG_REGISTER;
  return widths.map((w) => {
    if (w !== 1 && w !== 2) sel.fail(`${what} of ${w * 32} bits (passed on the parameter stack by ptxas)`);
    if (w === 2 && next % 2) next++;
    const at = next;
    next += w;
    if (next - 1 > ABI_LAST_ARG_REGISTER) sel.fail(`more ${what}s than fit in R4..R${ABI_LAST_ARG_REGISTER} (the parameter stack is not selected yet)`);
    return at;
  });
}

/**
 * Select `CALL @symbol, args` to a function without a body as the ABI call: arguments copied into fixed
 * registers, the address loaded from constant bank 4, `CALL.ABS.NOINC` (with its implicit argument/result
 * registers and clobbers for the allocator), then the results copied out of their fixed registers.
 */
export function selectExternCall(sel: CallSelector, ins: Instr, symbol: string, callee: OriFunction | undefined): void {
  const args = ins.uses.slice(1);
  const widths = argWidths(ins, callee);
  const argAt = place(widths, sel, 'argument');
  const resWidths = ins.defs.map((d) => (d.kind === 'reg' ? d.reg.width : 1));
  const resAt = place(resWidths, sel, 'result');
  const uses: VReg[] = [];
  args.forEach((a, i) => {
    for (let p = 0; p < widths[i]!; p++) {
      const v = sel.newFixed(argAt[i]! + p, `%abi.arg${i}.${p}`);
      const src: MOperand = a.kind === 'reg' && a.reg.width <= p ? { k: 'reg', file: 'R', n: 255 } : sel.part(a, p);
      sel.emit('MOV', [], [sel.r(v), src], 1, undefined);
      uses.push(v);
    }
  });
  const target = sel.newV('R', 2, `%abi.${symbol}`);
  sel.emit('LDC', ['64'], [sel.r(target, 0, 2), { k: 'cbank', bank: 4, off: 8 * sel.externSlot(symbol) }], 1, undefined);
  const defs: VReg[] = [];
  const results = new Set<number>();
  const outs: Array<{ dst: MOperand; v: VReg }> = [];
  ins.defs.forEach((d, i) => {
    for (let p = 0; p < resWidths[i]!; p++) {
      const v = sel.newFixed(resAt[i]! + p, `%abi.res${i}.${p}`);
      results.add(resAt[i]! + p);
      defs.push(v);
      if (d.kind === 'reg') outs.push({ dst: sel.r(sel.vOf(d.reg), p), v });
    }
  });
  sel.emit('CALL', ['ABS', 'NOINC'], [sel.r(target, 0, 2)], 0, undefined);
  const call = sel.current[sel.current.length - 1]!;
  call.abi = { callee: symbol, uses, defs, clobbers: abiClobbers(results) };
  for (const o of outs) sel.emit('MOV', [], [o.dst, sel.r(o.v)], 1, undefined);
}
