import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createToolchain, definePlugin, PLUGIN_API, type PluginDefinition } from '@ptxforge/kernel';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { loadDefaultPlugins } from './plugins.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
const WORKSPACE_DIRS = ['packages', 'plugins', 'targets', 'apps', 'examples'];
const changesetBin = (() => {
  try {
    return createRequire(path.join(repo, 'package.json')).resolve('@changesets/cli/bin.js');
  } catch {
    return undefined;
  }
})();

interface Pkg {
  name: string;
  version: string;
  private?: boolean;
  peerDependencies?: Record<string, string>;
}

function workspacePackages(root: string): Array<{ dir: string; pkg: Pkg }> {
  const out: Array<{ dir: string; pkg: Pkg }> = [];
  for (const top of WORKSPACE_DIRS) {
    const d = path.join(root, top);
    if (!existsSync(d)) continue;
    for (const name of readdirSync(d).sort()) {
      const pj = path.join(d, name, 'package.json');
      if (existsSync(pj)) out.push({ dir: path.join(top, name), pkg: JSON.parse(readFileSync(pj, 'utf8')) as Pkg });
    }
  }
  return out;
}

/** The {name, version} a generated src/package-meta.ts holds. */
function packageMeta(file: string): { name: string; version: string } {
  const m = /name: "([^"]+)", version: "([^"]+)"/.exec(readFileSync(file, 'utf8'));
  if (!m) throw new Error(`${file} is not a generated package-meta`);
  return { name: m[1]!, version: m[2]! };
}

describe('plugin API versioning', () => {
  it("every first-party plugin's name and version come from its own package.json", async () => {
    const byName = new Map(workspacePackages(repo).map((p) => [p.pkg.name, p] as const));
    const plugins = await loadDefaultPlugins();
    expect(plugins.length).toBeGreaterThan(10);
    for (const entry of plugins) {
      const meta = (Array.isArray(entry) ? entry[0] : (entry as PluginDefinition<unknown>)).meta;
      const p = byName.get(meta.name);
      expect(p, `${meta.name} is a workspace package`).toBeDefined();
      expect(meta.version).toBe(p!.pkg.version);
      expect(packageMeta(path.join(repo, p!.dir, 'src/package-meta.ts'))).toEqual({ name: p!.pkg.name, version: p!.pkg.version });
      expect(semver.satisfies(PLUGIN_API, meta.api)).toBe(true);
      // One kernel per install: plugins name it as a peer, never as a dependency.
      const pj = JSON.parse(readFileSync(path.join(repo, p!.dir, 'package.json'), 'utf8')) as Pkg & { dependencies?: Record<string, string> };
      expect(pj.peerDependencies?.['@ptxforge/kernel'], `${meta.name} peer-depends on the kernel`).toBeDefined();
      expect(pj.dependencies?.['@ptxforge/kernel']).toBeUndefined();
      // ... nor through what it depends on: every workspace package it installs takes the kernel as a peer too.
      const seen = new Set<string>();
      const todo = Object.keys(pj.dependencies ?? {});
      while (todo.length) {
        const d = todo.pop()!;
        const dep = byName.get(d);
        if (!dep || seen.has(d)) continue;
        seen.add(d);
        const dj = JSON.parse(readFileSync(path.join(repo, dep.dir, 'package.json'), 'utf8')) as Pkg & { dependencies?: Record<string, string> };
        expect(dj.dependencies?.['@ptxforge/kernel'], `${meta.name} -> ${d} must not bring a second kernel`).toBeUndefined();
        todo.push(...Object.keys(dj.dependencies ?? {}));
      }
    }
  });

  // The real release step on a copy of the workspace's manifests: `changeset version` with the pending
  // changesets plus one that bumps the kernel a major version. Afterwards every plugin's generated
  // package-meta follows its bumped package.json, its kernel peer range still admits the bumped kernel, and
  // the host (whose PLUGIN_API a release does not touch) loads every first-party plugin under its new version.
  it.skipIf(!changesetBin)('after `changeset version` every first-party plugin still loads', async () => {
    const tmp = mkdtempSync(path.join(tmpdir(), 'ptxforge-release-'));
    try {
      mkdirSync(path.join(tmp, '.changeset'));
      for (const f of readdirSync(path.join(repo, '.changeset'))) {
        if (f.endsWith('.md') || f === 'config.json') copyFileSync(path.join(repo, '.changeset', f), path.join(tmp, '.changeset', f));
      }
      writeFileSync(path.join(tmp, '.changeset', 'zz-kernel-release-test.md'), '---\n"@ptxforge/kernel": major\n---\n\nrelease test\n');
      for (const f of ['package.json', 'pnpm-workspace.yaml']) copyFileSync(path.join(repo, f), path.join(tmp, f));
      const before = workspacePackages(repo);
      for (const p of before) {
        mkdirSync(path.join(tmp, p.dir, 'src'), { recursive: true });
        copyFileSync(path.join(repo, p.dir, 'package.json'), path.join(tmp, p.dir, 'package.json'));
      }
      execFileSync(process.execPath, [changesetBin!, 'version'], { cwd: tmp, stdio: 'pipe' });

      const after = new Map(workspacePackages(tmp).map((p) => [p.pkg.name, p] as const));
      const kernelBefore = before.find((p) => p.pkg.name === '@ptxforge/kernel')!.pkg.version;
      const kernelAfter = after.get('@ptxforge/kernel')!.pkg.version;
      expect(semver.major(kernelAfter)).toBeGreaterThan(semver.major(kernelBefore));

      const plugins = await loadDefaultPlugins();
      const rebuilt = plugins.map((entry) => {
        const def = (Array.isArray(entry) ? entry[0] : entry) as PluginDefinition<unknown>;
        const p = after.get(def.meta.name)!;
        // What the package's build does after the release: regenerate src/package-meta.ts.
        execFileSync(process.execPath, [path.join(repo, 'scripts/gen-package-meta.mjs'), path.join(tmp, p.dir)]);
        const meta = packageMeta(path.join(tmp, p.dir, 'src/package-meta.ts'));
        expect(meta).toEqual({ name: p.pkg.name, version: p.pkg.version });
        const peer = p.pkg.peerDependencies?.['@ptxforge/kernel'];
        expect(peer && semver.satisfies(kernelAfter, peer), `${p.pkg.name} peer range ${peer} admits kernel ${kernelAfter}`).toBe(true);
        return definePlugin({ ...def.meta, ...meta }, def.factory);
      });
      const tc = createToolchain({ plugins: rebuilt });
      expect(tc.registry.plugins.map((m) => m.version).every((v) => semver.valid(v))).toBe(true);
      expect(tc.listPhases('sm_90')).toHaveLength(159);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }, 120_000);
});
