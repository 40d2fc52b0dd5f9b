import type { RegisterFile, RegisterClassName } from '@ptxforge/kernel';
import { RegallocError } from './errors.js';
import type { RaClassInfo, RegClass } from './types.js';

const BY_PREFIX: Readonly<Record<string, RegClass>> = { R: 'R', P: 'P', UR: 'UR', UP: 'UP', B: 'B' };
const BY_NAME: Readonly<Record<RegisterClassName, RegClass>> = { GPR: 'R', PRED: 'P', UGPR: 'UR', UPRED: 'UP', BARRIER: 'B' };

/** The allocator's class table from the target's RegisterFile service (counts, zero registers, alignment). */
export function classesFromRegisterFile(rf: RegisterFile): RaClassInfo[] {
  return rf.classes.map((c) => {
    const cls = BY_NAME[c.name] ?? BY_PREFIX[c.prefix];
    if (!cls) throw new RegallocError('RA_UNKNOWN_CLASS', `register class ${c.name} (${c.prefix}) has no allocator class`);
    return Object.freeze({ cls, count: c.count, ...(c.zero === undefined ? {} : { zero: c.zero }), alignment: c.alignment });
  });
}

/**
 * ptxas counts `Used N registers` as the highest R register + 1 plus 2 (measured with ptxas 13.0.88
 * -arch=sm_90 -v: kernels whose highest register is R5, R9, R13, R17, R21, R27 report 8, 12, 16, 20, 24, 30).
 * The two extra registers are ones ptxas keeps for itself per thread; `--maxrregcount N` caps that reported
 * number, so the allocator's R budget is N minus the same extra.
 */
export const PTXAS_REPORTED_EXTRA_GPRS = 2;

/** Registers ptxas reports for a function whose R registers are R0..R(used-1). */
export function ptxasReportedRegisters(usedGprs: number, extra = PTXAS_REPORTED_EXTRA_GPRS): number {
  return usedGprs + extra;
}

/** The allocator's R budget under `--maxrregcount n`. */
export function gprBudgetFromMaxRRegCount(n: number, extra = PTXAS_REPORTED_EXTRA_GPRS): number {
  if (!Number.isInteger(n) || n <= extra) throw new RegallocError('RA_BAD_INPUT', `--maxrregcount ${n} leaves no allocatable registers`);
  return n - extra;
}

/**
 * ptxas raises `--maxrregcount` below this to it, with a warning (measured: ptxas 13.0.88, sm_75 and sm_90:
 * "For profile sm_90 adjusting per thread register count of 16 to lower bound of 24").
 */
export const MAXRREGCOUNT_LOWER_BOUND = 24;

/** The `--maxrregcount` ptxas applies for a requested `n`, and its warning when it differs. */
export function effectiveMaxRRegCount(n: number, arch: string, lowerBound = MAXRREGCOUNT_LOWER_BOUND): { value: number; warning?: string } {
  if (n >= lowerBound) return { value: n };
  return { value: lowerBound, warning: `For profile ${arch} adjusting per thread register count of ${n} to lower bound of ${lowerBound}` };
}
