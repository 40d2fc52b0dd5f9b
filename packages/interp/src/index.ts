export * from './semantics/index.js';
