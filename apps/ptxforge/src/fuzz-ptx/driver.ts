/**
 * The `fuzz-ptx` driver: N inputs (generated kernels and mutants of corpus files, a pure function of the
 * seed), each compiled by ptxforge and, when installed, by ptxas; verdicts compared; failures grouped by
 * signature, minimised and written as fixtures.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { generatePtx } from './generate.js';
import { minimizePtx } from './minimize.js';
import { mutatePtx } from './mutate.js';
import { Rng } from './rng.js';
import { compare, type OurVerdict, type Outcome, type PtxasVerdict } from './verdict.js';

export interface CorpusFile {
  readonly name: string;
  readonly text: string;
}

export interface FuzzInput {
  readonly index: number;
  readonly text: string;
  /** Where it came from: `gen:SEED`, `corpus:NAME`, with the mutators applied. */
  readonly origin: string;
}

/** Input `index` of a run with first seed `seed`: a generated kernel or a corpus file, mutated or not. */
export function fuzzInput(seed: number, index: number, corpus: readonly CorpusFile[]): FuzzInput {
  const rng = new Rng(seed * 1000003 + index);
  let base: string;
  let origin: string;
  if (corpus.length && rng.chance(0.6)) {
    const f = rng.pick(corpus);
    base = f.text;
    origin = `corpus:${f.name}`;
  } else {
    const s = seed * 1000003 + index;
    base = generatePtx(s);
    origin = `gen:${s}`;
  }
  // A share of the inputs stay as they are: they test the accepting side (false rejects).
  if (rng.chance(origin.startsWith('gen') ? 0.35 : 0.06)) return { index, text: base, origin };
  const m = mutatePtx(base, rng);
  return { index, text: m.text, origin: `${origin} +${m.mutators.join('+')}` };
}

export interface FuzzPtxOptions {
  readonly count: number;
  readonly seed: number;
  readonly corpus: readonly CorpusFile[];
  /** ptxforge's verdict (a worker with a time limit in the CLI, in-process in tests). */
  readonly compile: (text: string) => Promise<OurVerdict>;
  /** ptxas's verdict; absent when ptxas is not installed (then only crashes count). */
  readonly oracle?: (text: string) => Promise<PtxasVerdict>;
  /** Minimise the first example of at most this many failure signatures (0: none). */
  readonly minimize?: number;
  /** Write minimised failures here as fixtures (`<outcome>-<hash>/input.ptx` + `expected.json`). */
  readonly fixturesDir?: string;
  readonly onCase?: (c: FuzzCase) => void;
  /** Check the corpus files themselves, each once, instead of `count` generated/mutated inputs. */
  readonly unmutated?: boolean;
}

export interface FuzzCase {
  readonly input: FuzzInput;
  readonly ours: OurVerdict;
  readonly theirs?: PtxasVerdict;
  readonly outcome: Outcome;
}

export interface FailureGroup {
  readonly signature: string;
  readonly outcome: Outcome;
  count: number;
  readonly first: FuzzCase;
  minimized?: string;
  fixture?: string;
}

export interface FuzzPtxSummary {
  readonly inputs: number;
  readonly agree: number;
  readonly falseAccepts: number;
  readonly falseRejects: number;
  readonly crashes: number;
  readonly oracle: boolean;
  /** Inputs ptxas itself crashed on or timed out (not compared; counted as agreeing unless we crashed). */
  readonly oracleUnknown: number;
  readonly groups: readonly FailureGroup[];
}

/** What identifies "the same failure" (for grouping and for minimisation). */
export function signatureOf(outcome: Outcome, ours: OurVerdict, theirs?: PtxasVerdict): string {
  const norm = (s: string): string => s.split('\n')[0]!.replace(/'[^']*'/g, "'…'").replace(/\d+/g, 'N').slice(0, 120);
  if (ours.kind === 'crash') return `${outcome}: ${ours.hang ? 'hang' : norm(ours.message)}`;
  if (ours.kind === 'reject') return `${outcome}: ${ours.code}${ours.located ? '' : ' (unlocated)'} ${outcome === 'false-reject' ? norm(ours.message) : ''}`.trim();
  return `${outcome}: ptxas: ${norm(theirs && theirs.kind !== 'accept' ? theirs.message.split(' | ')[0]!.replace(/^.*?(error|fatal)\s*:\s*/i, '') : '')}`;
}

export async function runFuzzPtx(o: FuzzPtxOptions): Promise<FuzzPtxSummary> {
  const counts = { agree: 0, 'false-accept': 0, 'false-reject': 0, crash: 0 } satisfies Record<Outcome, number>;
  const groups = new Map<string, FailureGroup>();
  let unknown = 0;
  const judge = async (text: string): Promise<{ ours: OurVerdict; theirs?: PtxasVerdict; outcome: Outcome }> => {
    const [ours, theirs] = await Promise.all([o.compile(text), o.oracle?.(text)]);
    return { ours, ...(theirs ? { theirs } : {}), outcome: compare(ours, theirs) };
  };
  const count = o.unmutated ? o.corpus.length : o.count;
  for (let k = 0; k < count; k++) {
    const input = o.unmutated ? { index: k, text: o.corpus[k]!.text, origin: `corpus:${o.corpus[k]!.name}` } : fuzzInput(o.seed, k, o.corpus);
    const j = await judge(input.text);
    if (j.theirs?.kind === 'unknown') unknown++;
    counts[j.outcome]++;
    const c: FuzzCase = { input, ...j };
    o.onCase?.(c);
    if (j.outcome === 'agree') continue;
    const sig = signatureOf(j.outcome, j.ours, j.theirs);
    const g = groups.get(sig);
    if (g) g.count++;
    else groups.set(sig, { signature: sig, outcome: j.outcome, count: 1, first: c });
  }
  const sorted = [...groups.values()].sort((a, b) => b.count - a.count || (a.signature < b.signature ? -1 : 1));
  for (const g of sorted.slice(0, o.minimize ?? 0)) {
    g.minimized = await minimizePtx(g.first.input.text, async (t) => {
      const j = await judge(t);
      return j.outcome === g.outcome && signatureOf(j.outcome, j.ours, j.theirs) === g.signature;
    });
    if (o.fixturesDir) g.fixture = writeFixture(o.fixturesDir, g);
  }
  return {
    inputs: count,
    agree: counts.agree,
    falseAccepts: counts['false-accept'],
    falseRejects: counts['false-reject'],
    crashes: counts.crash,
    oracle: !!o.oracle,
    oracleUnknown: unknown,
    groups: sorted,
  };
}

/** `<dir>/<outcome>-<hash>/input.ptx` and `expected.json` (ptxas's verdict: what the fixture test checks). */
function writeFixture(dir: string, g: FailureGroup): string {
  const text = g.minimized ?? g.first.input.text;
  const hash = createHash('sha1').update(text).digest('hex').slice(0, 10);
  const d = path.join(dir, `${g.outcome}-${hash}`);
  mkdirSync(d, { recursive: true });
  writeFileSync(path.join(d, 'input.ptx'), text);
  const theirs = g.first.theirs;
  const expected = {
    ptxas: theirs?.kind === 'reject' ? 'reject' : theirs?.kind === 'accept' ? 'accept' : 'unknown',
    ...(theirs && theirs.kind !== 'accept' ? { ptxasMessage: theirs.message } : {}),
    found: { outcome: g.outcome, signature: g.signature, origin: g.first.input.origin },
  };
  writeFileSync(path.join(d, 'expected.json'), `${JSON.stringify(expected, null, 2)}\n`);
  return d;
}

/** The closing lines; the first is the contract line `N inputs, A agree, FA false accepts, FR false rejects, C crashes`. */
export function fuzzPtxSummaryLines(s: FuzzPtxSummary, maxGroups = 20): string[] {
  const lines = [`${s.inputs} inputs, ${s.agree} agree, ${s.falseAccepts} false accepts, ${s.falseRejects} false rejects, ${s.crashes} crashes`];
  if (!s.oracle) lines.push('ptxas not found: verdicts not compared (only crashes, hangs and unlocated errors count)');
  if (s.oracleUnknown) lines.push(`${s.oracleUnknown} inputs on which ptxas itself crashed or timed out (not compared)`);
  for (const g of s.groups.slice(0, maxGroups)) {
    lines.push(`  ${g.count} x ${g.signature}  [first: input ${g.first.input.index}, ${g.first.input.origin}]${g.fixture ? ` -> ${g.fixture}` : ''}`);
  }
  if (s.groups.length > maxGroups) lines.push(`  ... ${s.groups.length - maxGroups} more failure signatures`);
  return lines;
}
