import { PtxforgeError } from '../errors.js';
import { PHASE_TABLE, phaseIndexOf } from '../pipeline/table.js';

export interface PhaseStep {
  readonly index: number;
  /** The `=value` part (the spec parses it with strtol; we keep the text and let the phase read it). */
  readonly param?: string;
}

/** Maximum entries in a NamedPhases string (spec: "Maximum 256 entries"). */
export const NAMED_PHASES_MAX = 256;

/**
 * mulberry32: a small, fast, seedable PRNG giving numbers in [0, 1), identical on every platform. Used by
 * `shuffle` (reproducible for a seed) and by the fuzzer and generated launches of the interpreter.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Parse a NamedPhases string (spec: "NamedPhases Override (Option 298)"): comma-separated phase names,
 * each optionally `=param`, resolved case-insensitively; at most 256 entries. Keywords:
 *  - `shuffle`: randomize the order of the listed phases (seeded, so a seed reproduces it);
 *  - `swap1`..`swap6`: swap listed phases K and K+1 (1-based). The spec says these swap "specific phase
 *    pairs" without naming them; swapping adjacent listed entries is our reading, useful for A/B tests;
 *  - `OriPerformLiveDead`: run the liveness/DCE phase (slot 16's implementation) at that position.
 * Keywords apply in the order written, after the names are collected.
 */
export function parseNamedPhases(text: string, seed = 0): PhaseStep[] {
  const entries = text.split(',').map((s) => s.trim());
  if (entries.length > NAMED_PHASES_MAX) {
    throw new PtxforgeError('NAMED_PHASES_TOO_MANY', `NamedPhases has ${entries.length} entries; at most ${NAMED_PHASES_MAX} are allowed`);
  }
  const steps: PhaseStep[] = [];
  const ops: Array<() => void> = [];
  for (const e of entries) {
    if (!e) throw new PtxforgeError('NAMED_PHASES_SYNTAX', `empty entry in NamedPhases '${text}'`);
    const eq = e.indexOf('=');
    const name = (eq < 0 ? e : e.slice(0, eq)).trim();
    const param = eq < 0 ? undefined : e.slice(eq + 1).trim();
    const lower = name.toLowerCase();
    if (lower === 'shuffle') {
      const r = mulberry32(seed);
      ops.push(() => {
        for (let i = steps.length - 1; i > 0; i--) {
          const j = Math.floor(r() * (i + 1));
          [steps[i], steps[j]] = [steps[j]!, steps[i]!];
        }
      });
      continue;
    }
    const sw = /^swap([1-6])$/.exec(lower);
    if (sw) {
      const k = Number(sw[1]);
      ops.push(() => {
        if (steps.length < k + 1) {
          throw new PtxforgeError('NAMED_PHASES_SWAP', `swap${k} needs at least ${k + 1} listed phases, NamedPhases has ${steps.length}`);
        }
        [steps[k - 1], steps[k]] = [steps[k]!, steps[k - 1]!];
      });
      continue;
    }
    if (lower === 'oriperformlivedead') {
      steps.push(param === undefined ? { index: 16 } : { index: 16, param });
      continue;
    }
    if (lower === 'oricopyprop') {
      throw new PtxforgeError('NAMED_PHASES_UNSUPPORTED', 'the OriCopyProp placement keyword is not implemented yet in ptxforge');
    }
    const idx = phaseIndexOf(name);
    if (idx === undefined) {
      const near = PHASE_TABLE.filter((p) => p.name.toLowerCase().includes(lower.slice(0, 5))).slice(0, 3).map((p) => p.name);
      throw new PtxforgeError('NAMED_PHASES_UNKNOWN', `unknown phase '${name}' in NamedPhases${near.length ? `; did you mean ${near.join(', ')}?` : ''} (--list-phases lists them)`);
    }
    steps.push(param === undefined ? { index: idx } : { index: idx, param });
  }
  for (const op of ops) op();
  return steps;
}

export function defaultPhaseOrder(): PhaseStep[] {
  return PHASE_TABLE.map((p) => ({ index: p.index }));
}

/**
 * Pass disabling (spec: IsPassDisabled, a case-insensitive strcasestr of the pass name in the disabled
 * string). Note the direction: the *pass name* must occur in the string, so "OriBranchOpt,OriLoopUnrolling"
 * disables exactly those two (and any pass whose name is a substring of the string).
 */
export function isPassDisabled(disabled: string, passName: string): boolean {
  if (!disabled) return false;
  return disabled.toLowerCase().includes(passName.toLowerCase());
}
