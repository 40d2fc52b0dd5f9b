export * from './codec.js';
export * from './layout.js';
export * from './disassemble.js';
export { main } from './main.js';
export * from './hazards.js';
