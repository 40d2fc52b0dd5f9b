import { PtxforgeError } from '@ptxforge/kernel';
import type { FunctionDecl, Init, Instruction, Operand, Pos, PtxModule, Statement, VarDecl } from './ast.js';
import { nameHash, Tk, tokenizeShared, type Tokens } from './lexer.js';
import { PTX_INSTRUCTIONS } from './ptx-opcodes.js';

/**
 * Parse PTX text into a PtxModule. Syntax errors are PtxforgeError('PTX_SYNTAX') with file:line:col, the
 * offending token and what was expected. The parser is a hand-written recursive descent over the token
 * arrays of the lexer; it only builds strings for tokens it keeps.
 */
export function parsePtx(text: string, file = '<input>'): PtxModule {
  return new Parser(tokenizeShared(text, file)).module();
}

const SPACES = new Set(['reg', 'sreg', 'local', 'shared', 'global', 'const', 'param', 'tex', 'texref', 'samplerref', 'surfref']);
const LINKAGE = new Set(['visible', 'extern', 'weak', 'common']);
/** The first register-range size ptxas 13.0.88 fails to allocate (0xBC522FF9). */
const MAX_REGISTER_RANGE = 3159502841n;
/** Launch directives whose values are counts (ptxas refuses a 0; .maxclusterrank and .reqnctapercluster take it). */
const POSITIVE_DIRECTIVES = new Set(['maxntid', 'reqntid', 'minnctapersm', 'maxnreg']);
const PERF_DIRECTIVES = new Set(['maxntid', 'reqntid', 'minnctapersm', 'maxnctapersm', 'maxnreg', 'maxclusterrank', 'reqnctapercluster', 'explicitcluster', 'noreturn', 'blocksareclusters']);

class Parser {
  private p = 0;
  private readonly t: Tokens;
  private readonly text: string;

  constructor(t: Tokens) {
    this.t = t;
    this.text = t.text;
  }

  // ---- token helpers --------------------------------------------------------------------------
  private kind(k = this.p): Tk {
    return this.t.kind[k] as Tk;
  }
  private str(k = this.p): string {
    return this.text.slice(this.t.start[k], this.t.end[k]);
  }
  /**
   * Names and modifiers repeat all over a PTX file: one string per distinct spelling keeps the AST small, and
   * (more important for speed) means the freshly sliced copies die young instead of being copied by the GC.
   */
  private table: Array<string | undefined> = new Array<string | undefined>(4096);
  private tableCount = 0;
  private interned(k = this.p): string {
    return this.internRange(this.t.start[k]!, this.t.end[k]!, this.t.hash[k]!);
  }
  /** Look the name up by the hash the lexer computed; only a miss allocates the substring. */
  private internRange(a: number, b: number, h: number): string {
    const text = this.text;
    // Long names (mangled C++ symbols) become cheap sliced strings that share the source text in V8.
    if (b - a > 12) return text.slice(a, b);
    const mask = this.table.length - 1;
    let slot = h & mask;
    for (;;) {
      const s = this.table[slot];
      if (s === undefined) break;
      if (s.length === b - a && text.startsWith(s, a)) return s;
      slot = (slot + 1) & mask;
    }
    const v = text.slice(a, b);
    this.table[slot] = v;
    if (++this.tableCount * 2 > this.table.length) this.rehash();
    return v;
  }
  private rehash(): void {
    const old = this.table;
    this.table = new Array<string | undefined>(old.length * 2);
    const mask = this.table.length - 1;
    for (const s of old) {
      if (s === undefined) continue;
      let slot = nameHash(s) & mask;
      while (this.table[slot] !== undefined) slot = (slot + 1) & mask;
      this.table[slot] = s;
    }
  }
  /** Shared `{kind:'name'}` operands per register/label name (operands are never mutated). */
  private readonly nameOps = new Map<string, Operand>();
  private pos(k = this.p): Pos {
    return { line: this.t.line[k]!, col: this.t.col[k]! };
  }
  /** Is the token at k the punctuation character c? (compares char codes, no substring) */
  private isP(c: string, k = this.p): boolean {
    return this.t.kind[k] === Tk.Punct && this.text.charCodeAt(this.t.start[k]!) === c.charCodeAt(0);
  }
  private isDot(name: string, k = this.p): boolean {
    if (this.t.kind[k] !== Tk.Dot) return false;
    const s = this.t.start[k]!;
    return this.t.end[k]! - s === name.length + 1 && this.text.startsWith(name, s + 1);
  }
  private describe(k = this.p): string {
    return this.kind(k) === Tk.Eof ? 'end of input' : `'${this.str(k)}'`;
  }
  fail(expected: string, k = this.p, code = 'PTX_SYNTAX'): never {
    throw new PtxforgeError(code, `expected ${expected}, found ${this.describe(k)}`, {
      pos: { file: this.t.file, line: this.t.line[k]!, col: this.t.col[k]! },
    });
  }
  private failMsg(msg: string, k = this.p, code = 'PTX_SYNTAX'): never {
    throw new PtxforgeError(code, msg, { pos: { file: this.t.file, line: this.t.line[k]!, col: this.t.col[k]! } });
  }
  private expectP(c: string, what?: string): void {
    if (!this.isP(c)) this.fail(what ?? `'${c}'`);
    this.p++;
  }
  private acceptP(c: string): boolean {
    if (this.isP(c)) {
      this.p++;
      return true;
    }
    return false;
  }
  private ident(what: string): string {
    if (this.kind() !== Tk.Ident) this.fail(what);
    return this.str(this.p++);
  }
  /** Dot word without its dot (interned). */
  private dotWord(k = this.p): string {
    return this.internRange(this.t.start[k]! + 1, this.t.end[k]!, this.t.hash[k]!);
  }
  private intLit(what: string): bigint {
    let neg = false;
    if (this.isP('-')) {
      neg = true;
      this.p++;
    }
    if (this.kind() !== Tk.Int) this.fail(what);
    const v = this.intToken();
    return neg ? -v : v;
  }
  /**
   * The integer literal at the current token. PTX integer constants are 64-bit: a literal whose value does
   * not fit in 64 bits is a located "Constant overflow" (ptxas's message). ptxas only notices an overflow
   * when its 64-bit accumulator has the top bit set before the next digit, so it wraps some 65..70-bit
   * literals silently (0x1FFFFFFFFFFFFFFFF is accepted as 0xFFFFFFFFFFFFFFFF, 0x8000000000000000F is an
   * overflow): we follow it exactly, since what ptxas accepts we accept (checked with ptxas 13.0.88).
   */
  private intToken(): bigint {
    const k = this.p++;
    const v = parseIntLit(this.str(k));
    if (v > MAX_U64) return ptxasWrappedLiteral(this.str(k)) ?? this.failMsg(`Constant overflow: ${this.str(k)} does not fit in 64 bits`, k, 'PTX_CONSTANT_OVERFLOW');
    return v;
  }
  /**
   * The float literal at the current token (advancing). ptxas reads a decimal one with strtod and calls a
   * range error "Constant overflow": beyond the doubles (`1e309`) and below the normal ones (`1e-310`, `1e-400`),
   * whatever the instruction type (ptxas 13.0.88: `mov.f32 %f1, 1e40` passes, `mov.f32 %f1, 1e-400` not).
   */
  private floatToken(): { value: number; bits?: bigint; width: 32 | 64 } {
    const k = this.p++;
    const s = this.str(k);
    const f = floatLit(s);
    if (f.bits === undefined) {
      const a = Math.abs(f.value);
      const digits = /^[^eE]*[1-9]/.test(s);
      if (!Number.isFinite(a) || (a < 2.2250738585072014e-308 && digits)) this.failMsg(`Constant overflow: ${s} is out of the range of a double`, k, 'PTX_CONSTANT_OVERFLOW');
    }
    return f;
  }
  /**
   * An unsigned literal ptxas keeps in 32 bits (`.file` and `.loc` numbers, `.ptr .align`): a `-` is its syntax
   * error, a value above 0xffffffff its "Constant overflow" (ptxas 13.0.88) -- unless it is 2^63 or more: ptxas
   * reads the literal as a signed 64-bit number and takes those (negative there) without a word; we keep their
   * low 32 bits.
   */
  private u32Lit(what: string, label: string): number {
    if (this.isP('-')) this.failMsg(`syntax error near '-': ${what} is a non-negative integer`, this.p);
    if (this.kind() !== Tk.Int) this.fail(what);
    const k = this.p;
    const n = this.intLit(what);
    if (n > 0xffffffffn && n < 1n << 63n) this.failMsg(`Constant overflow: ${label} ${this.str(k)} does not fit in 32 bits`, k, 'PTX_CONSTANT_OVERFLOW');
    return Number(BigInt.asUintN(32, n));
  }
  private smallInt(what: string): number {
    return Number(this.intLit(what));
  }

  // ---- module ---------------------------------------------------------------------------------
  module(): PtxModule {
    const m: PtxModule = { file: this.t.file, target: [], files: new Map(), vars: [], functions: [], pragmas: [] };
    // The header is `.version`, then `.target` (repeatable), then at most one `.address_size`, as ptxas
    // requires: a missing directive is fatal there ("Missing .version directive at start of file"), and
    // a header directive after the first declaration is a syntax error.
    let state: 'start' | 'version' | 'target' | 'body' = 'start';
    const headerOutOfPlace = (k: number): never => this.failMsg(`syntax error near '${this.str(k)}': .version, .target and .address_size form the header at the start of the file, once each`, k);
    while (this.kind() !== Tk.Eof || state === 'start' || state === 'version') {
      if (this.kind() === Tk.Eof) {
        this.failMsg(state === 'start' ? `Missing .version directive at start of file '${this.t.file}'` : `Missing .target directive at start of file '${this.t.file}'`, this.p, 'PTX_MISSING_DIRECTIVE');
      }
      if (this.kind() !== Tk.Dot) this.fail('a directive (.version, .target, .entry, .func, .global ...)');
      const d = this.dotWord();
      const at = this.p;
      if (state === 'start' && d !== 'version') this.failMsg(`Missing .version directive at start of file '${this.t.file}'`, at, 'PTX_MISSING_DIRECTIVE');
      if (state === 'version' && d !== 'target') this.failMsg(`Missing .target directive at start of file '${this.t.file}'`, at, 'PTX_MISSING_DIRECTIVE');
      switch (d) {
        case 'version': {
          if (state !== 'start') headerOutOfPlace(at);
          this.p++;
          if (this.kind() !== Tk.Float && this.kind() !== Tk.Int) this.fail('a PTX ISA version like 8.3');
          m.versionPos = this.pos();
          m.version = this.str(this.p++);
          state = 'version';
          break;
        }
        case 'target':
          if (state !== 'version' && state !== 'target') headerOutOfPlace(at);
          this.p++;
          m.targetPos ??= this.pos();
          do m.target.push(this.ident('a target name like sm_90'));
          while (this.acceptP(','));
          state = 'target';
          break;
        case 'address_size':
          if (state !== 'target') headerOutOfPlace(at);
          this.p++;
          m.addressSizePos = this.pos();
          m.addressSize = this.smallInt('32 or 64');
          if (m.addressSize !== 32 && m.addressSize !== 64) this.fail('address size 32 or 64', this.p - 1);
          state = 'body';
          break;
        case 'file': {
          this.p++;
          const at = this.p;
          const n = this.u32Lit('a file number', '.file index');
          if (m.files.has(n)) this.failMsg(`Duplicate file index #${n}`, at, 'PTX_SEMANTIC');
          if (this.kind() !== Tk.Str) this.fail('a file name string');
          m.files.set(n, unquote(this.str(this.p++)));
          while (this.acceptP(',')) this.intLit('a timestamp or file size');
          break;
        }
        case 'section':
          this.skipSection();
          break;
        case 'pragma':
          this.p++;
          m.pragmas.push(...this.pragmaStrings());
          break;
        default: {
          state = 'body';
          let linkage: string | undefined;
          while (this.kind() === Tk.Dot && LINKAGE.has(this.dotWord())) {
            if (linkage !== undefined) this.failMsg(`syntax error near '.${this.dotWord()}': a second linkage directive`, this.p);
            linkage = this.dotWord();
            this.p++;
          }
          if (this.isDot('entry') || this.isDot('func')) {
            m.functions.push(this.functionDecl(linkage, legacyPrototypes(m.version)));
            break;
          }
          if (this.kind() === Tk.Dot && SPACES.has(this.dotWord())) {
            m.vars.push(...this.varDecl(linkage, true));
            break;
          }
          if (this.isDot('alias')) this.failMsg("the .alias directive is not supported", at, 'PTX_UNSUPPORTED');
          this.fail('a module directive (.version, .target, .address_size, .entry, .func, .global, .const, .shared ...)', this.p);
        }
      }
    }
    return m;
  }

  /**
   * `.section .debug_info { ... }`: DWARF bytes for debuggers, checked as ptxas reads them and then dropped.
   * ptxas's grammar (probed with ptxas 13.0.88): a sequence of `label:` and `.bN item, item, ...` where an
   * item is `[-]integer` or `name[+integer]` (a label or a section name); anything else (an empty list, a
   * trailing comma, nested braces, strings, floats, `name-4`) is a syntax error.
   */
  private skipSection(): void {
    this.p++;
    if (this.kind() !== Tk.Dot && this.kind() !== Tk.Ident) this.fail('a section name');
    this.p++;
    this.expectP('{', "'{' opening the section");
    for (;;) {
      const k = this.kind();
      if (k === Tk.Eof) this.fail("'}' closing the .section");
      if (this.acceptP('}')) return;
      if (k === Tk.Ident && this.isP(':', this.p + 1)) {
        this.p += 2;
        continue;
      }
      if (k !== Tk.Dot) this.fail('a DWARF data directive (.b8, .b16, .b32, .b64) or a label');
      const word = this.dotWord();
      const w = /^b(8|16|32|64)$/.exec(word);
      // Other type names (.u8, .f32, .b128, .b0 ...) are not DWARF data types (ptxas).
      if (!w && /^(?:[bsuf]\d+|pred|f16x2|bf16x2?)$/.test(word)) this.failMsg(`Illegal type for dwarf data (.${word})`, this.p, 'PTX_SEMANTIC');
      if (!w) this.fail('a DWARF data directive (.b8, .b16, .b32, .b64) or a label');
      const bits = BigInt(w[1]!);
      this.p++;
      do {
        if (this.kind() === Tk.Ident || (this.kind() === Tk.Dot && !isTypeName(this.dotWord()))) {
          this.p++;
          if (this.acceptP('+')) {
            if (this.kind() !== Tk.Int) this.fail('an integer offset');
            this.intToken();
          }
          continue;
        }
        const at = this.p;
        const neg = this.acceptP('-');
        if (this.kind() !== Tk.Int) this.fail('a DWARF data value (an integer or a label)');
        // As ptxas: data values are checked against the width of their `.bN` directive, -2^(N-1) .. 2^N-1;
        // the literal is a 64-bit two's-complement value; a negative one is checked by its negation, which
        // wraps for -2^63 (0x8000000000000000 passes every width there).
        const lit = this.intToken();
        let v = BigInt.asIntN(64, neg ? -lit : lit);
        // ptxas checks a non-negative value of a .b8/.b16/.b32 datum modulo 2^32 (`.b8 4294967296` passes)
        if (v >= 0n && bits < 64n) v &= 0xffffffffn;
        const bad = v >= 0n ? v > (1n << bits) - 1n : BigInt.asIntN(64, -v) > 1n << (bits - 1n);
        if (bad) this.failMsg(`Value out of range for type .b${bits} ${v}`, at, 'PTX_SEMANTIC');
      } while (this.acceptP(','));
    }
  }

  private pragmaStrings(): string[] {
    const out: string[] = [];
    do {
      if (this.kind() !== Tk.Str) this.fail('a pragma string like "nounroll"');
      out.push(unquote(this.str(this.p++)));
    } while (this.acceptP(','));
    this.expectP(';', "';' after the .pragma");
    return out;
  }

  // ---- functions ------------------------------------------------------------------------------
  private functionDecl(linkage: string | undefined, legacy: boolean): FunctionDecl {
    const pos = this.pos();
    const entry = this.isDot('entry');
    this.p++;
    // `.func .attribute(.unified(...))`
    if (this.isDot('attribute')) {
      this.p++;
      this.skipParens();
    }
    let returns: VarDecl[] = [];
    if (!entry && this.isP('(')) returns = this.paramList(false);
    const name = this.ident(`the ${entry ? 'kernel' : 'function'} name`);
    let params: VarDecl[] = [];
    if (this.isP('(')) params = this.paramList(entry);
    const fn: FunctionDecl = { kind: 'function', entry, name, params, returns, directives: new Map(), pragmas: [], pos };
    if (linkage !== undefined) fn.linkage = linkage;
    for (;;) {
      if (this.kind() === Tk.Dot && PERF_DIRECTIVES.has(this.dotWord())) {
        const d = this.dotWord();
        // ptxas's grammar: .noreturn belongs to a .func, the launch directives to an .entry (else a syntax error)
        if ((d === 'noreturn') === entry) this.fail(`'{' or ';' (.${d} is ${entry ? 'a .func attribute' : 'an .entry directive'})`);
        this.p++;
        const vals: number[] = [];
        const at = this.p - 1;
        if (this.kind() === Tk.Int) {
          do {
            const k = this.p;
            if (this.kind() !== Tk.Int) this.fail('an integer'); // `-1`: ptxas's syntax error
            const n = this.intLit('an integer');
            // ptxas keeps these in 32 bits ("Constant overflow" beyond; 2^64 wraps to 0 first)
            if (n > 0xffffffffn) this.failMsg(`Constant overflow: .${d} value ${this.str(k)} does not fit in 32 bits`, k, 'PTX_CONSTANT_OVERFLOW');
            vals.push(Number(n));
          } while (this.acceptP(','));
        }
        // ptxas 13.0.88: "Positive non-zero value expected for maxntid" (any of the dimensions)
        if (POSITIVE_DIRECTIVES.has(d) && vals.includes(0)) this.failMsg(`Positive non-zero value expected for ${d}`, at, 'PTX_SEMANTIC');
        fn.directives.set(d, vals);
        continue;
      }
      if (this.isDot('pragma')) {
        this.p++;
        fn.pragmas.push(...this.pragmaStrings());
        continue;
      }
      break;
    }
    if (this.acceptP(';')) return fn;
    // PTX 1.x/2.x prototypes may omit the ';' before the next module directive. ptxas 13.0.88 takes a `.func`
    // prototype without ';' in any version, before a module directive or at the end of the file (`.func f()`
    // then `.func f() {...}`); an `.entry` header without a body is a syntax error from 3.0 on (a truncated file).
    if (!entry && (this.kind() === Tk.Dot || this.kind() === Tk.Eof)) return fn;
    if (legacy && this.kind() === Tk.Dot) return fn;
    if (!this.isP('{')) this.fail(`'{' opening the body of ${name} or ';' ending its declaration`);
    fn.body = this.block();
    return fn;
  }

  private skipParens(): void {
    this.expectP('(');
    let depth = 1;
    while (depth > 0) {
      if (this.kind() === Tk.Eof) this.fail("')'");
      if (this.isP('(')) depth++;
      else if (this.isP(')')) depth--;
      this.p++;
    }
  }

  private paramList(kernel: boolean): VarDecl[] {
    this.expectP('(');
    const out: VarDecl[] = [];
    if (this.acceptP(')')) return out;
    do {
      if (!(this.isDot('param') || this.isDot('reg'))) this.fail('a parameter declaration (.param or .reg)');
      out.push(this.varDeclOne(kernel ? 'kernel' : 'func'));
    } while (this.acceptP(','));
    this.expectP(')', "',' or ')' in the parameter list");
    return out;
  }

  /** One parameter: `.param [.align N] .type [.ptr [.space] [.align N]] name [[N]]`. */
  private varDeclOne(ctx: 'kernel' | 'func'): VarDecl {
    const d = this.declHead(undefined, ctx);
    const name = this.ident('a parameter name');
    d.name = name;
    this.dims(d);
    return d;
  }

  /**
   * `.space [.align N]* [.vN] .type name`, the order ptxas's grammar takes (probed with ptxas 13.0.88: an
   * attribute after the type, a second vector width or a linkage after the space is a syntax error there).
   * Kernel parameters may add `.ptr [.space] [.align N]` (and `.align N`) after the type; on a `.func`
   * parameter ptxas reports "Illegal placement of kernel parameter attribute".
   */
  private declHead(linkage: string | undefined, param?: 'kernel' | 'func'): VarDecl {
    const pos = this.pos();
    const space = this.dotWord() as VarDecl['space'];
    this.p++;
    const d: VarDecl = { kind: 'var', space, vec: 0, type: '', name: '', dims: [], pos };
    if (linkage !== undefined) d.linkage = linkage;
    const align = (): void => {
      this.p++;
      if (this.kind() !== Tk.Int) this.fail('an alignment in bytes');
      const at = this.p;
      const big = this.intLit('an alignment in bytes');
      // ptxas keeps alignments in 32 bits ("Constant overflow" beyond)
      if (big > 0x7fffffffn || big < -0x80000000n) this.failMsg(`Constant overflow: .align ${this.str(at)} does not fit in 32 bits`, at, 'PTX_CONSTANT_OVERFLOW');
      d.align = Number(big);
      if (d.align <= 0 || (d.align & (d.align - 1)) !== 0) this.failMsg(`Alignment must be a power of two (.align ${this.str(at)})`, at, 'PTX_SEMANTIC');
    };
    while (this.isDot('align')) align();
    if (this.kind() === Tk.Dot && /^v\d+$/.test(this.dotWord())) {
      const w = this.dotWord();
      if (w !== 'v2' && w !== 'v4' && w !== 'v8') this.fail('a vector width .v2, .v4 or .v8');
      d.vec = Number(w.slice(1));
      this.p++;
    }
    if (this.kind() === Tk.Dot && isTypeName(this.dotWord())) {
      const w = this.dotWord();
      // ptxas has no .bf16/.bf16x2/.tf32 variables (they live in .b16/.b32 registers).
      if (w === 'bf16' || w === 'bf16x2' || w === 'tf32') this.failMsg(`syntax error near '.${w}': no variable has type .${w} (declare it .b${w === 'bf16' ? 16 : 32})`, this.p);
      d.type = w;
      this.p++;
    }
    // Kernel parameter attributes after the type: `.ptr [.space] [.align N]`, or `.align N`.
    while (param && d.type !== '' && (this.isDot('ptr') || this.isDot('align'))) {
      if (param === 'func') this.failMsg('Illegal placement of kernel parameter attribute', this.p, 'PTX_SEMANTIC');
      if (this.isDot('align')) {
        align();
        continue;
      }
      this.p++;
      d.ptr = {};
      while (this.kind() === Tk.Dot) {
        const a = this.dotWord();
        if (a === 'align') {
          this.p++;
          const at = this.p;
          d.ptr.align = this.u32Lit('an alignment', '.ptr .align');
          if (d.ptr.align <= 0 || d.ptr.align > 0x80000000 || (d.ptr.align & (d.ptr.align - 1)) !== 0) this.failMsg(`Alignment must be a power of two (.align ${this.str(at)})`, at, 'PTX_SEMANTIC');
        } else if (a === 'global' || a === 'shared' || a === 'const' || a === 'local') {
          d.ptr.space = a;
          this.p++;
        } else break;
      }
    }
    if (d.type === '' && !['tex', 'texref', 'samplerref', 'surfref'].includes(space)) this.fail(`a type (.u32, .f32, .b8, .pred ...) in the .${space} declaration`);
    return d;
  }

  private dims(d: VarDecl): void {
    if (this.isP('<')) {
      this.p++;
      const at = this.p;
      const n = this.intLit('a register count');
      // ptxas keeps register counts in 32 bits: a wider one is its "Constant overflow" at the declaration.
      if (n > 0xffffffffn) this.failMsg(`Constant overflow: register count ${n} does not fit in 32 bits`, at, 'PTX_CONSTANT_OVERFLOW');
      // ptxas 13.0.88 stops with "Memory allocation failure" (fatal, no line) on one range of 3159502841 registers
      // or more, whatever their type or the rest of the file (bisected on .f32 and .b64 ranges of two files);
      // smaller huge ranges it compiles (slowly), as we do (only the registers used cost)
      if (n >= MAX_REGISTER_RANGE) this.failMsg(`Memory allocation failure: a range of ${n} registers (ptxas allocates at most ${MAX_REGISTER_RANGE - 1n})`, at, 'PTX_RESOURCE_LIMIT');
      d.paramCount = Number(n);
      this.expectP('>', "'>' closing the register count");
    }
    while (this.acceptP('[')) {
      if (this.acceptP(']')) {
        d.dims.push(-1);
        (d.dimsExact ??= []).push(-1n);
        continue;
      }
      // ptxas 13.0.88: `[-5]` is "Parsing error near '-': syntax error" (an array size is an unsigned literal)
      if (this.isP('-')) this.failMsg(`syntax error near '-': an array size is a non-negative integer`, this.p);
      const n = this.intLit('an array size');
      d.dims.push(Number(n));
      (d.dimsExact ??= []).push(n);
      this.expectP(']', "']' closing the array size");
    }
  }

  /** A state-space declaration with one or more names; `module` allows initializers. */
  private varDecl(linkage: string | undefined, _module: boolean): VarDecl[] {
    const head = this.declHead(linkage);
    const out: VarDecl[] = [];
    // `.texref name;`, `.tex .u64 name;` and friends
    do {
      const d: VarDecl = { ...head, dims: [], pos: this.pos() };
      d.name = this.ident(`a name for the .${head.space} variable`);
      this.dims(d);
      if (this.acceptP('=')) d.init = this.init();
      out.push(d);
    } while (this.acceptP(','));
    this.expectP(';', `';' after the .${head.space} declaration`);
    return out;
  }

  private init(depth = 0): Init {
    const pos = this.pos();
    if (this.isP('{')) {
      if (depth >= MAX_INIT_DEPTH) this.failMsg(`initializer braces nested too deeply (more than ${MAX_INIT_DEPTH} levels)`, this.p, 'PTX_NESTING_TOO_DEEP');
      this.p++;
      const elems: Init[] = [];
      if (!this.isP('}')) {
        do elems.push(this.init(depth + 1));
        while (this.acceptP(','));
      }
      this.expectP('}', "',' or '}' in the initializer");
      return { kind: 'list', elems, pos };
    }
    if (this.kind() === Tk.Ident) {
      let name = this.str();
      let generic = false;
      if (name === 'generic' && this.isP('(', this.p + 1)) {
        this.p += 2;
        name = this.ident('a variable name inside generic()');
        this.expectP(')');
        generic = true;
      } else this.p++;
      let offset = 0n;
      if (this.isP('+')) {
        this.p++;
        offset = this.constExpr();
      }
      return { kind: 'sym', name, generic, offset, pos };
    }
    if (this.kind() === Tk.Float || (this.isP('-') && this.kind(this.p + 1) === Tk.Float)) {
      const neg = this.acceptP('-');
      const f = this.floatToken();
      if (neg) {
        if (f.bits !== undefined) f.bits ^= f.width === 32 ? 0x80000000n : 0x8000000000000000n;
        f.value = -f.value;
      }
      return { kind: 'float', ...f, pos };
    }
    return { kind: 'int', value: this.constExpr(), pos };
  }

  /** Integer constant expression: literals, unary - ~ !, binary + - * / % << >> & | ^, parentheses. */
  private constExpr(): bigint {
    return this.evalExpr(false);
  }
  /** One operand of a constant expression: a literal or a parenthesized expression, with prefix operators. */
  private unaryExpr(): bigint {
    return this.evalExpr(true);
  }
  /**
   * Operator-precedence evaluation with explicit stacks (no recursion: parenthesis depth is user-controlled).
   * Arithmetic is on 64-bit two's-complement values like ptxas's; shift counts use their low 6 bits.
   * `unaryOnly` stops after the first complete operand at the outer level (address offsets `[r+1+2]`).
   */
  private evalExpr(unaryOnly: boolean): bigint {
    const vals: bigint[] = [];
    /** Unary operators ('-', '~', '!'), open parentheses ('('), binary operators. */
    const ops: Array<string | BinOp> = [];
    let depth = 0;
    const reduceBinary = (): void => {
      const op = ops.pop() as BinOp;
      const b = vals.pop()!;
      const a = vals.pop()!;
      vals.push(BigInt.asIntN(64, op.fn(a, b)));
    };
    const applyUnary = (): void => {
      for (;;) {
        const top = ops[ops.length - 1];
        if (top !== '-' && top !== '~' && top !== '!') return;
        ops.pop();
        const v = vals.pop()!;
        vals.push(top === '-' ? BigInt.asIntN(64, -v) : top === '~' ? ~v : v === 0n ? 1n : 0n);
      }
    };
    for (;;) {
      // Operand position: prefix operators and open parentheses, then a literal.
      for (;;) {
        if (this.acceptP('-')) ops.push('-');
        else if (this.acceptP('+')) continue; // unary plus (`[%rd1++8]`, `+ +24`): ptxas takes it
        else if (this.acceptP('~')) ops.push('~');
        else if (this.acceptP('!')) ops.push('!');
        else if (this.isP('(')) {
          if (++depth > MAX_PAREN_DEPTH) this.failMsg(`constant expression nested too deeply (more than ${MAX_PAREN_DEPTH} parentheses; ptxas: memory exhausted)`, this.p, 'PTX_NESTING_TOO_DEEP');
          this.p++;
          ops.push('(');
        } else break;
      }
      if (this.kind() !== Tk.Int) this.fail('an integer constant');
      vals.push(this.intToken());
      applyUnary();
      // Operator position: closing parentheses, then a binary operator or the end.
      for (;;) {
        if (depth > 0 && this.isP(')')) {
          this.p++;
          while (ops[ops.length - 1] !== '(') reduceBinary();
          ops.pop();
          depth--;
          applyUnary();
          continue;
        }
        break;
      }
      const op = depth === 0 && unaryOnly ? undefined : this.binOp();
      if (!op) {
        if (depth > 0) this.fail("')' closing the constant expression");
        while (ops.length) reduceBinary();
        return vals[0]!;
      }
      this.p += op.len;
      for (;;) {
        const top = ops[ops.length - 1];
        if (typeof top !== 'object' || top.prec < op.prec) break;
        reduceBinary();
      }
      ops.push(op);
    }
  }
  private binOp(): BinOp | undefined {
    if (this.kind() !== Tk.Punct) return undefined;
    const c = this.text[this.t.start[this.p]!];
    const two = this.isP(c!, this.p + 1) && this.t.start[this.p + 1] === this.t.end[this.p];
    const at = this.p;
    const div = (a: bigint, b: bigint, f: (a: bigint, b: bigint) => bigint): bigint => (b === 0n ? this.failMsg('division by zero in a constant expression', at) : f(a, b));
    switch (c) {
      case '*': return { prec: 10, len: 1, fn: (a, b) => a * b };
      case '/': return { prec: 10, len: 1, fn: (a, b) => div(a, b, (x, y) => x / y) };
      case '%': return { prec: 10, len: 1, fn: (a, b) => div(a, b, (x, y) => x % y) };
      case '+': return { prec: 9, len: 1, fn: (a, b) => a + b };
      case '-': return { prec: 9, len: 1, fn: (a, b) => a - b };
      case '<': return two ? { prec: 8, len: 2, fn: (a, b) => a << (b & 63n) } : undefined;
      case '>': return two ? { prec: 8, len: 2, fn: (a, b) => a >> (b & 63n) } : undefined;
      case '&': return two ? undefined : { prec: 5, len: 1, fn: (a, b) => a & b };
      case '^': return { prec: 4, len: 1, fn: (a, b) => a ^ b };
      case '|': return two ? undefined : { prec: 3, len: 1, fn: (a, b) => a | b };
      default: return undefined;
    }
  }

  // ---- statements -----------------------------------------------------------------------------
  /** A `{ ... }` body; nested scopes with an explicit stack (their depth is user-controlled). */
  private block(): Statement[] {
    this.expectP('{');
    const root: Statement[] = [];
    const open: Statement[][] = [root];
    let body = root;
    for (;;) {
      const k = this.kind();
      if (k === Tk.Eof) this.fail("'}' closing the function body");
      if (k === Tk.Punct) {
        if (this.isP('}')) {
          this.p++;
          open.pop();
          if (!open.length) return root;
          body = open[open.length - 1]!;
          continue;
        }
        if (this.isP('{')) {
          if (open.length >= MAX_SCOPE_DEPTH) this.failMsg(`scopes nested too deeply (more than ${MAX_SCOPE_DEPTH} levels of '{'; ptxas: memory exhausted)`, this.p, 'PTX_NESTING_TOO_DEEP');
          const pos = this.pos();
          this.p++;
          const inner: Statement[] = [];
          body.push({ kind: 'block', body: inner, pos });
          open.push(inner);
          body = inner;
          continue;
        }
        if (this.isP('@')) {
          body.push(this.instruction());
          continue;
        }
        if (this.isP(';')) this.failMsg(`syntax error near ';': empty statement`, this.p);
        this.fail('an instruction, a label, a declaration or \'}\'');
      }
      if (k === Tk.Dot) {
        this.directiveStatement(body);
        continue;
      }
      if (k === Tk.Ident) {
        if (this.isP(':', this.p + 1)) {
          const pos = this.pos();
          const name = this.str();
          this.p += 2;
          if (this.isDot('branchtargets')) {
            this.p++;
            const labels: string[] = [];
            do labels.push(this.ident('a label'));
            while (this.acceptP(','));
            this.expectP(';');
            body.push({ kind: 'branchtargets', name, labels, pos });
          } else if (this.isDot('calltargets')) {
            this.p++;
            const funcs: string[] = [];
            do funcs.push(this.ident('a function name'));
            while (this.acceptP(','));
            this.expectP(';');
            body.push({ kind: 'calltargets', name, funcs, pos });
          } else if (this.isDot('callprototype')) {
            this.p++;
            while (!this.isP(';')) {
              if (this.kind() === Tk.Eof) this.fail("';' ending the .callprototype");
              this.p++;
            }
            this.p++;
            body.push({ kind: 'callprototype', name, pos });
          } else body.push({ kind: 'label', name, pos });
          continue;
        }
        body.push(this.instruction());
        continue;
      }
      this.fail('an instruction, a label or a declaration');
    }
  }

  private directiveStatement(body: Statement[]): void {
    const pos = this.pos();
    const d = this.dotWord();
    if (d === 'loc') {
      this.p++;
      const file = this.u32Lit('a file number', '.loc file');
      const line = this.u32Lit('a line number', '.loc line');
      const col = this.kind() === Tk.Int || this.isP('-') ? this.u32Lit('a column', '.loc column') : 0;
      // PTX 7.x+: `.loc 1 2 3, function_name label, inlined_at 1 2 3`
      while (this.acceptP(',')) {
        while (!this.isP(',') && !this.isP(';') && this.kind() !== Tk.Eof) {
          // inlined_at / function_name attributes: a single line ends at the next statement start.
          if (this.t.line[this.p] !== pos.line) break;
          this.p++;
        }
      }
      body.push({ kind: 'loc', file, line, col, pos });
      return;
    }
    if (d === 'pragma') {
      this.p++;
      body.push({ kind: 'pragma', values: this.pragmaStrings(), pos });
      return;
    }
    let linkage: string | undefined;
    while (this.kind() === Tk.Dot && LINKAGE.has(this.dotWord())) {
      linkage = this.dotWord();
      this.p++;
    }
    if (this.kind() === Tk.Dot && SPACES.has(this.dotWord())) {
      body.push(...this.varDecl(linkage, false));
      return;
    }
    if (this.isDot('func') || this.isDot('entry')) this.failMsg('function declarations are not allowed inside a function body', this.p);
    this.fail('a declaration (.reg, .local, .shared, .param ...), .loc or .pragma');
  }

  private instruction(): Instruction {
    const pos = this.pos();
    let guard: Instruction['guard'];
    if (this.acceptP('@')) {
      const not = this.acceptP('!');
      if (this.kind() !== Tk.Ident) this.fail('a predicate register after @');
      guard = { name: this.interned(this.p++), not };
    }
    if (this.kind() !== Tk.Ident) this.fail('an instruction');
    const opAt = this.p;
    const opcode = this.interned(this.p++);
    if (!PTX_INSTRUCTIONS.has(opcode)) this.failMsg(`unknown instruction '${opcode}'; expected a PTX instruction`, opAt);
    // Exact-size arrays: arrays grown by push keep spare capacity, which was half the AST's memory.
    let nm = 0;
    while (this.kind(this.p + nm) === Tk.Dot) nm++;
    const mods = new Array<string>(nm);
    for (let k = 0; k < nm; k++) mods[k] = this.dotWord(this.p++);
    let operands: Operand[] = EMPTY;
    if (!this.isP(';')) {
      const first = this.operand();
      if (this.isP(',')) {
        const tmp = [first];
        while (this.acceptP(',')) tmp.push(this.operand());
        operands = tmp.slice();
      } else operands = [first];
    }
    if (!this.isP(';')) this.fail(`',' or ';' after the operands of ${opcode}`);
    this.p++;
    const ins: Instruction = { kind: 'instr', opcode, mods, operands, pos };
    if (guard) ins.guard = guard;
    return ins;
  }

  private operandDepth = 0;
  private operand(): Operand {
    if (this.operandDepth >= MAX_OPERAND_DEPTH) this.failMsg(`operand nested too deeply (more than ${MAX_OPERAND_DEPTH} levels)`, this.p, 'PTX_NESTING_TOO_DEEP');
    this.operandDepth++;
    try {
      return this.operandInner();
    } finally {
      this.operandDepth--;
    }
  }
  private operandInner(): Operand {
    const k = this.kind();
    if (k === Tk.Ident) {
      const name = this.interned(this.p++);
      if (name === '_') return SINK;
      let first = this.nameOps.get(name);
      if (!first) {
        first = { kind: 'name', name };
        this.nameOps.set(name, first);
      }
      if (this.kind() === Tk.Dot && this.t.start[this.p] === this.t.end[this.p - 1]) {
        const comp = this.dotWord(this.p++);
        first = { kind: 'name', name, comp };
      }
      if (this.isP('+') && (this.kind(this.p + 1) === Tk.Int || (this.isP('-', this.p + 1) && this.kind(this.p + 2) === Tk.Int))) {
        // `sym+4` / `%r1+-1` as a value operand (mov.u64 %rd, arr+8)
        this.p++;
        return { kind: 'offset', base: name, offset: this.intLit('an offset') };
      }
      if (this.isP('|')) {
        this.p++;
        const second = this.operand();
        return { kind: 'pair', first, second };
      }
      return first;
    }
    if (k === Tk.Int || (this.isP('-') && this.kind(this.p + 1) === Tk.Int) || this.isP('(') && this.looksLikeConstExpr()) {
      return { kind: 'int', value: this.constExpr() };
    }
    if (k === Tk.Float || (this.isP('-') && this.kind(this.p + 1) === Tk.Float)) {
      const neg = this.acceptP('-');
      // ptxas's grammar takes `-0d...` and `-1.5` but not `-0f...`.
      if (neg && /^0[fF]/.test(this.str(this.p))) this.failMsg(`syntax error near '${this.str(this.p)}': a 0f literal cannot be negated (write the sign bit into it)`, this.p);
      const f = this.floatToken();
      if (neg) {
        if (f.bits !== undefined) f.bits ^= f.width === 32 ? 0x80000000n : 0x8000000000000000n;
        f.value = -f.value;
      }
      return { kind: 'float', ...f };
    }
    if (k === Tk.Punct) {
      if (this.acceptP('!')) return { kind: 'not', operand: this.operand() };
      if (this.acceptP('-')) return { kind: 'neg', operand: this.operand() };
      if (this.isP('[')) return this.address();
      if (this.acceptP('{')) {
        const elems: Operand[] = [];
        if (!this.isP('}')) {
          do elems.push(this.operand());
          while (this.acceptP(','));
        }
        this.expectP('}', "',' or '}' in the vector operand");
        return { kind: 'vec', elems };
      }
      if (this.acceptP('(')) {
        const elems: Operand[] = [];
        if (!this.isP(')')) {
          do elems.push(this.operand());
          while (this.acceptP(','));
        }
        this.expectP(')', "',' or ')' in the operand list");
        return { kind: 'list', elems };
      }
    }
    this.fail('an operand (register, immediate, address, label or vector)');
  }

  /** `(` starting an integer expression rather than a call argument list. */
  private looksLikeConstExpr(): boolean {
    let k = this.p;
    while (this.isP('(', k) || this.isP('-', k) || this.isP('~', k)) k++;
    return this.kind(k) === Tk.Int;
  }

  /** `[base]`, `[base+off]`, `[base-off]`, `[off]`, `[base+off+off]`, `[tex, {coords}]`. */
  private address(): Operand {
    this.expectP('[');
    let base: string | undefined;
    let offset = 0n;
    if (this.kind() === Tk.Ident) {
      base = this.interned(this.p++);
      // ptxas's grammar has no `name.x` inside [..] (a parse error even for a vector register's component).
      if (this.kind() === Tk.Dot && this.t.start[this.p] === this.t.end[this.p - 1]) this.failMsg(`syntax error near '.${this.dotWord()}': no component or modifier inside an address`, this.p);
      if (this.isP(',')) {
        // texture / surface operand list
        const list: Operand[] = [{ kind: 'name', name: base }];
        while (this.acceptP(',')) list.push(this.operand());
        this.expectP(']', "']' closing the texture operand");
        return { kind: 'addr', base, offset: 0n, list };
      }
      while (this.isP('+') || this.isP('-')) {
        const neg = this.isP('-');
        this.p++;
        const v = this.unaryExpr();
        offset += neg ? -v : v;
      }
    } else {
      offset = this.constExpr();
    }
    this.expectP(']', "']' closing the address (or '+offset')");
    return { kind: 'addr', base, offset } as Operand;
  }
}

interface BinOp {
  readonly prec: number;
  readonly len: number;
  readonly fn: (a: bigint, b: bigint) => bigint;
}

const MAX_U64 = (1n << 64n) - 1n;
/**
 * Nesting limits. ptxas's bison parser stops with "memory exhausted" at about 1665 nested `{ }` scopes and
 * 9980 nested parentheses (measured on ptxas 13.0.88); we stop a little earlier, with a located error.
 * Initializer braces deeper than any declaration's dimensions and nested operands are rejected early too.
 */
const MAX_SCOPE_DEPTH = 1665;
const MAX_PAREN_DEPTH = 9970;
const MAX_INIT_DEPTH = 64;
const MAX_OPERAND_DEPTH = 16;

const SINK: Operand = Object.freeze({ kind: 'sink' });
const EMPTY: Operand[] = [];

const TYPE_NAMES = new Set([
  'u8', 'u16', 'u32', 'u64', 's8', 's16', 's32', 's64', 'b8', 'b16', 'b32', 'b64', 'b128', 'f16', 'f16x2', 'bf16', 'bf16x2',
  'f32', 'f64', 'pred', 'tf32', 'e4m3', 'e5m2', 'e4m3x2', 'e5m2x2', 's4', 'u4', 's8x4', 'u8x4', 'texref', 'samplerref', 'surfref',
]);
function isTypeName(w: string): boolean {
  return TYPE_NAMES.has(w);
}

/** Shared BigInts for the small literals that dominate PTX (offsets, shift amounts, sizes). */
const SMALL = Array.from({ length: 4096 }, (_, k) => BigInt(k));
export function parseIntLit(s: string): bigint {
  // Fast path: short decimal literals (the vast majority).
  if (s.length < 10 && (s.charCodeAt(0) !== 48 || s.length === 1)) {
    let v = 0;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i) - 48;
      if (c < 0 || c > 9) return parseIntLitSlow(s);
      v = v * 10 + c;
    }
    return v < 4096 ? SMALL[v]! : BigInt(v);
  }
  return parseIntLitSlow(s);
}
/**
 * ptxas's reading of an integer literal wider than 64 bits: digits accumulate modulo 2^64, and a digit
 * arriving while the accumulator's top bit is set is an overflow (undefined then).
 */
function ptxasWrappedLiteral(s: string): bigint | undefined {
  let t = s.endsWith('U') ? s.slice(0, -1) : s;
  let base = 10n;
  if (/^0[xX]/.test(t)) [base, t] = [16n, t.slice(2)];
  else if (/^0[bB]/.test(t)) [base, t] = [2n, t.slice(2)];
  else if (/^0[0-7]+$/.test(t)) [base, t] = [8n, t.slice(1)];
  let acc = 0n;
  for (const ch of t) {
    if (acc >= 1n << 63n) return undefined;
    acc = BigInt.asUintN(64, acc * base + BigInt(parseInt(ch, 16)));
  }
  return acc;
}
function parseIntLitSlow(s: string): bigint {
  let t = s.endsWith('U') ? s.slice(0, -1) : s;
  if (/^0[0-7]+$/.test(t)) return BigInt(`0o${t.slice(1)}`);
  if (t.startsWith('0X')) t = `0x${t.slice(2)}`;
  if (t.startsWith('0B')) t = `0b${t.slice(2)}`;
  return BigInt(t);
}

function floatLit(s: string): { value: number; bits?: bigint; width: 32 | 64 } {
  const c = s[1];
  if (s[0] === '0' && (c === 'f' || c === 'F')) {
    const bits = BigInt(`0x${s.slice(2)}`);
    const dv = new DataView(new ArrayBuffer(4));
    dv.setUint32(0, Number(bits));
    return { value: dv.getFloat32(0), bits, width: 32 };
  }
  if (s[0] === '0' && (c === 'd' || c === 'D')) {
    const bits = BigInt(`0x${s.slice(2)}`);
    const dv = new DataView(new ArrayBuffer(8));
    dv.setBigUint64(0, bits);
    return { value: dv.getFloat64(0), bits, width: 64 };
  }
  return { value: Number(s), width: 64 };
}

/** PTX before 3.0: a function prototype may end without ';'. */
function legacyPrototypes(version: string | undefined): boolean {
  const major = Number(/^(\d+)/.exec(version ?? '')?.[1] ?? 99);
  return major < 3;
}

function unquote(s: string): string {
  return s.slice(1, -1).replace(/\\(.)/g, '$1');
}
