import { PtxforgeError } from '@ptxforge/kernel';

export type InterpErrorKind =
  | 'out-of-bounds'
  | 'misaligned'
  | 'undefined-register'
  | 'barrier-deadlock'
  | 'step-limit'
  | 'unsupported'
  | 'bad-branch-index'
  | 'bad-launch'
  | 'assertion'
  | 'mbarrier';

const CODES: Record<InterpErrorKind, string> = {
  'out-of-bounds': 'INTERP_OUT_OF_BOUNDS',
  misaligned: 'INTERP_MISALIGNED',
  'undefined-register': 'INTERP_UNDEFINED_REGISTER',
  'barrier-deadlock': 'INTERP_BARRIER_DEADLOCK',
  'step-limit': 'INTERP_STEP_LIMIT',
  unsupported: 'INTERP_UNSUPPORTED',
  'bad-branch-index': 'INTERP_BAD_BRANCH_INDEX',
  'bad-launch': 'INTERP_BAD_LAUNCH',
  assertion: 'INTERP_ASSERTION',
  mbarrier: 'INTERP_MBARRIER',
};

/** Where an error happened: the instruction (as Ori text) and the thread. */
export interface InterpErrorSite {
  fn?: string;
  block?: string;
  instr?: string;
  /** Source line of the instruction, when known. */
  line?: number;
  ctaid?: readonly [number, number, number];
  tid?: readonly [number, number, number];
}

/** A run-time error of the interpreted program: a report, never a crash. */
export class InterpError extends PtxforgeError {
  readonly kind: InterpErrorKind;
  readonly site: InterpErrorSite;
  readonly detail: string;

  constructor(kind: InterpErrorKind, detail: string, site: InterpErrorSite = {}) {
    super(CODES[kind], describe(detail, site));
    this.kind = kind;
    this.detail = detail;
    this.site = site;
  }

  toJSON(): object {
    return { code: this.code, kind: this.kind, message: this.message, ...this.site };
  }
}

function describe(detail: string, site: InterpErrorSite): string {
  const parts = [detail];
  if (site.instr) parts.push(`at \`${site.instr}\` in ${site.fn ?? '?'}:${site.block ?? '?'}${site.line ? ` (line ${site.line})` : ''}`);
  if (site.ctaid && site.tid) parts.push(`thread ctaid=(${site.ctaid.join(',')}) tid=(${site.tid.join(',')})`);
  return parts.join(', ');
}

/** Thrown inside an instruction's execution; the machine adds the site (instruction and thread). */
export class Trap extends Error {
  constructor(
    readonly kind: InterpErrorKind,
    readonly detail: string,
    /** Lane that caused it (-1: the warp as a whole). */
    readonly lane: number,
  ) {
    super(detail);
  }
}
