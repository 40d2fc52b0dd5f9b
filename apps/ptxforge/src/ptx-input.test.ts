import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from './run.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const fixtures = 'packages/ptx/test/fixtures/kernels';

async function cli(args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), env: {}, cwd: repo });
  return { code, stdout, stderr };
}

describe('ptxforge CLI with .ptx input (PTX front end plugin)', () => {
  it('compiles a PTX kernel for sm_90 with parameters in constant bank 0 at 0x210', async () => {
    // -O0: the front end's lowering as written (at -O3 the optimization plugins fold the parameter MOVs).
    const r = await cli(['-arch', 'sm_90', '-O0', '--emit', 'ori', `${fixtures}/hand_vector_add.ptx`]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('.param .u64 .align 8 a c[0x0][0x210]');
    expect(r.stdout).toContain('%r5 = MOV c[0x0][0x228] {line=23 col=2}');
  });

  it('uses the paramBase of the selected target (sm_70: 0x160)', async () => {
    // A .target above -arch is refused (as by ptxas), so the kernel is given as sm_70 PTX.
    const text = readFileSync(path.join(repo, fixtures, 'hand_vector_add.ptx'), 'utf8').replace(/\.target sm_\d+/, '.target sm_70');
    const r = await cli(['-arch', 'sm_70', '--emit', 'ori', '--input-as-string', text]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('.param .u32 .align 4 n c[0x0][0x178]');
  });

  it('reports PTX errors as file:line:col with the PTX error code', async () => {
    const r = await cli(['-arch', 'sm_90', `${fixtures}/../bad/syntax_error.ptx`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`ptxforge: ${fixtures}/../bad/syntax_error.ptx:7:16: error PTX_SYNTAX: expected ',' or ';' after the operands of mov, found '%r2'\n`);
  });
});

describe('issue 16 row 12: bad output paths are clear coded errors', () => {
  it('-o into a folder that does not exist', async () => {
    const r = await cli(['-arch', 'sm_90', '-o', '/no/such/dir/x', `${fixtures}/hand_vector_add.ptx`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error OUTPUT_NOT_WRITABLE');
    expect(r.stderr).toContain('/no/such/dir does not exist');
  });
  it('knob values outside their range and unknown --dump-ir phases', async () => {
    for (const [args, code] of [
      [['--knob', 'GeneralOptimizeMaxRounds=-5'], 'KNOB_OUT_OF_RANGE'],
      [['--knob', 'OriPredicationCostModel=bogus'], 'KNOB_BAD_VALUE'],
      [['--dump-ir', 'NoSuchPhase'], 'DUMP_IR_UNKNOWN_PHASE'],
    ] as const) {
      const r = await cli(['-arch', 'sm_90', '--emit', 'ori', ...args, `${fixtures}/hand_vector_add.ptx`]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`error ${code}`);
    }
  });
});
