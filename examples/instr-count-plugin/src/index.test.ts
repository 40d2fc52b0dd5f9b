import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createToolchain } from '@ptxforge/kernel';
import { corePlugin } from '@ptxforge/plugin-core';
import { targetSm90Plugin } from '@ptxforge/target-sm90';
import { describe, expect, it } from 'vitest';
import { instrCountPlugin } from './index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const example = path.resolve(here, '../../ori/vector_add.ori');

describe('custom toolchain with a third-party hook plugin', () => {
  it('composes core + one target + the hook plugin and runs the hook at phase 97', () => {
    // Only the sm90 backend is installed in this toolchain: other archs are refused.
    const tc = createToolchain({ plugins: [corePlugin, targetSm90Plugin, [instrCountPlugin, { perOpcode: true }]] });
    const r = tc.compile({ text: readFileSync(example, 'utf8'), file: 'vector_add.ori' }, { arch: 'sm_90' });
    expect(r.info).toContain('instr-count: vector_add has 19 instructions before scheduling');
    expect(r.info).toContain('instr-count: vector_add by opcode: MOV=5 IADD3=3 EXIT=2 IMAD=2 LDG=2 S2R=2 FADD=1 ISETP=1 STG=1');
    const hook = r.phases.find((p) => p.index === 97)!;
    expect(hook).toMatchObject({ name: 'AdvancedPhasePreSched', owner: '@ptxforge/example-instr-count', ran: true });
    expect(tc.listPhases('sm_90')[97]!.owner).toBe('@ptxforge/example-instr-count');
    expect(() => tc.compile({ text: readFileSync(example, 'utf8'), file: 'v.ori' }, { arch: 'sm_80' })).toThrow(/install @ptxforge\/target-sm80/);
  });

  it('reads its knob when no option is given', () => {
    const tc = createToolchain({ plugins: [corePlugin, targetSm90Plugin, instrCountPlugin] });
    const r = tc.compile({ text: readFileSync(example, 'utf8'), file: 'v.ori' }, { arch: 'sm_90', knobs: { InstrCountPerOpcode: true } });
    expect(r.info.some((l) => l.includes('by opcode:'))).toBe(true);
  });
});
