/**
 * The packages of the default ptxforge toolchain, in composition order: core phases, the PTX front end, the
 * SM targets, the optimization families. Pure data (no plugin is imported here), so a tool that loads
 * plugins lazily and skips packages that are not installed (the CLI) can take its list from the preset.
 */
export const PRESET_DEFAULT_PACKAGES: readonly string[] = Object.freeze([
  '@ptxforge/plugin-core',
  '@ptxforge/ptx',
  // Targets: each serves the archs it encodes (KNOWN_ARCHS in the kernel maps an arch to its package).
  '@ptxforge/target-sm30',
  '@ptxforge/target-sm50',
  '@ptxforge/target-sm60',
  '@ptxforge/target-sm70',
  '@ptxforge/target-sm80',
  '@ptxforge/target-sm89',
  '@ptxforge/target-sm90',
  // Scalar optimization families (issue #5).
  '@ptxforge/plugin-live-dead',
  '@ptxforge/plugin-general-optimize',
  '@ptxforge/plugin-copy-prop',
  '@ptxforge/plugin-movphi',
  '@ptxforge/plugin-strength-reduce',
  '@ptxforge/plugin-predication',
  '@ptxforge/plugin-gvn-cse',
  // Branch & switch (issue #13), cicc BranchFolding / TailMerge (issue #15).
  '@ptxforge/plugin-branch',
  '@ptxforge/plugin-branch-folding',
  // Loops (issue #14).
  '@ptxforge/plugin-loop',
  '@ptxforge/plugin-licm',
]);
