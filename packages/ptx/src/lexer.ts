import { PtxforgeError } from '@ptxforge/kernel';

/**
 * PTX lexer. One pass over char codes into parallel typed arrays (kind, start, end, line, col), so that a
 * 5 MB file costs no per-character regex and no substring until the parser asks for a token's text.
 */
export const enum Tk {
  Eof = 0,
  /** Identifier: `add`, `%r1`, `$L__BB0_2`, `_Z3fooPf`, `%tid`. */
  Ident,
  /** Dotted word: `.reg`, `.u32`, `.x`, `.1d`, `.L2::evict_last`. */
  Dot,
  /** Integer literal (decimal, 0x hex, 0b binary, 0 octal, optional U suffix). */
  Int,
  /** Float literal: `0f3F800000`, `0d3FF0000000000000`, `1.5`, `2e10`. */
  Float,
  Str,
  Punct,
}

const TK_NAMES = ['end of input', 'identifier', 'directive or modifier', 'integer', 'float', 'string', 'punctuation'];
export function tokenKindName(k: Tk): string {
  return TK_NAMES[k]!;
}

export interface Tokens {
  readonly text: string;
  readonly file: string;
  readonly count: number;
  readonly kind: Uint8Array;
  readonly start: Uint32Array;
  readonly end: Uint32Array;
  readonly line: Uint32Array;
  readonly col: Uint32Array;
  /** For identifiers and dotted words: hash of the name (without the dot), see `nameHash`. */
  readonly hash: Int32Array;
}

/** The hash the lexer computes for names: h = h * 31 + charCode over the characters, 32-bit. */
export function nameHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

// Character classes (bit 1: identifier start, bit 2: identifier continue, bit 4: digit, bit 8: hex digit).
const CC = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  let v = 0;
  if (/[A-Za-z_$%]/.test(ch)) v |= 1;
  if (/[A-Za-z0-9_$]/.test(ch)) v |= 2;
  if (/[0-9]/.test(ch)) v |= 4;
  if (/[0-9A-Fa-f]/.test(ch)) v |= 8;
  CC[c] = v;
}
const isIdCont = (c: number): boolean => c < 128 && (CC[c]! & 2) !== 0;
const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isHex = (c: number): boolean => c < 128 && (CC[c]! & 8) !== 0;

const PUNCT = new Set('{}()[];,:@!+-*/%<>=|&^~?'.split('').map((c) => c.charCodeAt(0)));

/** Token arrays reused from one parse to the next (parsing is synchronous and not re-entrant). */
let scratch: { kind: Uint8Array; start: Uint32Array; end: Uint32Array; line: Uint32Array; col: Uint32Array; hash: Int32Array } | undefined;

/** Tokenize into fresh arrays (the caller may keep them). */
export function tokenize(text: string, file: string): Tokens {
  const t = tokenizeShared(text, file);
  return { ...t, kind: t.kind.slice(), start: t.start.slice(), end: t.end.slice(), line: t.line.slice(), col: t.col.slice(), hash: t.hash.slice() };
}

/**
 * Tokenize into the shared scratch arrays: valid until the next call. The parser uses this so that a 5 MB
 * file does not allocate (and the GC does not track) 20 MB of fresh typed arrays per parse.
 */
export function tokenizeShared(text: string, file: string): Tokens {
  let cap = Math.max(1024, text.length >> 2, scratch?.kind.length ?? 0);
  if (!scratch || scratch.kind.length < cap) {
    scratch = { kind: new Uint8Array(cap), start: new Uint32Array(cap), end: new Uint32Array(cap), line: new Uint32Array(cap), col: new Uint32Array(cap), hash: new Int32Array(cap) };
  }
  let kind = scratch.kind;
  let start = scratch.start;
  let end = scratch.end;
  let lineA = scratch.line;
  let colA = scratch.col;
  let hashA = scratch.hash;
  let h = 0;
  let n = 0;
  // A copy of a token column at the new capacity (same typed-array kind).
  const widened = <A extends Uint8Array | Uint32Array | Int32Array>(a: A): A => {
    const b = new (a.constructor as new (n: number) => A)(cap);
    b.set(a);
    return b;
  };
  const grow = (): void => {
    cap *= 2;
    kind = widened(kind);
    start = widened(start);
    end = widened(end);
    lineA = widened(lineA);
    colA = widened(colA);
    hashA = widened(hashA);
    scratch = { kind, start, end, line: lineA, col: colA, hash: hashA };
  };
  const len = text.length;
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const fail = (msg: string, at: number): never => {
    throw new PtxforgeError('PTX_SYNTAX', msg, { pos: { file, line, col: at - lineStart + 1 } });
  };
  const push = (k: Tk, s: number, e: number): void => {
    if (n === cap) grow();
    kind[n] = k;
    start[n] = s;
    end[n] = e;
    lineA[n] = line;
    colA[n] = s - lineStart + 1;
    hashA[n] = h;
    n++;
  };
  while (i < len) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      i++;
      line++;
      lineStart = i;
      continue;
    }
    if (c === 32 || c === 9 || c === 13 || c === 12 || c === 11) {
      i++;
      continue;
    }
    if (c === 47 /* / */) {
      const d = text.charCodeAt(i + 1);
      if (d === 47) {
        const e = text.indexOf('\n', i);
        i = e < 0 ? len : e;
        continue;
      }
      if (d === 42) {
        const s = i;
        const e = text.indexOf('*/', i + 2);
        if (e < 0) fail("unterminated '/*' comment", s);
        for (let k = i; k < e; k++) {
          if (text.charCodeAt(k) === 10) {
            line++;
            lineStart = k + 1;
          }
        }
        i = e + 2;
        continue;
      }
    }
    if (c < 128 && (CC[c]! & 1) !== 0) {
      // Identifier ('%' alone is the modulo operator).
      const s = i;
      h = c;
      i++;
      for (let d = text.charCodeAt(i); i < len && isIdCont(d); d = text.charCodeAt(++i)) h = (Math.imul(h, 31) + d) | 0;
      if (c === 37 && i === s + 1) {
        push(Tk.Punct, s, i);
        continue;
      }
      push(Tk.Ident, s, i);
      continue;
    }
    if (isDigit(c)) {
      const s = i;
      const d = text.charCodeAt(i + 1);
      if (c === 48 && (d === 102 || d === 70 || d === 100 || d === 68) && isHex(text.charCodeAt(i + 2))) {
        // 0f / 0d hexadecimal float bit patterns: exactly 8 / 16 hex digits (ptxas reads `0f3F80` as a
        // syntax error).
        i += 2;
        while (i < len && isHex(text.charCodeAt(i))) i++;
        const digits = i - s - 2;
        if (digits !== (d === 102 || d === 70 ? 8 : 16)) fail(`syntax error near '${text.slice(s, i)}': a ${d === 102 || d === 70 ? '0f literal has 8' : '0d literal has 16'} hexadecimal digits`, s);
        push(Tk.Float, s, i);
        continue;
      }
      if (c === 48 && (d === 120 || d === 88)) {
        if (!isHex(text.charCodeAt(i + 2))) fail(`expected hexadecimal digits after '0x'`, s);
        i += 2;
        while (i < len && isHex(text.charCodeAt(i))) i++;
        if (text.charCodeAt(i) === 85) i++; // U suffix
        push(Tk.Int, s, i);
        continue;
      }
      if (c === 48 && (d === 98 || d === 66) && (text.charCodeAt(i + 2) === 48 || text.charCodeAt(i + 2) === 49)) {
        i += 2;
        while (i < len && (text.charCodeAt(i) === 48 || text.charCodeAt(i) === 49)) i++;
        if (text.charCodeAt(i) === 85) i++;
        push(Tk.Int, s, i);
        continue;
      }
      while (i < len && isDigit(text.charCodeAt(i))) i++;
      let isFloat = false;
      if (text.charCodeAt(i) === 46 && isDigit(text.charCodeAt(i + 1))) {
        isFloat = true;
        i++;
        while (i < len && isDigit(text.charCodeAt(i))) i++;
      } else if (text.charCodeAt(i) === 46 && !isIdCont(text.charCodeAt(i + 1))) {
        isFloat = true; // `1.`
        i++;
      }
      const e = text.charCodeAt(i);
      if ((e === 101 || e === 69) && (isDigit(text.charCodeAt(i + 1)) || ((text.charCodeAt(i + 1) === 43 || text.charCodeAt(i + 1) === 45) && isDigit(text.charCodeAt(i + 2))))) {
        isFloat = true;
        i += 2;
        while (i < len && isDigit(text.charCodeAt(i))) i++;
      }
      if (!isFloat && text.charCodeAt(i) === 85) i++;
      push(isFloat ? Tk.Float : Tk.Int, s, i);
      continue;
    }
    if (c === 46 /* . */) {
      const s = i;
      i++;
      if (!isIdCont(text.charCodeAt(i))) fail(`expected a directive or modifier name after '.', found '${text[i] ?? 'end of input'}'`, s);
      h = 0;
      for (let d = text.charCodeAt(i); i < len && isIdCont(d); d = text.charCodeAt(++i)) h = (Math.imul(h, 31) + d) | 0;
      // `.L2::evict_last`, `.L2::128B`: scoped modifier parts.
      while (text.charCodeAt(i) === 58 && text.charCodeAt(i + 1) === 58 && isIdCont(text.charCodeAt(i + 2))) {
        h = (Math.imul(Math.imul(h, 31) + 58, 31) + 58) | 0;
        i += 2;
        for (let d = text.charCodeAt(i); i < len && isIdCont(d); d = text.charCodeAt(++i)) h = (Math.imul(h, 31) + d) | 0;
      }
      push(Tk.Dot, s, i);
      continue;
    }
    if (c === 34 /* " */) {
      const s = i;
      i++;
      while (i < len) {
        const d = text.charCodeAt(i);
        if (d === 34) break;
        if (d === 10) fail('unterminated string', s);
        i += d === 92 ? 2 : 1;
      }
      if (i >= len) fail('unterminated string', s);
      i++;
      push(Tk.Str, s, i);
      continue;
    }
    if (PUNCT.has(c)) {
      push(Tk.Punct, i, i + 1);
      i++;
      continue;
    }
    fail(`unexpected character '${String.fromCodePoint(text.codePointAt(i)!)}'`, i);
  }
  push(Tk.Eof, len, len);
  return {
    text, file, count: n,
    kind: kind.subarray(0, n), start: start.subarray(0, n), end: end.subarray(0, n), hash: hashA.subarray(0, n),
    line: lineA.subarray(0, n), col: colA.subarray(0, n),
  };
}
