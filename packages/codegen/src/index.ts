export * from './mir.js';
export { selectFunction, sharedLayout, type SelectOptions } from './isel.js';
export { legalize, toSass, encodes } from './lower.js';
export { machineSuccessors, liveIn, accessOf } from './liveness.js';
export { assignRegisters, type Assignment, type AssignOptions } from './assign.js';
export { emitFunction, type EmittedFunction, type EmitOptions } from './emit.js';
export { kernelCubin, type CompiledKernel } from './cubin-image.js';
export { compileFunction, generateCubin, type CodegenOptions, type CodegenResult, type KernelStats } from './generate.js';
export { compileToCubin, type CompileToCubinOptions, type CompileToCubinResult } from './compile.js';
