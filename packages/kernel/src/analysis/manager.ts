import { PtxforgeError } from '../errors.js';
import type { OriFunction } from '../ir/core.js';

/**
 * An analysis over one function, declared once with `defineAnalysis`. The returned object is the analysis'
 * key: the cache and `preserves` lists match analyses by identity, never by name (two analyses may share a
 * name; `name` is only for display). `dependsOn` says which IR changes make a cached result stale:
 * 'cfg' (edges and layout only) or 'ir' (any instruction change).
 */
export interface Analysis<T> {
  readonly name: string;
  readonly dependsOn: 'cfg' | 'ir';
  compute(fn: OriFunction, am: AnalysisManager): T;
}

/**
 * What a phase keeps valid: 'all', 'none', 'cfg' (every analysis with dependsOn 'cfg'), or a list of
 * analysis tokens (from defineAnalysis).
 */
export type PreservedAnalyses = 'all' | 'none' | 'cfg' | readonly Analysis<unknown>[];

interface Entry {
  value: unknown;
  version: number;
}

/**
 * Per-compilation cache of analysis results, keyed by (function, analysis token). Phases state what they
 * preserve; the dispatch loop calls `invalidate` with that after each phase. As a safety net an entry is
 * also recomputed when the function's cfg/ir version moved since it was computed, so a phase that
 * under-declares cannot feed stale facts.
 */
export class AnalysisManager {
  private readonly cache = new Map<OriFunction, Map<Analysis<unknown>, Entry>>();
  private readonly counts = new Map<Analysis<unknown>, number>();

  get<T>(fn: OriFunction, a: Analysis<T>): T {
    let m = this.cache.get(fn);
    if (!m) this.cache.set(fn, (m = new Map()));
    const version = a.dependsOn === 'cfg' ? fn.cfgVersion : fn.irVersion;
    const e = m.get(a);
    if (e && e.version === version) return e.value as T;
    // Computing may itself touch the CFG cache (edges are built lazily), so read the version afterwards too.
    const value = a.compute(fn, this);
    this.counts.set(a, (this.counts.get(a) ?? 0) + 1);
    m.set(a, { value, version: a.dependsOn === 'cfg' ? fn.cfgVersion : fn.irVersion });
    return value;
  }

  /** Whether a valid result is cached. */
  has(fn: OriFunction, a: Analysis<unknown>): boolean {
    const e = this.cache.get(fn)?.get(a);
    return !!e && e.version === (a.dependsOn === 'cfg' ? fn.cfgVersion : fn.irVersion);
  }

  /** How many times `a` was computed by this manager (instrumentation, tests). */
  computeCount(a: Analysis<unknown>): number {
    return this.counts.get(a) ?? 0;
  }

  /** Computation counts by analysis name (for statistics output; analyses sharing a name are summed). */
  computeCountsByName(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [a, n] of this.counts) out.set(a.name, (out.get(a.name) ?? 0) + n);
    return out;
  }

  /**
   * Drop cached results except the preserved ones. `preserved` = 'all' keeps everything, a list keeps those
   * analyses (by identity); 'cfg' keeps every analysis that depends only on the CFG.
   */
  invalidate(fn: OriFunction | undefined, preserved: PreservedAnalyses = 'none'): void {
    if (preserved === 'all') return;
    const keep = typeof preserved === 'string' ? undefined : new Set<Analysis<unknown>>(preserved);
    const fns = fn ? [fn] : [...this.cache.keys()];
    for (const f of fns) {
      const m = this.cache.get(f);
      if (!m) continue;
      for (const a of [...m.keys()]) {
        if (preserved === 'cfg' && a.dependsOn === 'cfg') continue;
        if (keep?.has(a)) continue;
        m.delete(a);
      }
    }
  }

  clear(): void {
    this.cache.clear();
  }
}

/**
 * Declare an analysis. The result is a frozen token whose identity is the cache key; nothing is registered
 * globally, so the same module loaded twice, or two analyses with one name, never collide.
 */
export function defineAnalysis<T>(a: Analysis<T>): Analysis<T> {
  if (a.dependsOn !== 'cfg' && a.dependsOn !== 'ir') throw new PtxforgeError('ANALYSIS_BAD_DEFINITION', `analysis ${a.name}: dependsOn must be 'cfg' or 'ir'`);
  return Object.freeze({ name: a.name, dependsOn: a.dependsOn, compute: a.compute });
}
