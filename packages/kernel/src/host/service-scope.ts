import { instanceCachingFactory, type DependencyContainer } from 'tsyringe';
import { PtxforgeError, isPtxforgeError } from '../errors.js';
import type { ServiceEnv, ServiceToken } from '../services.js';
import { KNOWN_ARCHS, type TargetView } from '../target.js';
import type { PluginRegistry, ServiceBinding } from './registry.js';

/**
 * The services of one compilation: the selected arch's providers registered in the compilation's child
 * container (values as they are, factories built lazily once per compilation). Phases reach it only
 * through `ctx.service` / `ctx.tryService`.
 */
export class ServiceScope implements ServiceEnv {
  private readonly building = new Set<symbol>();
  private readonly owners = new Map<symbol, string>();

  constructor(
    private readonly container: DependencyContainer,
    private readonly registry: PluginRegistry,
    readonly arch: string,
    readonly target: TargetView,
  ) {
    for (const b of registry.servicesFor(arch)) {
      this.owners.set(b.service.key, b.owner);
      const p = b.provision;
      if (p.useFactory) container.register(b.service.key, { useFactory: instanceCachingFactory(() => this.build(b)) });
      else container.register(b.service.key, { useValue: p.useValue });
    }
  }

  /** Package that provides a service in this compilation (for listings and errors). */
  ownerOf(token: ServiceToken<unknown>): string | undefined {
    return this.owners.get(token.key);
  }

  tryService<T>(token: ServiceToken<T>): T | undefined {
    return this.container.isRegistered(token.key) ? this.container.resolve<T>(token.key) : undefined;
  }

  service<T>(token: ServiceToken<T>): T {
    if (!this.container.isRegistered(token.key)) throw serviceMissing(this.registry, token, this.arch);
    return this.container.resolve<T>(token.key);
  }

  private build(b: ServiceBinding): unknown {
    const key = b.service.key;
    if (this.building.has(key)) {
      throw new PtxforgeError('SERVICE_CYCLE', `service ${b.service.name} of ${b.owner} depends on itself while it is being built for ${this.arch}`, { plugin: b.owner });
    }
    this.building.add(key);
    try {
      return b.provision.useFactory!(this);
    } catch (e) {
      if (isPtxforgeError(e)) throw e;
      throw new PtxforgeError('SERVICE_FACTORY_FAILED', `plugin ${b.owner}: building ${b.service.name} for ${this.arch} failed: ${(e as Error).message}`, { plugin: b.owner, cause: e });
    } finally {
      this.building.delete(key);
    }
  }
}

/** SERVICE_MISSING with the fix: which package to install (or who provides it for other archs). */
export function serviceMissing(registry: PluginRegistry, token: ServiceToken<unknown>, arch: string): PtxforgeError {
  const targetPkg = KNOWN_ARCHS.get(arch);
  const target = registry.targets.get(arch);
  const elsewhere = (registry.services.get(token.key) ?? [])
    .map((b) => `${b.owner} (${b.archs === '*' ? '*' : [...b.archs].join(', ')})`)
    .sort();
  let fix: string;
  if (!target && targetPkg) fix = `install ${targetPkg}`;
  else if (target) fix = `install a plugin that provides ${token.name} for ${arch} (the installed target ${target.owner} does not)`;
  else fix = `install a plugin that provides ${token.name} for ${arch}`;
  const also = elsewhere.length ? `; provided only by ${elsewhere.join(', ')}` : '';
  return new PtxforgeError('SERVICE_MISSING', `no ${token.name} for ${arch}; ${fix}${also}`);
}
