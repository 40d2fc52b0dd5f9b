import { describe, expect, it } from 'vitest';
import type { Register } from '../ir/core.js';
import { assignPhysicalRegisters } from '../ir/machine.js';
import { parseOri } from '../ir/parse.js';
import { provide, RegisterFile, type RegisterFile as RegisterFileT } from '../services.js';
import { HOOK_POINTS } from '../pipeline/hooks.js';
import type { PhaseContext } from '../pipeline/protocol.js';
import { definePlugin, type PluginContributions, type PluginDefinition } from '../plugin.js';
import type { TargetDescriptor } from '../target.js';
import { createToolchain } from './toolchain.js';

const API = '^1.0.0';
const caps = {
  uniformRegisters: true, convergenceBarriers: true, threeInputAlu: true, packedHalf: true, warpgroupMma: true,
  paramBase: 0x210, maxRegistersPerThread: 255, maxSharedPerBlock: 227 * 1024,
};
const t50: TargetDescriptor = { id: 't50', family: 'Maxwell', archs: ['sm_50', 'sm_52'], capabilities: { ...caps, uniformRegisters: false } };
const t90: TargetDescriptor = { id: 't90', family: 'Hopper', archs: ['sm_90', 'sm_90a'], capabilities: caps };
const targets = definePlugin({ name: 'targets', version: '1.0.0', api: API }, { targets: [t50, t90] });
const unit = () => parseOri('.entry @k()\n{\nbb0:\n  EXIT\n}\n');
const plugin = (name: string, c: PluginContributions): PluginDefinition<void> => definePlugin({ name, version: '1.0.0', api: API }, c);

/** Every permutation of a short list (the registration orders a test tries). */
function permutations<T>(xs: readonly T[]): T[][] {
  if (xs.length <= 1) return [[...xs]];
  return xs.flatMap((x, k) => permutations([...xs.slice(0, k), ...xs.slice(k + 1)]).map((rest) => [x, ...rest]));
}
function run(plugins: readonly PluginDefinition<void>[], arch: string, opts: Record<string, unknown> = {}): string[] {
  return [...createToolchain({ plugins }).compile(unit(), { arch, ...opts }).info];
}
const say = (what: string) => (ctx: PhaseContext) => ctx.info(`${what}@${ctx.target.arch}`);

describe('hook kinds', () => {
  it('declares AllocReg, ScoreboardsAndOpexes and OriPhaseEncoding exclusive, the rest sequential', () => {
    const exclusive = Object.entries(HOOK_POINTS).filter(([, h]) => h.kind === 'exclusive').map(([n, h]) => `${h.index} ${n}`);
    expect(exclusive).toEqual(['101 AdvancedPhaseAllocReg', '115 AdvancedScoreboardsAndOpexes', '127 AdvancedPhaseOriPhaseEncoding']);
  });

  it('an exclusive hook with two providers for one arch is a conflict naming both, in any order', () => {
    const ra1 = plugin('ra-linear', { hooks: { AdvancedPhaseAllocReg: say('linear') } });
    const ra2 = plugin('ra-graph', { hooks: { AdvancedPhaseAllocReg: say('graph') } });
    for (const order of permutations([targets, ra1, ra2])) {
      expect(() => createToolchain({ plugins: order })).toThrow(
        expect.objectContaining({
          code: 'HOOK_EXCLUSIVE_CONFLICT',
          plugin: 'ra-linear',
          message: expect.stringContaining('plugins ra-graph and ra-linear both handle it for every arch'),
        }),
      );
    }
  });

  it('replaces by name takes an exclusive hook whatever the registration order', () => {
    const ra1 = plugin('ra-linear', { hooks: { AdvancedPhaseAllocReg: say('linear') } });
    const ra2 = plugin('ra-graph', { hooks: { AdvancedPhaseAllocReg: { handler: say('graph'), replaces: 'ra-linear' } } });
    for (const order of permutations([targets, ra1, ra2])) expect(run(order, 'sm_90')).toEqual(['graph@sm_90']);
  });

  it('exclusive owners per arch: an sm_50 and an sm_90 scoreboard generator side by side', () => {
    const sb50 = plugin('sb-maxwell', { hooks: { AdvancedScoreboardsAndOpexes: { handler: say('maxwell'), archs: ['sm_50', 'sm_52'] } } });
    const sb90 = plugin('sb-hopper', { hooks: { AdvancedScoreboardsAndOpexes: { handler: say('hopper'), archs: ['sm_90', 'sm_90a'] } } });
    const generic = plugin('sb-generic', { hooks: { AdvancedScoreboardsAndOpexes: say('generic') } });
    for (const order of permutations([targets, sb50, sb90, generic])) {
      expect(run(order, 'sm_52')).toEqual(['maxwell@sm_52']);
      expect(run(order, 'sm_90a')).toEqual(['hopper@sm_90a']);
    }
    // Without the arch-specific ones, the every-arch handler serves everyone.
    expect(run([targets, generic], 'sm_50')).toEqual(['generic@sm_50']);
    // Two arch-specific owners of one arch conflict even though their other archs differ.
    const overlap = plugin('sb-other', { hooks: { AdvancedScoreboardsAndOpexes: { handler: say('x'), archs: ['sm_90'] } } });
    expect(() => createToolchain({ plugins: [targets, sb90, overlap] })).toThrow(
      expect.objectContaining({ code: 'HOOK_EXCLUSIVE_CONFLICT', message: expect.stringContaining('sb-hopper and sb-other both handle it for sm_90') }),
    );
  });

  it('a target may own an exclusive hook for its archs and a plugin may replace it for some of them', () => {
    const tgt = plugin('tgt', { targets: [{ ...t90, hooks: { AdvancedPhaseAllocReg: say('target') } }] });
    const better = plugin('better-ra', { hooks: { AdvancedPhaseAllocReg: { handler: say('better'), archs: ['sm_90a'], replaces: 'tgt' } } });
    for (const order of permutations([tgt, better])) {
      expect(run(order, 'sm_90')).toEqual(['target@sm_90']);
      expect(run(order, 'sm_90a')).toEqual(['better@sm_90a']);
    }
  });

  it('sequential hooks run every handler that serves the arch: pre, then plugin order, then post', () => {
    const a = plugin('a', { hooks: { AdvancedPhasePreSched: say('a') } });
    const b = plugin('b', { hooks: { AdvancedPhasePreSched: { handler: say('b-post'), order: 'post' } } });
    const c = plugin('c', { hooks: { AdvancedPhasePreSched: { handler: say('c-pre'), order: 'pre' } } });
    const d = plugin('d', { hooks: { AdvancedPhasePreSched: { handler: say('d-sm50'), archs: ['sm_50'] } } });
    expect(run([targets, a, b, c, d], 'sm_90')).toEqual(['c-pre@sm_90', 'a@sm_90', 'b-post@sm_90']);
    expect(run([targets, d, b, c, a], 'sm_50')).toEqual(['c-pre@sm_50', 'd-sm50@sm_50', 'a@sm_50', 'b-post@sm_50']);
    // replaces drops the named plugin's handler of that hook, whatever the order.
    const e = plugin('e', { hooks: { AdvancedPhasePreSched: { handler: say('e'), replaces: ['a'] } } });
    for (const order of permutations([targets, a, e])) expect(run(order, 'sm_90')).toEqual(['e@sm_90']);
  });

  it('validates hook and phase options table-driven', () => {
    const bad: Array<[PluginContributions, string]> = [
      [{ hooks: { AdvancedPhasePreSched: { handler: say('x'), order: 'middle' as never } } }, "order must be 'pre' or 'post'"],
      [{ hooks: { AdvancedPhasePreSched: { handler: say('x'), archs: ['hopper'] } } }, 'archs must be a non-empty list of arch names'],
      [{ hooks: { AdvancedPhasePreSched: { handler: say('x'), colour: 1 } as never } }, "unknown key 'colour'"],
      [{ phases: { GvnCse: { create: () => ({ execute() {} }), establishes: ['not a name'] } } }, 'IR property names'],
      [{ hooks: { AdvancedPhaseAllocReg: { handler: say('x'), replaces: 'self' } } }, 'cannot replace its own plugin'],
    ];
    for (const [c, msg] of bad) {
      expect(() => createToolchain({ plugins: [plugin('self', c)] })).toThrow(expect.objectContaining({ plugin: 'self', message: expect.stringContaining(msg) }));
    }
  });

  it('wraps a failing handler with plugin and hook names', () => {
    const bad = plugin('bad-ra', { hooks: { AdvancedPhaseAllocReg: () => { throw new TypeError('no registers'); } } });
    expect(() => run([targets, bad], 'sm_90')).toThrow(
      expect.objectContaining({ code: 'HOOK_FAILED', plugin: 'bad-ra', message: 'hook AdvancedPhaseAllocReg of plugin bad-ra failed: no registers' }),
    );
  });
});

describe('phase slots per (slot, arch)', () => {
  const phase = (name: string, what: string, extra: object = {}) => plugin(name, { phases: { OriBranchOpt: { create: () => ({ execute: say(what) }), ...extra } } });

  it('an sm_50 and an sm_90 implementation of one slot install side by side; an arch-specific one beats an every-arch one', () => {
    const m = phase('opt-maxwell', 'maxwell', { archs: ['sm_50', 'sm_52'] });
    const h = phase('opt-hopper', 'hopper', { archs: ['sm_90'] });
    const g = phase('opt-generic', 'generic');
    for (const order of permutations([targets, m, h, g])) {
      expect(run(order, 'sm_50')).toEqual(['maxwell@sm_50']);
      expect(run(order, 'sm_90')).toEqual(['hopper@sm_90']);
      expect(run(order, 'sm_90a')).toEqual(['generic@sm_90a']);
    }
    const tc = createToolchain({ plugins: [targets, m, h, g] });
    expect(tc.listPhases('sm_52')[15]!.owner).toBe('opt-maxwell');
    expect(tc.listPhases()[15]!.owner).toBe('opt-generic');
    expect(createToolchain({ plugins: [targets, m, h] }).listPhases()[15]!.owner).toBe('opt-maxwell(sm_50,sm_52)+opt-hopper(sm_90)');
  });

  it('replace: true and replaces by name do not depend on registration order', () => {
    const a = phase('a', 'a');
    const b = phase('b', 'b', { replace: true });
    const c = phase('c', 'c', { replaces: 'a', archs: ['sm_50'] });
    for (const order of permutations([targets, a, b])) expect(run(order, 'sm_90')).toEqual(['b@sm_90']);
    for (const order of permutations([targets, a, c])) {
      expect(run(order, 'sm_50')).toEqual(['c@sm_50']);
      expect(run(order, 'sm_90')).toEqual(['a@sm_90']);
    }
    const b2 = phase('b2', 'b2', { replace: true });
    expect(() => createToolchain({ plugins: [targets, a, b, b2] })).toThrow(
      expect.objectContaining({ code: 'PHASE_SLOT_CONFLICT', message: expect.stringContaining('plugins a, b, b2 replace each other') }),
    );
  });

  it('a target fills any slot for its archs (no slot is reserved for targets)', () => {
    const tgt = plugin('tgt', { targets: [{ ...t90, phases: { OriBranchOpt: () => ({ execute: say('target') }) } }] });
    expect(run([tgt], 'sm_90')).toEqual(['target@sm_90']);
  });
});

describe('the requires / establishes / invalidates chain', () => {
  const ra = plugin('ra', { hooks: { AdvancedPhaseAllocReg: { handler: say('ra'), establishes: ['PhysicalRegisters'] } } });
  const sb = plugin('sb', {
    hooks: {
      AdvancedScoreboardsAndOpexes: {
        handler: (ctx) => ctx.info(`sb sees PhysicalRegisters=${ctx.hasProperty('PhysicalRegisters')}`),
        requires: ['PhysicalRegisters'],
        establishes: ['ControlRecords'],
      },
    },
  });

  it('runs a chain whose requirements are established earlier; phases see the properties that hold', () => {
    for (const order of permutations([targets, ra, sb])) expect(run(order, 'sm_90')).toEqual(['ra@sm_90', 'sb sees PhysicalRegisters=true']);
  });

  it('refuses a pipeline in which a required property is not established, naming the phase, plugin and fix', () => {
    expect(() => run([targets, sb], 'sm_90')).toThrow(
      expect.objectContaining({
        code: 'PHASE_CHAIN_BROKEN',
        plugin: 'sb',
        message: 'phase 115 AdvancedScoreboardsAndOpexes (sb) requires PhysicalRegisters, but no installed phase establishes it; install a plugin that does for sm_90',
      }),
    );
    // The establishing phase is installed but the custom order runs it too late.
    expect(() => run([targets, ra, sb], 'sm_90', { namedPhases: 'AdvancedScoreboardsAndOpexes,AdvancedPhaseAllocReg' })).toThrow(
      expect.objectContaining({ code: 'PHASE_CHAIN_BROKEN', message: expect.stringContaining('established by 101 AdvancedPhaseAllocReg (ra), which does not run before it') }),
    );
    // Disabling the establishing phase breaks the chain too.
    expect(() => run([targets, ra, sb], 'sm_90', { disablePasses: 'AdvancedPhaseAllocReg' })).toThrow(expect.objectContaining({ code: 'PHASE_CHAIN_BROKEN' }));
    // The input may bring the property itself (an Ori dump taken after allocation).
    expect(run([targets, sb], 'sm_90', { properties: ['PhysicalRegisters'] })).toEqual(['sb sees PhysicalRegisters=true']);
  });

  it('a phase that invalidates a property breaks requirements after it', () => {
    const undo = plugin('undo', { phases: { OriRemoveNopCode: { create: () => ({ execute() {} }), invalidates: ['PhysicalRegisters'] } } });
    expect(() => run([targets, ra, sb, undo], 'sm_90')).toThrow(
      expect.objectContaining({ code: 'PHASE_CHAIN_BROKEN', message: expect.stringContaining('phase 107 OriRemoveNopCode (undo) invalidated it') }),
    );
  });

  it('phases may declare the properties on the implementation as well', () => {
    const mk = plugin('mk', { phases: { OriBranchOpt: () => ({ establishes: ['Scheduled'], execute() {} }) } });
    const need = plugin('need', { phases: { GvnCse: () => ({ requires: ['Scheduled'], execute: (ctx) => ctx.info(`${ctx.hasProperty('Scheduled')}`) }) } });
    expect(run([targets, mk, need], 'sm_90', { disablePasses: 'none' })).toEqual(['true']);
    expect(() => run([targets, need], 'sm_90', { disablePasses: 'none' })).toThrow(expect.objectContaining({ code: 'PHASE_CHAIN_BROKEN' }));
  });
});

describe('machine state through the pipeline', () => {
  const file: RegisterFileT = {
    classes: [
      { name: 'GPR' as const, prefix: 'R', count: 255, zero: 255, alignment: { 2: 2, 4: 4 } },
      { name: 'PRED' as const, prefix: 'P', count: 7, zero: 7, alignment: {} },
    ],
  };
  const src = '.entry @k()\n{\nbb0:\n  %r0 = MOV 0x1\n  %rd0 = IMAD.WIDE.U32 %r0, 0x4, RZ\n  STG.E.32 [%rd0], %r0\n  EXIT\n}\n';
  const allocator = (leave: boolean) =>
    plugin('naive-ra', {
      services: [provide(RegisterFile, { archs: ['sm_90'], useValue: file })],
      hooks: {
        AdvancedPhaseAllocReg: {
          establishes: ['PhysicalRegisters'],
          handler: (ctx) => {
            for (const fn of ctx.module.functions) {
              const a = new Map<Register, number>();
              let next = 0;
              for (const r of fn.registers) {
                if (r.isPhysical || (leave && r.name === '%r0')) continue;
                next = Math.ceil(next / r.width) * r.width;
                a.set(r, next);
                next += r.width;
              }
              assignPhysicalRegisters(fn, a, ctx.service(RegisterFile));
            }
          },
        },
      },
    });

  it('an allocator hook assigns physical registers and --verify-ir checks them against the RegisterFile', () => {
    const r = createToolchain({ plugins: [targets, allocator(false)] }).compile(parseOri(src), { arch: 'sm_90', verifyIr: true, dumpIr: ['AdvancedPhaseAllocReg'] });
    expect(r.dumps[0]!.text).toContain('%RD2 = IMAD.WIDE.U32 %R0, 0x4, RZ');
    expect(() => createToolchain({ plugins: [targets, allocator(true)] }).compile(parseOri(src), { arch: 'sm_90', verifyIr: true })).toThrow(
      expect.objectContaining({ code: 'ORI_VERIFY', message: expect.stringContaining('ORI_VERIFY_VIRTUAL_AFTER_RA') }),
    );
  });
});
