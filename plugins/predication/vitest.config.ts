import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@ptxforge/source'] },
  ssr: { resolve: { conditions: ['@ptxforge/source'], externalConditions: ['@ptxforge/source'] } },
  test: { include: ['src/**/*.test.ts'], testTimeout: 60000 },
});
