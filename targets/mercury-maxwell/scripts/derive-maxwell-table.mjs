#!/usr/bin/env node
// Derives the Maxwell/Pascal encoding table (src/rows.ts) from the golden vectors in ../shared/golden, with the
// method of @ptxforge/mercury-volta's derive script (same row format, same engine), adapted to this family:
// instruction bits 0..63 of a 64-bit word, plus the slot's 21 control bits at virtual bits 64..84 (stall
// 64..67, yield 68, write barrier 69..71, read barrier 72..74, wait mask 75..80, reuse 81..84 -- the place
// CuAssembler's records put the reuse nibble). Guard 16..18, negate 19; relative branches count from the
// next instruction (+8). The table lookup field is bits 58..63 (the shortest Maxwell opcodes are 6 bits);
// the rest of each opcode is part of the row's constant bits.
//
// For every (arch, opcode field, mnemonic, operand shapes) group of golden rows it finds where each number
// of the structured form lives, which bits are constant, and how the varying bits select tokens.
//
// usage: node scripts/derive-maxwell-table.mjs [--golden DIR] [--report] [--debug KEY]
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { flatten, getBits, readAtomField, storeAtom, setBits } from '@ptxforge/sass';
import { goldenRows, parseMaxwellInstruction } from '../dist/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const goldenArg = args.indexOf('--golden');
const golden = goldenArg >= 0 ? args[goldenArg + 1] : resolve(here, '../../../../shared/golden');
const report = args.includes('--report');
const debugArg = args.indexOf('--debug');
const debug = debugArg >= 0 ? args[debugArg + 1] : undefined;
if (!existsSync(join(golden, 'README.md'))) {
  console.error(`derive-maxwell-table: golden folder not found at ${golden} (pass --golden DIR)`);
  process.exit(1);
}

export const SOURCES = {
  sm_50: ['cuasm_insrecords_sm50.tsv'],
  sm_60: ['cuasm_insrecords_sm60.tsv'],
  sm_61: ['cuasm_insrecords_sm61.tsv', 'cudatest.6.sm_61.tsv'],
};

const BRANCH_BASE = 8;
const CONTROL_LO = 64;
const CONTROL_HI = 84; // stall, yield, barriers, wait mask, reuse flags
const REUSE_POS = 81;
const OP_POS = 61;
const OP_WIDTH = 3;
/** Bits an operand field may use: the 64-bit instruction word. */
const FIELD_LO = 0;
const FIELD_HI = 63;
const inField = (b) => b >= FIELD_LO && b <= FIELD_HI && !(b >= 16 && b <= 19);

function isClaimedByLayout(b) {
  return (b >= 16 && b <= 19) || (b >= CONTROL_LO && b <= CONTROL_HI);
}

// ------------------------------------------------------------------ examples
function loadExamples(arch) {
  const out = [];
  for (const f of SOURCES[arch]) {
    for (const r of goldenRows(join(golden, f))) {
      if (r.skip) continue;
      let ins;
      try {
        ins = parseMaxwellInstruction(r.text);
      } catch (e) {
        console.error(`skip ${r.where}: ${e.message}`);
        continue;
      }
      if (ins.operands.some((o) => o.k === 'int' && o.reloc)) continue; // symbolic: the word's value is not in the text
      const w = r.word;
      setBits(w, CONTROL_LO, REUSE_POS - CONTROL_LO, 0); // keep the reuse flags: they are learned per operand
      out.push({ w, ins, flat: flatten(ins), addr: r.addr, noAddr: false, where: r.where, text: r.text });
    }
  }
  return out;
}

// ------------------------------------------------------------------ atoms
const REG_WIDTH = { R: 8, UR: 6, P: 3, UP: 3, B: 4 };

// Layout priors (README facts): tried first, in order.
const PRIOR = {
  R: [0, 8, 20, 39, 28],
  UR: [20],
  P: [0, 3, 39, 48, 44, 8, 12, 20, 28, 47],
  UP: [0, 3, 39],
  B: [0, 20],
  'c.b': [34, 36],
  'c.o': [20, 22],
  'c.r': [8],
  'm.d': [20],
  'm.b': [8],
  'm.u': [20],
  'm.o': [20, 28],
  I: [20, 28, 39, 36],
  F: [20],
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
    if (part === 'o') return { prior: PRIOR['c.o'], tries: [{ enc: 'u', widths: [16, 14] }, { enc: 'u', widths: [14], scale: 4 }], order: 1 };
    if (part === 'r') return { prior: PRIOR['c.r'], tries: [{ enc: 'u', widths: [shape === 'Cr' ? 8 : 6] }], order: 0 };
  }
  if (shape.startsWith('M')) {
    if (part === 'd' || part === 'u') return { prior: PRIOR['m.d'], tries: [{ enc: 'u', widths: [6] }], order: 0 };
    if (part === 'b') return { prior: PRIOR['m.b'], tries: [{ enc: 'u', widths: [8] }], order: 0 };
    if (part === 'o') return { prior: PRIOR['m.o'], tries: [{ enc: 's', widths: [32, 24, 22, 20, 16] }, { enc: 's', bitwise: true, maxWidth: 24 }], order: 2 };
  }
  if (shape === 'F')
    return {
      prior: PRIOR.F,
      tries: [
        { enc: 'f32', widths: [32] },
        { enc: 'f64h', widths: [32] },
        { enc: 'f16', widths: [16] },
        { enc: 'f32', widths: [16] },
        { enc: 'f32', split: [[20, 19], [56, 1]] },
        // HADD2/HMUL2/HFMA2 immediates: two halves, top 10 bits each (9 bits + sign).
        { enc: 'f16', split: [[30, 9], [56, 1]] },
        { enc: 'f16', split: [[20, 9], [29, 1]] },
        { enc: 'f64h', split: [[20, 19], [56, 1]] },
        { enc: 'f32', widths: [19, 20] },
        { enc: 'f64h', widths: [20, 19] },
      ],
      order: 3,
    };
  return { prior: PRIOR.I, tries: 'int', order: 3 };
}

function consistentAt(ex, key, a, claimed) {
  // a: {parts, enc, scale}
  for (const [p, n] of a.parts) for (let b = p; b < p + n; b++) if (claimed[b] || !inField(b)) return false;
  for (const e of ex) {
    const v = e.flat.atoms.get(key);
    const st = storeAtom(a, v, e.addr, BRANCH_BASE);
    if (st === undefined) return false;
    if (readAtomField(e.w, a) !== st) return false;
  }
  return true;
}

const BRANCHY = new Set(['BRA', 'BSSY', 'CALL', 'BRX', 'JMP', 'JMX', 'BPT', 'RET', 'BREAK', 'SSY', 'PBK', 'CAL', 'PRET', 'WARPSYNC', 'BMOV', 'JCAL', 'KILL']);

function intTries(opcode, ex, key) {
  const vals = ex.map((e) => e.flat.atoms.get(key));
  const anyNeg = vals.some((v) => v < 0);
  const tries = [];
  if (BRANCHY.has(opcode) && ex.every((e) => e.noAddr)) return [{ fixedBranch: true }];
  if (BRANCHY.has(opcode)) {
    tries.push({ enc: 'rel', bitwise: true, scale: 1, maxWidth: 50 });
    tries.push({ enc: 'rel', bitwise: true, scale: 4, maxWidth: 50 });
    tries.push({ enc: 's', bitwise: true, scale: 4, maxWidth: 48 });
  }
  // ALU forms with a 20-bit immediate (opcode top nibble 0b0011) keep its sign at bit 56.
  // nvdisasm prints some of them unsigned (IADD3 0xfffff), most signed.
  if (ex.every((e) => getBits(e.w, 60, 4) === 3)) tries.push({ enc: anyNeg || !vals.some((v) => v >= 2 ** 19) ? 's' : 'u', split: [[20, 19], [56, 1]] });
  tries.push({ enc: anyNeg ? 's' : 'u', widths: 'max' });
  return tries;
}

function findAtom(ex, key, opcode, sig, claimed) {
  const kind = atomKind(sig, key);
  const tries = kind.tries === 'int' ? intTries(opcode, ex, key) : kind.tries;
  const positions = [...kind.prior, ...Array.from({ length: FIELD_HI + 1 }, (_, i) => i).filter((p) => !kind.prior.includes(p))];
  for (const t of tries) {
    if (t.fixedBranch) {
      // No instruction addresses in the file (sm90 pairs): README layout facts.
      if (opcode === 'BRA') return { key, parts: [[16, 8], [34, 48]], enc: 'rel', scale: 4 };
      if (opcode === 'BRX') return { key, parts: [[34, 48]], enc: 's', scale: 4 };
      return { key, parts: [[32, 32]], enc: 'rel' };
    }
    if (t.split) {
      const a = { parts: t.split, enc: t.enc };
      if (t.scale && t.scale !== 1) a.scale = t.scale;
      if (consistentAt(ex, key, a, claimed)) return { key, ...a };
      continue;
    }
    if (t.widths === 'max' || t.bitwise) {
      const a = mapBits(ex, key, t, kind.prior, claimed);
      if (a) return a;
      continue;
    }
    for (const w of t.widths) {
      for (const p of positions) {
        if (!inField(p)) continue;
        const a = { parts: [[p, w]], enc: t.enc };
        if (t.scale && t.scale !== 1) a.scale = t.scale;
        if (consistentAt(ex, key, a, claimed)) return { key, ...a };
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
    if (!inField(b) || claimed[b] || used.has(b)) return false;
    for (let k = 0; k < ex.length; k++) if (getBits(ex[k].w, b, 1) !== bitOf(stored[k], i)) return false;
    return true;
  };
  const cands = (i) => {
    const c = [];
    for (let b = FIELD_LO; b <= FIELD_HI; b++) if (fits(b, i)) c.push(b);
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
  while (pos.length < max && fits(pos[pos.length - 1] + 1, pos.length)) set(pos.length, pos[pos.length - 1] + 1);
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

/** Token owner: the operand index of an operand token (`2.H0_H0` → 2), `m` for mnemonic modifiers. */
function owner(t) {
  const m = /^(\d+|m)[.:=]/.exec(t);
  return m ? m[1] : t;
}

/** Combinations whose tokens belong to fewer operands first: a field usually belongs to one operand. */
function byOwner(cs) {
  return cs.map((c, i) => ({ c, i, n: new Set(c.map(owner)).size })).sort((a, b) => a.n - b.n || a.i - b.i).map((x) => x.c);
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
    else if (pos.every((e) => { const v = e.flat.atoms.get(k); return v > 0 && Number.isInteger(Math.log2(v)); })) preds.push({ atom: k, pow2: true });
  }
  for (const t of baseTokens) {
    const h = pos[0].flat.tokens.has(t);
    if (pos.every((e) => e.flat.tokens.has(t) === h)) preds.push({ token: t, has: h });
  }
  const holds = (e, ps) =>
    ps.every((c) => ('eq' in c ? e.flat.atoms.get(c.atom) === c.eq : 'pow2' in c ? (e.flat.atoms.get(c.atom) > 0 && Number.isInteger(Math.log2(e.flat.atoms.get(c.atom)))) : e.flat.tokens.has(c.token) === c.has));
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

function learnRow(arch, ex) {
  const e0 = ex[0];
  const { opcode, sig } = e0.flat;
  const op = getBits(e0.w, OP_POS, OP_WIDTH);
  const claimed = new Array(128).fill(false);
  for (let b = 0; b < 128; b++) claimed[b] = isClaimedByLayout(b);
  // Forms that print no .reuse use the reuse nibble for modifiers (TEX.T / TEX.P live in bits 81..82).
  if (!ex.some((e) => [...e.flat.tokens].some((t) => t.endsWith(':reuse')))) for (let b = REUSE_POS; b < REUSE_POS + 4; b++) claimed[b] = false;
  const atomKeys = [...e0.flat.atoms.keys()];
  const sorted = [...atomKeys].sort((a, b) => atomKind(sig, a).order - atomKind(sig, b).order);
  const atoms = [];
  const problems = [];
  for (const key of sorted) {
    let a = findAtom(ex, key, opcode, sig, claimed);
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
      // The distance may depend on one modifier: the CAS pair is Rb+1, or Rb+2 with .64.
      if (!a) {
        const mods = [...new Set(ex.flatMap((e) => [...e.flat.tokens].filter((t) => t.startsWith('m:'))))];
        for (const o of atoms) {
          if (a || o.twinOf || o.eq !== undefined) continue;
          const diff = (e) => e.flat.atoms.get(key) - e.flat.atoms.get(o.key);
          for (const t of mods) {
            const w = ex.filter((e) => e.flat.tokens.has(t));
            const n = ex.filter((e) => !e.flat.tokens.has(t));
            if (!w.length || !n.length) continue;
            if (!w.every((e) => diff(e) === diff(w[0])) || !n.every((e) => diff(e) === diff(n[0]))) continue;
            a = { key, parts: [], enc: 'u', from: { key: o.key, add: diff(n[0]), ifToken: t, ifAdd: diff(w[0]) - diff(n[0]) }, twinOf: o.key };
            break;
          }
        }
      }
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
  // .reuse flags live in the control bits 81..84: find which flag bit each operand prints.
  const reuse = {};
  for (const t of allTokens) {
    if (!t.endsWith(':reuse')) continue;
    const i = t.slice(0, t.indexOf(':'));
    let best;
    for (let k = 0; k < 4; k++) {
      if (!ex.every((e) => !e.flat.tokens.has(t) || getBits(e.w, REUSE_POS + k, 1) === 1)) continue;
      const score = ex.filter((e) => e.flat.tokens.has(t) === (getBits(e.w, REUSE_POS + k, 1) === 1)).length;
      if (!best || score > best.score) best = { k, score };
    }
    if (best) reuse[i] = best.k;
    else problems.push(`no reuse bit for operand ${i}`);
  }
  const realTokens = allTokens.filter((t) => !t.endsWith(':reuse'));
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
  for (const b of varBits) {
    let S;
    for (let k = 1; k <= Math.min(3, varying.length) && !S; k++) {
      for (const c of byOwner(combos(varying, k))) {
        if (bitIsFunctionOf(ex, b, c)) {
          S = c;
          break;
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
  // A slot whose bits do not determine its tokens alone merges with the slot that completes it (the
  // second of two data types whose size bit is shared with the first).
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
  const derivedToks = varying.filter((t) => !slotted.has(t));
  const derived = [];
  for (const t of derivedToks) {
    const when = learnCondition(ex, t, atomKeys, [...slotted, ...fixed]);
    if (!when) {
      problems.push(`token ${t} is neither encoded nor derivable`);
      continue;
    }
    derived.push({ token: t, when });
  }
  // Fallback: when some token is neither in a slot nor derivable, but every varying token is a function of all
  // the varying bits together, one exact slot over those bits replaces the learned ones (it knows only the
  // combinations the examples show; others decode as unknown).
  if (problems.some((p) => p.includes('neither encoded nor derivable')) && varBits.length && varBits.length <= 40) {
    const rs = runs(varBits);
    const seen = new Map();
    let exact = true;
    for (const e of ex) {
      const v = readRuns(e.w, rs);
      const k = presenceKey(e, varying);
      if (seen.has(v) && seen.get(v) !== k) exact = false;
      seen.set(v, k);
    }
    if (exact) {
      const map = {};
      for (const e of ex) map[String(readRuns(e.w, rs))] = varying.filter((t) => e.flat.tokens.has(t));
      slots.splice(0, slots.length, { bits: rs, map: Object.fromEntries(Object.entries(map).sort((x, y) => Number(x[0]) - Number(y[0]))) });
      derived.splice(0, derived.length);
      for (let i = problems.length - 1; i >= 0; i--) if (problems[i].includes('neither encoded nor derivable')) problems.splice(i, 1);
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
    mask: toHex128(maskBits),
    value: toHex128(constBits),
  };
  return { row, problems };
}

// ------------------------------------------------------------------ main
const rowsOut = [];
let totalProblems = 0;
for (const arch of Object.keys(SOURCES)) {
  const ex = loadExamples(arch);
  const groups = new Map();
  for (const e of ex) {
    const ra = e.flat.tokens.has('m:REL') ? '|REL' : e.flat.tokens.has('m:ABS') ? '|ABS' : '';
    const k = `${getBits(e.w, OP_POS, OP_WIDTH)}|${e.flat.opcode}|${e.flat.sig}${ra}`;
    const g = groups.get(k) ?? [];
    g.push(e);
    groups.set(k, g);
  }
  for (const [k, g] of groups) {
    const { row, problems } = learnRow(arch, g);
    if (debug && `${arch} ${k}`.includes(debug)) {
      console.error(`== ${arch} ${k}`);
      for (const e of g) console.error(`  ${[...e.w].reverse().map((x) => x.toString(16).padStart(8, '0')).join('_')}  ${e.text}`);
      console.error(JSON.stringify(row, null, 0));
      console.error(problems.join('\n'));
    }
    if (problems.length) {
      totalProblems += problems.length;
      if (report) console.error(`${arch} ${k} (${g.length} rows, e.g. ${g[0].text}):\n  ${problems.join('\n  ')}`);
    }
    rowsOut.push(row);
  }
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
// Opcodes without a guard field: never printed with a guard, bits 16..19 always zero.
const guardSeen = new Map();
for (const arch of Object.keys(SOURCES)) {
  for (const e of loadExamples(arch)) {
    const g = guardSeen.get(e.flat.opcode) ?? { zero: true };
    if (e.ins.guard || getBits(e.w, 16, 4) !== 0) g.zero = false;
    guardSeen.set(e.flat.opcode, g);
  }
}
const unguarded = [...guardSeen].filter(([, g]) => g.zero).map(([op]) => op).sort();

const finalRows = [...merged.values()].sort((a, b) => a.op - b.op || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) || (a.sig < b.sig ? -1 : a.sig > b.sig ? 1 : 0) || (a.archs[0] < b.archs[0] ? -1 : 1));

const lines = [
  '// GENERATED by scripts/derive-maxwell-table.mjs from ../shared/golden — review diffs, do not edit by hand.',
  '// One row per printed form: opcode field, mnemonic, operand shapes, where each number lives (bit runs),',
  '// modifier slots (bits → tokens), tokens always printed, derived tokens, print order, constant bits.',
  "import type { RowSpec } from '@ptxforge/sass';",
  '',
  'export const MAXWELL_ROWS: RowSpec[] = [',
  ...finalRows.map((r) => '  ' + JSON.stringify(r) + ','),
  '];',
  '',
  '/** Opcodes whose words have no guard field (bits 16..19 are zero and nvdisasm prints no guard). */',
  `export const MAXWELL_UNGUARDED: string[] = ${JSON.stringify(unguarded)};`,
  '',
];
writeFileSync(resolve(here, '../src/rows.ts'), lines.join('\n'));
console.log(`derive-maxwell-table: ${finalRows.length} rows (${rowsOut.length} before merging archs), ${totalProblems} problems`);
