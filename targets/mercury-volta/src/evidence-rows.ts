// Rows learned from ptxas 13.0 output (no nvdisasm text exists for them here): each is a sibling of a derived
// row (src/rows.ts, generated from ../shared/golden) widened by the bits real ptxas words set and the golden
// vectors never did, or, for forms the golden data has no example of (the sm_89+ fp8 conversions), a new row.
// The evidence for each is a small PTX program compiled by ptxas whose result the word must produce: the
// lifted word runs in the interpreter and must give the PTX path's bytes (evidence-rows.test.ts decodes the
// recorded words; the conformance harness's `zluda-sass` suites run them). Names follow nvdisasm's spelling
// where it is known (FSETP compare codes, MUFU functions, .H1_H1 swizzles, F2FP fp8 forms as CUDA 12+ print
// them); a bit whose meaning the evidence cannot tell is kept as a hidden bit (round-trips, not printed).
// Kept apart from rows.ts so that re-running the derivation does not drop them; a row whose base row has
// disappeared from the derived table is simply not produced (the tests then fail loudly).
import type { RowSpec, SlotSpec } from '@ptxforge/sass';
import { VOLTA_ROWS } from './rows.js';

type Run = [number, number];

const ALL = (1n << 128n) - 1n;
const hex = (x: bigint): string => `0x${x.toString(16).padStart(32, '0')}`;
const bits = (runs: readonly Run[]): bigint => {
  let m = 0n;
  for (const [p, n] of runs) for (let b = p; b < p + n; b++) m |= 1n << BigInt(b);
  return m;
};

interface Edit {
  /** Bits the variant sets in its constant value (they stay in the mask). */
  set?: Run[];
  /** Bits the variant no longer holds constant (they become slots or hidden bits). */
  free?: Run[];
  /** Slots replacing the base row's slots that overlap them (by first bit), or added. */
  slots?: SlotSpec[];
  /** Replaces all of the base row's slots. */
  replaceSlots?: SlotSpec[];
  hidden?: Run[];
  addFixed?: string[];
  dropFixed?: string[];
  /** Printing order; tokens of the base's order not listed keep their place after these. */
  order?: string[];
}

/** Derived rows an evidence row replaces (it prints every word they claim the same way, and more). */
export const SUPERSEDED = new Set<RowSpec>();

/** A wider sibling of `base` that takes its place (encoding then keeps ptxas's hidden bits too). */
function widen(base: RowSpec, e: Edit): RowSpec {
  SUPERSEDED.add(base);
  return variant(base, e);
}

function variant(base: RowSpec, e: Edit): RowSpec {
  let mask = BigInt(base.mask);
  let value = BigInt(base.value);
  if (e.free) {
    mask &= ~bits(e.free);
    value &= ~bits(e.free);
  }
  if (e.hidden) mask &= ~bits(e.hidden);
  if (e.set) value |= bits(e.set);
  let slots = e.replaceSlots ? [...e.replaceSlots] : base.slots.map((s) => ({ bits: s.bits.map((r) => [...r] as Run), map: { ...s.map } }));
  for (const s of e.slots ?? []) {
    const i = slots.findIndex((x) => x.bits[0]![0] === s.bits[0]![0]);
    if (i >= 0) slots[i] = s;
    else slots.push(s);
  }
  slots = slots.filter((s) => s.bits.length > 0);
  const fixed = base.fixed.filter((t) => !(e.dropFixed ?? []).includes(t)).concat(e.addFixed ?? []);
  const tokens = new Set<string>([...fixed, ...slots.flatMap((s) => Object.values(s.map).flat()), ...base.derived.map((d) => d.token)]);
  const order = [...(e.order ?? []), ...base.order.filter((t) => !(e.order ?? []).includes(t))].filter((t) => tokens.has(t));
  for (const t of tokens) if (!order.includes(t)) order.push(t);
  return {
    ...base,
    archs: [...base.archs],
    slots,
    fixed,
    order,
    hidden: e.hidden ? [...(base.hidden ?? []), ...e.hidden] : base.hidden,
    mask: hex(mask & ALL),
    value: hex(value),
  };
}

const rowsOf = (op: number, sig?: string, pred: (r: RowSpec) => boolean = () => true): RowSpec[] =>
  VOLTA_ROWS.filter((r) => r.op === op && (sig === undefined || r.sig === sig) && pred(r));

const flag = (bit: number, token: string): SlotSpec => ({ bits: [[bit, 1]], map: { 0: [], 1: [token] } });

/** FSETP/FSET/HSET2 compare codes in their 4-bit field (bits 76..79), nvdisasm's names. */
const COMPARE: Record<number, string[]> = Object.fromEntries(
  ['F', 'LT', 'EQ', 'LE', 'GT', 'NE', 'GE', 'NUM', 'NAN', 'LTU', 'EQU', 'LEU', 'GTU', 'NEU', 'GEU', 'T'].map((c, i) => [i, [`m:${c}`]]),
);
const COMPARE_ORDER = Object.values(COMPARE).flat();
const BOOL: SlotSpec = { bits: [[74, 2]], map: { 0: ['m:AND'], 1: ['m:OR'], 2: ['m:XOR'] } };

function newRow(r: Omit<RowSpec, 'mask' | 'value' | 'derived'> & { set: Run[] }): RowSpec {
  // everything not an operand, slot, guard or control bit is constant
  const variable = bits([[12, 4], [105, 21], ...r.atoms.flatMap((a) => a.parts as Run[]), ...r.slots.flatMap((s) => s.bits as Run[])]);
  const { set, ...rest } = r;
  return { ...rest, derived: [], mask: hex(ALL & ~variable), value: hex(bits(set) | BigInt(r.op)) };
}

const F2FP_OP = 0x23e;
/** F2I destination types by signedness (bit 72) + 2 × size code (bits 75..76); S32 is the default nvdisasm omits. */
const F2I_DEST: Record<number, string[]> = { 0: ['m:U8^0'], 1: ['m:S8^0'], 2: ['m:U16^0'], 3: ['m:S16^0'], 4: ['m:U32^0'], 5: [], 6: ['m:U64^0'], 7: ['m:S64^0'] };
const MEMORY = new Set(['LD', 'LDG', 'LDS', 'LDL', 'ST', 'STG', 'STS', 'STL']);
/** The memory access size code in bits 73..75. */
const SIZE_CODE: Record<string, string[]> = { 0: ['m:U8^0'], 1: ['m:S8^0'], 2: ['m:U16^0'], 3: ['m:S16^0'], 4: [], 5: ['m:64'], 6: ['m:128'] };

/** The sm_90 ATOMG joint slot over type 73..75, scope 77..80 and operation 87..90 (see EVIDENCE_ROWS). */
function atomgSlot(base: RowSpec): SlotSpec {
  const old = base.slots[0]!;
  const map: Record<number, string[]> = {};
  // the golden combinations, bit 78 (constant 1 in the derived row) now part of the scope field
  for (const [k, toks] of Object.entries(old.map)) {
    // (f64 add is its own opcode on sm_90, 0x9a3 below: the golden F64 combination came from the sm_80/86 words)
    if (toks.includes('m:F64^0')) continue;
    const v = Number(k);
    const scope = ((v >> 3) & 1) | 2 | (((v >> 4) & 3) << 2);
    map[(v & 7) | (scope << 3) | ((v >> 6) << 7)] = [...toks];
  }
  addAtomCombinations(map);
  return { bits: [[73, 3], [77, 4], [87, 4]], map };
}

/**
 * The integer operation × scope × type combinations of the sm_90 ATOM/ATOMG joint slot (type 73..75, scope 77..80,
 * operation 87..90) that ptxas 13 writes, added to `map` where the golden data has no entry: operations 0 ADD, 1 MIN,
 * 2 MAX, 3 INC, 4 DEC, 5 AND, 6 OR, 7 XOR, 8 EXCH; scopes 5 = CTA (printed SM), 7 = GPU, 10 = SYS; types 0 = 32-bit,
 * 1 = S32, 2 = 64 (u64 add/min/max/exch and b64 and/or/xor: `atom{,.global}.{and,or,xor}.{cta,gpu,sys}.b64` words
 * `...0207798a / ...0a9ea1c6` ff.), 3 = S64.
 */
function addAtomCombinations(map: Record<number, string[]>): void {
  const OPS = ['m:ADD', 'm:MIN', 'm:MAX', 'm:INC', 'm:DEC', 'm:AND', 'm:OR', 'm:XOR', 'm:EXCH'];
  const SCOPES: Record<number, string> = { 5: 'm:SM', 7: 'm:GPU', 10: 'm:SYS' };
  const TYPES: Array<[number, string[], number[]]> = [
    [0, [], [0, 1, 2, 3, 4, 5, 6, 7, 8]],
    [1, ['m:S32^0'], [1, 2]],
    [2, ['m:64'], [0, 1, 2, 5, 6, 7, 8]],
    [3, ['m:S64^0'], [1, 2]],
  ];
  for (const [type, typeToks, ops] of TYPES) {
    for (const op of ops) {
      for (const [scope, scopeTok] of Object.entries(SCOPES)) {
        const v = type | (Number(scope) << 3) | (op << 7);
        map[v] ??= [OPS[op]!, ...typeToks, scopeTok];
      }
    }
  }
}

/** The sm_90 generic ATOM joint slot: sm_80/86's golden combinations (same field layout) plus ptxas 13's. */
function atomSlot(base: RowSpec): SlotSpec {
  const old = base.slots[0]!;
  const map: Record<number, string[]> = {};
  for (const [k, toks] of Object.entries(old.map)) map[Number(k)] = [...toks];
  addAtomCombinations(map);
  return { bits: old.bits.map((r) => [...r] as Run), map };
}

export const EVIDENCE_ROWS: RowSpec[] = [
  // IMAD.WIDE (signed): bit 73 clear is .U32 (golden); ptxas sets it for mul.wide.s32 / mad.wide.s32 /
  // mul24.hi.s32, whose results only the signed product gives.
  ...rowsOf(0x225, undefined, (r) => r.fixed.includes('m:WIDE') && r.fixed.includes('m:U32^0')).map((r) =>
    variant(r, { set: [[73, 1]], dropFixed: ['m:U32^0'] }),
  ),
  // FSETP: the golden vectors hold a few combinations of one joint slot; the fields are independent (compare code
  // 76..79, combine 74..75, FTZ 80, |a| 73, |b| 62, -b 63, !c 90). setp.gt.ftz / setp.leu / sqrt.rn.ftz need
  // combinations the golden data lacks.
  ...rowsOf(0x20b, 'P,P,R,R,P').map((r) =>
    widen(r, {
      replaceSlots: [{ bits: [[76, 4]], map: COMPARE }, flag(80, 'm:FTZ'), BOOL, flag(73, '2:abs'), flag(62, '3:abs'), flag(63, '3:neg'), flag(90, '4:not')],
      order: [...COMPARE_ORDER, 'm:FTZ', 'm:AND', 'm:OR', 'm:XOR', '2:abs', '3:abs', '3:neg', '4:not'],
    }),
  ),
  // FSETP with an f32 immediate (ex2.approx's range check: FSETP.GEU.AND P0, PT, R0, -126, PT)
  ...rowsOf(0x80b, 'P,P,R,F,P').map((r) =>
    widen(r, {
      free: [[75, 1]],
      replaceSlots: [{ bits: [[76, 4]], map: COMPARE }, flag(80, 'm:FTZ'), BOOL, flag(73, '2:abs'), flag(90, '4:not')],
      order: [...COMPARE_ORDER, 'm:FTZ', 'm:AND', 'm:OR', 'm:XOR', '2:abs', '4:not'],
    }),
  ),
  // I2IP: bit 77 selects 16-bit results (cvt.pack.sat.{u16,s16}.s32, Rc = RZ); ptxas 13 sets bit 74 in every
  // I2IP it writes (the CUDA 11 golden words never do, for the same text): kept as a hidden bit.
  ...rowsOf(0x239, 'R,R,R,R').map((r) =>
    widen(r, {
      free: [[77, 1]],
      hidden: [[74, 1]],
      replaceSlots: [{ bits: [[76, 2]], map: { 0: ['m:U8^0'], 1: ['m:S8^0'], 2: ['m:U16^0'], 3: ['m:S16^0'] } }],
      order: ['m:U8^0', 'm:S8^0', 'm:U16^0', 'm:S16^0'],
    }),
  ),
  // MUFU with an immediate: the function in bits 74..77 as the register form has it; the 64H functions take the
  // high word of an f64, the others an f32 (div.full's NaN path: MUFU.RSQ R0, -QNAN).
  ...rowsOf(0x908, 'R,F').map((r) =>
    widen(r, {
      free: [[74, 4]],
      dropFixed: ['m:RCP64H'],
      replaceSlots: [{ bits: [[74, 4]], map: { 6: ['m:RCP64H'], 7: ['m:RSQ64H'] } }],
    }),
  ),
  ...rowsOf(0x908, 'R,F').map((r) => ({
    ...variant(r, {
      free: [[74, 4]],
      dropFixed: ['m:RCP64H'],
      replaceSlots: [{ bits: [[74, 4]], map: { 0: ['m:COS'], 1: ['m:SIN'], 2: ['m:EX2'], 3: ['m:LG2'], 4: ['m:RCP'], 5: ['m:RSQ'], 8: ['m:SQRT'], 9: ['m:TANH'] } }],
    }),
    atoms: r.atoms.map((a) => (a.key === '1' ? { ...a, enc: 'f32' as const } : a)),
  })),
  // Loads: type code 3 of the 3-bit size field is .S16 (ld.s16: the sign-extending 16-bit load)
  ...VOLTA_ROWS.filter((r) => ['LD', 'LDG', 'LDS', 'LDL'].includes(r.name) && r.slots.some((s) => s.bits.length === 1 && s.bits[0]![0] === 73 && s.bits[0]![1] === 3 && s.map[2] && !s.map[3])).map(
    (r) => {
      const s = r.slots.find((x) => x.bits.length === 1 && x.bits[0]![0] === 73 && x.bits[0]![1] === 3)!;
      return widen(r, { slots: [{ bits: [[73, 3]], map: { ...s.map, 3: ['m:S16^0'] } }] });
    },
  ),
  // Memory rows whose golden examples split the 3-bit size code 73..75 into a 64 bit and a 2-bit field: the
  // code as one field (st.s16 from ptxas 13 is code 3, which the split fields read as .64.U16)
  ...VOLTA_ROWS.filter(
    (r) =>
      MEMORY.has(r.name) &&
      r.slots.some((s) => s.bits.length === 1 && s.bits[0]![0] === 73 && s.bits[0]![1] === 1 && s.map[1]?.[0] === 'm:64') &&
      r.slots.some((s) => s.bits.length === 1 && s.bits[0]![0] === 74 && s.bits[0]![1] === 2 && s.map[3]?.[0] === 'm:128'),
  ).map((r) =>
    widen(r, {
      replaceSlots: [
        ...r.slots.filter((s) => !(s.bits.length === 1 && (s.bits[0]![0] === 73 || s.bits[0]![0] === 74))),
        { bits: [[73, 3]], map: SIZE_CODE },
      ],
    }),
  ),
  // F2I: the destination type is signedness (72) and size (75..76), the source f16/f32 in 84..85 where the row
  // has it free; the golden rows learned a few joint values (cvt.rni.u16.f32, F2I.U16.NTZ, read as U32.S16)
  ...rowsOf(0x305, 'R,R').map((r) => {
    const srcFree = !(BigInt(r.mask) & bits([[84, 2]]));
    const map: Record<string, string[]> = {};
    for (let d = 0; d < 8; d++) {
      const dt = F2I_DEST[d]!;
      for (const src of srcFree ? [1, 2] : [0]) {
        const st = src === 1 ? [`m:F16^${dt.length}`] : [];
        map[String(d | (src << 3))] = [...dt, ...st];
      }
    }
    const destBits: Run[] = srcFree ? [[72, 1], [75, 2], [84, 2]] : [[72, 1], [75, 2]];
    return widen(r, {
      free: [[72, 1], [75, 6], [60, 1], [62, 2], ...(srcFree ? ([[84, 2]] as Run[]) : [])],
      replaceSlots: [
        { bits: destBits, map },
        flag(77, 'm:NTZ'),
        { bits: [[78, 2]], map: { 0: [], 1: ['m:FLOOR'], 2: ['m:CEIL'], 3: ['m:TRUNC'] } },
        flag(80, 'm:FTZ'),
        flag(62, '1:abs'),
        flag(63, '1:neg'),
        ...(srcFree ? [flag(60, '1.H1')] : []),
      ],
      order: ['m:FTZ', ...Object.values(F2I_DEST).flat(), 'm:F16^1', 'm:FLOOR', 'm:CEIL', 'm:TRUNC', 'm:F16^0', 'm:NTZ', '1:abs', '1:neg', '1.H1'],
    });
  }),
  // S2R (sm_90): the special register is the 8-bit field 72..79 as on sm_80 (the golden vectors split it into the
  // few values they hold). ptxas's cvta.shared on sm_90 reads SR 47, the high word of the shared window's generic
  // address (`S2R R7, SR_SWINHI`; the low word is CgaCtaId << 24 plus the offset).
  ...rowsOf(0x919, 'R,N', (r) => r.archs.includes('sm_90')).map((r) => {
    const sm80 = rowsOf(0x919, 'R,N', (x) => x.archs.includes('sm_80'))[0]!;
    const field = sm80.slots.find((x) => x.bits.length === 1 && x.bits[0]![0] === 72 && x.bits[0]![1] === 8)!;
    return widen(r, { free: [[72, 8]], replaceSlots: [{ bits: [[72, 8]], map: { ...field.map, 47: ['1=SR_SWINHI'] } }] });
  }),
  // VIMNMX (sm_90): bit 90 negates the select predicate (max.s32: VIMNMX R, R, R, !PT)
  ...rowsOf(0x248, 'R,R,R,P').map((r) => widen(r, { free: [[90, 1]], slots: [flag(90, '3:not')] })),
  // HFMA2 on bf16 pairs (fma.rn.bf16x2): bit 85
  ...rowsOf(0x235, 'R,R,R,R').map((r) => variant(r, { set: [[85, 1]], addFixed: ['m:BF16_V2'], order: ['m:MMA', 'm:BF16_V2'] })),
  // IDP: a's and b's signedness in bits 73 / 74, the mode in 76..77 (4A; 2A with b's low or high byte pair: dp2a.lo
  // / dp2a.hi); a's type is S8/U8 in 4A and S16/U16 in 2A (the golden rows guessed it from other fields).
  ...rowsOf(0x226, 'R,R,R,R').map((r) => {
    const map: Record<string, string[]> = {};
    for (const mode of [0, 1, 3]) {
      for (let s = 0; s < 4; s++) {
        const w = mode === 0 ? '8' : '16';
        const aT = `m:${s & 1 ? 'S' : 'U'}${w}^0`;
        const bT = `m:${s & 2 ? 'S' : 'U'}8^1`;
        map[String(s | (mode << 2))] = mode === 0 ? ['m:4A', aT, bT] : ['m:2A', mode === 1 ? 'm:LO' : 'm:HI', aT, bT];
      }
    }
    const v = widen(r, { free: [[77, 1]], replaceSlots: [{ bits: [[73, 2], [76, 2]], map }], order: ['m:2A', 'm:4A', 'm:LO', 'm:HI', 'm:S8^0', 'm:U8^0', 'm:S16^0', 'm:U16^0', 'm:S8^1', 'm:U8^1'] });
    return { ...v, derived: [] };
  }),
  // HSET2: all compare codes, and both broadcast swizzles of each source (set.gtu.u32.f16: R0.H1_H1)
  ...rowsOf(0x233, 'R,R,R,P').map((r) =>
    widen(r, {
      free: [[60, 1], [74, 1]],
      replaceSlots: [
        flag(71, 'm:BF'),
        { bits: [[76, 4]], map: COMPARE },
        { bits: [[60, 2]], map: { 0: [], 2: ['2.H0_H0'], 3: ['2.H1_H1'] } },
        { bits: [[74, 2]], map: { 0: [], 2: ['1.H0_H0'], 3: ['1.H1_H1'] } },
      ],
      order: ['m:BF', ...COMPARE_ORDER, 'm:AND'],
    }),
  ),
  // F2FP.PACK_AB with .RELU (cvt.rn.relu.f16x2.f32): bit 75
  ...rowsOf(F2FP_OP, 'R,R,R', (r) => r.archs.includes('sm_80')).map((r) => widen(r, { free: [[75, 1]], slots: [flag(75, 'm:RELU')], order: ['m:RELU'] })),
  // Opcode 0x21f (sm_75+; no golden text, so the mnemonic is ours: nvdisasm's name for it is unknown here): a
  // predicate from the sign bits of three registers through an 8-bit table, P = lut[sign(a)·4 + sign(b)·2 +
  // sign(c)]. ptxas's add.sat.s32 / sub.sat.s32 test overflow with it (a + b = c overflows up: lut 0x02, down:
  // 0x40; a - b: 0x08, 0x10), the second predicate is PT in every word seen.
  newRow({
    archs: ['sm_75', 'sm_80', 'sm_86', 'sm_90'],
    op: 0x21f,
    name: 'ISGN3',
    sig: 'P,P,R,R,R,I',
    guard: 'P',
    atoms: [
      { key: '0', parts: [[81, 3]], enc: 'u' },
      { key: '1', parts: [[84, 3]], enc: 'u' },
      { key: '2', parts: [[24, 8]], enc: 'u' },
      { key: '3', parts: [[32, 8]], enc: 'u' },
      { key: '4', parts: [[64, 8]], enc: 'u' },
      { key: '5', parts: [[72, 8]], enc: 'u' },
    ],
    slots: [],
    fixed: ['m:LUT'],
    order: ['m:LUT'],
    reuse: { 2: 0, 3: 1, 4: 2 },
    set: [],
  }),
  // sm_90 integer forms the golden pairs lack: VIADD with a uniform register (a + UR, bit 91 as in ptxas's words),
  // VIMNMX with an immediate, and VIADDMNMX R, R, -R, imm (fused add + min/max: ptxas's f64 division clamps the
  // exponent difference with it where sm_80 code has IADD3 + IMNMX: max(a - b, imm) with !PT). Bit 72 is the
  // signed compare (set in every word seen, as in VIMNMX), bit 75 negates the added register (IADD3's c bit).
  newRow({
    archs: ['sm_90'],
    op: 0xc36,
    name: 'VIADD',
    sig: 'R,R,UR',
    guard: 'P',
    atoms: [
      { key: '0', parts: [[16, 8]], enc: 'u' },
      { key: '1', parts: [[24, 8]], enc: 'u' },
      { key: '2', parts: [[32, 6]], enc: 'u' },
    ],
    slots: [],
    fixed: [],
    order: [],
    reuse: { 1: 0 },
    set: [[91, 1]],
  }),
  ...rowsOf(0x248, 'R,R,R,P').map((r) => ({
    ...variant(r, { free: [[90, 1], [32, 32]], slots: [flag(90, '3:not')] }),
    op: 0x848,
    sig: 'R,R,I,P',
    atoms: r.atoms.map((a) => (a.key === '2' ? { key: '2', parts: [[32, 32]] as Run[], enc: 's' as const } : a)),
    reuse: {},
  })),
  // LEPC on sm_90 (opcode 0x94e): the return address of an ABI call (`CALL.ABS.NOINC Rt` to vprintf, malloc,
  // __assertfail ...) into Rd:Rd+1, as the PC-relative byte offset in bits 24..31 from the next instruction (ptxas
  // writes `LEPC R20` right before the CALL with 0x10: the address after the CALL). Evidence: printf, malloc/free
  // and assert kernels, all with 0x10; wider offsets are not known, so the field holds 0..255.
  newRow({
    archs: ['sm_90'],
    op: 0x94e,
    name: 'LEPC',
    sig: 'R,I',
    guard: 'P',
    atoms: [
      { key: '0', parts: [[16, 8]], enc: 'u' },
      { key: '1', parts: [[24, 8]], enc: 'u' },
    ],
    slots: [],
    fixed: [],
    order: [],
    reuse: {},
    set: [],
  }),
  newRow({
    archs: ['sm_90'],
    op: 0x446,
    name: 'VIADDMNMX',
    sig: 'R,R,R,I,P',
    guard: 'P',
    atoms: [
      { key: '0', parts: [[16, 8]], enc: 'u' },
      { key: '1', parts: [[24, 8]], enc: 'u' },
      { key: '2', parts: [[64, 8]], enc: 'u' },
      { key: '3', parts: [[32, 32]], enc: 's' },
      { key: '4', parts: [[87, 3]], enc: 'u' },
    ],
    slots: [{ bits: [[72, 1]], map: { 0: ['m:U32'], 1: [] } }, flag(75, '2:neg'), flag(90, '4:not')],
    fixed: [],
    order: ['m:U32', '2:neg', '4:not'],
    reuse: { 1: 0, 2: 2 },
    set: [],
  }),
  // fp8 pairs (sm_89+): f32 pair → e4m3x2/e5m2x2 with .satfinite into the low half of Rd (the rest from Rc),
  // and e4m3x2/e5m2x2 → f16x2 from the low half of Rb. Bit 76 / 73 picks E4M3 over E5M2.
  newRow({
    archs: ['sm_90'],
    op: F2FP_OP,
    name: 'F2FP',
    sig: 'R,R,R,R',
    guard: 'P',
    atoms: [
      { key: '0', parts: [[16, 8]], enc: 'u' },
      { key: '1', parts: [[24, 8]], enc: 'u' },
      { key: '2', parts: [[32, 8]], enc: 'u' },
      { key: '3', parts: [[64, 8]], enc: 'u' },
    ],
    slots: [{ bits: [[76, 1]], map: { 0: ['m:E5M2'], 1: ['m:E4M3'] } }],
    fixed: ['m:SATFINITE', 'm:F32^0', 'm:PACK_AB_MERGE_C'],
    order: ['m:SATFINITE', 'm:E4M3', 'm:E5M2', 'm:F32^0', 'm:PACK_AB_MERGE_C'],
    reuse: { 1: 0, 2: 1, 3: 2 },
    set: [[77, 2], [87, 1], [90, 1]],
  }),
  newRow({
    archs: ['sm_90'],
    op: F2FP_OP,
    name: 'F2FP',
    sig: 'R,R',
    guard: 'P',
    atoms: [
      { key: '0', parts: [[16, 8]], enc: 'u' },
      { key: '1', parts: [[32, 8]], enc: 'u' },
    ],
    slots: [{ bits: [[73, 1]], map: { 0: ['m:E5M2'], 1: ['m:E4M3'] } }],
    fixed: ['m:F16^0', 'm:UNPACK_B'],
    order: ['m:F16^0', 'm:E4M3', 'm:E5M2', 'm:UNPACK_B'],
    reuse: { 1: 1 },
    set: [[24, 8], [64, 8], [74, 1], [89, 1]],
  }),
  // ATOMG (sm_90): the derived row holds one joint slot (type 73..75, scope 77 and 79..80, operation 87..90) with the
  // combinations the golden vectors show, bit 78 constant; atom.global.max.s32 and most .cta/.sys scopes had no
  // word. ptxas 13 words (atom.global{,.cta,.sys}.max.s32, .cta.add.u32, .add/.exch/.min.u64, .max.s64) show the
  // scope is 77..80 (7 = GPU, 10 = SYS, 5 = the CTA scope: LD's STRONG.SM pattern) and the type 0 = 32-bit,
  // 1 = S32, 2 = 64, 3 = S64 for min/max (with .add, 3 is the golden F32.FTZ.RN). The slot stays joint (types
  // mean different things per operation): the golden combinations are kept, the evidenced ones added.
  ...rowsOf(0x9a8, 'P,R,Md,R', (r) => r.archs.includes('sm_90')).map((r) => widen(r, { free: [[78, 1]], replaceSlots: [atomgSlot(r)], order: ['m:E', 'm:ADD', 'm:MIN', 'm:MAX', 'm:INC', 'm:DEC', 'm:AND', 'm:OR', 'm:XOR', 'm:EXCH', 'm:64', 'm:S32^0', 'm:S64^0', 'm:F32^0', 'm:FTZ', 'm:F64^0', 'm:RN', 'm:STRONG', 'm:SM', 'm:GPU', 'm:SYS'] })),
  // ATOM (generic address, sm_90): the golden data has this opcode for sm_80/86 only, with the combinations those
  // vectors happened to hold (AND/OR/XOR only at GPU scope). ptxas 13 words for atom.{and,or,xor,add,exch}.{cta,gpu,
  // sys}.{b32,b64} (`0x001ea2000a9ea1c6_0000000d0207798a` AND.SM, `...0a9ee1c6_...` AND.GPU, `...0a9f41c6_...` SYS,
  // `...0c1ea1c6_...` EXCH.SM) keep the sm_86 fields: operation 87..90, scope 77..80, type 73..75.
  ...rowsOf(0x98a, 'P,R,Md,R', (r) => r.archs.includes('sm_86')).map((r) => ({
    ...variant(r, { replaceSlots: [atomSlot(r)], order: ['m:E', 'm:ADD', 'm:F16x2', 'm:MIN', 'm:MAX', 'm:INC', 'm:DEC', 'm:AND', 'm:OR', 'm:XOR', 'm:EXCH', 'm:64', 'm:S32^0', 'm:S64^0', 'm:F32^0', 'm:FTZ', 'm:F64^0', 'm:RN', 'm:STRONG', 'm:SM', 'm:GPU', 'm:SYS'] }),
    archs: ['sm_90'],
  })),
  // WARPSYNC Rmask (sm_90): the golden sm_90 data has only WARPSYNC.ALL; ptxas 13 words for bar.warp.sync and
  // shfl.sync with a register or partial member mask (`...05007348`: R5, `...04007348`: R4) hold the register in
  // bits 24..31 (sm_70..86 kept it in 32..39) and set bits 87..89 as the older rows do.
  newRow({
    archs: ['sm_90'],
    op: 0x348,
    name: 'WARPSYNC',
    sig: 'R',
    guard: 'P',
    atoms: [{ key: '0', parts: [[24, 8]], enc: 'u' }],
    slots: [],
    fixed: [],
    order: [],
    set: [[87, 3]],
  }),
  // TLD4 (sm_90, bindless): ptxas 13 writes tex2Dgather's `tld4.g.2d.v4.f32.f32 {..}, [%rd, {%f, %f}]` as
  // `...089e0f06_200004ff_04047f63` (TLD4.G R6, R4, R4, RZ, UR4, 0x0, 2D): the sm_75..86 row with bit 60 (.SCR,
  // fixed there) clear; the component (87..88) and everything else as in that row.
  ...rowsOf(0xf63, 'R,R,R,R,UR,I,N', (r) => r.archs.includes('sm_86')).map((r) => ({
    ...variant(r, { dropFixed: ['m:SCR'] }),
    archs: ['sm_90'],
    value: hex(BigInt(r.value) & ~(1n << 60n)),
  })),
  // f64 atomic add (sm_90): ptxas 13 no longer writes ATOMG/RED type 6 (sm_80/86's F64 code) but opcodes of their
  // own. Words for atom.global{,.sys,.cta}.add.f64 (`...08040479a3 / 0x001ea200081effc6`, `.../...081f5fc6`,
  // `.../...081ebfc6`) and red.global{,.sys,.cta}.add.f64 (`...1006020079a6 / 0x004fe8000c10ff86`, ...5f86, ...bf86)
  // keep ATOMG/RED's operand fields (destination 16..23, address 24..31 + 40..63, descriptor 64..69, source
  // 32..39, predicate result 81..83) and scope in 77..80 (7 = GPU, 10 = SYS, 5 = CTA printed as SM, as ATOMG's).
  newRow({
    archs: ['sm_90'],
    op: 0x9a3,
    name: 'ATOMG',
    sig: 'P,R,Md,R',
    guard: 'P',
    atoms: [
      { key: '0', parts: [[81, 3]], enc: 'u' },
      { key: '1', parts: [[16, 8]], enc: 'u' },
      { key: '2.d', parts: [[64, 6]], enc: 'u' },
      { key: '2.b', parts: [[24, 8]], enc: 'u' },
      { key: '2.o', parts: [[40, 24]], enc: 's' },
      { key: '3', parts: [[32, 8]], enc: 'u' },
    ],
    slots: [{ bits: [[77, 4]], map: { 5: ['m:SM'], 7: ['m:GPU'], 10: ['m:SYS'] } }],
    fixed: ['m:E', 'm:ADD', 'm:F64^0', 'm:RN', 'm:STRONG', '2.64'],
    order: ['m:E', 'm:ADD', 'm:F64^0', 'm:RN', 'm:STRONG', 'm:SM', 'm:GPU', 'm:SYS', '2.64'],
    set: [[70, 7], [84, 1], [91, 1]],
  }),
  newRow({
    archs: ['sm_90'],
    op: 0x9a6,
    name: 'RED',
    sig: 'Md,R',
    guard: 'P',
    atoms: [
      { key: '0.d', parts: [[64, 6]], enc: 'u' },
      { key: '0.b', parts: [[24, 8]], enc: 'u' },
      { key: '0.o', parts: [[40, 24]], enc: 's' },
      { key: '1', parts: [[32, 8]], enc: 'u' },
    ],
    slots: [{ bits: [[77, 4]], map: { 5: ['m:SM'], 7: ['m:GPU'], 10: ['m:SYS'] } }],
    fixed: ['m:E', 'm:ADD', 'm:F64^0', 'm:RN', 'm:STRONG', '0.64'],
    order: ['m:E', 'm:ADD', 'm:F64^0', 'm:RN', 'm:STRONG', 'm:SM', 'm:GPU', 'm:SYS', '0.64'],
    set: [[71, 6], [84, 1], [90, 2]],
  }),
  // I2F from a 64-bit source to f32 (cvt.rn/rz/rm/rp.f32.u64/.s64; the reciprocal seed of ptxas's 64-bit division):
  // bit 84 = 64-bit source, 74 = signed, 75 = f64 result, 78..79 = rounding (RN, RM, RP, RZ). The golden vectors
  // hold only `I2F.U64.RP` of the f32 forms; ptxas 13 sm_90 words: cvt.rn.f32.u64 0x...00301000_...7312,
  // cvt.rn.f32.s64 ...00301400..., cvt.rz.f32.u64 ...0030d000..., the division's I2F.U64.RP ...00309000....
  ...rowsOf(0x312, 'R,R').map((r) => {
    const old = r.slots[0]!;
    const map: Record<string, string[]> = {};
    for (const [k, toks] of Object.entries(old.map)) {
      const v = Number(k);
      map[String((v & 3) | (((v >> 2) & 1) << 3) | (((v >> 3) & 1) << 4))] = [...toks];
    }
    const ROUND = [[], ['m:RM'], ['m:RP'], ['m:RZ']];
    for (let signed = 0; signed < 2; signed++) {
      for (let rnd = 0; rnd < 4; rnd++) map[String(signed | (rnd << 2) | 16)] = [signed ? 'm:S64^0' : 'm:U64^0', ...ROUND[rnd]!];
    }
    return widen(r, {
      free: [[78, 1]],
      replaceSlots: [{ bits: [[74, 2], [78, 2], [84, 1]], map }],
      order: ['m:U64^0', 'm:S64^0', 'm:RM', 'm:RP', 'm:RZ', 'm:F64^0', 'm:U64^1', 'm:S64^1'],
    });
  }),
  // mbarrier arrivals (sm_90 SYNCS.ARRIVE.TRANS64, 0x9a7): the golden data has only `.A1T0` (bit 84) and `.RED`
  // (bit 74). ptxas 13 words of one-instruction kernels show a 3-bit operation field in bits 84..86 and a drop
  // flag in bit 75: mbarrier.arrive.expect_tx d, [a], tx `...0279a7 / ...08000004` (0: one arrival, tx-count += Rv),
  // mbarrier.arrive d, [a] `...08100004` (1: A1T0), mbarrier.expect_tx [a], tx `...ffff79a7 / ...08300404` (3,
  // with .RED: tx-count += Rv), mbarrier.complete_tx `...08400404` (4: tx-count -= Rv), mbarrier.arrive d, [a], n
  // `...08500004` (5: Rv arrivals), arrive_drop `...08500804` / `...08100804` (bit 75). Names: A1T0 is nvdisasm's;
  // A0TX, A0TR and ART0 (arrive count x transactions) and DROP follow its pattern (no nvdisasm here to confirm).
  // Semantics: docs/ori-semantics.md "mbarrier objects" (the evidence test runs the words against the PTX path).
  ...rowsOf(0x9a7, 'R,Mu,R', (r) => r.archs.includes('sm_90')).map((r) => widen(r, {
    free: [[75, 1], [85, 2]],
    replaceSlots: [flag(74, 'm:RED'), flag(75, 'm:DROP'), { bits: [[84, 3]], map: { 0: [], 1: ['m:A1T0'], 3: ['m:A0TX'], 4: ['m:A0TR'], 5: ['m:ART0'] } }],
    order: ['m:ARRIVE', 'm:TRANS64', 'm:RED', 'm:DROP', 'm:A1T0', 'm:ART0', 'm:A0TX', 'm:A0TR'],
  })),
  // mbarrier.inval [a] (sm_90): ptxas 13 writes `0x000fe200_08000004_00000000_ff0079b1` for `[UR4]`, opcode 0x9b1
  // with SYNCS's address fields (base 24..31, uniform 64..69, offset 40..63) and bit 91 as the other SYNCS forms.
  // Printed SYNCS.CCTL.IV (our spelling of the cache-control invalidation of an mbarrier).
  newRow({
    archs: ['sm_90'],
    op: 0x9b1,
    name: 'SYNCS',
    sig: 'Mu',
    guard: 'P',
    atoms: [
      { key: '0.b', parts: [[24, 8]], enc: 'u' },
      { key: '0.u', parts: [[64, 6]], enc: 'u' },
      { key: '0.o', parts: [[40, 24]], enc: 's' },
    ],
    slots: [],
    fixed: ['m:CCTL', 'm:IV'],
    order: ['m:CCTL', 'm:IV'],
    set: [[91, 1]],
  }),
  // DEPBAR.LE SBn, N (sm_90): the scoreboard is a 3-bit number in bits 44..46, as sm_80/86 keep it (golden sm_86:
  // 0x...d0c0_0000791a is `DEPBAR.LE SB5, 0x3`). The sm_90 golden pairs show SB0..SB4 only, so the derived row
  // read bits 44..45 and 46 as separate slots and printed SB5 (bits 44 + 46) as SB4; ptxas 13 sm_90 code counts
  // texture results on SB5 (TEX/TLD words with W5, then DEPBAR.LE SB5, 3, 2, 1 as they land: parboil rpes).
  ...rowsOf(0x91a, 'N,I', (r) => r.archs.includes('sm_90')).map((r) => ({
    ...widen(r, { replaceSlots: [{ bits: [[44, 3]], map: { 0: ['0=SB0'], 1: ['0=SB1'], 2: ['0=SB2'], 3: ['0=SB3'], 4: ['0=SB4'], 5: ['0=SB5'] } }] }),
    derived: [],
  })),
];
