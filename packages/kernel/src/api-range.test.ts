import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { apiSatisfies } from './plugin.js';

describe('apiSatisfies (the fast path of the plugin API check)', () => {
  it('agrees with semver.satisfies for caret ranges over a grid of versions', () => {
    const parts = [0, 1, 2, 10];
    const versions = parts.flatMap((a) => parts.flatMap((b) => parts.map((c) => `${a}.${b}.${c}`)));
    for (const range of versions.map((v) => `^${v}`)) {
      for (const v of versions) expect(apiSatisfies(v, range), `${v} in ${range}`).toBe(semver.satisfies(v, range, { includePrerelease: true }));
    }
  });

  it('leaves other ranges and versions to semver', () => {
    for (const [v, r] of [['1.2.0', '>=1.0.0 <2'], ['2.0.0', '1.x || 2.x'], ['1.0.0-rc.1', '^1.0.0-rc.0'], ['1.5.0', '~1.4.0'], ['1.0.0', '*']] as const) {
      expect(apiSatisfies(v, r)).toBe(semver.satisfies(v, r, { includePrerelease: true }));
    }
  });
});
