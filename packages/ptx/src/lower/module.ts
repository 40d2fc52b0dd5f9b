import { OriFunction, OriModule, PT, PtxforgeError, RZ, type Register, type TargetView, type VarDecl as OriVar } from '@ptxforge/kernel';
import { planFunctionAddresses } from './function-address.js';
import type { FunctionDecl, Init, Operand, PtxModule, Statement, VarDecl } from '../ast.js';
import { FnLowerer, splitRangeName, type FormalParam, type ModuleInfo, type Sym } from './context.js';
import { checkInstruction } from './check.js';
import { checkModuleHeader, versionNumber } from './header.js';
import { HANDLERS } from './instructions.js';
import { defineMaybeUndefined } from './undef.js';
import { byteSize, ptxType, type PtxType } from './types.js';

export interface LowerOptions {
  /** The compilation target; kernel parameters go to c[0x0][target.capabilities.paramBase + offset]. */
  readonly target: Pick<TargetView, 'arch'> & { readonly capabilities: Pick<TargetView['capabilities'], 'paramBase'> };
  /**
   * Relocatable compilation (ptxas `-c`): a function declared `.extern` without a body is another object's,
   * resolved by the linker; calls of it are ABI calls and its address a relocation.
   */
  readonly relocatable?: boolean;
}

const TEX_OPS = new Set(['tex', 'tld4', 'txq', 'suld', 'sust', 'sured', 'suq', 'istypep']);

/**
 * Lower a parsed PTX module to Ori (docs/ori-semantics.md): one OriFunction per `.entry`/`.func` with a
 * body, kernel parameters as constant-bank reads, `.func` parameters as registers, module variables as
 * module VarDecls. Every Ori instruction gets `loc` = the PTX line/column it came from.
 */
export function lowerPtx(ast: PtxModule, options: LowerOptions): OriModule {
  const m = new OriModule();
  m.sourceFile = ast.file;
  m.target = options.target.arch;
  const fileIndex = new Map<number, number>();
  for (const [n, name] of [...ast.files].sort((a, b) => a[0] - b[0])) {
    fileIndex.set(n, m.files.length);
    m.files.push(name);
  }
  const globals = new Map<string, Sym>();
  const mod: ModuleInfo = { file: ast.file, paramBase: options.target.capabilities.paramBase, globals, funcs: new Map(), fileIndex, moduleVars: m.vars };
  const fail = (code: string, msg: string, pos: { line: number; col: number }): never => {
    throw new PtxforgeError(code, msg, { pos: { file: ast.file, line: pos.line, col: pos.col } });
  };
  const legacyGeneric = legacyGenericInit(ast.version);
  mod.legacyGenericInit = legacyGeneric;
  const resolveGlobal: ResolveVar = (n) => {
    const g = globals.get(n);
    return g?.kind === 'var' && m.vars.some((x) => x.name === g.oriName) ? g.oriName : undefined;
  };
  checkModuleHeader(ast, options.target.arch);
  mod.ptxVersion = versionNumber(ast.version);
  mod.targetSm = Number(/^(?:sm|compute)_(\d+)/.exec(ast.target.find((t) => /^(?:sm|compute)_\d/.test(t)) ?? '')?.[1] ?? 0);
  checkDeclaredTypes(ast, mod, fail);
  mod.relocatable = !!options.relocatable;
  mod.entries = new Set(ast.functions.filter((f) => f.entry).map((f) => f.name));
  mod.functionAddresses = options.relocatable ? new Map() : planFunctionAddresses(ast);
  const functionAddress = (n: string): bigint | undefined => mod.functionAddresses!.get(n);

  for (const v of ast.vars) {
    if (v.space === 'tex' || v.space === 'texref' || v.space === 'samplerref' || v.space === 'surfref' || v.type === 'texref' || v.type === 'samplerref' || v.type === 'surfref') {
      globals.set(v.name, { kind: 'var', space: 'global', oriName: v.name, type: ptxType('u64')! });
      continue; // texture handles: only the texture instructions use them, and those are refused
    }
    if (v.space !== 'global' && v.space !== 'const' && v.space !== 'shared') {
      fail('PTX_UNSUPPORTED', `module-level .${v.space} variable '${v.name}' is not supported`, v.pos);
    }
    const t = declType(v, fail);
    const space = v.space as 'global' | 'const' | 'shared';
    m.vars.push(oriVar(v, t, space, fail, resolveGlobal, legacyGeneric, functionAddress, ast));
    globals.set(v.name, { kind: 'var', space, oriName: v.name, type: t });
  }
  for (const f of ast.functions) {
    globals.set(f.name, { kind: 'func', name: f.name });
    const shape = (p: VarDecl): FormalParam => {
      const t = declType(p, fail);
      const aggregate = p.dims.length > 0;
      const bytes = byteSize(t) * Math.max(1, p.vec) * p.dims.reduce((a, b) => a * Math.max(b, 1), 1);
      return { name: p.name, space: p.space, type: t, vec: p.vec, aggregate, words: aggregate ? Math.ceil(bytes / 4) : 1, bytes, align: p.align ?? byteSize(t) * Math.max(1, p.vec) };
    };
    const prev = mod.funcs.get(f.name);
    if (!prev || f.body) mod.funcs.set(f.name, { params: f.params.map(shape), returns: f.returns.map(shape) });
  }
  checkResolvedFunctions(ast, fail, !!options.relocatable);
  checkPrototypes(ast, fail);
  for (const f of ast.functions) {
    // ptxas 13.0.88: "Deprecated feature: '.maxnctapersm directive' not supported as of PTX version 2.1"
    if (f.directives.has('maxnctapersm') && (mod.ptxVersion ?? 0) >= 201) fail('PTX_DEPRECATED', `Deprecated feature: '.maxnctapersm directive' not supported as of PTX version 2.1`, f.pos);
    if (!f.body) continue;
    if (m.getFunction(f.name)) fail('PTX_SEMANTIC', `function '${f.name}' is defined twice`, f.pos);
    const fn = lowerFunction(f, mod, ast, fail);
    checkLocalFrame(fn, fail);
    m.addFunction(fn);
  }
  checkStaticShared(ast, m, fail);
  checkConstData(m, fail);
  return m;
}

/** Static shared memory one CTA may declare (48 KiB on every target ptxas 13 compiles for; dynamic shared memory is extra). */
const MAX_STATIC_SHARED = 0xc000;

/**
 * ptxas 13.0.88: "Entry function 'k' uses too much shared data (0xc001 bytes, 0xc000 max)" (no line; we point at
 * the entry). An entry uses the .shared variables its body or any function it calls (transitively) names, and
 * every .shared variable declared inside those functions (used or not), laid out with their alignments;
 * `.extern` (dynamic) shared memory does not count.
 */
function checkStaticShared(ast: PtxModule, m: OriModule, fail: Fail): void {
  // a function's own .shared variables are module variables named `<function>.<name>` (lowerFunction)
  const moduleShared = m.vars.filter((v) => v.space === 'shared' && !v.extern);
  if (!moduleShared.length) return;
  const bodies = new Map<string, Statement[]>();
  for (const f of ast.functions) if (f.body) bodies.set(f.name, f.body);
  const names = new Map<string, Set<string>>();
  const namesOf = (f: string): Set<string> => {
    let n = names.get(f);
    if (!n) names.set(f, (n = usedNames(bodies.get(f) ?? [])));
    return n;
  };
  for (const f of ast.functions) {
    if (!f.entry || !f.body) continue;
    // the call closure, by a worklist (call depth is user-controlled)
    const seen = new Set<string>([f.name]);
    const work = [f.name];
    const used = new Set<string>();
    while (work.length) {
      const g = work.pop()!;
      for (const n of namesOf(g)) {
        used.add(n);
        if (bodies.has(n) && !seen.has(n)) {
          seen.add(n);
          work.push(n);
        }
      }
    }
    let bytes = 0n;
    for (const v of moduleShared) {
      const dot = v.name.indexOf('.');
      if (used.has(v.name) || (dot > 0 && seen.has(v.name.slice(0, dot)))) bytes = BigInt.asUintN(64, alignUp(bytes, v.align) + sizeOf(v));
    }
    // ptxas 13.0.88 compares the total's low 32 bits as a signed int: 0x7fffffff bytes are too much, 0x80000000,
    // 2^32 and 2^32+0xc000 are not (and it says 0xc001 for 2^32+0xc001 bytes).
    const low = Number(BigInt.asUintN(32, bytes));
    if (low > MAX_STATIC_SHARED && low <= 0x7fffffff) {
      fail('PTX_RESOURCE_LIMIT', `Entry function '${f.name}' uses too much shared data (0x${low.toString(16)} bytes, 0x${MAX_STATIC_SHARED.toString(16)} max)`, f.pos);
    }
  }
}

type Fail = (code: string, msg: string, pos: { line: number; col: number }) => never;

const alignUp = (n: bigint, align: number): bigint => {
  const a = BigInt(Math.max(1, align));
  return ((n + a - 1n) / a) * a;
};

/** The largest `.local` frame code generation addresses (the stack pointer moves by a signed 32-bit immediate). */
const MAX_LOCAL_FRAME = 0x7fff0000n;

/**
 * ptxas 13.0.88 takes any `.local` size (its stack size wraps: `l[2^31-1]` reports "-2147483648 bytes cumulative
 * stack size"); ptxforge's frames are addressed with 32-bit immediates, so a frame of 2 GiB or more is an honest
 * "not supported" at the variable that crosses it, not a failure to encode.
 */
function checkLocalFrame(fn: OriFunction, fail: Fail): void {
  let bytes = 0n;
  for (const v of fn.vars) {
    if (v.space !== 'local') continue;
    bytes = alignUp(bytes, v.align) + sizeOf(v);
    if (bytes > MAX_LOCAL_FRAME) {
      fail('PTX_UNSUPPORTED', `a .local frame of ${bytes} bytes or more in '${fn.name}' is not supported (at most ${MAX_LOCAL_FRAME} bytes): '${v.name}'`, varPos.get(v) ?? { line: 1, col: 1 });
    }
  }
}

/** Constant bank 3 (the module's `.const` variables) holds 64 KiB. */
const MAX_CONST_BYTES = 0x10000n;

/**
 * ptxas 13.0.88: "File uses too much global constant data (0x10001 bytes, 0x10000 max)" (no line; we point at
 * the variable that crosses the limit). Every non-extern `.const` variable of the file counts, used or not, laid
 * out in declaration order with its alignment; unlike the shared limit the total is compared unsigned in 64 bits
 * (0x80000000 and 2^32 bytes are too much), after ptxas's 2^61 wrap of each size (declaredBytes).
 */
function checkConstData(m: OriModule, fail: Fail): void {
  let bytes = 0n;
  let crossing: OriVar | undefined;
  for (const v of m.vars) {
    if (v.space !== 'const' || v.extern) continue;
    bytes = alignUp(bytes, v.align) + sizeOf(v);
    if (bytes > MAX_CONST_BYTES) crossing ??= v;
  }
  // the total in bits wraps at 2^64 like each size (declaredBytes)
  bytes = BigInt.asUintN(61, bytes);
  if (crossing && bytes > MAX_CONST_BYTES) {
    fail('PTX_RESOURCE_LIMIT', `File uses too much global constant data (0x${bytes.toString(16)} bytes, 0x${MAX_CONST_BYTES.toString(16)} max; '${crossing.name}' crosses the limit)`, varPos.get(crossing) ?? { line: 1, col: 1 });
  }
}

/** Scalar `.b128` variables need PTX ISA 8.3 and sm_70 (ptxas 13.0.88: "Feature 'Type .b128' requires ..."); instructions: check.ts. */
function checkDeclaredTypes(ast: PtxModule, mod: ModuleInfo, fail: Fail): void {
  const sm = mod.targetSm ?? 0;
  const ptx = mod.ptxVersion ?? 0;
  if (ptx >= 803 && (sm === 0 || sm >= 70)) return;
  const check = (v: VarDecl): void => {
    // ptxas 13.0.88 (any state space, registers included): "Feature '.f16x2 packed data-type' requires .target sm_53 or higher"
    if (v.type === 'f16x2' && sm > 0 && sm < 53) fail('PTX_TARGET_FEATURE', `Feature '.f16x2 packed data-type' requires .target sm_53 or higher ('${v.name}')`, v.pos);
    // ptxas 13.0.88 gates scalar .b128 variables only: `.shared .b128 sh[4]` passes at PTX 8.0, `.shared .b128 sh` not
    if (v.type !== 'b128' || v.dims.length) return;
    if (ptx < 803) fail('PTX_VERSION_FEATURE', `Feature 'Type .b128' requires PTX ISA .version 8.3 or later ('${v.name}')`, v.pos);
    fail('PTX_TARGET_FEATURE', `Feature 'Type .b128' requires .target sm_70 or higher ('${v.name}')`, v.pos);
  };
  ast.vars.forEach(check);
  for (const f of ast.functions) {
    f.params.forEach(check);
    f.returns.forEach(check);
    if (f.body) forEachStatement(f.body, (st) => st.kind === 'var' && check(st));
  }
}

/**
 * Whole-program compilation (we have no relocatable `-c` output yet, and ptxas without -c behaves the same):
 * a function declared without a body must be defined in the module when it is called, and a non-.extern
 * declaration always (ptxas 13.0.88: "Unresolved extern function 'f'", reported without a line; we point at
 * the declaration).
 */
/**
 * Every declaration and the definition of a function agree (ptxas 13.0.88: "Inconsistent prototypes of 'f',
 * number of parameters differ" / "parameter state space differ" / "parameter types differ" / "parameter alignment
 * differ", results counted with the parameters, names free; "Function definition conflicts with '.extern'
 * declaration for function 'f'"; "Inconsistent redefinition of variable 'f'" when only one says .noreturn).
 * Reported at the later declaration. The system functions (__assertfail, vprintf ...) follow the same rule.
 */
function checkPrototypes(ast: PtxModule, fail: Fail): void {
  const first = new Map<string, FunctionDecl>();
  const naturalAlign = (p: VarDecl): number => p.align ?? (byteSize(ptxType(p.type) ?? ptxType('b8')!) * Math.max(1, p.vec));
  for (const f of ast.functions) {
    const g = first.get(f.name);
    if (!g) {
      first.set(f.name, f);
      continue;
    }
    if (g.entry !== f.entry) continue;
    const inconsistent = (why: string): never => fail('PTX_SEMANTIC', `Inconsistent prototypes of '${f.name}', ${why}`, f.pos);
    if ((g.linkage === 'extern' && f.body) || (f.linkage === 'extern' && g.body)) fail('PTX_SEMANTIC', `Function definition conflicts with '.extern' declaration for function '${f.name}'`, f.pos);
    if (g.directives.has('noreturn') !== f.directives.has('noreturn')) fail('PTX_SEMANTIC', `Inconsistent redefinition of variable '${f.name}' (.noreturn)`, f.pos);
    const a = [...g.returns, ...g.params];
    const b = [...f.returns, ...f.params];
    if (a.length !== b.length || g.returns.length !== f.returns.length) inconsistent('number of parameters differ');
    a.forEach((p, k) => {
      const q = b[k]!;
      if (p.space !== q.space) inconsistent(`parameter state space differ ('${q.name}')`);
      if (p.type !== q.type || p.vec !== q.vec || p.dims.length !== q.dims.length || p.dims.some((d, i) => d !== q.dims[i])) inconsistent(`parameter types differ ('${q.name}')`);
      if (naturalAlign(p) !== naturalAlign(q)) inconsistent(`parameter alignment differ ('${q.name}')`);
    });
  }
}

/** Functions ptxas itself provides to a whole program (probed with ptxas 13.0.88: these need no definition). */
const SYSTEM_FUNCTIONS = new Set(['vprintf', 'malloc', 'free', '__assertfail', 'cudaGraphSetConditional']);

function checkResolvedFunctions(ast: PtxModule, fail: Fail, relocatable: boolean): void {
  const defined = new Set<string>(SYSTEM_FUNCTIONS);
  for (const f of ast.functions) if (f.body) defined.add(f.name);
  let called: Set<string> | undefined;
  for (const f of ast.functions) {
    if (f.body || defined.has(f.name)) continue;
    // ptxas -c leaves `.extern` functions to the linker; a declaration without .extern still needs its body
    if (relocatable && f.linkage === 'extern') continue;
    if (f.linkage === 'extern') {
      if (!called) {
        called = new Set();
        for (const g of ast.functions) {
          if (!g.body) continue;
          forEachStatement(g.body, (st) => {
            if (st.kind !== 'instr' || st.opcode !== 'call') return;
            const callee = st.operands.find((o) => o.kind === 'name');
            if (callee?.kind === 'name') called!.add(callee.name);
          });
        }
      }
      if (!called.has(f.name)) continue;
    }
    fail('PTX_UNRESOLVED_FUNCTION', `Unresolved extern function '${f.name}' (declared without a body; whole-program compilation needs its definition)`, f.pos);
  }
}

function declType(v: VarDecl, fail: Fail): PtxType {
  const t = ptxType(v.type);
  if (!t) fail('PTX_UNSUPPORTED', `type .${v.type} of '${v.name}' is not supported`, v.pos);
  if (t.kind === 'pred' && v.space !== 'reg') fail('PTX_SEMANTIC', `Predicate variable '${v.name.split('.').pop()}' must be in register state space`, v.pos);
  return t;
}

/** A `.param` variable of a type ptxas cannot place there (`.f16x2`, a `.vN` vector; `.pred` must be a register). */
function checkParamType(p: VarDecl, fail: Fail): void {
  if (p.type === 'f16x2' || p.vec) fail('PTX_SEMANTIC', `Variable '${p.name}' cannot be allocated in .param state space`, p.pos);
  if (p.type === 'pred') fail('PTX_SEMANTIC', `Predicate variable '${p.name}' must be in register state space`, p.pos);
}

/** How an address initializer names a variable: its Ori name, or undefined when the name is no variable. */
type ResolveVar = (name: string) => string | undefined;

/**
 * PTX ISA "Initializers": since PTX 3.1 a variable named in an initializer stands for its address in its own
 * state space (like `mov`), and `generic(var)` for its generic address; older PTX has an implicit generic()
 * on every name. For .global/.const targets both are the same value in Ori (docs/ori-semantics.md, Memory),
 * which is what ZLUDA's const_ident expects (`mov x` == the initializer's `x`).
 */
function legacyGenericInit(version: string | undefined): boolean {
  const m = /^(\d+)\.(\d+)/.exec(version ?? '');
  return !!m && (Number(m[1]) < 3 || (Number(m[1]) === 3 && Number(m[2]) < 1));
}

/**
 * Initializer values of the variable's type (ptxas 13.0.88, fatal "Initial value type mismatch"): an integer
 * variable takes no float literal, a float variable no integer literal and no address; untyped .bN variables
 * take anything (raw bits). A 16-bit float variable takes no initializer at all ("No initial value is allowed
 * for .f16 type").
 */
function checkInitializerTypes(v: VarDecl, t: PtxType, flat: readonly Init[], fail: Fail): void {
  if (t.kind === 'b' || flat.length === 0) return;
  if (t.kind === 'f' && t.bits === 16) fail('PTX_INITIALIZER_TYPE', `No initial value is allowed for .${t.name} type ('${v.name}')`, flat[0]!.pos);
  for (const x of flat) {
    const bad = t.kind === 'f' ? x.kind !== 'float' : x.kind === 'float';
    if (bad) fail('PTX_INITIALIZER_TYPE', `Initial value type mismatch: '${v.name}' is .${t.name}, the value is ${x.kind === 'float' ? 'a float literal' : x.kind === 'sym' ? 'an address' : 'an integer'}`, x.pos);
  }
}

/**
 * ptxas keeps a variable's size in bits in 64 bits: the byte size is the product of the element size and the
 * dimensions modulo 2^64, then modulo 2^61 (ptxas 13.0.88 `-v`: `.shared .b8 sh[2^63-1]` uses 2^61-1 bytes of
 * shared memory, `.b32 sh[2^62]` none, `.const .b8 c[2^61+1]` one byte). Resource limits compare these sizes.
 */
function declaredBytes(v: VarDecl, elem: number): bigint {
  let n = BigInt(elem);
  for (const d of v.dimsExact ?? v.dims.map(BigInt)) if (d >= 0n) n = BigInt.asUintN(64, n * d);
  return BigInt.asUintN(61, n);
}

/** Exact byte sizes of the variables oriVar made (OriVar.size is a number: sizes above 2^53 round there). */
const exactSizes = new WeakMap<OriVar, bigint>();
/** Where each of them is declared (the resource-limit errors point there). */
const varPos = new WeakMap<OriVar, { line: number; col: number }>();
const sizeOf = (v: OriVar): bigint => exactSizes.get(v) ?? BigInt(v.size);

/** The largest initialized variable ptxforge builds an image of (256 MiB). */
const MAX_INITIALIZED_BYTES = 256 * 1024 * 1024;

function oriVar(v: VarDecl, t: PtxType, space: OriVar['space'], fail: Fail, resolve: ResolveVar, legacyGeneric: boolean, functionAddress?: (n: string) => bigint | undefined, ast?: PtxModule): OriVar {
  const elem = byteSize(t) * Math.max(1, v.vec);
  let count = 1;
  let unsized = false;
  for (const d of v.dims) {
    if (d < 0) unsized = true;
    else count *= d;
  }
  let init: Uint8Array | undefined;
  let relocs: OriVar['relocs'];
  if (v.init) {
    const flat: Init[] = [];
    const walk = (i: Init): void => {
      if (i.kind === 'list') i.elems.forEach(walk);
      else flat.push(i);
    };
    walk(v.init);
    checkInitializerTypes(v, t, flat, fail);
    if (unsized) count = Math.ceil(flat.length / Math.max(1, v.vec)) || 1;
    // The initial image is built in memory: refuse a huge one with a located error instead of failing to
    // allocate (ptxas itself runs for minutes on such files; our limit, not a ptxas rule).
    if (elem * count > MAX_INITIALIZED_BYTES) {
      fail('PTX_RESOURCE_LIMIT', `initialized variable '${v.name}' of ${elem * count} bytes exceeds the limit for initialized data (${MAX_INITIALIZED_BYTES} bytes)`, v.pos);
    }
    const bytes = new Uint8Array(elem * count);
    const dv = new DataView(bytes.buffer);
    const size = byteSize(t);
    flat.forEach((x, k) => {
      const at = k * size;
      if (at + size > bytes.length) fail('PTX_SEMANTIC', `too many initializers for '${v.name}'`, x.pos);
      if (x.kind === 'sym') {
        // An address: a relocation the memory layout (interpreter, loader) fills in; the bytes stay zero.
        if (size !== 4 && size !== 8) fail('PTX_UNSUPPORTED', `address initializer '${x.name}' in '${v.name}' needs a 32- or 64-bit element type`, x.pos);
        const sym = resolve(x.name);
        const fa = sym === undefined ? functionAddress?.(x.name) : undefined;
        if (fa !== undefined) {
          // a function's address: the number function-address.ts gave it, written as data (ptxas: no relocation)
          if (x.generic) fail('PTX_SEMANTIC', `generic() of function '${x.name}' in the initializer of '${v.name}'`, x.pos);
          const val = BigInt.asUintN(64, fa + x.offset);
          if (size === 8) dv.setBigUint64(at, val, true);
          else dv.setUint32(at, Number(BigInt.asUintN(32, val)), true);
          return;
        }
        if (sym === undefined && ast?.functions.some((f) => f.name === x.name)) {
          fail('PTX_UNSUPPORTED', `address initializer '${x.name}' in '${v.name}': ${ast.functions.find((f) => f.name === x.name)!.entry ? "a kernel's address in data" : "a function's address in a relocatable (-c) compilation"} is not supported`, x.pos);
        }
        if (sym === undefined) fail('PTX_SEMANTIC', `address initializer '${x.name}' in '${v.name}' does not name a variable declared before it (function addresses are not supported)`, x.pos);
        const r: NonNullable<OriVar['relocs']>[number] = { offset: at, size: size as 4 | 8, sym: sym!, addend: Number(x.offset) };
        if (x.generic || legacyGeneric) r.generic = true;
        (relocs ??= []).push(r);
        return;
      }
      writeScalar(dv, at, t, x as Exclude<Init, { kind: 'list' | 'sym' }>);
    });
    init = bytes;
  }
  // ptxas: only an .extern declaration may leave the size to another module.
  // A zero-sized dimension (`[0]`, or a literal that wraps to 0 in 64 bits) is incomplete as well (ptxas).
  if ((unsized || v.dims.includes(0)) && !init && v.linkage !== 'extern') fail('PTX_SEMANTIC', `Non-external variable '${v.name.split('.').pop()}' has incomplete type (an unsized array needs .extern or an initializer)`, v.pos);
  const exact = unsized ? BigInt(unsized && !init ? 0 : elem * count) : declaredBytes(v, elem);
  const ov: OriVar = { space, name: v.name, size: Number(exact), align: v.align ?? byteSize(t) * Math.max(1, v.vec) };
  exactSizes.set(ov, exact);
  varPos.set(ov, v.pos);
  if (init) ov.init = init;
  if (relocs) ov.relocs = relocs;
  if (v.linkage === 'extern' || (unsized && !init)) ov.extern = true;
  else if (v.linkage === 'visible' && space !== 'shared') ov.visible = true;
  return ov;
}

function writeScalar(dv: DataView, at: number, t: PtxType, x: { kind: 'int'; value: bigint } | { kind: 'float'; value: number; bits?: bigint; width: 32 | 64 }): void {
  if (t.kind === 'f') {
    const v = x.kind === 'int' ? Number(x.value) : x.value;
    if (t.bits === 64) {
      if (x.kind === 'float' && x.bits !== undefined && x.width === 64) dv.setBigUint64(at, x.bits, true);
      else dv.setFloat64(at, v, true);
    } else if (t.bits === 32) {
      if (x.kind === 'float' && x.bits !== undefined && x.width === 32) dv.setUint32(at, Number(x.bits), true);
      else dv.setFloat32(at, v, true);
    } else if (x.kind === 'float' && x.bits !== undefined) dv.setUint16(at, Number(x.bits & 0xffffn), true);
    else dv.setUint16(at, Number(x.kind === 'int' ? x.value : 0n) & 0xffff, true);
    return;
  }
  const bits = x.kind === 'int' ? x.value : x.bits ?? BigInt(Math.trunc(x.value));
  const n = t.bits / 8;
  const u = BigInt.asUintN(t.bits, bits);
  for (let k = 0; k < n; k++) dv.setUint8(at + k, Number((u >> BigInt(8 * k)) & 0xffn));
}

/** Visit every statement of a body, nested scopes included, in order (explicit stack: depth is user-controlled). */
function forEachStatement(body: Statement[], f: (s: Statement) => void): void {
  const stack: Array<{ body: Statement[]; k: number }> = [{ body, k: 0 }];
  while (stack.length) {
    const top = stack[stack.length - 1]!;
    if (top.k >= top.body.length) {
      stack.pop();
      continue;
    }
    const s = top.body[top.k++]!;
    f(s);
    if (s.kind === 'block') stack.push({ body: s.body, k: 0 });
  }
}

/** Every name an operand or guard of the body mentions (registers, variables, labels). */
function usedNames(body: Statement[]): Set<string> {
  const out = new Set<string>();
  const stack: Operand[] = [];
  forEachStatement(body, (s) => {
    if (s.kind !== 'instr') return;
    if (s.guard) out.add(s.guard.name);
    for (const o of s.operands) stack.push(o);
    while (stack.length) {
      const o = stack.pop()!;
      switch (o.kind) {
        case 'name': out.add(o.name); break;
        case 'offset': out.add(o.base); break;
        case 'addr':
          if (o.base !== undefined) {
            const dot = o.base.indexOf('.');
            out.add(dot < 0 ? o.base : o.base.slice(0, dot));
          }
          if (o.list) stack.push(...o.list);
          break;
        case 'vec': case 'list': stack.push(...o.elems); break;
        case 'not': case 'neg': stack.push(o.operand); break;
        case 'pair': stack.push(o.first, o.second); break;
        default: break;
      }
    }
  });
  return out;
}

/**
 * The `.reg` names whose registers keep their PTX names (FnLowerer.reserve). A `%r<N>` range contributes only
 * the names the body uses: `.reg .b32 %r<100000000>` costs what is used, as in ptxas.
 */
function regNames(body: Statement[]): Array<[string, PtxType]> {
  const out: Array<[string, PtxType]> = [];
  const ranges = new Map<string, Array<{ count: number; t: PtxType }>>();
  forEachStatement(body, (s) => {
    if (s.kind !== 'var' || s.space !== 'reg' || s.vec) return;
    const t = ptxType(s.type);
    if (!t) return;
    if (s.paramCount === undefined) out.push([s.name, t]);
    else {
      let l = ranges.get(s.name);
      if (!l) ranges.set(s.name, (l = []));
      l.push({ count: s.paramCount, t });
    }
  });
  if (ranges.size) {
    for (const n of usedNames(body)) {
      const split = splitRangeName(n);
      if (!split) continue;
      for (const r of ranges.get(split.prefix) ?? []) if (split.index < r.count) out.push([n, r.t]);
    }
  }
  return out;
}

function collectLabels(body: Statement[], out: Set<string>): void {
  forEachStatement(body, (s) => {
    if (s.kind === 'label') out.add(s.name);
  });
}

function lowerFunction(f: FunctionDecl, mod: ModuleInfo, ast: PtxModule, fail: Fail): OriFunction {
  const fn = new OriFunction(f.name, f.entry ? 'entry' : 'func');
  for (const [k, v] of f.directives) if (v.length) fn.directives.set(k, v);
  const labels = new Set<string>();
  collectLabels(f.body!, labels);
  const c = new FnLowerer(fn, mod, labels);
  c.reserve(regNames(f.body!));
  const scope = new Map<string, Sym>();
  c.scopes.push(scope);

  // Parameters.
  if (f.entry) {
    let off = 0;
    for (const p of f.params) {
      if (scope.has(p.name)) fail('PTX_SEMANTIC', `Duplicate definition of variable '${p.name}'`, p.pos);
      if (p.space !== 'param') fail('PTX_SEMANTIC', `kernel parameter '${p.name}' must be in .param space`, p.pos);
      checkParamType(p, fail);
      if (p.dims.includes(-1)) fail('PTX_SEMANTIC', `Parameter to entry function cannot be an incomplete array ('${p.name}[]')`, p.pos);
      const t = declType(p, fail);
      const elem = byteSize(t) * Math.max(1, p.vec);
      const size = elem * p.dims.reduce((a, b) => a * Math.max(b, 1), 1);
      const align = Math.max(p.align ?? 0, elem);
      off = Math.ceil(off / align) * align;
      fn.params.push({ name: p.name, type: p.type, count: p.dims.length ? size / byteSize(t) : 0, align, cbank: { bank: 0, offset: mod.paramBase + off } });
      scope.set(p.name, { kind: 'kparam', offset: off, type: t, size });
      off += size;
    }
  } else {
    // Predicates cross calls as 32-bit 0/1 values (CALL/RET carry R registers): the boundary register is
    // the Ori parameter/result, the body works on a P register converted on entry / before RET.
    const entryConversions: Array<[Register, Register]> = [];
    for (const p of f.params) {
      if (scope.has(p.name)) fail('PTX_SEMANTIC', `Duplicate definition of variable '${p.name}'`, p.pos);
      if (p.space === 'param') checkParamType(p, fail);
      const sym = paramRegs(c, p, fail);
      scope.set(p.name, sym);
      const regs = sym.kind === 'pvar' || sym.kind === 'reg' ? sym.regs : [];
      regs.forEach((r, k) => {
        let boundary = r;
        if (r.cls === 'P') {
          boundary = fn.newReg('R', 1);
          entryConversions.push([r, boundary]);
        }
        boundary.isParam = true;
        fn.params.push({ name: regs.length > 1 ? `${p.name}_${k}` : p.name, type: regs.length > 1 ? (sym.kind === 'pvar' && sym.aggregate ? 'b32' : p.type) : p.type, count: 0, reg: boundary });
      });
    }
    for (const r of f.returns) {
      if (scope.has(r.name)) fail('PTX_SEMANTIC', `Duplicate definition of variable '${r.name}'`, r.pos);
      const sym = paramRegs(c, r, fail);
      scope.set(r.name, sym);
      if (sym.kind === 'pvar' || sym.kind === 'reg') {
        for (const x of sym.regs) {
          c.retValues.push(x);
          fn.results.push(x.cls === 'P' ? fn.newReg('R', 1) : x);
        }
      }
    }
    if (entryConversions.length) {
      c.ins = { kind: 'instr', opcode: 'ret', mods: [], operands: [], pos: f.pos };
      for (const [p, r] of entryConversions) c.emit('ISETP', ['NE', 'U32', 'AND'], [{ kind: 'reg', reg: p }], [{ kind: 'reg', reg: r }, RZ, PT]);
    }
  }
  if (f.pragmas.includes('nounroll') || ast.pragmas.includes('nounroll')) c.nounrollAll = true;

  lowerBody(c, f.body!, fail);

  // Control must not run off the end: PTX functions end with ret/exit, but a trailing label may not.
  const last = fn.blocks[fn.blocks.length - 1];
  if (!last || last.fallsThrough) {
    c.ins = { kind: 'instr', opcode: 'ret', mods: [], operands: [], pos: f.pos };
    c.guard = undefined;
    c.emitReturn();
  }
  if (c.nounrollAll) markAllLoopHeaders(fn);
  defineMaybeUndefined(fn);
  return fn;
}

/** `.param`/`.reg` parameter of a `.func` (or a call-site `.param`): registers, one per component/word. */
function paramRegs(c: FnLowerer, p: VarDecl, fail: Fail): Sym {
  const t = declType(p, fail);
  if (p.space === 'reg') {
    const n = Math.max(1, p.vec);
    return { kind: 'reg', type: t, vec: p.vec, regs: Array.from({ length: n }, () => c.newRegFor(t)) };
  }
  const bytes = byteSize(t) * Math.max(1, p.vec) * p.dims.reduce((a, b) => a * Math.max(b, 1), 1);
  const align = p.align ?? byteSize(t) * Math.max(1, p.vec);
  if (p.dims.length || p.vec) {
    const u32 = ptxType('b32')!;
    return { kind: 'pvar', type: t, aggregate: true, regs: Array.from({ length: Math.ceil(bytes / 4) }, () => c.newRegFor(u32)), bytes, align };
  }
  return { kind: 'pvar', type: t, aggregate: false, regs: [c.newRegFor(t)], bytes, align };
}

/** Lower a body; nested `{ }` scopes with an explicit stack (their depth is user-controlled). */
function lowerBody(c: FnLowerer, root: Statement[], fail: Fail): void {
  const stack: Array<{ body: Statement[]; k: number }> = [{ body: root, k: 0 }];
  while (stack.length) {
    const top = stack[stack.length - 1]!;
    if (top.k >= top.body.length) {
      stack.pop();
      if (stack.length) c.scopes.pop();
      continue;
    }
    const s = top.body[top.k++]!;
    switch (s.kind) {
      case 'instr': {
        c.ins = s;
        c.guard = undefined;
        if (s.guard) {
          const g = c.lookup(s.guard.name);
          if (!g || g.kind !== 'reg' || g.regs[0]!.cls !== 'P') fail('PTX_SEMANTIC', `guard '${s.guard.name}' is not a .pred register`, s.pos);
          c.guard = { reg: g.regs[0]!, not: s.guard.not };
        }
        checkInstruction(c);
        const h = HANDLERS[s.opcode];
        if (!h) {
          const what = TEX_OPS.has(s.opcode) ? `texture/surface instruction '${[s.opcode, ...s.mods].join('.')}'` : `instruction '${[s.opcode, ...s.mods].join('.')}'`;
          c.unsupported(what, s.pos);
        }
        h(c);
        break;
      }
      case 'label':
        c.placeLabel(s.name, s.pos);
        break;
      case 'var':
        declareLocal(c, s, fail);
        break;
      case 'block':
        c.scopes.push(new Map());
        stack.push({ body: s.body, k: 0 });
        break;
      case 'loc': {
        const fi = c.mod.fileIndex.get(s.file);
        c.dbgFlag = `dbg.${fi ?? s.file}.${s.line}.${s.col}`;
        break;
      }
      case 'pragma':
        for (const v of s.values) {
          if (v === 'nounroll') {
            // Statement-level nounroll stands in the loop header block (PTX ISA, .pragma "nounroll").
            if (c.fn.blocks.length === 0 && !c.currentBlock) c.nounrollAll = true;
            else c.block().attrs.add('nounroll');
          } else if (!/^(used_bytes_mask|enable_smem_spilling|frequency)/.test(v)) {
            fail('PTX_UNSUPPORTED', `.pragma "${v}" is not supported`, s.pos);
          }
        }
        break;
      case 'branchtargets':
        c.declare(s.name, { kind: 'targets', labels: s.labels }, s.pos);
        break;
      case 'calltargets':
        c.declare(s.name, { kind: 'calltargets', funcs: s.funcs }, s.pos);
        break;
      case 'callprototype':
        c.declare(s.name, { kind: 'targets', labels: [] }, s.pos);
        break;
    }
  }
}

/**
 * Name sets of the variable lists that declarations are appended to, caught up lazily with the list's new
 * entries: a name check per declaration costs O(1) amortized, not a scan of every variable declared so far
 * (thousands of scoped `.local`/`.shared` declarations were quadratic).
 */
const varNameSets = new WeakMap<readonly { name: string }[], { names: Set<string>; seen: number }>();
function hasVarNamed(list: readonly { name: string }[], n: string): boolean {
  let e = varNameSets.get(list);
  // a list that shrank (entries removed) is indexed again from the start
  if (!e || e.seen > list.length) varNameSets.set(list, (e = { names: new Set(), seen: 0 }));
  for (; e.seen < list.length; e.seen++) e.names.add(list[e.seen]!.name);
  return e.names.has(n);
}

function declareLocal(c: FnLowerer, v: VarDecl, fail: Fail): void {
  switch (v.space) {
    case 'reg': {
      const t = declType(v, fail);
      if (v.dims.length) fail('PTX_UNSUPPORTED', `register arrays ('${v.name}') are not supported`, v.pos);
      const one = (name: string): void => {
        const n = Math.max(1, v.vec);
        c.declare(name, { kind: 'reg', type: t, vec: v.vec, regs: Array.from({ length: n }, () => c.newRegFor(t, n === 1 ? name : undefined)) }, v.pos);
      };
      if (v.paramCount !== undefined) {
        // `%r<N>`: the registers are made when a name of the range is first used (FnLowerer.lookup).
        c.declareRange(v.name, v.paramCount, t, v.pos, v.vec);
      } else one(v.name);
      return;
    }
    case 'param':
      checkParamType(v, fail);
      c.declare(v.name, paramRegs(c, v, fail), v.pos);
      return;
    case 'local':
    case 'shared':
    case 'global':
    case 'const': {
      const t = declType(v, fail);
      // Function-scope variables are hoisted to the function (local) or module (shared/global/const)
      // under a unique name, since nested scopes may reuse names.
      // .local stays with the function; .global/.const/.shared are per-module storage and are hoisted.
      const taken = (n: string): boolean => hasVarNamed(c.fn.vars, n) || c.mod.globals.has(n) || hasVarNamed(c.mod.moduleVars, n);
      let name = v.space === 'local' ? v.name : `${c.fn.name}.${v.name}`;
      if (!/^[A-Za-z_$][A-Za-z0-9_$.]*$/.test(name)) name = v.name;
      for (let k = 1; taken(name); k++) name = `${v.space === 'local' ? v.name : `${c.fn.name}.${v.name}`}_${k}`;
      const resolveScoped: ResolveVar = (n) => {
        const sym = c.lookup(n);
        // a hoisted (module) variable cannot hold the address of a function's .local variable
        return sym?.kind === 'var' && (v.space === 'local' || sym.space !== 'local') ? sym.oriName : undefined;
      };
      const ov = oriVar({ ...v, name }, t, v.space, fail, resolveScoped, c.mod.legacyGenericInit ?? false, (n) => c.mod.functionAddresses?.get(n));
      if (v.space === 'local') c.fn.vars.push(ov);
      else c.mod.moduleVars.push(ov);
      c.declare(v.name, { kind: 'var', space: v.space, oriName: name, type: t }, v.pos);
      return;
    }
    default:
      fail('PTX_UNSUPPORTED', `.${v.space} declarations inside a function are not supported`, v.pos);
  }
}

/** Module/function-level nounroll: every loop header of the function (by back edges in layout). */
function markAllLoopHeaders(fn: OriFunction): void {
  const index = new Map(fn.blocks.map((b, k) => [b, k]));
  for (const b of fn.blocks) for (const s of b.succs) if (index.get(s)! <= index.get(b)!) s.attrs.add('nounroll');
}
