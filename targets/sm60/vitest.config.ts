import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@ptxforge/source'] },
  test: { include: ['src/**/*.test.ts'] },
});
