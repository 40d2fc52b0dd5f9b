/**
 * The 159-phase default pipeline of ptxas 13.0.88 (spec: ptxas-optimization-pipeline.txt, "Complete Phase
 * Table"). Indices and names are the spec's. Phases 139..158 are target-specific slots whose names live only
 * in the per-target vtables; the spec does not give them, so they are named ArchSpecificPhase<N> here and a
 * target may fill them.
 *
 * `gate` is the opt-level gate (spec: "Optimization Level Gating" and the sub_7DDB50 guard in the
 * branch/switch spec): 'O2+' phases (branch/switch 14/15/30/38, loop passes and the four LICM instances)
 * run only above -O1; 'O1+' optimization phases are skipped at -O0; 'O0-only' is phase 116, the conservative
 * O0 wait insertion; 'always' phases (validation, legalization, reports, hooks) run at every level.
 * The gating of individual optimization phases at -O1 is our reading: the spec only says "most" are skipped
 * at -O0 via their isNoOp checks.
 */
export type PhaseGate = 'always' | 'O1+' | 'O2+' | 'O0-only';

export interface PhaseSlot {
  readonly index: number;
  readonly name: string;
  readonly category: string;
  readonly gate: PhaseGate;
}

const RAW: ReadonlyArray<readonly [number, string, string, PhaseGate]> = [
  [0, 'OriCheckInitialProgram', 'Validation', 'always'],
  [1, 'ApplyNvOptRecipes', 'Recipe application', 'always'],
  [2, 'PromoteFP16', 'Type promotion', 'O1+'],
  [3, 'AnalyzeControlFlow', 'CFG analysis', 'always'],
  [4, 'AdvancedPhaseBeforeConvUnSup', 'Hook', 'always'],
  [5, 'ConvertUnsupportedOps', 'Legalization', 'always'],
  [6, 'SetControlFlowOpLastInBB', 'CFG fixup', 'always'],
  [7, 'AdvancedPhaseAfterConvUnSup', 'Hook', 'always'],
  [8, 'OriCreateMacroInsts', 'Macro expansion', 'always'],
  [9, 'ReportInitialRepresentation', 'Diagnostics', 'always'],
  [10, 'EarlyOriSimpleLiveDead', 'Early DCE', 'O1+'],
  [11, 'ReplaceUniformsWithImm', 'Immediate folding', 'O1+'],
  [12, 'OriSanitize', 'IR validation', 'always'],
  [13, 'GeneralOptimizeEarly', 'Bundled early opts', 'O1+'],
  [14, 'DoSwitchOptFirst', 'Switch optimization', 'O2+'],
  [15, 'OriBranchOpt', 'Branch optimization', 'O2+'],
  [16, 'OriPerformLiveDeadFirst', 'Liveness/DCE', 'O1+'],
  [17, 'OptimizeBindlessHeaderLoads', 'Texture header opt', 'O1+'],
  [18, 'OriLoopSimplification', 'Loop canonicalization', 'O2+'],
  [19, 'OriSplitLiveRanges', 'Live range splitting', 'O1+'],
  [20, 'PerformPGO', 'Profile guided opt', 'O1+'],
  [21, 'OriStrengthReduce', 'Strength reduction', 'O2+'],
  [22, 'OriLoopUnrolling', 'Loop unrolling', 'O2+'],
  [23, 'GenerateMovPhi', 'SSA phi insertion', 'always'],
  [24, 'OriPipelining', 'Software pipelining', 'O2+'],
  [25, 'StageAndFence', 'Memory fence insertion', 'always'],
  [26, 'OriRemoveRedundantBarriers', 'Barrier elimination', 'O1+'],
  [27, 'AnalyzeUniformsForSpeculation', 'Uniform analysis', 'O1+'],
  [28, 'SinkRemat', 'Sink+rematerialization', 'O1+'],
  [29, 'GeneralOptimize', 'Bundled mid opts', 'O1+'],
  [30, 'DoSwitchOptSecond', 'Switch optimization 2nd', 'O2+'],
  [31, 'OriLinearReplacement', 'Linear scan replacement', 'O1+'],
  [32, 'CompactLocalMemory', 'Local memory compaction', 'O1+'],
  [33, 'OriPerformLiveDeadSecond', 'Liveness/DCE 2nd', 'O1+'],
  [34, 'ExtractShaderConstsFirst', 'Shader constant extraction', 'O1+'],
  [35, 'OriHoistInvariantsEarly', 'LICM early', 'O2+'],
  [36, 'EmitPSI', 'PSI emission', 'always'],
  [37, 'GeneralOptimizeMid', 'Bundled mid opts', 'O1+'],
  [38, 'OptimizeNestedCondBranches', 'Nested branch opt', 'O2+'],
  [39, 'ConvertVTGReadWrite', 'VTG read/write conversion', 'always'],
  [40, 'DoVirtualCTAExpansion', 'Virtual CTA expansion', 'always'],
  [41, 'MarkAdditionalColdBlocks', 'Cold block marking', 'O1+'],
  [42, 'ExpandMbarrier', 'Mbarrier expansion', 'always'],
  [43, 'ForwardProgress', 'Forward progress guarantee', 'always'],
  [44, 'OptimizeUniformAtomic', 'Uniform atomic opt', 'O1+'],
  [45, 'MidExpansion', 'Mid level legalization', 'always'],
  [46, 'GeneralOptimizeMid2', 'Bundled mid opts 2nd', 'O1+'],
  [47, 'AdvancedPhaseEarlyEnforceArgs', 'Hook', 'always'],
  [48, 'EnforceArgumentRestrictions', 'ABI enforcement', 'always'],
  [49, 'GvnCse', 'GVN+CSE', 'O1+'],
  [50, 'OriReassociateAndCommon', 'Reassociation+commoning', 'O1+'],
  [51, 'ExtractShaderConstsFinal', 'Shader constants final', 'O1+'],
  [52, 'OriReplaceEquivMultiDefMov', 'Redundant move elimination', 'O1+'],
  [53, 'OriPropagateVaryingFirst', 'Varying propagation', 'O1+'],
  [54, 'OriDoRematEarly', 'Early rematerialization', 'O1+'],
  [55, 'LateExpansion', 'Late legalization', 'always'],
  [56, 'SpeculativeHoistComInsts', 'Speculative hoisting', 'O1+'],
  [57, 'RemoveASTToDefaultValues', 'AST cleanup', 'always'],
  [58, 'GeneralOptimizeLate', 'Bundled late opts', 'O1+'],
  [59, 'OriLoopFusion', 'Loop fusion', 'O2+'],
  [60, 'DoVTGMultiViewExpansion', 'Multi view expansion', 'always'],
  [61, 'OriPerformLiveDeadThird', 'Liveness/DCE 3rd', 'O1+'],
  [62, 'OriRemoveRedundantMultiDefMov', 'Dead move elimination', 'O1+'],
  [63, 'OriDoPredication', 'If conversion', 'O1+'],
  [64, 'LateOriCommoning', 'Late commoning', 'O1+'],
  [65, 'GeneralOptimizeLate2', 'Bundled late opts 2nd', 'O1+'],
  [66, 'OriHoistInvariantsLate', 'LICM late', 'O2+'],
  [67, 'DoKillMovement', 'Kill movement', 'O1+'],
  [68, 'DoTexMovement', 'Texture movement', 'O1+'],
  [69, 'OriDoRemat', 'Rematerialization', 'O1+'],
  [70, 'OriPropagateVaryingSecond', 'Varying propagation 2nd', 'O1+'],
  [71, 'OptimizeSyncInstructions', 'Sync optimization', 'O1+'],
  [72, 'LateExpandSyncInstructions', 'Late sync expansion', 'always'],
  [73, 'ConvertAllMovPhiToMov', 'Phi destruction', 'always'],
  [74, 'ConvertToUniformReg', 'Uniform reg conversion', 'O1+'],
  [75, 'LateArchOptimizeFirst', 'Arch specific late opt', 'O1+'],
  [76, 'UpdateAfterOptimize', 'IR update pass', 'always'],
  [77, 'AdvancedPhaseLateConvUnSup', 'Hook', 'always'],
  [78, 'LateExpansionUnsupportedOps', 'Late unsupported ops', 'always'],
  [79, 'OriHoistInvariantsLate2', 'LICM late 2nd', 'O2+'],
  [80, 'ExpandJmxComputation', 'JMX expansion', 'always'],
  [81, 'LateArchOptimizeSecond', 'Arch specific late opt 2nd', 'O1+'],
  [82, 'AdvancedPhaseBackPropVReg', 'Hook', 'always'],
  [83, 'OriBackCopyPropagate', 'Backward copy propagation', 'O1+'],
  [84, 'OriPerformLiveDeadFourth', 'Liveness/DCE 4th', 'O1+'],
  [85, 'OriPropagateGmma', 'GMMA propagation', 'always'],
  [86, 'InsertPseudoUseDefForConvUR', 'UR pseudo use/def', 'always'],
  [87, 'FixupGmmaSequence', 'GMMA sequence fixup', 'always'],
  [88, 'OriHoistInvariantsLate3', 'LICM late 3rd', 'O2+'],
  [89, 'AdvancedPhaseSetRegAttr', 'Hook', 'always'],
  [90, 'OriSetRegisterAttr', 'Register attribute setting', 'always'],
  [91, 'OriCalcDependantTex', 'Texture dependency calc', 'always'],
  [92, 'AdvancedPhaseAfterSetRegAttr', 'Hook', 'always'],
  [93, 'LateExpansionUnsupportedOps2', 'Late unsupported ops 2nd', 'always'],
  [94, 'FinalInspectionPass', 'Final IR validation', 'always'],
  [95, 'SetAfterLegalization', 'Post legalization marker', 'always'],
  [96, 'ReportBeforeScheduling', 'Diagnostics', 'always'],
  [97, 'AdvancedPhasePreSched', 'Hook', 'always'],
  [98, 'BackPropagateVEC2D', 'Vector back propagation', 'always'],
  [99, 'OriDoSyncronization', 'Synchronization insertion', 'always'],
  [100, 'ApplyPostSyncronizationWars', 'Post sync WAR fixup', 'always'],
  [101, 'AdvancedPhaseAllocReg', 'Hook', 'always'],
  [102, 'ReportAfterRegisterAllocation', 'Diagnostics', 'always'],
  [103, 'Get64bRegComponents', '64 bit register splitting', 'always'],
  [104, 'AdvancedPhasePostExpansion', 'Hook', 'always'],
  [105, 'ApplyPostRegAllocWars', 'Post RA WAR fixup', 'always'],
  [106, 'AdvancedPhasePostSched', 'Hook', 'always'],
  [107, 'OriRemoveNopCode', 'NOP removal', 'always'],
  [108, 'OptimizeHotColdInLoop', 'Hot/cold in loops', 'O1+'],
  [109, 'OptimizeHotColdFlow', 'Hot/cold flow opt', 'O1+'],
  [110, 'PostSchedule', 'Post scheduling', 'always'],
  [111, 'AdvancedPhasePostFixUp', 'Hook', 'always'],
  [112, 'PlaceBlocksInSourceOrder', 'Block layout', 'always'],
  [113, 'PostFixForMercTargets', 'Mercury target fixup', 'always'],
  [114, 'FixUpTexDepBarAndSync', 'Texture barrier fixup', 'always'],
  [115, 'AdvancedScoreboardsAndOpexes', 'Scoreboard generation', 'O1+'],
  [116, 'ProcessO0WaitsAndSBs', 'O0 wait/scoreboard', 'O0-only'],
  [117, 'MercEncodeAndDecode', 'Mercury encode/decode', 'always'],
  [118, 'MercExpandInstructions', 'Instruction expansion', 'always'],
  [119, 'MercGenerateWARs1', 'WAR generation 1st', 'always'],
  [120, 'MercGenerateOpex', 'Opex generation', 'always'],
  [121, 'MercGenerateWARs2', 'WAR generation 2nd', 'always'],
  [122, 'MercGenerateSassUCode', 'SASS microcode generation', 'always'],
  [123, 'ComputeVCallRegUse', 'Virtual call reg use', 'always'],
  [124, 'CalcRegisterMap', 'Register map computation', 'always'],
  [125, 'UpdateAfterPostRegAlloc', 'Post RA update', 'always'],
  [126, 'ReportFinalMemoryUsage', 'Diagnostics', 'always'],
  [127, 'AdvancedPhaseOriPhaseEncoding', 'Hook', 'always'],
  [128, 'UpdateAfterFormatCodeList', 'Code list formatting', 'always'],
  [129, 'DumpNVuCodeText', 'SASS text dump', 'always'],
  [130, 'DumpNVuCodeHex', 'SASS hex dump', 'always'],
  [131, 'DebuggerBreak', 'Debugger breakpoint', 'always'],
  [132, 'UpdateAfterConvertUnsupportedOps', 'Post conversion update', 'always'],
  [133, 'MergeEquivalentConditionalFlow', 'Conditional flow merge', 'O2+'],
  [134, 'AdvancedPhaseAfterMidExpansion', 'Hook', 'always'],
  [135, 'AdvancedPhaseLateExpandSyncInstructions', 'Hook', 'always'],
  [136, 'LateMergeEquivalentConditionalFlow', 'Late conditional merge', 'O2+'],
  [137, 'LateExpansionUnsupportedOpsMid', 'Late unsupported mid', 'always'],
  [138, 'OriSplitHighPressureLiveRanges', 'High pressure splitting', 'always'],
  [139, 'ArchSpecificPhase139', 'Arch-specific fixup', 'always'],
  [140, 'ArchSpecificPhase140', 'Arch-specific fixup', 'always'],
  [141, 'ArchSpecificPhase141', 'Arch-specific fixup', 'always'],
  [142, 'ArchSpecificPhase142', 'Arch-specific fixup', 'always'],
  [143, 'ArchSpecificPhase143', 'Arch-specific fixup', 'always'],
  [144, 'ArchSpecificPhase144', 'Arch-specific fixup', 'always'],
  [145, 'ArchSpecificPhase145', 'Arch-specific fixup', 'always'],
  [146, 'ArchSpecificPhase146', 'Arch-specific fixup', 'always'],
  [147, 'ArchSpecificPhase147', 'Arch-specific fixup', 'always'],
  [148, 'ArchSpecificPhase148', 'Arch-specific fixup', 'always'],
  [149, 'ArchSpecificPhase149', 'Arch-specific fixup', 'always'],
  [150, 'ArchSpecificPhase150', 'Arch-specific fixup', 'always'],
  [151, 'ArchSpecificPhase151', 'Arch-specific fixup', 'always'],
  [152, 'ArchSpecificPhase152', 'Arch-specific fixup', 'always'],
  [153, 'ArchSpecificPhase153', 'Arch-specific fixup', 'always'],
  [154, 'ArchSpecificPhase154', 'Arch-specific fixup', 'always'],
  [155, 'ArchSpecificPhase155', 'Arch-specific fixup', 'always'],
  [156, 'ArchSpecificPhase156', 'Arch-specific fixup', 'always'],
  [157, 'ArchSpecificPhase157', 'Arch-specific fixup', 'always'],
  [158, 'ArchSpecificPhase158', 'Arch-specific fixup', 'always'],
];

export const PHASE_TABLE: readonly PhaseSlot[] = Object.freeze(
  RAW.map(([index, name, category, gate]) => Object.freeze({ index, name, category, gate })),
);

export const PHASE_COUNT = 159;

/** Spec name -> index, case-insensitive lookup (the NamedPhases resolver is case-insensitive too). */
const byLowerName = new Map(PHASE_TABLE.map((p) => [p.name.toLowerCase(), p.index] as const));
export function phaseIndexOf(name: string): number | undefined {
  return byLowerName.get(name.toLowerCase());
}

/** Whether a phase with this gate runs at the opt level. */
export function gateAllows(gate: PhaseGate, optLevel: number): boolean {
  switch (gate) {
    case 'always':
      return true;
    case 'O1+':
      return optLevel >= 1;
    case 'O2+':
      return optLevel > 1;
    case 'O0-only':
      return optLevel === 0;
  }
}
