export * from './layout.js';
export * from './codec.js';
export { MAXWELL_ROWS } from './rows.js';
export * from './golden.js';
