import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { createToolchain, isPtxforgeError, KNOWN_ARCHS, smNumber, type Toolchain } from '@ptxforge/kernel';
import { createVerifyEachInstrumentation, runKernel, type Launch } from '@ptxforge/interp';
import { loadDefaultPlugins } from '@ptxforge/cli';
import { parsePtx } from '@ptxforge/ptx';

/** A launch as @ptxforge/interp's runKernel reads it. */
export type LaunchLike = Launch;

export interface SuiteResult {
  passed: number;
  failed: number;
  failures: string[];
  /** Extra detail for the summary line. */
  note?: string;
}

/** How one case runs: compile `file`, run `launch`, return the `check` verdict (undefined = pass) or the reason. */
export type CaseRunner = (h: Harness, file: string, launch: LaunchLike, check: (out: Record<string, Uint8Array>) => string | undefined) => string | undefined;

export interface Harness {
  corpus: string;
  /** Default: the PTX path at -O0 and -O3; the SASS differential swaps in ptxas + lifted cubins. */
  runner?: CaseRunner;
  /** The CLI's default plugin set (front end, core, targets and every installed optimization plugin). */
  tc: Toolchain;
  arch: string;
  /** Run only cases whose name contains this text (`--case=`). */
  caseFilter?: string;
}

export async function makeHarness(corpus: string, arch = 'sm_90'): Promise<Harness> {
  return { corpus, tc: createToolchain({ plugins: await loadDefaultPlugins() }), arch };
}

/**
 * Compile PTX through the front end and the pipeline at -O0, or -O3 with the IR verified after every phase
 * (and the interpreter's --verify-each when it provides one), run the launch, and return the output bytes.
 */
export function runAt(h: Harness, text: string, file: string, level: 0 | 3, launchIn: LaunchLike): Record<string, Uint8Array> {
  // ZLUDA's warp kernels take the output pointer once or twice: pass as many pointers as the kernel has.
  const arch = archFor(h, text);
  const module0 = h.tc.compile({ text, file }, { arch, optLevel: 0 }).module;
  const k = module0.functions.find((f) => f.name === launchIn.kernel);
  const given = launchIn.params as readonly unknown[] | undefined;
  const launch: Launch = k && Array.isArray(given) && given.length > k.params.length ? { ...launchIn, params: given.slice(0, k.params.length) as Launch['params'] } : launchIn;
  const ve = level === 3 ? createVerifyEachInstrumentation({ launch }) : undefined;
  const result = level === 0 ? { module: module0 } : h.tc.compile({ text, file }, { arch, optLevel: level, verifyIr: true, instrumentation: ve ? [ve] : [] });
  const mm = ve?.report.mismatch;
  if (mm) throw new Error(`--verify-each: after ${mm.phase.name}: ${mm.message}`);
  const run = runKernel(result.module, launch);
  if (!run.ok) throw new Error(run.errors.map((e) => e.message).join('; ') || 'interpreter failed');
  const out: Record<string, Uint8Array> = {};
  for (const [k, v] of Object.entries(run.buffers)) out[k] = v.bytes;
  return out;
}

/**
 * The -arch a file is compiled for: the harness's, or the file's `.target` when that is a newer architecture
 * (ptxas refuses a `.target` above -arch, so a user compiles such a file for its own target).
 */
export function archFor(h: Harness, text: string): string {
  const t = /^\s*\.target\s+(sm_\d+[a-z]?)/m.exec(text)?.[1];
  const want = t ? smNumber(t) : undefined;
  const have = smNumber(h.arch);
  return t && want !== undefined && have !== undefined && want > have && KNOWN_ARCHS.has(t) ? t : h.arch;
}

function firstDiff(a: string, b: string): number {
  let k = 0;
  while (k < a.length && a[k] === b[k]) k++;
  return k >> 1;
}

export function hex(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += b.toString(16).padStart(2, '0');
  return s;
}

export function describeError(e: unknown): string {
  if (isPtxforgeError(e)) return e.format();
  return (e as Error).message ?? String(e);
}

// ---- ZLUDA -------------------------------------------------------------------------------------
interface ZludaCase {
  name: string;
  disabled: boolean;
  kind: 'io' | 'warp' | 'compile_only' | string;
  ptx_file: string;
  entry: string;
  inputs: { bytes_hex_le: string } | null;
  expected: { bytes_hex_le: string } | null;
  /** ptxas 13.0.88's verdict for -arch=sm_90: 'ok' or its error message. */
  ptxas_sm90?: string;
}

/**
 * ZLUDA launches no dynamic shared memory, but several kernels write `.extern .shared` arrays, which the
 * hardware tolerates because shared allocations are rounded up (256 bytes and more). The interpreter checks
 * the window exactly, so the harness gives that rounding explicitly.
 */
const ZLUDA_SHARED_SLACK = 256;
/** Bytes past a warp case's expected output (cudaMalloc rounds allocations up; see runZluda). */
const ZLUDA_WARP_OUTPUT_SLACK = 2048;

/** ZLUDA spirv_run cases; `harness_semantics` in cases.json says how io and warp cases launch. */
export function runZluda(h: Harness, opts: { ioOnly?: boolean } = {}): { io: SuiteResult; warp: SuiteResult } {
  const j = JSON.parse(readFileSync(path.join(h.corpus, 'zluda/cases.json'), 'utf8')) as { cases: ZludaCase[] };
  const io: SuiteResult = { passed: 0, failed: 0, failures: [] };
  const warp: SuiteResult = { passed: 0, failed: 0, failures: [] };
  for (const c of j.cases) {
    if (c.disabled || (c.kind !== 'io' && c.kind !== 'warp') || !c.expected) continue;
    if (opts.ioOnly && c.kind !== 'io') continue;
    if (h.caseFilter && !c.name.includes(h.caseFilter)) continue;
    const suite = c.kind === 'io' ? io : warp;
    const file = path.join('zluda', c.ptx_file);
    const expected = c.expected.bytes_hex_le;
    const zeros = '00'.repeat(expected.length / 2);
    const launch: LaunchLike = c.kind === 'io'
      ? {
        kernel: c.entry, grid: [1, 1, 1], block: [1, 1, 1],
        buffers: { input: { hex: c.inputs?.bytes_hex_le ?? '' }, output: { hex: zeros } },
        params: [{ buffer: 'input' }, { buffer: 'output' }], outputs: ['output'], sharedBytes: ZLUDA_SHARED_SLACK,
      }
      : {
        // Warp kernels index the output by %tid.x over a 64-thread block while some expect only the first
        // warp's bytes: on the GPU the second warp's stores land in the allocation's slack (allocations are
        // rounded up), so the buffer gets that slack here and only the expected bytes are compared; module
        // .global arrays and the shared window the second warp over-reads (ldmatrix.ptx) get the same slack.
        kernel: c.entry, grid: [1, 1, 1], block: [64, 1, 1], sharedBytes: ZLUDA_WARP_OUTPUT_SLACK, globalSlack: ZLUDA_WARP_OUTPUT_SLACK,
        buffers: { output: { hex: zeros + '00'.repeat(ZLUDA_WARP_OUTPUT_SLACK) } }, params: [{ buffer: 'output' }, { buffer: 'output' }], outputs: ['output'],
      };
    const why = (h.runner ?? runBothLevels)(h, file, launch, (out) => {
      const got = hex(out.output ?? new Uint8Array()).slice(0, expected.length);
      return got === expected ? undefined : `output differs at byte ${firstDiff(got, expected)}: ${got.slice(0, 48)}... expected ${expected.slice(0, 48)}...`;
    });
    // A kernel ptxas rejects for sm_90 (vote without .sync under PTX 6.4+ / sm_70+) passes when we reject it
    // too, with a located coded error: what ptxas rejects, we reject.
    const rejectedLikePtxas = !!why && !!c.ptxas_sm90 && c.ptxas_sm90 !== 'ok' && !/crash/i.test(c.ptxas_sm90) &&
      /^-O0: [^\s:]+:\d+:\d+: error [A-Z0-9_]+: /.test(why);
    if (why && !rejectedLikePtxas) {
      suite.failed++;
      suite.failures.push(`zluda/${c.name}: ${why}`);
    } else suite.passed++;
  }
  return { io, warp };
}

function runBothLevels(h: Harness, file: string, launch: LaunchLike, check: (out: Record<string, Uint8Array>) => string | undefined): string | undefined {
  let text: string;
  try {
    text = readFileSync(path.join(h.corpus, file), 'utf8');
  } catch (e) {
    return `cannot read ${file}: ${(e as Error).message}`;
  }
  for (const level of [0, 3] as const) {
    try {
      const bad = check(runAt(h, text, file, level, launch));
      if (bad) return `-O${level}: ${bad}`;
    } catch (e) {
      return `-O${level}: ${describeError(e).split('\n')[0]}`;
    }
  }
  return undefined;
}

// ---- ptoxide -----------------------------------------------------------------------------------
interface PtoxBuffer {
  name: string;
  type: string;
  count: number | string;
  values?: number[];
  bytes_hex_le?: string;
  generator?: string;
}
interface PtoxCase {
  name: string;
  ptx_file: string;
  entry: string;
  launch?: { grid: number[]; block: number[] };
  params: Array<{ kind: 'ptr'; buffer: string } | { kind: string; value: number | string }>;
  instances?: Array<Record<string, number | number[]>>;
  buffers_in?: PtoxBuffer[];
  buffers_out: PtoxBuffer[];
}

/** Evaluate `n*n`, `m*k` ... with the instance variables. */
function sizeOf(expr: number | string, vars: Record<string, number>): number {
  if (typeof expr === 'number') return expr;
  return expr.split('*').reduce((acc, t) => acc * (vars[t.trim()] ?? Number(t)), 1);
}

/** The few generator rules cases.json uses ("fill 1.0", "fill float(k)", "a[x*n+y] = float(x*n+y)", transpose). */
function generate(b: PtoxBuffer, vars: Record<string, number>, inputs: Record<string, Float32Array>): Float32Array {
  const count = sizeOf(b.count, vars);
  const out = new Float32Array(count);
  if (b.values) {
    out.set(b.values);
    return out;
  }
  const g = b.generator ?? '';
  let m = /^fill\s+float\((\w+)\)/.exec(g);
  if (m) return out.fill(vars[m[1]!]!);
  m = /^fill\s+(-?[\d.]+)/.exec(g);
  if (m) return out.fill(Number(m[1]));
  if (/^a\[x\*n\+y\] = float\(x\*n\+y\)/.test(g)) {
    for (let i = 0; i < count; i++) out[i] = i;
    return out;
  }
  if (/^b\[x\*n\+y\] = a\[y\*n\+x\]/.test(g)) {
    const n = vars.n!;
    const a = inputs.a!;
    for (let x = 0; x < n; x++) for (let y = 0; y < n; y++) out[x * n + y] = a[y * n + x]!;
    return out;
  }
  throw new Error(`unknown generator '${g}' for buffer ${b.name}`);
}

export function runPtoxide(h: Harness): SuiteResult {
  const j = JSON.parse(readFileSync(path.join(h.corpus, 'ptoxide/cases.json'), 'utf8')) as { cases: PtoxCase[] };
  const r: SuiteResult = { passed: 0, failed: 0, failures: [] };
  for (const c of j.cases) {
    if (h.caseFilter && !c.name.includes(h.caseFilter)) continue;
    const instances = c.instances ?? [{ grid: c.launch!.grid, block: c.launch!.block }];
    let why: string | undefined;
    for (const inst of instances) {
      const vars: Record<string, number> = {};
      for (const [k, v] of Object.entries(inst)) if (typeof v === 'number') vars[k] = v;
      const inputs: Record<string, Float32Array> = {};
      const buffers: Record<string, { hex: string }> = {};
      for (const b of c.buffers_in ?? []) {
        inputs[b.name] = generate(b, vars, inputs);
        buffers[b.name] = { hex: hex(new Uint8Array(inputs[b.name]!.buffer)) };
      }
      const expected: Record<string, string> = {};
      for (const b of c.buffers_out) {
        expected[b.name] = hex(new Uint8Array(generate(b, vars, inputs).buffer));
        buffers[b.name] = { hex: '00'.repeat(expected[b.name]!.length / 2) };
      }
      const params = c.params.map((p) => ('buffer' in p ? { buffer: p.buffer } : { type: p.kind as 'u64', value: typeof p.value === 'string' ? vars[p.value]! : p.value }));
      const launch: LaunchLike = { kernel: c.entry, grid: inst.grid as number[], block: inst.block as number[], buffers, params, outputs: Object.keys(expected) };
      why = (h.runner ?? runBothLevels)(h, path.join('ptoxide', c.ptx_file), launch, (out) => {
        for (const [name, want] of Object.entries(expected)) {
          const got = hex(out[name] ?? new Uint8Array());
          if (got !== want) return `buffer ${name} differs (${got.slice(0, 32)}... vs ${want.slice(0, 32)}...)`;
        }
        return undefined;
      });
      if (why) {
        why = `${JSON.stringify(vars)} ${why}`;
        break;
      }
    }
    if (why) {
      r.failed++;
      r.failures.push(`ptoxide/${c.name}: ${why}`);
    } else r.passed++;
  }
  return r;
}

// ---- parse ---------------------------------------------------------------------------------------
export function ptxFiles(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir).sort()) {
    const p = path.join(dir, e);
    if (statSync(p).isDirectory()) ptxFiles(p, out);
    else if (e.endsWith('.ptx')) out.push(p);
  }
  return out;
}

/** Parse every .ptx under the corpus: accepted, rejected with a located PtxforgeError, or crashed. */
export function runParse(corpus: string): { accepted: number; rejected: string[]; crashed: string[] } {
  let accepted = 0;
  const rejected: string[] = [];
  const crashed: string[] = [];
  for (const f of ptxFiles(corpus)) {
    const rel = path.relative(corpus, f);
    try {
      parsePtx(readFileSync(f, 'utf8'), rel);
      accepted++;
    } catch (e) {
      if (isPtxforgeError(e) && e.pos) rejected.push(e.format());
      else crashed.push(`${rel}: ${(e as Error).stack ?? String(e)}`);
    }
  }
  return { accepted, rejected, crashed };
}

export function corpusDir(repoRoot: string): string | undefined {
  const d = path.resolve(repoRoot, '../shared/corpus');
  return existsSync(d) ? d : undefined;
}
