/**
 * The fuzz driver: generated programs through a toolchain's full pipeline with --verify-each, reporting the
 * seeds that fail (a mismatch after some phase, an interpreter error, or a crash).
 */
import { createToolchain, parseOri, type CompileOptions, type PluginEntry } from '@ptxforge/kernel';
import { runKernel } from '../launch.js';
import { createVerifyEachInstrumentation } from '../verify/verify-each.js';
import { generateProgram, type GenerateOptions } from './generate.js';

export interface FuzzOptions extends GenerateOptions {
  readonly count: number;
  /** First seed (seeds are seed, seed+1, ...); default 1. */
  readonly seed?: number;
  /** The plugins of the toolchain under test (the CLI's default set). */
  readonly plugins: readonly PluginEntry[];
  readonly arch?: string;
  readonly optLevel?: number;
  /** Knob settings for every compilation (PerformLoopFusion=1: exercise passes that are off by default). */
  readonly knobs?: CompileOptions['knobs'];
  /** Where verify-each writes IR of a failing phase (a subdirectory per seed). */
  readonly outDir?: string;
  /** Called after each program. */
  readonly onCase?: (r: FuzzCaseResult) => void;
}

export interface FuzzCaseResult {
  readonly seed: number;
  readonly ok: boolean;
  /** Why it failed: the verify-each message, the interpreter error, or the crash. */
  readonly message?: string;
  readonly phasesChecked?: number;
}

export interface FuzzSummary {
  readonly passed: number;
  readonly failed: readonly FuzzCaseResult[];
}

/** Run one seed. */
export function fuzzOne(seed: number, opts: Omit<FuzzOptions, 'count' | 'seed'>): FuzzCaseResult {
  try {
    const gen = generateProgram(seed, opts);
    const module = parseOri(gen.text, { file: `fuzz-${seed}.ori` });
    // The program itself must run cleanly (a generator bug otherwise).
    const ref = runKernel(module, gen.launch);
    if (!ref.ok) return { seed, ok: false, message: `generated program fails before any phase: ${ref.errors[0]!.message}` };
    const tc = createToolchain({ plugins: opts.plugins });
    const verify = createVerifyEachInstrumentation({
      launch: gen.launch,
      ...(opts.outDir ? { outDir: `${opts.outDir}/seed-${seed}` } : {}),
    });
    tc.compile(module, { arch: opts.arch ?? 'sm_90', optLevel: opts.optLevel ?? 3, instrumentation: [verify], ...(opts.knobs ? { knobs: opts.knobs } : {}) });
    return { seed, ok: true, phasesChecked: verify.report.phasesChecked };
  } catch (e) {
    const err = e as Error & { code?: string };
    return { seed, ok: false, message: err.code ? `${err.code}: ${err.message}` : `crash: ${err.stack ?? String(e)}` };
  }
}

export function runFuzz(opts: FuzzOptions): FuzzSummary {
  const first = opts.seed ?? 1;
  const failed: FuzzCaseResult[] = [];
  let passed = 0;
  for (let k = 0; k < opts.count; k++) {
    const r = fuzzOne(first + k, opts);
    if (r.ok) passed++;
    else failed.push(r);
    opts.onCase?.(r);
  }
  return { passed, failed };
}

/** The closing lines of `pnpm fuzz`: `N passed, M failed`, then the failing seeds. */
export function fuzzSummaryLines(s: FuzzSummary): string[] {
  const lines = [`${s.passed} passed, ${s.failed.length} failed`];
  if (s.failed.length) lines.push(`failing seeds: ${s.failed.map((f) => f.seed).join(' ')} (replay one with --seed N --count 1)`);
  return lines;
}
