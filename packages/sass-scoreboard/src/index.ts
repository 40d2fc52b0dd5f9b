export { generateScoreboards, stallCycles, type ScoreboardOptions, type ScoreboardResult } from './generate.js';
