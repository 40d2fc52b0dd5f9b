/**
 * Grammar-based PTX generation for `fuzz-ptx`: one kernel per seed, built from instruction templates that
 * follow the PTX ISA's operand typing (registers of the instruction type's size, immediates in range,
 * addresses in the instruction's state space), with forward branches and labels. Most programs are
 * valid; the mutators (mutate.ts) turn them, and corpus files, into the near-misses ptxas rejects.
 */
import { Rng } from './rng.js';

/** Register classes every generated kernel declares: name prefix, PTX type, count. */
const CLASSES = {
  p: { decl: '.pred', prefix: '%p', n: 8 },
  h: { decl: '.b16', prefix: '%rs', n: 8 },
  r: { decl: '.b32', prefix: '%r', n: 16 },
  d: { decl: '.b64', prefix: '%rd', n: 16 },
  f: { decl: '.f32', prefix: '%f', n: 16 },
  g: { decl: '.f64', prefix: '%fd', n: 8 },
} as const;
type Cls = keyof typeof CLASSES;

/** Instruction type -> register class of its operands. */
const TYPE_CLASS: Record<string, Cls> = {
  pred: 'p', b16: 'h', u16: 'h', s16: 'h', b32: 'r', u32: 'r', s32: 'r', b64: 'd', u64: 'd', s64: 'd', f32: 'f', f64: 'g',
};

const INT32 = ['u32', 's32'] as const;
const INT64 = ['u64', 's64'] as const;
const INTS = ['u16', 's16', 'u32', 's32', 'u64', 's64'] as const;
const BITS = ['b16', 'b32', 'b64'] as const;
const FLOATS = ['f32', 'f64'] as const;
const INT_CMP = ['eq', 'ne', 'lt', 'le', 'gt', 'ge'] as const;
const UNS_CMP = ['lo', 'ls', 'hi', 'hs'] as const;
const FLT_CMP = ['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'equ', 'neu', 'ltu', 'leu', 'gtu', 'geu', 'num', 'nan'] as const;
const FRND = ['rn', 'rz', 'rm', 'rp'] as const;

class Gen {
  readonly lines: string[] = [];
  private labelNo = 0;
  /** Labels branched to but not yet placed (placed later, so every branch is forward). */
  private readonly pending: string[] = [];
  constructor(readonly rng: Rng) {}

  reg(c: Cls, from = 1): string {
    const k = CLASSES[c];
    return `${k.prefix}${from + this.rng.int(k.n - from)}`;
  }
  /** A source of type t: usually a register, sometimes an immediate in range. */
  src(t: string, immOk = true): string {
    const c = TYPE_CLASS[t]!;
    if (!immOk || c === 'p' || !this.rng.chance(0.3)) return this.reg(c);
    return this.imm(t);
  }
  imm(t: string): string {
    const r = this.rng;
    if (t === 'f32') return r.chance(0.5) ? `0f${(r.int(0x10000) * 0x10000 + r.int(0x10000)).toString(16).toUpperCase().padStart(8, '0')}` : `${r.int(100)}.${r.int(10)}`;
    if (t === 'f64') return r.chance(0.5) ? `0d${[0, 1, 2, 3].map(() => r.int(0x10000).toString(16).padStart(4, '0')).join('').toUpperCase()}` : `${r.int(1000)}.5`;
    const bits = Number(t.slice(1));
    const signed = t[0] === 's';
    const max = signed ? 2n ** BigInt(bits - 1) - 1n : 2n ** BigInt(bits) - 1n;
    const v = r.pick([0n, 1n, 2n, 7n, 31n, 255n, max, signed ? -1n : max - 1n, BigInt(r.int(1000))]);
    return r.chance(0.3) && v >= 0n ? `0x${v.toString(16)}` : v.toString();
  }
  pred(): string {
    return this.reg('p');
  }
  guard(): string {
    return this.rng.chance(0.1) ? `@${this.rng.chance(0.3) ? '!' : ''}${this.pred()} ` : '';
  }
  emit(s: string): void {
    this.lines.push(`  ${this.guard()}${s};`);
  }

  /** One random instruction (or a branch / label). */
  instruction(): void {
    const r = this.rng;
    switch (r.int(22)) {
      case 0: case 1: {
        const t = r.pick(INTS);
        const op = r.pick(['add', 'sub', 'min', 'max']);
        const c = TYPE_CLASS[t]!;
        this.emit(`${op}.${t} ${this.reg(c)}, ${this.src(t)}, ${this.src(t)}`);
        break;
      }
      case 2: {
        const t = r.pick([...INT32, ...INT64]);
        const c = TYPE_CLASS[t]!;
        const m = r.pick(['lo', 'hi', 'wide']);
        if (m === 'wide') {
          if (t.endsWith('64')) return this.emit(`mul.lo.${t} ${this.reg(c)}, ${this.src(t)}, ${this.src(t)}`);
          return this.emit(`mul.wide.${t} ${this.reg('d')}, ${this.src(t)}, ${this.src(t)}`);
        }
        this.emit(`mul.${m}.${t} ${this.reg(c)}, ${this.src(t)}, ${this.src(t)}`);
        break;
      }
      case 3: {
        const t = r.pick(INT32);
        this.emit(`mad.lo.${t} ${this.reg('r')}, ${this.src(t)}, ${this.src(t)}, ${this.src(t)}`);
        break;
      }
      case 4: {
        const t = r.pick(BITS);
        const c = TYPE_CLASS[t]!;
        const op = r.pick(['and', 'or', 'xor']);
        this.emit(`${op}.${t} ${this.reg(c)}, ${this.src(t)}, ${this.src(t)}`);
        break;
      }
      case 5: {
        const t = r.pick([...BITS, 'u32', 's64']);
        const c = TYPE_CLASS[t]!;
        const op = r.pick(['shl', 'shr']);
        const tt = op === 'shl' && !t.startsWith('b') ? `b${t.slice(1)}` : t;
        this.emit(`${op}.${tt} ${this.reg(c)}, ${this.src(tt)}, ${this.src('u32')}`);
        break;
      }
      case 6: case 7: {
        const t = r.pick(FLOATS);
        const c = TYPE_CLASS[t]!;
        const op = r.pick(['add', 'sub', 'mul']);
        const mods = `${r.chance(0.4) ? `.${r.pick(FRND)}` : ''}${t === 'f32' && r.chance(0.3) ? '.ftz' : ''}${t === 'f32' && r.chance(0.2) ? '.sat' : ''}`;
        this.emit(`${op}${mods}.${t} ${this.reg(c)}, ${this.src(t)}, ${this.src(t)}`);
        break;
      }
      case 8: {
        const t = r.pick(FLOATS);
        const c = TYPE_CLASS[t]!;
        this.emit(`fma.${r.pick(FRND)}.${t} ${this.reg(c)}, ${this.src(t)}, ${this.src(t)}, ${this.src(t)}`);
        break;
      }
      case 9: {
        const t = r.pick(FLOATS);
        const c = TYPE_CLASS[t]!;
        const form = r.int(4);
        if (form === 0) this.emit(`div.${t === 'f32' && r.chance(0.3) ? 'approx' : 'rn'}.${t} ${this.reg(c)}, ${this.src(t)}, ${this.src(t)}`);
        else if (form === 1) this.emit(`sqrt.rn.${t} ${this.reg(c)}, ${this.src(t, false)}`);
        else if (form === 2) this.emit(`${r.pick(['min', 'max'])}.${t} ${this.reg(c)}, ${this.src(t)}, ${this.src(t)}`);
        else this.emit(`${r.pick(['abs', 'neg'])}.${t} ${this.reg(c)}, ${this.src(t, false)}`);
        break;
      }
      case 10: {
        if (r.chance(0.5)) {
          const t = r.pick([...INTS, 'b32']);
          // .b types compare for (in)equality only; lo/ls/hi/hs are unsigned comparisons.
          const cmp = t.startsWith('b') ? r.pick(['eq', 'ne']) : t.startsWith('u') && r.chance(0.5) ? r.pick(UNS_CMP) : r.pick(INT_CMP);
          this.emit(`setp.${cmp}.${t} ${this.pred()}, ${this.src(t)}, ${this.src(t)}`);
        } else {
          const t = r.pick(FLOATS);
          this.emit(`setp.${r.pick(FLT_CMP)}.${t} ${this.pred()}, ${this.src(t)}, ${this.src(t)}`);
        }
        break;
      }
      case 11: {
        const t = r.pick(['u32', 's32', 'b32', 'u64', 'f32', 'f64'] as const);
        const c = TYPE_CLASS[t]!;
        this.emit(`selp.${t} ${this.reg(c)}, ${this.src(t)}, ${this.src(t)}, ${this.pred()}`);
        break;
      }
      case 12: {
        const pairs: Array<[string, string, string]> = [
          ['f32', 's32', 'rn'], ['f32', 'u32', 'rz'], ['s32', 'f32', 'rzi'], ['u32', 'f32', 'rni'], ['f64', 'f32', ''],
          ['f32', 'f64', 'rn'], ['u64', 'u32', ''], ['s64', 's32', ''], ['u32', 'u64', ''], ['u16', 'u32', ''], ['s32', 's16', ''],
          ['f64', 's64', 'rn'], ['s64', 'f64', 'rzi'],
        ];
        const [d, s, m] = r.pick(pairs);
        this.emit(`cvt${m ? `.${m}` : ''}.${d}.${s} ${this.reg(TYPE_CLASS[d]!)}, ${this.src(s, false)}`);
        break;
      }
      case 13: {
        const t = r.pick(['u32', 'b32', 'u64', 'f32', 'f64', 'u16', 'pred'] as const);
        const c = TYPE_CLASS[t]!;
        this.emit(`mov.${t} ${this.reg(c)}, ${t === 'pred' ? this.pred() : this.src(t)}`);
        break;
      }
      case 14: {
        // Global memory through the output pointer.
        const t = r.pick(['u32', 's32', 'f32', 'u64', 'f64', 'u8', 'u16'] as const);
        const vt = t === 'u8' ? 'u16' : t;
        const c = TYPE_CLASS[vt]!;
        const off = 8 * r.int(16);
        if (r.chance(0.5)) this.emit(`ld.global.${t} ${this.reg(c)}, [%rd1+${off}]`);
        else this.emit(`st.global.${t} [%rd2+${off}], ${this.reg(c)}`);
        break;
      }
      case 15: {
        const t = r.pick(['u32', 'f32', 'b64'] as const);
        const c = TYPE_CLASS[t]!;
        const off = 8 * r.int(16);
        if (r.chance(0.3)) {
          // At most 128 bits per vector access (wider needs sm_100).
          const v = t === 'b64' ? 2 : r.pick([2, 4]);
          const regs = Array.from({ length: v }, () => this.reg(c)).join(', ');
          const align = v * (t === 'b64' ? 8 : 4);
          if (r.chance(0.5)) this.emit(`ld.shared.v${v}.${t} {${regs}}, [sh+${Math.floor(off / align) * align}]`);
          else this.emit(`st.shared.v${v}.${t} [sh+${Math.floor(off / align) * align}], {${regs}}`);
        } else if (r.chance(0.5)) this.emit(`ld.shared.${t} ${this.reg(c)}, [sh+${off}]`);
        else this.emit(`st.shared.${t} [sh+${off}], ${this.reg(c)}`);
        break;
      }
      case 16: {
        const op = r.pick(['popc', 'clz', 'brev', 'not', 'cnot']);
        const t = op === 'brev' || op === 'not' ? r.pick(['b32', 'b64'] as const) : op === 'cnot' ? 'b32' : r.pick(['b32', 'b64'] as const);
        const dst = op === 'popc' || op === 'clz' ? this.reg('r') : this.reg(TYPE_CLASS[t]!);
        this.emit(`${op}.${t} ${dst}, ${this.src(t, false)}`);
        break;
      }
      case 17: {
        const t = r.pick(['u32', 's32'] as const);
        // bfe's position and length immediates are 0..255.
        if (r.chance(0.5)) this.emit(`bfe.${t} ${this.reg('r')}, ${this.src(t)}, ${r.chance(0.5) ? this.reg('r') : r.int(32)}, ${r.chance(0.5) ? this.reg('r') : r.int(33)}`);
        else this.emit(`prmt.b32 ${this.reg('r')}, ${this.src('b32')}, ${this.src('b32')}, ${this.src('b32')}`);
        break;
      }
      case 18: {
        const form = r.int(3);
        if (form === 0) this.emit(`shfl.sync.${r.pick(['bfly', 'up', 'down', 'idx'])}.b32 ${this.reg('r')}, ${this.reg('r')}, ${r.int(32)}, 31, -1`);
        else if (form === 1) this.emit(`vote.sync.ballot.b32 ${this.reg('r')}, ${this.pred()}, -1`);
        else {
          const op = r.pick(['add', 'min', 'max', 'exch', 'and']);
          this.emit(`atom.global.${op}.${op === 'exch' || op === 'and' ? 'b32' : 'u32'} ${this.reg('r')}, [%rd2+${4 * r.int(8)}], ${this.src('u32')}`);
        }
        break;
      }
      case 19: {
        const l = `$L_${this.labelNo++}`;
        this.pending.push(l);
        this.lines.push(`  ${r.chance(0.8) ? `@${r.chance(0.3) ? '!' : ''}${this.pred()} ` : ''}bra${r.chance(0.3) ? '.uni' : ''} ${l};`);
        break;
      }
      case 20: {
        if (this.pending.length) this.lines.push(`${this.pending.shift()!}:`);
        break;
      }
      default: {
        const s = r.pick(['%tid.x', '%tid.y', '%ntid.x', '%ctaid.x', '%laneid', '%nctaid.x']);
        this.emit(`mov.u32 ${this.reg('r')}, ${s}`);
      }
    }
  }

  finish(): void {
    for (const l of this.pending) this.lines.push(`${l}:`);
    this.pending.length = 0;
  }
}

/** One generated kernel (valid PTX in the common case; the oracle decides). */
export function generatePtx(seed: number): string {
  const rng = new Rng(seed);
  const g = new Gen(rng);
  const out = ['.version 8.0', '.target sm_90', '.address_size 64', ''];
  out.push(`.visible .entry fuzz_${seed}(.param .u64 fuzz_in, .param .u64 fuzz_out, .param .u32 fuzz_n)`, '{');
  for (const k of Object.values(CLASSES)) out.push(`  .reg ${k.decl} ${k.prefix}<${k.n}>;`);
  out.push('  .shared .align 16 .b8 sh[256];');
  out.push('  ld.param.u64 %rd1, [fuzz_in];', '  ld.param.u64 %rd2, [fuzz_out];', '  ld.param.u32 %r1, [fuzz_n];');
  out.push('  cvta.to.global.u64 %rd1, %rd1;', '  cvta.to.global.u64 %rd2, %rd2;');
  const n = 4 + rng.int(28);
  for (let k = 0; k < n; k++) g.instruction();
  g.finish();
  out.push(...g.lines, '  ret;', '}', '');
  return out.join('\n');
}
