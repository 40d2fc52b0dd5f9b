import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PtxforgeError, type OriModule } from '@ptxforge/kernel';
import {
  bufferBytes, createVerifyEachInstrumentation, findKernel, toHex, type BufferSpec, type RunResult, generateLaunch, parseLaunch, resultToJSON, runKernel,
  type Launch, type VerifyEachInstrumentation,
} from '@ptxforge/interp';
import type { CliIO } from './run.js';
import { readCubin } from '@ptxforge/cubin';
import { liftCubin } from '@ptxforge/sass-lift';

/** The interpreter-related CLI flags (--verify-each, --launch, --seed, --run). */
export interface InterpCliOptions {
  verifyEach?: boolean;
  verifyEachDir: string;
  launch?: string;
  seed?: string;
  run?: boolean;
  runOut?: string;
  runRaw?: string;
  saveLaunch?: string;
}

export interface ResolvedInterpOptions {
  readonly verifyEach: boolean;
  readonly outDir: string;
  readonly launch: Launch | undefined;
  readonly seed: number;
  readonly run: boolean;
  readonly runOut: string | undefined;
  readonly runRaw: string | undefined;
  readonly saveLaunch: string | undefined;
}

export function interpOptionsOf(o: InterpCliOptions, cwd: string): ResolvedInterpOptions {
  let launch: Launch | undefined;
  if (o.launch) {
    let text: string;
    try {
      text = readFileSync(path.resolve(cwd, o.launch), 'utf8');
    } catch (e) {
      throw new PtxforgeError('INPUT_NOT_FOUND', `cannot read ${o.launch}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    launch = parseLaunch(text, o.launch);
  }
  if (o.seed !== undefined && !/^\d+$/.test(o.seed)) throw new PtxforgeError('CLI_USAGE', `--seed expects a non-negative integer, got '${o.seed}'`);
  return {
    verifyEach: !!o.verifyEach,
    outDir: path.resolve(cwd, o.verifyEachDir),
    launch,
    seed: o.seed !== undefined ? Number(o.seed) : 1,
    run: !!o.run,
    runOut: o.runOut ? path.resolve(cwd, o.runOut) : undefined,
    runRaw: o.runRaw ? path.resolve(cwd, o.runRaw) : undefined,
    saveLaunch: o.saveLaunch ? path.resolve(cwd, o.saveLaunch) : undefined,
  };
}

/** The verify-each instrumentation for the compile call, when --verify-each is on. */
export function verifyEachFor(o: ResolvedInterpOptions): VerifyEachInstrumentation | undefined {
  if (!o.verifyEach) return undefined;
  return createVerifyEachInstrumentation({ ...(o.launch ? { launch: o.launch } : {}), seed: o.seed, outDir: o.outDir });
}

/**
 * The launch as replayable JSON: buffers as their exact initial bytes (`hex`, little endian) with their element
 * type, so the same launch runs against a cubin of the same PTX (`ptxforge --run k.cubin --launch L.json`).
 */
export function savedLaunch(launch: Launch): Launch {
  const buffers: Record<string, BufferSpec> = {};
  for (const [name, spec] of Object.entries(launch.buffers ?? {})) {
    buffers[name] = { ...(spec.type ? { type: spec.type } : {}), hex: toHex(bufferBytes(name, spec)) };
  }
  return { ...launch, buffers };
}

/**
 * --run on a cubin: lift the kernel's SASS (decoded with the installed Mercury tables) into Ori with physical
 * registers and run it; prints the same JSON as --run on PTX.
 */
export function runCubinFile(file: string, o: ResolvedInterpOptions, kernel: string | undefined, io: CliIO): number {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path.resolve(io.cwd, file));
  } catch (e) {
    throw new PtxforgeError('INPUT_NOT_FOUND', `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  let lifted;
  try {
    lifted = liftCubin(readCubin(bytes, { file }), kernel ?? o.launch?.kernel);
  } catch (e) {
    const code = (e as { code?: string }).code ?? 'LIFT_FAILED';
    io.stderr(`ptxforge: error ${code}: ${(e as Error).message}\n`);
    return 1;
  }
  const launch = o.launch ? { ...o.launch, kernel: lifted.kernel } : generateLaunch(lifted.module, findKernel(lifted.module, lifted.kernel), o.seed);
  if (o.saveLaunch) writeFileSync(o.saveLaunch, `${JSON.stringify(savedLaunch(launch), null, 1)}\n`);
  const result = runKernel(lifted.module, launch, { physicalRegisters: true, checkUndefined: false });
  return printRun(result, o, io);
}

/** --run: interpret the compiled module; prints (or writes) the JSON result. Returns the exit code. */
export function runAfterCompile(module: OriModule, o: ResolvedInterpOptions, io: CliIO): number {
  const launch = o.launch ?? generateLaunch(module, findKernel(module, undefined), o.seed);
  if (o.saveLaunch) writeFileSync(o.saveLaunch, `${JSON.stringify(savedLaunch(launch), null, 1)}\n`);
  const result = runKernel(module, launch);
  return printRun(result, o, io);
}

function printRun(result: RunResult, o: ResolvedInterpOptions, io: CliIO): number {
  // Indented objects, arrays of numbers on one line.
  const json = `${JSON.stringify(resultToJSON(result), null, 1).replace(/\[\n\s*([^[\]{}]*?)\n\s*\]/g, (_, body: string) => `[${body.replace(/\n\s*/g, ' ')}]`)}\n`;
  if (o.runOut) writeFileSync(o.runOut, json);
  else io.stdout(json);
  if (o.runRaw) {
    mkdirSync(o.runRaw, { recursive: true });
    for (const [name, b] of Object.entries(result.buffers)) writeFileSync(path.join(o.runRaw, `${name.replace(/[^\w.-]/g, '_')}.bin`), b.bytes);
  }
  for (const e of result.errors) io.stderr(`ptxforge: error ${e.code}: ${e.message}\n`);
  return result.ok ? 0 : 1;
}
