import { definePlugin } from '@ptxforge/kernel';
import { lowerPtx } from './lower/module.js';
import { parsePtx } from './parser.js';
import { PACKAGE } from './package-meta.js';

/** Parse and lower PTX text in one step (what the `.ptx` front end does). */
export function compilePtxToOri(text: string, file: string, options: Parameters<typeof lowerPtx>[1]): ReturnType<typeof lowerPtx> {
  return lowerPtx(parsePtx(text, file), options);
}

/** The PTX front end as a ptxforge plugin: registers the `.ptx` input extension. */
export const ptxFrontendPlugin = definePlugin(
  { ...PACKAGE, api: '^1.0.0', description: 'PTX front end: PTX text to Ori' },
  { frontends: { '.ptx': (text, file, { target, relocatable }) => compilePtxToOri(text, file, { target, ...(relocatable ? { relocatable } : {}) }) } },
);
