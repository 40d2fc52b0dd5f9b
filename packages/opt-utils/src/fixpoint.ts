import type { OriFunction } from '@ptxforge/kernel';

/**
 * "This pass, so configured, changed nothing in this function at IR version V": a pass that depends on nothing
 * but the function's IR and its `key` (configuration: mode, knobs, enabled sub-passes) is deterministic, so run
 * again on the same version it changes nothing again and may be skipped. The pipeline repeats its cleanup
 * passes (five OriPerformLiveDead*, six GeneralOptimize bundles) although on a big, already clean function the
 * late ones find nothing: each still walked every instruction (issue #16 row 4: after the first two phases
 * nothing changes, yet a dozen repeats cost most of the optimizer's time). The IR version (OriFunction.irVersion)
 * is bumped by every mutation through the IR API, so any change in between makes the pass run again.
 * Keyed by the function object: a new compilation has new functions (and the memo lets them go).
 */
const memo = new WeakMap<OriFunction, Map<string, number>>();

/** Whether a pass with this `key` is known to change nothing in `fn` as it is now. */
export function isKnownFixpoint(fn: OriFunction, key: string): boolean {
  return memo.get(fn)?.get(key) === fn.irVersion;
}

/** Record that a pass with this `key` changed nothing in `fn` as it is now (call right after such a run). */
export function noteFixpoint(fn: OriFunction, key: string): void {
  let m = memo.get(fn);
  if (!m) memo.set(fn, (m = new Map()));
  m.set(key, fn.irVersion);
}

/**
 * Run `pass` on `fn` unless a run with the same `key` already changed nothing at this IR version; remember
 * when this run changes nothing. Returns whether the pass ran.
 */
export function runUnlessFixpoint(fn: OriFunction, key: string, pass: () => void): boolean {
  if (isKnownFixpoint(fn, key)) return false;
  const v = fn.irVersion;
  pass();
  if (fn.irVersion === v) noteFixpoint(fn, key);
  return true;
}
