import type { HookHandlers } from './pipeline/hooks.js';
import type { PhaseFactory } from './pipeline/protocol.js';

/** What the rest of the compiler may ask about hardware: passes ask here instead of testing SM numbers. */
export interface TargetCapabilities {
  /** Uniform datapath (UR/UP registers), sm_75+. */
  readonly uniformRegisters: boolean;
  /** BSSY/BSYNC convergence barriers (sm_70+); earlier targets use SSY/SYNC. */
  readonly convergenceBarriers: boolean;
  /** Three-input IADD3/LOP3 (sm_70+ on the SASS side; Maxwell/Pascal have IADD3 and LOP3 too). */
  readonly threeInputAlu: boolean;
  /** Hardware-supported f16x2 arithmetic. */
  readonly packedHalf: boolean;
  /** Warpgroup MMA (sm_90). */
  readonly warpgroupMma: boolean;
  /** Constant-bank offset of the first kernel parameter (c[0x0][paramBase]). */
  readonly paramBase: number;
  /** Architectural registers per thread. */
  readonly maxRegistersPerThread: number;
  /** Shared memory per CTA in bytes (default carve-out upper limit). */
  readonly maxSharedPerBlock: number;
}

/**
 * An SM target: the archs it answers (`sm_90`, `sm_90a` ...; no two installed targets may claim the same
 * one) and their capabilities. Everything else a backend brings (register file, latency model, slot-17
 * handler, encoder ...) is a service it provides for these archs (see services.ts).
 */
export interface TargetDescriptor {
  /** Short id, e.g. `sm90`. */
  readonly id: string;
  /** Marketing family, e.g. `Hopper`. */
  readonly family: string;
  readonly archs: readonly string[];
  /** Capabilities, or a function of the -arch when they differ between the archs it serves (sm_70 vs sm_75). */
  readonly capabilities: TargetCapabilities | ((arch: string) => TargetCapabilities);
  /** AdvancedPhase overrides. */
  readonly hooks?: HookHandlers;
  /** Target-specific phases for slots 139..158 (ArchSpecificPhase<N>), by slot name. */
  readonly phases?: Readonly<Record<string, PhaseFactory>>;
}

/** The read-only view of the selected target that phases get. */
export interface TargetView {
  readonly id: string;
  readonly family: string;
  /** The -arch the user asked for (e.g. `sm_90a`). */
  readonly arch: string;
  /** Numeric SM version of `arch` (90 for sm_90a). Reports only: passes ask capabilities. */
  readonly sm: number;
  readonly capabilities: TargetCapabilities;
}

/**
 * Every SM the project knows and the target package that serves it, so that an `-arch` whose package is
 * not installed gets "install @ptxforge/target-smNN" rather than "unknown arch".
 */
export const KNOWN_ARCHS: ReadonlyMap<string, string> = new Map([
  ...['sm_30', 'sm_32', 'sm_35', 'sm_37'].map((a) => [a, '@ptxforge/target-sm30'] as const),
  ...['sm_50', 'sm_52', 'sm_53'].map((a) => [a, '@ptxforge/target-sm50'] as const),
  ...['sm_60', 'sm_61', 'sm_62'].map((a) => [a, '@ptxforge/target-sm60'] as const),
  ...['sm_70', 'sm_72', 'sm_75'].map((a) => [a, '@ptxforge/target-sm70'] as const),
  ...['sm_80', 'sm_86', 'sm_87'].map((a) => [a, '@ptxforge/target-sm80'] as const),
  ...['sm_89'].map((a) => [a, '@ptxforge/target-sm89'] as const),
  ...['sm_90', 'sm_90a'].map((a) => [a, '@ptxforge/target-sm90'] as const),
]);

/**
 * Archs ptxas 13.0 accepts that no ptxforge target package encodes yet (their family): asking for one is an
 * honest TARGET_NOT_SUPPORTED rather than a Hopper backend pretending to be Blackwell.
 */
export const NOT_YET_SUPPORTED_ARCHS: ReadonlyMap<string, string> = new Map(
  ['sm_100', 'sm_100a', 'sm_100f', 'sm_101', 'sm_101a', 'sm_103', 'sm_103a', 'sm_103f', 'sm_110', 'sm_110a', 'sm_110f', 'sm_120', 'sm_120a', 'sm_120f', 'sm_121', 'sm_121a', 'sm_121f'].map(
    (a) => [a, 'Blackwell'] as const,
  ),
);

export function smNumber(arch: string): number | undefined {
  const m = /^sm_(\d+)[a-z]?$/.exec(arch);
  return m ? Number(m[1]) : undefined;
}

/** The capabilities of a target for one of its archs. */
export function capabilitiesFor(t: TargetDescriptor, arch: string): TargetCapabilities {
  return typeof t.capabilities === 'function' ? t.capabilities(arch) : t.capabilities;
}
