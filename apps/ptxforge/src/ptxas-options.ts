/**
 * ptxas 13's command line, as data. Every option ptxas documents is accepted (`ptxas --help`); the ones
 * ptxforge cannot honour yet are accepted with a warning naming what is missing, never "unknown option".
 * ptxas spells long options with one dash too (`-arch sm_90`, `-lineinfo`, `-maxrregcount=32`) and
 * values with or without `=`; commander wants `--long`, so arguments are normalised through this table.
 */
export interface PtxasOption {
  /** Long name without dashes (`gpu-name`). */
  readonly long: string;
  /** ptxas's short spellings without the dash (`arch`, `m`). */
  readonly short: readonly string[];
  /** Takes a value. */
  readonly value: boolean;
  /**
   * Undefined when ptxforge honours the option; otherwise the warning printed when it is given
   * (the option is accepted and ignored).
   */
  readonly notHonoured?: string;
}

const NOT_YET_CODEGEN = 'takes effect once the code-generation backend (register allocation, scheduling) lands';

export const PTXAS_OPTIONS: readonly PtxasOption[] = [
  { long: 'Ofast-compile', short: ['Ofc'], value: true, notHonoured: 'fast-compile levels are not modelled; the -O level decides' },
  { long: 'allow-expensive-optimizations', short: ['allow-expensive-optimizations'], value: true, notHonoured: 'no expensive-only optimizations exist' },
  { long: 'compile-as-tools-patch', short: ['astoolspatch'], value: false, notHonoured: 'tools patches are not supported' },
  { long: 'compile-only', short: ['c'], value: false },
  { long: 'compiler-annotations', short: ['annotate'], value: false, notHonoured: 'annotations are not emitted' },
  { long: 'def-load-cache', short: ['dlcm'], value: true, notHonoured: `default load cache modifiers ${NOT_YET_CODEGEN}` },
  { long: 'def-store-cache', short: ['dscm'], value: true, notHonoured: `default store cache modifiers ${NOT_YET_CODEGEN}` },
  { long: 'device-debug', short: ['g'], value: false, notHonoured: 'no debug information is emitted (optimizations stay on)' },
  { long: 'device-function-maxrregcount', short: ['func-maxrregcount'], value: true, notHonoured: `register limits ${NOT_YET_CODEGEN}` },
  { long: 'device-stack-protector', short: ['device-stack-protector'], value: true, notHonoured: 'stack protection is not emitted' },
  { long: 'disable-optimizer-constants', short: ['disable-optimizer-consts'], value: false, notHonoured: 'optimizer constant banks are not used' },
  { long: 'disable-warnings', short: ['w'], value: false },
  { long: 'dont-merge-basicblocks', short: ['no-bb-merge'], value: false, notHonoured: 'block merging cannot be disabled separately' },
  { long: 'entry', short: ['e'], value: true },
  { long: 'extensible-whole-program', short: ['ewp'], value: false, notHonoured: 'extensible whole-program mode is not supported' },
  { long: 'fmad', short: ['fmad'], value: true },
  { long: 'force-load-cache', short: ['flcm'], value: true, notHonoured: `forced load cache modifiers ${NOT_YET_CODEGEN}` },
  { long: 'force-store-cache', short: ['fscm'], value: true, notHonoured: `forced store cache modifiers ${NOT_YET_CODEGEN}` },
  { long: 'g-tensor-memory-access-check', short: ['g-tmem-access-check'], value: false, notHonoured: 'tensor-memory access checks are not emitted' },
  { long: 'generate-line-info', short: ['lineinfo'], value: false, notHonoured: 'line tables are not emitted yet' },
  { long: 'gno-tensor-memory-access-check', short: ['gno-tmem-access-check'], value: false, notHonoured: 'tensor-memory access checks are not emitted' },
  { long: 'gpu-name', short: ['arch'], value: true },
  { long: 'help', short: ['h'], value: false },
  { long: 'input-as-string', short: ['ias'], value: true },
  { long: 'legacy-bar-warp-wide-behavior', short: ['legacy-bar-warp-wide-behavior'], value: false, notHonoured: 'barriers keep the sm_70+ per-thread semantics' },
  { long: 'list-version', short: ['version-ls'], value: false },
  { long: 'machine', short: ['m'], value: true },
  { long: 'make-errors-visible-at-exit', short: ['make-errors-visible-at-exit'], value: false, notHonoured: 'error-reporting exits are not emitted' },
  { long: 'maxntid', short: ['maxntid'], value: true, notHonoured: `launch-bound overrides ${NOT_YET_CODEGEN}` },
  { long: 'maxrregcount', short: ['maxrregcount'], value: true },
  { long: 'minnctapersm', short: ['minnctapersm'], value: true, notHonoured: `occupancy targets ${NOT_YET_CODEGEN}` },
  { long: 'opt-level', short: ['O'], value: true },
  { long: 'optimize-float-atomics', short: ['opt-fp-atomics'], value: false, notHonoured: 'float atomics are not rewritten' },
  { long: 'options-file', short: ['optf'], value: true },
  { long: 'output-file', short: ['o'], value: true },
  { long: 'override-directive-values', short: ['override-directive-values'], value: false, notHonoured: `launch-bound overrides ${NOT_YET_CODEGEN}` },
  { long: 'position-independent-code', short: ['pic'], value: true, notHonoured: 'position-independent code is not distinguished yet' },
  { long: 'preserve-relocs', short: ['preserve-relocs'], value: false, notHonoured: 'relocations are not emitted yet' },
  { long: 'register-usage-level', short: ['regUsageLevel'], value: true, notHonoured: `register usage levels ${NOT_YET_CODEGEN}` },
  { long: 'return-at-end', short: ['ret-end'], value: false, notHonoured: 'the return-at-end form is not produced' },
  { long: 'sanitize', short: ['sanitize'], value: true, notHonoured: 'sanitizer instrumentation is not emitted' },
  { long: 'sp-bounds-check', short: ['sp-bounds-check'], value: false, notHonoured: 'stack-pointer bounds checks are not emitted' },
  { long: 'split-compile', short: ['split-compile'], value: true },
  { long: 'suppress-async-bulk-multicast-advisory-warning', short: ['suppress-async-bulk-multicast-advisory-warning'], value: false },
  { long: 'suppress-debug-info', short: ['suppress-debug-info'], value: false },
  { long: 'suppress-double-demote-warning', short: ['suppress-double-demote-warning'], value: false },
  { long: 'suppress-sparse-mma-advisory-info', short: ['suppress-sparse-mma-advisory-info'], value: false },
  { long: 'suppress-stack-size-warning', short: ['suppress-stack-size-warning'], value: false },
  { long: 'verbose', short: ['v'], value: false },
  { long: 'version', short: ['V'], value: false },
  { long: 'warn-on-double-precision-use', short: ['warn-double-usage'], value: false, notHonoured: 'double-precision use is not reported yet' },
  { long: 'warn-on-local-memory-usage', short: ['warn-lmem-usage'], value: false, notHonoured: 'local-memory use is not reported yet' },
  { long: 'warn-on-spills', short: ['warn-spills'], value: false },
  { long: 'warning-as-error', short: ['Werror'], value: false },
];

const byShort = new Map<string, PtxasOption>();
const byLong = new Map<string, PtxasOption>();
for (const o of PTXAS_OPTIONS) {
  byLong.set(o.long, o);
  for (const s of o.short) byShort.set(s, o);
}

/** ptxforge's own long options that take a value (so their value is never taken for an option). */
const OWN_VALUE_OPTIONS = new Set([
  'knob', 'knobs-file', 'stat', 'named-phases', 'shuffle-seed', 'disable-passes', 'dump-ir', 'emit', 'plugin',
  'verify-each-dir', 'launch', 'seed', 'run-out', 'run-raw', 'save-launch', 'kernel', 'remarks', 'jobs', 'output-dir', 'cache-dir',
]);

export function ptxasOption(long: string): PtxasOption | undefined {
  return byLong.get(long);
}

/**
 * Rewrite ptxas spellings into commander's: `-arch sm_90` / `-arch=sm_90` -> `--gpu-name sm_90`,
 * `-lineinfo` -> `--generate-line-info`, `-m64` -> `--machine 64`, `-O3` stays (commander reads it),
 * `-maxrregcount=32` -> `--maxrregcount 32`. Anything after `--` is left alone.
 */
export function normalizeArgs(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      out.push(...argv.slice(i));
      break;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq < 0 ? a.slice(2) : a.slice(2, eq);
      const opt = byLong.get(name);
      if (opt || OWN_VALUE_OPTIONS.has(name)) {
        out.push(eq < 0 ? a : `--${name}`, ...(eq < 0 ? [] : [a.slice(eq + 1)]));
        const takesValue = opt ? opt.value : true;
        if (takesValue && eq < 0 && i + 1 < argv.length) out.push(argv[++i]!);
        continue;
      }
      out.push(a);
      continue;
    }
    if (a.startsWith('-') && a.length > 1) {
      const body = a.slice(1);
      const eq = body.indexOf('=');
      const name = eq < 0 ? body : body.slice(0, eq);
      const opt = byShort.get(name);
      if (opt) {
        out.push(`--${opt.long}`);
        if (eq >= 0) out.push(body.slice(eq + 1));
        else if (opt.value && i + 1 < argv.length) out.push(argv[++i]!);
        continue;
      }
      // Glued values of one-letter options: -O3, -m64.
      if (/^O\d$/.test(body)) {
        out.push('--opt-level', body.slice(1));
        continue;
      }
      if (/^m\d+$/.test(body)) {
        out.push('--machine', body.slice(1));
        continue;
      }
    }
    out.push(a);
  }
  return out;
}

/**
 * `sm_90`, `sm90`, `SM_90`, `compute_90`, `sm_90a` -> `sm_90` / `sm_90a`. ptxas accepts a virtual
 * `compute_NN` for -arch and compiles for the matching real `sm_NN`.
 */
export function normalizeArch(arch: string): string {
  const m = /^(?:sm|compute)_?(\d+)([a-z]?)$/i.exec(arch.trim());
  return m ? `sm_${m[1]}${m[2]!.toLowerCase()}` : arch;
}

/**
 * `--options-file F` (repeatable, comma-separated): each file holds options separated by white space,
 * with quotes grouping words (nvcc/ptxas option-file syntax).
 */
export function splitOptionsFileText(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote: string | undefined;
  let has = false;
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = undefined;
      else cur += ch;
      continue;
    }
    if (ch === '"' || ch === "'") {
      quote = ch;
      has = true;
      continue;
    }
    if (/\s/.test(ch)) {
      if (has || cur) out.push(cur);
      cur = '';
      has = false;
      continue;
    }
    cur += ch;
  }
  if (has || cur) out.push(cur);
  return out;
}
