// ptxas's `-v` lines (stderr), formatted from what the backend knows about each compiled function, and the same
// numbers read back from a cubin (to check the formatter against ptxas's own -v output on its own cubins).
// Formats, checked against ptxas 13.0.88 on kernels with shared memory, local arrays, barriers and calls:
//   ptxas info    : 0 bytes gmem
//   ptxas info    : Compiling entry function 'k' for 'sm_90'
//   ptxas info    : Function properties for k
//       64 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 10 registers, used 2 barriers, 64 bytes cumulative stack size, 128 bytes smem
//   ptxas info    : Compile time = 11.258 ms
// sm_75..sm_89 also list the constant banks (`, 364 bytes cmem[0], 16 bytes cmem[2]`); sm_90 does not.
// Device functions kept as functions get a "Function properties for f" block after all entries.
import { attributeInfo, decodeAttribute } from './nvinfo.js';
import { layoutProfileFor } from './profile.js';
import type { Cubin } from './read.js';
import { SHT } from './elf.js';

export const PTXAS_INFO = 'ptxas info    : ';

export interface VerboseFunctionStats {
  name: string;
  kind: 'entry' | 'func';
  registers: number;
  barriers?: number;
  /** Bytes of the function's own stack frame (locals and spills). */
  stackFrame: number;
  spillStores: number;
  spillLoads: number;
  /** Frame plus the deepest callee's (printed when > 0). */
  cumulativeStack?: number;
  /** Static shared memory of the kernel (printed when > 0). */
  sharedBytes?: number;
  /** Constant-bank bytes per bank (printed on targets whose ptxas prints them, banks with > 0 bytes). */
  cmem?: Array<{ bank: number; bytes: number }>;
}

export interface VerboseOptions {
  /** Compile time of the function in milliseconds (the line is left out when undefined). */
  compileMs?: number;
}

function smOf(arch: string): number | undefined {
  const m = /^sm_(\d+)/.exec(arch);
  return m ? Number(m[1]) : undefined;
}

function printsCmem(arch: string): boolean {
  const sm = smOf(arch);
  return sm !== undefined && (layoutProfileFor(sm)?.verbosePrintsCmem ?? false);
}

/**
 * `ptxas info    : N bytes gmem` and, on targets whose ptxas lists constant banks, the module's banks
 * (`, 16 bytes cmem[3], 8 bytes cmem[4]`: .const data and global-address tables).
 */
export function gmemLine(arch: string, bytes: number, cmem: ReadonlyArray<{ bank: number; bytes: number }> = []): string {
  let line = `${PTXAS_INFO}${bytes} bytes gmem`;
  if (printsCmem(arch)) for (const c of cmem) if (c.bytes > 0) line += `, ${c.bytes} bytes cmem[${c.bank}]`;
  return line;
}

/** The -v lines of one function (no trailing newlines), exactly as ptxas prints them. */
export function ptxasVerboseLines(arch: string, f: VerboseFunctionStats, opts: VerboseOptions = {}): string[] {
  const lines: string[] = [];
  if (f.kind === 'entry') lines.push(`${PTXAS_INFO}Compiling entry function '${f.name}' for '${arch}'`);
  lines.push(`${PTXAS_INFO}Function properties for ${f.name}`);
  lines.push(`    ${f.stackFrame} bytes stack frame, ${f.spillStores} bytes spill stores, ${f.spillLoads} bytes spill loads`);
  if (f.kind !== 'entry') return lines;
  let used = `${PTXAS_INFO}Used ${f.registers} registers, used ${f.barriers ?? 0} barriers`;
  if (f.cumulativeStack) used += `, ${f.cumulativeStack} bytes cumulative stack size`;
  if (f.sharedBytes) used += `, ${f.sharedBytes} bytes smem`;
  if (printsCmem(arch)) for (const c of f.cmem ?? []) if (c.bytes > 0) used += `, ${c.bytes} bytes cmem[${c.bank}]`;
  lines.push(used);
  if (opts.compileMs !== undefined) lines.push(`${PTXAS_INFO}Compile time = ${opts.compileMs.toFixed(3)} ms`);
  return lines;
}

/**
 * The -v numbers of a cubin's kernels, in the order ptxas prints them (its section order): registers, barriers,
 * frame (EIATTR_FRAME_SIZE), cumulative stack (EIATTR_MIN_STACK_SIZE), shared memory (less the system reserve),
 * constant banks 0 and 2. Spill counts are not recorded in a cubin and read as 0.
 */
export function verboseStatsOfCubin(c: Cubin): { gmem: number; cmem: Array<{ bank: number; bytes: number }>; functions: VerboseFunctionStats[] } {
  const reserve = layoutProfileFor(c.arch.sm)?.sharedReserve ?? 0;
  let gmem = 0;
  for (const s of c.sections) if (s.name === '.nv.global' || s.name === '.nv.global.init') gmem += s.size;
  const cmem: Array<{ bank: number; bytes: number }> = [];
  for (const s of c.sections) {
    const m = /^\.nv\.constant(\d+)$/.exec(s.name);
    if (m) cmem.push({ bank: Number(m[1]), bytes: s.size });
  }
  cmem.sort((a, b) => a.bank - b.bank);
  const functions: VerboseFunctionStats[] = [];
  for (const f of c.functions) {
    if (!f.isEntry) continue;
    const global = (name: string) => {
      for (const r of f.globalAttributes) {
        if (attributeInfo(r.code).name !== name) continue;
        const v = decodeAttribute(r);
        if (v.kind === 'symValue') return v.value;
      }
      return 0;
    };
    let barriers = 0;
    for (const r of f.attributes) {
      if (attributeInfo(r.code).name !== 'EIATTR_NUM_BARRIERS') continue;
      const v = decodeAttribute(r);
      if (v.kind === 'value') barriers = v.value;
    }
    const cmem: Array<{ bank: number; bytes: number }> = [];
    if (f.constant0) cmem.push({ bank: 0, bytes: f.constant0.size });
    const c2 = c.sections.find((s) => s.name === `.nv.constant2.${f.name}`);
    if (c2 && c2.type !== SHT.NOBITS) cmem.push({ bank: 2, bytes: c2.size });
    functions.push({
      name: f.name,
      kind: 'entry',
      registers: f.registerCount ?? 0,
      barriers,
      stackFrame: global('EIATTR_FRAME_SIZE'),
      spillStores: 0,
      spillLoads: 0,
      cumulativeStack: global('EIATTR_MIN_STACK_SIZE'),
      sharedBytes: f.shared ? Math.max(0, f.shared.size - reserve) : 0,
      cmem,
    });
  }
  return { gmem, cmem, functions };
}
