/**
 * Launch descriptions for the external test corpora (/work/shared/corpus: ZLUDA and ptoxide `cases.json`), so
 * a front end can run them through `runKernel` and compare with the expected bytes.
 */
import type { BufferSpec, Launch, ParamSpec, ScalarType } from './launch.js';
import { bufferBytes } from './launch.js';

/** Rust-style element types of the corpus (`i32`) as launch types (`s32`). */
export function corpusType(t: string): ScalarType {
  return (t.startsWith('i') ? `s${t.slice(1)}` : t) as ScalarType;
}

export interface CorpusRun {
  readonly launch: Launch;
  /** Expected final bytes of output buffers (when the case gives them). */
  readonly expected: Record<string, Uint8Array>;
}

interface ZludaBuf {
  type: string;
  count: number;
  bytes_hex_le: string;
}
export interface ZludaCase {
  name: string;
  entry: string;
  kind: string;
  launch?: { grid: number[]; block: number[] };
  inputs: ZludaBuf | null;
  expected: ZludaBuf | null;
}

/**
 * A ZLUDA case (harness_semantics of zluda/cases.json): `io` kernels take (input_ptr, output_ptr), `warp`
 * kernels get the output pointer for each of their `paramCount` parameters; the output starts zeroed.
 */
export function zludaRun(c: ZludaCase, paramCount = 2): CorpusRun | undefined {
  if ((c.kind !== 'io' && c.kind !== 'warp') || !c.expected) return undefined;
  const out: BufferSpec = { type: corpusType(c.expected.type), count: c.expected.count };
  const buffers: Record<string, BufferSpec> = { out };
  let params: ParamSpec[];
  if (c.kind === 'io') {
    buffers.in = { type: 'u8', hex: c.inputs?.bytes_hex_le ?? '' };
    params = [{ buffer: 'in' }, { buffer: 'out' }];
  } else {
    params = Array.from({ length: paramCount }, () => ({ buffer: 'out' }));
  }
  const launch: Launch = {
    kernel: c.entry,
    grid: c.launch?.grid ?? [1, 1, 1],
    block: c.launch?.block ?? (c.kind === 'warp' ? [64, 1, 1] : [1, 1, 1]),
    buffers,
    params,
  };
  return { launch, expected: { out: bufferBytes('out', { type: 'u8', hex: c.expected.bytes_hex_le }) } };
}

interface PtoxideBuf {
  name: string;
  type: string;
  count: number | string;
  values?: number[];
  bytes_hex_le?: string;
  generator?: string;
}
export interface PtoxideCase {
  name: string;
  entry: string;
  launch?: { grid: number[]; block: number[] };
  instances?: Array<Record<string, number | number[]>>;
  params: Array<{ kind: string; buffer?: string; value?: number | string }>;
  buffers_in: PtoxideBuf[];
  buffers_out: PtoxideBuf[];
}

/** Evaluate `m*k`-style sizes and `fill 1.0` / `fill float(k)` generators with an instance's variables. */
function evalExpr(e: number | string, vars: Record<string, number | number[]>): number {
  if (typeof e === 'number') return e;
  const expr = e.replace(/float\(([^)]*)\)/g, '($1)').replace(/\b[a-z_]\w*\b/gi, (name) => String(vars[name] ?? NaN));
  if (!/^[\d\s.+\-*/()]+$/.test(expr)) return NaN;
  return Function(`"use strict"; return (${expr});`)() as number;
}

function ptoxideBuffer(b: PtoxideBuf, vars: Record<string, number | number[]>): BufferSpec | undefined {
  const count = evalExpr(b.count, vars);
  const type = corpusType(b.type);
  if (b.values) return { type, count, values: b.values };
  if (b.bytes_hex_le) return { type, count, hex: b.bytes_hex_le };
  const fill = /^fill (.+?)(\s+\(.*\))?$/.exec(b.generator ?? '');
  if (fill) {
    const v = evalExpr(fill[1]!, vars);
    return Number.isNaN(v) ? undefined : { type, count, fill: v };
  }
  return undefined;
}

/** The runs of a ptoxide case (one per instance); outputs without a computable expectation are left out. */
export function ptoxideRuns(c: PtoxideCase): CorpusRun[] {
  const instances = c.instances ?? [{ grid: c.launch?.grid ?? [1, 1, 1], block: c.launch?.block ?? [1, 1, 1] }];
  return instances.map((inst) => {
    const buffers: Record<string, BufferSpec> = {};
    const expected: Record<string, Uint8Array> = {};
    for (const b of c.buffers_in) buffers[b.name] = ptoxideBuffer(b, inst) ?? { type: corpusType(b.type), count: evalExpr(b.count, inst) };
    for (const b of c.buffers_out) {
      const spec = ptoxideBuffer(b, inst);
      buffers[b.name] = { type: corpusType(b.type), count: evalExpr(b.count, inst) };
      if (spec) expected[b.name] = bufferBytes(b.name, spec);
    }
    const params: ParamSpec[] = c.params.map((p) =>
      p.kind === 'ptr' ? { buffer: p.buffer! } : { type: corpusType(p.kind), value: evalExpr(p.value ?? 0, inst) },
    );
    return { launch: { kernel: c.entry, grid: inst.grid as number[], block: inst.block as number[], buffers, params }, expected };
  });
}
