import type { PhaseContext, PhaseProperties } from './protocol.js';

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

/**
 * How a hook point runs its handlers (Rollup's hook kinds): `sequential` runs every handler, ordered by
 * `order: 'pre' | 'post'` and then plugin order; `exclusive` has exactly one owner per arch (the register
 * allocator, the scoreboard generator, the encoding hook): a second handler for an arch that already has
 * one is HOOK_EXCLUSIVE_CONFLICT naming both, unless one `replaces` the other by plugin name.
 */
export type HookKind = 'sequential' | 'exclusive';

export interface HookPoint {
  readonly index: number;
  readonly where: string;
  readonly kind: HookKind;
}

export const HOOK_POINTS: { readonly [K in HookName]: HookPoint } = {
  AdvancedPhaseBeforeConvUnSup: { index: 4, where: 'Before unsupported-op conversion', kind: 'sequential' },
  AdvancedPhaseAfterConvUnSup: { index: 7, where: 'After unsupported-op conversion', kind: 'sequential' },
  AdvancedPhaseEarlyEnforceArgs: { index: 47, where: 'Before argument enforcement', kind: 'sequential' },
  AdvancedPhaseLateConvUnSup: { index: 77, where: 'Late unsupported-op boundary', kind: 'sequential' },
  AdvancedPhaseBackPropVReg: { index: 82, where: 'Before backward copy prop', kind: 'sequential' },
  AdvancedPhaseSetRegAttr: { index: 89, where: 'Before register attr setting', kind: 'sequential' },
  AdvancedPhaseAfterSetRegAttr: { index: 92, where: 'After register attr setting', kind: 'sequential' },
  AdvancedPhasePreSched: { index: 97, where: 'Before scheduling', kind: 'sequential' },
  // Spec: "register allocation itself is entirely driven through this hook -- the base pipeline has no
  // hardcoded allocator": one allocator per arch.
  AdvancedPhaseAllocReg: { index: 101, where: 'Register allocation driver', kind: 'exclusive' },
  AdvancedPhasePostExpansion: { index: 104, where: 'After post-RA expansion', kind: 'sequential' },
  AdvancedPhasePostSched: { index: 106, where: 'After post-scheduling', kind: 'sequential' },
  AdvancedPhasePostFixUp: { index: 111, where: 'After post-fixup', kind: 'sequential' },
  // Spec: phase 115 runs "the full dependency analysis" that writes every control word: one generator.
  AdvancedScoreboardsAndOpexes: { index: 115, where: 'Full scoreboard analysis', kind: 'exclusive' },
  // The encoding hook turns Ori into machine words: two encoders for one arch cannot both run.
  AdvancedPhaseOriPhaseEncoding: { index: 127, where: 'Phase encoding hook', kind: 'exclusive' },
  AdvancedPhaseAfterMidExpansion: { index: 134, where: 'After mid-expansion', kind: 'sequential' },
  AdvancedPhaseLateExpandSyncInstructions: { index: 135, where: 'Late sync expansion', kind: 'sequential' },
};

export const HOOK_NAMES = Object.keys(HOOK_POINTS) as HookName[];

export function isHookName(s: string): s is HookName {
  return Object.prototype.hasOwnProperty.call(HOOK_POINTS, s);
}

/** The hook point at a pipeline index, if that slot is a hook. */
export function hookAt(index: number): HookName | undefined {
  return HOOK_BY_INDEX.get(index);
}
const HOOK_BY_INDEX: ReadonlyMap<number, HookName> = new Map(HOOK_NAMES.map((h) => [HOOK_POINTS[h].index, h]));

/**
 * The signature of each hook, from one map (Rollup's `FunctionPluginHooks`): a handler of hook K has type
 * `HookSignatures[K]`. Every AdvancedPhase hook is a pipeline slot and gets the phase context; a hook that
 * needs more arguments gets a new row here and the compiler checks every handler against it.
 */
export type HookSignatures = { readonly [K in HookName]: (ctx: PhaseContext) => void };
export type HookFn<K extends HookName = HookName> = HookSignatures[K];

/**
 * A hook handler with options:
 * - `order` places it before ('pre') or after ('post') handlers without an order (sequential hooks);
 * - `archs` limits it to some archs (default: every arch);
 * - `replaces` names plugins whose handler of this hook it takes over (for those archs), whatever order
 *   the plugins are registered in;
 * - `requires` / `establishes` / `invalidates`: IR properties (see IrProperty) the handler needs, makes true
 *   or makes false; the host checks the chain before it runs the pipeline.
 */
export interface HookHandlerSpec<K extends HookName = HookName> extends PhaseProperties {
  readonly handler: HookFn<K>;
  readonly order?: 'pre' | 'post';
  readonly archs?: readonly string[];
  readonly replaces?: string | readonly string[];
}
export type HookHandler<K extends HookName = HookName> = HookFn<K> | HookHandlerSpec<K>;
/** What a plugin or target may give for hooks: any subset of the map, each typed from HookName. */
export type HookHandlers = { readonly [K in HookName]?: HookHandler<K> };
