/**
 * Verdicts of `fuzz-ptx`: what ptxforge and ptxas each say about one input, and how the two compare.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isPtxforgeError, type Toolchain } from '@ptxforge/kernel';

/** The file name inputs are compiled under (errors must point into it). */
export const FUZZ_FILE = 'fuzz.ptx';

export type OurVerdict =
  | { kind: 'accept' }
  /** A coded error; `located` when it names fuzz.ptx with line and column; `unsupported` for an honest "not supported". */
  | { kind: 'reject'; code: string; message: string; located: boolean; unsupported: boolean; line?: number }
  /** A stack trace (an exception that is no PtxforgeError), or a hang (`hang`: the time limit passed). */
  | { kind: 'crash'; message: string; hang?: boolean };

export type PtxasVerdict = { kind: 'accept' } | { kind: 'reject'; message: string } | { kind: 'unknown'; message: string };

/** Codes and wording of an honest "this PTX feature is not supported yet" error. */
export function isUnsupported(code: string, message: string): boolean {
  return /UNSUPPORTED|NOT_IMPLEMENTED/.test(code) || /\bnot (?:yet )?(?:supported|implemented)\b|\bunsupported\b/i.test(message);
}

/** Compile `text` with the full default pipeline (-O3, sm_90) and classify the outcome. */
export function ourVerdict(tc: Toolchain, text: string, arch = 'sm_90'): OurVerdict {
  try {
    tc.compile({ text, file: FUZZ_FILE }, { arch, optLevel: 3 });
    return { kind: 'accept' };
  } catch (e) {
    if (!isPtxforgeError(e)) {
      const err = e as Error;
      return { kind: 'crash', message: String(err?.stack ?? err).split('\n').slice(0, 6).join('\n') };
    }
    const pos = e.pos;
    const located = !!pos && pos.file === FUZZ_FILE && pos.line > 0 && pos.col > 0;
    return { kind: 'reject', code: e.code, message: e.message, located, unsupported: isUnsupported(e.code, e.message), ...(pos ? { line: pos.line } : {}) };
  }
}

/** Runs the installed ptxas on texts (one temporary directory; verdicts cached by text). */
export class PtxasOracle {
  private readonly dir = mkdtempSync(path.join(tmpdir(), 'fuzz-ptx-'));
  private readonly cache = new Map<string, PtxasVerdict>();
  private n = 0;
  constructor(readonly ptxas: string, readonly arch = 'sm_90', readonly timeoutMs = 10000) {}

  /** The ptxas on PATH (or $PTXAS), or undefined when none is installed. */
  static find(env: Record<string, string | undefined> = process.env): string | undefined {
    if (env.PTXAS) return existsSync(env.PTXAS) ? env.PTXAS : undefined;
    for (const d of (env.PATH ?? '').split(path.delimiter)) {
      if (d && existsSync(path.join(d, 'ptxas'))) return path.join(d, 'ptxas');
    }
    return undefined;
  }

  verdict(text: string): Promise<PtxasVerdict> {
    const hit = this.cache.get(text);
    if (hit) return Promise.resolve(hit);
    const f = path.join(this.dir, `in${this.n++ % 4}.ptx`);
    writeFileSync(f, text);
    return new Promise((resolve) => {
      execFile(this.ptxas, [`-arch=${this.arch}`, f, '-o', '/dev/null'], { timeout: this.timeoutMs, encoding: 'utf8' }, (err, _out, stderr) => {
        let v: PtxasVerdict;
        const msg = (stderr || '').split('\n').filter((l) => /error|fatal/i.test(l) && !/aborted due to errors/.test(l)).slice(0, 2).join(' | ').replaceAll(f, FUZZ_FILE);
        if (!err) v = { kind: 'accept' };
        else if (err.killed || err.signal) v = { kind: 'unknown', message: `ptxas ${err.signal ?? 'timed out'}` };
        else if (/internal error|Segmentation|core dumped/i.test(stderr)) v = { kind: 'unknown', message: `ptxas crashed: ${msg}` };
        else v = { kind: 'reject', message: msg || `rc ${String(err.code)}` };
        if (this.cache.size > 50000) this.cache.clear();
        this.cache.set(text, v);
        resolve(v);
      });
    });
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export type Outcome = 'agree' | 'false-accept' | 'false-reject' | 'crash';

/**
 * Compare: a crash (stack trace, hang, or an error without a code and a place in the file) is a crash
 * whatever ptxas says; ptxas rejects -> we must reject; ptxas accepts -> we accept or say "unsupported".
 * Without an oracle verdict (no ptxas, or ptxas itself failed) only crashes count.
 */
export function compare(ours: OurVerdict, theirs: PtxasVerdict | undefined): Outcome {
  if (ours.kind === 'crash') return 'crash';
  if (ours.kind === 'reject' && !ours.located) return 'crash';
  if (!theirs || theirs.kind === 'unknown') return 'agree';
  if (theirs.kind === 'reject') return ours.kind === 'reject' ? 'agree' : 'false-accept';
  return ours.kind === 'accept' || ours.unsupported ? 'agree' : 'false-reject';
}
