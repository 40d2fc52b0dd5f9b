import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PtxforgeError } from '../errors.js';
import { parseOri } from './parse.js';
import { printModule } from './print.js';
import { verifyModule } from './verify.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../../..');
const exampleDir = path.join(repo, 'examples/ori');

describe('Ori text', () => {
  const examples = readdirSync(exampleDir).filter((f) => f.endsWith('.ori'));
  it('has bundled examples', () => expect(examples.length).toBeGreaterThanOrEqual(4));
  for (const f of examples) {
    it(`round-trips ${f} byte-identically and verifies`, () => {
      const text = readFileSync(path.join(exampleDir, f), 'utf8');
      const m = parseOri(text, { file: f });
      expect(printModule(m)).toBe(text);
      expect(verifyModule(m)).toEqual([]);
    });
  }

  it('prints every operand form canonically', () => {
    const text = [
      '.entry @k(',
      '  .param .b8 .align 8 blob[16] c[0x0][0x210]',
      ')',
      '{',
      '  .local .align 4 .b8 @buf[64]',
      'bb0:',
      '  %r0 = MOV 0f3F800000',
      '  %rd0 = MOV 0d3FF0000000000000',
      '  %r1 = IADD3 -%r0, |%r0|, ~%r0',
      '  %p0, %p1 = ISETP.NE.U32.AND %r1, 0x1f, !PT',
      '  @!%p0 %r2 = LDC.32 c[0x3][%r1+0x10] {line=12 col=3 file=0 volatile}',
      '  %r3 = LDL.32 [%r2+@buf-0x4]',
      '  %r4 = MOV @buf',
      '  STL.32 [0x10], URZ',
      '  BRX %r4, (bb0, bb1)',
      'bb1: {nounroll}',
      '  EXIT',
      '}',
      '',
    ].join('\n');
    expect(printModule(parseOri(text))).toBe(text);
  });

  it('round-trips address relocations of variable initializers and verifies them', () => {
    const text = [
      '.const .align 8 .b8 @x[8] = hex"0100000000000000"',
      '.global .align 8 .b8 @y[32]',
      '.const .align 8 .b8 @p[24] = hex"000000000000000000000000000000000000000000000000" relocs(0x0 .b64 @x, 0x8 .b64 generic(@y)+0x10, 0x10 .b32 @y-0x4)',
      '.global .align 4 .b8 @q[4] relocs(0x0 .b32 @q)',
      '',
      '.entry @k()',
      '{',
      'bb0:',
      '  EXIT',
      '}',
      '',
    ].join('\n');
    const m = parseOri(text);
    expect(m.vars[2]!.relocs).toEqual([
      { offset: 0, size: 8, sym: 'x', addend: 0 },
      { offset: 8, size: 8, sym: 'y', addend: 16, generic: true },
      { offset: 16, size: 4, sym: 'y', addend: -4 },
    ]);
    expect(printModule(m)).toBe(text);
    expect(verifyModule(m)).toEqual([]);
  });

  it('reads data strings longer than the lexer window (a 1 KiB jump table)', () => {
    const bytes = '60040000'.repeat(256);
    const text = [`.const .align 16 .b8 @t[1024] = hex"${bytes}"`, '', '.entry @k()', '{', 'bb0:', '  EXIT', '}', ''].join('\n');
    const m = parseOri(text);
    expect(m.vars[0]!.size).toBe(1024);
    expect(printModule(m)).toBe(text);
  });

  it('reports syntax errors with file:line:col', () => {
    const bad = '.entry @k()\n{\nbb0:\n  %r0 = IADD3 %r1 +, 2\n  EXIT\n}\n';
    try {
      parseOri(bad, { file: 'bad.ori' });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(PtxforgeError);
      const err = e as PtxforgeError;
      expect(err.code).toBe('ORI_PARSE');
      expect(err.pos).toEqual({ file: 'bad.ori', line: 4, col: 19 });
      expect(err.format()).toMatch(/^bad\.ori:4:19: error ORI_PARSE: /);
    }
  });

  it('rejects comments after an instruction on the same line', () => {
    expect(() => parseOri('.entry @k()\n{\nbb0:\n  EXIT // bye\n}\n')).toThrow(/comment must stand on a line of its own/);
  });
});

describe('verifier fixtures', () => {
  const dir = path.resolve(here, '../../test/fixtures/verify');
  for (const c of readdirSync(dir)) {
    it(`rejects ${c}`, () => {
      const text = readFileSync(path.join(dir, c, 'input.ori'), 'utf8');
      const [code, ...words] = readFileSync(path.join(dir, c, 'expected.txt'), 'utf8').trim().split(' ');
      const reason = words.join(' ');
      let issues: Array<{ code: string; message: string }>;
      try {
        issues = verifyModule(parseOri(text, { file: `${c}.ori` }));
      } catch (e) {
        issues = [{ code: (e as PtxforgeError).code, message: (e as PtxforgeError).message }];
      }
      expect(issues.length).toBeGreaterThan(0);
      expect(issues.some((i) => i.code === code && `${i.message}`.includes(reason)), JSON.stringify(issues)).toBe(true);
    });
  }
});

describe('variable linkage', () => {
  it('round-trips .visible variables (STB_GLOBAL symbols) beside .extern and file-local ones', () => {
    const text = `.target sm_90\n.visible .global .align 4 .b8 @g[4] = hex"01000000"\n.global .align 4 .b8 @l[4]\n.extern .shared .align 16 .b8 @dyn[0]\n`;
    const m = parseOri(text, { file: 'v.ori' });
    expect(m.vars.map((v) => [v.name, !!v.visible, !!v.extern])).toEqual([['g', true, false], ['l', false, false], ['dyn', false, true]]);
    expect(printModule(m)).toBe(text);
  });
});
