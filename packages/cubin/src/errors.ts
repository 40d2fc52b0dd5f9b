import { PtxforgeError } from '@ptxforge/kernel';

/**
 * Codes of the errors the cubin reader and writer raise. Tools match on these, never on the message.
 * - CUBIN_NOT_ELF: the bytes do not start with the ELF magic (not an object file at all).
 * - CUBIN_UNSUPPORTED_ELF: an ELF, but not the ELF64 little-endian kind every cubin is.
 * - CUBIN_NOT_CUDA: a valid ELF64 whose machine is not EM_CUDA (190), e.g. a host object.
 * - CUBIN_TRUNCATED: a header, table or section runs past the end of the file.
 * - CUBIN_MALFORMED: a structure is inconsistent (bad string index, entry size, attribute record...).
 * - CUBIN_WRITE: the writer was given a model it cannot lay out.
 */
export type CubinErrorCode =
  | 'CUBIN_NOT_ELF'
  | 'CUBIN_UNSUPPORTED_ELF'
  | 'CUBIN_NOT_CUDA'
  | 'CUBIN_TRUNCATED'
  | 'CUBIN_MALFORMED'
  | 'CUBIN_WRITE';

export class CubinError extends PtxforgeError {
  constructor(code: CubinErrorCode, message: string, opts: { file?: string; cause?: unknown } = {}) {
    super(code, opts.file ? `${opts.file}: ${message}` : message, { cause: opts.cause });
    this.name = 'CubinError';
  }
}
