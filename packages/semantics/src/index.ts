export * from './bits.js';
export * from './round.js';
export * from './int.js';
export * from './float.js';
export * from './convert.js';
export * from './pure.js';
export * from './fp8.js';
