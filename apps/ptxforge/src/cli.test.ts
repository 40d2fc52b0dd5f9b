import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from './run.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
const example = path.join(repo, 'examples/ori/vector_add.ori');

async function cli(args: string[], env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), env, cwd: repo });
  return { code, stdout, stderr };
}

describe('ptxforge CLI', () => {
  it('--list-phases prints 159 rows with exact spec names and owners', async () => {
    const r = await cli(['--list-phases']);
    expect(r.code).toBe(0);
    const rows = r.stdout.trimEnd().split('\n');
    expect(rows).toHaveLength(159);
    expect(rows[0]).toMatch(/^\s+0 {2}OriCheckInitialProgram\s+@ptxforge\/plugin-core$/);
    expect(rows[1]).toMatch(/^\s+1 {2}ApplyNvOptRecipes\s+placeholder$/);
    expect(rows[15]).toMatch(/^\s+15 {2}OriBranchOpt\s+@ptxforge\/plugin-branch$/);
    expect(rows[97]).toMatch(/AdvancedPhasePreSched\s+hook \(no handlers\)$/);
    expect(rows[158]).toMatch(/^158 {2}ArchSpecificPhase158\s+placeholder$/);
  });

  it('--list-phases -arch names the slot-17 handler and the pipe widths', async () => {
    const r = await cli(['--list-phases', '-arch', 'sm_80']);
    expect(r.stdout).toContain('DoSwitchOptFirst');
    expect(r.stdout).toContain('slot 17 of sm80: B: per-instruction branch-distance rewriter (sub_729160) (implemented)');
    expect(r.stdout).toContain('# target sm80 (Ampere): pipe widths ALU=4 FMA=4 DFMA=1 MMA=1 LSU=2 TEX=1 BRA/SMEM=1');
    const r30 = await cli(['--list-phases', '-arch=sm_35']);
    expect(r30.stdout).toContain('slot 17 of sm30: NO-OP (sub_661210, rep ret) (noop)');
  });

  it('--stat=phase-wise prints per-phase lines and the summary on stderr', async () => {
    const r = await cli(['-arch', 'sm_90', '--stat=phase-wise', example]);
    expect(r.code).toBe(0);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^OriCheckInitialProgram :: \[Total \d+ KB \] \[Freeable \d+ KB \]/);
    expect(lines.some((l) => l.startsWith('All Phases Summary :: '))).toBe(true);
  });

  it('fails with a clear message for an unknown arch', async () => {
    const r = await cli(['-arch', 'sm_12', example]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^ptxforge: error TARGET_UNKNOWN_ARCH: unknown GPU architecture 'sm_12'/);
  });

  it('reports located parse errors without a stack trace', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ptxforge-'));
    const bad = path.join(dir, 'bad.ori');
    writeFileSync(bad, '.entry @k()\n{\nbb0:\n  %r0 = IADD3 %r1,\n}\n');
    const r = await cli(['-arch', 'sm_90', bad]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/bad\.ori:4:19: error ORI_PARSE: expected an operand/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('-v prints an instruction count line per function', async () => {
    const r = await cli(['-arch', 'sm_90', '-O3', '-v', '--emit', 'ori', example]);
    // The scalar optimization plugins (issue #5) take the example from 19 to 13 instructions at -O3.
    expect(r.stderr).toMatch(/Function vector_add: 13 instructions, 2 blocks/);
    const r0 = await cli(['-arch', 'sm_90', '-O0', '-v', '--emit', 'ori', example]);
    expect(r0.stderr).toMatch(/Function vector_add: 19 instructions, 2 blocks/);
    expect(r.stderr).toMatch(/Compile time = [\d.]+ ms/);
  });

  it('--emit ori writes the module; -o writes a file; output is deterministic', async () => {
    // -O0: no optimization phase runs, so the module comes back as written.
    const a = await cli(['-arch', 'sm_90', '-O0', '--emit', 'ori', example]);
    const b = await cli(['-arch', 'sm_90', '-O0', '--emit', 'ori', example]);
    expect(a.stdout).toBe(readFileSync(example, 'utf8'));
    expect(a.stdout).toBe(b.stdout);
    const out = path.join(mkdtempSync(path.join(tmpdir(), 'ptxforge-')), 'o.ori');
    expect((await cli(['-arch', 'sm_90', '-O0', '-o', out, example])).code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(a.stdout);
  });

  it('--named-phases and --disable-passes choose what runs', async () => {
    const r = await cli(['-arch', 'sm_90', '--stat=phase-wise', '--named-phases', 'finalinspectionpass,OriCheckInitialProgram', example]);
    const ran = r.stderr.split('\n').filter((l) => / :: /.test(l) && !l.startsWith('All')).map((l) => l.split(' ')[0]);
    expect(ran).toEqual(['FinalInspectionPass', 'OriCheckInitialProgram']);
    const d = await cli(['-arch', 'sm_90', '-O0', '--stat=phase-wise', '--disable-passes', 'AnalyzeControlFlow', example], {
      PTXFORGE_DISABLED_PASSES: 'reportinitialrepresentation',
    });
    const ran2 = d.stderr.split('\n').filter((l) => / :: /.test(l) && !l.startsWith('All')).map((l) => l.split(' ')[0]);
    // Hook slots with handlers (BranchFolding's) run at every level; their handlers return early at -O0.
    expect(ran2.filter((n) => !n!.startsWith('AdvancedPhase'))).toEqual(['OriCheckInitialProgram', 'FinalInspectionPass', 'ReportBeforeScheduling']);
    const bad = await cli(['-arch', 'sm_90', '--named-phases', 'NoSuchPhase', example]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('NAMED_PHASES_UNKNOWN');
  });

  it('rejects unknown knobs and bad knob values', async () => {
    const r = await cli(['-arch', 'sm_90', '--knob', 'NoSuchKnob=1', example]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error KNOB_UNKNOWN');
    const v = await cli(['-arch', 'sm_90', '--knob', 'OriSanitizeRemoveUnreachable=maybe', example]);
    expect(v.stderr).toContain("error KNOB_BAD_VALUE: knob OriSanitizeRemoveUnreachable expects a bool");
    const l = await cli(['--list-knobs']);
    expect(l.stdout).toMatch(/OriSanitizeRemoveUnreachable\s+bool\s+default=true/);
  });

  it('--dump-ir prints Ori after the named phase; --verify-ir passes on the example', async () => {
    const r = await cli(['-arch', 'sm_90', '--verify-ir', '--dump-ir', 'AnalyzeControlFlow', example]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\/\/ ----- IR after phase 3 AnalyzeControlFlow -----\n(\/\/.*\n)*\.target sm_90\n/);
  });

  it('loads a third-party plugin with --plugin', async () => {
    const r = await cli(['-arch', 'sm_90', '-v', '--emit', 'ori', '--plugin', './examples/instr-count-plugin/src/index.ts', example]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('instr-count: vector_add has 13 instructions before scheduling');
  });

  it('usage errors are coded', async () => {
    const r = await cli(['--bogus']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error CLI_USAGE: unknown option '--bogus'/);
    expect((await cli(['-arch', 'sm_90'])).stderr).toContain('CLI_NO_INPUT');
    expect((await cli(['-arch', 'sm_90', 'nope.ori'])).stderr).toContain('INPUT_NOT_FOUND');
  });
});

describe('--remarks', () => {
  it('writes a JSON document of remarks (empty when no phase emits any)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ptxforge-remarks-'));
    const out = path.join(dir, 'r.json');
    const r = await cli(['-arch', 'sm_90', '--remarks', out, example]);
    expect(r.code).toBe(0);
    const doc = JSON.parse(readFileSync(out, 'utf8')) as { file: string; arch: string; remarks: unknown[] };
    expect(doc.file).toBe(example);
    expect(doc.arch).toBe('sm_90');
    expect(Array.isArray(doc.remarks)).toBe(true);
  });
  it('an unwritable remarks file is a coded error', async () => {
    const r = await cli(['-arch', 'sm_90', '--remarks', '/no/such/dir/r.json', example]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('OUTPUT_NOT_WRITABLE');
  });
});
