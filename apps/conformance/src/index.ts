export * from './harness.js';
export { main } from './main.js';
