export * from './bits.js';
export * from './control.js';
export * from './model.js';
export * from './text.js';
export * from './analyze.js';
export * from './engine.js';
export * from './codec.js';
export * from './golden.js';
