export { liftCubin, kernelParams, LiftError, type LiftedKernel, type LiftErrorCode } from './lift.js';
export { runCubin, type CubinRun } from './run.js';
