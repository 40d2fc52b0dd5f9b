import { describe, expect, it } from 'vitest';
import { parseOri } from '../ir/parse.js';
import { definePlugin, type PluginDefinition } from '../plugin.js';
import {
  defineService, Encoder, LatencyModel, provide, Slot17Handler, type Encoder as EncoderT, type MachineInstruction,
} from '../services.js';
import type { TargetDescriptor } from '../target.js';
import { createToolchain } from './toolchain.js';

const KERNEL = '^1.0.0';
const caps = {
  uniformRegisters: true, convergenceBarriers: true, threeInputAlu: true, packedHalf: true, warpgroupMma: true,
  paramBase: 0x210, maxRegistersPerThread: 255, maxSharedPerBlock: 227 * 1024,
};
const target = (id: string, archs: string[]): TargetDescriptor => ({ id, family: 'Test', archs, capabilities: caps });
const targets = definePlugin({ name: 'test-targets', version: '1.0.0', api: KERNEL }, {
  targets: [target('t50', ['sm_50']), target('t90', ['sm_90', 'sm_90a'])],
});
const unit = () => parseOri('.entry @k()\n{\nbb0:\n  EXIT\n}\n');

/** A fake encoder that writes its tag and the opcode length: enough to tell which one ran. */
function fakeEncoder(tag: number): EncoderT {
  return { instructionBytes: 16, encode: (i: MachineInstruction) => Uint8Array.of(tag, i.opcode.length) };
}
function encoderPlugin(name: string, archs: string[], tag: number, replaces?: string): PluginDefinition<void> {
  return definePlugin({ name, version: '1.0.0', api: KERNEL }, {
    services: [provide(Encoder, { archs, useValue: fakeEncoder(tag), ...(replaces ? { replaces } : {}) })],
  });
}
/** A phase that encodes EXIT with whatever Encoder the compilation resolves and reports the bytes. */
const encodingPhase = definePlugin({ name: 'encode-probe', version: '1.0.0', api: KERNEL }, {
  phases: { FinalInspectionPass: () => ({ execute: (ctx) => ctx.info(`${ctx.target.arch}: ${[...ctx.service(Encoder).encode({ opcode: 'EXIT' }, 0)].join(',')}`) }) },
});

describe('target-scoped services', () => {
  it('two encoders for sm_50 and sm_90 in one toolchain: each compilation resolves its own', () => {
    const tc = createToolchain({ plugins: [targets, encoderPlugin('enc-maxwell', ['sm_50'], 50), encoderPlugin('enc-hopper', ['sm_90', 'sm_90a'], 90), encodingPhase] });
    expect(tc.compile(unit(), { arch: 'sm_50' }).info).toEqual(['sm_50: 50,4']);
    expect(tc.compile(unit(), { arch: 'sm_90' }).info).toEqual(['sm_90: 90,4']);
    expect(tc.compile(unit(), { arch: 'sm_90a' }).info).toEqual(['sm_90a: 90,4']);
  });

  it('a missing service is SERVICE_MISSING with the fix', () => {
    const tc = createToolchain({ plugins: [targets, encoderPlugin('enc-maxwell', ['sm_50'], 50), encodingPhase] });
    expect(() => tc.compile(unit(), { arch: 'sm_90' })).toThrow(
      expect.objectContaining({ code: 'SERVICE_MISSING', message: expect.stringMatching(/^no Encoder for sm_90; install a plugin that provides Encoder for sm_90 .*provided only by enc-maxwell \(sm_50\)/) }),
    );
  });

  it('tryService answers undefined instead of throwing', () => {
    const seen: unknown[] = [];
    const p = definePlugin({ name: 'probe', version: '1.0.0', api: KERNEL }, {
      phases: { FinalInspectionPass: () => ({ execute: (ctx) => void seen.push(ctx.tryService(Encoder), ctx.tryService(LatencyModel)) }) },
    });
    createToolchain({ plugins: [targets, p] }).compile(unit(), { arch: 'sm_90' });
    expect(seen).toEqual([undefined, undefined]);
  });

  it('two providers for one (service, arch) conflict, naming both, in any registration order', () => {
    const a = encoderPlugin('enc-a', ['sm_90'], 1);
    const b = encoderPlugin('enc-b', ['sm_90'], 2);
    for (const plugins of [[targets, a, b, encodingPhase], [encodingPhase, b, targets, a]]) {
      const tc = createToolchain({ plugins });
      expect(() => tc.compile(unit(), { arch: 'sm_90' })).toThrow(
        expect.objectContaining({ code: 'SERVICE_CONFLICT', message: expect.stringContaining('provided by both enc-a and enc-b') }),
      );
      // Archs nobody contests still compile.
      expect(() => createToolchain({ plugins }).compile(unit(), { arch: 'sm_90a' })).toThrow(expect.objectContaining({ code: 'SERVICE_MISSING' }));
    }
  });

  it('replaces by plugin name takes the service whatever the order; other archs keep the original', () => {
    const base = encoderPlugin('enc-base', ['sm_90', 'sm_90a'], 1);
    const better = encoderPlugin('enc-better', ['sm_90'], 2, 'enc-base');
    for (const plugins of [[targets, base, better, encodingPhase], [better, encodingPhase, base, targets]]) {
      const tc = createToolchain({ plugins });
      expect(tc.compile(unit(), { arch: 'sm_90' }).info).toEqual(['sm_90: 2,4']);
      expect(tc.compile(unit(), { arch: 'sm_90a' }).info).toEqual(['sm_90a: 1,4']);
    }
  });

  it("an arch-specific provider wins over a '*' provider", () => {
    const any = encoderPlugin('enc-any', ['sm_50'], 7);
    const anyStar = definePlugin({ name: 'enc-star', version: '1.0.0', api: KERNEL }, { services: [provide(Encoder, { archs: '*', useValue: fakeEncoder(9) })] });
    const tc = createToolchain({ plugins: [targets, any, anyStar, encodingPhase] });
    expect(tc.compile(unit(), { arch: 'sm_50' }).info).toEqual(['sm_50: 7,4']);
    expect(tc.compile(unit(), { arch: 'sm_90' }).info).toEqual(['sm_90: 9,4']);
  });

  it('factories build lazily, once per compilation, and may use other services of the arch', () => {
    let built = 0;
    const Widths = defineService<{ alu: number }>('Test.Widths');
    const p = definePlugin({ name: 'fact', version: '1.0.0', api: KERNEL }, {
      services: [
        provide(Widths, { archs: ['sm_50'], useValue: { alu: 2 } }),
        provide(Widths, { archs: ['sm_90'], useValue: { alu: 4 } }),
        provide(Encoder, { archs: '*', useFactory: (env) => (built++, fakeEncoder(env.service(Widths).alu)) }),
      ],
    });
    const tc = createToolchain({ plugins: [targets, p, encodingPhase] });
    expect(built).toBe(0);
    expect(tc.compile(unit(), { arch: 'sm_90' }).info).toEqual(['sm_90: 4,4']);
    expect(tc.compile(unit(), { arch: 'sm_50' }).info).toEqual(['sm_50: 2,4']);
    expect(built).toBe(2);
  });

  it('tokens are keyed by name, so a second kernel copy names the same service', () => {
    const again = defineService<EncoderT>('Encoder');
    expect(again).not.toBe(Encoder);
    expect(again.key).toBe(Encoder.key);
    const seen: unknown[] = [];
    const p = definePlugin({ name: 'probe2', version: '1.0.0', api: KERNEL }, { phases: { FinalInspectionPass: () => ({ execute: (ctx) => void seen.push(ctx.service(again).instructionBytes) }) } });
    createToolchain({ plugins: [targets, encoderPlugin('enc', ['sm_90'], 3), p] }).compile(unit(), { arch: 'sm_90' });
    expect(seen).toEqual([16]);
  });

  it('validates provisions', () => {
    const bad = [
      [{ service: { name: 'Encoder' }, archs: ['sm_90'], useValue: 1 }, /must be a token made with defineService/],
      [{ service: Encoder, archs: ['sm90'], useValue: 1 }, /archs must be/],
      [{ service: Encoder, archs: ['sm_90'] }, /exactly one of useValue and useFactory/],
      [{ service: Slot17Handler, archs: ['sm_90'], useValue: 1, colour: 1 }, /unknown key 'colour'/],
    ] as const;
    for (const [sp, msg] of bad) {
      const p = definePlugin({ name: 'x', version: '1.0.0', api: KERNEL }, { services: [sp as never] });
      expect(() => createToolchain({ plugins: [p] })).toThrow(msg);
    }
    const twice = definePlugin({ name: 'x', version: '1.0.0', api: KERNEL }, {
      services: [provide(Encoder, { archs: ['sm_90'], useValue: fakeEncoder(1) }), provide(Encoder, { archs: ['sm_90a', 'sm_90'], useValue: fakeEncoder(2) })],
    });
    expect(() => createToolchain({ plugins: [twice] })).toThrow(expect.objectContaining({ code: 'SERVICE_CONFLICT', message: 'plugin x provides Encoder twice for sm_90' }));
    expect(() => defineService('lowercase')).toThrow(expect.objectContaining({ code: 'SERVICE_NAME_INVALID' }));
  });
});
