import type { OriFunction } from '../ir/core.js';

/**
 * An analysis over one function. `dependsOn` says which IR changes make a cached result stale:
 * 'cfg' (edges and layout only) or 'ir' (any instruction change).
 */
export interface Analysis<T> {
  readonly name: string;
  readonly dependsOn: 'cfg' | 'ir';
  compute(fn: OriFunction, am: AnalysisManager): T;
}

interface Entry {
  value: unknown;
  version: number;
}

/**
 * Per-compilation cache of analysis results. Phases state what they preserve; the dispatch loop calls
 * `invalidate` with that after each phase. As a safety net an entry is also recomputed when the function's
 * cfg/ir version moved since it was computed, so a phase that under-declares cannot feed stale facts.
 */
export class AnalysisManager {
  private readonly cache = new Map<OriFunction, Map<string, Entry>>();
  /** How many times each analysis was computed (instrumentation, tests). */
  readonly computeCounts = new Map<string, number>();

  get<T>(fn: OriFunction, a: Analysis<T>): T {
    let m = this.cache.get(fn);
    if (!m) this.cache.set(fn, (m = new Map()));
    const version = a.dependsOn === 'cfg' ? fn.cfgVersion : fn.irVersion;
    const e = m.get(a.name);
    if (e && e.version === version) return e.value as T;
    // Computing may itself touch the CFG cache (edges are built lazily), so read the version afterwards too.
    const value = a.compute(fn, this);
    this.computeCounts.set(a.name, (this.computeCounts.get(a.name) ?? 0) + 1);
    m.set(a.name, { value, version: a.dependsOn === 'cfg' ? fn.cfgVersion : fn.irVersion });
    return value;
  }

  /** Whether a valid result is cached. */
  has(fn: OriFunction, a: Analysis<unknown>): boolean {
    const e = this.cache.get(fn)?.get(a.name);
    return !!e && e.version === (a.dependsOn === 'cfg' ? fn.cfgVersion : fn.irVersion);
  }

  /**
   * Drop cached results except the preserved ones. `preserved` = 'all' keeps everything, a list keeps
   * those analyses by name; 'cfg' keeps every analysis that depends only on the CFG.
   */
  invalidate(fn: OriFunction | undefined, preserved: 'all' | 'none' | 'cfg' | readonly string[] = 'none'): void {
    if (preserved === 'all') return;
    const fns = fn ? [fn] : [...this.cache.keys()];
    for (const f of fns) {
      const m = this.cache.get(f);
      if (!m) continue;
      for (const name of [...m.keys()]) {
        if (preserved === 'cfg' && cfgOnly.has(name)) continue;
        if (Array.isArray(preserved) && preserved.includes(name)) continue;
        m.delete(name);
      }
    }
  }

  clear(): void {
    this.cache.clear();
  }
}

const cfgOnly = new Set<string>();
/** Analyses declared with dependsOn 'cfg' register here so `invalidate(fn, 'cfg')` can keep them. */
export function defineAnalysis<T>(a: Analysis<T>): Analysis<T> {
  if (a.dependsOn === 'cfg') cfgOnly.add(a.name);
  return a;
}
