/**
 * Calls of functions the CUDA driver provides to device code (no body in the module): `vprintf` runs (the
 * format and the argument buffer are read from the caller's memory, the text goes to the launch's `printed`
 * list), `__assertfail` traps with the assertion's message, `malloc`/`free` use a bump-allocated device heap
 * (GlobalMemory.heapAlloc), and what the interpreter cannot give meaning to (dynamic-parallelism launches) traps as "unsupported" with the reason, so that a
 * verify-each run reports the kernel as not checked instead of guessing.
 */
import type { Instr, OriFunction } from '@ptxforge/kernel';
import { Trap } from './errors.js';
import { loadGeneric, loadGenericByte } from './memops.js';
import { readSrc, writeLane, markWritten, type Exec, type Program } from './program.js';
import type { Warp } from './warp.js';

/** Longest string read from device memory (format strings, %s arguments, assertion texts). */
const MAX_STRING = 1 << 16;

/** Driver functions with no interpreter semantics and why. */
const CANNOT_RUN: Record<string, string> = {
  cudaGetParameterBufferV2: 'device-side kernel launches (dynamic parallelism) cannot run in the interpreter',
  cudaLaunchDeviceV2: 'device-side kernel launches (dynamic parallelism) cannot run in the interpreter',
  __cudaCDP2GetParameterBufferV2: 'device-side kernel launches (dynamic parallelism) cannot run in the interpreter',
  __cudaCDP2LaunchDeviceV2: 'device-side kernel launches (dynamic parallelism) cannot run in the interpreter',
};

const asAddress = (v: bigint | boolean): number => Number(BigInt.asUintN(64, typeof v === 'boolean' ? (v ? 1n : 0n) : v));

function readString(w: Warp, addr: number, l: number): string {
  let s = '';
  for (let k = 0; k < MAX_STRING; k++) {
    const b = loadGenericByte(w, addr + k, l);
    if (b === 0) return s;
    s += String.fromCharCode(b);
  }
  throw new Trap('out-of-bounds', `a string at 0x${addr.toString(16)} has no terminating NUL within ${MAX_STRING} bytes`, l);
}

const f64 = new DataView(new ArrayBuffer(8));
const asDouble = (bits: bigint): number => {
  f64.setBigUint64(0, bits);
  return f64.getFloat64(0);
};

/**
 * JS rounds an exact tie away from zero (toFixed/toExponential pick the larger candidate); C's printf (glibc, which
 * formats CUDA's device printf on the host) rounds it to even. `exact` is the value with 100 digits (exact for a
 * tie: a tie's expansion ends at digit prec + 1), `rounded` JS's answer; the mantissa digits run up to 'e'.
 */
function tiesToEven(exact: string, rounded: string, prec: number): string {
  const dot = exact.indexOf('.');
  if (dot < 0 || prec >= 100) return rounded;
  const end = exact.search(/[eE]|$/);
  const frac = exact.slice(dot + 1, end);
  if (frac[prec] !== '5' || !/^0*$/.test(frac.slice(prec + 1))) return rounded;
  const down = exact.slice(0, prec ? dot + 1 + prec : dot);
  const last = Number(down[down.length - 1]);
  return last % 2 === 0 ? down + exact.slice(end) : rounded;
}

/** %f digits of |x| (C: every integer digit, no exponent however large). */
function fixedForm(x: number, prec: number): string {
  const p = Math.min(prec, 100);
  if (x >= 1e21) return BigInt(x).toString() + (p ? `.${'0'.repeat(p)}` : '');
  return tiesToEven(x.toFixed(100), x.toFixed(p), p);
}

/** C's %e exponent form: at least two exponent digits. */
function expForm(x: number, prec: number, upper: boolean): string {
  const p = Math.min(prec, 100);
  const [m, e] = tiesToEven(x.toExponential(100), x.toExponential(p), p).split('e') as [string, string];
  const sign = e[0] === '-' ? '-' : '+';
  const digits = e.replace(/^[+-]/, '').padStart(2, '0');
  const s = `${m}e${sign}${digits}`;
  return upper ? s.toUpperCase() : s;
}

/** %g: %e or %f by the exponent, trailing zeros removed unless `alt`. */
function generalForm(x: number, prec: number, alt: boolean, upper: boolean): string {
  const p = prec === 0 ? 1 : prec;
  if (x === 0) return alt ? (0).toFixed(p - 1) : '0';
  const exp = Number(expForm(x, p - 1, false).split('e')[1]);
  let s = p > exp && exp >= -4 ? fixedForm(x, p - 1 - exp) : expForm(x, p - 1, upper);
  if (!alt) {
    const [mant, ex] = s.split(/(?=[eE])/) as [string, string | undefined];
    const trimmed = mant.includes('.') ? mant.replace(/\.?0+$/, '') : mant;
    s = trimmed + (ex ?? '');
  }
  return s;
}

/** %a: hexadecimal floating point (normalized 1.xxx, subnormals 0.xxx), C's spelling. */
function hexForm(x: number, prec: number | undefined, upper: boolean): string {
  f64.setFloat64(0, Math.abs(x));
  const bits = f64.getBigUint64(0);
  let e = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & 0xfffffffffffffn;
  let lead = 1n;
  if (e === 0) {
    lead = 0n;
    e = mant === 0n ? 1023 : 1;
  }
  let digits = mant.toString(16).padStart(13, '0');
  if (prec !== undefined && prec < 13) {
    // round to nearest, ties to even, at the requested hex digit
    const drop = BigInt(4 * (13 - prec));
    const full = (lead << 52n) | mant;
    const half = 1n << (drop - 1n);
    const rem = full & ((1n << drop) - 1n);
    let q = full >> drop;
    if (rem > half || (rem === half && (q & 1n) === 1n)) q++;
    lead = q >> BigInt(4 * prec);
    mant = q & ((1n << BigInt(4 * prec)) - 1n);
    digits = prec ? mant.toString(16).padStart(prec, '0') : '';
  } else {
    digits = digits.replace(/0+$/, '');
    if (prec !== undefined) digits = digits.padEnd(prec, '0');
  }
  const exp = x === 0 ? 0 : e - 1023;
  const s = `0x${lead}${digits ? `.${digits}` : ''}p${exp < 0 ? '-' : '+'}${Math.abs(exp)}`;
  return upper ? s.toUpperCase() : s;
}

interface Spec {
  flags: string;
  width: number | undefined;
  prec: number | undefined;
  length: string;
  conv: string;
}

function pad(body: string, sign: string, spec: Spec, numeric: boolean): string {
  const w = spec.width ?? 0;
  const len = sign.length + body.length;
  if (len >= w) return sign + body;
  if (spec.flags.includes('-')) return sign + body + ' '.repeat(w - len);
  if (numeric && spec.flags.includes('0')) {
    const prefix = /^0[xX]/.test(body) ? body.slice(0, 2) : '';
    return sign + prefix + '0'.repeat(w - len) + body.slice(prefix.length);
  }
  return ' '.repeat(w - len) + sign + body;
}

/**
 * C printf over CUDA's argument buffer: each argument at the next multiple of its size (int-sized
 * conversions 4 bytes, `l`/`ll`/`z`/`j`/`t` integers, pointers, strings and every floating conversion 8: floats
 * are passed as doubles). Returns the text and the number of arguments read.
 */
export function formatDevicePrintf(fmt: string, loadArg: (offset: number, size: number) => bigint, loadString: (addr: number) => string): { text: string; args: number } {
  let out = '';
  let off = 0;
  let args = 0;
  const next = (size: number): bigint => {
    off = Math.ceil(off / size) * size;
    const v = loadArg(off, size);
    off += size;
    args++;
    return v;
  };
  const re = /%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d*))?(hh|h|ll|l|L|z|j|t)?([diouxXcspfFeEgGaAn%])/g;
  let last = 0;
  for (let m = re.exec(fmt); m; m = re.exec(fmt)) {
    out += fmt.slice(last, m.index);
    last = re.lastIndex;
    const [, flags = '', widthText, precText, length = '', conv = ''] = m;
    if (conv === '%') {
      out += '%';
      continue;
    }
    let width = widthText === '*' ? Number(BigInt.asIntN(32, next(4))) : widthText !== undefined ? Number(widthText) : undefined;
    let f = flags;
    if (width !== undefined && width < 0) {
      f += '-';
      width = -width;
    }
    let prec = precText === '*' ? Number(BigInt.asIntN(32, next(4))) : precText !== undefined ? Number(precText || '0') : undefined;
    if (prec !== undefined && prec < 0) prec = undefined;
    const spec: Spec = { flags: f, width, prec, length, conv };
    const wide = length === 'l' || length === 'll' || length === 'z' || length === 'j' || length === 't';
    switch (conv) {
      case 'd':
      case 'i': {
        const raw = next(wide ? 8 : 4);
        let v = wide ? BigInt.asIntN(64, raw) : BigInt.asIntN(32, raw);
        if (length === 'h') v = BigInt.asIntN(16, v);
        if (length === 'hh') v = BigInt.asIntN(8, v);
        let digits = (v < 0n ? -v : v).toString();
        if (prec !== undefined) digits = prec === 0 && v === 0n ? '' : digits.padStart(prec, '0');
        const sign = v < 0n ? '-' : f.includes('+') ? '+' : f.includes(' ') ? ' ' : '';
        out += pad(digits, sign, prec !== undefined ? { ...spec, flags: f.replace('0', '') } : spec, true);
        break;
      }
      case 'o':
      case 'u':
      case 'x':
      case 'X': {
        let v = BigInt.asUintN(wide ? 64 : 32, next(wide ? 8 : 4));
        if (length === 'h') v = BigInt.asUintN(16, v);
        if (length === 'hh') v = BigInt.asUintN(8, v);
        let digits = v.toString(conv === 'o' ? 8 : conv === 'u' ? 10 : 16);
        if (conv === 'X') digits = digits.toUpperCase();
        if (prec !== undefined) digits = prec === 0 && v === 0n ? '' : digits.padStart(prec, '0');
        if (f.includes('#') && conv === 'o' && !digits.startsWith('0')) digits = `0${digits}`;
        if (f.includes('#') && (conv === 'x' || conv === 'X') && v !== 0n) digits = (conv === 'x' ? '0x' : '0X') + digits;
        out += pad(digits, '', prec !== undefined ? { ...spec, flags: f.replace('0', '') } : spec, true);
        break;
      }
      case 'c':
        out += pad(String.fromCharCode(Number(next(4) & 0xffn)), '', spec, false);
        break;
      case 's': {
        const addr = Number(next(8));
        let s = addr === 0 ? '(null)' : loadString(addr);
        if (prec !== undefined) s = s.slice(0, prec);
        out += pad(s, '', spec, false);
        break;
      }
      case 'p': {
        const v = next(8);
        out += pad(v === 0n ? '(nil)' : `0x${v.toString(16)}`, '', spec, false);
        break;
      }
      case 'n':
        next(8); // %n stores nothing from device code (CUDA ignores it); its pointer argument is consumed
        break;
      default: {
        const x = asDouble(next(8));
        const upper = conv === conv.toUpperCase();
        const sign = x < 0 || Object.is(x, -0) ? '-' : f.includes('+') ? '+' : f.includes(' ') ? ' ' : '';
        const a = Math.abs(x);
        let body: string;
        if (!Number.isFinite(a)) body = Number.isNaN(a) ? 'nan' : 'inf';
        else if (conv === 'f' || conv === 'F') body = fixedForm(a, prec ?? 6) + (f.includes('#') && prec === 0 ? '.' : '');
        else if (conv === 'e' || conv === 'E') body = expForm(a, prec ?? 6, upper);
        else if (conv === 'g' || conv === 'G') body = generalForm(a, prec ?? 6, f.includes('#'), upper);
        else body = hexForm(a, prec, upper);
        if (upper) body = body.toUpperCase();
        out += pad(body, sign, Number.isFinite(a) ? spec : { ...spec, flags: f.replace('0', '') }, true);
      }
    }
  }
  out += fmt.slice(last);
  return { text: out, args };
}

/** The semantics of a call of `name`, a function outside the module, or undefined when it is none we know. */
export function buildDriverCall(prog: Program, fn: OriFunction, i: Instr, name: string): Exec | undefined {
  const args = i.uses.slice(1).map((u) => prog.src(fn, u));
  const result = i.defs[0] ? prog.dst(i.defs[0]) : undefined;
  if (name === 'vprintf') {
    if (args.length !== 2) return undefined;
    return (w, m) => {
      for (let l = 0; l < 32; l++) {
        if (!((m >>> l) & 1)) continue;
        const fmtAddr = asAddress(readSrc(w, args[0]!, l));
        const buf = asAddress(readSrc(w, args[1]!, l));
        let ret = -1n;
        if (fmtAddr !== 0) {
          const r = formatDevicePrintf(readString(w, fmtAddr, l), (off, size) => loadGeneric(w, buf + off, size, l), (a) => readString(w, a, l));
          w.cta.global.printed.push(r.text);
          ret = BigInt(r.args);
        }
        if (result) writeLane(w, result, l, BigInt.asUintN(32, ret));
      }
      if (result) markWritten(w, result, m);
    };
  }
  if (name === 'malloc') {
    if (args.length !== 1) return undefined;
    return (w, m) => {
      for (let l = 0; l < 32; l++) {
        if (!((m >>> l) & 1)) continue;
        const addr = w.cta.global.heapAlloc(asAddress(readSrc(w, args[0]!, l)));
        if (result) writeLane(w, result, l, BigInt(addr));
      }
      if (result) markWritten(w, result, m);
    };
  }
  // free gives nothing back (the heap is a bump allocator); freeing NULL or any heap address is fine
  if (name === 'free') return args.length === 1 ? () => undefined : undefined;
  if (name === '__assertfail') {
    if (args.length < 4) return undefined;
    return (w, m) => {
      for (let l = 0; l < 32; l++) {
        if (!((m >>> l) & 1)) continue;
        const str = (k: number): string => {
          const a = asAddress(readSrc(w, args[k]!, l));
          return a === 0 ? '?' : readString(w, a, l);
        };
        const line = Number(BigInt.asUintN(32, BigInt(readSrc(w, args[2]!, l))));
        throw new Trap('assertion', `device-side assertion failed: ${str(1)}:${line}: ${str(3)}: Assertion \`${str(0)}\` failed.`, l);
      }
    };
  }
  // the rest of the CUDA device runtime (relocatable code: cudaGetLastError, streams, memcpy ...) and the graph
  // a kernel runs in: outside the interpreter's model of one kernel launch
  const why = CANNOT_RUN[name]
    ?? (name.startsWith('__cudaCDP2') ? 'the CUDA device runtime cannot run in the interpreter' : undefined)
    ?? (name === 'cudaGraphSetConditional' ? 'conditional nodes of the CUDA graph a kernel runs in cannot run in the interpreter' : undefined);
  if (why) {
    return () => {
      throw new Trap('unsupported', `${why} (call of ${name})`, -1);
    };
  }
  return undefined;
}
