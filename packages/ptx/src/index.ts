export * from './ast.js';
export { parsePtx } from './parser.js';
export { tokenize, Tk, type Tokens } from './lexer.js';
export { PTX_INSTRUCTIONS } from './ptx-opcodes.js';
export { lowerPtx, type LowerOptions } from './lower/module.js';
export { ptxFrontendPlugin, compilePtxToOri } from './plugin.js';
