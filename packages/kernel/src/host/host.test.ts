import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PtxforgeError } from '../errors.js';
import { Instr } from '../ir/core.js';
import { parseOri } from '../ir/parse.js';
import { defineKnob, parseKnobsFile } from '../knobs.js';
import type { PhaseContext } from '../pipeline/protocol.js';
import { PHASE_TABLE } from '../pipeline/table.js';
import { definePlugin } from '../plugin.js';
import type { TargetDescriptor } from '../target.js';
import { KERNEL_VERSION, PLUGIN_API } from '../version.js';
import { parseNamedPhases } from './named-phases.js';
import { createToolchain } from './toolchain.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const KERNEL = '^1.0.0';

const testTarget: TargetDescriptor = {
  id: 'smtest',
  family: 'Test',
  archs: ['sm_90'],
  capabilities: {
    uniformRegisters: true, convergenceBarriers: true, threeInputAlu: true, packedHalf: true, warpgroupMma: true,
    paramBase: 0x210, maxRegistersPerThread: 255, maxSharedPerBlock: 227 * 1024,
  },
};
const targetPlugin = definePlugin({ name: 'test-target', version: '1.0.0', api: KERNEL }, { targets: [testTarget] });

/** A plugin that records which phases ran, filling the given slots. */
function recorder(names: string[], log: string[], pluginName = 'recorder') {
  return definePlugin({ name: pluginName, version: '1.0.0', api: KERNEL }, () => ({
    phases: Object.fromEntries(names.map((n) => [n, () => ({ execute: (ctx: PhaseContext) => void log.push(`${ctx.phase.name}${ctx.phaseParam ? `=${ctx.phaseParam}` : ''}`) })])),
  }));
}
const unit = () => parseOri('.entry @k()\n{\nbb0:\n  EXIT\n}\n');
const SLOTS = ['OriCheckInitialProgram', 'AnalyzeControlFlow', 'OriBranchOpt', 'OriLoopUnrolling', 'GvnCse', 'ProcessO0WaitsAndSBs', 'FinalInspectionPass'];

describe('pipeline table', () => {
  it('has the 159 spec phases in order', () => {
    expect(PHASE_TABLE).toHaveLength(159);
    expect(PHASE_TABLE.map((p) => p.index)).toEqual([...Array(159).keys()]);
    expect(PHASE_TABLE[14]!.name).toBe('DoSwitchOptFirst');
    expect(PHASE_TABLE[63]!.name).toBe('OriDoPredication');
    expect(PHASE_TABLE[138]!.name).toBe('OriSplitHighPressureLiveRanges');
  });
  it('kernel version comes from package.json (generated package-meta), the plugin API is its own semver', () => {
    const pkg = JSON.parse(readFileSync(path.resolve(here, '../../package.json'), 'utf8')) as { version: string };
    expect(KERNEL_VERSION).toBe(pkg.version);
    expect(PLUGIN_API).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

describe('dispatch loop', () => {
  it('runs implemented phases in default order, gated by opt level', () => {
    const log: string[] = [];
    const tc = createToolchain({ plugins: [targetPlugin, recorder(SLOTS, log)] });
    const r = tc.compile(unit(), { arch: 'sm_90', optLevel: 3 });
    expect(log).toEqual(['OriCheckInitialProgram', 'AnalyzeControlFlow', 'OriBranchOpt', 'OriLoopUnrolling', 'GvnCse', 'FinalInspectionPass']);
    expect(r.phases.find((p) => p.name === 'ProcessO0WaitsAndSBs')?.skipped).toBe('opt-level');
    expect(r.phases.find((p) => p.name === 'PromoteFP16')?.skipped).toBe('placeholder');
  });

  it('-O1 skips the O2+ branch and loop phases, -O0 runs only always-phases and the O0 one', () => {
    const log1: string[] = [];
    createToolchain({ plugins: [targetPlugin, recorder(SLOTS, log1)] }).compile(unit(), { arch: 'sm_90', optLevel: 1 });
    expect(log1).toEqual(['OriCheckInitialProgram', 'AnalyzeControlFlow', 'GvnCse', 'FinalInspectionPass']);
    const log0: string[] = [];
    createToolchain({ plugins: [targetPlugin, recorder(SLOTS, log0)] }).compile(unit(), { arch: 'sm_90', optLevel: 0 });
    expect(log0).toEqual(['OriCheckInitialProgram', 'AnalyzeControlFlow', 'FinalInspectionPass', 'ProcessO0WaitsAndSBs']);
  });

  it('--named-phases replaces the order, with params, case-insensitive names and swaps', () => {
    const log: string[] = [];
    const tc = createToolchain({ plugins: [targetPlugin, recorder(SLOTS, log)] });
    tc.compile(unit(), { arch: 'sm_90', namedPhases: 'gvncse,OriLoopUnrolling=4,oribranchopt,swap1' });
    expect(log).toEqual(['OriLoopUnrolling=4', 'GvnCse', 'OriBranchOpt']);
  });

  it('shuffle is reproducible for a seed', () => {
    const order = (seed: number) => parseNamedPhases('GvnCse,OriBranchOpt,OriLoopUnrolling,AnalyzeControlFlow,FinalInspectionPass,shuffle', seed).map((s) => s.index);
    expect(order(7)).toEqual(order(7));
    expect([...order(7)].sort((a, b) => a - b)).toEqual([3, 15, 22, 49, 94]);
    expect(new Set([1, 2, 3, 4, 5, 6].map((s) => order(s).join())).size).toBeGreaterThan(1);
  });

  it('rejects unknown names and too many entries in named phases', () => {
    expect(() => parseNamedPhases('GvnCse,NoSuchPhase')).toThrow(expect.objectContaining({ code: 'NAMED_PHASES_UNKNOWN' }));
    expect(() => parseNamedPhases(Array(257).fill('GvnCse').join(','))).toThrow(expect.objectContaining({ code: 'NAMED_PHASES_TOO_MANY' }));
  });

  it('--disable-passes skips phases whose names occur in the string, case-insensitively', () => {
    const log: string[] = [];
    const r = createToolchain({ plugins: [targetPlugin, recorder(SLOTS, log)] }).compile(unit(), {
      arch: 'sm_90',
      disablePasses: 'oribranchopt,GVNCSE',
    });
    expect(log).toEqual(['OriCheckInitialProgram', 'AnalyzeControlFlow', 'OriLoopUnrolling', 'FinalInspectionPass']);
    expect(r.phases.filter((p) => p.skipped === 'disabled').map((p) => p.name)).toEqual(['OriBranchOpt', 'GvnCse']);
  });

  it('prints per-phase statistics and the summary', () => {
    const r = createToolchain({ plugins: [targetPlugin, recorder(SLOTS, [])] }).compile(unit(), { arch: 'sm_90', stats: true });
    expect(r.statLines[0]).toMatch(/^OriCheckInitialProgram :: \[Total \d+ KB \] \[Freeable \d+ KB \] \[Freeable Leaked 0 KB \] \(\d+%\) \[Time [\d.]+ ms \]$/);
    expect(r.statLines.at(-2)).toMatch(/^All Phases Summary :: /);
    expect(r.statLines.at(-1)).toMatch(/^\[Pool Consumption = \d+ KB\]$/);
  });

  it('hooks run in pre/normal/post order, target handlers included, and are no-ops when empty', () => {
    const log: string[] = [];
    const hooked = definePlugin({ name: 'hooks', version: '1.0.0', api: KERNEL }, {
      hooks: {
        AdvancedPhasePreSched: { handler: () => void log.push('post'), order: 'post' },
        AdvancedPhaseAllocReg: () => void log.push('alloc'),
      },
    });
    const early = definePlugin({ name: 'early', version: '1.0.0', api: KERNEL }, {
      hooks: { AdvancedPhasePreSched: { handler: () => void log.push('pre'), order: 'pre' } },
    });
    const tgt = definePlugin({ name: 'tgt', version: '1.0.0', api: KERNEL }, {
      targets: [{ ...testTarget, hooks: { AdvancedPhasePreSched: () => void log.push('target') } }],
    });
    const r = createToolchain({ plugins: [tgt, hooked, early] }).compile(unit(), { arch: 'sm_90' });
    expect(log).toEqual(['pre', 'target', 'post', 'alloc']);
    expect(r.phases.find((p) => p.name === 'AdvancedPhasePostSched')?.skipped).toBe('no-op');
  });

  it('wraps a failing hook with plugin and hook names', () => {
    const bad = definePlugin({ name: 'bad-hook', version: '1.0.0', api: KERNEL }, {
      hooks: { AdvancedPhasePreSched: () => { throw new Error('boom'); } },
    });
    expect(() => createToolchain({ plugins: [targetPlugin, bad] }).compile(unit(), { arch: 'sm_90' })).toThrow(
      expect.objectContaining({ code: 'HOOK_FAILED', plugin: 'bad-hook', message: expect.stringContaining('AdvancedPhasePreSched') }),
    );
  });

  it('instrumentation sees each executed phase and may not change the IR', () => {
    const seen: string[] = [];
    const tc = createToolchain({ plugins: [targetPlugin, recorder(['GvnCse', 'OriBranchOpt'], [])] });
    tc.compile(unit(), { arch: 'sm_90', instrumentation: [{ name: 'spy', afterPhase: (p, _m, res) => void seen.push(`${p.index}:${res.changed}`) }] });
    expect(seen).toEqual(['15:false', '49:false']);
    const meddler = { name: 'meddler', beforePhase: (_p: unknown, m: { functions: readonly { blocks: { insertAt(i: number, x: Instr): void }[] }[] }) => m.functions[0]!.blocks[0]!.insertAt(0, new Instr('NOP')) };
    expect(() => createToolchain({ plugins: [targetPlugin, recorder(['GvnCse'], [])] }).compile(unit(), { arch: 'sm_90', instrumentation: [meddler as never] })).toThrow(
      expect.objectContaining({ code: 'INSTRUMENTATION_MUTATED_IR' }),
    );
  });

  it('captures IR dumps after named phases', () => {
    const tc = createToolchain({ plugins: [targetPlugin, recorder(['GvnCse'], [])] });
    const r = tc.compile(unit(), { arch: 'sm_90', dumpIr: ['gvncse'] });
    expect(r.dumps.map((d) => d.phase)).toEqual(['GvnCse']);
    expect(r.dumps[0]!.text).toContain('EXIT');
  });
});

describe('plugin host validation', () => {
  it('refuses a plugin built for another plugin API, naming the plugin, its range and the host API', () => {
    const old = definePlugin({ name: 'old-plugin', version: '2.0.0', api: '^2.0.0' }, {});
    expect(() => createToolchain({ plugins: [old] })).toThrow(
      expect.objectContaining({
        code: 'KERNEL_VERSION_UNSUPPORTED',
        plugin: 'old-plugin',
        message: `plugin old-plugin@2.0.0 supports plugin API ^2.0.0, but this kernel implements plugin API ${PLUGIN_API}; install a version of old-plugin built for plugin API ${PLUGIN_API}`,
      }),
    );
    // Any release of the kernel package leaves the API alone: a plugin for ^1.0.0 loads whatever KERNEL_VERSION is.
    expect(() => createToolchain({ plugins: [definePlugin({ name: 'p', version: '0.0.1', api: `^${PLUGIN_API}` }, {})] })).not.toThrow();
  });
  it("explains the old 'kernel' key", () => {
    const legacy = definePlugin({ name: 'legacy', version: '1.0.0', kernel: '^0.1.0' } as never, {});
    expect(() => createToolchain({ plugins: [legacy] })).toThrow(
      expect.objectContaining({ code: 'PLUGIN_MANIFEST_UNKNOWN_KEY', message: expect.stringContaining("declare the plugin API range instead, e.g. api: '^1.0.0'") }),
    );
  });

  const cases: Array<[string, () => unknown, string]> = [
    ['unknown manifest key', () => definePlugin({ name: 'x', version: '1.0.0', api: KERNEL, colour: 'red' } as never, {}), 'PLUGIN_MANIFEST_UNKNOWN_KEY'],
    ['unknown contribution key', () => definePlugin({ name: 'x', version: '1.0.0', api: KERNEL }, { passes: {} } as never), 'PLUGIN_MANIFEST_UNKNOWN_KEY'],
    ['bad version', () => definePlugin({ name: 'x', version: 'one', api: KERNEL }, {}), 'PLUGIN_MANIFEST_INVALID'],
    ['unknown phase slot', () => definePlugin({ name: 'x', version: '1.0.0', api: KERNEL }, { phases: { OriMagic: () => ({ execute() {} }) } }), 'PHASE_UNKNOWN_SLOT'],
    ['hook given as phase', () => definePlugin({ name: 'x', version: '1.0.0', api: KERNEL }, { phases: { AdvancedPhasePreSched: () => ({ execute() {} }) } }), 'PHASE_SLOT_IS_HOOK'],
    ['unknown hook', () => definePlugin({ name: 'x', version: '1.0.0', api: KERNEL }, { hooks: { AdvancedPhaseMagic: () => {} } as never }), 'HOOK_UNKNOWN'],
    ['a target key that became a service', () => definePlugin({ name: 'x', version: '1.0.0', api: KERNEL }, { targets: [{ ...testTarget, pipeWidths: [1, 2] } as never] }), 'PLUGIN_MANIFEST_UNKNOWN_KEY'],
  ];
  for (const [what, make, code] of cases) {
    it(`rejects ${what} with ${code}`, () => {
      expect(() => createToolchain({ plugins: [make() as never] })).toThrow(expect.objectContaining({ code, plugin: 'x' }));
    });
  }

  it('refuses two plugins claiming one slot unless replace is set', () => {
    const a = recorder(['GvnCse'], [], 'a');
    const b = recorder(['GvnCse'], [], 'b');
    expect(() => createToolchain({ plugins: [a, b] })).toThrow(expect.objectContaining({ code: 'PHASE_SLOT_CONFLICT', plugin: 'b' }));
    const log: string[] = [];
    const c = definePlugin({ name: 'c', version: '1.0.0', api: KERNEL }, {
      phases: { GvnCse: { create: () => ({ execute: () => void log.push('c') }), replace: true } },
    });
    const tc = createToolchain({ plugins: [targetPlugin, a, c] });
    tc.compile(unit(), { arch: 'sm_90' });
    expect(log).toEqual(['c']);
    expect(tc.listPhases()[49]!.owner).toBe('c');
  });

  it('refuses knob name collisions and overlapping SM ranges', () => {
    const k = defineKnob({ name: 'SameKnob', type: 'int', default: 1, description: 'd' });
    const p1 = definePlugin({ name: 'p1', version: '1.0.0', api: KERNEL }, { knobs: [k] });
    const p2 = definePlugin({ name: 'p2', version: '1.0.0', api: KERNEL }, { knobs: [k] });
    expect(() => createToolchain({ plugins: [p1, p2] })).toThrow(expect.objectContaining({ code: 'KNOB_NAME_COLLISION', plugin: 'p2' }));
    const t2 = definePlugin({ name: 't2', version: '1.0.0', api: KERNEL }, { targets: [{ ...testTarget, id: 'other', archs: ['sm_89', 'sm_90'] }] });
    expect(() => createToolchain({ plugins: [targetPlugin, t2] })).toThrow(expect.objectContaining({ code: 'TARGET_ARCH_OVERLAP', plugin: 't2' }));
  });

  it('freezes after the first compile and says how to fix it', () => {
    const tc = createToolchain({ plugins: [targetPlugin] });
    tc.compile(unit(), { arch: 'sm_90' });
    expect(() => tc.use(recorder(['GvnCse'], []))).toThrow(/createToolchain\(\{ plugins: \[\.\.\.\] \}\)/);
  });

  it('names the package for a known arch that is not installed, and rejects unknown archs', () => {
    const tc = createToolchain({ plugins: [targetPlugin] });
    expect(() => tc.compile(unit(), { arch: 'sm_80' })).toThrow(expect.objectContaining({ code: 'TARGET_NOT_INSTALLED', message: expect.stringContaining('@ptxforge/target-sm80') }));
    expect(() => tc.compile(unit(), { arch: 'sm_12' })).toThrow(expect.objectContaining({ code: 'TARGET_UNKNOWN_ARCH' }));
    // The errors list what is installed.
    expect(() => tc.compile(unit(), { arch: 'sm_80' })).toThrow(expect.objectContaining({ message: expect.stringContaining('(installed: test-target: sm_90)') }));
  });

  it('Blackwell archs are an honest "not supported yet" unless a target claims them', () => {
    const tc = createToolchain({ plugins: [targetPlugin] });
    for (const arch of ['sm_100', 'sm_120a', 'sm_121']) {
      expect(() => tc.compile(unit(), { arch })).toThrow(
        expect.objectContaining({ code: 'TARGET_NOT_SUPPORTED', message: expect.stringContaining(`${arch} (Blackwell) is not supported yet`) }),
      );
    }
    const bw = definePlugin({ name: 'bw', version: '1.0.0', api: KERNEL }, { targets: [{ ...testTarget, id: 'bw', archs: ['sm_100'] }] });
    expect(() => createToolchain({ plugins: [bw] }).compile(unit(), { arch: 'sm_100' })).not.toThrow();
  });
});

describe('knobs', () => {
  const knobbed = definePlugin({ name: 'knobbed', version: '1.0.0', api: KERNEL }, {
    knobs: [
      defineKnob({ name: 'UnrollBudget', type: 'int', default: 16, description: 'budget' }),
      defineKnob({ name: 'UseFancy', type: 'bool', default: false, description: 'fancy' }),
      defineKnob({ name: 'Scale', type: 'double', default: 0.5, description: 'scale' }),
    ],
    phases: { GvnCse: () => ({ execute: (ctx) => ctx.info(`${ctx.knob('UnrollBudget')} ${ctx.knob('UseFancy')} ${ctx.knob('Scale')}`) }) },
  });
  it('reads defaults and typed overrides', () => {
    const tc = createToolchain({ plugins: [targetPlugin, knobbed] });
    expect(tc.compile(unit(), { arch: 'sm_90' }).info).toEqual(['16 false 0.5']);
    const tc2 = createToolchain({ plugins: [targetPlugin, knobbed] });
    expect(tc2.compile(unit(), { arch: 'sm_90', knobs: [{ name: 'UnrollBudget', value: '0x20' }, { name: 'UseFancy', value: 'on' }, { name: 'Scale', value: '1e-1' }] }).info).toEqual(['32 true 0.1']);
  });
  it('rejects unknown knobs and bad values with the expected type', () => {
    const tc = createToolchain({ plugins: [targetPlugin, knobbed] });
    expect(() => tc.compile(unit(), { arch: 'sm_90', knobs: [{ name: 'UnrollBudgt', value: '1' }] })).toThrow(
      expect.objectContaining({ code: 'KNOB_UNKNOWN', message: expect.stringContaining('did you mean UnrollBudget') }),
    );
    const tc2 = createToolchain({ plugins: [targetPlugin, knobbed] });
    expect(() => tc2.compile(unit(), { arch: 'sm_90', knobs: [{ name: 'UnrollBudget', value: 'lots' }] })).toThrow(
      expect.objectContaining({ code: 'KNOB_BAD_VALUE', message: expect.stringContaining('expects an int') }),
    );
  });
  it('checks knob ranges and enumerations, and plugin defaults against them (issue 16 row 12)', () => {
    const ranged = definePlugin({ name: 'ranged', version: '1.0.0', api: KERNEL }, {
      knobs: [
        defineKnob({ name: 'Rounds', type: 'int', default: 8, min: 0, max: 100, description: 'rounds' }),
        defineKnob({ name: 'Model', type: 'string', default: 'thread', choices: ['thread', 'issue'], description: 'model' }),
      ],
    });
    const compile = (name: string, value: string) => createToolchain({ plugins: [targetPlugin, ranged] }).compile(unit(), { arch: 'sm_90', knobs: [{ name, value, where: '--knob' }] });
    expect(() => compile('Rounds', '-5')).toThrow(expect.objectContaining({ code: 'KNOB_OUT_OF_RANGE', message: expect.stringContaining('at least 0') }));
    expect(() => compile('Rounds', '101')).toThrow(expect.objectContaining({ code: 'KNOB_OUT_OF_RANGE' }));
    expect(() => compile('Model', 'bogus')).toThrow(expect.objectContaining({ code: 'KNOB_BAD_VALUE', message: expect.stringContaining("'thread', 'issue'") }));
    expect(compile('Rounds', '100').info).toEqual([]);
    expect(compile('Model', 'issue').info).toEqual([]);
    const badDefault = definePlugin({ name: 'bad-default', version: '1.0.0', api: KERNEL }, {
      knobs: [defineKnob({ name: 'Budget', type: 'int', default: -1, min: 0, description: 'budget' })],
    });
    expect(() => createToolchain({ plugins: [targetPlugin, badDefault] })).toThrow(expect.objectContaining({ code: 'PLUGIN_MANIFEST_INVALID' }));
  });
  it('rejects --dump-ir of a phase that does not exist', () => {
    const tc = createToolchain({ plugins: [targetPlugin, knobbed] });
    expect(() => tc.compile(unit(), { arch: 'sm_90', dumpIr: ['NoSuchPhase'] })).toThrow(expect.objectContaining({ code: 'DUMP_IR_UNKNOWN_PHASE' }));
    expect(tc.compile(unit(), { arch: 'sm_90', dumpIr: ['gvncse'] }).dumps.length).toBe(1);
  });
  it('parses knobs files with a [knobs] section', () => {
    expect(parseKnobsFile('# c\n[knobs]\nUnrollBudget = 8  # eight\nUseFancy=true\n', 'k.ini')).toEqual([
      { name: 'UnrollBudget', value: '8', where: 'k.ini:3' },
      { name: 'UseFancy', value: 'true', where: 'k.ini:4' },
    ]);
    expect(() => parseKnobsFile('UnrollBudget = 8\n', 'k.ini')).toThrow(expect.objectContaining({ code: 'KNOBS_FILE_SECTION' }));
  });
});

void PtxforgeError;
