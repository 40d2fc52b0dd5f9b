import type { PipeWidths, Slot17Handler } from '@ptxforge/kernel';

/**
 * Slot-17 handlers (spec: branch/switch, "Phase 14 Vtable Slot 17 -- Per-SM Dispatch Resolution"). Several
 * backends share one handler (A: SM60, SM70, SM90+; B: SM80, SM89), so the code lives here once and each
 * target package provides the one its archs use. Phase 14 never asks for SM numbers.
 */

/** sub_661210 (`rep ret`): Kepler and Maxwell rely entirely on the generic phase 30 path. */
export const slot17NoOp: Slot17Handler = Object.freeze({
  name: 'NO-OP (sub_661210, rep ret)',
  status: 'noop',
});

export { slot17HandlerA, runHandlerA, restructureSyncPatterns, branchTargetScan, type HandlerAStats } from './slot17/handler-a.js';
export * from './slot17/handler-b.js';
export * from './slot17/knobs.js';

/**
 * Pipe widths (ALU FMA DFMA MMA LSU TEX BRA/SMEM). The spec gives sm_80's values (4 4 1 1 2 1 1); the other
 * generations use them too except where the FP64 rate differs (GP100 and GH100 run FP64 at 1:2).
 */
export const PIPE_WIDTHS_SM80: PipeWidths = [4, 4, 1, 1, 2, 1, 1];
export const PIPE_WIDTHS_FAST_FP64: PipeWidths = [4, 4, 2, 1, 2, 1, 1];
