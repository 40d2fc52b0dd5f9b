/**
 * Inputs generated from a seed for a kernel that has no launch description: pointer-sized parameters get
 * their own generously sized buffer, 32-bit and smaller parameters small values, so typical kernels
 * (index by thread id, loop to n) stay in bounds and terminate quickly.
 */
import { mulberry32, type OriFunction, type OriModule } from '@ptxforge/kernel';
import type { BufferSpec, Launch, ParamSpec, ScalarType } from '../launch.js';

/** The project's seeded PRNG (mulberry32, from the kernel), re-exported for the generator. */
export const rng: (seed: number) => () => number = mulberry32;

/** Bytes per generated buffer (64 KiB: 16K 32-bit elements). */
export const GENERATED_BUFFER_BYTES = 65536;

/** Dynamic shared memory given to a kernel that declares `.extern .shared` arrays (16 KiB). */
export const GENERATED_DYNAMIC_SHARED_BYTES = 16384;

export function generateLaunch(module: OriModule, fn: OriFunction, seed: number): Launch {
  const rand = rng(seed ^ 0x9e3779b9);
  const maxntid = fn.directives.get('maxntid') ?? fn.directives.get('reqntid');
  const bx = maxntid ? Math.max(1, Math.min(maxntid[0] ?? 64, 128)) : 64;
  const by = maxntid ? Math.max(1, Math.min(maxntid[1] ?? 1, Math.floor(1024 / bx))) : 1;
  const buffers: Record<string, BufferSpec> = {};
  const params: ParamSpec[] = [];
  fn.params.forEach((p, k) => {
    const t = p.type.toLowerCase();
    if (p.count > 0) {
      params.push({ type: 'u32', value: 0 });
      return;
    }
    if (t === 'u64' || t === 'b64' || t === 's64') {
      const name = `param${k}_${p.name}`;
      const values: number[] = [];
      for (let i = 0; i < GENERATED_BUFFER_BYTES / 4; i++) {
        // Mostly small integers (bounded data-dependent loops), some floats in [-100, 100).
        values.push(rand() < 0.7 ? Math.floor(rand() * 256) : f32bits((rand() - 0.5) * 200));
      }
      buffers[name] = { type: 'u32', values };
      params.push({ buffer: name });
    } else if (t === 'f32' || t === 'f64') {
      params.push({ type: t as ScalarType, value: Math.round((rand() - 0.5) * 2000) / 16 });
    } else {
      params.push({ type: (['u8', 's8', 'u16', 's16', 'u32', 's32', 'b8', 'b16', 'b32'].includes(t) ? t : 'u32') as ScalarType, value: 1 + Math.floor(rand() * 64) });
    }
  });
  // kernels sized by the launch's dynamic shared memory (extern .shared arrays) get some, as a real launch would
  const dynamicShared = module.vars.some((v) => v.space === 'shared' && v.extern) || module.functions.some((f) => f.vars.some((v) => v.space === 'shared' && v.extern));
  return { kernel: fn.name, grid: [2, 1, 1], block: [bx, by, 1], buffers, params, ...(dynamicShared ? { sharedBytes: GENERATED_DYNAMIC_SHARED_BYTES } : {}) };
}

function f32bits(x: number): number {
  return new Uint32Array(new Float32Array([x]).buffer)[0]!;
}
