import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CompileOptions } from '@ptxforge/kernel';
import { cliVersion } from './version.js';

/** What a cache hit replays: the output text, the -v lines (without compile time) and the warnings. */
export interface CacheEntry {
  readonly output: string;
  readonly verbose: readonly string[];
  readonly warnings: readonly string[];
}

/** Bumped whenever the entry layout or the key's meaning changes. */
const CACHE_FORMAT = 1;

/**
 * A content-addressed compile cache: one JSON file per key under `<dir>/<k[0..2]>/<k>.json`. Writes go
 * through a temporary file and a rename, so concurrent workers (or processes) never see half an entry.
 * Best effort: an unreadable or malformed entry is a miss, an unwritable directory skips the store.
 * The key is exactly what a remote cache (turbo's, Bazel's) would store an artifact under.
 */
export class CompileCache {
  constructor(readonly dir: string) {}

  private file(key: string): string {
    return path.join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  get(key: string): CacheEntry | undefined {
    try {
      const e = JSON.parse(readFileSync(this.file(key), 'utf8')) as Partial<CacheEntry> & { format?: number };
      if (e.format !== CACHE_FORMAT || typeof e.output !== 'string' || !Array.isArray(e.verbose) || !Array.isArray(e.warnings)) return undefined;
      return { output: e.output, verbose: e.verbose, warnings: e.warnings };
    } catch {
      return undefined;
    }
  }

  put(key: string, e: CacheEntry): void {
    const f = this.file(key);
    try {
      mkdirSync(path.dirname(f), { recursive: true });
      const tmp = `${f}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
      writeFileSync(tmp, JSON.stringify({ format: CACHE_FORMAT, ...e }));
      renameSync(tmp, f);
    } catch {
      // A read-only or full cache directory must not fail the compilation.
    }
  }
}

export function defaultCacheDir(env: Record<string, string | undefined>): string {
  if (env.PTXFORGE_CACHE_DIR) return env.PTXFORGE_CACHE_DIR;
  return path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'ptxforge');
}

export interface CacheKeyInput {
  readonly text: string;
  readonly file: string;
  readonly options: Omit<CompileOptions, 'instrumentation'>;
  readonly entries: readonly string[];
  readonly emit: string;
  readonly plugins: ReadonlyArray<{ readonly name: string; readonly version: string }>;
}

/**
 * sha256 over (input bytes, file name as shown -- it appears in locations --, every option that changes
 * the output, the arch, and every plugin's name and version, the CLI's own version included).
 */
export function cacheKeyOf(k: CacheKeyInput): string {
  const o = k.options;
  const material = {
    format: CACHE_FORMAT,
    cli: cliVersion(),
    file: k.file,
    arch: o.arch,
    optLevel: o.optLevel ?? 3,
    knobs: o.knobs ?? [],
    disablePasses: o.disablePasses ?? '',
    namedPhases: o.namedPhases ?? null,
    shuffleSeed: o.shuffleSeed ?? 0,
    entries: k.entries,
    emit: k.emit,
    plugins: k.plugins.map((p) => `${p.name}@${p.version}`),
  };
  return createHash('sha256').update(JSON.stringify(material)).update('\0').update(k.text).digest('hex');
}
