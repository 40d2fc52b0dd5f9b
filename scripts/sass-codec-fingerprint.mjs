#!/usr/bin/env node
// Fingerprint of the Volta+ codec's behaviour on real words, to show that a codec change (speed work, table
// refactors) changes nothing it should not: for every word of every ptxas cubin under DIR (default the
// sass-roundtrip cache, .cache/sass-roundtrip, filled by `pnpm -s sass-roundtrip`), per arch, one line with
// the decoded structure (JSON), the nvdisasm text with control, encode(decode(word)) and
// encode(parse(text)) as hex (or the error code). Prints one sha256 per arch; `--dump FILE` also writes every
// line, to diff two runs.
// usage: node scripts/sass-codec-fingerprint.mjs [--dir DIR] [--arch sm_90,...] [--dump FILE]
// Needs `pnpm --filter '@ptxforge/mercury-volta...' --filter @ptxforge/cubin build` first (reads dist/).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const imp = (p) => import(pathToFileURL(path.join(repo, p)).href);
const sass = await imp('packages/sass/dist/index.js');
const volta = await imp('targets/mercury-volta/dist/index.js');
const { readCubin } = await imp('packages/cubin/dist/index.js');

const args = process.argv.slice(2);
const opt = (k, d) => (args.indexOf(k) >= 0 ? args[args.indexOf(k) + 1] : d);
const dir = opt('--dir', path.join(repo, '.cache', 'sass-roundtrip'));
const archs = opt('--arch', 'sm_75,sm_80,sm_86,sm_89,sm_90,sm_100,sm_120').split(',');
const dump = opt('--dump', undefined);
if (!existsSync(dir)) {
  console.error(`sass-codec-fingerprint: ${dir} missing (run \`pnpm -s sass-roundtrip\` first)`);
  process.exit(1);
}

const cubins = [];
const walk = (d) => {
  for (const e of readdirSync(d).sort()) {
    const p = path.join(d, e);
    if (statSync(p).isDirectory()) walk(p);
    else if (e.endsWith('.cubin')) cubins.push(p);
  }
};
walk(dir);

const hex = (w) => sass.wordToHex(w);
const tryEnc = (codec, ins, addr) => {
  try {
    return hex(codec.encode(ins, addr));
  } catch (e) {
    return `ERR ${e.code ?? e.message}`;
  }
};
const lines = [];
for (const arch of archs) {
  const codec = volta.voltaCodec(arch);
  const h = createHash('sha256');
  let n = 0;
  let known = 0;
  let same = 0;
  for (const p of cubins) {
    let c;
    try {
      c = readCubin(new Uint8Array(readFileSync(p)));
    } catch {
      continue;
    }
    if (c.arch.name !== arch) continue;
    for (const f of c.functions) {
      for (let o = 0; o + 16 <= f.code.length; o += 16) {
        const w = sass.wordFromBytes(f.code, o, 128);
        const d = codec.decode(w, o);
        n++;
        let line;
        if (sass.isUnknown(d)) line = `U ${d.opcodeField} ${d.reason}`;
        else {
          known++;
          const text = sass.formatInstruction(d, { control: true });
          const e1 = tryEnc(codec, d, o);
          if (e1 === hex(w)) same++;
          let e2;
          try {
            const parsed = sass.parseInstruction(text);
            e2 = tryEnc(codec, parsed, o);
          } catch (e) {
            e2 = `PARSE ${e.code ?? e.message}`;
          }
          line = `${JSON.stringify(d)}\t${text}\t${e1}\t${e2}`;
        }
        h.update(line + '\n');
        if (dump) lines.push(`${arch}\t${hex(w)}\t${line}`);
      }
    }
  }
  console.log(`${arch}: ${n} words, ${known} known, ${same} identical, sha256 ${h.digest('hex').slice(0, 16)}`);
}
if (dump) writeFileSync(dump, lines.join('\n') + '\n');
