#!/usr/bin/env node
// Experiments on ptxas 13.0.88's full-unroll rule (issue #14): constant-trip loops with a body of B
// instructions and trip count T, written as PTX, compiled by `ptxas -arch=sm_90 -O3`; the loops left in the
// cubin are counted as back edges decoded by @ptxforge/mercury-volta (scripts/lib/cubin-branches.mjs).
// Prints a table: one row per body kind and size, one column per trip count ('F' fully unrolled, 'L' a loop
// remains, with the static instruction count). Usage (after building targets/mercury-volta):
//   node plugins/loop/scripts/ptxas-unroll-experiments.mjs [kind=fma|load|int] [B,B,...] [T,T,...|max]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const { decodeVoltaSection } = await import(path.join(ROOT, 'targets/mercury-volta/dist/index.js'));
const { cubinLoopCounts } = await import(path.join(ROOT, 'scripts/lib/cubin-branches.mjs'));
const kind = process.argv[2] ?? 'fma';
const sizes = (process.argv[3] ?? '1,2,4,8,12,16,24,32,48').split(',').map(Number);
const trips = (process.argv[4] ?? '4,8,16,32,64,128,256,512').split(',').map(Number);
const dir = mkdtempSync(path.join(tmpdir(), 'unroll-exp-'));

/** A kernel whose loop body has `b` instructions of the given kind besides the loop control. */
function ptx(b, t) {
  const body = [];
  if (kind === 'fma') {
    body.push('ld.global.f32 %f2, [%rd5];');
    for (let k = 0; k < b; k++) body.push(`fma.rn.f32 %f1, %f1, %f2, 0f${(0x3f000000 + k * 0x1001).toString(16).toUpperCase()};`);
  } else if (kind === 'load') {
    for (let k = 0; k < b; k++) body.push(`ld.global.f32 %f${10 + k}, [%rd5+${4 * k}];`, `add.f32 %f1, %f1, %f${10 + k};`);
  } else {
    body.push('ld.global.u32 %r10, [%rd5];');
    for (let k = 0; k < b; k++) body.push(k % 2 ? `xor.b32 %r11, %r11, %r10;` : `shf.l.wrap.b32 %r11, %r11, %r11, ${(k % 29) + 1};`);
  }
  return `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 in) {
  .reg .b32 %r<200>; .reg .f32 %f<200>; .reg .pred %p<4>; .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [out]; ld.param.u64 %rd2, [in];
  cvta.to.global.u64 %rd3, %rd2; cvta.to.global.u64 %rd6, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 0; mov.u32 %r11, %r1;
  mov.f32 %f1, 0f00000000;
  mul.wide.u32 %rd4, %r1, 4; add.s64 %rd5, %rd3, %rd4;
LOOP:
  ${body.join('\n  ')}
  add.s64 %rd5, %rd5, ${kind === 'load' ? 4 * b : 4};
  add.s32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, ${t};
  @%p1 bra LOOP;
  add.s64 %rd7, %rd6, %rd4;${outside()}
  cvt.rn.f32.u32 %f3, %r11; add.f32 %f1, %f1, %f3;
  st.global.f32 [%rd7], %f1;
  ret;
}
`;
}

/** EXTRA=N: N instructions of straight-line code after the loop (does the function's size matter?). */
function outside() {
  const n = Number(process.env.EXTRA ?? 0);
  let s = '';
  for (let k = 0; k < n; k++) s += `\n  ld.global.f32 %f150, [%rd7+${4 * (k + 1)}]; fma.rn.f32 %f1, %f1, %f150, 0f3F800000;`;
  return s;
}

function run(b, t) {
  const f = path.join(dir, `k-${b}-${t}.ptx`);
  writeFileSync(f, ptx(b, t));
  const cubin = f.replace(/\.ptx$/, '.cubin');
  execFileSync('ptxas', ['-arch=sm_90', '-O3', f, '-o', cubin]);
  return cubinLoopCounts(readFileSync(cubin), (code) => decodeVoltaSection('sm_90', code)).get('k');
}

if (process.argv[4] === 'max') {
  // The largest trip count ptxas still fully unrolls, per body size (bisection over 1..4096; assumes monotony).
  console.log(`ptxas -O3 sm_90, body kind ${kind}: largest fully unrolled trip count per body size`);
  console.log('| B | max full trip | static instrs at it | trip*(B) |');
  console.log('|---:|---:|---:|---:|');
  for (const b of sizes) {
    let lo = 1, hi = 4096;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (run(b, mid).loops === 0) lo = mid; else hi = mid - 1;
    }
    console.log(`| ${b} | ${lo} | ${run(b, lo).instructions} | ${lo * b} |`);
  }
  process.exit(0);
}
console.log(`ptxas -O3 sm_90, body kind ${kind}: F = no loop left, L = a loop remains (static instructions)`);
console.log(`| B \\ T | ${trips.join(' | ')} |`);
console.log(`|---|${trips.map(() => '---').join('|')}|`);
for (const b of sizes) {
  const cells = trips.map((t) => {
    const r = run(b, t);
    return `${r.loops ? 'L' : 'F'} ${r.instructions}`;
  });
  console.log(`| ${b} | ${cells.join(' | ')} |`);
}
