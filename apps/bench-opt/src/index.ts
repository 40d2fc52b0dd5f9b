export * from './kernels.js';
export * from './measure.js';
export * from './elf.js';
