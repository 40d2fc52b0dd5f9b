import type { PhaseContext } from './protocol.js';

/**
 * The 16 AdvancedPhase hook points (spec: "AdvancedPhase Hook Points"). Each is a pipeline slot whose
 * isNoOp() is true by default; targets and plugins fill them. The union and the table below are one map:
 * adding a name to HookName without a row in HOOK_POINTS (or the reverse) is a compile error.
 */
export type HookName =
  | 'AdvancedPhaseBeforeConvUnSup'
  | 'AdvancedPhaseAfterConvUnSup'
  | 'AdvancedPhaseEarlyEnforceArgs'
  | 'AdvancedPhaseLateConvUnSup'
  | 'AdvancedPhaseBackPropVReg'
  | 'AdvancedPhaseSetRegAttr'
  | 'AdvancedPhaseAfterSetRegAttr'
  | 'AdvancedPhasePreSched'
  | 'AdvancedPhaseAllocReg'
  | 'AdvancedPhasePostExpansion'
  | 'AdvancedPhasePostSched'
  | 'AdvancedPhasePostFixUp'
  | 'AdvancedScoreboardsAndOpexes'
  | 'AdvancedPhaseOriPhaseEncoding'
  | 'AdvancedPhaseAfterMidExpansion'
  | 'AdvancedPhaseLateExpandSyncInstructions';

export interface HookPoint {
  readonly index: number;
  readonly where: string;
}

export const HOOK_POINTS: { readonly [K in HookName]: HookPoint } = {
  AdvancedPhaseBeforeConvUnSup: { index: 4, where: 'Before unsupported-op conversion' },
  AdvancedPhaseAfterConvUnSup: { index: 7, where: 'After unsupported-op conversion' },
  AdvancedPhaseEarlyEnforceArgs: { index: 47, where: 'Before argument enforcement' },
  AdvancedPhaseLateConvUnSup: { index: 77, where: 'Late unsupported-op boundary' },
  AdvancedPhaseBackPropVReg: { index: 82, where: 'Before backward copy prop' },
  AdvancedPhaseSetRegAttr: { index: 89, where: 'Before register attr setting' },
  AdvancedPhaseAfterSetRegAttr: { index: 92, where: 'After register attr setting' },
  AdvancedPhasePreSched: { index: 97, where: 'Before scheduling' },
  AdvancedPhaseAllocReg: { index: 101, where: 'Register allocation driver' },
  AdvancedPhasePostExpansion: { index: 104, where: 'After post-RA expansion' },
  AdvancedPhasePostSched: { index: 106, where: 'After post-scheduling' },
  AdvancedPhasePostFixUp: { index: 111, where: 'After post-fixup' },
  AdvancedScoreboardsAndOpexes: { index: 115, where: 'Full scoreboard analysis' },
  AdvancedPhaseOriPhaseEncoding: { index: 127, where: 'Phase encoding hook' },
  AdvancedPhaseAfterMidExpansion: { index: 134, where: 'After mid-expansion' },
  AdvancedPhaseLateExpandSyncInstructions: { index: 135, where: 'Late sync expansion' },
};

export const HOOK_NAMES = Object.keys(HOOK_POINTS) as HookName[];

export function isHookName(s: string): s is HookName {
  return Object.prototype.hasOwnProperty.call(HOOK_POINTS, s);
}

/** A hook handler; `order` places it before ('pre') or after ('post') handlers without an order. */
export type HookFn = (ctx: PhaseContext) => void;
export interface HookHandlerSpec {
  readonly handler: HookFn;
  readonly order?: 'pre' | 'post';
}
export type HookHandler = HookFn | HookHandlerSpec;
/** What a plugin or target may give for hooks: any subset of the map, each typed from HookName. */
export type HookHandlers = { readonly [K in HookName]?: HookHandler };
