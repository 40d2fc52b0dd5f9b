export * from './errors.js';
export * from './elf.js';
export * from './arch.js';
export * from './nvinfo.js';
export * from './notes.js';
export * from './relocs.js';
export * from './read.js';
export * from './write.js';
