/**
 * The forward "maybe defined" fixpoint shared by the verifier's undefined-use check, the front end's
 * defineMaybeUndefined and restoreReachingDefs: `out` holds, per block (in RPO numbering, `words` 32-bit words
 * each), the candidate registers that block defines; on return it holds those some path from the entry through
 * the block's end defines (out[b] |= out[p] for every predecessor p, iterated in RPO until nothing changes).
 */
export function solveMaybeDefined(out: Uint32Array, preds: readonly (readonly number[])[], words: number): void {
  const nb = preds.length;
  let changed = true;
  while (changed) {
    changed = false;
    for (let bi = 0; bi < nb; bi++) {
      const o = bi * words;
      for (const pi of preds[bi]!) {
        const po = pi * words;
        for (let w = 0; w < words; w++) {
          const v = (out[o + w]! | out[po + w]!) >>> 0;
          if (v !== out[o + w]) {
            out[o + w] = v;
            changed = true;
          }
        }
      }
    }
  }
}
