/**
 * Generators of the large PTX inputs of issue #16's table, rows 2, 4 and 5 (the optimizer's scaling cases):
 * used by the regression test (stress.test.ts) and by `pnpm -s bench:stress` (scripts/bench-stress.mjs),
 * which times them against ptxas. Each returns one sm_90 kernel as text; the sizes default to the issue's.
 */
const HEAD = '.version 8.0\n.target sm_90\n.address_size 64\n\n';
const PROLOGUE = [
  '.visible .entry k(.param .u64 k_out)',
  '{',
  '  .reg .pred %p<4>;',
  '  .reg .b32 %r<8>;',
  '  .reg .b64 %rd<4>;',
  '  ld.param.u64 %rd1, [k_out];',
  '  cvta.to.global.u64 %rd2, %rd1;',
  '  mov.u32 %r1, %tid.x;',
  '  mov.u32 %r2, %ctaid.x;',
  '  mov.u32 %r3, 0;',
];
const EPILOGUE = ['  st.global.u32 [%rd2], %r3;', '  ret;', '}', ''];

/** Row 2: `n` if/else diamonds in a row (3 blocks each: about 3n blocks), each depending on the last. */
export function diamondsPtx(n = 5000): string {
  const b = [...PROLOGUE];
  for (let i = 0; i < n; i++) {
    b.push('  setp.lt.u32 %p1, %r3, %r1;', `  @%p1 bra ELSE_${i};`, `  add.u32 %r3, %r3, ${i + 1};`, `  bra JOIN_${i};`);
    b.push(`ELSE_${i}:`, '  xor.b32 %r3, %r3, %r2;', `JOIN_${i}:`);
  }
  return HEAD + [...b, ...EPILOGUE].join('\n');
}

/** Row 4: one register (%r4) defined `n` times in one block; every other definition is dead. */
export function redefinitionsPtx(n = 20000): string {
  const b = [...PROLOGUE];
  for (let i = 0; i < n; i++) {
    if (i % 2) b.push(`  mad.lo.u32 %r3, %r4, ${i}, %r3;`, `  add.u32 %r4, %r1, ${i};`);
    else b.push(`  mul.lo.u32 %r4, %r2, ${i};`);
  }
  b.push('  add.u32 %r3, %r3, %r4;');
  return HEAD + [...b, ...EPILOGUE].join('\n');
}

/** Row 5: `n` independent `if` blocks (a guarded branch around one or two instructions: predication candidates). */
export function independentIfsPtx(n = 3000): string {
  const b = [...PROLOGUE];
  for (let i = 0; i < n; i++) {
    b.push(`  setp.eq.u32 %p1, %r1, ${i % 1024};`, `  @!%p1 bra SKIP_${i};`, `  add.u32 %r3, %r3, ${i + 1};`);
    if (i % 3 === 0) b.push(`  st.global.u32 [%rd2+${4 * (i % 256) + 4}], %r3;`);
    b.push(`SKIP_${i}:`);
  }
  return HEAD + [...b, ...EPILOGUE].join('\n');
}

export interface StressRow {
  readonly row: number;
  readonly name: string;
  readonly what: string;
  readonly make: () => string;
}

export const STRESS_ROWS: readonly StressRow[] = [
  { row: 2, name: 'diamonds-5000', what: '5000 if/else diamonds (~15k blocks)', make: () => diamondsPtx(5000) },
  { row: 4, name: 'redef-20000', what: 'one register defined 20k times', make: () => redefinitionsPtx(20000) },
  { row: 5, name: 'ifs-3000', what: '3000 independent if blocks', make: () => independentIfsPtx(3000) },
];
