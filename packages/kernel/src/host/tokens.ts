import type { InjectionToken } from 'tsyringe';
import type { AnalysisManager } from '../analysis/manager.js';
import type { OriModule } from '../ir/core.js';
import type { KnobRegistry, KnobValues } from '../knobs.js';
import type { DiagnosticSink } from '../pipeline/protocol.js';
import type { TargetView } from '../target.js';
import type { PluginRegistry } from './registry.js';
import type { ServiceScope } from './service-scope.js';
import type { ResolvedCompileOptions } from './options.js';

/**
 * DI tokens. Root scope (one per toolchain): the registry and knob definitions. Compilation scope (a child
 * container per compile, disposed afterwards): the unit, knob values, analyses, diagnostics, options, target.
 */
export const TOKENS = {
  Registry: Symbol('ptxforge.Registry') as InjectionToken<PluginRegistry>,
  KnobRegistry: Symbol('ptxforge.KnobRegistry') as InjectionToken<KnobRegistry>,
  Unit: Symbol('ptxforge.Unit') as InjectionToken<OriModule>,
  KnobValues: Symbol('ptxforge.KnobValues') as InjectionToken<KnobValues>,
  Analyses: Symbol('ptxforge.Analyses') as InjectionToken<AnalysisManager>,
  Diagnostics: Symbol('ptxforge.Diagnostics') as InjectionToken<DiagnosticSink>,
  Options: Symbol('ptxforge.Options') as InjectionToken<ResolvedCompileOptions>,
  Target: Symbol('ptxforge.Target') as InjectionToken<TargetView>,
  Services: Symbol('ptxforge.Services') as InjectionToken<ServiceScope>,
} as const;
