// Generated from package.json by scripts/gen-package-meta.mjs (run by `build`); do not edit.
export const PACKAGE = { name: "@ptxforge/regalloc", version: "0.1.0" } as const;
