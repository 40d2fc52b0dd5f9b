import { formatControl, parseControl } from './control.js';
import type { CBankOperand, Guard, MemOperand, RegFile, RegOperand, SassInstruction, SassOperand } from './model.js';

/**
 * nvdisasm-syntax printer and parser. `@!P0 IADD3 R4, P0, PT, R2, c[0x0][0x210], RZ ;`, optionally preceded
 * by control info in CuAssembler notation: `[B------:R-:W2:Y:S04] LDG.E R2, desc[UR4][R2.64] ;`.
 */
export class SassSyntaxError extends Error {
  readonly code = 'SASS_SYNTAX';
  constructor(message: string, readonly text: string) {
    super(`SASS_SYNTAX: ${message} in '${text}'`);
  }
}

const REG_NAMES: Record<RegFile, string> = { R: 'R', UR: 'UR', P: 'P', UP: 'UP', B: 'B' };

export function formatReg(file: RegFile, n: number): string {
  if ((file === 'R' && n === 255) || (file === 'UR' && n === 63)) return REG_NAMES[file] + 'Z';
  if ((file === 'P' || file === 'UP') && n === 7) return REG_NAMES[file] + 'T';
  return REG_NAMES[file] + n;
}

export function formatInt(v: number): string {
  return v < 0 ? '-0x' + (-v).toString(16) : '0x' + v.toString(16);
}

function expPad(s: string): string {
  // C prints at least two exponent digits.
  return s.replace(/e([+-])(\d)$/, 'e$10$2');
}

/**
 * Float immediates the way nvdisasm prints them: integers below 2^31 plainly, larger magnitudes with
 * `%.20e`, everything else like `%.20g` (20 significant digits, trailing zeros dropped).
 */
export function formatFloat(v: number, nan?: string): string {
  if (Number.isNaN(v)) return nan ?? '+QNAN';
  if (v === Infinity) return '+INF';
  if (v === -Infinity) return '-INF';
  if (Object.is(v, -0)) return '-0';
  const a = Math.abs(v);
  if (Number.isInteger(v) && a < 2 ** 31) return String(v);
  if (a >= 2 ** 31) return expPad(v.toExponential(20));
  // %.20g
  const e = v.toExponential(19); // d.ddd...e±x, 20 significant digits, exactly rounded
  const m = /^(-?)(\d)\.(\d+)e([+-]\d+)$/.exec(e)!;
  const exp = Number(m[4]);
  const digits = (m[2]! + m[3]!).replace(/0+$/, '');
  if (exp < -4 || exp >= 20) {
    const mant = digits.length > 1 ? digits[0] + '.' + digits.slice(1) : digits;
    return expPad(`${m[1]}${mant}e${exp < 0 ? '-' : '+'}${Math.abs(exp)}`);
  }
  let s: string;
  if (exp >= 0) {
    const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
    const frac = digits.slice(exp + 1);
    s = frac ? `${intPart}.${frac}` : intPart;
  } else {
    s = '0.' + '0'.repeat(-exp - 1) + digits;
  }
  return m[1] + s;
}

function wrapFlags(o: { neg?: boolean; abs?: boolean; not?: boolean }, body: string): string {
  let s = body;
  if (o.abs) s = `|${s}|`;
  if (o.not) s = (s.startsWith('P') || s.startsWith('UP') || s.startsWith('|') ? '!' : '~') + s;
  if (o.neg) s = '-' + s;
  return s;
}

function formatMem(m: MemOperand): string {
  if (m.gdesc) return `gdesc[${formatReg('UR', m.ur ?? 63)}]`;
  if (m.descOnly) return `desc[${formatReg('UR', m.desc ?? 63)}]`;
  const parts: string[] = [];
  if (m.base !== 255) parts.push(formatReg('R', m.base) + (m.baseSfx?.length ? '.' + m.baseSfx.join('.') : ''));
  if (m.ur !== undefined) parts.push(formatReg('UR', m.ur));
  let s = parts.join('+');
  if (m.off !== 0) s = s ? s + '+' + formatInt(m.off) : formatInt(m.off);
  if (!s) s = 'RZ' + (m.baseSfx?.length ? '.' + m.baseSfx.join('.') : '');
  return (m.desc !== undefined ? `desc[${formatReg('UR', m.desc)}]` : '') + `[${s}]`;
}

function formatCBank(c: CBankOperand): string {
  let inner: string;
  if (c.reg) {
    inner = formatReg(c.reg.file, c.reg.n);
    if (c.off !== 0) inner += '+' + formatInt(c.off);
  } else inner = formatInt(c.off);
  return `c[${formatInt(c.bank)}][${inner}]`;
}

export function formatOperand(o: SassOperand): string {
  switch (o.k) {
    case 'reg': {
      const sfx = o.sfx?.length ? '.' + o.sfx.join('.') : '';
      // nvdisasm keeps swizzles inside |..| and puts .reuse after the closing bar.
      if (o.abs && o.sfxOutsideAbs) return wrapFlags(o, formatReg(o.file, o.n)) + (o.reuse ? '.reuse' : '') + sfx;
      if (o.abs) return wrapFlags(o, formatReg(o.file, o.n) + sfx) + (o.reuse ? '.reuse' : '');
      return wrapFlags(o, formatReg(o.file, o.n)) + (o.reuse ? '.reuse' : '') + sfx;
    }
    case 'int':
      return o.reloc ?? formatInt(o.v);
    case 'float':
      return formatFloat(o.v, o.nan);
    case 'cbank': {
      let s = wrapFlags({ neg: o.neg, abs: o.abs }, formatCBank(o) + (o.sfx?.length ? '.' + o.sfx.join('.') : ''));
      if (o.not) s = '~' + s;
      return s;
    }
    case 'mem':
      return formatMem(o);
    case 'name':
      return o.name;
  }
}

export function formatGuard(g: Guard | undefined): string {
  if (!g) return '';
  return `@${g.not ? '!' : ''}${formatReg(g.file, g.n)} `;
}

/** nvdisasm text of one instruction, `;` included; with `control`, prefixed by `[B------:R-:W-:Y:S00] `. */
export function formatInstruction(ins: SassInstruction, opts: { control?: boolean } = {}): string {
  let s = '';
  if (opts.control && ins.control) s += `[${formatControl(ins.control)}] `;
  s += formatGuard(ins.guard);
  s += ins.opcode;
  for (const m of ins.mods) s += '.' + m;
  for (let i = 0; i < ins.operands.length; i++) {
    const o = ins.operands[i]!;
    s += i === 0 ? ' ' : o.sep === ' ' ? ' ' : ', ';
    s += formatOperand(o);
  }
  return s + ' ;';
}

/** Whitespace-insensitive form used to compare our text with nvdisasm's. */
export function normalizeSassText(t: string): string {
  return t.replace(/\s+/g, '');
}

// ---------------------------------------------------------------- parser

const INT_RE = /^[-+]?0x[0-9a-f]+$/i;
const FLOAT_RE = /^[-+]?(?:\d+(?:\.\d*)?(?:e[-+]?\d+)?|INF|QNAN|SNAN|NAN)$/i;
const REG_RE = /^(UR|UP|R|P|B)(\d+|Z|T)(?![A-Za-z0-9_])/;

function parseRegHead(s: string): { file: RegFile; n: number; len: number } | undefined {
  const m = REG_RE.exec(s);
  if (!m) return undefined;
  const file = m[1] as RegFile;
  const t = m[2]!;
  let n: number;
  if (t === 'Z') {
    if (file !== 'R' && file !== 'UR') return undefined;
    n = file === 'R' ? 255 : 63;
  } else if (t === 'T') {
    if (file !== 'P' && file !== 'UP') return undefined;
    n = 7;
  } else n = Number(t);
  return { file, n, len: m[0].length };
}

function parseIntText(s: string, text: string): number {
  if (!INT_RE.test(s)) throw new SassSyntaxError(`expected a hex integer, got '${s}'`, text);
  const neg = s.startsWith('-');
  const v = parseInt(s.replace(/^[-+]/, '').slice(2), 16);
  return neg ? -v : v;
}

function parseMemInner(inner: string, text: string): Omit<MemOperand, 'k' | 'desc'> {
  const m: Omit<MemOperand, 'k' | 'desc'> = { base: 255, off: 0 };
  let seenBase = false;
  for (const raw of inner.split('+')) {
    const p = raw.trim();
    if (!p) throw new SassSyntaxError(`empty address term`, text);
    if (INT_RE.test(p)) {
      m.off = parseIntText(p, text);
      continue;
    }
    const r = parseRegHead(p);
    if (!r) throw new SassSyntaxError(`bad address term '${p}'`, text);
    const rest = p.slice(r.len);
    if (r.file === 'UR' && seenBase) m.ur = r.n;
    else if (r.file === 'UR' && !seenBase && rest === '') {
      m.ur = r.n;
    } else if (r.file === 'R') {
      m.base = r.n;
      seenBase = true;
      if (rest) m.baseSfx = rest.slice(1).split('.');
    } else throw new SassSyntaxError(`bad address term '${p}'`, text);
  }
  return m;
}

function parseOperand(piece: string, text: string): SassOperand {
  let s = piece;
  if (INT_RE.test(s)) return { k: 'int', v: parseIntText(s, text) };
  if (FLOAT_RE.test(s)) {
    const u = s.toUpperCase();
    if (/NAN/.test(u)) return { k: 'float', v: NaN, nan: s };
    if (/INF/.test(u)) return { k: 'float', v: u.startsWith('-') ? -Infinity : Infinity };
    return { k: 'float', v: Number(s) };
  }
  if (s.startsWith('{') || s.startsWith('SR_')) return { k: 'name', name: s };
  if (/^\d+@(lo|hi)\(.*\)$/.test(s) || /^`\(.*\)$/.test(s)) return { k: 'int', v: 0, reloc: s };
  const gd = /^gdesc\[(UR(?:\d+|Z))\]$/.exec(s);
  if (gd) return { k: 'mem', gdesc: true, base: 255, ur: parseRegHead(gd[1]!)!.n, off: 0 };
  if (s.startsWith('desc[') || s.startsWith('[')) {
    let desc: number | undefined;
    if (s.startsWith('desc[')) {
      const close = s.indexOf(']');
      const r = parseRegHead(s.slice(5, close));
      if (!r || r.file !== 'UR') throw new SassSyntaxError(`bad descriptor '${s}'`, text);
      desc = r.n;
      s = s.slice(close + 1);
      if (!s) return { k: 'mem', desc, descOnly: true, base: 255, off: 0 };
    }
    if (!s.startsWith('[') || !s.endsWith(']')) throw new SassSyntaxError(`bad memory operand '${piece}'`, text);
    const m = parseMemInner(s.slice(1, -1), text);
    return desc !== undefined ? { k: 'mem', desc, ...m } : { k: 'mem', ...m };
  }
  let neg = false;
  let not = false;
  let abs = false;
  for (;;) {
    if (s.startsWith('-')) neg = true;
    else if (s.startsWith('~') || s.startsWith('!')) not = true;
    else break;
    s = s.slice(1);
  }
  let sfxOutside = false;
  if (s.startsWith('|')) {
    abs = true;
    const close = s.indexOf('|', 1);
    if (close < 0) throw new SassSyntaxError(`unclosed '|' in '${piece}'`, text);
    sfxOutside = /^\|(?:\.reuse)?\.(?!reuse)/.test(s.slice(close)) && !s.slice(1, close).includes('.');
    s = s.slice(1, close) + s.slice(close + 1);
  }
  const flags = (o: { neg?: boolean; abs?: boolean; not?: boolean }): void => {
    if (neg) o.neg = true;
    if (abs) o.abs = true;
    if (not) o.not = true;
  };
  if (s.startsWith('c[')) {
    const m = /^c\[(0x[0-9a-f]+)\]\[([^\]]*)\]((?:\.[A-Za-z0-9_]+)*)$/i.exec(s);
    if (!m) throw new SassSyntaxError(`bad constant operand '${piece}'`, text);
    const c: CBankOperand = { k: 'cbank', bank: parseIntText(m[1]!, text), off: 0 };
    for (const raw of m[2]!.split('+')) {
      const p = raw.trim();
      if (INT_RE.test(p)) c.off = parseIntText(p, text);
      else {
        const r = parseRegHead(p);
        if (!r || (r.file !== 'R' && r.file !== 'UR') || r.len !== p.length) throw new SassSyntaxError(`bad constant address '${p}'`, text);
        c.reg = { file: r.file, n: r.n };
      }
    }
    flags(c);
    if (m[3]) c.sfx = m[3].slice(1).split('.');
    return c;
  }
  const r = parseRegHead(s);
  if (r) {
    const o: RegOperand = { k: 'reg', file: r.file, n: r.n };
    flags(o);
    const rest = s.slice(r.len);
    if (rest) {
      if (!rest.startsWith('.')) throw new SassSyntaxError(`bad register operand '${piece}'`, text);
      const sfx: string[] = [];
      for (const x of rest.slice(1).split('.')) {
        if (x === 'reuse') o.reuse = true;
        else sfx.push(x);
      }
      if (sfx.length) o.sfx = sfx;
      if (sfx.length && sfxOutside) o.sfxOutsideAbs = true;
    }
    return o;
  }
  if (neg || not || abs) throw new SassSyntaxError(`bad operand '${piece}'`, text);
  if (!/^[A-Za-z0-9_.]+$/.test(s)) throw new SassSyntaxError(`bad operand '${piece}'`, text);
  return { k: 'name', name: s };
}

/** Splits at top-level commas; inside a piece, top-level whitespace separates operands too. */
function splitOperands(s: string, text: string): { piece: string; sep?: ' ' }[] {
  const out: { piece: string; sep?: ' ' }[] = [];
  let depth = 0;
  let cur = '';
  let sepNext: ' ' | undefined;
  const flush = (): void => {
    const p = cur.trim();
    if (p) {
      out.push(sepNext ? { piece: p, sep: sepNext } : { piece: p });
    }
    cur = '';
  };
  let pendingSpace = false;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (ch === '[' || ch === '{' || ch === '(') depth++;
    else if (ch === ']' || ch === '}' || ch === ')') depth--;
    if (depth < 0) throw new SassSyntaxError(`unbalanced brackets`, text);
    if (depth === 0 && ch === ',') {
      flush();
      sepNext = undefined;
      pendingSpace = false;
      continue;
    }
    if (depth === 0 && /\s/.test(ch)) {
      if (cur.trim()) pendingSpace = true;
      continue;
    }
    if (pendingSpace) {
      // `c[0x0] [0x180]` is one operand; `R8 0x0` is two.
      if (ch === '[' && cur.endsWith(']')) {
        pendingSpace = false;
      } else {
        flush();
        sepNext = ' ';
        pendingSpace = false;
      }
    }
    cur += ch;
  }
  if (depth !== 0) throw new SassSyntaxError(`unbalanced brackets`, text);
  flush();
  return out;
}

/**
 * Parses one instruction of nvdisasm text (optionally `[control]`-prefixed, optionally with a `/*addr*\/`
 * prefix and a trailing `/* 0x... *\/` comment).
 */
export function parseInstruction(input: string): SassInstruction {
  let s = input.trim();
  let control: SassInstruction['control'];
  if (s.startsWith('[B')) {
    const close = s.indexOf(']');
    control = parseControl(s.slice(0, close + 1));
    s = s.slice(close + 1).trim();
  }
  s = s.replace(/^\/\*[0-9a-f]+\*\/\s*/i, '');
  const semi = s.indexOf(';');
  if (semi >= 0) s = s.slice(0, semi);
  s = s.trim();
  if (!s) throw new SassSyntaxError('empty instruction', input);
  let guard: Guard | undefined;
  const g = /^@(!?)(UP|P)(\d|T)\s+/.exec(s);
  if (g) {
    guard = { file: g[2] as 'P' | 'UP', n: g[3] === 'T' ? 7 : Number(g[3]), not: g[1] === '!' };
    s = s.slice(g[0].length);
  } else if (s.startsWith('@')) throw new SassSyntaxError('bad guard predicate', input);
  const sp = s.search(/\s/);
  const mnem = sp < 0 ? s : s.slice(0, sp);
  const rest = sp < 0 ? '' : s.slice(sp + 1);
  if (!/^[A-Z0-9_][A-Za-z0-9_.]*$/.test(mnem)) throw new SassSyntaxError(`bad mnemonic '${mnem}'`, input);
  const [opcode, ...mods] = mnem.split('.');
  const operands = splitOperands(rest, input).map(({ piece, sep }) => {
    const o = parseOperand(piece, input);
    if (sep) o.sep = sep;
    return o;
  });
  const ins: SassInstruction = { opcode: opcode!, mods, operands };
  if (guard) ins.guard = guard;
  if (control) ins.control = control;
  return ins;
}
