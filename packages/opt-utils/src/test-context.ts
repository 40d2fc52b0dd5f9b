import {
  AnalysisManager,
  assertValidModule,
  parseOri,
  printModule,
  PtxforgeError,
  type Diagnostic,
  type KnobDef,
  type OriModule,
  type PhaseContext,
  type PhaseImpl,
  type Remark,
  type ServiceToken,
  type TargetView,
} from '@ptxforge/kernel';

/** A Hopper-like target view for unit tests of phases (phases must ask capabilities, not SM numbers). */
export const TEST_TARGET: TargetView = Object.freeze({
  id: 'test',
  family: 'Test',
  arch: 'sm_90',
  sm: 90,
  capabilities: {
    uniformRegisters: true,
    convergenceBarriers: true,
    threeInputAlu: true,
    packedHalf: true,
    warpgroupMma: true,
    paramBase: 0x210,
    maxRegistersPerThread: 255,
    maxSharedPerBlock: 228 * 1024,
  },
});

export interface TestContextOptions {
  optLevel?: number;
  knobs?: readonly KnobDef[];
  knobValues?: Readonly<Record<string, boolean | number | string>>;
  disablePasses?: string;
  phaseName?: string;
  phaseIndex?: number;
  /** Services the context answers (`[[LatencyModel, model], ...]`); others are SERVICE_MISSING. */
  services?: ReadonlyArray<readonly [ServiceToken<any>, unknown]>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** IR properties that hold (`ctx.hasProperty`), e.g. ['ControlFlowLast']. */
  properties?: readonly string[];
}

/** A PhaseContext over a module without a toolchain (unit tests of single phases). */
export function makeTestContext(
  module: OriModule,
  o: TestContextOptions = {},
): PhaseContext & { readonly infos: string[]; readonly remarks: Remark[] } {
  const am = new AnalysisManager();
  const diags: Diagnostic[] = [];
  const infos: string[] = [];
  const remarks: Remark[] = [];
  const defs = new Map((o.knobs ?? []).map((k) => [k.name, k] as const));
  const services = new Map<symbol, unknown>((o.services ?? []).map(([t, v]) => [t.key, v] as const));
  const properties = new Set(o.properties ?? []);
  return {
    module,
    target: TEST_TARGET,
    optLevel: o.optLevel ?? 3,
    phase: { index: o.phaseIndex ?? 0, name: o.phaseName ?? 'Test' },
    phaseParam: undefined,
    knob: <T extends boolean | number | string>(name: string): T => {
      if (o.knobValues && name in o.knobValues) return o.knobValues[name] as T;
      const d = defs.get(name);
      if (!d) throw new Error(`unknown knob ${name} in test context`);
      return d.default as T;
    },
    analysis: (fn, a) => am.get(fn, a),
    invalidate: (fn, p = 'none') => am.invalidate(fn, p),
    isPassDisabled: (name) => !!o.disablePasses && o.disablePasses.toLowerCase().includes(name.toLowerCase()),
    diagnostics: { report: (d) => diags.push(d), all: diags },
    info: (m) => infos.push(m),
    remark: (r) => remarks.push({ ...r, phaseIndex: o.phaseIndex ?? 0, phase: o.phaseName ?? 'Test' }),
    service: <T>(token: ServiceToken<T>): T => {
      if (!services.has(token.key)) throw new PtxforgeError('SERVICE_MISSING', `no ${token.name} for ${TEST_TARGET.arch} in this test context; pass it in options.services`);
      return services.get(token.key) as T;
    },
    tryService: <T>(token: ServiceToken<T>): T | undefined => services.get(token.key) as T | undefined,
    hasProperty: (p: string) => properties.has(p),
    infos,
    remarks,
  };
}

/**
 * Parse Ori text, run a phase on it (verifying the IR before and after) and return the printed result.
 * The workhorse of before/after unit tests.
 */
export function runPhaseOnText(text: string, phase: PhaseImpl, o: TestContextOptions = {}): string {
  const m = parseOri(text);
  assertValidModule(m, 'test input');
  const ctx = makeTestContext(m, o);
  if (!phase.isNoOp?.(ctx)) phase.execute(ctx);
  assertValidModule(m, 'after the phase under test');
  return printModule(m);
}

/** Normalize Ori text for comparison: parse and print (so tests can write loosely formatted expectations). */
export function normalizeOri(text: string): string {
  return printModule(parseOri(text));
}
