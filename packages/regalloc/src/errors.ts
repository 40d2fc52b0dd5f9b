import { PtxforgeError } from '@ptxforge/kernel';

/**
 * Error codes of the allocator and schedulers:
 * - RA_BAD_INPUT: malformed abstract function (unknown vreg, class or successor, bad width or fixed register)
 * - RA_UNKNOWN_CLASS: a vreg's class is not in the target's register file
 * - RA_UNCOLORABLE: an instruction needs more registers of a class at once than the budget allows
 * - RA_NO_PROGRESS: spilling did not converge within `maxRounds`
 * - RA_SPILL_NEEDED: an allocation asked to be spill-free (`spillFree`) would spill
 * - SCHED_BAD_INPUT: malformed scheduling region
 */
export class RegallocError extends PtxforgeError {
  constructor(code: string, message: string) {
    super(code, message);
    this.name = 'RegallocError';
  }
}
