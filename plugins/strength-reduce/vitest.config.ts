import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@ptxforge/source'] },
  ssr: { resolve: { conditions: ['@ptxforge/source'], externalConditions: ['@ptxforge/source'] } },
  // The fast-check property test runs a few seconds of interpretation; 5 s is too tight on a shared CPU.
  test: { include: ['src/**/*.test.ts'], testTimeout: 30000 },
});
