export type { RegFile, RegRef, OperandKind, SassOperandView, ControlInfo, Guard, HazardInstr, HazardFunction } from './types.js';
export { decodeControl, encodeControl, formatControl, parseControl } from './control.js';
export { parseSassText, parseOperand, instrFromText, SassTextError, type ParsedSassText } from './listing.js';
export { instrRoles, type InstrRoles, type RegAccess } from './roles.js';
export {
  TURING, AMPERE, ADA, HOPPER, LATENCY_TABLES, latencyTableFor, rawLatency, opTiming, isKnownOpcode, UnknownArchError,
  type LatencyTable, type WriterClass, type ReaderClass, type VariableQueue, type OpTiming,
} from './latency.js';
export {
  checkHazards, prepareHazardCheck, type Hazard, type HazardKind, type HazardMissing, type HazardRecord, type CheckOptions, type CheckResult, type PreparedHazardCheck,
} from './check.js';
export { formatHazard, hazardSummaryLine } from './report.js';
export { hazardInstrFromSass, hazardInstrFromSassText, hazardFunctionFromCode, type WordsToFunctionResult } from './from-sass.js';
