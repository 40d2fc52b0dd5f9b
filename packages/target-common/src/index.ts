import {
  definePlugin, opcodeInfo, provide, LatencyModel, RegisterFile, Slot17Handler,
  type LatencyModel as LatencyModelT, type PipeName, type PipeWidths, type PluginDefinition, type RegisterClassInfo,
  type RegisterFile as RegisterFileT, type Slot17Handler as Slot17HandlerT, type TargetCapabilities, type TargetDescriptor,
  type VariableLatencyClass, type ServiceProvision, type MachineLatencyTable, type MachineOp,
} from '@ptxforge/kernel';
import { machineOpTiming, machineOperandLatency, machineRawLatency } from './machine-latency.js';

export * from './machine-latency.js';

/**
 * The one target factory: each targets/smNN package is a data table (`TargetTable`) handed to
 * `defineTarget`, which makes the target descriptor and the plugin that provides the per-arch services
 * (RegisterFile, LatencyModel, Slot17Handler). Passes never test SM numbers; they ask these services.
 */

// ---- slot 17 ------------------------------------------------------------------------------------------

/*
 * Slot-17 handlers (spec: branch/switch, "Phase 14 Vtable Slot 17 -- Per-SM Dispatch Resolution"). Several
 * backends share one handler (A: SM60, SM70, SM90+; B: SM80, SM89), so the code lives here once and each
 * target package provides the one its archs use as its Slot17Handler service.
 */

/** sub_661210 (`rep ret`): Kepler and Maxwell rely entirely on the generic phase 30 path. */
export const slot17NoOp: Slot17HandlerT = Object.freeze({
  name: 'NO-OP (sub_661210, rep ret)',
  status: 'noop' as const,
  run(): void {
    // Genuinely nothing to do on these targets (spec: branch/switch, slot 17 dispatch table).
  },
});

export { slot17HandlerA, runHandlerA, restructureSyncPatterns, branchTargetScan, type HandlerAStats } from './slot17/handler-a.js';
export * from './slot17/handler-b.js';
export * from './slot17/knobs.js';

// ---- pipe widths and latencies --------------------------------------------------------------------------

/**
 * Pipe widths (ALU FMA DFMA MMA LSU TEX BRA/SMEM). The spec gives sm_80's values (4 4 1 1 2 1 1); the other
 * generations use them too except where the FP64 rate differs (GP100 and GH100 run FP64 at 1:2).
 */
export const PIPE_WIDTHS_SM80: PipeWidths = [4, 4, 1, 1, 2, 1, 1];
export const PIPE_WIDTHS_FAST_FP64: PipeWidths = [4, 4, 2, 1, 2, 1, 1];

/**
 * Fixed latencies (cycles from issue until a dependent instruction may read the result) of a generation.
 * Published microbenchmarks (Jia et al., "Dissecting the NVIDIA Volta/Turing GPU Architecture via
 * Microbenchmarking") give about 4 cycles for ALU and FMA-pipe operations from Volta on, 6 on
 * Maxwell/Pascal and 9 on Kepler. FP64 is a fixed-latency pipe only on the full-rate FP64 parts; elsewhere
 * it goes through a narrow shared unit and is waited for by scoreboard.
 */
export interface FixedLatencies {
  readonly alu: number;
  readonly fma: number;
  readonly dfma: number | 'variable';
  readonly mma: number | 'variable';
}

interface OpcodeTiming {
  readonly pipe: PipeName | undefined;
  readonly latency: number | VariableLatencyClass;
}

/** Opcodes whose pipe or latency kind the Ori category does not tell (the rest follow the category). */
const OPCODE_PIPES: Readonly<Record<string, PipeName | 'SFU'>> = {
  IMAD: 'FMA', IMUL: 'FMA', FFMA: 'FMA', FADD: 'FMA', FMUL: 'FMA', HFMA2: 'FMA', HADD2: 'FMA', HMUL2: 'FMA',
  DFMA: 'DFMA', DADD: 'DFMA', DMUL: 'DFMA', DSETP: 'DFMA',
  HMMA: 'MMA', IMMA: 'MMA', DMMA: 'MMA', HGMMA: 'MMA', WGMMA: 'MMA',
  MUFU: 'SFU',
  LDC: 'BRA/SMEM', ULDC: 'BRA/SMEM', S2R: 'BRA/SMEM', CS2R: 'ALU', S2UR: 'BRA/SMEM',
};

/**
 * The LatencyModel of a target generation: data (pipe widths, fixed latencies, the SASS latency table of the arch)
 * behind the kernel interface. With a machine table, the ALU and FMA latencies are the table's (one source).
 */
export function createLatencyModel(pipeWidths: PipeWidths, fixedIn: FixedLatencies, machine?: MachineLatencyTable): LatencyModelT {
  const fixed: FixedLatencies = machine
    ? { ...fixedIn, alu: machineRawLatency(machine, 'alu', 'alu'), fma: machineRawLatency(machine, 'fma', 'fma') }
    : fixedIn;
  const cache = new Map<string, OpcodeTiming>();
  const timing = (opcode: string): OpcodeTiming => {
    let t = cache.get(opcode);
    if (!t) {
      t = classify(opcode, fixed);
      cache.set(opcode, t);
    }
    return t;
  };
  const machineMembers = machine
    ? {
        machine,
        machineTiming: (op: MachineOp) => machineOpTiming(machine, op),
        operandLatency: (writer: MachineOp, reader: MachineOp) => machineOperandLatency(machine, writer, reader),
      }
    : {};
  return Object.freeze({
    ...machineMembers,
    pipeWidths,
    pipe: (opcode: string) => timing(opcode).pipe,
    fixedLatency: (opcode: string) => {
      const l = timing(opcode).latency;
      return typeof l === 'number' ? l : undefined;
    },
    variableLatency: (opcode: string) => {
      const l = timing(opcode).latency;
      return typeof l === 'string' ? l : undefined;
    },
  });
}

function classify(opcode: string, fixed: FixedLatencies): OpcodeTiming {
  const explicit = OPCODE_PIPES[opcode];
  if (explicit === 'SFU') return { pipe: undefined, latency: 'transcendental' }; // XU: no column in the 7-entry table
  if (explicit === 'FMA') return { pipe: 'FMA', latency: fixed.fma };
  if (explicit === 'DFMA') return { pipe: 'DFMA', latency: fixed.dfma === 'variable' ? 'double' : fixed.dfma };
  if (explicit === 'MMA') return { pipe: 'MMA', latency: fixed.mma === 'variable' ? 'misc' : fixed.mma };
  if (explicit === 'BRA/SMEM') return { pipe: 'BRA/SMEM', latency: 'misc' };
  if (explicit === 'ALU') return { pipe: 'ALU', latency: fixed.alu };
  const info = opcodeInfo(opcode);
  switch (info?.category) {
    case 'int': case 'logic': case 'move': case 'convert':
      return { pipe: 'ALU', latency: info.category === 'convert' ? 'misc' : fixed.alu };
    case 'float':
      return { pipe: 'FMA', latency: fixed.fma };
    case 'memory': case 'atomic':
      return { pipe: 'LSU', latency: /S$/.test(opcode) ? 'shared' : 'memory' };
    case 'texture':
      return { pipe: 'TEX', latency: 'texture' };
    case 'warp':
      return { pipe: 'LSU', latency: 'misc' };
    case 'control': case 'sync':
      return { pipe: 'BRA/SMEM', latency: 'barrier' };
    case 'pseudo':
      return { pipe: undefined, latency: 0 };
    default:
      return { pipe: 'ALU', latency: 'misc' };
  }
}

// ---- register file --------------------------------------------------------------------------------------

const ALIGN = Object.freeze({ 2: 2, 4: 4 });

/**
 * The register file of an arch from its capabilities: R0..R(n-1) with RZ = 255, P0..P6 with PT = 7; from
 * sm_75 (uniform datapath) UR0..UR62 with URZ = 63 and UP0..UP6 with UPT = 7; from sm_70 (convergence
 * barriers) B0..B15. Multi-register values are aligned: pairs to even, quads to multiples of 4.
 */
export function registerFileFor(caps: TargetCapabilities): RegisterFileT {
  const classes: RegisterClassInfo[] = [
    { name: 'GPR', prefix: 'R', count: Math.min(caps.maxRegistersPerThread, 255), zero: 255, alignment: ALIGN },
    { name: 'PRED', prefix: 'P', count: 7, zero: 7, alignment: {} },
  ];
  if (caps.uniformRegisters) {
    classes.push({ name: 'UGPR', prefix: 'UR', count: 63, zero: 63, alignment: ALIGN });
    classes.push({ name: 'UPRED', prefix: 'UP', count: 7, zero: 7, alignment: {} });
  }
  if (caps.convergenceBarriers) classes.push({ name: 'BARRIER', prefix: 'B', count: 16, alignment: {} });
  return Object.freeze({ classes: Object.freeze(classes.map((c) => Object.freeze(c))) });
}

// ---- the factory ----------------------------------------------------------------------------------------

/** One target package's data. */
export interface TargetTable {
  /** The package's own name and version (its generated src/package-meta.ts). */
  readonly package: { readonly name: string; readonly version: string };
  readonly description: string;
  readonly id: string;
  readonly family: string;
  readonly archs: readonly string[];
  readonly capabilities: TargetCapabilities | ((arch: string) => TargetCapabilities);
  readonly pipeWidths: PipeWidths;
  readonly latencies: FixedLatencies;
  readonly slot17: Slot17HandlerT;
  /**
   * The SASS latency tables of the package's archs (each table names its archs; archs without one get a model
   * without `machine`).
   */
  readonly machineLatencies?: readonly MachineLatencyTable[];
  /** More per-arch services of the package (the Mercury Encoder/Decoder of its encoding family). */
  readonly services?: readonly ServiceProvision<unknown>[];
}

export interface DefinedTarget {
  readonly descriptor: TargetDescriptor;
  readonly plugin: PluginDefinition<void>;
  /** The LatencyModel of the first arch (the one of `latencyModelFor(arch)` for the others). */
  readonly latencyModel: LatencyModelT;
  latencyModelFor(arch: string): LatencyModelT;
}

/** The plugin API range (PLUGIN_API) the first-party targets are written against. */
export const TARGET_API_RANGE = '^1.0.0';

/** Make a target package's descriptor and plugin from its table. */
export function defineTarget(t: TargetTable): DefinedTarget {
  const descriptor: TargetDescriptor = Object.freeze({ id: t.id, family: t.family, archs: t.archs, capabilities: t.capabilities });
  const models = new Map<string, LatencyModelT>();
  const plain = createLatencyModel(t.pipeWidths, t.latencies);
  for (const table of t.machineLatencies ?? []) {
    const m = createLatencyModel(t.pipeWidths, t.latencies, table);
    for (const a of table.archs) if (t.archs.includes(a)) models.set(a, m);
  }
  const latencyModelFor = (arch: string): LatencyModelT => models.get(arch) ?? plain;
  const latencyModel = latencyModelFor(t.archs[0]!);
  const caps = (arch: string): TargetCapabilities => (typeof t.capabilities === 'function' ? t.capabilities(arch) : t.capabilities);
  const plugin = definePlugin(
    { name: t.package.name, version: t.package.version, api: TARGET_API_RANGE, description: t.description },
    {
      targets: [descriptor],
      services: [
        provide(LatencyModel, { archs: t.archs, useFactory: (env) => latencyModelFor(env.arch) }),
        provide(Slot17Handler, { archs: t.archs, useValue: t.slot17 }),
        provide(RegisterFile, { archs: t.archs, useFactory: (env) => registerFileFor(caps(env.arch)) }),
        ...(t.services ?? []),
      ],
    },
  );
  return { descriptor, plugin, latencyModel, latencyModelFor };
}
