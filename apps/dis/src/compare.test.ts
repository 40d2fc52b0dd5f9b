import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatAttribute, readCubin } from '@ptxforge/cubin';
import { describe, expect, it } from 'vitest';
import { compareAttributes, compareText, normalizeText, parseElfAttributes, parseListing } from './compare.js';
import { disassembleCubin } from './disassemble.js';
import { registerFamilyCodecs } from './families.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = path.resolve(here, '../../../packages/cubin/test/fixtures/attrs/kernels.ptx');

// A listing in nvdisasm's layout (written for this test, not NVIDIA output).
const LISTING = `
//--------------------- .text.k                  --------------------------
	.section	.text.k,"ax",@progbits
	.sectioninfo	@"SHI_REGISTERS=8"
k:
.text.k:
        /*0000*/                   LDC R1, c[0x0][0x28] ;                 /* 0x00000a00ff017b82 */
                                                                          /* 0x000fe20000000800 */
        /*0010*/              @!P0 BRA \`(.L_x_0) ;
.L_x_0:
        /*0020*/                   EXIT ;
`;

describe('nvdisasm comparison helpers', () => {
  it('parse a listing with labels resolved to addresses', () => {
    const l = parseListing(LISTING);
    expect([...l.get('k')!]).toEqual([
      [0, 'LDC R1, c[0x0][0x28]'],
      [0x10, '@!P0 BRA 0x20'],
      [0x20, 'EXIT'],
    ]);
    expect(normalizeText('@!P0 BRA 0x20 ;')).toBe('@!P0BRA0x20');
  });

  it('parse cuobjdump -elf attribute blocks', () => {
    const a = parseElfAttributes(`
.nv.info.k
	<0x1>
	Attribute:	EIATTR_CUDA_API_VERSION
	Format:	EIFMT_SVAL
	Value:	0x82
	<0x2>
	Attribute:	EIATTR_EXIT_INSTR_OFFSETS
	Format:	EIFMT_SVAL
	Value:	0x60 0x170

.nv.callgraph
	<0,-1>
`);
    expect(a.get('.nv.info.k')).toEqual([
      { name: 'EIATTR_CUDA_API_VERSION', value: '0x82' },
      { name: 'EIATTR_EXIT_INSTR_OFFSETS', value: '0x60 0x170' },
    ]);
  });

  const ptxas = (() => {
    try {
      execFileSync('ptxas', ['--version'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();

  it.skipIf(!ptxas)('our own listing compares identical to itself, and attributes written cuobjdump-style agree', () => {
    registerFamilyCodecs();
    const dir = mkdtempSync(path.join(tmpdir(), 'cmp-'));
    try {
      const out = path.join(dir, 'k.cubin');
      execFileSync('ptxas', ['-arch=sm_75', fixture, '-o', out]);
      const cubin = readCubin(readFileSync(out));
      const text = disassembleCubin(cubin, { control: false, attributes: false });
      const r = compareText(cubin, parseListing(text));
      const words = cubin.functions.reduce((n, f) => n + f.code.length / 16, 0);
      expect(r.instructions).toBe(words);
      expect(r.identical).toBe(words);
      // Attribute blocks written cuobjdump-style from our own one-line text agree record by record; a
      // changed value does not.
      const f = cubin.functions.find((x) => x.name === 'params3')!;
      const block = (recs: typeof f.attributes) =>
        [`.nv.info.${f.name}`, ...recs.map((a) => {
          const [name, value = ''] = formatAttribute(a, (i) => cubin.symbols[i]?.name).split('\n')[0]!.split(/: (.*)/);
          return `\tAttribute:\t${name}\n\tValue:\t${value.replace(/\(.*\)/, '')}`;
        })].join('\n');
      const cmp = compareAttributes(cubin, parseElfAttributes(block(f.attributes)));
      expect(cmp.attributes).toBe(f.attributes.length);
      expect(cmp.sameName).toBe(f.attributes.length);
      expect(cmp.sameValue).toBe(f.attributes.length);
      const bad = parseElfAttributes(block(f.attributes).replace(/(EIATTR_MAX_THREADS\n\tValue:\t)128/, '$1129'));
      expect(compareAttributes(cubin, bad).sameValue).toBe(f.attributes.length - 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
