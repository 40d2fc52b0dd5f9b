import { PtxforgeError } from '../errors.js';
import {
  Block, Instr, OriFunction, OriModule, type ControlInfo, type FuncParam, type Guard, type Operand, type Register, type SrcLoc,
  type VarDecl, type VarReloc,
} from './core.js';
import { parseControl } from './machine.js';
import { CORE_OPCODES, type OpcodeTable } from './opcodes.js';

/**
 * Ori text parser (the inverse of print.ts). Errors are PtxforgeErrors with code ORI_PARSE (or a more
 * specific ORI_* code) and the file:line:col of the offending token.
 */

type TokKind = 'nl' | 'comment' | 'ident' | 'dir' | 'reg' | 'sym' | 'at' | 'num' | 'str' | 'punct' | 'ctrl' | 'eof';
interface Tok {
  kind: TokKind;
  text: string;
  line: number;
  col: number;
}

const NUM_RE = /^-?(?:0[fF][0-9a-fA-F]{8}(?![0-9a-zA-Z_])|0[dD][0-9a-fA-F]{16}(?![0-9a-zA-Z_])|0[xX][0-9a-fA-F]+|\d+)/;
const STRING_RE = /"(?:[^"\\\n]|\\.)*"/y;
const IDENT_RE = /^[A-Za-z_$][A-Za-z0-9_$.]*/;

function tokenize(src: string, file: string): Tok[] {
  const toks: Tok[] = [];
  let line = 1;
  let col = 1;
  let i = 0;
  const err = (msg: string): never => {
    throw new PtxforgeError('ORI_PARSE', msg, { pos: { file, line, col } });
  };
  while (i < src.length) {
    const c = src[i]!;
    const start = { line, col };
    const push = (kind: TokKind, text: string): void => {
      toks.push({ kind, text, ...start });
      i += text.length;
      col += text.length;
    };
    if (c === '\n') {
      toks.push({ kind: 'nl', text: '\n', ...start });
      i++;
      line++;
      col = 1;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
      col++;
      continue;
    }
    const rest = src.slice(i, i + 200);
    if (rest.startsWith('//')) {
      let e = src.indexOf('\n', i);
      if (e < 0) e = src.length;
      push('comment', src.slice(i, e));
      continue;
    }
    if (rest.startsWith('->')) {
      push('punct', '->');
      continue;
    }
    const num = NUM_RE.exec(rest);
    if (num && (c !== '-' || /\d/.test(rest[1] ?? ''))) {
      push('num', num[0]);
      continue;
    }
    if (c === '[' && rest[1] === 'B') {
      // A control record `[B------:R-:W-:Y:S04]` (a memory operand never starts with B).
      const m = /^\[([^\]\n]*)\]/.exec(rest);
      if (!m) err('unterminated control record');
      push('ctrl', m![0]);
      continue;
    }
    if (c === '%') {
      const m = /^%[a-zA-Z]+\d+/.exec(rest);
      if (!m) err(`expected a register name like %r1 (virtual) or %R1 (physical) after '%'`);
      push('reg', m![0]);
      continue;
    }
    if (c === '@') {
      const m = /^@[A-Za-z_$][A-Za-z0-9_$.]*/.exec(rest);
      if (m && m[0] !== '@PT') push('sym', m[0]);
      else push('at', '@');
      continue;
    }
    if (c === '.') {
      const m = /^\.[A-Za-z_][A-Za-z0-9_]*/.exec(rest);
      if (!m) err(`stray '.'`);
      push('dir', m![0]);
      continue;
    }
    if (c === '"') {
      // from the source itself, not the 200-character window: data strings (hex"...") are long
      STRING_RE.lastIndex = i;
      const m = STRING_RE.exec(src);
      if (!m) err('unterminated string');
      push('str', m![0]);
      continue;
    }
    const id = IDENT_RE.exec(rest);
    if (id) {
      push('ident', id[0]);
      continue;
    }
    if ('=,()[]{}:+-|!~'.includes(c)) {
      push('punct', c);
      continue;
    }
    err(`unexpected character '${c}'`);
  }
  toks.push({ kind: 'eof', text: '<end of input>', line, col });
  return toks;
}

export interface ParseOptions {
  /** File name used in error positions. */
  file?: string;
  /** Opcode table to read with (a toolchain's, with its plugins' opcodes); default the core ISA. */
  opcodes?: OpcodeTable;
}

class Parser {
  private p = 0;
  private fn: OriFunction | undefined;
  private pendingBlocks = new Map<string, { block: Block; tok: Tok }>();
  private defined = new Set<string>();

  constructor(private readonly toks: Tok[], private readonly file: string, private readonly opcodes: OpcodeTable) {}

  private get t(): Tok {
    return this.toks[this.p]!;
  }
  private next(): Tok {
    return this.toks[this.p++]!;
  }
  private fail(msg: string, tok: Tok = this.t, code = 'ORI_PARSE'): never {
    throw new PtxforgeError(code, msg, { pos: { file: this.file, line: tok.line, col: tok.col } });
  }
  private is(kind: TokKind, text?: string): boolean {
    return this.t.kind === kind && (text === undefined || this.t.text === text);
  }
  private accept(kind: TokKind, text?: string): Tok | undefined {
    return this.is(kind, text) ? this.next() : undefined;
  }
  private expect(kind: TokKind, text?: string, what?: string): Tok {
    if (!this.is(kind, text)) this.fail(`expected ${what ?? text ?? kind}, found '${this.t.text.replace('\n', '\\n')}'`);
    return this.next();
  }
  private skipBlank(comments?: string[]): void {
    for (;;) {
      if (this.accept('nl')) continue;
      const c = this.accept('comment');
      if (c) {
        comments?.push(c.text);
        continue;
      }
      return;
    }
  }
  private endOfLine(): void {
    if (this.is('comment')) this.fail('a comment must stand on a line of its own in Ori text');
    if (!this.is('eof')) this.expect('nl', undefined, 'end of line');
  }
  private int(tok: Tok): number {
    if (tok.kind !== 'num' || /^-?0[fd]/i.test(tok.text)) this.fail(`expected an integer, found '${tok.text}'`, tok);
    return Number(BigInt(tok.text.replace(/^-/, '')) * (tok.text.startsWith('-') ? -1n : 1n));
  }

  parseModule(): OriModule {
    const m = new OriModule();
    m.setOpcodes(this.opcodes);
    let comments: string[] = [];
    for (;;) {
      this.skipBlank(comments);
      if (this.is('eof')) break;
      const t = this.t;
      if (t.kind !== 'dir') this.fail(`expected a directive (.target, .entry, .func, .global ...), found '${t.text}'`);
      if (t.text === '.target') {
        this.next();
        m.target = this.expect('ident', undefined, 'a target name like sm_90').text;
        this.endOfLine();
      } else if (t.text === '.file') {
        this.next();
        const k = this.int(this.next());
        if (k !== m.files.length) this.fail(`.file numbers must count up from 0; expected ${m.files.length}`, t);
        m.files.push(JSON.parse(this.expect('str', undefined, 'a quoted file name').text) as string);
        this.endOfLine();
      } else if (t.text === '.entry' || t.text === '.func') {
        const fn = this.parseFunction();
        setComments(fn, comments);
        if (m.getFunction(fn.name)) this.fail(`function @${fn.name} is defined twice`, t);
        fn.opcodes = this.opcodes;
        m.functions.push(fn);
      } else {
        m.vars.push(this.parseVar());
        this.endOfLine();
      }
      if (comments.length && t.text !== '.entry' && t.text !== '.func') {
        // Comments before module-level directives stay at the top of the module.
        setModuleComments(m, [...getModuleComments(m), ...comments]);
      }
      comments = [];
    }
    if (comments.length) setModuleTrailing(m, comments);
    return m;
  }

  private parseVar(): VarDecl {
    const extern = !!this.accept('dir', '.extern');
    const visible = !extern && !!this.accept('dir', '.visible');
    const sp = this.expect('dir', undefined, '.global, .shared, .const or .local');
    const space = sp.text.slice(1);
    if (space !== 'global' && space !== 'shared' && space !== 'const' && space !== 'local') {
      this.fail(`unknown directive ${sp.text}`, sp);
    }
    this.expect('dir', '.align');
    const align = this.int(this.next());
    this.expect('dir', '.b8');
    const name = this.expect('sym', undefined, 'a variable name like @buf').text.slice(1);
    this.expect('punct', '[');
    const size = this.int(this.next());
    this.expect('punct', ']');
    const v: VarDecl = { space, name, size, align };
    if (extern) v.extern = true;
    if (visible) v.visible = true;
    if (this.accept('punct', '=')) {
      const h = this.expect('ident', 'hex', 'hex"..." initializer');
      const s = this.expect('str').text.slice(1, -1);
      if (!/^(?:[0-9a-f]{2})*$/.test(s)) this.fail('initializer must be lowercase hex bytes', h);
      v.init = new Uint8Array(Buffer.from(s, 'hex'));
    }
    if (this.accept('ident', 'relocs')) v.relocs = this.parseRelocs();
    return v;
  }

  /** `relocs(0x0 .b64 @x, 0x8 .b32 generic(@y)+0x10, ...)` (printVar writes this form). */
  private parseRelocs(): VarReloc[] {
    const relocs: VarReloc[] = [];
    this.expect('punct', '(');
    do {
      const offset = this.int(this.next());
      const sz = this.expect('dir', undefined, '.b32 or .b64');
      if (sz.text !== '.b32' && sz.text !== '.b64') this.fail(`relocation size must be .b32 or .b64, found ${sz.text}`, sz);
      const generic = !!this.accept('ident', 'generic');
      if (generic) this.expect('punct', '(');
      const sym = this.expect('sym', undefined, 'a variable name like @x').text.slice(1);
      if (generic) this.expect('punct', ')');
      let addend = 0;
      if (this.accept('punct', '+')) addend = this.int(this.next());
      else if (this.is('num') && this.t.text.startsWith('-')) addend = this.int(this.next());
      const r: VarReloc = { offset, size: sz.text === '.b32' ? 4 : 8, sym, addend };
      if (generic) r.generic = true;
      relocs.push(r);
    } while (this.accept('punct', ','));
    this.expect('punct', ')');
    return relocs;
  }

  private parseFunction(): OriFunction {
    const kindTok = this.next();
    const name = this.expect('sym', undefined, 'a function name like @kernel').text.slice(1);
    const fn = new OriFunction(name, kindTok.text === '.entry' ? 'entry' : 'func');
    fn.opcodes = this.opcodes;
    this.fn = fn;
    this.pendingBlocks = new Map();
    this.defined = new Set();
    this.expect('punct', '(');
    this.skipBlank();
    while (!this.is('punct', ')')) {
      fn.params.push(this.parseParam(fn));
      this.skipBlank();
      if (!this.accept('punct', ',')) break;
      this.skipBlank();
    }
    this.expect('punct', ')');
    if (this.accept('punct', '->')) {
      this.expect('punct', '(');
      while (!this.is('punct', ')')) {
        const r = fn.getOrCreateReg(this.expect('reg').text);
        r.isParam = true;
        fn.results.push(r);
        if (!this.accept('punct', ',')) break;
      }
      this.expect('punct', ')');
    }
    this.endOfLine();
    this.expect('punct', '{');
    this.endOfLine();
    let comments: string[] = [];
    let block: Block | undefined;
    for (;;) {
      this.skipBlank(comments);
      if (this.accept('punct', '}')) break;
      if (this.is('eof')) this.fail(`missing '}' at the end of function @${name}`);
      const t = this.t;
      if (t.kind === 'dir') {
        if (block) this.fail('directives and variables must come before the first block', t);
        if (t.text === '.global' || t.text === '.shared' || t.text === '.const' || t.text === '.local' || t.text === '.extern' || t.text === '.visible') {
          fn.vars.push(this.parseVar());
        } else {
          this.next();
          const vals: number[] = [this.int(this.next())];
          while (this.accept('punct', ',')) vals.push(this.int(this.next()));
          fn.directives.set(t.text.slice(1), vals);
        }
        this.endOfLine();
        continue;
      }
      if (t.kind === 'ident' && this.toks[this.p + 1]?.kind === 'punct' && this.toks[this.p + 1]!.text === ':') {
        this.next();
        this.next();
        if (this.defined.has(t.text)) this.fail(`block label ${t.text} is defined twice`, t, 'ORI_DUPLICATE_LABEL');
        this.defined.add(t.text);
        block = this.blockRef(t);
        this.pendingBlocks.delete(t.text);
        fn.addBlock(block);
        if (this.accept('punct', '{')) {
          while (!this.accept('punct', '}')) block.attrs.add(this.expect('ident', undefined, 'a block attribute').text);
        }
        if (comments.length) setComments(block, comments);
        comments = [];
        this.endOfLine();
        continue;
      }
      if (!block) this.fail('instruction before the first block label', t);
      const ins = this.parseInstr(fn);
      if (comments.length) setComments(ins, comments);
      comments = [];
      block.append(ins);
      this.endOfLine();
    }
    for (const [lbl, { tok }] of this.pendingBlocks) {
      this.fail(`label ${lbl} is used but no block defines it in @${name}`, tok, 'ORI_UNDEFINED_LABEL');
    }
    if (comments.length) setTrailing(fn, comments);
    this.fn = undefined;
    return fn;
  }

  private blockRef(t: Tok): Block {
    const fn = this.fn!;
    const existing = fn.getBlock(t.text) ?? this.pendingBlocks.get(t.text)?.block;
    if (existing) return existing;
    const b = new Block(t.text, fn);
    this.pendingBlocks.set(t.text, { block: b, tok: t });
    return b;
  }

  private parseParam(fn: OriFunction): FuncParam {
    this.expect('dir', '.param');
    const type = this.expect('dir', undefined, 'a parameter type like .u64').text.slice(1);
    const p: FuncParam = { name: '', type, count: 0 };
    if (this.accept('dir', '.align')) p.align = this.int(this.next());
    p.name = this.expect('ident', undefined, 'a parameter name').text;
    if (this.accept('punct', '[')) {
      p.count = this.int(this.next());
      this.expect('punct', ']');
    }
    if (this.is('ident', 'c')) {
      const o = this.parseOperand(fn);
      if (o.kind !== 'cbank' || o.index) this.fail('a kernel parameter location must be c[bank][offset]');
      p.cbank = { bank: o.bank, offset: o.offset };
    } else if (this.is('reg')) {
      p.reg = fn.getOrCreateReg(this.next().text);
      p.reg.isParam = true;
    }
    return p;
  }

  private parseInstr(fn: OriFunction): Instr {
    let control: ControlInfo | undefined;
    if (this.is('ctrl')) {
      const c = this.next();
      try {
        control = parseControl(c.text.slice(1, -1));
      } catch (e) {
        this.fail((e as Error).message, c, 'ORI_BAD_CONTROL');
      }
    }
    let guard: Guard | undefined;
    if (this.accept('at')) {
      const not = !!this.accept('punct', '!');
      const g = this.expect('reg', undefined, 'a predicate register after @');
      const r = fn.getOrCreateReg(g.text);
      if (r.cls !== 'P' && r.cls !== 'UP') this.fail(`guard ${g.text} is not a predicate register`, g, 'ORI_BAD_GUARD');
      guard = { reg: r, not };
    }
    // Defs are present when a top-level '=' comes before the end of the line or an attribute brace.
    let hasDefs = false;
    for (let k = this.p; ; k++) {
      const tk = this.toks[k]!;
      if (tk.kind === 'nl' || tk.kind === 'eof' || tk.kind === 'comment' || (tk.kind === 'punct' && tk.text === '{')) break;
      if (tk.kind === 'punct' && tk.text === '=') {
        hasDefs = true;
        break;
      }
    }
    const defs: Operand[] = [];
    if (hasDefs) {
      do defs.push(this.parseOperand(fn));
      while (this.accept('punct', ','));
      this.expect('punct', '=');
    }
    const opTok = this.expect('ident', undefined, 'an opcode');
    const [opcode, ...mods] = opTok.text.split('.');
    if (!this.opcodes.has(opcode!)) this.fail(`unknown opcode ${opcode}`, opTok, 'ORI_UNKNOWN_OPCODE');
    if (mods.some((m) => m === '')) this.fail(`empty modifier in ${opTok.text}`, opTok);
    const uses: Operand[] = [];
    if (!this.is('nl') && !this.is('eof') && !this.is('comment') && !this.is('punct', '{')) {
      do uses.push(this.parseOperand(fn));
      while (this.accept('punct', ','));
    }
    let loc: SrcLoc | undefined;
    const flags: string[] = [];
    if (this.accept('punct', '{')) {
      while (!this.accept('punct', '}')) {
        const k = this.expect('ident', undefined, 'an attribute');
        if (this.accept('punct', '=')) {
          const v = this.int(this.next());
          loc ??= { line: 0 };
          if (k.text === 'line') loc.line = v;
          else if (k.text === 'col') loc.col = v;
          else if (k.text === 'file') loc.file = v;
          else this.fail(`unknown attribute ${k.text}=`, k);
        } else flags.push(k.text);
      }
    }
    return new Instr(opcode!, { guard, mods, defs, uses, loc, flags, control });
  }

  private parseOperand(fn: OriFunction): Operand {
    const t = this.t;
    if (this.accept('punct', '-')) {
      const o = this.parseOperand(fn);
      if (o.kind === 'reg') return { ...o, neg: true };
      this.fail('only a register can be negated with -', t);
    }
    if (this.accept('punct', '!') || this.accept('punct', '~')) {
      if (this.accept('ident', 'PT')) return { kind: 'pt', not: true };
      const o = this.parseOperand(fn);
      if (o.kind === 'reg') return { ...o, not: true };
      this.fail(`only a register or PT can follow ${t.text}`, t);
    }
    if (this.accept('punct', '|')) {
      const r = this.expect('reg');
      this.expect('punct', '|');
      return { kind: 'reg', reg: fn.getOrCreateReg(r.text), abs: true };
    }
    switch (t.kind) {
      case 'reg':
        this.next();
        return { kind: 'reg', reg: this.reg(fn, t) };
      case 'num': {
        this.next();
        const s = t.text;
        if (/^0f/i.test(s)) return { kind: 'imm', value: BigInt(`0x${s.slice(2)}`), fmt: 'f32' };
        if (/^0d/i.test(s)) return { kind: 'imm', value: BigInt(`0x${s.slice(2)}`), fmt: 'f64' };
        const neg = s.startsWith('-');
        const body = neg ? s.slice(1) : s;
        const v = BigInt(body) * (neg ? -1n : 1n);
        return { kind: 'imm', value: v, fmt: /^0x/i.test(body) ? 'hex' : 'int' };
      }
      case 'sym':
        this.next();
        return { kind: 'sym', name: t.text.slice(1) };
      case 'ident': {
        this.next();
        if (t.text === 'RZ') return { kind: 'rz' };
        if (t.text === 'URZ') return { kind: 'rz', uniform: true };
        if (t.text === 'PT') return { kind: 'pt' };
        if (t.text.startsWith('SR_')) return { kind: 'sreg', name: t.text };
        if (t.text === 'c' && this.is('punct', '[')) return this.parseCBank(fn);
        return { kind: 'label', block: this.blockRef(t) };
      }
      case 'punct':
        if (t.text === '[') return this.parseMem(fn);
        if (t.text === '(') {
          this.next();
          const blocks: Block[] = [];
          while (!this.is('punct', ')')) {
            blocks.push(this.blockRef(this.expect('ident', undefined, 'a block label')));
            if (!this.accept('punct', ',')) break;
          }
          this.expect('punct', ')');
          return { kind: 'labels', blocks };
        }
        break;
      default:
        break;
    }
    this.fail(`expected an operand, found '${t.text.replace('\n', '\\n')}'`);
  }

  private reg(fn: OriFunction, t: Tok): Register {
    try {
      return fn.getOrCreateReg(t.text);
    } catch {
      this.fail(`bad register name ${t.text} (use %r, %rd, %rq, %p, %ur, %urd, %up or %b with a number; upper case for a physical register: %R4, %RD4)`, t);
    }
  }

  private parseCBank(fn: OriFunction): Operand {
    this.expect('punct', '[');
    const bank = this.int(this.next());
    this.expect('punct', ']');
    this.expect('punct', '[');
    let index: Register | undefined;
    let offset = 0;
    if (this.is('reg')) {
      index = this.reg(fn, this.next());
      if (this.accept('punct', '+')) offset = this.int(this.next());
      else if (this.is('num') && this.t.text.startsWith('-')) offset = this.int(this.next());
    } else offset = this.int(this.next());
    this.expect('punct', ']');
    return index ? { kind: 'cbank', bank, offset, index } : { kind: 'cbank', bank, offset };
  }

  private parseMem(fn: OriFunction): Operand {
    this.expect('punct', '[');
    let base: Register | undefined;
    let sym: string | undefined;
    let offset = 0;
    let first = true;
    while (!this.is('punct', ']')) {
      if (!first && !this.accept('punct', '+') && !(this.is('num') && this.t.text.startsWith('-'))) {
        this.fail(`expected '+', '-' offset or ']' in an address, found '${this.t.text}'`);
      }
      first = false;
      const t = this.next();
      if (t.kind === 'reg' && !base) base = this.reg(fn, t);
      else if (t.kind === 'sym' && sym === undefined) sym = t.text.slice(1);
      else if (t.kind === 'num') offset = this.int(t);
      else this.fail(`unexpected '${t.text}' in an address`, t);
    }
    this.expect('punct', ']');
    const o: { kind: 'mem'; base?: Register; sym?: string; offset: number } = { kind: 'mem', offset };
    if (base) o.base = base;
    if (sym !== undefined) o.sym = sym;
    return o;
  }
}

// Comments are kept so that commented examples round-trip: leading comments on functions, blocks and
// instructions, module-level ones at the top, and trailing ones at the end of a function or module.
const COMMENTS = new WeakMap<object, string[]>();
const TRAILING = new WeakMap<object, string[]>();
export function getComments(o: object): string[] {
  return COMMENTS.get(o) ?? [];
}
export function setComments(o: object, c: string[]): void {
  if (c.length) COMMENTS.set(o, c);
  else COMMENTS.delete(o);
}
export function getTrailingComments(o: object): string[] {
  return TRAILING.get(o) ?? [];
}
function setTrailing(o: object, c: string[]): void {
  TRAILING.set(o, c);
}
function getModuleComments(m: OriModule): string[] {
  return getComments(m);
}
function setModuleComments(m: OriModule, c: string[]): void {
  setComments(m, c);
}
function setModuleTrailing(m: OriModule, c: string[]): void {
  TRAILING.set(m, c);
}

/** Parse Ori text into a module. Throws PtxforgeError (ORI_*) with the position of the problem. */
export function parseOri(text: string, opts: ParseOptions = {}): OriModule {
  const file = opts.file ?? '<input>';
  const p = new Parser(tokenize(text, file), file, opts.opcodes ?? CORE_OPCODES);
  const m = p.parseModule();
  return m;
}
