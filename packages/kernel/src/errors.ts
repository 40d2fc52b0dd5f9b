/** Source position of a diagnostic: a file (or a pseudo name such as `<input>`) with 1-based line and column. */
export interface SourcePos {
  file?: string;
  line: number;
  col: number;
}

/**
 * Every error ptxforge reports on purpose is a PtxforgeError: it has a stable code
 * (tests and tools match on it), a message that says what is wrong and, where it helps, how to fix it,
 * and a position when the input was a file. The CLI prints `file:line:col: error CODE: message`.
 */
export class PtxforgeError extends Error {
  readonly code: string;
  readonly pos: SourcePos | undefined;
  /** Plugin (package name) the error is about, when one is involved. */
  readonly plugin: string | undefined;

  constructor(code: string, message: string, opts: { pos?: SourcePos; plugin?: string; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'PtxforgeError';
    this.code = code;
    this.pos = opts.pos;
    this.plugin = opts.plugin;
  }

  /** `file:line:col: error CODE: message` (the position part only when known). */
  format(): string {
    const where = this.pos ? `${this.pos.file ?? '<input>'}:${this.pos.line}:${this.pos.col}: ` : '';
    return `${where}error ${this.code}: ${this.message}`;
  }
}

export function isPtxforgeError(e: unknown): e is PtxforgeError {
  return e instanceof PtxforgeError;
}
