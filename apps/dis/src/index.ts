export * from './codec.js';
export * from './layout.js';
export * from './disassemble.js';
export { main } from './main.js';
export { registerFamilyCodecs } from './families.js';
export * from './hazards.js';
export * from './compare.js';
