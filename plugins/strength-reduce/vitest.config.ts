import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@ptxforge/source'] },
  ssr: { resolve: { conditions: ['@ptxforge/source'], externalConditions: ['@ptxforge/source'] } },
  // The fast-check property test runs a few seconds of interpretation; 5 s (or 30 s) is too tight on a loaded shared CPU.
  test: { include: ['src/**/*.test.ts'], testTimeout: 120000 },
});
