#!/usr/bin/env node
// Decode / re-encode every instruction word of every .text section of the cubins in the given folders,
// per arch (from the ELF header): `sm_90: N words, K known, R identical`, plus (with --top) the most
// frequent unknown opcode fields. A development aid for growing the tables; the repository-wide check is
// `pnpm -s sass-roundtrip`.
// usage: node scripts/roundtrip-cubins.mjs DIR... [--top 20]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readCubin } from '@ptxforge/cubin';
import { isUnknown, wordFromBytes, wordsEqual, formatInstruction } from '@ptxforge/sass';
import { voltaCodec, VOLTA_ARCH_CHAINS } from '../dist/index.js';

const args = process.argv.slice(2);
const ti = args.indexOf('--top');
const top = ti >= 0 ? Number(args[ti + 1]) : 0;
const dirs = args.filter((a, i) => !a.startsWith('--') && (ti < 0 || i !== ti + 1));
const files = [];
const walk = (d) => {
  for (const e of readdirSync(d).sort()) {
    const p = join(d, e);
    if (statSync(p).isDirectory()) walk(p);
    else if (e.endsWith('.cubin')) files.push(p);
  }
};
for (const d of dirs) walk(d);
const stats = new Map();
for (const f of files) {
  let cubin;
  try {
    cubin = readCubin(new Uint8Array(readFileSync(f)));
  } catch {
    continue;
  }
  const arch = cubin.arch.name;
  if (!VOLTA_ARCH_CHAINS[arch]) continue;
  const codec = voltaCodec(arch);
  const st = stats.get(arch) ?? { words: 0, known: 0, identical: 0, unknown: new Map(), mismatch: new Map() };
  stats.set(arch, st);
  for (const fn of cubin.functions) {
    const code = fn.code;
    for (let off = 0; off + 16 <= code.length; off += 16) {
      const w = wordFromBytes(code, off, 128);
      st.words++;
      const d = codec.decode(w, off);
      if (isUnknown(d)) {
        const k = `0x${d.opcodeField.toString(16)} ${d.reason}`;
        const u = st.unknown.get(k) ?? { n: 0, ex: [...w].reverse().map((x) => x.toString(16).padStart(8, '0')).join('_'), why: codec.explain(w).slice(0, 2) };
        u.n++;
        st.unknown.set(k, u);
        continue;
      }
      st.known++;
      let e;
      try {
        e = codec.encode(d, off);
      } catch (err) {
        e = undefined;
      }
      if (e && wordsEqual(e, w)) st.identical++;
      else {
        const k = formatInstruction(d);
        st.mismatch.set(k, (st.mismatch.get(k) ?? 0) + 1);
      }
    }
  }
}
for (const [arch, st] of [...stats].sort()) {
  console.log(`${arch}: ${st.words} words, ${st.known} known, ${st.identical} identical (${((100 * st.identical) / st.words).toFixed(2)}%)`);
  if (top) {
    for (const [k, u] of [...st.unknown].sort((a, b) => b[1].n - a[1].n).slice(0, top)) {
      console.log(`   ${String(u.n).padStart(6)} ${k}  e.g. ${u.ex}`);
      for (const x of u.why) console.log(`            ${x.row} [${x.archs}] bits ${x.badBits.join(',')} slots ${x.badSlots.join(' ')}`);
    }
    for (const [k, n] of [...st.mismatch].sort((a, b) => b[1] - a[1]).slice(0, 5)) console.log(`   mismatch ${n} ${k}`);
  }
}
