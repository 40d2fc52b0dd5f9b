export * from './semantics/index.js';
export { InterpError, type InterpErrorKind, type InterpErrorSite } from './interp/errors.js';
export { GLOBAL_BASE, SWINBASE, LWINBASE, WINDOW_SIZE } from './interp/memory.js';
export { DEFAULT_MAX_STEPS, type DynamicCounts, type OpcodeCount } from './interp/machine.js';
export * from './launch.js';
export * from './verify/verify-each.js';
export { generateLaunch, rng, GENERATED_BUFFER_BYTES } from './verify/inputs.js';
export { generateProgram, type GeneratedProgram, type GenerateOptions } from './fuzz/generate.js';
export { runFuzz, fuzzOne, fuzzSummaryLines, type FuzzOptions, type FuzzCaseResult, type FuzzSummary } from './fuzz/fuzz.js';
