/** Source position of a diagnostic: a file (or a pseudo name such as `<input>`) with 1-based line and column. */
export interface SourcePos {
  file?: string;
  line: number;
  col: number;
}

/**
 * Brand of every PtxforgeError. A registered symbol (`Symbol.for`) is the same in every copy of the kernel
 * loaded into one process, so an error thrown by one copy is recognised by another (where `instanceof` on
 * the class alone would fail: each copy has its own class).
 */
export const PTXFORGE_ERROR_BRAND: unique symbol = Symbol.for('@ptxforge/kernel:PtxforgeError') as never;

/**
 * Every error ptxforge reports on purpose is a PtxforgeError: it has a stable code
 * (tests and tools match on it), a message that says what is wrong and, where it helps, how to fix it,
 * and a position when the input was a file. The CLI prints `file:line:col: error CODE: message`.
 */
export class PtxforgeError extends Error {
  /**
   * `x instanceof PtxforgeError` checks the brand, so it holds for errors of another kernel copy too.
   * Subclasses (InterpError ...) keep the ordinary prototype check.
   */
  static override [Symbol.hasInstance](x: unknown): boolean {
    if (this !== PtxforgeError) return Function.prototype[Symbol.hasInstance].call(this, x);
    return isPtxforgeError(x);
  }
  readonly [PTXFORGE_ERROR_BRAND] = true;
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

/** Whether `e` is a PtxforgeError of this or any other copy of the kernel (checked by brand, not class). */
export function isPtxforgeError(e: unknown): e is PtxforgeError {
  return (
    typeof e === 'object' && e !== null && (e as { [PTXFORGE_ERROR_BRAND]?: unknown })[PTXFORGE_ERROR_BRAND] === true &&
    typeof (e as { code?: unknown }).code === 'string'
  );
}
