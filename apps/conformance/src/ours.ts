import { compileToCubin } from '@ptxforge/codegen';
import { archFor, type Harness } from './harness.js';
import type { CubinCompiler } from './sass.js';

/**
 * ptxforge's own PTX-to-cubin compiler for the `zluda-ours` suites: the toolchain's front end and pipeline, then
 * code generation (`compileToCubin` of @ptxforge/codegen). A file whose `.target` is newer than `arch` is
 * compiled for its own target, as the PTX path does.
 */
export function ourCompiler(h: Harness, optLevel = 3): CubinCompiler {
  return (file, text, arch) => compileToCubin(h.tc, text, { arch: archFor({ ...h, arch }, text), optLevel, file }).cubin;
}
