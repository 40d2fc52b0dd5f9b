import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { gmemLine, ptxasVerboseLines, readCubin, verboseStatsOfCubin } from './index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = ['build/kernels.ptx', 'build/frame-shared-call.ptx', 'attrs/kernels.ptx'].map((f) => path.join(here, '../test/fixtures', f));

describe('ptxasVerboseLines', () => {
  it('formats an entry the way ptxas 13.0 prints it', () => {
    const lines = ptxasVerboseLines(
      'sm_80',
      { name: 'k', kind: 'entry', registers: 10, barriers: 2, stackFrame: 64, spillStores: 8, spillLoads: 12, cumulativeStack: 64, sharedBytes: 128, cmem: [{ bank: 0, bytes: 364 }, { bank: 2, bytes: 0 }] },
      { compileMs: 11.2584 },
    );
    expect(lines).toEqual([
      "ptxas info    : Compiling entry function 'k' for 'sm_80'",
      'ptxas info    : Function properties for k',
      '    64 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads',
      'ptxas info    : Used 10 registers, used 2 barriers, 64 bytes cumulative stack size, 128 bytes smem, 364 bytes cmem[0]',
      'ptxas info    : Compile time = 11.258 ms',
    ]);
    // sm_90's ptxas does not list constant banks; device functions get the properties block only.
    expect(ptxasVerboseLines('sm_90', { name: 'k', kind: 'entry', registers: 8, stackFrame: 0, spillStores: 0, spillLoads: 0, cmem: [{ bank: 0, bytes: 548 }] })[3]).toBe(
      'ptxas info    : Used 8 registers, used 0 barriers',
    );
    expect(ptxasVerboseLines('sm_90', { name: 'f', kind: 'func', registers: 8, stackFrame: 16, spillStores: 0, spillLoads: 0 })).toEqual([
      'ptxas info    : Function properties for f',
      '    16 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads',
    ]);
    expect(gmemLine('sm_90', 32, [{ bank: 3, bytes: 16 }])).toBe('ptxas info    : 32 bytes gmem');
    expect(gmemLine('sm_80', 32, [{ bank: 3, bytes: 16 }, { bank: 4, bytes: 8 }])).toBe('ptxas info    : 32 bytes gmem, 16 bytes cmem[3], 8 bytes cmem[4]');
  });
});

let ptxas = false;
try {
  execFileSync('ptxas', ['--version'], { stdio: 'ignore' });
  ptxas = true;
} catch {
  console.log('-v lines vs ptxas skipped: ptxas is not on PATH');
}

describe.skipIf(!ptxas)('ptxasVerboseLines matches ptxas -v on its own cubins', () => {
  const dir = ptxas ? mkdtempSync(path.join(tmpdir(), 'cubin-verbose-')) : '';
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  for (const arch of ['sm_90', 'sm_80', 'sm_75']) {
    for (const fixture of fixtures) {
      it(`${arch} ${path.basename(path.dirname(fixture))}/${path.basename(fixture)}`, () => {
        const out = path.join(dir, `${arch}-${path.basename(path.dirname(fixture))}.cubin`);
        const r = spawnSync('ptxas', [`-arch=${arch}`, '-v', fixture, '-o', out], { encoding: 'utf8' });
        expect(r.status).toBe(0);
        const stats = verboseStatsOfCubin(readCubin(readFileSync(out)));
        const entries = new Set(stats.functions.map((f) => f.name));
        // ptxas's lines without compile times and without the blocks of device functions (not derivable from a cubin).
        const theirs: string[] = [];
        let skip = false;
        for (const l of r.stderr.split('\n')) {
          if (!l || l.includes('Compile time =')) continue;
          const m = /Function properties for (.*)$/.exec(l);
          if (m) skip = !entries.has(m[1]!);
          else if (l.startsWith('ptxas info')) skip = false;
          if (!skip) theirs.push(l);
        }
        const ours = [gmemLine(arch, stats.gmem, stats.cmem), ...stats.functions.flatMap((f) => ptxasVerboseLines(arch, f))];
        expect(ours).toEqual(theirs);
      }, 60_000);
    }
  }
});
