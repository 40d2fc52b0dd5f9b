/**
 * PTX abstract syntax tree, as close to the source as possible: the parser checks syntax only; types and
 * meaning are the lowering's business. Every node carries its 1-based line and column.
 */

export interface Pos {
  line: number;
  col: number;
}

/** Operands carry no position of their own (errors point at the instruction and name the operand). */
export type Operand =
  /** Register, variable, label or function name (`%r1`, `in_addr`, `$L__BB0_2`). `comp` is `.x` etc. */
  | { kind: 'name'; name: string; comp?: string }
  /** Integer immediate (two's complement bits not yet truncated). */
  | { kind: 'int'; value: bigint }
  /** Float immediate: `bits` for 0f/0d literals (`width` 32/64), or a decimal value. */
  | { kind: 'float'; value: number; bits?: bigint; width: 32 | 64 }
  /** `[base+offset]`; `base` is a name or absent (`[0x10]`); `list` for texture-style `[tex, {..}]`. */
  | { kind: 'addr'; base?: string; offset: bigint; list?: Operand[] }
  /** `name+offset` used as a value (`mov.u64 %rd, arr+8`, `%r1+-1`). */
  | { kind: 'offset'; base: string; offset: bigint }
  /** `{a, b, c, d}` vector (elements may be `_` sinks). */
  | { kind: 'vec'; elems: Operand[] }
  /** `(a, b)` parameter lists of `call`. */
  | { kind: 'list'; elems: Operand[] }
  /** `!%p` */
  | { kind: 'not'; operand: Operand }
  /** `-x` (register negation where PTX allows it, e.g. some older forms). */
  | { kind: 'neg'; operand: Operand }
  /** `%p|%q` dual predicate destination of setp. */
  | { kind: 'pair'; first: Operand; second: Operand }
  /** `_` */
  | { kind: 'sink' };

export interface Instruction {
  kind: 'instr';
  guard?: { name: string; not: boolean };
  opcode: string;
  /** Modifiers without their dots, in order (`ld.global.v4.f32` -> ['global','v4','f32']). */
  mods: string[];
  operands: Operand[];
  pos: Pos;
}

/** A state-space declaration (`.reg`, `.shared`, `.global`, `.param` ...). */
export interface VarDecl {
  kind: 'var';
  space: 'reg' | 'sreg' | 'local' | 'shared' | 'global' | 'const' | 'param' | 'tex' | 'texref' | 'samplerref' | 'surfref';
  /** `.extern`, `.visible`, `.weak`, `.common` */
  linkage?: string;
  align?: number;
  /** Vector width (`.v2` / `.v4`), 0 for scalars. */
  vec: number;
  /** Element type without dot (`u32`, `b8`, `pred`, `f16x2`). */
  type: string;
  name: string;
  /** `%r<12>`: 12 registers %r0..%r11. */
  paramCount?: number;
  /** Array dimensions; -1 for `[]` (size from the initializer or extern). */
  dims: number[];
  /** The same dimensions as written (64-bit literals, -1n for `[]`): sizes wrap as in ptxas (module.ts varBytes). */
  dimsExact?: bigint[];
  init?: Init;
  /** `.ptr.global.align 4` attributes of kernel pointer parameters. */
  ptr?: { space?: string; align?: number };
  pos: Pos;
}

export type Init =
  | { kind: 'list'; elems: Init[]; pos: Pos }
  | { kind: 'int'; value: bigint; pos: Pos }
  | { kind: 'float'; value: number; bits?: bigint; width: 32 | 64; pos: Pos }
  /** Address of a variable, optionally `generic(name)` and plus an offset. */
  | { kind: 'sym'; name: string; generic: boolean; offset: bigint; pos: Pos };

export interface Label {
  kind: 'label';
  name: string;
  pos: Pos;
}

export type Statement =
  | Instruction
  | VarDecl
  | Label
  | { kind: 'block'; body: Statement[]; pos: Pos }
  | { kind: 'loc'; file: number; line: number; col: number; pos: Pos }
  | { kind: 'pragma'; values: string[]; pos: Pos }
  /** `name: .branchtargets L1, L2;` */
  | { kind: 'branchtargets'; name: string; labels: string[]; pos: Pos }
  /** `name: .calltargets f1, f2;` */
  | { kind: 'calltargets'; name: string; funcs: string[]; pos: Pos }
  /** `name: .callprototype (...) _ (...);` */
  | { kind: 'callprototype'; name: string; pos: Pos };

export interface FunctionDecl {
  kind: 'function';
  entry: boolean;
  linkage?: string;
  name: string;
  params: VarDecl[];
  returns: VarDecl[];
  /** `.maxntid`, `.reqntid`, `.minnctapersm`, `.maxnreg`, `.maxnctapersm`, `.noreturn` ... */
  directives: Map<string, number[]>;
  pragmas: string[];
  /** Undefined for a declaration without a body (prototype). */
  body?: Statement[];
  pos: Pos;
}

export interface PtxModule {
  file: string;
  version?: string;
  target: string[];
  addressSize?: number;
  /** Where the header directives' values stand (for located version/target/address-size errors). */
  versionPos?: Pos;
  targetPos?: Pos;
  addressSizePos?: Pos;
  files: Map<number, string>;
  vars: VarDecl[];
  functions: FunctionDecl[];
  /** Module-level `.pragma` strings (`nounroll` applies to every loop of the module). */
  pragmas: string[];
}
