#!/usr/bin/env node
// Derives the Volta+ encoding table (src/rows.ts) from the golden vectors in ../shared/golden.
//
// For every (arch, opcode field, mnemonic, operand shapes) group of golden rows it finds:
//   - where each number of the structured form lives (register numbers, immediates, offsets), trying the
//     storage encodings in turn (unsigned, signed, branch-relative, f32/f64-high/f16) at every bit position
//     and preferring the layout facts of ../shared/golden/README.md when several positions fit;
//   - which of the remaining bits are constant (the row's mask/value) and which vary;
//   - how the varying bits select tokens (modifiers, operand flags, special names): each bit is explained
//     by the smallest set of tokens whose presence determines it; tokens explaining the same bits form one
//     slot with a value table; tokens no bit explains are "derived" (nvdisasm aliases like IMAD.MOV) and get
//     the simplest condition on the other fields that separates the rows printing them from the others.
// The output rows are readable data: review the diff, then the tests prove every golden row both ways.
//
// usage: node scripts/derive-volta-table.mjs [--golden DIR] [--report]
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { flatten, getBits, parseInstruction, readGoldenTsv, readAtomField, storeAtom, wordFromHex, setBits } from '@ptxforge/sass';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const goldenArg = args.indexOf('--golden');
const golden = goldenArg >= 0 ? args[goldenArg + 1] : resolve(here, '../../../../shared/golden');
const report = args.includes('--report');
const debugArg = args.indexOf('--debug');
const debug = debugArg >= 0 ? args[debugArg + 1] : undefined;
if (!existsSync(join(golden, 'README.md'))) {
  console.error(`derive-volta-table: golden folder not found at ${golden} (pass --golden DIR)`);
  process.exit(1);
}

export const SOURCES = {
  sm_70: ['cuasm_insrecords_sm70.tsv'],
  sm_75: ['cuasm_insrecords_sm75.tsv', 'cudatest.7.sm_75.tsv'],
  sm_80: ['cuasm_insrecords_sm80.tsv'],
  sm_86: ['cuasm_insrecords_sm86.tsv'],
  sm_90: ['sm90_pairs.tsv'],
};
// Vectors learned by experiment with the installed ptxas (scripts/ptxas-experiments.mjs): forms with no golden
// text, in this package (vectors/), read like golden files.
const VECTORS = resolve(here, '../vectors');
export const EXPERIMENT_SOURCES = {
  sm_75: ['sm_75-ptxas.tsv'],
  sm_80: ['sm_80-ptxas.tsv'],
  sm_86: ['sm_86-ptxas.tsv'],
  sm_90: ['sm_90-ptxas.tsv'],
};

const BRANCH_BASE = 16;
const CONTROL_LO = 105;
const CONTROL_HI = 125; // stall, yield, barriers, wait mask, reuse flags

// Bits nvdisasm does not print. Evidence: bit 101 of Ampere memory instructions is set in every CuAssembler
// (CUDA 11) record of these opcodes and clear in ptxas 13 output and the sm_90 pairs, for the same text.
const HIDDEN_BITS = { bits: [[101, 1]], names: new Set(['LD', 'LDG', 'ST', 'STG', 'ATOM', 'RED', 'ATOMG', 'LDGSTS', 'ATOMS', 'LDS', 'STS', 'LDL', 'STL']) };

function isClaimedByLayout(b) {
  return b < 16 || (b >= CONTROL_LO && b <= CONTROL_HI);
}

// ------------------------------------------------------------------ examples
function loadExamples(arch) {
  const out = [];
  const files = [...SOURCES[arch].map((f) => join(golden, f)), ...(EXPERIMENT_SOURCES[arch] ?? []).map((f) => join(VECTORS, f))];
  for (const file of files) {
    const noAddr = !/\baddr\b/.test(readFileSync(file, 'utf8').slice(0, 200));
    for (const r of readGoldenTsv(file)) {
      let ins;
      try {
        ins = parseInstruction(r.text);
      } catch (e) {
        console.error(`skip ${r.where}: ${e.message}`);
        continue;
      }
      if (ins.operands.some((o) => o.k === 'int' && o.reloc)) continue; // symbolic: the word's value is not in the text
      const w = wordFromHex(r.code);
      out.push({ w, ins, flat: flatten(ins), addr: r.addr, noAddr, where: r.where, text: r.text });
    }
  }
  return out;
}

// ------------------------------------------------------------------ atoms
const REG_WIDTH = { R: 8, UR: 6, P: 3, UP: 3, B: 4 };

// Layout priors (README facts): tried first, in order.
const PRIOR = {
  R: [16, 24, 32, 64, 40, 48, 56, 72, 80, 88],
  UR: [32, 24, 16, 64, 40, 48, 56, 72],
  P: [81, 84, 87, 77, 68, 90, 71, 74, 64, 16, 17, 20, 23, 26],
  UP: [81, 84, 87, 77, 68, 90, 71, 74, 64, 16, 17, 20, 23, 26],
  B: [16, 24, 32, 64],
  'c.b': [54, 38],
  'c.o': [38, 40],
  'c.r': [24, 32, 64],
  'm.d': [32, 64],
  'm.b': [24, 32, 64],
  'm.u': [32, 64],
  'm.o': [40, 32],
  I: [32, 40, 64, 72, 75],
  F: [32, 64],
};

function shapeOf(sig, i) {
  const s = sig.split(',')[i];
  return s.startsWith('_') ? s.slice(1) : s;
}

/** Atom kind descriptor: widths and encodings to try. */
function atomKind(sig, key) {
  const [iStr, part] = key.split('.');
  const shape = shapeOf(sig, Number(iStr));
  if (REG_WIDTH[shape] !== undefined && !part)
    return { prior: PRIOR[shape], tries: [{ enc: 'u', widths: [REG_WIDTH[shape]] }, ...(shape.endsWith('P') ? [{ enc: 'inv', widths: [3] }] : [])], order: 0 };
  if (shape.startsWith('C')) {
    if (part === 'b') return { prior: PRIOR['c.b'], tries: [{ enc: 'u', widths: [5] }], order: 1 };
    // Indexed constant offsets are signed (`c[0x3][R5+-0x4]`), direct ones unsigned.
    if (part === 'o')
      return {
        prior: PRIOR['c.o'],
        tries: [...(shape === 'C' ? [] : [{ enc: 's', widths: [16] }]), { enc: 'u', widths: [16, 14] }, { enc: 'u', widths: [14], scale: 4 }],
        order: 1,
      };
    if (part === 'r') return { prior: PRIOR['c.r'], tries: [{ enc: 'u', widths: [shape === 'Cr' ? 8 : 6] }], order: 0 };
  }
  if (shape.startsWith('M')) {
    if (part === 'd' || part === 'u') return { prior: PRIOR['m.d'], tries: [{ enc: 'u', widths: [6] }], order: 0 };
    if (part === 'b') return { prior: PRIOR['m.b'], tries: [{ enc: 'u', widths: [8] }], order: 0 };
    if (part === 'o') return { prior: PRIOR['m.o'], tries: [{ enc: 's', widths: [24, 32, 20, 16] }, { enc: 's', bitwise: true, maxWidth: 24 }], order: 2 };
  }
  if (shape === 'F')
    return {
      prior: PRIOR.F,
      tries: [
        { enc: 'f32', widths: [32] },
        { enc: 'f64h', widths: [32] },
        { enc: 'f16', widths: [16] },
        { enc: 'f32', widths: [16] },
        { enc: 'f32', widths: [19, 20] },
        { enc: 'f64h', widths: [20, 19] },
      ],
      order: 3,
    };
  return { prior: PRIOR.I, tries: 'int', order: 3 };
}

function consistentAt(ex, key, a, claimed) {
  // a: {parts, enc, scale}
  for (const [p, n] of a.parts) for (let b = p; b < p + n; b++) if (claimed[b] || b > 127) return false;
  for (const e of ex) {
    const v = e.flat.atoms.get(key);
    const st = storeAtom(a, v, e.addr, BRANCH_BASE);
    if (st === undefined) return false;
    if (readAtomField(e.w, a) !== st) return false;
  }
  return true;
}

const BRANCHY = new Set(['BRA', 'BSSY', 'CALL', 'BRX', 'BRXU', 'JMP', 'JMX', 'BPT', 'RET', 'BREAK', 'SSY', 'PBK', 'CAL', 'PRET', 'WARPSYNC', 'BMOV', 'JCAL', 'KILL']);

const INDEXED_BRANCH = new Set(['BRX', 'BRXU']);

function intTries(opcode, ex, key) {
  const vals = ex.map((e) => e.flat.atoms.get(key));
  const anyNeg = vals.some((v) => v < 0);
  const tries = [];
  if (BRANCHY.has(opcode) && ex.every((e) => e.noAddr)) return [{ fixedBranch: true }];
  // Indexed branches (BRX R4 -0x3d0) print the signed offset itself, not a target: the golden words always
  // hold -(address of the next instruction), which a relative reading would also fit by accident.
  if (INDEXED_BRANCH.has(opcode)) tries.push({ enc: 's', widths: [48], scale: 4 });
  if (BRANCHY.has(opcode)) {
    tries.push({ enc: 'rel', widths: [50, 48, 32, 24] });
    tries.push({ enc: 'rel', widths: [48], scale: 4 });
    tries.push({ enc: 's', widths: [48], scale: 4 });
    tries.push({ enc: 'rel', bitwise: true, scale: 1, maxWidth: 50 });
    tries.push({ enc: 'rel', bitwise: true, scale: 4, maxWidth: 50 });
    tries.push({ enc: 's', bitwise: true, scale: 4, maxWidth: 48 });
  }
  tries.push({ enc: anyNeg ? 's' : 'u', widths: 'max' });
  return tries;
}

let growAll = false;
function findAtom(ex, key, opcode, sig, claimed, blocked) {
  const kind = atomKind(sig, key);
  const tries = kind.tries === 'int' ? intTries(opcode, ex, key) : kind.tries;
  const positions = [...kind.prior, ...Array.from({ length: 128 }, (_, i) => i).filter((p) => !kind.prior.includes(p))];
  for (const t of tries) {
    if (t.fixedBranch) {
      // No instruction addresses in the file (sm90 pairs): README layout facts. Word offsets split over
      // 16..23 and 34..81 (BRA; the indexed BRX the same, seen in ptxas 13 sm_90 cubins); BSSY keeps the
      // signed byte offset of the older archs in 32..81 (its barrier sits in 16..19).
      if (opcode === 'BRA' || opcode === 'CALL' || opcode === 'RET') return { key, parts: [[16, 8], [34, 48]], enc: 'rel', scale: 4 };
      if (INDEXED_BRANCH.has(opcode)) return { key, parts: [[16, 8], [34, 48]], enc: 's', scale: 4 };
      return { key, parts: [[32, 50]], enc: 'rel' };
    }
    if (t.split) {
      const a = { parts: [[16, 8], [34, 48]], enc: t.enc, scale: t.scale };
      if (consistentAt(ex, key, a, claimed)) return { key, ...a };
      continue;
    }
    if (t.widths === 'max' || t.bitwise) {
      const a = mapBits(ex, key, { ...t, blocked }, kind.prior, claimed);
      if (a) return a;
      continue;
    }
    for (const w of t.widths) {
      for (const p of positions) {
        if (p < 16) continue;
        const a = { parts: [[p, w]], enc: t.enc };
        if (t.scale && t.scale !== 1) a.scale = t.scale;
        if (consistentAt(ex, key, a, claimed)) {
          // A signed field seen negative: the bits above it that copy the sign belong to it (LD's
          // 32-bit offset `[R12+-0x600]`, found 24 bits wide from positive examples alone).
          if (t.enc === 's' && ex.some((e) => e.flat.atoms.get(key) < 0))
            while (a.parts[0][1] < 32 && !(blocked && blocked.has(a.parts[0][0] + a.parts[0][1]))) {
              const b = { ...a, parts: [[a.parts[0][0], a.parts[0][1] + 1]] };
              if (!consistentAt(ex, key, b, claimed)) break;
              a.parts = b.parts;
            }
          return { key, ...a };
        }
      }
    }
  }
  return undefined;
}

/**
 * Integer atoms: each bit of the stored value is looked up on its own (fields may be split, like the
 * PLOP3 truth table or the sm_90 branch offset), preferring the run continuing the previous bit, then the
 * priors. Bits above the highest one any example sets are grown while consistent (up to 32 bits).
 */
function mapBits(ex, key, t, prior, claimed) {
  const scale = t.scale ?? 1;
  const stored = [];
  for (const e of ex) {
    let v = e.flat.atoms.get(key);
    if (t.enc === 'rel') v = v - e.addr - BRANCH_BASE;
    if (v % scale !== 0) return undefined;
    stored.push(v / scale);
  }
  const bitOf = (v, i) => (v < 0 ? (i >= 52 ? 1 : Math.floor((v + 2 ** 53) / 2 ** i) % 2) : Math.floor(v / 2 ** i) % 2);
  const need = Math.max(...stored.map(bitLen));
  const signed = stored.some((v) => v < 0);
  const used = new Set();
  const pos = new Array(need).fill(undefined);
  const fits = (b, i) => {
    if (b < 16 || b > 127 || claimed[b] || used.has(b)) return false;
    for (let k = 0; k < ex.length; k++) if (getBits(ex[k].w, b, 1) !== bitOf(stored[k], i)) return false;
    return true;
  };
  const cands = (i) => {
    const c = [];
    for (let b = 16; b < 128; b++) if (fits(b, i)) c.push(b);
    return c;
  };
  const set = (i, b) => {
    pos[i] = b;
    used.add(b);
  };
  // Value bits that differ between examples carry evidence; place them first (unique candidates first,
  // then next to an already placed neighbour), then fill the others outward from their neighbours.
  const evid = [];
  for (let i = 0; i < need; i++) if (stored.some((v) => bitOf(v, i) !== bitOf(stored[0], i)) || stored.some((v) => bitOf(v, i) === 1)) evid.push(i);
  let progress = true;
  while (progress) {
    progress = false;
    for (const i of evid) {
      if (pos[i] !== undefined) continue;
      const c = cands(i);
      if (!c.length) return undefined;
      let pick;
      if (pos[i - 1] !== undefined && c.includes(pos[i - 1] + 1)) pick = pos[i - 1] + 1;
      else if (pos[i + 1] !== undefined && c.includes(pos[i + 1] - 1)) pick = pos[i + 1] - 1;
      else if (c.length === 1) pick = c[0];
      if (pick !== undefined) {
        set(i, pick);
        progress = true;
      }
    }
    if (!progress) {
      // no forced choice: take the lowest evidenced bit and its prior / first candidate
      const i = evid.find((j) => pos[j] === undefined);
      if (i === undefined) break;
      const c = cands(i);
      const pr = prior.map((p) => p + i).find((p) => c.includes(p));
      set(i, pr ?? c[0]);
      progress = true;
    }
  }
  if (!evid.length) {
    const p0 = prior.find((p) => fits(p, 0)) ?? cands(0)[0];
    if (p0 === undefined) return undefined;
    set(0, p0);
  }
  // fill the rest outward
  for (let guard = 0; guard < 2 * need + 2; guard++) {
    let changed = false;
    for (let i = 0; i < need; i++) {
      if (pos[i] !== undefined) continue;
      if (pos[i - 1] !== undefined && fits(pos[i - 1] + 1, i)) (set(i, pos[i - 1] + 1), (changed = true));
      else if (pos[i + 1] !== undefined && fits(pos[i + 1] - 1, i)) (set(i, pos[i + 1] - 1), (changed = true));
    }
    if (!changed) break;
  }
  for (let i = 0; i < need; i++) {
    if (pos[i] !== undefined) continue;
    const c = cands(i);
    if (!c.length) return undefined;
    set(i, c[0]);
  }
  // grow upward (zero / sign extension) while consistent
  const max = t.maxWidth ?? 32;
  while (pos.length < max && !(t.blocked && t.blocked.has(pos[pos.length - 1] + 1)) && fits(pos[pos.length - 1] + 1, pos.length)) set(pos.length, pos[pos.length - 1] + 1);
  const parts = [];
  for (const b of pos) {
    const last = parts[parts.length - 1];
    if (last && last[0] + last[1] === b) last[1]++;
    else parts.push([b, 1]);
  }
  const enc = t.enc === 'rel' ? 'rel' : signed ? 's' : t.enc === 's' ? 's' : 'u';
  const a = { key, parts, enc };
  if (scale !== 1) a.scale = scale;
  return a;
}

function bitLen(v) {
  if (v < 0) return Math.ceil(Math.log2(-v)) + 1;
  if (v === 0) return 1;
  return Math.floor(Math.log2(v)) + 1;
}

// ------------------------------------------------------------------ slots
/** The operand a token belongs to (`3` for `3.H0_H0` / `3:neg`), `m` for mnemonic modifiers. */
function tokenOperand(t) {
  const m = /^(\d+)[.:=]/.exec(t);
  return m ? m[1] : 'm';
}

function presenceKey(e, toks) {
  let s = '';
  for (const t of toks) s += e.flat.tokens.has(t) ? '1' : '0';
  return s;
}

function bitIsFunctionOf(ex, b, toks) {
  const seen = new Map();
  for (const e of ex) {
    const k = presenceKey(e, toks);
    const v = getBits(e.w, b, 1);
    const prev = seen.get(k);
    if (prev === undefined) seen.set(k, v);
    else if (prev !== v) return false;
  }
  return true;
}

function combos(arr, k, start = 0, acc = [], out = []) {
  if (acc.length === k) {
    out.push(acc.slice());
    return out;
  }
  for (let i = start; i < arr.length; i++) {
    acc.push(arr[i]);
    combos(arr, k, i + 1, acc, out);
    acc.pop();
  }
  return out;
}

function runs(bits) {
  const s = [...bits].sort((a, b) => a - b);
  const out = [];
  for (const b of s) {
    const last = out[out.length - 1];
    if (last && last[0] + last[1] === b) last[1]++;
    else out.push([b, 1]);
  }
  return out;
}

function readRuns(w, rs) {
  let v = 0;
  let scale = 1;
  for (const [p, n] of rs) {
    v += getBits(w, p, n) * scale;
    scale *= 2 ** n;
  }
  return v;
}

// ------------------------------------------------------------------ derived tokens
function learnCondition(ex, token, atomKeys, baseTokens) {
  const pos = ex.filter((e) => e.flat.tokens.has(token));
  const neg = ex.filter((e) => !e.flat.tokens.has(token));
  const preds = [];
  for (const k of atomKeys) {
    const v0 = pos[0].flat.atoms.get(k);
    if (pos.every((e) => e.flat.atoms.get(k) === v0)) preds.push({ atom: k, eq: v0 });
    else if (pos.every((e) => { const v = e.flat.atoms.get(k); return v > 0 && Number.isInteger(Math.log2(v)); })) {
      // a power of two between bounds when smaller / larger powers of two print without the token
      // (IMAD.SHL.U32 0x2..0x200 in the examples; IMAD.MOV.U32 ... 0x1, IMAD.U32 ... 0x10000): the bounds are
      // the nearest such powers
      const vs = pos.map((e) => e.flat.atoms.get(k));
      const negP = neg.map((e) => e.flat.atoms.get(k)).filter((v) => v > 0 && Number.isInteger(Math.log2(v)));
      const above = negP.filter((v) => v > Math.max(...vs));
      const below = negP.filter((v) => v < Math.min(...vs));
      const c = { atom: k, pow2: true };
      if (below.length) c.gt = Math.max(...below);
      if (above.length) c.lt = Math.min(...above);
      preds.push(c);
    }
  }
  for (const t of baseTokens) {
    const h = pos[0].flat.tokens.has(t);
    if (pos.every((e) => e.flat.tokens.has(t) === h)) preds.push({ token: t, has: h });
  }
  const holds = (e, ps) =>
    ps.every((c) => ('eq' in c ? e.flat.atoms.get(c.atom) === c.eq : 'pow2' in c ? (e.flat.atoms.get(c.atom) > 0 && Number.isInteger(Math.log2(e.flat.atoms.get(c.atom))) && !(c.lt !== undefined && e.flat.atoms.get(c.atom) >= c.lt) && !(c.gt !== undefined && e.flat.atoms.get(c.atom) <= c.gt)) : e.flat.tokens.has(c.token) === c.has));
  if (neg.some((e) => holds(e, preds))) return undefined;
  // Drop what is not needed to keep the negatives out (tokens first, then atoms).
  let cur = preds;
  const order = [...preds].sort((a, b) => ('token' in b ? 1 : 0) - ('token' in a ? 1 : 0));
  for (const p of order) {
    const trial = cur.filter((x) => x !== p);
    if (!neg.some((e) => holds(e, trial))) cur = trial;
  }
  return cur;
}

// ------------------------------------------------------------------ one row
function toHex128(bits) {
  // bits: Map<pos, 0|1>
  const w = new Uint32Array(4);
  for (const [p, v] of bits) if (v) w[p >>> 5] |= 1 << (p & 31);
  let s = '';
  for (let i = 3; i >= 0; i--) s += (w[i] >>> 0).toString(16).padStart(8, '0');
  return '0x' + s;
}

function hintKeys(name, sig, key) {
  const [iStr, part = ''] = key.split('.');
  const i = Number(iStr);
  const shapes = sig.split(',');
  const shape = shapeOf(sig, i);
  return [`${name}|${shape}|e${shapes.length - 1 - i}|${part}`, `${name}|${shape}|s${i}|${part}`];
}

function learnRow(arch, ex, hints, blocked) {
  const e0 = ex[0];
  const { opcode, sig } = e0.flat;
  const op = getBits(e0.w, 0, 12);
  const claimed = new Array(128).fill(false);
  for (let b = 0; b < 128; b++) claimed[b] = isClaimedByLayout(b);
  const hidden = HIDDEN_BITS.names.has(opcode) ? HIDDEN_BITS.bits : undefined;
  if (hidden) for (const [p, n] of hidden) for (let b = p; b < p + n; b++) claimed[b] = true;
  const atomKeys = [...e0.flat.atoms.keys()];
  const sorted = [...atomKeys].sort((a, b) => atomKind(sig, a).order - atomKind(sig, b).order);
  const atoms = [];
  const problems = [];
  for (const key of sorted) {
    let a;
    const v00 = ex[0].flat.atoms.get(key);
    const isConst = ex.every((e) => e.flat.atoms.get(key) === v00);
    if (isConst && hints) {
      // Every example has the same value: many positions fit. Take where the same operand of the same
      // mnemonic lives in rows where it varies.
      for (const hk of hintKeys(opcode, sig, key)) {
        const h = hints.get(hk);
        if (!h || a) continue;
        const cand = { key, parts: h.parts.map((p) => [...p]), enc: h.enc };
        if (h.scale) cand.scale = h.scale;
        if (consistentAt(ex, key, cand, claimed)) a = cand;
      }
    }
    if (!a) a = findAtom(ex, key, opcode, sig, claimed, blocked?.get(`${arch}|${getBits(ex[0].w, 0, 12)}`));
    const v0 = ex[0].flat.atoms.get(key);
    if (!a && ex.every((e) => e.flat.atoms.get(key) === v0)) a = { key, parts: [], enc: 'u', eq: v0 };
    if (!a) {
      // nvdisasm prints one field twice (BAR.SYNC R6, R6)
      const twin = atoms.find((o) => ex.every((e) => e.flat.atoms.get(o.key) === e.flat.atoms.get(key)));
      if (twin) a = { ...twin, key, parts: twin.parts.map((p) => [...p]), twinOf: twin.key };
    }
    if (!a) {
      const k0 = ex[0];
      const near = atoms.find((o) => !o.twinOf && o.eq === undefined && ex.every((e) => e.flat.atoms.get(key) - e.flat.atoms.get(o.key) === k0.flat.atoms.get(key) - k0.flat.atoms.get(o.key)));
      if (near) a = { key, parts: [], enc: 'u', from: { key: near.key, add: k0.flat.atoms.get(key) - k0.flat.atoms.get(near.key) }, twinOf: near.key };
    }
    if (!a) {
      problems.push(`no field for atom ${key} (values ${[...new Set(ex.map((e) => e.flat.atoms.get(key)))].slice(0, 6).join(' ')})`);
      continue;
    }
    if (!a.twinOf) for (const [p, n] of a.parts) for (let b = p; b < p + n; b++) claimed[b] = true;
    atoms.push(a);
  }
  atoms.sort((a, b) => atomKeys.indexOf(a.key) - atomKeys.indexOf(b.key));

  // Tokens
  const allTokens = [];
  const seenTok = new Set();
  for (const e of ex) for (const t of e.flat.tokens) if (!seenTok.has(t)) (seenTok.add(t), allTokens.push(t));
  // .reuse flags live in the control bits 122..125: find which flag bit each operand prints (one bit
  // per operand; the k-th register source is tried at bit k first).
  const reuse = {};
  const usedReuse = new Set();
  const fieldReuse = new Set();
  const regSources = e0.ins.operands.map((o, i) => [o, i]).filter(([o, i]) => i > 0 && (o.k === 'reg' || o.k === 'cbank'));
  for (const t of allTokens) {
    if (!t.endsWith(':reuse')) continue;
    const i = t.slice(0, t.indexOf(':'));
    const ord = regSources.findIndex(([, j]) => String(j) === i);
    const ks = [ord, 0, 1, 2, 3].filter((k, n, a) => k >= 0 && k < 4 && a.indexOf(k) === n);
    let best;
    for (const k of ks) {
      if (usedReuse.has(k)) continue;
      if (!ex.every((e) => !e.flat.tokens.has(t) || getBits(e.w, 122 + k, 1) === 1)) continue;
      const score = ex.filter((e) => e.flat.tokens.has(t) === (getBits(e.w, 122 + k, 1) === 1)).length;
      if (!best || score > best.score) best = { k, score };
    }
    if (best) {
      reuse[i] = best.k;
      usedReuse.add(best.k);
    } else fieldReuse.add(t);
  }
  // A reuse flag no control bit holds is an instruction field (HMMA.SP's metadata register: bit 50): it is
  // explained by the slots like any other token (a problem below if no bit holds it either).
  const realTokens = allTokens.filter((t) => !t.endsWith(':reuse') || fieldReuse.has(t));
  const fixed = realTokens.filter((t) => ex.every((e) => e.flat.tokens.has(t)));
  const varying = realTokens.filter((t) => !fixed.includes(t));

  const constBits = new Map();
  const varBits = [];
  for (let b = 0; b < 128; b++) {
    if (claimed[b]) continue;
    const v0 = getBits(ex[0].w, b, 1);
    if (ex.every((e) => getBits(e.w, b, 1) === v0)) constBits.set(b, v0);
    else varBits.push(b);
  }

  // Explain every varying bit by the smallest token set.
  const parent = new Map(varying.map((t) => [t, t]));
  const find = (t) => (parent.get(t) === t ? t : find(parent.get(t)));
  const union = (a, b) => parent.set(find(a), find(b));
  const explain = new Map();
  const unexplained = [];
  const coOccur = new Set();
  for (const e of ex) {
    const ts = [...e.flat.tokens];
    for (const a of ts) for (const b of ts) if (a !== b) coOccur.add(a + '\u0000' + b);
  }
  for (const b of varBits) {
    // Smallest token set that determines the bit; among equals prefer alternatives (tokens that never
    // appear together, like U32/S32), which is what a modifier slot is.
    // Ties go to the operand whose tokens explain the bit below (HFMA2's third-source swizzle bits 81..82
    // are both op 3's, even where the examples would let op 1's swizzle explain bit 82 as well).
    let S;
    const below = new Set((explain.get(b - 1) ?? []).map(tokenOperand));
    for (let k = 1; k <= Math.min(3, varying.length) && !S; k++) {
      let bestScore = -1;
      for (const c of combos(varying, k)) {
        if (!bitIsFunctionOf(ex, b, c)) continue;
        let score = c.every((t) => below.has(tokenOperand(t))) ? 0.5 : 0;
        for (let i = 0; i < c.length; i++) for (let j = i + 1; j < c.length; j++) if (!coOccur.has(c[i] + '\u0000' + c[j])) score++;
        if (score > bestScore) {
          bestScore = score;
          S = c;
        }
      }
    }
    if (!S) {
      unexplained.push(b);
      continue;
    }
    explain.set(b, S);
    for (let i = 1; i < S.length; i++) union(S[0], S[i]);
  }
  // Bits no small token set explains: one slot over all of them and every varying token (exact table).
  if (unexplained.length) {
    for (const t of varying) if (varying[0] !== t) union(varying[0], t);
    for (const b of unexplained) explain.set(b, [varying[0]]);
    if (!varying.length) problems.push(`bits ${unexplained.join(',')} vary but no token varies`);
  }
  const comps = new Map();
  for (const b of varBits) {
    const S = explain.get(b);
    if (!S) continue;
    const r = find(S[0]);
    const c = comps.get(r) ?? { tokens: new Set(), bits: [] };
    c.bits.push(b);
    comps.set(r, c);
  }
  for (const t of varying) {
    const c = comps.get(find(t));
    if (c) c.tokens.add(t);
  }
  // A slot whose bits do not determine its tokens alone (the second type of IMMA.8832.S4.U4: its sign bit is
  // its own, its size bit is shared with the first type) merges with the slot that completes it.
  const determines = (c) => {
    const rs = runs(c.bits);
    const toks = [...c.tokens];
    const seen = new Map();
    for (const e of ex) {
      const v = readRuns(e.w, rs);
      const k = presenceKey(e, toks);
      if (seen.has(v) && seen.get(v) !== k) return false;
      seen.set(v, k);
    }
    return true;
  };
  {
    const list = [...comps.values()];
    for (let changed = true; changed; ) {
      changed = false;
      for (let i = 0; i < list.length && !changed; i++) {
        if (determines(list[i])) continue;
        for (let j = 0; j < list.length; j++) {
          if (j === i) continue;
          const m = { tokens: new Set([...list[i].tokens, ...list[j].tokens]), bits: [...list[i].bits, ...list[j].bits] };
          if (runs(m.bits).reduce((n, r) => n + r[1], 0) > 12 || !determines(m)) continue;
          list.splice(Math.max(i, j), 1);
          list.splice(Math.min(i, j), 1, m);
          changed = true;
          break;
        }
      }
    }
    comps.clear();
    list.forEach((c, i) => comps.set(i, c));
  }
  const slots = [];
  const slotted = new Set();
  for (const c of comps.values()) {
    let toks = [...c.tokens];
    const rs = runs(c.bits);
    // Tokens not determined by the slot's bits are printed for other reasons: derived.
    for (;;) {
      const seen = new Map();
      const bad = new Set();
      for (const e of ex) {
        const v = readRuns(e.w, rs);
        const k = presenceKey(e, toks);
        const prev = seen.get(v);
        if (prev === undefined) seen.set(v, k);
        else if (prev !== k) for (let i = 0; i < k.length; i++) if (k[i] !== prev[i]) bad.add(toks[i]);
      }
      if (!bad.size) break;
      toks = toks.filter((t) => !bad.has(t));
    }
    const map = {};
    for (const e of ex) {
      const v = readRuns(e.w, rs);
      map[String(v)] = toks.filter((t) => e.flat.tokens.has(t));
    }
    for (const t of toks) slotted.add(t);
    slots.push({ bits: rs, map: Object.fromEntries(Object.entries(map).sort((a, b) => Number(a[0]) - Number(b[0]))) });
  }
  // Tokens printed along with a slot value (STRONG with GPU/SYS/SM) join that slot's value table.
  for (const t of varying) {
    if (slotted.has(t)) continue;
    for (const sl of slots) {
      const seen = new Map();
      let ok = true;
      for (const e of ex) {
        const v = readRuns(e.w, sl.bits);
        const h = e.flat.tokens.has(t);
        if (seen.has(v) && seen.get(v) !== h) {
          ok = false;
          break;
        }
        seen.set(v, h);
      }
      if (!ok) continue;
      for (const [v, h] of seen) if (h) sl.map[String(v)] = [...sl.map[String(v)], t];
      slotted.add(t);
      break;
    }
  }
  // A token no single slot determines and no condition derives (RED's `.RN`, printed with `.F32` and `.F64`,
  // whose bits sit in different slots): the smallest union of two or three slots whose joint value
  // determines it, and still determines the slots' own tokens, becomes one slot.
  const ambiguous = (map) => {
    const back = new Set();
    for (const ts of Object.values(map)) {
      const k = [...ts].sort().join(',');
      if (back.has(k)) return true;
      back.add(k);
    }
    return false;
  };
  const mergeFor = (t, must) => {
    const tokensOf = (sl) => [...new Set(Object.values(sl.map).flat())];
    const tryMerge = (idx) => {
      if (must !== undefined && !idx.includes(must)) return undefined;
      const bits = runs(idx.flatMap((i) => slots[i].bits.flatMap(([p, n]) => Array.from({ length: n }, (_, k) => p + k))).sort((a, b) => a - b));
      if (bits.reduce((n, r) => n + r[1], 0) > 12) return undefined;
      const toks = [...new Set([...idx.flatMap((i) => tokensOf(slots[i])), ...(t ? [t] : [])])];
      const detBy = (ts) => {
        const seen = new Map();
        for (const e of ex) {
          const v = readRuns(e.w, bits);
          const k = presenceKey(e, ts);
          if (seen.has(v) && seen.get(v) !== k) return false;
          seen.set(v, k);
        }
        return true;
      };
      if (!detBy(toks)) return undefined;
      // repairing an ambiguous slot: derived tokens the merged bits determine (RED's `.64`) join it
      if (must !== undefined) for (const d of derived) if (!toks.includes(d.token) && detBy([...toks, d.token])) toks.push(d.token);
      const map = {};
      for (const e of ex) map[String(readRuns(e.w, bits))] = toks.filter((x) => e.flat.tokens.has(x));
      if (must !== undefined && ambiguous(map)) return undefined;
      return { bits, map: Object.fromEntries(Object.entries(map).sort((a, b) => Number(a[0]) - Number(b[0]))) };
    };
    const n = slots.length;
    const combos = [];
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) combos.push([i, j]);
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) for (let k = j + 1; k < n; k++) combos.push([i, j, k]);
    for (const idx of combos) {
      const m = tryMerge(idx);
      if (!m) continue;
      for (const i of [...idx].sort((a, b) => b - a)) slots.splice(i, 1);
      slots.push(m);
      return true;
    }
    return false;
  };
  const derivedToks = varying.filter((t) => !slotted.has(t));
  const derived = [];
  for (const t of derivedToks) {
    let when = learnCondition(ex, t, atomKeys, [...slotted, ...fixed]);
    if (!when && mergeFor(t)) {
      slotted.add(t);
      continue;
    }
    if (!when) {
      problems.push(`token ${t} is neither encoded nor derivable`);
      continue;
    }
    derived.push({ token: t, when });
  }
  // A slot whose values print the same (bit 74 of RED's type, which only `.64`, `.F32` and `.F64` together
  // tell apart) joins the slots that complete it; what is left ambiguous is a problem: encoding could not
  // choose between the values.
  for (let i = 0; i < slots.length; i++) if (ambiguous(slots[i].map) && mergeFor(undefined, i)) i = -1;
  for (const sl of slots) for (const ts of Object.values(sl.map)) for (const x of ts) slotted.add(x);
  for (let i = derived.length - 1; i >= 0; i--) if (slotted.has(derived[i].token)) derived.splice(i, 1);
  for (const sl of slots) {
    const back = new Map();
    for (const [v, ts] of Object.entries(sl.map)) {
      const k = [...ts].sort().join(',');
      if (back.has(k) && back.get(k) !== v) problems.push(`slot ${JSON.stringify(sl.bits)} values ${back.get(k)} and ${v} print the same (${k || 'nothing'})`);
      back.set(k, v);
    }
  }

  // Printing order: precedence of tokens as they appear, ties by first appearance.
  allTokens.splice(0, allTokens.length, ...realTokens);
  const firstIdx = new Map(allTokens.map((t, i) => [t, i]));
  const succ = new Map(allTokens.map((t) => [t, new Set()]));
  const indeg = new Map(allTokens.map((t) => [t, 0]));
  for (const e of ex) {
    const seq = [...e.flat.tokens].filter((t) => !t.endsWith(':reuse'));
    for (let i = 0; i + 1 < seq.length; i++) {
      const a = seq[i];
      const b = seq[i + 1];
      if (!succ.get(a).has(b)) {
        succ.get(a).add(b);
        indeg.set(b, indeg.get(b) + 1);
      }
    }
  }
  const order = [];
  const done = new Set();
  while (order.length < allTokens.length) {
    let pick;
    for (const t of allTokens) if (!done.has(t) && indeg.get(t) === 0 && (pick === undefined || firstIdx.get(t) < firstIdx.get(pick))) pick = t;
    if (pick === undefined) pick = allTokens.find((t) => !done.has(t)); // cycle: break at first seen
    done.add(pick);
    order.push(pick);
    for (const s of succ.get(pick)) indeg.set(s, indeg.get(s) - 1);
  }

  const guard = ex.some((e) => e.flat.guardFile === 'UP' && e.flat.guardN !== 7) ? 'UP' : ex.some((e) => e.ins.guard && e.ins.guard.file === 'P') ? 'P' : opcode.startsWith('U') ? 'UP' : 'P';
  const maskBits = new Map();
  for (const b of constBits.keys()) maskBits.set(b, 1);
  if (hidden) for (const [p, n] of hidden) for (let b = p; b < p + n; b++) constBits.set(b, getBits(ex[0].w, b, 1)); // default, not checked
  const row = {
    archs: [arch],
    op,
    name: opcode,
    sig,
    guard,
    atoms: atoms.map((a) => {
      const o = { key: a.key, parts: a.parts, enc: a.enc };
      if (a.scale && a.scale !== 1) o.scale = a.scale;
      if (a.eq !== undefined) o.eq = a.eq;
      if (a.from) o.from = a.from;
      return o;
    }),
    slots,
    fixed,
    derived,
    order,
    ...(Object.keys(reuse).length ? { reuse } : {}),
    ...(hidden ? { hidden } : {}),
    mask: toHex128(maskBits),
    value: toHex128(constBits),
  };
  const determined = atoms.filter((a) => !a.twinOf && a.eq === undefined && !ex.every((e) => e.flat.atoms.get(a.key) === ex[0].flat.atoms.get(a.key)));
  return { row, problems, determined };
}

// ------------------------------------------------------------------ main
function groupKey(e) {
  const ra = (e.flat.tokens.has('m:REL') ? '|REL' : e.flat.tokens.has('m:ABS') ? '|ABS' : '') + (e.flat.tokens.has('m:BF16_V2') ? '|BF16' : '');
  return `${getBits(e.w, 0, 12)}|${e.flat.opcode}|${e.flat.sig}${ra}`;
}

const EXAMPLES = new Map(Object.keys(SOURCES).map((a) => [a, loadExamples(a)]));
const GROUPS = new Map();
for (const [arch, ex] of EXAMPLES) {
  const groups = new Map();
  for (const e of ex) {
    const k = groupKey(e);
    const g = groups.get(k) ?? [];
    g.push(e);
    groups.set(k, g);
  }
  GROUPS.set(arch, groups);
}
// Other archs whose examples of the same form may join an arch's own (more modifier combinations seen).
const POOL = { sm_70: [], sm_75: ['sm_80', 'sm_86'], sm_80: ['sm_86', 'sm_75', 'sm_90'], sm_86: ['sm_80', 'sm_75', 'sm_90'], sm_90: ['sm_86', 'sm_80', 'sm_75'] };

// nvdisasm prints no base register when it is RZ (`[UR4]`), and with it no base suffix (`.64`, `.U32`), yet
// the word keeps the suffix bits. Learn the row from the examples that print a base, read the suffix those
// bits give for the others (their text cannot tell), then learn again from all examples.
function imputeHiddenBaseSuffixes(arch, ex, hints, blocked, withFixed = true) {
  const memOps = [];
  ex[0].ins.operands.forEach((o, i) => {
    if (o.k === 'mem' && !o.gdesc && !o.descOnly) memOps.push(i);
  });
  if (!memOps.length) return ex;
  const hidden = (e, i) => e.ins.operands[i].base === 255 && !e.ins.operands[i].baseSfx?.length;
  const shown = ex.filter((e) => memOps.every((i) => !hidden(e, i)));
  if (!shown.length || shown.length === ex.length) return ex;
  const { row } = learnRow(arch, shown, hints, blocked);
  // A joint slot (sm_75 LDG's size, scope and suffix together) may not have seen the hidden example's
  // combination: then one bit of the slot that alone tells, over the shown examples, whether the suffix is
  // printed (bit 90 for `.64`) decides it.
  const sfxOf = (e, i) => e.ins.operands[i].baseSfx ?? [];
  const separatingBit = (sl, i, sfx) => {
    for (const [p, n] of sl.bits)
      for (let b = p; b < p + n; b++) if (shown.every((e) => (getBits(e.w, b, 1) === 1) === sfxOf(e, i).includes(sfx))) return b;
    return undefined;
  };
  let changed = false;
  const out = ex.map((e) => {
    const add = [];
    for (const i of memOps) {
      if (!hidden(e, i)) continue;
      // a suffix every shown example prints (sm_75 ST/LD `[R34.64+UR4+0x20]`): the hidden ones carry it too
      // (their bits say otherwise only if the joint learning below finds a conflict)
      if (withFixed && shown.length >= 2) for (const t of row.fixed) if (t.startsWith(`${i}.`)) add.push([i, t.slice(String(i).length + 1)]);
      for (const sl of row.slots) {
        const toks = Object.values(sl.map).flat();
        if (!toks.some((t) => t.startsWith(`${i}.`))) continue;
        const got = sl.map[String(readRuns(e.w, sl.bits))];
        if (got) {
          for (const t of got) if (t.startsWith(`${i}.`)) add.push([i, t.slice(String(i).length + 1)]);
          continue;
        }
        for (const sfx of new Set(toks.filter((t) => t.startsWith(`${i}.`)).map((t) => t.slice(String(i).length + 1)))) {
          const b = separatingBit(sl, i, sfx);
          if (b !== undefined && getBits(e.w, b, 1) === 1) add.push([i, sfx]);
        }
      }
    }
    if (!add.length) return e;
    changed = true;
    const ins = structuredClone(e.ins);
    for (const [i, sfx] of add) (ins.operands[i].baseSfx ??= []).push(sfx);
    return { ...e, ins, flat: flatten(ins) };
  });
  return changed ? out : ex;
}

function learnAll(hints, blocked) {
  const rowsOut = [];
  const slotBits = new Map();
  const constSeen = new Map();
  let totalProblems = 0;
  const learned = new Map();
  for (const arch of Object.keys(SOURCES)) {
    const groups = GROUPS.get(arch);
    for (const [k, own] of groups) {
      let ownI = hints ? imputeHiddenBaseSuffixes(arch, own, hints, blocked) : own;
      let { row, problems, determined } = learnRow(arch, ownI, hints, blocked);
      if (hints && problems.length) {
        // carrying the always-printed suffixes over to the hidden words may be wrong (ATOMS `[UR6]` words lack
        // the `.X4` bit of `[R3.X4+UR8]`): keep whichever reading explains the words better
        const alt = imputeHiddenBaseSuffixes(arch, own, hints, blocked, false);
        if (alt !== ownI) {
          const r2 = learnRow(arch, alt, hints, blocked);
          if (r2.problems.length < problems.length) {
            ({ row, problems, determined } = r2);
            ownI = alt;
          }
        }
      }
      let g = ownI;
      const name = own[0].flat.opcode;
      if (!BRANCHY.has(name) && hints) {
        // Pool the same form from related archs when the pooled data is still consistent.
        let pooled = [...own];
        for (const other of POOL[arch]) for (const e of GROUPS.get(other).get(k) ?? []) pooled.push(e);
        if (pooled.length > own.length) {
          pooled = imputeHiddenBaseSuffixes(arch, pooled, hints, blocked);
          const r2 = learnRow(arch, pooled, hints, blocked);
          if (r2.problems.length <= problems.length && r2.row.slots.length >= row.slots.length - 0) {
            ({ row, problems, determined } = r2);
            g = pooled;
          }
        }
      }
      for (const a of determined) {
        for (const hk of hintKeys(row.name, row.sig, a.key)) {
          const c = learned.get(hk) ?? new Map();
          const ak = JSON.stringify({ parts: a.parts, enc: a.enc, scale: a.scale });
          c.set(ak, (c.get(ak) ?? 0) + g.length);
          learned.set(hk, c);
        }
      }
      if (hints && debug && `${arch} ${k}`.includes(debug)) {
        console.error(`== ${arch} ${k}`);
        for (const e of g) console.error(`  ${[...e.w].reverse().map((x) => x.toString(16).padStart(8, '0')).join('_')}  ${e.text}`);
        console.error(JSON.stringify(row, null, 0));
        console.error(problems.join('\n'));
      }
      if (problems.length) {
        totalProblems += problems.length;
        if (hints && report) console.error(`${arch} ${k} (${g.length} rows, e.g. ${g[0].text}):\n  ${problems.join('\n  ')}`);
      }
      rowsOut.push(row);
    }
  }
  const best = new Map();
  for (const [hk, c] of learned) best.set(hk, JSON.parse([...c.entries()].sort((a, b) => b[1] - a[1])[0][0]));
  // Bits that tell the rows of one opcode field apart (a slot of one row; a constant bit two rows read
  // differently, like LEA's .HI at 80): an integer field of another row must not grow over them.
  const byOp = new Map();
  for (const r of rowsOut) {
    const k = `${r.archs[0]}|${r.op}`;
    const l = byOp.get(k) ?? [];
    l.push(r);
    byOp.set(k, l);
  }
  for (const [k, rs] of byOp) {
    const bits = new Set();
    for (const r of rs) for (const sl of r.slots) for (const [p, n] of sl.bits) for (let b = p; b < p + n; b++) bits.add(b);
    for (let b = 16; b < 128; b++) {
      const vals = new Set();
      for (const r of rs) if ((BigInt(r.mask) >> BigInt(b)) & 1n) vals.add(Number((BigInt(r.value) >> BigInt(b)) & 1n));
      if (vals.size > 1) bits.add(b);
    }
    slotBits.set(k, bits);
  }
  return { rowsOut, totalProblems, hints: best, slotBits };
}

// Pass 1 finds where operands live when they vary; pass 2 uses that for operands that never vary in a row.
const pass1 = learnAll(undefined);
growAll = true;
const { rowsOut, totalProblems } = learnAll(pass1.hints, pass1.slotBits);

// nvdisasm hides PT operands: where a row B of the same opcode is row A minus some predicate operands that
// B fixes to PT, A must not print words that B prints.
function fixedValueAt(row, parts) {
  const mask = BigInt(row.mask);
  const value = BigInt(row.value);
  let v = 0;
  let sh = 0;
  for (const [p, n] of parts) {
    for (let b = p; b < p + n; b++) {
      if (!((mask >> BigInt(b)) & 1n)) return undefined;
      v |= Number((value >> BigInt(b)) & 1n) << sh++;
    }
  }
  return v;
}
const byName = new Map();
for (const r of rowsOut) {
  const k = `${r.op}|${r.name}`;
  const l = byName.get(k) ?? [];
  l.push(r);
  byName.set(k, l);
}
for (const group of byName.values()) {
  for (const A of group) {
    const as = A.sig.split(',');
    for (const B of group) {
      if (B === A) continue;
      const bs = B.sig.split(',');
      if (bs.length >= as.length) continue;
      // align B as a subsequence of A
      const removed = [];
      let j = 0;
      for (let i = 0; i < as.length; i++) {
        if (j < bs.length && bs[j] === as[i]) j++;
        else removed.push(i);
      }
      // PT predicates and default immediates (TEX's channel mask 0xf) are what nvdisasm leaves out.
      if (j !== bs.length || !removed.every((i) => /^_?(U?P|I)$/.test(as[i]))) continue;
      const conds = [];
      for (const i of removed) {
        const at = A.atoms.find((a) => a.key === String(i));
        if (!at || !at.parts.length) break;
        const v = fixedValueAt(B, at.parts);
        if (v === undefined) break;
        conds.push({ key: String(i), eq: at.enc === 'inv' ? 7 - v : v });
      }
      if (conds.length !== removed.length) continue;
      A.hide ??= [];
      if (!A.hide.some((h) => JSON.stringify(h) === JSON.stringify(conds))) A.hide.push(conds);
    }
  }
}

// Operand forms of one mnemonic share their modifier fields: a slot at the same bits in a sibling row (same
// arch, or the same-form row of a related arch) lends the values it has seen (FSETP's compare codes seen with
// a register source serve the immediate form) when the tables agree on every common value and token set.
{
  const SHARE = { sm_70: ['sm_70'], sm_75: ['sm_75', 'sm_80', 'sm_86'], sm_80: ['sm_80', 'sm_86', 'sm_75'], sm_86: ['sm_86', 'sm_80', 'sm_75'], sm_90: ['sm_90', 'sm_86', 'sm_80'] };
  const byMnemonic = new Map();
  for (const r of rowsOut) {
    const l = byMnemonic.get(r.name) ?? [];
    l.push(r);
    byMnemonic.set(r.name, l);
  }
  const tokensOf = (r) => {
    const t = new Set([...r.fixed, ...r.derived.map((d) => d.token)]);
    for (const sl of r.slots) for (const ts of Object.values(sl.map)) for (const x of ts) t.add(x);
    return t;
  };
  for (const rows of byMnemonic.values()) {
    for (const A of rows) {
      const related = SHARE[A.archs[0]] ?? [A.archs[0]];
      for (const sa of A.slots) {
        const key = JSON.stringify(sa.bits);
        for (const B of rows) {
          if (B === A || !related.includes(B.archs[0])) continue;
          if (B.archs[0] !== A.archs[0] && B.sig !== A.sig) continue;
          const sb = B.slots.find((x) => JSON.stringify(x.bits) === key);
          if (!sb) continue;
          const merged = { ...sa.map };
          const back = new Map(Object.entries(sa.map).map(([v, ts]) => [[...ts].sort().join(','), v]));
          const own = new Set(Object.values(sa.map).flat());
          const elsewhere = tokensOf(A);
          for (const t of own) elsewhere.delete(t);
          let ok = true;
          for (const [v, ts] of Object.entries(sb.map)) {
            const k = [...ts].sort().join(',');
            if (merged[v] !== undefined) {
              if ([...merged[v]].sort().join(',') !== k) ok = false;
              continue;
            }
            if (back.has(k) || ts.some((t) => elsewhere.has(t))) {
              ok = false;
              continue;
            }
            // operand tokens must name an operand this row has at the same index and shape
            if (ts.some((t) => /^\d/.test(t) && A.sig.split(',')[Number(t.split(/[.:=]/)[0])] !== B.sig.split(',')[Number(t.split(/[.:=]/)[0])])) ok = false;
            merged[v] = ts;
            back.set(k, v);
          }
          if (!ok) continue;
          sa.map = Object.fromEntries(Object.entries(merged).sort((a, b) => Number(a[0]) - Number(b[0])));
          for (const ts of Object.values(sa.map)) for (const t of ts) if (!A.order.includes(t)) A.order.push(t);
        }
      }
    }
  }
}

// nvdisasm prints an indexed constant with RZ and offset 0 as `c[0x3][RZ]`: a direct row (C) whose index
// register bits are constant RZ leaves offset 0 to the indexed row (Cr) of the same opcode.
for (const group of byName.values()) {
  for (const A of group) {
    const as = A.sig.split(',');
    for (const B of group) {
      if (B === A || B.archs[0] !== A.archs[0]) continue;
      const bs = B.sig.split(',');
      if (bs.length !== as.length) continue;
      const diff = as.map((x, i) => (x === bs[i] ? -1 : i)).filter((i) => i >= 0);
      if (diff.length !== 1 || as[diff[0]].replace('_', '') !== 'C' || bs[diff[0]].replace('_', '') !== 'Cr') continue;
      const i = diff[0];
      const r = B.atoms.find((a) => a.key === `${i}.r`);
      if (!r || !r.parts.length || fixedValueAt(A, r.parts) !== 255) continue;
      const cond = [{ key: `${i}.o`, eq: 0 }];
      A.hide ??= [];
      if (!A.hide.some((h) => JSON.stringify(h) === JSON.stringify(cond))) A.hide.push(cond);
    }
  }
}

// sm_90 stores branch offsets in words, D[7:0] in bits 16..23 and the rest in 34..81 (README layout facts);
// the golden sm_90 pairs have no CALL/RET/BRX (and no BRA.DIV UR form): give them the older forms with the
// sm_90 offset layout. Relative offsets only (byte offsets in 32..81 or word offsets in 34..81); absolute
// targets (CALL.ABS, RET.ABS) keep their older layout.
{
  const SPLIT_BRANCHES = new Set(['CALL', 'RET', 'BRA', 'BRX', 'BRXU']);
  const have90 = new Set(rowsOut.filter((r) => r.archs.includes('sm_90')).map((r) => `${r.op}|${r.name}|${r.sig}`));
  const add = new Map();
  const relOffset = (a) =>
    (a.enc === 'rel' && a.parts.length === 1 && a.parts[0][0] === 32 && a.parts[0][1] >= 48) ||
    ((a.enc === 'rel' || a.enc === 's') && a.parts.length === 1 && a.parts[0][0] === 34 && a.parts[0][1] === 48 && a.scale === 4);
  for (const r of rowsOut) {
    if (r.archs.includes('sm_90') || !SPLIT_BRANCHES.has(r.name) || r.fixed.includes('m:ABS')) continue;
    const k = `${r.op}|${r.name}|${r.sig}`;
    if (have90.has(k) || add.has(k + JSON.stringify(r.fixed))) continue;
    const rel = r.atoms.find(relOffset);
    if (!rel) continue;
    let mask = BigInt(r.mask);
    let value = BigInt(r.value);
    for (let b = 16n; b < 24n; b++) {
      if (r.atoms.some((a) => a !== rel && a.parts.some(([p, n]) => b >= BigInt(p) && b < BigInt(p + n)))) continue;
      mask &= ~(1n << b);
      value &= ~(1n << b);
    }
    // bits 32..33 are below the word offset: constant zero
    for (const b of [32n, 33n]) {
      if (r.atoms.some((a) => a !== rel && a.parts.some(([p, n]) => b >= BigInt(p) && b < BigInt(p + n)))) continue;
      if (r.slots.some((sl) => sl.bits.some(([p, n]) => b >= BigInt(p) && b < BigInt(p + n)))) continue;
      mask |= 1n << b;
      value &= ~(1n << b);
    }
    const hex = (x) => '0x' + x.toString(16).padStart(32, '0');
    const copy = { ...r, archs: ['sm_90'], atoms: r.atoms.map((a) => (a === rel ? { key: a.key, parts: [[16, 8], [34, 48]], enc: a.enc, scale: 4 } : a)), mask: hex(mask), value: hex(value) };
    add.set(k + JSON.stringify(r.fixed), copy);
  }
  rowsOut.push(...add.values());
}

// One row serving several archs when the archs agree exactly.
const merged = new Map();
for (const r of rowsOut) {
  const { archs, ...rest } = r;
  const key = JSON.stringify(rest);
  const m = merged.get(key);
  if (m) m.archs.push(...archs);
  else merged.set(key, { archs: [...archs], ...rest });
}
const finalRows = [...merged.values()].sort((a, b) => a.op - b.op || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) || (a.sig < b.sig ? -1 : a.sig > b.sig ? 1 : 0) || (a.archs[0] < b.archs[0] ? -1 : 1));

const lines = [
  '// GENERATED by scripts/derive-volta-table.mjs from ../shared/golden — review diffs, do not edit by hand.',
  '// One row per printed form: opcode field, mnemonic, operand shapes, where each number lives (bit runs),',
  '// modifier slots (bits → tokens), tokens always printed, derived tokens, print order, constant bits.',
  "import type { RowSpec } from '@ptxforge/sass';",
  '',
  'export const VOLTA_ROWS: RowSpec[] = [',
  ...finalRows.map((r) => '  ' + JSON.stringify(r) + ','),
  '];',
  '',
];
writeFileSync(resolve(here, '../src/rows.ts'), lines.join('\n'));
console.log(`derive-volta-table: ${finalRows.length} rows (${rowsOut.length} before merging archs), ${totalProblems} problems`);
