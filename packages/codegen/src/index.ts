export * from './mir.js';
export { selectFunction, sharedLayout, type SelectOptions } from './isel.js';
export { legalize, toSass, encodes } from './lower.js';
export { machineSuccessors } from './liveness.js';
export { allocateMachineFunction, type Assignment, type AllocateOptions } from './regalloc.js';
export { emitFunction, type EmittedFunction, type EmitOptions } from './emit.js';
export { compileFunction, generateCubin, type CodegenOptions, type CodegenResult, type KernelStats } from './generate.js';
export { compileToCubin, cubinOfModule, type CompileToCubinOptions, type CompileToCubinResult } from './compile.js';
export { planModuleData, type ModuleData } from './data.js';
