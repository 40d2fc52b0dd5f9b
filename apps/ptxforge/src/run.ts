import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import {
  createToolchain, isPtxforgeError, parseKnobsFile, printModule, PtxforgeError, PIPE_NAMES, type CompileOptions,
  type PluginEntry, type Remark, type Toolchain,
} from '@ptxforge/kernel';
import { loadDefaultPlugins, loadUserPlugin } from './plugins.js';
import { interpOptionsOf, runAfterCompile, verifyEachFor, type InterpCliOptions } from './interp.js';

export interface CliIO {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  env: Record<string, string | undefined>;
  cwd: string;
}

/** ptxas spells some long options with one dash (`-arch sm_90`, `-arch=sm_90`); commander wants two. */
export function normalizeArgs(argv: readonly string[]): string[] {
  return argv.map((a) => {
    if (a === '-arch') return '--gpu-name';
    if (a.startsWith('-arch=')) return `--gpu-name=${a.slice(6)}`;
    return a;
  });
}

const collect = (v: string, prev: string[]): string[] => [...prev, v];

function buildProgram(): Command {
  return new Command('ptxforge')
    .description('ptxforge: an open ptxas-style optimizing assembler (PTX/Ori in, optimized Ori out)')
    .argument('[input]', 'input file (.ori, or .ptx when the PTX front end is installed)')
    .addOption(new Option('--gpu-name <arch>', 'target GPU (-arch sm_NN)').default('sm_75'))
    .addOption(new Option('-O, --opt-level <N>', 'optimization level 0..4').default('3'))
    .option('-o, --output <file>', 'write the result (Ori text) to this file')
    .option('-v, --verbose', 'print ptxas-like info lines per function')
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
    .addOption(new Option('--emit <kind>', 'what to write (stdout unless -o)').choices(['ori']))
    .option('--plugin <module>', 'load an extra plugin (package name or path; repeatable)', collect, [])
    .option('--verify-each', 'after every phase, run the program and compare all memory with the run before the first phase')
    .option('--verify-each-dir <dir>', 'where --verify-each writes the IR before/after a failing phase', 'ptxforge-verify-each')
    .option('--launch <file.json>', 'launch description (grid, block, params, buffers) for --run and --verify-each')
    .option('--seed <N>', 'seed for generated inputs when there is no --launch')
    .option('--run', 'run the compiled kernel in the interpreter and print its outputs and dynamic counts as JSON')
    .option('--run-out <file>', 'with --run: write the JSON to this file instead of stdout')
    .option('--run-raw <dir>', 'with --run: also write each buffer as raw bytes to <dir>/<name>.bin')
    .exitOverride()
    .configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
}

/** Run the CLI; returns the exit code. Errors are reported as `ptxforge: error CODE: ...`, never a stack. */
export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  const program = buildProgram();
  let help = '';
  program.configureOutput({ writeOut: (s) => (help += s), writeErr: (s) => (help += s) });
  try {
    program.parse(normalizeArgs(argv), { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') {
        io.stdout(help);
        return 0;
      }
      io.stderr(`ptxforge: error CLI_USAGE: ${e.message.replace(/^error: /, '')}\n`);
      return 1;
    }
    throw e;
  }
  const o = program.opts<{
    gpuName: string; optLevel: string; output?: string; verbose?: boolean; knob: string[]; knobsFile?: string;
    stat?: string; namedPhases?: string; shuffleSeed: string; disablePasses?: string; listPhases?: boolean;
    listKnobs?: boolean; dumpIr: string[]; verifyIr?: boolean; emit?: string; plugin: string[]; remarks?: string;
  } & InterpCliOptions>();
  const input = program.args[0];
  try {
    const plugins: PluginEntry[] = [...(await loadDefaultPlugins())];
    for (const p of o.plugin) plugins.push(await loadUserPlugin(p, io.cwd));
    const tc = createToolchain({ plugins });
    if (o.listPhases) {
      listPhases(tc, o.gpuName, argv, io);
      return 0;
    }
    if (o.listKnobs) {
      for (const k of tc.registry.knobs.all()) {
        io.stdout(`${k.name.padEnd(36)} ${k.type.padEnd(6)} default=${String(k.default).padEnd(8)} ${k.owner ?? ''}  ${k.description}\n`);
      }
      return 0;
    }
    if (!input) throw new PtxforgeError('CLI_NO_INPUT', 'no input file given (try --help)');
    if (o.stat !== undefined && o.stat !== 'phase-wise') {
      throw new PtxforgeError('CLI_USAGE', `--stat accepts 'phase-wise', got '${o.stat}'`);
    }
    if (!/^\d+$/.test(o.optLevel)) throw new PtxforgeError('OPT_LEVEL_INVALID', `optimization level must be 0..4, got '${o.optLevel}'`);
    const knobs: Array<{ name: string; value: string; where?: string }> = [];
    if (o.knobsFile) {
      const file = path.resolve(io.cwd, o.knobsFile);
      knobs.push(...parseKnobsFile(readText(file, o.knobsFile), o.knobsFile));
    }
    for (const k of o.knob) {
      const eq = k.indexOf('=');
      if (eq <= 0) throw new PtxforgeError('KNOB_SYNTAX', `--knob expects Name=Value, got '${k}'`);
      knobs.push({ name: k.slice(0, eq), value: k.slice(eq + 1), where: '--knob' });
    }
    const disabled = [o.disablePasses, io.env.PTXFORGE_DISABLED_PASSES].filter((s): s is string => !!s).join(',');
    const dumpIr = o.dumpIr.flatMap((d) => d.split(',')).map((s) => s.trim()).filter(Boolean);
    const options: CompileOptions = {
      arch: o.gpuName,
      optLevel: Number(o.optLevel),
      knobs,
      shuffleSeed: Number(o.shuffleSeed),
      disablePasses: disabled,
      stats: o.stat === 'phase-wise',
      verifyIr: !!o.verifyIr,
      ...(o.namedPhases !== undefined ? { namedPhases: o.namedPhases } : {}),
      ...(dumpIr.length ? { dumpIr: dumpIr.some((d) => d.toLowerCase() === 'all') ? ('all' as const) : dumpIr } : {}),
    };
    const file = path.resolve(io.cwd, input);
    const text = readText(file, input);
    const interp = interpOptionsOf(o, io.cwd);
    const verify = verifyEachFor(interp);
    if (verify) options.instrumentation = [verify];
    const t0 = performance.now();
    const result = tc.compile({ text, file: input }, options);
    const ms = performance.now() - t0;
    for (const d of result.dumps) io.stdout(`// ----- IR after phase ${d.index} ${d.phase} -----\n${d.text}`);
    for (const line of result.statLines) io.stderr(`${line}\n`);
    if (o.remarks) writeRemarks(path.resolve(io.cwd, o.remarks), o.remarks, input, o.gpuName, result.remarks);
    for (const d of result.diagnostics) {
      if (d.severity === 'warning' || d.severity === 'error' || o.verbose) {
        io.stderr(`${input}${d.line ? `:${d.line}` : ''}: ${d.severity} ${d.code}: ${d.fn ? `${d.fn}: ` : ''}${d.message}\n`);
      }
    }
    if (o.verbose) {
      for (const fn of result.module.functions) {
        io.stdout(`ptxforge info    : Compiling ${fn.kind === 'entry' ? 'entry' : 'device'} function '${fn.name}' for '${o.gpuName}'\n`);
        io.stdout(`ptxforge info    : Function ${fn.name}: ${fn.instructionCount} instructions, ${fn.blocks.length} blocks, ${fn.registers.length} virtual registers\n`);
      }
      for (const m of result.info) io.stdout(`ptxforge info    : ${m}\n`);
      io.stdout(`ptxforge info    : Compile time = ${ms.toFixed(3)} ms\n`);
    }
    if (verify && o.verbose) {
      io.stdout(`ptxforge info    : verify-each: ${verify.report.phasesChecked} phases checked, ${verify.report.runs} runs\n`);
    }
    for (const s of verify?.report.skipped ?? []) io.stderr(`${input}: warning VERIFY_EACH_SKIPPED: kernel ${s.kernel} not verified: ${s.reason}\n`);
    if (o.run) {
      const code = runAfterCompile(result.module, interp, io);
      if (code !== 0) return code;
    }
    if (o.output || o.emit) {
      const out = printModule(result.module);
      if (o.output) writeFileSync(path.resolve(io.cwd, o.output), out);
      else io.stdout(out);
    }
    return 0;
  } catch (e) {
    if (isPtxforgeError(e)) {
      io.stderr(`ptxforge: ${e.format()}\n`);
      return 1;
    }
    const err = e as Error;
    io.stderr(`ptxforge: internal compiler error: ${err.message}\n`);
    if (io.env.PTXFORGE_DEBUG) io.stderr(`${err.stack}\n`);
    return 2;
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

function readText(file: string, shown: string): string {
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
    io.stdout(`# target ${t.id} (${t.family}): pipe widths ${PIPE_NAMES.map((n, k) => `${n}=${t.pipeWidths[k]}`).join(' ')}\n`);
  }
}
