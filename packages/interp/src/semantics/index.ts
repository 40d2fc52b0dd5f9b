// The opcode semantics moved to @ptxforge/semantics (shared with the optimizers); this subpath
// (`@ptxforge/interp/semantics`) re-exports it for existing importers.
export * from '@ptxforge/semantics';
