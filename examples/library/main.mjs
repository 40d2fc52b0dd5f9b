// The README's library example. Run it from the repository root after `pnpm build`:
//   node examples/library/main.mjs
import { readFileSync } from 'node:fs';
import { definePlugin } from '@ptxforge/kernel';
import { createDefaultToolchain } from '@ptxforge/preset-default';

// A plugin of your own: an AdvancedPhasePreSched hook (phase 97) for sm_90 only.
const myHookPlugin = definePlugin(
  { name: 'my-hook', version: '1.0.0', api: '^1.0.0' },
  {
    hooks: {
      AdvancedPhasePreSched: {
        archs: ['sm_90'],
        handler: (ctx) => {
          for (const fn of ctx.module.functions) ctx.info(`my-hook: ${fn.name} reaches the scheduler with ${fn.instructionCount} instructions`);
        },
      },
    },
  },
);

const text = readFileSync(new URL('./scale.ptx', import.meta.url), 'utf8');

const tc = createDefaultToolchain({ plugins: [myHookPlugin] });
const result = tc.compile({ text, file: 'scale.ptx' }, { arch: 'sm_90', optLevel: 3, stats: true });

for (const line of result.info) console.log(line);
console.log(`${result.phases.filter((p) => p.ran).length} phases ran; ${result.module.functions[0].instructionCount} instructions in ${result.module.functions[0].name}`);
console.log(result.statLines.at(-2));
