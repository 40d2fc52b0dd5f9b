import { defineConfig } from 'vitest/config';

// Resolve workspace packages to their TypeScript sources (the `@ptxforge/source` export condition), so
// tests never run against a stale dist/.
const conditions = ['@ptxforge/source'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: { include: ['src/**/*.test.ts'], testTimeout: 90000 },
});
