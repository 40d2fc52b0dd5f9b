import { createToolchain, definePlugin, parseOri, printFunction, provide, Slot17Handler, verifyModule } from '@ptxforge/kernel';
import { describe, expect, it } from 'vitest';
import { corePlugin } from './index.js';

function target(slot17: Omit<Slot17Handler, 'run'> & { run?: Slot17Handler['run'] }) {
  return definePlugin({ name: 'tgt', version: '1.0.0', api: '^1.0.0' }, {
    services: [provide(Slot17Handler, { archs: ['sm_90'], useValue: { run: () => undefined, ...slot17 } })],
    targets: [{
      id: 't', family: 'T', archs: ['sm_90'],
      capabilities: { uniformRegisters: true, convergenceBarriers: true, threeInputAlu: true, packedHalf: true, warpgroupMma: true, paramBase: 0x210, maxRegistersPerThread: 255, maxSharedPerBlock: 1 << 16 },
    }],
  });
}
const noop = target({ name: 'NO-OP', status: 'noop' });

describe('plugin-core phases', () => {
  it('SetControlFlowOpLastInBB splits after a mid-block guarded exit, keeping semantics', () => {
    const m = parseOri(`.entry @k()
{
bb0:
  %r0 = S2R SR_TID.X
  %p0 = ISETP.EQ.AND %r0, RZ, PT
  @%p0 EXIT
  %r1 = IADD3 %r0, 1, RZ
  EXIT
}
`);
    const r = createToolchain({ plugins: [corePlugin, noop] }).compile(m, { arch: 'sm_90', verifyIr: true });
    expect(r.phases.find((p) => p.name === 'SetControlFlowOpLastInBB')!.ran).toBe(true);
    expect(printFunction(m.functions[0]!)).toBe(`.entry @k()
{
bb0:
  %r0 = S2R SR_TID.X
  %p0 = ISETP.EQ.AND %r0, RZ, PT
  @%p0 EXIT
bb1:
  %r1 = IADD3 %r0, 1, RZ
  EXIT
}`);
  });

  it('OriSanitize removes unreachable blocks unless the knob says no', () => {
    const src = `.entry @k()
{
bb0:
  BRA bb2
bb1:
  %r0 = MOV 1
  BRA bb1
bb2:
  EXIT
}
`;
    const m = parseOri(src);
    const r = createToolchain({ plugins: [corePlugin, noop] }).compile(m, { arch: 'sm_90' });
    expect(m.functions[0]!.blocks.map((b) => b.label)).toEqual(['bb0', 'bb2']);
    expect(r.diagnostics.map((d) => d.code)).toContain('CFG_UNREACHABLE');
    expect(verifyModule(m)).toEqual([]);
    const m2 = parseOri(src);
    createToolchain({ plugins: [corePlugin, noop] }).compile(m2, { arch: 'sm_90', knobs: { OriSanitizeRemoveUnreachable: false } });
    expect(m2.functions[0]!.blocks).toHaveLength(3);
  });

  it('OriCheckInitialProgram rejects an ill-formed program with every reason', () => {
    const m = parseOri('.entry @k()\n{\nbb0:\n  %r0 = IADD3 %r9, 1, RZ\n  %r1 = MOV 1\n}\n');
    expect(() => createToolchain({ plugins: [corePlugin, noop] }).compile(m, { arch: 'sm_90' })).toThrow(
      expect.objectContaining({ code: 'ORI_VERIFY', message: expect.stringContaining('[ORI_VERIFY_UNDEF_USE] @k bb0: %r9 is used but no definition reaches it') }),
    );
    expect(() => createToolchain({ plugins: [corePlugin, noop] }).compile(m, { arch: 'sm_90' })).toThrow(/\[ORI_VERIFY_CFG\] @k bb0: control runs off the end/);
  });

  it('AnalyzeControlFlow warns about irreducible control flow', () => {
    const m = parseOri(`.entry @k()
{
bb0:
  %p0 = ISETP.EQ.AND RZ, RZ, PT
  @%p0 BRA bb2
bb1:
  BRA bb2
bb2:
  @%p0 BRA bb1
bb3:
  EXIT
}
`);
    const r = createToolchain({ plugins: [corePlugin, noop] }).compile(m, { arch: 'sm_90' });
    expect(r.diagnostics.find((d) => d.code === 'CFG_IRREDUCIBLE')?.severity).toBe('warning');
  });

  it('DoSwitchOptFirst dispatches to an implemented slot 17 at -O2+, and is a no-op for noop/placeholder', () => {
    const calls: string[] = [];
    const impl = target({ name: 'impl', status: 'implemented', run: (fn, ctx) => void calls.push(`${ctx.target.arch} ${fn.name}`) });
    const m = () => parseOri('.entry @k()\n{\nbb0:\n  EXIT\n}\n');
    createToolchain({ plugins: [corePlugin, impl] }).compile(m(), { arch: 'sm_90', optLevel: 2 });
    expect(calls).toEqual(['sm_90 k']);
    createToolchain({ plugins: [corePlugin, impl] }).compile(m(), { arch: 'sm_90', optLevel: 1 });
    expect(calls).toEqual(['sm_90 k']);
    const r = createToolchain({ plugins: [corePlugin, target({ name: 'A', status: 'placeholder' })] }).compile(m(), { arch: 'sm_90' });
    expect(r.phases[14]).toMatchObject({ name: 'DoSwitchOptFirst', ran: false, skipped: 'no-op' });
    expect(createToolchain({ plugins: [corePlugin, impl] }).listPhases('sm_90')[14]!.note).toBe('slot 17 of t: impl (implemented)');
  });
});
