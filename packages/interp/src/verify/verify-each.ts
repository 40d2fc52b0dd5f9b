/**
 * --verify-each: an Instrumentation around the phase dispatch loop. Before the first phase it runs every
 * kernel of the unit on fixed inputs (a launch description, or inputs generated from a seed) and keeps the
 * final memory; after each phase that ran it checks the IR: a changed one (or one whose text differs
 * although it reported no change) runs again and compares all observable memory
 * (every launch buffer and every `.global` variable). The first difference stops the compilation with a
 * VERIFY_EACH_MISMATCH error naming the phase, the kernel, the first differing address and both values,
 * and (with `outDir`) the IR before and after that phase is written to files.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { printFunction, printModule, PtxforgeError, type Instrumentation, type OriFunction, type OriModule, type PhaseInfo } from '@ptxforge/kernel';
import { readElement, runKernel, typeSize, type Launch, type RunResult, type ScalarType } from '../launch.js';
import type { InterpError } from '../interp/errors.js';
import { COMPACT_LAUNCH_PROFILE, DEFAULT_LAUNCH_PROFILE, generateLaunch } from './inputs.js';

export interface VerifyEachOptions {
  /** Inputs for the kernel it names (or the first kernel). Kernels without a launch get generated inputs. */
  readonly launch?: Launch;
  /** Seed for generated inputs (default 1). */
  readonly seed?: number;
  /** Directory for `<phase>.before.ori` / `.after.ori` on a mismatch (created when needed). */
  readonly outDir?: string;
  /** Thread-instruction budget per run (default 20 million). */
  readonly maxSteps?: number;
}

export interface VerifyMismatch {
  readonly phase: PhaseInfo;
  readonly kernel: string;
  readonly buffer?: string;
  readonly address?: number;
  readonly before?: string;
  readonly after?: string;
  readonly message: string;
  readonly files?: { before: string; after: string };
}

export interface VerifyEachReport {
  /**
   * Kernels whose every launch trips a device-side assertion (`assert(i < n)` against generated scalars): checked by
   * re-running that launch after each phase and requiring the same assertion (the memory a trapped launch leaves
   * depends on where it stopped, so it is not compared).
   */
  readonly assertions: Array<{ kernel: string; assertion: string }>;
  /** Phases after which the program was re-run and compared. */
  phasesChecked: number;
  runs: number;
  /**
   * Kernels not verified because the run before the first phase already failed, with the reason (the first
   * launch's) and, when the compact launch was tried too, why that one failed.
   */
  readonly skipped: Array<{ kernel: string; reason: string; retry?: string }>;
  mismatch: VerifyMismatch | undefined;
}

export interface VerifyEachInstrumentation extends Instrumentation {
  readonly report: VerifyEachReport;
}

interface Reference {
  readonly kernel: string;
  readonly launch: Launch;
  readonly result: RunResult;
  /** The device-side assertion every launch tripped: the program's outcome to keep (memory is not compared). */
  readonly assertion?: string;
}

const DEFAULT_STEPS = 20_000_000;
/** The compact retry's budget is the default budget divided by this (the compact block has 1/8 of the threads). */
export const COMPACT_STEP_DIVISOR = 8;

/**
 * Whether another launch may run where this error stopped one: out-of-bounds accesses, runaway loops, traps and
 * deadlocks depend on the sizes, scalars and block shape; an unsupported operation (device malloc without a heap,
 * the device runtime, an instruction the interpreter has no meaning for) or a malformed launch does not.
 */
function launchMayMatter(e: InterpError): boolean {
  return e.kind !== 'unsupported' && e.kind !== 'bad-launch';
}

/**
 * The module as text in parts: everything outside the functions (target, files, variables), and each function.
 * A kernel's run depends on its own function, the non-entry functions it may call and the module's data: when
 * only some kernels' texts changed, only those are run again (a module of 200 kernels where a phase rewrote
 * three costs three runs, not 200).
 */
interface ModuleText {
  /** printModule's text of the module without its functions. */
  readonly shell: string;
  readonly outside: string;
  readonly fns: ReadonlyMap<OriFunction, string>;
}

function moduleText(m: OriModule): ModuleText {
  const fns = new Map<OriFunction, string>();
  const names: string[] = [];
  for (const fn of m.functions) {
    fns.set(fn, printFunction(fn));
    names.push(`${fn.kind} ${fn.name}`);
  }
  const shell = Object.assign(Object.create(Object.getPrototypeOf(m) as object) as OriModule, { target: m.target, vars: m.vars, files: m.files, functions: [] });
  const shellText = printModule(shell);
  return { shell: shellText, outside: `${shellText}\n${names.join('\n')}`, fns };
}

/** The kernels whose behaviour may differ between two texts of the module (all of them unless only kernels changed). */
function kernelsToRerun(before: ModuleText, after: ModuleText): Set<OriFunction> | 'all' | 'none' {
  if (before.outside !== after.outside) return 'all';
  const changed = new Set<OriFunction>();
  for (const [fn, text] of after.fns) {
    if (before.fns.get(fn) === text) continue;
    if (fn.kind !== 'entry') return 'all';
    changed.add(fn);
  }
  return changed.size ? changed : 'none';
}

export function createVerifyEachInstrumentation(opts: VerifyEachOptions = {}): VerifyEachInstrumentation {
  const report: VerifyEachReport = { phasesChecked: 0, runs: 0, skipped: [], assertions: [], mismatch: undefined };
  let refs: Reference[] = [];
  let lastGood: ModuleText | undefined;

  /**
   * The launches to try for a kernel, in order: the given one, else the generated default, then the compact one.
   * The compact launch (one block of at most 32 threads) gets its own budget, a fraction of the default's: a
   * kernel it can run finishes well within it, and a kernel that loops past it would cost a second full budget.
   */
  const launchesFor = (m: OriModule, fn: OriFunction, k: number): Array<() => Launch> => {
    const maxSteps = opts.maxSteps ?? DEFAULT_STEPS;
    const named = opts.launch?.kernel;
    if (opts.launch && (named === fn.name || (named === undefined && k === 0))) return [() => ({ maxSteps, ...opts.launch, kernel: fn.name })];
    const seed = opts.seed ?? 1;
    return [
      () => ({ ...generateLaunch(m, fn, seed, DEFAULT_LAUNCH_PROFILE), maxSteps }),
      () => ({ ...generateLaunch(m, fn, seed, COMPACT_LAUNCH_PROFILE), maxSteps: Math.max(1, Math.floor(maxSteps / COMPACT_STEP_DIVISOR)) }),
    ];
  };

  return {
    name: 'verify-each',
    report,
    beforePipeline(module) {
      const m = module as OriModule;
      refs = [];
      const entries = m.functions.filter((f) => f.kind === 'entry');
      entries.forEach((fn, k) => {
        // a generated launch the kernel cannot run (out of bounds, over the step budget) is retried compact; the
        // kernel is skipped, with the first launch's reason, only when no launch runs
        let firstReason: string | undefined;
        let retry: string | undefined;
        let tripped: Reference | undefined;
        for (const make of launchesFor(m, fn, k)) {
          const launch = make();
          const result = runKernel(m, launch);
          report.runs++;
          if (result.ok) {
            refs.push({ kernel: fn.name, launch, result });
            return;
          }
          // the last (smallest) launch that trips an assertion is the reference if none runs to the end
          const e = result.errors[0]!;
          if (e.kind === 'assertion') tripped = { kernel: fn.name, launch, result, assertion: e.detail };
          if (firstReason === undefined) firstReason = result.errors[0]!.message;
          else retry = result.errors[0]!.message;
          // what no launch shape changes (a device-runtime call, an instruction without semantics) ends the tries
          if (!launchMayMatter(result.errors[0]!)) break;
        }
        if (tripped) {
          refs.push(tripped);
          report.assertions.push({ kernel: fn.name, assertion: tripped.assertion! });
          return;
        }
        report.skipped.push({ kernel: fn.name, reason: firstReason!, ...(retry === undefined ? {} : { retry }) });
      });
      lastGood = moduleText(m);
    },
    afterPhase(phase, module, result) {
      if (!refs.length) return;
      const m = module as OriModule;
      // Every phase that ran is checked, not only those whose IR version moved: a phase that reports no
      // change must print to the same text (an edit behind the mutation API would escape the version
      // counter); if it does not, it is run and compared like a changed one. Only the kernels whose text
      // (or whose callees' or module data's text) changed are run again: the others run the same code.
      report.phasesChecked++;
      void result;
      const text = moduleText(m);
      const rerun = lastGood ? kernelsToRerun(lastGood, text) : 'all';
      if (rerun === 'none') return;
      const byName = new Map<string, OriFunction>();
      if (rerun !== 'all') for (const fn of rerun) byName.set(fn.name, fn);
      for (const ref of refs) {
        if (rerun !== 'all' && !byName.has(ref.kernel)) continue;
        const now = runKernel(m, ref.launch);
        report.runs++;
        const diff = ref.assertion === undefined ? compare(ref.result, now) : compareAssertion(ref.assertion, now);
        if (!diff) continue;
        const afterText = printModule(m);
        let files: { before: string; after: string } | undefined;
        if (opts.outDir) {
          mkdirSync(opts.outDir, { recursive: true });
          const stem = `phase${String(phase.index).padStart(3, '0')}-${phase.name}`;
          files = { before: path.join(opts.outDir, `${stem}.before.ori`), after: path.join(opts.outDir, `${stem}.after.ori`) };
          writeFileSync(files.before, lastGood ? beforeText(lastGood, m) : '');
          writeFileSync(files.after, afterText);
        }
        const where = files ? `; IR before and after the phase written to ${files.before} and ${files.after}` : '';
        const message = `phase ${phase.index} ${phase.name} (${phase.owner}) changed the behaviour of kernel @${ref.kernel}: ${diff.text}${where}`;
        report.mismatch = { phase, kernel: ref.kernel, ...diff.at, message, files };
        throw new PtxforgeError('VERIFY_EACH_MISMATCH', message, { plugin: phase.owner });
      }
      lastGood = text;
    },
  };
}

/** The module's text before the phase (as printModule writes it), from the last verified parts. */
function beforeText(t: ModuleText, m: OriModule): string {
  const out: string[] = t.shell === '\n' ? [] : [t.shell.slice(0, -1)];
  for (const fn of m.functions) {
    const text = t.fns.get(fn);
    if (text === undefined) continue;
    if (out.length) out.push('');
    out.push(text);
  }
  return `${out.join('\n')}\n`;
}

interface Diff {
  readonly text: string;
  readonly at: { buffer?: string; address?: number; before?: string; after?: string };
}

function hexWord(bytes: Uint8Array, at: number, size: number): string {
  let s = '';
  for (let k = size - 1; k >= 0; k--) s += (bytes[at + k] ?? 0).toString(16).padStart(2, '0');
  return `0x${s}`;
}

/** A launch that tripped an assertion must trip the same one (where the run stopped may move). */
function compareAssertion(assertion: string, after: RunResult): Diff | undefined {
  const e = after.errors[0];
  if (e?.kind === 'assertion' && e.detail === assertion) return undefined;
  return { text: `the launch tripped ${JSON.stringify(assertion)}; now ${e ? `it fails: ${e.message}` : 'it runs to the end'}`, at: {} };
}

/** The first observable difference between two runs, or undefined. */
export function compare(before: RunResult, after: RunResult): Diff | undefined {
  if (!after.ok) return { text: `it now fails: ${after.errors[0]!.message}`, at: {} };
  for (const [name, b] of Object.entries(before.buffers)) {
    const a = after.buffers[name];
    if (!a) return { text: `buffer ${name} is gone`, at: { buffer: name } };
    const n = Math.max(a.bytes.length, b.bytes.length);
    for (let i = 0; i < n; i++) {
      if (a.bytes[i] === b.bytes[i]) continue;
      const size = Math.min(typeSize(b.type), 8) || 1;
      const at = i - (i % size);
      const address = b.address + at;
      const bv = hexWord(b.bytes, at, size);
      const av = hexWord(a.bytes, at, size);
      const typed = (r: Uint8Array): string => (b.type === 'u8' ? '' : ` (${String(readElement(r, b.type as ScalarType, at / size))})`);
      return {
        text: `first difference in ${name} at address 0x${address.toString(16)} (element ${at / size}): before ${bv}${typed(b.bytes)}, after ${av}${typed(a.bytes)}`,
        at: { buffer: name, address, before: bv, after: av },
      };
    }
  }
  // device printf output is observable too: the same lines in the same order
  const bp = before.printed ?? [];
  const ap = after.printed ?? [];
  for (let i = 0; i < Math.max(bp.length, ap.length); i++) {
    if (bp[i] === ap[i]) continue;
    return { text: `printf output differs at line ${i + 1}: before ${JSON.stringify(bp[i] ?? '(none)')}, after ${JSON.stringify(ap[i] ?? '(none)')}`, at: {} };
  }
  return undefined;
}
