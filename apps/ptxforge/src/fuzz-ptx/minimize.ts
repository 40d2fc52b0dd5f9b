/**
 * Test-case minimisation for `fuzz-ptx` failures: delta debugging over lines, then over the tokens of
 * what is left, keeping a cut whenever the predicate (same failure) still holds. Bounded by a budget of
 * predicate calls, so a minimisation always ends.
 */
import { tokenizeText } from './mutate.js';

async function ddmin(units: string[], join: (u: string[]) => string, still: (text: string) => Promise<boolean>, budget: { left: number }): Promise<string[]> {
  let cur = units;
  let chunk = Math.max(1, Math.floor(cur.length / 2));
  while (budget.left > 0) {
    let removed = false;
    for (let at = 0; at < cur.length && budget.left > 0;) {
      const cand = [...cur.slice(0, at), ...cur.slice(at + chunk)];
      budget.left--;
      if (cand.length < cur.length && (await still(join(cand)))) {
        cur = cand;
        removed = true;
      } else at += chunk;
    }
    if (chunk === 1 && !removed) break;
    if (!removed) chunk = Math.max(1, Math.floor(chunk / 2));
  }
  return cur;
}

/** The smallest text found (within `maxCalls` predicate calls) on which `still` holds; `text` must satisfy it. */
export async function minimizePtx(text: string, still: (text: string) => Promise<boolean>, maxCalls = 300): Promise<string> {
  const budget = { left: maxCalls };
  const lines = text.split('\n');
  const keptLines = await ddmin(lines, (u) => u.join('\n'), still, budget);
  const afterLines = keptLines.join('\n');
  // Tokens: whitespace tokens are kept as they are (removing them only merges tokens).
  const toks = tokenizeText(afterLines);
  const idx = toks.flatMap((t, k) => (/^\s+$/.test(t) ? [] : [k]));
  const keep = await ddmin(idx.map(String), (u) => {
    const on = new Set(u.map(Number));
    return toks.filter((t, k) => /^\s+$/.test(t) || on.has(k)).join('');
  }, still, budget);
  const on = new Set(keep.map(Number));
  const out = toks.filter((t, k) => /^\s+$/.test(t) || on.has(k)).join('');
  // Tidy blank runs left behind by removed lines (only when the failure survives it).
  const tidy = out.replace(/[ \t]+\n/g, '\n').replace(/\n{3,}/g, '\n\n');
  return tidy !== out && budget.left > 0 && (await still(tidy)) ? tidy : out;
}
