import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createToolchain, isPtxforgeError, KNOWN_ARCHS, type PluginDefinition, type PluginEntry } from '@ptxforge/kernel';
import { PRESET_DEFAULT_PACKAGES } from '@ptxforge/preset-default/packages';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_PLUGIN_PACKAGES, defaultImporter, loadDefaultPlugins, moduleNotFound, OPTIONAL_PLUGIN_PACKAGES, TARGET_PACKAGES, type ModuleImporter } from './plugins.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const app = path.resolve(here, '..');
const repo = path.resolve(app, '../..');

interface Manifest {
  name: string;
  files?: string[];
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  devDependencies?: Record<string, string>;
}

/** Every workspace package: name -> its folder and manifest. */
function workspace(): Map<string, { dir: string; pkg: Manifest }> {
  const out = new Map<string, { dir: string; pkg: Manifest }>();
  for (const top of ['packages', 'plugins', 'targets', 'apps']) {
    for (const name of readdirSync(path.join(repo, top))) {
      const f = path.join(repo, top, name, 'package.json');
      if (existsSync(f)) {
        const pkg = JSON.parse(readFileSync(f, 'utf8')) as Manifest;
        out.set(pkg.name, { dir: path.join(repo, top, name), pkg });
      }
    }
  }
  return out;
}

/** What `npm install` would install for `names`: the packages, their dependencies and required peers. */
function installClosure(ws: ReturnType<typeof workspace>, names: readonly string[]): Map<string, string> {
  const where = new Map<string, string>(); // name -> source folder (workspace) or real folder (external)
  const todo: Array<{ name: string; from: string }> = names.map((name) => ({ name, from: repo }));
  while (todo.length) {
    const { name, from } = todo.pop()!;
    if (where.has(name)) continue;
    const w = ws.get(name);
    if (w) {
      where.set(name, w.dir);
      const optional = w.pkg.peerDependenciesMeta ?? {};
      const peers = Object.keys(w.pkg.peerDependencies ?? {}).filter((p) => !optional[p]?.optional);
      for (const d of [...Object.keys(w.pkg.dependencies ?? {}), ...peers]) todo.push({ name: d, from: w.dir });
    } else {
      // A registry package: the copy pnpm installed for the package that depends on it (its own
      // dependencies resolve from its real folder in pnpm's store).
      where.set(name, realpathSync(path.join(from, 'node_modules', name)));
    }
  }
  return where;
}

/**
 * A flat node_modules as npm would lay out `@ptxforge/cli` installed with `extra` beside it: workspace
 * packages are copied (package.json and their published `files`), so no workspace link can make another
 * package resolvable; registry packages are linked.
 */
function install(root: string, extra: readonly string[]): Map<string, string> {
  const ws = workspace();
  const closure = installClosure(ws, ['@ptxforge/cli', ...extra]);
  for (const [name, src] of closure) {
    const dest = path.join(root, 'node_modules', name);
    mkdirSync(path.dirname(dest), { recursive: true });
    const w = ws.get(name);
    if (!w) {
      symlinkSync(src, dest, 'dir');
      continue;
    }
    mkdirSync(dest);
    cpSync(path.join(src, 'package.json'), path.join(dest, 'package.json'));
    for (const f of w.pkg.files ?? ['dist']) {
      if (existsSync(path.join(src, f))) cpSync(path.join(src, f), path.join(dest, f), { recursive: true });
    }
  }
  writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'user-project', private: true, dependencies: Object.fromEntries(['@ptxforge/cli', ...extra].map((n) => [n, '*'])) }, null, 2));
  return closure;
}

/** An importer that sees only the packages in `installed` (and records what was asked). */
function onlyInstalled(installed: readonly string[], asked: string[]): ModuleImporter {
  return (spec) => {
    asked.push(spec);
    return installed.includes(spec) || !/^@ptxforge\/(target-|ptx$|plugin-)/.test(spec) ? defaultImporter(spec) : Promise.reject(moduleNotFound(spec));
  };
}

const names = (plugins: readonly PluginEntry[]): string[] => plugins.map((p) => (Array.isArray(p) ? (p[0] as PluginDefinition<unknown>) : (p as PluginDefinition<unknown>)).meta.name);

describe('the CLI loads the target for -arch from the installed packages', () => {
  it('its package lists are the preset\'s, with the targets as optional peers and nothing depending on a target', () => {
    expect(['@ptxforge/plugin-core', ...OPTIONAL_PLUGIN_PACKAGES]).toEqual([...PRESET_DEFAULT_PACKAGES]);
    expect(TARGET_PACKAGES).toEqual(PRESET_DEFAULT_PACKAGES.filter((p) => p.startsWith('@ptxforge/target-')));
    const ws = workspace();
    const cli = ws.get('@ptxforge/cli')!.pkg;
    for (const t of TARGET_PACKAGES) {
      expect(cli.dependencies?.[t], `${t} is not a dependency of the CLI`).toBeUndefined();
      expect(cli.peerDependencies?.[t], `${t} is a peer of the CLI`).toBeDefined();
      expect(cli.peerDependenciesMeta?.[t]?.optional, `${t} is an optional peer`).toBe(true);
    }
    for (const p of ['@ptxforge/plugin-core', ...CLI_PLUGIN_PACKAGES]) expect(cli.dependencies?.[p], `${p} is a dependency of the CLI`).toBeDefined();
    // Installing the CLI alone brings no target package, whatever depends on what.
    const closure = installClosure(ws, ['@ptxforge/cli']);
    expect([...closure.keys()].filter((n) => TARGET_PACKAGES.includes(n))).toEqual([]);
    expect(closure.has('@ptxforge/preset-default')).toBe(false);
  });

  it('loads only the package that serves -arch', async () => {
    const asked: string[] = [];
    const plugins = await loadDefaultPlugins({ arch: 'sm_90', importer: onlyInstalled([...OPTIONAL_PLUGIN_PACKAGES], asked) });
    expect(names(plugins).filter((n) => n.startsWith('@ptxforge/target-'))).toEqual(['@ptxforge/target-sm90']);
    expect(asked.filter((n) => n.startsWith('@ptxforge/target-'))).toEqual(['@ptxforge/target-sm90']);
    expect(names(plugins)).toEqual(['@ptxforge/plugin-core', ...OPTIONAL_PLUGIN_PACKAGES.filter((p) => !p.startsWith('@ptxforge/target-') || p === '@ptxforge/target-sm90')]);
  });

  it('an arch whose package is not installed is TARGET_NOT_INSTALLED naming the package, listing what is installed', async () => {
    const installed = OPTIONAL_PLUGIN_PACKAGES.filter((p) => !p.startsWith('@ptxforge/target-') || p === '@ptxforge/target-sm90');
    for (const [arch, pkg] of [['sm_80', '@ptxforge/target-sm80'], ['sm_50', '@ptxforge/target-sm50'], ['sm_75', '@ptxforge/target-sm70']] as const) {
      expect(KNOWN_ARCHS.get(arch)).toBe(pkg);
      const plugins = await loadDefaultPlugins({ arch, importer: onlyInstalled(installed, []) });
      const tc = createToolchain({ plugins });
      let err: unknown;
      try {
        tc.resolveTarget(arch);
      } catch (e) {
        err = e;
      }
      expect(isPtxforgeError(err) && err.code).toBe('TARGET_NOT_INSTALLED');
      expect((err as Error).message).toContain(`install ${pkg}`);
      expect((err as Error).message).toContain('installed: @ptxforge/target-sm90: sm_90, sm_90a');
      // The installed target still compiles.
      expect(tc.resolveTarget('sm_90').owner).toBe('@ptxforge/target-sm90');
    }
  });

  it('an error inside an installed package is not mistaken for a missing package', async () => {
    const broken: ModuleImporter = (spec) => (spec === '@ptxforge/target-sm90' ? Promise.reject(Object.assign(new Error("Cannot find module './tables.js'"), { code: 'ERR_MODULE_NOT_FOUND' })) : defaultImporter(spec));
    await expect(loadDefaultPlugins({ arch: 'sm_90', importer: broken })).rejects.toThrow('tables.js');
  });
});

// End to end: the built CLI installed as npm would with only @ptxforge/target-sm90 beside it (packages
// copied, so the workspace links that make every target resolvable in this repository are not there).
const built = existsSync(path.join(app, 'dist/bundle/cli.js'));
describe.skipIf(!built)('a real install of @ptxforge/cli with only @ptxforge/target-sm90', () => {
  let root = '';
  let closure = new Map<string, string>();
  const ptx = path.join(repo, 'packages/ptx/test/fixtures/kernels/hand_vector_add.ptx');
  beforeAll(() => {
    root = mkdtempSync(path.join(tmpdir(), 'ptxforge-install-'));
    closure = install(root, ['@ptxforge/target-sm90']);
  }, 120_000);
  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });
  const cli = () => path.join(root, 'node_modules/@ptxforge/cli');
  // The ESM bundle and the launcher (which starts from the V8 snapshot when one was built by this node).
  const ways: Array<[string, () => string[]]> = [
    ['the ESM bundle', () => [process.execPath, path.join(cli(), 'dist/bundle/cli.js')]],
    ['the launcher', () => ['sh', path.join(cli(), 'bin/ptxforge')]],
  ];

  it('has exactly one target package installed', () => {
    expect([...closure.keys()].filter((n) => n.startsWith('@ptxforge/target-sm'))).toEqual(['@ptxforge/target-sm90']);
    expect(existsSync(path.join(root, 'node_modules/@ptxforge/target-sm80'))).toBe(false);
    expect(existsSync(path.join(root, 'node_modules/@ptxforge/kernel/package.json'))).toBe(true);
  });

  for (const [label, cmd] of ways) {
    it(`${label}: -arch=sm_90 compiles to a cubin, -arch=sm_80 names @ptxforge/target-sm80`, () => {
      const [exe, ...pre] = cmd();
      const out = path.join(root, `${label.replace(/\W/g, '')}.cubin`);
      const ok = spawnSync(exe!, [...pre, '-arch=sm_90', '-O3', ptx, '-o', out], { cwd: root, encoding: 'utf8' });
      expect(ok.stderr).toBe('');
      expect(ok.status).toBe(0);
      expect(readFileSync(out).subarray(0, 4)).toEqual(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));

      const bad = spawnSync(exe!, [...pre, '-arch=sm_80', ptx, '-o', out], { cwd: root, encoding: 'utf8' });
      expect(bad.status).toBe(1);
      expect(bad.stdout).toBe('');
      expect(bad.stderr).toContain('TARGET_NOT_INSTALLED');
      expect(bad.stderr).toContain('install @ptxforge/target-sm80');
      expect(bad.stderr).toContain('installed: @ptxforge/target-sm90: sm_90, sm_90a');
    }, 120_000);
  }
});
