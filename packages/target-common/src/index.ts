import type { PipeWidths, Slot17Handler } from '@ptxforge/kernel';

/**
 * Slot-17 handlers (spec: branch/switch, "Phase 14 Vtable Slot 17 -- Per-SM Dispatch Resolution"). Several
 * backends share one handler (A: SM60, SM70, SM90+; B: SM80, SM89), so they live here once and the target
 * packages point at them.
 */

/** sub_661210 (`rep ret`): Kepler and Maxwell rely entirely on the generic phase 30 path. */
export const slot17NoOp: Slot17Handler = Object.freeze({
  name: 'NO-OP (sub_661210, rep ret)',
  status: 'noop',
});

/**
 * Handler A (sub_849110): sync-pattern restructuring, then a branch-target scan. Placeholder until the
 * branch/switch issue implements it; phase 14 is a no-op meanwhile and --list-phases says so.
 */
export const slot17HandlerA: Slot17Handler = Object.freeze({
  name: 'A: sync-pattern restructuring + branch scan (sub_849110)',
  status: 'placeholder',
});

/**
 * Handler B (sub_729160): per-instruction branch-distance classifier and rewriter that uses the shorter
 * branch encodings of Ampere/Ada. Placeholder until the branch/switch issue implements it.
 */
export const slot17HandlerB: Slot17Handler = Object.freeze({
  name: 'B: per-instruction branch-distance rewriter (sub_729160)',
  status: 'placeholder',
});

/**
 * Pipe widths (ALU FMA DFMA MMA LSU TEX BRA/SMEM). The spec gives sm_80's values (4 4 1 1 2 1 1); the other
 * generations use them too except where the FP64 rate differs (GP100 and GH100 run FP64 at 1:2).
 */
export const PIPE_WIDTHS_SM80: PipeWidths = [4, 4, 1, 1, 2, 1, 1];
export const PIPE_WIDTHS_FAST_FP64: PipeWidths = [4, 4, 2, 1, 2, 1, 1];
