import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from './run.js';
import { normalizeArch, normalizeArgs, PTXAS_OPTIONS, splitOptionsFileText } from './ptxas-options.js';
import { cacheKeyOf } from './cache.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
const example = path.join(repo, 'examples/ori/vector_add.ori');
const ptx = path.join(repo, 'packages/ptx/test/fixtures/kernels/reduce.ptx');
const tmp = () => mkdtempSync(path.join(tmpdir(), 'ptxforge-cli-'));

async function cli(args: string[], env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), env, cwd: repo });
  return { code, stdout, stderr };
}

describe('ptxas spellings', () => {
  it('normalises single-dash long options, glued values and = forms', () => {
    expect(normalizeArgs(['-arch', 'sm_90', '-lineinfo', '-m64', '-O3', '-maxrregcount=32', '-o', 'x.cubin', 'k.ptx'])).toEqual([
      '--gpu-name', 'sm_90', '--generate-line-info', '--machine', '64', '--opt-level', '3', '--maxrregcount', '32', '--output-file', 'x.cubin', 'k.ptx',
    ]);
    expect(normalizeArgs(['--gpu-name=sm_90', '-arch=sm_80', '-Werror', '-w', '-c', '-e', 'k'])).toEqual([
      '--gpu-name', 'sm_90', '--gpu-name', 'sm_80', '--warning-as-error', '--disable-warnings', '--compile-only', '--entry', 'k',
    ]);
  });
  it('reads sm_90, sm90, compute_90 and sm_90a', () => {
    expect(['sm_90', 'sm90', 'SM_90', 'compute_90'].map(normalizeArch)).toEqual(['sm_90', 'sm_90', 'sm_90', 'sm_90']);
    expect(normalizeArch('sm_90a')).toBe('sm_90a');
  });
  it('splits option files with quotes', () => {
    expect(splitOptionsFileText('-arch sm_90\n  -O2 "--knob" \'A=1 2\'')).toEqual(['-arch', 'sm_90', '-O2', '--knob', 'A=1 2']);
  });
});

describe('every ptxas option is accepted', () => {
  const valueFor: Record<string, string> = {
    'gpu-name': 'sm_90', 'opt-level': '2', machine: '64', fmad: 'false', entry: 'vector_add', 'split-compile': '1',
    'output-file': '', 'options-file': '', 'input-as-string': '', 'Ofast-compile': 'min', maxrregcount: '32',
  };
  const skip = new Set(['help', 'version', 'list-version', 'output-file', 'options-file', 'input-as-string']);
  for (const o of PTXAS_OPTIONS) {
    if (skip.has(o.long)) continue;
    it(`-${o.short[0]} (--${o.long})`, async () => {
      const args = [`-${o.short[0]}`, ...(o.value ? [valueFor[o.long] ?? '1'] : [])];
      const r = await cli(['-arch', 'sm_90', '--emit', 'ori', '--no-cache', ...args, example]);
      expect(r.stderr).not.toMatch(/unknown option/);
      expect(r.code, r.stderr).toBe(0);
      if (o.notHonoured) expect(r.stderr).toContain(`option '--${o.long}'`);
    });
  }
});

describe('ptxas-compatible behaviour', () => {
  it('a Triton-style call never writes Ori into a .cubin: a cubin, or a coded error and no file', async () => {
    const d = tmp();
    const out = path.join(d, 'x.cubin');
    const r = await cli(['-lineinfo', '-v', '--gpu-name=sm_90', ptx, '-o', out]);
    expect(r.stdout).toBe('');
    if (r.code === 0) expect(readFileSync(out).subarray(0, 4)).toEqual(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
    else {
      expect(r.stderr).toMatch(/error (NO_ENCODER|CODEGEN_[A-Z_]+): /);
      expect(existsSync(out)).toBe(false);
    }
  });
  it("the Triton call on a kernel the backend compiles: exit 0, a cubin, nothing on stdout, -v on stderr in ptxas's format", async () => {
    const d = tmp();
    const out = path.join(d, 'x.cubin');
    const r = await cli(['-lineinfo', '-v', '--gpu-name=sm_90', path.join(repo, 'packages/ptx/test/fixtures/kernels/hand_vector_add.ptx'), '-o', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(readFileSync(out).subarray(0, 4)).toEqual(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
    const lines = r.stderr.trimEnd().split('\n');
    // every line is a ptxas info line, ptxas's indented stack/spill line, or the -lineinfo not-honoured warning
    for (const l of lines) expect(l).toMatch(/^(ptxas info {4}: |    \d+ bytes stack frame, \d+ bytes spill stores, \d+ bytes spill loads$|ptxforge warning : option '--generate-line-info')/);
    expect(lines).toContain("ptxas info    : Compiling entry function 'vector_add' for 'sm_90'");
    expect(lines).toContain('ptxas info    : Function properties for vector_add');
    expect(lines.some((l) => /^ptxas info {4}: Used \d+ registers, used \d+ barriers/.test(l))).toBe(true);
    expect(lines[lines.length - 1]).toMatch(/^ptxas info {4}: Compile time = \d+\.\d+ ms$/);
  });
  it('compiles PTX to a cubin: -o, ptxas -v lines with the allocated registers, --maxrregcount', async () => {
    const d = tmp();
    const src = path.join(d, 'k.ptx');
    writeFileSync(src, `.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b) {
  .reg .u64 %rd<4>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.global.u64 %rd3, [%rd1];
  add.u64 %rd3, %rd3, 7;
  st.global.u64 [%rd2], %rd3;
  ret;
}
`);
    const out = path.join(d, 'k.cubin');
    const r = await cli(['-arch=sm_90', '-v', '-maxrregcount=32', src, '-o', out]);
    expect(r.code).toBe(0);
    expect(readFileSync(out).subarray(0, 4)).toEqual(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
    expect(r.stderr).toMatch(/ptxas info    : Used \d+ registers, used 0 barriers/);
    expect(r.stderr).toContain('0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads');
    // without -o the cubin is elf.o in the working directory, as ptxas
    const r2 = await runCli(['-arch', 'sm_90', src], { stdout: () => undefined, stderr: () => undefined, env: {}, cwd: d });
    expect(r2).toBe(0);
    expect(readFileSync(path.join(d, 'elf.o')).subarray(0, 4)).toEqual(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
  });
  it('-v writes ptxas-format info lines to stderr, nothing to stdout', async () => {
    const r = await cli(['-v', '-arch', 'sm_90', '-o', path.join(tmp(), 'r.ori'), ptx]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain("ptxas info    : Compiling entry function '_Z6reducePKfPfif' for 'sm_90'");
    expect(r.stderr).toContain('ptxas info    : Function properties for _Z6reducePKfPfif\n    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n');
    expect(r.stderr).toMatch(/ptxas info {4}: Compile time = [\d.]+ ms\n$/);
  });
  it('--version names ptxforge and the ptxas release it follows (what Triton probes)', async () => {
    const r = await cli(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/ptxforge.*version \d+\.\d+\.\d+/);
    expect(r.stdout).toMatch(/release 13\.0, V13\.0\.88/);
    expect((await cli(['-V'])).stdout).toBe(r.stdout);
  });
  it('-m32 is refused like ptxas; -m64 is fine', async () => {
    const r = await cli(['-m32', '-arch', 'sm_90', example]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/CLI_USAGE: value '32' is not defined for option 'machine'/);
    expect((await cli(['-m64', '-arch', 'sm_90', example])).code).toBe(0);
  });
  it('-Werror turns warnings into a failure; -w silences them', async () => {
    const r = await cli(['-Werror', '-lineinfo', '-arch', 'sm_90', example]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('WARNINGS_AS_ERRORS');
    const w = await cli(['-w', '-lineinfo', '-arch', 'sm_90', example]);
    expect(w.code).toBe(0);
    expect(w.stderr).toBe('');
  });
  it('--entry keeps the named entries and rejects unknown ones', async () => {
    const src = '.entry @a()\n{\nbb0:\n  EXIT\n}\n\n.entry @b()\n{\nbb0:\n  EXIT\n}\n';
    const d = tmp();
    const f = path.join(d, 'two.ori');
    writeFileSync(f, src);
    const r = await cli(['-arch', 'sm_90', '-O0', '--emit', 'ori', '--no-cache', '-e', 'b', f]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('@b');
    expect(r.stdout).not.toContain('@a');
    const bad = await cli(['-arch', 'sm_90', '-e', 'zz', f]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('ENTRY_NOT_FOUND');
  });
  it('--options-file and --input-as-string', async () => {
    const d = tmp();
    const optf = path.join(d, 'opts.txt');
    writeFileSync(optf, '-arch sm_90 -O0\n--emit ori --no-cache\n');
    const text = readFileSync(example, 'utf8');
    const a = await cli(['--options-file', optf, example]);
    const b = await cli(['-optf', optf, '--input-as-string', text]);
    expect(a.code).toBe(0);
    expect(b.code).toBe(0);
    expect(b.stdout).toBe(a.stdout);
  });
});

describe('compile cache', () => {
  it('a hit skips the pipeline and replays the stored output; --no-cache compiles', async () => {
    const cacheDir = tmp();
    const d = tmp();
    const out = path.join(d, 'v.ori');
    const first = await cli(['-arch', 'sm_90', '--cache-dir', cacheDir, '-o', out, example]);
    expect(first.code).toBe(0);
    const real = readFileSync(out, 'utf8');
    const files = readdirSync(cacheDir, { recursive: true }).map(String).filter((f) => f.endsWith('.json'));
    expect(files).toHaveLength(1);
    // Tamper with the entry: a hit must return what is stored, proving the pipeline did not run.
    const entry = path.join(cacheDir, files[0]!);
    const e = JSON.parse(readFileSync(entry, 'utf8')) as { output: string };
    writeFileSync(entry, JSON.stringify({ ...e, output: '// from the cache\n' }));
    expect((await cli(['-arch', 'sm_90', '--cache-dir', cacheDir, '-o', out, example])).code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe('// from the cache\n');
    expect((await cli(['-arch', 'sm_90', '--no-cache', '-o', out, example])).code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(real);
  });
  it('the key changes with the input, the options, the arch and the plugin versions', () => {
    const base = { text: 'x', file: 'k.ptx', options: { arch: 'sm_90', optLevel: 3 }, entries: [], emit: 'ori', plugins: [{ name: 'p', version: '1.0.0' }] };
    const k = cacheKeyOf(base);
    expect(cacheKeyOf({ ...base })).toBe(k);
    expect(cacheKeyOf({ ...base, text: 'y' })).not.toBe(k);
    expect(cacheKeyOf({ ...base, options: { arch: 'sm_80', optLevel: 3 } })).not.toBe(k);
    expect(cacheKeyOf({ ...base, options: { arch: 'sm_90', optLevel: 2 } })).not.toBe(k);
    expect(cacheKeyOf({ ...base, plugins: [{ name: 'p', version: '1.0.1' }] })).not.toBe(k);
  });
});

describe('batch mode', () => {
  function inputs(): { dir: string; files: string[] } {
    const dir = tmp();
    const files = ['a', 'b', 'c'].map((n) => {
      const f = path.join(dir, `${n}.ori`);
      writeFileSync(f, readFileSync(example, 'utf8'));
      return f;
    });
    writeFileSync(path.join(dir, 'bad.ori'), '.entry @k()\n{\nbb0:\n  %r0 = IADD3 %r1,\n}\n');
    return { dir, files };
  }
  it('compiles every input into --output-dir, reports failures per file and exits non-zero', async () => {
    const { dir } = inputs();
    const out = path.join(tmp(), 'out');
    const r = await cli(['-arch', 'sm_90', '--jobs', '1', '--emit', 'ori', '--no-cache', '--output-dir', out, dir]);
    expect(r.code).toBe(1);
    expect(readdirSync(out).sort()).toEqual(['a.ori', 'b.ori', 'c.ori']);
    expect(r.stderr).toMatch(/bad\.ori:4:19: error ORI_PARSE/);
    expect(r.stderr).toContain('4 inputs, 3 compiled, 1 failed');
  });
  it('worker threads give the same files as one thread (built CLI)', () => {
    const cliJs = path.join(repo, 'apps/ptxforge/dist/cli.js');
    if (!existsSync(cliJs)) {
      console.warn('skipped: apps/ptxforge/dist is not built');
      return;
    }
    const { files } = inputs();
    const o1 = path.join(tmp(), 'o1');
    const o2 = path.join(tmp(), 'o2');
    mkdirSync(o1);
    const one = spawnSync(process.execPath, [cliJs, '-arch', 'sm_90', '--jobs', '1', '--emit', 'ori', '--no-cache', '--output-dir', o1, ...files], { encoding: 'utf8' });
    const two = spawnSync(process.execPath, [cliJs, '-arch', 'sm_90', '--jobs', '2', '--emit', 'ori', '--no-cache', '--output-dir', o2, ...files], { encoding: 'utf8' });
    expect(one.status, one.stderr).toBe(0);
    expect(two.status, two.stderr).toBe(0);
    for (const n of ['a.ori', 'b.ori', 'c.ori']) expect(readFileSync(path.join(o2, n), 'utf8')).toBe(readFileSync(path.join(o1, n), 'utf8'));
  }, 120_000);
  it('-o with several inputs is a usage error', async () => {
    const { files } = inputs();
    const r = await cli(['-arch', 'sm_90', '-o', 'x.ori', ...files]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--output-dir');
  });
});

describe('the installed command (bin/ptxforge: V8 snapshot or ESM bundle)', () => {
  const bin = path.join(repo, 'apps/ptxforge/bin/ptxforge');
  const built = existsSync(path.join(repo, 'apps/ptxforge/dist/bundle/cli.js'));
  it('runs --version and a compile with the same output as the library', async () => {
    if (!built) {
      console.warn('skipped: apps/ptxforge/dist/bundle is not built');
      return;
    }
    const v = spawnSync(bin, ['--version'], { encoding: 'utf8' });
    expect(v.status).toBe(0);
    expect(v.stdout).toMatch(/release 13\.0/);
    const r = spawnSync(bin, ['-arch', 'sm_90', '--emit', 'ori', '--no-cache', example], { encoding: 'utf8', cwd: repo });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe((await cli(['-arch', 'sm_90', '--emit', 'ori', '--no-cache', example])).stdout);
    const bad = spawnSync(bin, ['-arch', 'sm_12', example], { encoding: 'utf8' });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/error TARGET_UNKNOWN_ARCH/);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
  });
});
