import { parseOri } from '@ptxforge/kernel';
import { describe, expect, it } from 'vitest';
import { createDefaultToolchain, PRESET_DEFAULT_PACKAGES, presetDefault } from './index.js';

describe('@ptxforge/preset-default', () => {
  it('lists the same packages as the plugins it composes, in order', () => {
    expect(presetDefault.map((p) => p.meta.name)).toEqual([...PRESET_DEFAULT_PACKAGES]);
  });

  it('makes a toolchain that reads PTX and compiles for every first-party arch', () => {
    const tc = createDefaultToolchain();
    const ptx = '.version 7.8\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n  .reg .b64 %rd<2>;\n  ld.param.u64 %rd1, [p];\n  ret;\n}\n';
    const r = tc.compile({ text: ptx, file: 'k.ptx' }, { arch: 'sm_90' });
    expect(r.phases.filter((p) => p.ran).length).toBeGreaterThan(10);
    for (const arch of ['sm_50', 'sm_75', 'sm_86', 'sm_89', 'sm_90a']) expect(tc.resolveTarget(arch).owner).toMatch(/^@ptxforge\/target-sm\d+$/);
    expect(() => tc.resolveTarget('sm_100')).toThrow(expect.objectContaining({ code: 'TARGET_NOT_SUPPORTED' }));
  });

  it('takes extra plugins and leaves out excluded packages', () => {
    const tc = createDefaultToolchain({ exclude: ['@ptxforge/plugin-loop'] });
    expect(tc.registry.plugins.map((p) => p.name)).not.toContain('@ptxforge/plugin-loop');
    expect(() => createDefaultToolchain({ exclude: ['left-pad'] })).toThrow(expect.objectContaining({ code: 'PRESET_EXCLUDE_UNKNOWN' }));
    const r = tc.compile(parseOri('.entry @k()\n{\nbb0:\n  EXIT\n}\n'), { arch: 'sm_80' });
    expect(r.module.functions[0]!.name).toBe('k');
  });
});
