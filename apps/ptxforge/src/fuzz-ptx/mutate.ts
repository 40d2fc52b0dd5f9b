/**
 * Mutation of PTX text for `fuzz-ptx`: the text is cut into tokens (whitespace and comments kept, so the
 * mutant stays readable and its line numbers meaningful) and one to three mutators edit the token list:
 * drop / duplicate / swap tokens, change types, modifiers, state spaces, vector widths, immediates at type
 * boundaries, registers of another class, header directives, or truncate.
 */
import { Rng } from './rng.js';

const TOKEN = /\s+|\/\/[^\n]*|\/\*[\s\S]*?\*\/|"[^"\n]*"|0[fF][0-9a-fA-F]{8}|0[dD][0-9a-fA-F]{16}|0[xX][0-9a-fA-F]+U?|\d+\.\d*(?:[eE][-+]?\d+)?|\d+U?|[%$A-Za-z_][\w$]*|\.[A-Za-z_][\w]*|[^\s]/gy;

export function tokenizeText(text: string): string[] {
  const out: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(text);
    if (!m) {
      out.push(text[at]!);
      TOKEN.lastIndex = at + 1;
    } else out.push(m[0]);
  }
  return out;
}

const isSpace = (t: string): boolean => /^\s/.test(t) || t.startsWith('//') || t.startsWith('/*');

export const TYPES = ['.b8', '.b16', '.b32', '.b64', '.u8', '.u16', '.u32', '.u64', '.s8', '.s16', '.s32', '.s64', '.f16', '.f16x2', '.bf16', '.bf16x2', '.f32', '.f64', '.pred', '.b128'];
const TYPE_RE = /^\.(?:[bsu](?:8|16|32|64)|f(?:16|32|64)|f16x2|bf16|bf16x2|pred|b128)$/;
const MODIFIERS = [
  '.rn', '.rz', '.rm', '.rp', '.rni', '.rzi', '.rmi', '.rpi', '.ftz', '.sat', '.approx', '.full', '.lo', '.hi', '.wide', '.cc',
  '.eq', '.ne', '.lt', '.le', '.gt', '.ge', '.lo', '.ls', '.hs', '.equ', '.nan', '.and', '.or', '.xor', '.volatile', '.relaxed',
  '.acquire', '.release', '.gpu', '.cta', '.sys', '.uni', '.sync', '.aligned', '.all', '.any', '.ballot', '.bfly', '.down',
  '.up', '.idx', '.to', '.nc', '.ca', '.cg', '.cs', '.lu', '.wb', '.wt', '.L1::no_allocate', '.shiftamt', '.clamp', '.wrap',
  '.NaN', '.abs', '.relu', '.x4', '.trans', '.m8n8', '.add', '.min', '.max', '.inc', '.exch', '.cas', '.popc',
];
const SPACES = ['.global', '.shared', '.local', '.const', '.param', '.reg', '.tex', '.shared::cta', '.shared::cluster'];
const SPACE_RE = /^\.(?:global|shared|local|const|param|reg|tex)$/;
const VECTORS = ['.v2', '.v4', '.v8', '.v3', '.v16'];
const BOUNDARIES = [
  '0', '1', '-1', '127', '128', '-128', '255', '256', '32767', '32768', '-32768', '65535', '65536', '2147483647', '2147483648',
  '-2147483648', '4294967295', '4294967296', '0x7fffffff', '0x80000000', '0xffffffff', '0x100000000', '9223372036854775807',
  '0x7fffffffffffffff', '0x8000000000000000', '0xffffffffffffffff', '0x10000000000000000', '18446744073709551616', '-9223372036854775809',
  '0f7F800000', '0fFF800000', '0f7FC00000', '0f00000001', '0d7FF0000000000000', '0d0000000000000001', '1.5', '-0.0', '1e40', '0f3F80',
];
const VERSIONS = ['1.0', '2.3', '3.0', '4.3', '6.0', '7.0', '7.5', '7.8', '8.0', '8.3', '8.5', '8.8', '9.0', '9.9', '10.0'];
const TARGETS = ['sm_20', 'sm_30', 'sm_52', 'sm_70', 'sm_75', 'sm_80', 'sm_86', 'sm_89', 'sm_90', 'sm_90a', 'sm_100', 'sm_120', 'sm_999', 'compute_90'];

export type MutatorName = 'drop' | 'dup' | 'swap' | 'type' | 'modifier' | 'space' | 'vector' | 'immediate' | 'register' | 'header' | 'truncate' | 'line';

/** Indices of the non-space tokens satisfying `f`. */
function where(toks: string[], f: (t: string) => boolean): number[] {
  const out: number[] = [];
  for (let k = 0; k < toks.length; k++) if (!isSpace(toks[k]!) && f(toks[k]!)) out.push(k);
  return out;
}

/** Apply one mutator in place; returns false when it found nothing to mutate. */
export function mutateOnce(toks: string[], rng: Rng, m: MutatorName): boolean {
  const any = where(toks, () => true);
  if (!any.length) return false;
  const replaceOne = (sel: number[], f: (old: string) => string): boolean => {
    if (!sel.length) return false;
    const k = rng.pick(sel);
    toks[k] = f(toks[k]!);
    return true;
  };
  switch (m) {
    case 'drop':
      toks.splice(rng.pick(any), 1);
      return true;
    case 'dup': {
      const k = rng.pick(any);
      toks.splice(k, 0, toks[k]!, ...(rng.chance(0.5) ? [' '] : []));
      return true;
    }
    case 'swap': {
      const a = rng.int(any.length - 1);
      if (any.length < 2) return false;
      const [i, j] = [any[a]!, any[a + 1]!];
      [toks[i], toks[j]] = [toks[j]!, toks[i]!];
      return true;
    }
    case 'type':
      return replaceOne(where(toks, (t) => TYPE_RE.test(t)), () => rng.pick(TYPES));
    case 'modifier': {
      const sel = where(toks, (t) => t.startsWith('.') && !TYPE_RE.test(t) && !SPACE_RE.test(t) && t.length > 1);
      const form = rng.int(3);
      if (form === 0) return replaceOne(sel, () => rng.pick(MODIFIERS));
      if (form === 1 && sel.length) {
        toks.splice(rng.pick(sel), 1);
        return true;
      }
      // Insert a modifier after an opcode-looking token (an identifier followed by a dotted token).
      const ops = where(toks, (t) => /^[a-z][a-z0-9_]*$/.test(t));
      if (!ops.length) return false;
      toks.splice(rng.pick(ops) + 1, 0, rng.pick(MODIFIERS));
      return true;
    }
    case 'space': {
      const sel = where(toks, (t) => SPACE_RE.test(t));
      if (sel.length && rng.chance(0.25)) {
        toks.splice(rng.pick(sel), 1);
        return true;
      }
      return replaceOne(sel, () => rng.pick(SPACES));
    }
    case 'vector': {
      const sel = where(toks, (t) => /^\.v\d+$/.test(t));
      if (sel.length && rng.chance(0.7)) return replaceOne(sel, () => rng.pick(VECTORS));
      const mem = where(toks, (t) => t === 'ld' || t === 'st' || t === 'mov');
      if (!mem.length) return false;
      toks.splice(rng.pick(mem) + 1, 0, rng.pick(VECTORS));
      return true;
    }
    case 'immediate':
      return replaceOne(where(toks, (t) => /^(?:0[xXfFdD][0-9a-fA-F]+U?|\d[\d.eE+-]*U?)$/.test(t)), () => rng.pick(BOUNDARIES));
    case 'register': {
      const regs = where(toks, (t) => /^%[A-Za-z_]\w*$/.test(t));
      if (regs.length < 2) return false;
      const from = rng.pick(regs);
      toks[from] = toks[rng.pick(regs)]!;
      return true;
    }
    case 'header': {
      const form = rng.int(4);
      const find = (d: string): number => toks.indexOf(d);
      const next = (k: number): number => {
        let j = k + 1;
        while (j < toks.length && isSpace(toks[j]!)) j++;
        return j;
      };
      if (form === 0 && find('.version') >= 0) toks[next(find('.version'))] = rng.pick(VERSIONS);
      else if (form === 1 && find('.target') >= 0) toks[next(find('.target'))] = rng.pick(TARGETS);
      else if (form === 2 && find('.address_size') >= 0) toks[next(find('.address_size'))] = rng.pick(['16', '32', '64', '128']);
      else {
        const d = find(rng.pick(['.version', '.target', '.address_size']));
        if (d < 0) return false;
        toks.splice(d, next(d) - d + 1);
      }
      return true;
    }
    case 'truncate':
      toks.length = rng.pick(any);
      return true;
    case 'line': {
      const nl = toks.flatMap((t, k) => (t.includes('\n') ? [k] : []));
      if (nl.length < 2) return false;
      const a = rng.int(nl.length - 1);
      const [s, e] = [nl[a]! + 1, nl[a + 1]! + 1];
      if (rng.chance(0.5)) toks.splice(s, e - s);
      else toks.splice(s, 0, ...toks.slice(s, e));
      return true;
    }
  }
}

const WEIGHTED: MutatorName[] = [
  'drop', 'dup', 'swap', 'type', 'type', 'type', 'modifier', 'modifier', 'modifier', 'space', 'space', 'vector', 'vector',
  'immediate', 'immediate', 'immediate', 'register', 'register', 'register', 'header', 'truncate', 'line',
];

/** One to three mutations of `text`; returns the mutant and the mutators applied. */
export function mutatePtx(text: string, rng: Rng): { text: string; mutators: MutatorName[] } {
  const toks = tokenizeText(text);
  const n = 1 + (rng.chance(0.3) ? 1 : 0) + (rng.chance(0.1) ? 1 : 0);
  const applied: MutatorName[] = [];
  for (let k = 0, tries = 0; k < n && tries < 20; tries++) {
    const m = rng.pick(WEIGHTED);
    if (mutateOnce(toks, rng, m)) {
      applied.push(m);
      k++;
    }
  }
  return { text: toks.join(''), mutators: applied };
}
