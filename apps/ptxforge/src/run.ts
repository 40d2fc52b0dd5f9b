import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import {
  createToolchain, isPtxforgeError, LatencyModel, parseKnobsFile, printModule, PtxforgeError, PIPE_NAMES, type CompileOptions,
  type CompileResult, type OriModule, type PluginEntry, type Remark, type Toolchain,
} from '@ptxforge/kernel';
import { loadDefaultPlugins, loadUserPlugin } from './plugins.js';
import { interpOptionsOf, runAfterCompile, runCubinFile, verifyEachFor, type InterpCliOptions } from './interp.js';
import { normalizeArch, normalizeArgs as normalizePtxasArgs, PTXAS_OPTIONS, ptxasOption, splitOptionsFileText } from './ptxas-options.js';
import { CompileCache, cacheKeyOf, defaultCacheDir } from './cache.js';
import { versionText } from './version.js';
import { cubinOfModule, type KernelStats } from '@ptxforge/codegen';
import { gmemLine, ptxasVerboseLines, PTXAS_INFO, readCubin, verboseStatsOfCubin } from '@ptxforge/cubin';

export interface CliIO {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  env: Record<string, string | undefined>;
  cwd: string;
  /** stderr is a terminal (batch mode draws a progress bar there). */
  isTTY?: boolean;
}

/** ptxas spellings -> commander's (`-arch sm_90` -> `--gpu-name sm_90`, `-lineinfo`, `-m64`, `-O3` ...). */
export function normalizeArgs(argv: readonly string[]): string[] {
  return normalizePtxasArgs(argv).map((a) => (a === '--output' ? '--output-file' : a.startsWith('--output=') ? `--output-file=${a.slice(9)}` : a));
}

const collect = (v: string, prev: string[]): string[] => [...prev, v];

/** The options object commander produces (ptxas's options plus ptxforge's own). */
export type CliOptions = {
  gpuName: string; optLevel: string; outputFile?: string; verbose?: boolean; knob: string[]; knobsFile?: string;
  stat?: string; namedPhases?: string; shuffleSeed: string; disablePasses?: string; listPhases?: boolean;
  listKnobs?: boolean; dumpIr: string[]; verifyIr?: boolean; emit?: string; plugin: string[]; remarks?: string;
  version?: boolean; listVersion?: boolean; inputAsString: string[]; entry: string[]; machine?: string;
  disableWarnings?: boolean; warningAsError?: boolean; fmad?: string; splitCompile?: string; jobs?: string;
  outputDir?: string; cache: boolean; cacheDir?: string; warnOnSpills?: boolean;
} & InterpCliOptions & Record<string, unknown>;

function camel(long: string): string {
  return long.replace(/-([a-zA-Z])/g, (_, c: string) => c.toUpperCase());
}

export function buildProgram(): Command {
  const p = new Command('ptxforge')
    .description('ptxforge: an open, ptxas-compatible optimizing assembler (PTX/Ori in; optimized Ori now, cubins as the backend lands)')
    .argument('[inputs...]', 'input files (.ptx or .ori), or directories of them (batch mode)')
    .addOption(new Option('--gpu-name <arch>', 'target GPU: sm_NN, smNN or compute_NN (-arch)').default('sm_75'))
    .addOption(new Option('-O, --opt-level <N>', 'optimization level 0..4').default('3'))
    .option('-o, --output-file <file>', 'output file (.ori: Ori text; otherwise a cubin once an encoder is installed)')
    .option('-v, --verbose', "print ptxas's info lines (stderr)")
    .option('-V, --version', 'print the ptxforge version and the ptxas version it follows')
    .option('--knob <Name=Value>', 'set a knob (repeatable)', collect, [])
    .option('--knobs-file <file>', 'read knob settings from a file with a [knobs] section')
    .option('--stat <mode>', "statistics: 'phase-wise' prints one line per executed phase")
    .option('--named-phases <list>', 'replace the default phase order: "A,B=param,shuffle,swap1"')
    .option('--shuffle-seed <N>', 'seed for shuffle in --named-phases', '0')
    .option('--disable-passes <list>', 'skip phases whose names occur in this string (case-insensitive)')
    .option('--list-phases', 'print the 159 pipeline slots with their owners')
    .option('--list-knobs', 'print the registered knobs')
    .option('--dump-ir <phases>', "print Ori text after these phases ('all' or comma-separated names; repeatable)", collect, [])
    .option('--verify-ir', 'verify the IR after every executed phase')
    .option('--remarks <file.json>', 'write the optimization remarks of every phase (JSON, with source lines) to this file')
    .addOption(new Option('--emit <kind>', 'what to write: ori (Ori text) or cubin').choices(['ori', 'cubin']))
    .option('--plugin <module>', 'load an extra plugin (package name or path; repeatable)', collect, [])
    .option('--verify-each', 'after every phase, run the program and compare all memory with the run before the first phase')
    .option('--verify-each-dir <dir>', 'where --verify-each writes the IR before/after a failing phase', 'ptxforge-verify-each')
    .option('--launch <file.json>', 'launch description (grid, block, params, buffers) for --run and --verify-each')
    .option('--seed <N>', 'seed for generated inputs when there is no --launch')
    .option('--run', 'run the compiled kernel in the interpreter and print its outputs and dynamic counts as JSON (a .cubin input: its SASS, lifted)')
    .option('--kernel <name>', 'with --run on a cubin: the kernel to run (default: the launch\'s, else the first entry)')
    .option('--run-out <file>', 'with --run: write the JSON to this file instead of stdout')
    .option('--run-raw <dir>', 'with --run: also write each buffer as raw bytes to <dir>/<name>.bin')
    .option('--save-launch <file.json>', 'with --run: write the launch that ran (generated from --seed or read from --launch), buffers as hex, for replay')
    .option('--jobs <N>', 'batch mode: compile the inputs on N worker threads (default: the number of cores)')
    .option('--output-dir <dir>', 'batch mode: write one output per input into this directory')
    .option('--cache-dir <dir>', 'compile cache directory (default $PTXFORGE_CACHE_DIR, else ~/.cache/ptxforge)')
    .option('--no-cache', 'do not read or write the compile cache');
  // The rest of ptxas's documented options (ptxas --help), accepted with the same spellings.
  const own = new Set(['gpu-name', 'opt-level', 'output-file', 'verbose', 'version', 'help']);
  for (const o of PTXAS_OPTIONS) {
    if (own.has(o.long)) continue;
    const repeatable = o.long === 'input-as-string' || o.long === 'entry' || o.long === 'options-file';
    if (repeatable) p.option(`--${o.long} <value>`, `ptxas option (-${o.short[0]})`, collect, []);
    else p.option(o.value ? `--${o.long} <value>` : `--${o.long}`, `ptxas option (-${o.short[0]})${o.notHonoured ? ': accepted, not honoured yet' : ''}`);
  }
  return p.exitOverride().configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
}

/** Splice the contents of every `--options-file F[,G]` into the argument list (one level, like ptxas). */
function expandOptionsFiles(argv: readonly string[], cwd: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    let files: string | undefined;
    if (a === '--options-file' || a === '-optf') files = argv[++i];
    else if (a.startsWith('--options-file=')) files = a.slice(15);
    else if (a.startsWith('-optf=')) files = a.slice(6);
    if (files === undefined) {
      out.push(a);
      continue;
    }
    for (const f of files.split(',').filter(Boolean)) out.push(...splitOptionsFileText(readText(path.resolve(cwd, f), f)));
  }
  return out;
}

/**
 * The command-line parser, built once per process: commander registers ~85 options with a linear search and
 * an event listener each (a fifth of a small kernel's start-up work when run cold), and a run started from the
 * V8 snapshot finds the one its warm-up built. Commander 13+ restores the option defaults before every
 * parse() and gives each parse a fresh options object, so results never leak from one parse into the next;
 * callers read opts() and args right after parse(), before any await.
 */
let sharedProgram: Command | undefined;

/** Parse a command line with the shared parser: its options and operands. Throws what commander throws. */
function parseCommandLine(argv: readonly string[], io: CliIO, output?: (s: string) => void): { o: CliOptions; args: string[] } {
  const program = (sharedProgram ??= buildProgram());
  const write = output ?? (() => undefined);
  program.configureOutput({ writeOut: write, writeErr: write });
  program.parse(normalizeArgs(expandOptionsFiles(argv, io.cwd)), { from: 'user' });
  return { o: program.opts<CliOptions>(), args: [...program.args] };
}

/** Run the CLI; returns the exit code. Errors are reported as `ptxforge: error CODE: ...`, never a stack. */
export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  let help = '';
  let o: CliOptions;
  let args: string[];
  try {
    ({ o, args } = parseCommandLine(argv, io, (s) => (help += s)));
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') {
        io.stdout(help);
        return 0;
      }
      io.stderr(`ptxforge: error CLI_USAGE: ${e.message.replace(/^error: /, '')}\n`);
      return 1;
    }
    if (isPtxforgeError(e)) {
      io.stderr(`ptxforge: ${e.format()}\n`);
      return 1;
    }
    throw e;
  }
  if (o.version) {
    io.stdout(versionText());
    return 0;
  }
  if (o.listVersion) {
    // ptxas -version-ls lists the PTX ISA versions it reads.
    io.stdout(`${SUPPORTED_PTX_VERSIONS.join('\n')}\n`);
    return 0;
  }
  try {
    const arch = normalizeArch(o.gpuName);
    // A compilation loads only the target package that serves -arch; listings without -arch show every
    // installed target.
    const explicitArch = argv.some((a) => a === '-arch' || a.startsWith('-arch=') || a.startsWith('--gpu-name'));
    const tc = await toolchainFor(o, io, (o.listPhases || o.listKnobs) && !explicitArch ? undefined : arch);
    if (o.listPhases) {
      listPhases(tc, arch, argv, io);
      return 0;
    }
    if (o.listKnobs) {
      for (const k of tc.registry.knobs.all()) {
        const range = k.choices ? ` {${k.choices.join('|')}}` : k.min !== undefined || k.max !== undefined ? ` [${k.min ?? ''}..${k.max ?? ''}]` : '';
        io.stdout(`${k.name.padEnd(36)} ${k.type.padEnd(6)} default=${String(k.default).padEnd(8)} ${k.owner ?? ''}  ${k.description}${range}\n`);
      }
      return 0;
    }
    const settings = resolveSettings(o, args, io, arch);
    if (settings.inputs.length === 0) throw new PtxforgeError('CLI_NO_INPUT', 'no input file given (try --help)');
    if (settings.batch) {
      const { runBatch } = await import('./batch.js');
      return await runBatch(argv, tc, settings, io);
    }
    return compileOne(tc, settings, settings.inputs[0]!, io);
  } catch (e) {
    return reportError(e, io);
  }
}

/**
 * Toolchains made in this process, by their plugin list. A toolchain is reusable (each compilation gets its
 * own child container; batch workers compile many inputs with one), so a run started from the V8 snapshot
 * takes the one its warm-up made instead of registering and checking every plugin again.
 */
const toolchains: Array<{ plugins: readonly PluginEntry[]; tc: Toolchain }> = [];

async function toolchainFor(o: CliOptions, io: CliIO, arch: string | undefined): Promise<Toolchain> {
  const plugins: PluginEntry[] = [...(await loadDefaultPlugins(arch === undefined ? {} : { arch }))];
  // user plugins are loaded per run: no reuse with them
  if (o.plugin.length) {
    for (const p of o.plugin) plugins.push(await loadUserPlugin(p, io.cwd));
    return createToolchain({ plugins });
  }
  const same = toolchains.find((t) => t.plugins.length === plugins.length && t.plugins.every((p, k) => p === plugins[k]));
  if (same) return same.tc;
  const tc = createToolchain({ plugins });
  if (toolchains.length < 16) toolchains.push({ plugins, tc });
  return tc;
}

/**
 * Parse a command line into a toolchain and settings without compiling (batch workers do this once, then
 * compile the inputs they are handed). Throws coded errors.
 */
export async function prepareCompilation(argv: readonly string[], io: CliIO): Promise<{ tc: Toolchain; settings: CliSettings }> {
  let o: CliOptions;
  let args: string[];
  try {
    ({ o, args } = parseCommandLine(argv, io));
  } catch (e) {
    if (e instanceof CommanderError) throw new PtxforgeError('CLI_USAGE', e.message.replace(/^error: /, ''));
    throw e;
  }
  const arch = normalizeArch(o.gpuName);
  const tc = await toolchainFor(o, io, arch);
  return { tc, settings: resolveSettings(o, args, io, arch) };
}

export function reportError(e: unknown, io: CliIO): number {
  if (isPtxforgeError(e)) {
    io.stderr(`ptxforge: ${e.format()}\n`);
    return 1;
  }
  const err = e as Error;
  io.stderr(`ptxforge: internal compiler error: ${err.message}\n`);
  if (io.env.PTXFORGE_DEBUG) io.stderr(`${err.stack}\n`);
  return 2;
}

/** PTX ISA versions the front end reads (ptxas 13.0 reads up to 9.0). */
export const SUPPORTED_PTX_VERSIONS: readonly string[] = [
  '1.0', '1.1', '1.2', '1.3', '1.4', '2.0', '2.1', '2.2', '2.3', '3.0', '3.1', '3.2', '4.0', '4.1', '4.2', '4.3',
  '5.0', '6.0', '6.1', '6.2', '6.3', '6.4', '6.5', '7.0', '7.1', '7.2', '7.3', '7.4', '7.5', '7.6', '7.7', '7.8',
  '8.0', '8.1', '8.2', '8.3', '8.4', '8.5', '8.6', '8.7', '8.8', '9.0',
];

/** One unit of work: a file, or a string given with --input-as-string. */
export interface InputSpec {
  /** Name shown in messages (the path as given, or `<input-as-string N>`). */
  readonly shown: string;
  /** Absolute path, when the input is a file. */
  readonly file?: string;
  /** The text, when given on the command line. */
  readonly text?: string;
  /** Batch output name without extension: the path relative to the directory it was found in, or the base name. */
  readonly outName: string;
}

export type EmitKind = 'ori' | 'cubin' | 'none';

/** Everything a compilation of one input needs, resolved once from the command line. */
export interface CliSettings {
  readonly o: CliOptions;
  readonly arch: string;
  readonly inputs: readonly InputSpec[];
  readonly batch: boolean;
  readonly compileOptions: Omit<CompileOptions, 'instrumentation'>;
  readonly warnings: readonly string[];
  readonly entries: readonly string[];
}

function resolveSettings(o: CliOptions, args: readonly string[], io: CliIO, arch: string): CliSettings {
  if (o.stat !== undefined && o.stat !== 'phase-wise') throw new PtxforgeError('CLI_USAGE', `--stat accepts 'phase-wise', got '${o.stat}'`);
  if (!/^\d+$/.test(o.optLevel)) throw new PtxforgeError('OPT_LEVEL_INVALID', `optimization level must be 0..4, got '${o.optLevel}'`);
  if (o.machine !== undefined && o.machine !== '64') {
    // ptxas 13: "Value '32' is not defined for option 'machine'"; 32-bit compilation is gone.
    throw new PtxforgeError('CLI_USAGE', `value '${o.machine}' is not defined for option 'machine' (only 64-bit code is generated)`);
  }
  if (o.fmad !== undefined && o.fmad !== 'true' && o.fmad !== 'false') throw new PtxforgeError('CLI_USAGE', `--fmad expects true or false, got '${o.fmad}'`);
  if (o.splitCompile !== undefined && !/^\d+$/.test(o.splitCompile)) throw new PtxforgeError('CLI_USAGE', `--split-compile expects a number, got '${o.splitCompile}'`);
  if (o.jobs !== undefined && !/^[1-9]\d*$/.test(o.jobs)) throw new PtxforgeError('CLI_USAGE', `--jobs expects a positive number, got '${o.jobs}'`);
  const warnings: string[] = [];
  for (const opt of PTXAS_OPTIONS) {
    if (!opt.notHonoured) continue;
    const v = o[camel(opt.long)];
    if (v === undefined || v === false || (Array.isArray(v) && v.length === 0)) continue;
    warnings.push(`option '--${opt.long}' (-${opt.short[0]}) is accepted but not honoured: ${opt.notHonoured}`);
  }
  if (o.fmad === 'true') warnings.push("option '--fmad=true' is accepted but not honoured: floating-point mul+add are never contracted into FFMA (results are those of --fmad=false)");
  if (o.splitCompile !== undefined && Number(o.splitCompile) > 1 && args.length <= 1) {
    warnings.push("option '--split-compile' splits work per input file; the functions of one module are compiled on one thread");
  }

  const inputs: InputSpec[] = [];
  const sawDirOf = new Set<InputSpec>();
  let sawDir = false;
  for (const a of args) {
    const file = path.resolve(io.cwd, a);
    let isDir = false;
    try {
      isDir = statSync(file).isDirectory();
    } catch {
      // Reported as INPUT_NOT_FOUND when it is read.
    }
    if (isDir) {
      sawDir = true;
      for (const f of listInputs(file)) {
        const x = { shown: path.join(a, path.relative(file, f)), file: f, outName: stripExt(path.relative(file, f)) };
        sawDirOf.add(x);
        inputs.push(x);
      }
    } else inputs.push({ shown: a, file, outName: stripExt(path.basename(a)) });
  }
  // ptxas reads PTX from --input-as-string; Ori text (no `.version` directive) is read as Ori. The name
  // carries the extension the toolchain picks the front end by.
  // Explicitly listed files are named by their path below the deepest folder they all share, so files
  // with equal base names in different folders get distinct outputs.
  const listed = inputs.filter((x) => x.file && !sawDirOf.has(x));
  if (listed.length > 1) {
    let common = path.dirname(listed[0]!.file!);
    for (const x of listed) {
      while (common !== path.dirname(common) && path.relative(common, x.file!).startsWith('..')) common = path.dirname(common);
    }
    for (const x of listed) (x as { outName: string }).outName = stripExt(path.relative(common, x.file!));
  }
  o.inputAsString.forEach((text, k) =>
    inputs.push({ shown: `input-as-string-${k + 1}${/^\s*\.version\b/m.test(text) ? '.ptx' : '.ori'}`, text, outName: `input-as-string-${k + 1}` }),
  );
  const batch = inputs.length > 1 || sawDir || o.outputDir !== undefined;
  if (batch && o.outputFile) throw new PtxforgeError('CLI_USAGE', `-o names one output file but ${inputs.length} inputs were given; use --output-dir DIR`);
  if (batch && (o.run || o.verifyEach || o.dumpIr.length || o.stat || o.remarks)) {
    throw new PtxforgeError('CLI_USAGE', '--run, --verify-each, --dump-ir, --stat and --remarks take one input');
  }

  const knobs: Array<{ name: string; value: string; where?: string }> = [];
  if (o.knobsFile) knobs.push(...parseKnobsFile(readText(path.resolve(io.cwd, o.knobsFile), o.knobsFile), o.knobsFile));
  for (const k of o.knob) {
    const eq = k.indexOf('=');
    if (eq <= 0) throw new PtxforgeError('KNOB_SYNTAX', `--knob expects Name=Value, got '${k}'`);
    knobs.push({ name: k.slice(0, eq), value: k.slice(eq + 1), where: '--knob' });
  }
  const disabled = [o.disablePasses, io.env.PTXFORGE_DISABLED_PASSES].filter((s): s is string => !!s).join(',');
  const dumpIr = o.dumpIr.flatMap((d) => d.split(',')).map((s) => s.trim()).filter(Boolean);
  const compileOptions: CompileOptions = {
    arch,
    optLevel: Number(o.optLevel),
    knobs,
    shuffleSeed: Number(o.shuffleSeed),
    disablePasses: disabled,
    stats: o.stat === 'phase-wise',
    verifyIr: !!o.verifyIr,
    ...(o.compileOnly ? { relocatable: true } : {}),
    ...(o.namedPhases !== undefined ? { namedPhases: o.namedPhases } : {}),
    ...(dumpIr.length ? { dumpIr: dumpIr.some((d) => d.toLowerCase() === 'all') ? ('all' as const) : dumpIr } : {}),
  };
  const entries = o.entry.flatMap((e) => e.split(',')).map((s) => s.trim()).filter(Boolean);
  return { o, arch, inputs, batch, compileOptions, warnings, entries };
}

function stripExt(f: string): string {
  return f.replace(/\.(ptx|ori)$/, '');
}

/** `.ptx` and `.ori` files under a directory, sorted (deterministic batch order). */
function listInputs(dir: string): string[] {
  const out: string[] = [];
  const stack = [dir];
  // Iterative walk: directory depth is user-controlled.
  while (stack.length) {
    const d = stack.pop()!;
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      continue;
    }
    for (const n of names) {
      const f = path.join(d, n);
      let st;
      try {
        st = statSync(f);
      } catch {
        continue;
      }
      if (st.isDirectory()) stack.push(f);
      else if (n.endsWith('.ptx') || n.endsWith('.ori')) out.push(f);
    }
  }
  return out.sort();
}

/** What to write for this input and where: from --emit, else from the -o extension. */
export function outputOf(o: CliOptions, outPath: string | undefined): EmitKind {
  if (o.emit === 'ori' || o.emit === 'cubin') return o.emit;
  if (outPath === undefined) return 'none';
  return outPath.endsWith('.ori') ? 'ori' : 'cubin';
}

/** The text of an input (file or --input-as-string). */
export function inputText(input: InputSpec): string {
  return input.text ?? readText(input.file!, input.shown);
}

/**
 * Compile one input as ptxas would: -v lines on stderr in ptxas's format, the output file per -o/--emit,
 * warnings (-w silences, -Werror fails), the compile cache around the pipeline. Returns the exit code.
 */
export function compileOne(tc: Toolchain, s: CliSettings, input: InputSpec, io: CliIO, outPathOverride?: string): number {
  const { o } = s;
  const warn = (m: string): void => {
    if (!o.disableWarnings) io.stderr(`ptxforge warning : ${m}\n`);
  };
  for (const w of s.warnings) warn(w);
  const diagnostic = !!(o.run || o.verifyEach || o.stat || o.dumpIr.length || o.remarks || o.verifyIr);
  // As ptxas: without -o (and without --emit), the cubin goes to elf.o; analysis runs write nothing by default.
  const defaultOut = outPathOverride === undefined && !o.outputFile && (!o.emit || o.emit === 'cubin') && !diagnostic && !(input.file && /\.cubin$/i.test(input.file));
  const outPath = outPathOverride ?? (o.outputFile ? path.resolve(io.cwd, o.outputFile) : defaultOut ? path.resolve(io.cwd, 'elf.o') : undefined);
  if (outPath !== undefined && outPathOverride === undefined) checkOutputDir(outPath, o.outputFile ?? 'elf.o');
  const emit = outputOf(o, outPath);
  if (input.file && /\.cubin$/i.test(input.file)) return runCubinInput(s, input.file, io);
  const text = inputText(input);
  const interp = interpOptionsOf(o, io.cwd);
  const verify = verifyEachFor(interp);
  const diagnosticRun = !!(o.run || o.verifyEach || o.stat || o.dumpIr.length || o.remarks || o.verifyIr);
  // cubins are not cached (the cache holds text)
  const useCache = o.cache && !diagnosticRun && emit === 'ori';
  const cache = useCache ? new CompileCache(o.cacheDir ? path.resolve(io.cwd, o.cacheDir) : defaultCacheDir(io.env)) : undefined;
  const key = cache ? cacheKeyOf({ text, file: input.shown, options: s.compileOptions, entries: s.entries, emit, plugins: tc.registry.plugins }) : '';
  const t0 = performance.now();
  const hit = cache?.get(key);
  let output: string | Uint8Array | undefined;
  let verboseLines: string[];
  let warnCount = s.warnings.length;
  if (hit) {
    output = hit.output;
    verboseLines = [...hit.verbose];
    for (const w of hit.warnings) warn(w);
    warnCount += hit.warnings.length;
  } else {
    const options: CompileOptions = { ...s.compileOptions, ...(verify ? { instrumentation: [verify] } : {}) };
    const result = tc.compile({ text, file: input.shown }, options);
    selectEntries(result.module, s.entries);
    for (const d of result.dumps) io.stdout(`// ----- IR after phase ${d.index} ${d.phase} -----\n${d.text}`);
    for (const line of result.statLines) io.stderr(`${line}\n`);
    if (o.remarks) writeRemarks(path.resolve(io.cwd, o.remarks), o.remarks, input.shown, s.arch, result.remarks);
    const compileWarnings: string[] = [];
    for (const d of result.diagnostics) {
      const line = `${input.shown}${d.line ? `:${d.line}` : ''}: ${d.severity} ${d.code}: ${d.fn ? `${d.fn}: ` : ''}${d.message}`;
      if (d.severity === 'warning' || d.severity === 'error') {
        compileWarnings.push(line);
        if (!o.disableWarnings || d.severity === 'error') io.stderr(`${line}\n`);
      } else if (o.verbose) io.stderr(`${line}\n`);
    }
    warnCount += compileWarnings.length;
    // The -v lines are built only when printed or cached (a cubin's are read back from the cubin itself).
    verboseLines = o.verbose || cache ? verboseInfo(result, s.arch) : [];
    if (verify) verboseLines.push(`verify-each: ${verify.report.phasesChecked} phases checked, ${verify.report.runs} runs`);
    for (const a of verify?.report.assertions ?? []) verboseLines.push(`verify-each: kernel ${a.kernel} checked up to the device-side assertion every generated launch trips`);
    for (const sk of verify?.report.skipped ?? []) io.stderr(`${input.shown}: warning VERIFY_EACH_SKIPPED: kernel ${sk.kernel} not verified: ${sk.reason}\n`);
    if (o.run) {
      const code = runAfterCompile(result.module, interp, io);
      if (code !== 0) return code;
    }
    if (emit === 'ori') output = printModule(result.module);
    if (emit === 'cubin') {
      const maxrregcount = (o as { maxrregcount?: string }).maxrregcount;
      const gen = cubinOfModule(tc, result.module, s.arch, { optLevel: Number(o.optLevel), ...(o.compileOnly ? { relocatable: true } : {}), ...(maxrregcount === undefined ? {} : { maxrregcount: Number(maxrregcount) }) });
      output = gen.cubin;
      if (o.verbose) verboseLines = cubinVerboseLines(result, s.arch, gen.cubin, gen.kernels);
    }
    if (cache && typeof output === 'string') cache.put(key, { output, verbose: verboseLines, warnings: compileWarnings });
  }
  const ms = performance.now() - t0;
  if (o.verbose) {
    // ptxas prints the stack/spill line of "Function properties" indented, without the prefix.
    for (const l of verboseLines) io.stderr(l.startsWith(' ') ? `${l}\n` : `ptxas info    : ${l}\n`);
    io.stderr(`ptxas info    : Compile time = ${ms.toFixed(3)} ms\n`);
  }
  if (output !== undefined) {
    if (outPath) writeOutput(outPath, o.outputFile ?? outPath, output);
    else if (typeof output === 'string') io.stdout(output);
  }
  if (o.warningAsError && warnCount > 0) {
    io.stderr(`ptxforge: error WARNINGS_AS_ERRORS: ${warnCount} warning(s) treated as errors (-Werror)\n`);
    return 1;
  }
  return 0;
}

/** --entry: keep only the named entry functions (device functions stay: entries may call them). */
function selectEntries(m: OriModule, entries: readonly string[]): void {
  if (!entries.length) return;
  const want = new Set(entries);
  for (const e of entries) {
    if (!m.functions.some((f) => f.kind === 'entry' && f.name === e)) {
      throw new PtxforgeError('ENTRY_NOT_FOUND', `--entry ${e}: no entry function of that name in the input`);
    }
  }
  const keep = m.functions.filter((f) => f.kind !== 'entry' || want.has(f.name));
  m.functions.length = 0;
  m.functions.push(...keep);
}

/**
 * ptxas's -v lines (without the "ptxas info    : " prefix), in its order: global memory, then per
 * function "Compiling entry function", "Function properties" with the stack/spill line, and ptxforge's
 * own per-function summary. The "Used N registers" line comes with the register allocator.
 */
export function verboseInfo(result: CompileResult, arch: string): string[] {
  const m = result.module;
  const lines: string[] = [];
  let gmem = 0;
  for (const v of m.vars) if (v.space === 'global') gmem += v.size;
  lines.push(`${gmem} bytes gmem`);
  for (const fn of m.functions) {
    if (fn.kind === 'entry') lines.push(`Compiling entry function '${fn.name}' for '${arch}'`);
    lines.push(`Function properties for ${fn.name}`);
    let stack = 0;
    for (const v of fn.vars) if (v.space === 'local') stack = alignUp(stack, v.align) + v.size;
    lines.push(`    ${stack} bytes stack frame, 0 bytes spill stores, 0 bytes spill loads`);
    lines.push(`Function ${fn.name}: ${fn.instructionCount} instructions, ${fn.blocks.length} blocks, ${fn.registers.length} virtual registers`);
  }
  lines.push(...result.info);
  return lines;
}

function alignUp(x: number, a: number): number {
  return a > 1 ? Math.ceil(x / a) * a : x;
}

/** -o into a folder that does not exist (or is no folder): say so before compiling, like ptxas. */
function checkOutputDir(file: string, shown: string): void {
  const dir = path.dirname(file);
  let ok = false;
  try {
    ok = statSync(dir).isDirectory();
  } catch {
    ok = false;
  }
  if (!ok) throw new PtxforgeError('OUTPUT_NOT_WRITABLE', `cannot write ${shown}: the folder ${path.dirname(shown) || dir} does not exist`);
}

/** -v lines of a compile that produced a cubin: ptxas's lines with the allocated register counts and spills. */
function cubinVerboseLines(result: CompileResult, arch: string, cubin: Uint8Array, kernels: readonly KernelStats[]): string[] {
  // Registers, barriers, frame, cumulative stack, smem and cmem as the cubin records them, in ptxas's print order
  // (its section order); spill counts from the code generator, which is the only one that knows them.
  const stats = verboseStatsOfCubin(readCubin(cubin));
  const byName = new Map(kernels.map((k) => [k.name, k]));
  let gmem = 0;
  for (const v of result.module.vars) if (v.space === 'global') gmem += v.size;
  const strip = (l: string) => (l.startsWith(PTXAS_INFO) ? l.slice(PTXAS_INFO.length) : l);
  const lines = [strip(gmemLine(arch, Math.max(gmem, stats.gmem), stats.cmem))];
  for (const f of stats.functions) {
    const k = byName.get(f.name);
    const fn = k ? { ...f, registers: k.registers, spillStores: k.spillStores, spillLoads: k.spillLoads } : f;
    for (const l of ptxasVerboseLines(arch, fn)) lines.push(strip(l));
  }
  lines.push(...result.info);
  return lines;
}

function writeOutput(file: string, shown: string, text: string | Uint8Array): void {
  try {
    writeFileSync(file, text);
  } catch (e) {
    throw new PtxforgeError('OUTPUT_NOT_WRITABLE', `cannot write ${shown}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** `--remarks F.json`: { file, arch, remarks: [{ phase, phaseIndex, kind, name, fn, block?, line?, message, args? }] }. */
function writeRemarks(file: string, shown: string, input: string, arch: string, remarks: readonly Remark[]): void {
  const doc = { file: input, arch, remarks };
  try {
    writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);
  } catch (e) {
    throw new PtxforgeError('OUTPUT_NOT_WRITABLE', `cannot write remarks to ${shown}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

export function readText(file: string, shown: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new PtxforgeError('INPUT_NOT_FOUND', `cannot read ${shown}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

function listPhases(tc: Toolchain, arch: string, argv: readonly string[], io: CliIO): void {
  // The target column only when -arch was given explicitly (the rows are per-target then).
  const explicitArch = argv.some((a) => a === '-arch' || a.startsWith('-arch=') || a.startsWith('--gpu-name'));
  const rows = tc.listPhases(explicitArch ? arch : undefined);
  for (const r of rows) {
    io.stdout(`${String(r.index).padStart(3)}  ${r.name.padEnd(40)} ${r.owner}${r.note ? `  [${r.note}]` : ''}\n`);
  }
  if (explicitArch) {
    const t = tc.resolveTarget(arch).target;
    const lm = tc.services(arch).tryService(LatencyModel);
    const widths = lm ? PIPE_NAMES.map((n, k) => `${n}=${lm.pipeWidths[k]}`).join(' ') : 'unknown (no LatencyModel installed)';
    io.stdout(`# target ${t.id} (${t.family}): pipe widths ${widths}\n`);
  }
}

export { ptxasOption };

/** `--run FILE.cubin`: lift the cubin's SASS and interpret it (no compilation). */
function runCubinInput(s: CliSettings, file: string, io: CliIO): number {
  const o = s.o as CliOptions & { kernel?: string };
  if (!o.run) throw new PtxforgeError('CLI_USAGE', `${file}: a cubin input is run with --run (and --launch or --seed); it is not compiled`);
  return runCubinFile(file, interpOptionsOf(o, io.cwd), o.kernel, io);
}
