#!/usr/bin/env node
// The `ptxforge-dis` command (bin); the logic is main() in main.ts.
import { main } from './main.js';

process.exitCode = main(process.argv.slice(2));
