import { readCubin, type Cubin } from '@ptxforge/cubin';
import { runKernel, type Launch, type RunResult } from '@ptxforge/interp';
import { liftCubin, type LiftedKernel } from './lift.js';

export interface CubinRun {
  lifted: LiftedKernel;
  result: RunResult;
}

/** Lift the launch's kernel (or `kernel`, or the first entry) of a cubin and run it in the interpreter. */
export function runCubin(input: Cubin | Uint8Array, launch: Launch, kernel?: string): CubinRun {
  const cubin = input instanceof Uint8Array ? readCubin(input) : input;
  const lifted = liftCubin(cubin, kernel ?? launch.kernel);
  const result = runKernel(lifted.module, { ...launch, kernel: lifted.kernel }, { physicalRegisters: true, checkUndefined: false });
  return { lifted, result };
}
