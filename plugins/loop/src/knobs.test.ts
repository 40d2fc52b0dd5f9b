import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LOOP_KNOBS } from './knobs.js';

/**
 * The spec's knob tables (ptxas-loop-passes.txt), transcribed: name, the default exactly as the spec prints
 * it, and the value we register for it. "unset" registers 0/false; "enabled"/"disabled" true/false.
 */
const SPEC: ReadonlyArray<readonly [name: string, specText: string, value: boolean | number | string]> = [
  // phase 18 (the table has no type column: name + default text)
  ['LoopInversion', 'enabled', true],
  ['LoopInversionBudget', 'unset', 0],
  ['LoopPeelInversion', 'disabled', false],
  ['EnableSingleThreadPeelingLoops', 'unset', false],
  ['GenPeelingLoopsForSyncs', 'unset', false],
  ['AssertIfPeelingLoopForTexSurf', 'unset', false],
  // phase 22
  ['LoopUnroll', 'BOOLtrue', true],
  ['LoopUnrollFactor', 'INT0', 0],
  ['UnrollBudget', 'INT140', 140],
  ['UnrollInstLimit', 'FLOAT20.0', 20],
  ['UnrollFullInstLimit', 'INT200', 200],
  ['UnrollFlexableFullLimit', 'FLOAT0.25', 0.25],
  ['UnrollSmallLoopLimit', 'INT4', 4],
  ['UnrollPregThreshold', 'INT50', 50],
  ['UnrollMultiBlockLoops', 'BOOLtrue', true],
  ['UnrollVariableBounds', 'BOOLtrue', true],
  ['UnrollUnknownCount', 'INT4', 4],
  ['UnrollUnknownInstLimit', 'INT0', 0],
  ['UnrollExtraInstPerPercentSaving', 'INT2', 2],
  ['UnrollTex3DPercentSavedThreshold', 'INT0', 0],
  ['UnrollProfiledColdInstsScale', 'INT0', 0],
  ['LoopUnrollExtraFoldableLdcWeight', 'INT0', 0],
  ['LoopUnrollFoldableAddrWeight', 'INT0', 0],
  ['LoopUnrollLargePartOfShaderPct', 'DOUBLE0.4', 0.4],
  ['LoopUnrollNumExtraInstBase', 'INT46', 46],
  ['LoopUnrollNumInstSmallLoop', 'INT0', 0],
  ['LoopUnrollNumInstTex', 'INT0', 0],
  ['LoopUnrollSingleLoopSavedPctFactor', 'INT0', 0],
  ['LoopUnrollNonInnermost', 'BOOLtrue', true],
  ['LoopUnrollUnknownMultiBlock', 'BOOLfalse', false],
  ['EpilogueLoopUnrollCount', 'INT0', 0],
  ['DisablePartialUnrollOverflowCheck', 'BOOLfalse', false],
  // phase 24
  ['GemmPipelinerEnabled', 'BOOLfalse', false],
  ['GemmPipelinerPipelineDepthEnforceDeltaFull', 'INT0', 0],
  ['GemmPipelinerPipelineDepthEnforceDeltaPartial', 'INT0', 0],
  ['GemmPipelinerDependenciesPopbl', 'BOOLfalse', false],
  ['GemmPipelinerScoreboardHashPopbl', 'BOOLfalse', false],
  ['GemmPipelinerUseRegisterCalculation', 'INT0', 0],
  ['OkToPipelineNoUnroll', 'INT0 (disabled)', 0],
  ['PipelineHoistCondLimit', 'INTunset', 0],
  ['PipelineHoistRRegPressureLimit', 'INTunset', 0],
  ['PipelineHoistPRegPressureLimit', 'INTunset', 0],
  ['PipelineMIOVQToInstRatio', 'DBLunset', 0],
  ['PipelineMultiOutputTex', 'INT0 (disabled)', 0],
  ['PipelineSpecUsesInHeadOnly', 'INT0 (disabled)', 0],
  // phase 59
  ['PerformLoopFusion', 'INT0 (disabled)', 0],
  ['PerformLoopFusionBudget', 'FLOATunset', 0],
];

const SPEC_FILE = fileURLToPath(new URL('../../../../shared/spec/ptxas-loop-passes.txt', import.meta.url));

describe('loop-family knob defaults', () => {
  const byName = new Map(LOOP_KNOBS.map((k) => [k.name, k] as const));
  it.each(SPEC)('%s defaults to the spec value (%s)', (name, _text, value) => {
    const k = byName.get(name);
    expect(k, `knob ${name} registered`).toBeDefined();
    if (typeof value === 'number' && k!.type === 'float') expect(k!.default).toBeCloseTo(value, 6);
    else expect(k!.default).toBe(value);
  });
  it('registers every row of the spec tables, each once', () => {
    expect(new Set(LOOP_KNOBS.map((k) => k.name)).size).toBe(LOOP_KNOBS.length);
    for (const [name] of SPEC) expect(byName.has(name), name).toBe(true);
  });
  it('registers beyond the spec tables only the documented extensions, with their defaults', () => {
    const spec = new Set(SPEC.map(([name]) => name));
    const extra = LOOP_KNOBS.filter((k) => !spec.has(k.name)).map((k) => [k.name, k.default] as const);
    expect(extra).toEqual([
      ['LoopMakeSingleEntry', true], // phase 18's master enable (OCG knob 487), named in the spec's text, not its table
      ['LoopUnrollBlockOverride', ''], // knob 427, unnamed in the spec
      // ptxas's measured full-unroll rule (unroll.ts measuredFullUnroll; plugins/loop/scripts/ptxas-unroll-experiments.mjs)
      ['UnrollFullSizeTimesIterLimit', 24000],
      ['UnrollFullMaxSize', 8192],
      // phase 24's profitability gate (pipelining.ts findSchedule)
      ['PipelineRRegPressureLimit', 32],
      ['PipelineExtraInstLimit', 256],
    ]);
  });
  describe.skipIf(!existsSync(SPEC_FILE))('against ../shared/spec/ptxas-loop-passes.txt (skipped: spec not present)', () => {
    it('each transcribed row appears in the spec as name + type + default', () => {
      const text = existsSync(SPEC_FILE) ? readFileSync(SPEC_FILE, 'utf8') : '';
      for (const [name, specText] of SPEC) expect(text.includes(`\n${name}${specText}`), `${name}${specText}`).toBe(true);
    });
  });
});
