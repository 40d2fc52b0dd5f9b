import type { OriFunction } from '@ptxforge/kernel';

/** Constant folding through the interpreter's pure semantics (filled in once packages/interp exports them). */
export function foldConstants(_fn: OriFunction): number {
  return 0;
}
