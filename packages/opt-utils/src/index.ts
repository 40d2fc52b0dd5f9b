export * from './bitset.js';
export * from './liveness.js';
export * from './effects.js';
export * from './order.js';
export * from './loop-defs.js';
export * from './operands.js';
export * from './test-context.js';
export * from './fixpoint.js';
